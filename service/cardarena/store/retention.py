"""Retention: what an operator may drop from Redis, and the one function that drops it.

Nothing else in the product deletes data (but ``cardarena bot delete``, of a bot that never
played: :meth:`~cardarena.store.bots.BotStore.delete`); without this a term of nightly
tournaments grows Redis by about 2.25 GB, a third of it replays (docs/performance.md,
"Scale").  :func:`prune` drops two things and keeps everything else:

* **Replays** (``match:<id>:replay``) of finished matches once their tournament ended (finished
  or cancelled) at least the retention period ago; a match outside any tournament (``cardarena
  match``) counts from its own end.  A pruned match keeps its record (spec, status, result,
  times: the match lists, the standings, ratings and result history read nothing else) and is
  marked ``replay_pruned`` (``"<unix time> <days>"``: one field, ~60 bytes a match), so readers
  answer "pruned" instead of "unknown".  A match of a tournament that is upcoming or running is never touched (its
  replays may still be withheld), nor one that is not ``done``.
* **Entries of the results stream** that every consumer group has acknowledged (entries
  older than each group's oldest pending entry and its last delivered one): they were only
  the queue between the service and the tournament workers.  Without a consumer group nothing
  is trimmed (a group created later reads the stream from its start).

The period is ``CARDARENA_REPLAY_RETENTION_DAYS`` (:func:`retention_days`; unset: replays are
kept for ever) or the ``--older-than`` of ``cardarena prune``.  Every step is batched
(:data:`BATCH` matches per round trip) and idempotent; each replay is dropped by a script that
re-checks the match, so two prunes running at once drop each replay once and count it once.

A run costs what is new since the last one, not the whole history: it resumes the scan of
``matches:all`` after the last match an earlier run examined (:data:`CURSOR`), and a match it
must keep (its tournament is still running, or ended after the cutoff) is **held** under its
tournament (:func:`held_key`, or :data:`OWN` outside one), to be read again only once that
tournament ended before a run's cutoff (one read of the tournament per run until then).  This
holds whatever period each run is given: a shorter one later reaches the newly due matches
through the scan and the held lists, a longer one finds nothing due in them yet.  A run that
stops midway resumes after its last recorded batch; dry runs read the same and record nothing.
Deleting ``<prefix>prune:cursor`` makes the next run examine every match again (safe, slow).

The one other deletion is :func:`drop_namespace`: a local run (``cardarena match``,
``tournament run``) on an external Redis works under a key prefix of its own and drops every
key under it when it ends.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import redis

from .keys import key
from .matches import MatchStore

RETENTION_ENV = "CARDARENA_REPLAY_RETENTION_DAYS"
"""Days after its tournament ended that a replay is kept (unset or empty: for ever)."""

BATCH = 500
"""Matches examined (and replays dropped) per round trip."""

ENDED = ("finished", "cancelled")
"""Tournament statuses whose replays may be dropped."""

_DROP = """
if redis.call('HGET', KEYS[1], 'status') ~= 'done' then return -1 end
if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
local size = redis.call('MEMORY', 'USAGE', KEYS[2]) or 0
if ARGV[3] == '1' then return size end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'replay_pruned', ARGV[1] .. ' ' .. ARGV[2])
return size
"""


_GLOB_SPECIAL = frozenset("*?[]\\")


def drop_namespace(client: redis.Redis, namespace: str, *, batch: int = BATCH) -> int:
    """Delete every key that starts with ``namespace`` (SCAN with a MATCH on it, UNLINK in
    batches of up to ``batch`` keys) and nothing else; returns how many were deleted.

    For a local run's private prefix (``ca:match-<run>:``) once everything writing under it
    has stopped.  An empty ``namespace`` (every key) is refused with ``ValueError``.
    """
    if not namespace:
        raise ValueError("refusing to drop an empty key prefix (every key)")
    pattern = "".join("\\" + c if c in _GLOB_SPECIAL else c for c in namespace) + "*"
    raw = namespace.encode()
    dropped = 0
    found: list[bytes] = []
    for name in client.scan_iter(match=pattern, count=batch):
        if isinstance(name, str):
            name = name.encode()
        if name.startswith(raw):  # the MATCH already says so; a second look costs nothing
            found.append(name)
        if len(found) >= batch:
            dropped += int(client.unlink(*found))
            found.clear()
    if found:
        dropped += int(client.unlink(*found))
    return dropped


def retention_days(environ: dict[str, str] | None = None) -> float | None:
    """The configured retention period in days (``CARDARENA_REPLAY_RETENTION_DAYS``), or
    ``None`` when unset or empty (keep for ever).  ``ValueError`` naming the setting for
    anything but a number > 0."""
    raw = (os.environ if environ is None else environ).get(RETENTION_ENV, "").strip()
    if not raw:
        return None
    try:
        return checked_days(raw, RETENTION_ENV)
    except ValueError as exc:
        raise ValueError(f"{exc} (unset or empty: replays are kept for ever)") from None


def checked_days(raw: str | float, what: str) -> float:
    """``raw`` as a number of days > 0; ``ValueError`` naming ``what`` otherwise."""
    try:
        days = float(raw)
    except ValueError:
        raise ValueError(f"{what} must be a number of days > 0, not {raw!r}") from None
    if not days > 0 or days == float("inf"):
        raise ValueError(f"{what} must be a number of days > 0, not {raw!r}")
    return days


@dataclass
class StreamReport:
    """What :func:`prune` did (or would do) to the results stream."""

    length: int = 0
    """Entries before."""
    trimmed: int = 0
    """Entries dropped (dry run: that would be)."""
    groups: int = 0
    """Consumer groups (0: nothing is trimmed)."""
    kept_from: str | None = None
    """The oldest entry id kept (everything before it is acknowledged by every group)."""


@dataclass
class PruneReport:
    """What :func:`prune` dropped (or, ``dry_run``, would drop)."""

    older_than_days: float | None
    """The retention period (``None``: replays were not considered)."""
    cutoff: float | None
    """Unix time: replays of tournaments (or matches) that ended before it are dropped."""
    dry_run: bool
    examined: int = 0
    """Matches read: those created before the cutoff that no earlier run examined, and those
    an earlier run held (kept) whose tournament (or, outside one, the match) may have ended
    before this cutoff.  A match is examined once more each time it may have become due,
    never again once it has nothing left to drop."""
    resumed_after: float | None = None
    """Unix time (the creation) of the last match an earlier run examined in order: this run
    read only matches created after it, besides the held ones (``None``: from the first)."""
    replays: int = 0
    """Replays dropped (dry run: that would be)."""
    replay_bytes: int = 0
    """Their memory (``MEMORY USAGE``), in bytes."""
    never_played: int = 0
    """Examined and found without a replay to drop: withdrawn (a cancelled tournament's
    unplayed matches) or no longer stored."""
    already_pruned: int = 0
    """Examined and found pruned already (by another run at the same time, or one that stopped
    before it recorded its progress)."""
    kept_live: int = 0
    """Created before the cutoff, but of a tournament that is upcoming or running: kept (held)."""
    kept_recent: int = 0
    """Created before the cutoff, but their tournament (or they) ended after it, or they have
    not ended yet: kept (held)."""
    stream: StreamReport = field(default_factory=StreamReport)

    def to_json(self) -> dict[str, Any]:
        """JSON form (``cardarena prune --json``)."""
        return asdict(self)


def _s(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _float(raw: Any) -> float | None:
    try:
        return float(_s(raw)) if raw not in (None, b"", "") else None
    except ValueError:
        return None


def prune(
    client: redis.Redis,
    *,
    older_than_days: float | None,
    dry_run: bool = False,
    now: float | None = None,
    batch: int = BATCH,
    progress: Callable[[PruneReport], None] | None = None,
) -> PruneReport:
    """Drop the replays that ended more than ``older_than_days`` ago (``None``: none) and the
    results-stream entries every consumer group has acknowledged; see the module docstring.
    ``dry_run``: count and measure only, change nothing.  ``progress`` is called after every
    batch.  Idempotent; safe to run in several processes at once."""
    if older_than_days is not None:
        older_than_days = checked_days(older_than_days, "older than")
    r: Any = client
    now = time.time() if now is None else now
    cutoff = None if older_than_days is None else now - older_than_days * 86400.0
    report = PruneReport(older_than_days=older_than_days, cutoff=cutoff, dry_run=dry_run)
    if cutoff is not None:
        _prune_replays(r, report, cutoff, now, batch, progress)
    report.stream = trim_results(r, dry_run=dry_run)
    return report


TURN_S = 60.0
"""How long :func:`prune_in_turn`'s hold on the deployment's prune turn (``<prefix>prune:turn``)
lasts unless renewed: the running prune renews it after every batch, so a long one keeps it
while another one started meanwhile skips; the turn of a pruner that was killed lapses within
this and the next prune (the redelivered task among them) runs."""

_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"

_RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0"


def prune_in_turn(
    client: redis.Redis,
    *,
    older_than_days: float | None,
    turn_s: float = TURN_S,
    batch: int = BATCH,
    progress: Callable[[PruneReport], None] | None = None,
) -> PruneReport | None:
    """:func:`prune` (``batch`` and ``progress`` as there), unless another
    :func:`prune_in_turn` holds the turn (then ``None``): the periodic task's form, so that a
    slow prune and the next one sent do not both scan.

    The turn is taken for ``turn_s`` seconds and renewed for as long again after every batch,
    only while this run still holds it (compare and extend, in one script): a run that stalls
    longer than ``turn_s`` between two batches, or whose process dies, loses it, and the next
    prune runs.  A run that lost its turn goes on to its end (two prunes at once are safe, only
    wasteful) and does not take it back."""
    r: Any = client
    turn, me = key("prune", "turn"), uuid.uuid4().hex
    ttl_ms = max(1, int(turn_s * 1000))
    if not r.set(turn, me, nx=True, px=ttl_ms):
        return None

    def renew(report: PruneReport) -> None:
        r.eval(_RENEW, 1, turn, me, ttl_ms)
        if progress is not None:
            progress(report)

    try:
        return prune(client, older_than_days=older_than_days, batch=batch, progress=renew)
    finally:
        r.eval(_RELEASE, 1, turn, me)


HELD = ("prune", "held")
"""``<prefix>prune:held``: the tournaments some of whose matches a run examined and kept
(their matches are in ``<prefix>prune:held:<tournament>``, scored like ``matches:all``)."""
OWN = ("prune", "own")
"""``<prefix>prune:own``: matches outside any tournament that a run examined and kept."""
CURSOR = ("prune", "cursor")
"""``<prefix>prune:cursor``: the id of the last match of ``matches:all`` (in its order) up to
which every match was examined by a run that recorded what it kept."""

_ADVANCE = """
local new = redis.call('ZRANK', KEYS[2], ARGV[1])
if not new then return 0 end
local cur = redis.call('GET', KEYS[1])
if cur then
  local old = redis.call('ZRANK', KEYS[2], cur)
  if old and old >= new then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
"""

_RELEASE_HELD = """
if redis.call('ZCARD', KEYS[2]) > 0 then return 0 end
return redis.call('SREM', KEYS[1], ARGV[1])
"""


def held_key(tid: str) -> str:
    """The matches of tournament ``tid`` a run examined and kept (sorted set)."""
    return key(*HELD, tid)


class _Pass:
    """One :func:`prune` of replays: what it has learnt (tournament ends) and its scripts.

    Each match is examined, by a run, once after it fell behind the cutoff: dropped, found
    with nothing to drop (pruned already, withdrawn, unknown), or **held**: listed under its
    tournament (:func:`held_key`) or in :data:`OWN`, to be examined again only when its
    tournament (or, outside one, the match) may have ended before a later cutoff.  The scan of
    ``matches:all`` resumes after :data:`CURSOR`, so a run reads what is new since the last
    one, the held matches of tournaments that ended before its cutoff, and one record per held
    tournament.  Writes only ever add to the held lists before the cursor moves past a match,
    and remove a match from them once it has nothing left to drop, so a run that stops midway
    or runs beside another loses nothing; at worst a match is examined twice."""

    def __init__(
        self, r: Any, report: PruneReport, cutoff: float, now: float, progress: Callable[[PruneReport], None] | None
    ) -> None:
        self.r, self.report, self.cutoff, self.progress = r, report, cutoff, progress
        self.dry = report.dry_run
        self.ms = MatchStore(r)
        self.drop = r.register_script(_DROP)
        self.advance = r.register_script(_ADVANCE)
        self.release = r.register_script(_RELEASE_HELD)
        self.args = [repr(now), f"{report.older_than_days:g}", "1" if self.dry else "0"]
        self.ended_at: dict[str, float | None] = {}  # tournament id -> when it ended (None: not ended)

    def _done(self) -> None:
        if self.progress is not None:
            self.progress(self.report)

    def judge(self, ids: list[str]) -> list[str | None]:
        """Examine ``ids`` (dropping the replays that are due): for each, ``None`` if nothing
        is left to drop, else the tournament (``""``: none) under which it is held."""
        report = self.report
        pipe = self.r.pipeline(transaction=False)
        for mid in ids:
            pipe.hmget(key("match", mid), "status", "finished_at", "tournament", "replay_pruned")
        rows = pipe.execute()
        _tournament_ends(self.r, sorted({_s(row[2]) for row in rows if row[2]} - self.ended_at.keys()), self.ended_at)
        out: list[str | None] = []
        chosen: list[str] = []
        for mid, (status, finished, raw_tid, pruned) in zip(ids, rows, strict=True):
            report.examined += 1
            tid = _s(raw_tid) if raw_tid else ""
            end = self.ended_at[tid] if tid else 0.0
            if status in (None, b"withdrawn"):  # unknown, or never played: it has no replay
                report.never_played += 1
                out.append(None)
                continue
            if status == b"done" and pruned is not None:
                report.already_pruned += 1
                out.append(None)
                continue
            if end is None:
                report.kept_live += 1
                out.append(tid)
                continue
            if status != b"done" or max(end, _float(finished) or 0.0) > self.cutoff:
                report.kept_recent += 1  # ended after the cutoff, or has not ended yet
                out.append(tid)
                continue
            chosen.append(mid)
            out.append(None)
        if chosen:
            pipe = self.r.pipeline(transaction=False)
            for mid in chosen:
                self.drop(keys=[key("match", mid), key("match", mid, "replay")], args=self.args, client=pipe)
            for size in pipe.execute():
                if int(size) >= 0:  # else: dropped meanwhile by another run, or never stored
                    report.replays += 1
                    report.replay_bytes += int(size)
        return out

    def held(self, batch: int) -> None:
        """Examine again what earlier runs held, where it may now be due."""
        tids = sorted(_s(t) for t in self.r.smembers(key(*HELD)))
        _tournament_ends(self.r, [t for t in tids if t not in self.ended_at], self.ended_at)
        waiting = [t for t in tids if (end := self.ended_at[t]) is None or end > self.cutoff]
        if waiting:
            pipe = self.r.pipeline(transaction=False)
            for tid in waiting:
                pipe.zcount(held_key(tid), "-inf", self.cutoff)
            for tid, count in zip(waiting, pipe.execute(), strict=True):
                if self.ended_at[tid] is None:
                    self.report.kept_live += int(count)
                else:
                    self.report.kept_recent += int(count)
        for tid in tids:
            if tid in waiting:
                continue
            self._drain(held_key(tid), batch)
            if not self.dry:
                self.release(keys=[key(*HELD), held_key(tid)], args=[tid])
        self._drain(key(*OWN), batch)

    def _drain(self, held: str, batch: int) -> None:
        offset = 0
        while ids := [_s(m) for m in self.r.zrangebyscore(held, "-inf", self.cutoff, start=offset, num=batch)]:
            left = [mid for mid, tid in zip(ids, self.judge(ids), strict=True) if tid is None]
            if left and not self.dry:
                self.r.zrem(held, *left)
                offset -= len(left)
            offset += len(ids)
            self._done()

    def new(self, batch: int) -> None:
        """Examine the matches of ``matches:all`` behind the cutoff that no run has yet.

        A match ends after it is created (its score in the index), so every match that ended
        before the cutoff is among those created before it: a prefix of the index, which only
        ever grows at the new end, so a rank in it names the same match from run to run."""
        ms, r = self.ms, self.r
        cursor = r.get(key(*CURSOR))
        rank, score = (None, None)
        if cursor is not None:
            rank, score = r.pipeline(transaction=False).zrank(ms.ALL, cursor).zscore(ms.ALL, cursor).execute()
        start = 0 if rank is None else int(rank) + 1
        self.report.resumed_after = None if score is None else float(score)
        total = int(r.zcount(ms.ALL, "-inf", self.cutoff))
        for first in range(start, total, batch):
            got = [(_s(m), s) for m, s in r.zrange(ms.ALL, first, min(first + batch, total) - 1, withscores=True)]
            kept = self.judge([mid for mid, _ in got])
            if not self.dry:
                pipe = r.pipeline(transaction=True)
                for (mid, score), tid in zip(got, kept, strict=True):
                    if tid is None:
                        continue
                    if tid:
                        pipe.zadd(held_key(tid), {mid: score})
                        pipe.sadd(key(*HELD), tid)
                    else:
                        pipe.zadd(key(*OWN), {mid: score})
                self.advance(keys=[key(*CURSOR), ms.ALL], args=[got[-1][0]], client=pipe)
                pipe.execute()
            self._done()


def _prune_replays(
    r: Any, report: PruneReport, cutoff: float, now: float, batch: int, progress: Callable[[PruneReport], None] | None
) -> None:
    run = _Pass(r, report, cutoff, now, progress)
    run.held(batch)  # first: what the scan below holds was examined already
    run.new(batch)


def _tournament_ends(r: Any, tids: list[str], into: dict[str, float | None]) -> None:
    """For each tournament id: when it ended (finished or cancelled), ``None`` if it has not;
    a tournament with no record (none can be running) counts as ended at 0."""
    if not tids:
        return
    pipe = r.pipeline(transaction=False)
    for tid in tids:
        pipe.hmget(key("tournament", tid), "status", "finished_at")
    for tid, (status, finished) in zip(tids, pipe.execute(), strict=True):
        if status is None:
            into[tid] = 0.0
        elif _s(status) in ENDED:
            into[tid] = _float(finished) or 0.0
        else:
            into[tid] = None


def trim_results(client: redis.Redis, *, dry_run: bool = False) -> StreamReport:
    """Trim the results stream to the entries some consumer group may still need: from the
    oldest entry pending in any group (delivered, not acknowledged) or, in a group with none
    pending, its last delivered entry (later ones are not delivered yet).  Nothing without a
    group.  Entries only ever join a group's pending list above its last delivered id, so the
    bound read first stays safe while the trim runs."""
    r: Any = client
    stream = MatchStore(r).STREAM
    report = StreamReport(length=int(r.xlen(stream)) if r.exists(stream) else 0)
    if not report.length:
        return report
    groups = r.xinfo_groups(stream)
    report.groups = len(groups)
    if not groups:
        return report
    bounds = []
    for g in groups:
        name = _s(g["name"])
        if int(g.get("pending") or 0):
            summary = r.xpending(stream, name)
            low = summary.get("min")
            if low is not None:
                bounds.append(_s(low))
                continue
        bounds.append(_s(g["last-delivered-id"]))
    kept_from = min(bounds, key=_id)
    report.kept_from = kept_from
    if dry_run:
        tail = 0
        cursor = kept_from
        while chunk := r.xrange(stream, min=cursor, max="+", count=1000):
            tail += len(chunk)
            if len(chunk) < 1000:
                break
            cursor = "(" + _s(chunk[-1][0])
        report.trimmed = max(0, report.length - tail)
    else:
        report.trimmed = int(r.xtrim(stream, minid=kept_from, approximate=False))
    return report


def _id(text: str) -> tuple[int, int]:
    ms, _, seq = text.partition("-")
    return int(ms), int(seq or 0)


def pruned_note(info: Mapping[str, str]) -> str | None:
    """Why a finished match has no replay, from its stored fields (``MatchStore.info``):
    ``"replay pruned after 30 days (on 2026-03-01 UTC); the result is kept"``, or ``None`` if
    it is not finished (``done``) or its replay was not pruned."""
    if info.get("status") != "done":
        return None
    at_text, _, days_text = (info.get("replay_pruned") or "").partition(" ")
    at = _float(at_text)
    if at is None:
        return None
    from datetime import UTC, datetime

    days = _float(days_text)
    after = f" after {days:g} days" if days is not None else ""
    return f"replay pruned{after} (on {datetime.fromtimestamp(at, tz=UTC):%Y-%m-%d} UTC); the result is kept"
