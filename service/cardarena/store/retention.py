"""Retention: what an operator may drop from Redis, and the one function that drops it.

Nothing else in the product deletes data; without this a term of nightly tournaments grows
Redis by about 2 GB, nearly all of it replays (docs/performance.md, "Scale").  :func:`prune`
drops two things and keeps everything else:

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
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
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
    """Matches created before the cutoff (every older match is one of them)."""
    replays: int = 0
    """Replays dropped (dry run: that would be)."""
    replay_bytes: int = 0
    """Their memory (``MEMORY USAGE``), in bytes."""
    already_pruned: int = 0
    kept_live: int = 0
    """Old enough, but of a tournament that is upcoming or running: kept."""
    kept_recent: int = 0
    """Done and created before the cutoff, but their tournament (or they) ended after it."""
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


TURN_S = 900
"""How long :func:`prune_in_turn` holds the deployment's prune turn (``<prefix>prune:turn``):
another one started meanwhile skips; the turn of a pruner that died lapses after this."""

_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


def prune_in_turn(client: redis.Redis, *, older_than_days: float | None, turn_s: float = TURN_S) -> PruneReport | None:
    """:func:`prune`, unless another :func:`prune_in_turn` is running (then ``None``): the
    periodic task's form, so that a slow prune and the next one sent do not both scan."""
    r: Any = client
    turn, me = key("prune", "turn"), uuid.uuid4().hex
    if not r.set(turn, me, nx=True, px=max(1, int(turn_s * 1000))):
        return None
    try:
        return prune(client, older_than_days=older_than_days)
    finally:
        r.eval(_RELEASE, 1, turn, me)


def _prune_replays(
    r: Any, report: PruneReport, cutoff: float, now: float, batch: int, progress: Callable[[PruneReport], None] | None
) -> None:
    ms = MatchStore(r)
    drop = r.register_script(_DROP)
    days = f"{report.older_than_days:g}"
    # A match ends after it is created (its score in the index), so every match that ended
    # before the cutoff is among those created before it: a prefix of the index, which only
    # ever grows at the new end, so paging by rank sees each of them once.
    total = int(r.zcount(ms.ALL, "-inf", cutoff))
    ended_at: dict[str, float | None] = {}  # tournament id -> when it ended (None: not ended)
    for start in range(0, total, batch):
        ids = [_s(x) for x in r.zrange(ms.ALL, start, min(start + batch, total) - 1)]
        pipe = r.pipeline(transaction=False)
        for mid in ids:
            pipe.hmget(key("match", mid), "status", "finished_at", "tournament", "replay_pruned")
        rows = pipe.execute()
        wanted = {
            _s(row[2]) for row in rows if row[0] == b"done" and row[2] and row[3] is None and _s(row[2]) not in ended_at
        }
        _tournament_ends(r, sorted(wanted), ended_at)
        chosen: list[str] = []
        for mid, (status, finished, tid, pruned) in zip(ids, rows, strict=True):
            report.examined += 1
            if status != b"done":
                continue
            if pruned is not None:
                report.already_pruned += 1
                continue
            if tid:
                if _s(tid) not in ended_at:
                    continue
                end = ended_at[_s(tid)]
                if end is None:
                    report.kept_live += 1
                    continue
            else:
                end = None
            when = max(x for x in (_float(finished), end, 0.0) if x is not None)
            if when > cutoff:
                report.kept_recent += 1
                continue
            chosen.append(mid)
        if chosen:
            pipe = r.pipeline(transaction=False)
            for mid in chosen:
                drop(
                    keys=[key("match", mid), key("match", mid, "replay")],
                    args=[repr(now), days, "1" if report.dry_run else "0"],
                    client=pipe,
                )
            for size in pipe.execute():
                if int(size) >= 0:
                    report.replays += 1
                    report.replay_bytes += int(size)
        if progress is not None:
            progress(report)


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


def pruned_note(info: dict[str, str]) -> str | None:
    """Why a finished match has no replay, from its stored fields (``MatchStore.info``):
    ``"replay pruned after 30 days (on 2026-03-01 UTC); the result is kept"``, or ``None`` if
    its replay was not pruned."""
    at_text, _, days_text = (info.get("replay_pruned") or "").partition(" ")
    at = _float(at_text)
    if at is None:
        return None
    from datetime import UTC, datetime

    days = _float(days_text)
    after = f" after {days:g} days" if days is not None else ""
    return f"replay pruned{after} (on {datetime.fromtimestamp(at, tz=UTC):%Y-%m-%d} UTC); the result is kept"
