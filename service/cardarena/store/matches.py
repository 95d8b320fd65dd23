"""Match specs, the job queue, leases, write-once results and replays, result events.

The contract between the tournament workers (producers) and service instances (consumers):

1. A producer calls :meth:`MatchStore.enqueue` with a :class:`MatchSpec` whose ``match_id`` is
   deterministic (a tournament's: ``tournament:<hash>``); enqueueing the same id twice is a
   no-op, so a task that runs twice queues nothing new.
2. A service instance calls :meth:`MatchStore.claim`: it pops an id and takes a lease
   (``status`` ``queued`` → ``running``).  While it plays it calls :meth:`MatchStore.renew`.
   A match whose lease expired (a crashed instance) is put back by :meth:`requeue_lost` (the
   reconciler) and replayed from its seed by whoever claims it next.  The lease's value is
   ``<instance>:<run id>`` (:attr:`MatchStore.run_id`: random, one per store, so one per
   service process), and renewing or voiding compares it whole: an instance restarted under
   the same name (``--instance-name``, a pod's name) holds none of the leases of its previous
   life, which lapse and are requeued.  A lease written by an older version (the bare
   instance name) is never this version's either: it lapses the same way.
3. At the end the instance calls :meth:`MatchStore.complete` once: result and replay are
   written **exactly once** (the first completion wins, later ones return ``False``), the
   match's bot statistics are counted with them, and an event is appended to the results
   stream (:data:`RESULTS_STREAM`).  A match that cannot
   finish (a server stopped mid-match) is :meth:`void`-ed: put back for a rerun, never
   half-recorded.  :meth:`withdraw` takes matches out of play for good (``withdrawn``).
4. Consumers of the stream (standings) must themselves count each ``match_id`` once.

Besides ``matches:all`` (every match, scored by the time it was stored), each match is listed
in the indexes of its game, of each of its bots and of each (game, bot) pair
(:meth:`MatchStore.listed`), written with it by :meth:`enqueue`/:meth:`enqueue_many` in the
same atomic step; :meth:`MatchStore.index_older` adds the matches stored before the indexes
existed.
"""

from __future__ import annotations

import json
import secrets
import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import redis

from ..engine import MAX_ACTIONS
from .bots import stat_increments
from .keys import key
from .values import MAX_MS as MAX_MS

LEASE, REPLAY = "lease", "replay"
"""The parts of a match's own keys besides its hash: ``match:<id>:lease``, ``match:<id>:replay``."""


def is_match_id(mid: str) -> bool:
    """Whether ``mid`` can name a match: not empty, and not ending in ``:lease`` or ``:replay``
    (the hash of such an id would be another match's lease or replay key).  Other ids are
    refused by :meth:`MatchStore.enqueue` and unknown to every read."""
    _, colon, last = mid.rpartition(":")
    return bool(mid) and not (colon and last in (LEASE, REPLAY))


def _check_id(mid: str) -> None:
    if not is_match_id(mid):
        raise ValueError(f"bad match id {mid!r}: must be non-empty and not end in ':{LEASE}' or ':{REPLAY}'")


RESULTS_STREAM = "events:results"
"""Stream (under the prefix) with one entry per completed match: ``match_id``, ``tournament``."""
RESULTS_GROUP = "tournaments"
"""Consumer group of the tournament workers on :data:`RESULTS_STREAM` (they record results)."""
REQUEUE_REASONS = ("lease_expired", "voided", "relisted")
"""Why a match went back to the queue, as counted in :attr:`MatchStore.COUNTERS` (field
``requeued:<reason>``): its instance's lease expired (the reconciler took it back), its
instance voided it (stopped mid-match, nobody joined), or it was queued but missing from its
job list (the reconciler listed it again)."""


def _checked_fields(kind: type[Any], given: Mapping[str, Any] | None, what: str) -> dict[str, Any]:
    """``given`` if every key is a field of the dataclass ``kind`` with a value of the field's
    type (whole numbers ≥ 0 for the numbers); ``ValueError`` naming the bad field otherwise."""
    defaults = asdict(kind())
    for name, value in (given or {}).items():
        if name not in defaults:
            raise ValueError(f"{what}: unknown field {name!r}; known: {', '.join(defaults)}")
        if isinstance(defaults[name], int) and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise ValueError(f"{what}: {name} must be a whole number >= 0, not {value!r}")
        if isinstance(defaults[name], str) and not isinstance(value, str):
            raise ValueError(f"{what}: {name} must be a string, not {value!r}")
    return dict(given or {})


@dataclass(frozen=True)
class TimeControl:
    """Clocks for every seat of a match (measured by the server)."""

    move_ms: int = 2000
    """Limit for one decision; beyond it the bank is used."""
    bank_ms: int = 30000
    """Extra time a seat may spend over the match once a move exceeds ``move_ms``."""

    @classmethod
    def checked(cls, given: Mapping[str, Any] | None) -> TimeControl:
        """From user input (JSON); ``ValueError`` naming the bad field."""
        tc = cls(**_checked_fields(cls, given, "time control"))
        if tc.move_ms <= 0:
            raise ValueError("time control: move_ms must be positive")
        for name, value in (("move_ms", tc.move_ms), ("bank_ms", tc.bank_ms)):
            if value > MAX_MS:
                raise ValueError(f"time control: {name} must be at most {MAX_MS} (about 24 days), not {value}")
        return tc


@dataclass(frozen=True)
class FaultPolicy:
    """What happens when a bot times out, disconnects or keeps sending illegal actions."""

    default_action: str = "first"
    """``first`` or ``random`` legal action, played for a seat that timed out or is gone."""
    max_strikes: int = 3
    """Strikes (time-outs, disconnects) before the seat forfeits; 0 disables forfeits."""
    max_rejections: int = 10
    """Illegal answers to one request before it counts as a strike and the default is played."""
    join_timeout_ms: int = 15000
    """How long to wait for invited bots before the no-show rule applies."""
    no_show_attempts: int = 3
    """When none of a match's bots joins, the match is voided and requeued (its bots may be
    connected to another instance); from this claim on it is played anyway, every seat
    forfeiting from the start, so that a tournament with absent bots still finishes.  0: void
    every time."""
    max_actions: int = MAX_ACTIONS
    """Player actions after which a match that has not ended is stopped: a game that loops (or
    bots that found a loop in it) would hold the match, and its tournament, for ever.  The
    match is recorded as a no contest with ``aborted: "action_limit"`` and its replay so far,
    and never played again (it would loop again); docs/service.md, "The action limit"."""

    @classmethod
    def checked(cls, given: Mapping[str, Any] | None) -> FaultPolicy:
        """From user input (JSON); ``ValueError`` naming the bad field."""
        policy = cls(**_checked_fields(cls, given, "fault policy"))
        if policy.default_action not in ("first", "random"):
            raise ValueError(f"fault policy: default_action is 'first' or 'random', not {policy.default_action!r}")
        if policy.join_timeout_ms <= 0:
            raise ValueError("fault policy: join_timeout_ms must be positive")
        if policy.max_actions <= 0:
            raise ValueError("fault policy: max_actions must be positive (every match needs a limit)")
        return policy


@dataclass(frozen=True)
class MatchSpec:
    """Everything needed to play a match; a match is a pure function of this and the bots' actions."""

    match_id: str
    game: str
    players: int
    seats: tuple[str, ...]
    """The bot (by name) in each seat."""
    seed: int | str
    options: dict[str, Any] = field(default_factory=dict)
    time_control: TimeControl = field(default_factory=TimeControl)
    fault_policy: FaultPolicy = field(default_factory=FaultPolicy)
    tournament: str | None = None
    queue: str = ""
    """The lane: only a service claiming from this lane plays the match (``""``: the default
    lane of every ``cardarena service``; a local run (``match``, ``tournament run``) uses its
    own, so it never plays, nor is played by, the matches of a platform on the same Redis)."""

    def to_json(self) -> dict[str, Any]:
        """JSON form (as stored).  The fault policy's ``max_actions`` is left out when it is the
        default (:data:`~cardarena.engine.MAX_ACTIONS`): a service instance of the release before
        it, during a rolling upgrade, reads the spec (its ``FaultPolicy`` refuses unknown fields)
        and plays the match as before."""
        data = asdict(self)
        data["seats"] = list(self.seats)
        if self.fault_policy.max_actions == MAX_ACTIONS:
            del data["fault_policy"]["max_actions"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchSpec:
        """Parse the stored JSON form."""
        return cls(
            match_id=str(data["match_id"]),
            game=str(data["game"]),
            players=int(data["players"]),
            seats=tuple(data["seats"]),
            seed=data["seed"],
            options=dict(data.get("options") or {}),
            time_control=TimeControl(**(data.get("time_control") or {})),
            fault_policy=FaultPolicy(**(data.get("fault_policy") or {})),
            tournament=data.get("tournament"),
            queue=str(data.get("queue") or ""),
        )


_CLAIM = """
local h = KEYS[1]
if redis.call('HGET', h, 'status') ~= 'queued' then return 0 end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) == false then return 0 end
redis.call('HSET', h, 'status', 'running', 'instance', ARGV[5], 'claimed_at', ARGV[3])
redis.call('HINCRBY', h, 'attempts', 1)
redis.call('SADD', KEYS[3], ARGV[4])
return 1
"""

_CLAIM_NEXT = """
local base = ARGV[4]
for _ = 1, 64 do
  local mid = redis.call('RPOP', KEYS[1])
  if not mid then return false end
  local h = base .. mid
  if redis.call('HGET', h, 'status') == 'queued'
      and redis.call('SET', h .. ':lease', ARGV[1], 'NX', 'PX', ARGV[2]) then
    redis.call('HSET', h, 'status', 'running', 'instance', ARGV[5], 'claimed_at', ARGV[3])
    redis.call('HINCRBY', h, 'attempts', 1)
    redis.call('SADD', KEYS[2], mid)
    redis.call('SREM', KEYS[3], mid)
    return {mid, redis.call('HGET', h, 'spec') or ''}
  end
end
return false
"""

_COMPLETE = """
local h = KEYS[1]
local status = redis.call('HGET', h, 'status')
if status == 'done' and redis.call('HGET', h, 'finished_call') == ARGV[7] then return 1 end
if status == false or status == 'done' then return 0 end
redis.call('HSET', h, 'status', 'done', 'result', ARGV[1], 'finished_at', ARGV[3], 'finished_by', ARGV[4],
  'finished_call', ARGV[7])
for i = 7, #KEYS do redis.call('HINCRBY', KEYS[i], ARGV[2 * i - 6], ARGV[2 * i - 5]) end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[3])
redis.call('SREM', KEYS[4], ARGV[5])
redis.call('SREM', KEYS[6], ARGV[5])
redis.call('XADD', KEYS[5], 'MAXLEN', '~', '1000000', '*', 'match_id', ARGV[5], 'tournament', ARGV[6])
return 1
"""

_REQUEUE = """
local h = KEYS[1]
if redis.call('HGET', h, 'status') ~= 'running' then return 0 end
if ARGV[2] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if ARGV[2] == '0' and redis.call('GET', KEYS[2]) ~= ARGV[3] then return 0 end
redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[3], ARGV[1])
if redis.call('HEXISTS', h, 'withdrawn_reason') == 1 then
  redis.call('HSET', h, 'status', 'withdrawn', 'last_void', ARGV[4])
  return 1
end
redis.call('HSET', h, 'status', 'queued', 'last_void', ARGV[4], 'queued_at', ARGV[5])
redis.call('HINCRBY', KEYS[6], ARGV[6], 1)
redis.call('SADD', KEYS[5], ARGV[1])
local lane = redis.call('HGET', h, 'queue')
local jobs = KEYS[4]
if lane and lane ~= '' then jobs = jobs .. ':' .. lane end
redis.call('RPUSH', jobs, ARGV[1])
return 1
"""

_ENQUEUE = """
local h = KEYS[1]
if redis.call('HSETNX', h, 'spec', ARGV[1]) == 0 then return 0 end
redis.call('HSET', h, 'status', 'queued', 'attempts', 0, 'created_at', ARGV[2], 'game', ARGV[3], 'tournament', ARGV[4],
  'queue', ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
redis.call('SADD', KEYS[3], ARGV[5])
redis.call('LPUSH', KEYS[4], ARGV[5])
for i = 5, #KEYS do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[5]) end
return 1
"""

_WITHDRAW = """
local h = KEYS[1]
local status = redis.call('HGET', h, 'status')
if status == 'queued' then
  redis.call('HSET', h, 'status', 'withdrawn', 'withdrawn_reason', ARGV[2])
  redis.call('SREM', KEYS[2], ARGV[1])
  return 1
end
if status == 'running' then
  redis.call('HSET', h, 'withdrawn_reason', ARGV[2])
  return 2
end
return 0
"""

_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""


class MatchStore:
    """Repository of matches on one Redis client."""

    def __init__(self, client: redis.Redis, *, lane: str = "") -> None:
        # redis-py's return types are wide unions; this module decodes every reply itself.
        self.r: Any = client
        self.lane = lane
        """The lane :meth:`claim` takes matches from (see :attr:`MatchSpec.queue`)."""
        self.run_id = secrets.token_hex(6)
        """Random, one per store (a service process's life): the leases this store takes for
        ``instance`` hold ``<instance>:<run_id>``, and only those are this store's to renew or
        give back (another store, another process under the same instance name, does not
        hold them)."""
        self._claim = client.register_script(_CLAIM)
        self._claim_next = client.register_script(_CLAIM_NEXT)
        self._complete = client.register_script(_COMPLETE)
        self._requeue = client.register_script(_REQUEUE)
        self._renew = client.register_script(_RENEW)
        self._enqueue = client.register_script(_ENQUEUE)
        self._withdraw = client.register_script(_WITHDRAW)

    # keys
    @staticmethod
    def _h(mid: str) -> str:
        return key("match", mid)

    record_key = _h
    """The hash of a match's record (``status``, ``spec``, ``created_at``, ``queued_at`` ...)."""

    @staticmethod
    def _lease(mid: str) -> str:
        return key("match", mid, LEASE)

    @staticmethod
    def _replay(mid: str) -> str:
        return key("match", mid, REPLAY)

    QUEUE = property(lambda self: self.jobs(self.lane))
    """The job list of this store's lane."""

    @staticmethod
    def jobs(lane: str) -> str:
        """The job list of ``lane``."""
        return key("jobs", lane) if lane else key("jobs")

    RUNNING = property(lambda self: key("matches", "running"))
    QUEUED = property(lambda self: key("matches", "queued"))
    ALL = property(lambda self: key("matches", "all"))
    STREAM = property(lambda self: key(RESULTS_STREAM))
    COUNTERS = property(lambda self: key("counters", "matches"))
    """Hash of counters that outlive every process: ``requeued:<reason>`` (:data:`REQUEUE_REASONS`)."""
    INDEXED = property(lambda self: key("matches", "indexed"))
    """Set once :meth:`index_older` has indexed every match stored before the indexes."""

    @staticmethod
    def index_key(bot: str | None = None, game: str | None = None) -> str | None:
        """The index (sorted set, scored like ``matches:all``) of the matches of ``bot``, of
        ``game``, or of ``bot`` in ``game``; ``None`` for no filter or a game id with ``:``
        (no game has one; its pair key could be another pair's)."""
        if game is not None and bot is not None:
            return None if ":" in game else key("matches", "game-bot", game, bot)
        if game is not None:
            return key("matches", "game", game)
        if bot is not None:
            return key("matches", "bot", bot)
        return None

    @classmethod
    def index_keys(cls, game: str, seats: Sequence[str]) -> list[str]:
        """Every index a match of ``game`` with these seats is listed in."""
        bots = list(dict.fromkeys(seats))
        found = [cls.index_key(game=game), *(cls.index_key(bot=b) for b in bots)]
        found += [cls.index_key(bot=b, game=game) for b in bots]
        return [k for k in found if k is not None]

    # producer side
    def enqueue(self, spec: MatchSpec) -> bool:
        """Store and queue a match, atomically (one script, as :meth:`enqueue_many`); ``False``
        (and nothing changes) if the id is known.  ``ValueError`` for an id that cannot name a
        match (:func:`is_match_id`)."""
        return self.enqueue_many([spec])[0]

    def enqueue_many(self, specs: Sequence[MatchSpec], *, chunk: int = 1000) -> list[bool]:
        """:meth:`enqueue` each spec, in order, one round trip per ``chunk`` specs; each entry is
        ``False`` (and nothing changed for that spec) if its id was known.  Each spec is stored
        and queued atomically (one script), so a crash leaves it either absent or queued.
        ``ValueError`` (nothing enqueued) if an id cannot name a match (:func:`is_match_id`)."""
        for spec in specs:
            _check_id(spec.match_id)
        out: list[bool] = []
        for start in range(0, len(specs), chunk):
            now = time.time()
            pipe = self.r.pipeline(transaction=False)
            for spec in specs[start : start + chunk]:
                self._enqueue(
                    keys=[
                        self._h(spec.match_id),
                        self.ALL,
                        self.QUEUED,
                        self.jobs(spec.queue),
                        *self.index_keys(spec.game, spec.seats),
                    ],
                    args=[
                        json.dumps(spec.to_json(), sort_keys=True),
                        repr(now),
                        spec.game,
                        spec.tournament or "",
                        spec.match_id,
                        spec.queue,
                    ],
                    client=pipe,
                )
            out += [bool(x) for x in pipe.execute()]
        return out

    # consumer side
    def _lease_value(self, instance: str) -> str:
        """What this store's leases for ``instance`` hold (``<instance>:<run_id>``)."""
        return f"{instance}:{self.run_id}"

    def claim(self, instance: str, *, lease_ms: int = 30000, wait_s: float = 1.0) -> MatchSpec | None:
        """Pop the next queued match and lease it to ``instance`` (this store's lease: see
        :attr:`run_id`; the record's ``instance`` is the name); ``None`` if none came.

        One round trip while the queue has matches (pop, lease and spec in one script); a
        blocking pop only when it is empty.
        """
        deadline = time.monotonic() + wait_s
        lease = self._lease_value(instance)
        while True:
            got = self._claim_next(
                keys=[self.QUEUE, self.RUNNING, self.QUEUED],
                args=[lease, lease_ms, time.time(), key("match", ""), instance],
            )
            if got:
                raw = got[1]
                if raw:
                    return MatchSpec.from_json(json.loads(raw))
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            popped = self.r.brpop([self.QUEUE], timeout=max(0.01, remaining))
            if not popped:
                return None
            mid = popped[1].decode() if isinstance(popped[1], bytes) else str(popped[1])
            ok = self._claim(
                keys=[self._h(mid), self._lease(mid), self.RUNNING], args=[lease, lease_ms, time.time(), mid, instance]
            )
            if ok:
                self.r.srem(self.QUEUED, mid)
                spec = self.spec(mid)
                if spec is not None:
                    return spec

    def renew(self, mid: str, instance: str, *, lease_ms: int = 30000) -> bool:
        """Extend the lease this store took for ``instance``; ``False`` if it no longer holds it
        (it lapsed, another claim took it, or another store or process took it under the same
        instance name)."""
        return bool(self._renew(keys=[self._lease(mid)], args=[self._lease_value(instance), lease_ms]))

    def complete(
        self,
        mid: str,
        instance: str,
        result: dict[str, Any],
        replay: dict[str, Any],
        *,
        tournament: str | None = None,
        stats: Mapping[str, Mapping[str, int]] | None = None,
    ) -> bool:
        """Write result and replay once, add ``stats`` (bot name -> statistic -> amount, see
        :data:`~cardarena.store.bots.STATS`) to the bots' counters and emit the result event,
        all in one atomic step; ``False`` if already done (nothing written or counted).

        Exactly once even when the client sends the command again because its reply was lost
        (redis-py's retry): each call carries its own id, and the repeat of the call that wrote
        the result returns ``True`` without counting again.  ``tournament`` (``""`` for none)
        saves reading the spec back when the caller has it.

        Not tied to the lease (``instance`` only names the writer, ``finished_by``): a run that
        played the match to its end records it even if its lease lapsed or another claim holds
        it now, and the first result written is the match's.  The lease is deleted, whoever
        holds it, so a run still playing the match learns at its next :meth:`renew` that it is
        over.
        """
        if tournament is None:
            spec = self.spec(mid)
            tournament = (spec.tournament if spec else "") or ""
        blob = zlib.compress(json.dumps(replay, separators=(",", ":")).encode(), 6)
        increments = stat_increments(stats or {})
        return bool(
            self._complete(
                keys=[
                    self._h(mid),
                    self._replay(mid),
                    self._lease(mid),
                    self.RUNNING,
                    self.STREAM,
                    self.QUEUED,
                    *(counter for counter, _, _ in increments),
                ],
                args=[
                    json.dumps(result, sort_keys=True),
                    blob,
                    time.time(),
                    instance,
                    mid,
                    tournament,
                    secrets.token_hex(8),
                    *(x for _, stat, amount in increments for x in (stat, amount)),
                ],
            )
        )

    def void(self, mid: str, instance: str, reason: str) -> bool:
        """Give a running match back for a rerun (nothing of it is recorded), if this store's
        lease for ``instance`` holds it still (:meth:`renew`); ``False`` and nothing changes
        otherwise."""
        return bool(
            self._requeue(
                keys=[self._h(mid), self._lease(mid), self.RUNNING, self.jobs(""), self.QUEUED, self.COUNTERS],
                args=[mid, "0", self._lease_value(instance), reason, time.time(), "requeued:voided"],
            )
        )

    def withdraw(self, mids: Sequence[str], reason: str) -> int:
        """Take matches out of play for good (a cancelled tournament, an aborted local run).

        A queued match becomes ``withdrawn`` at once and is never claimed; a running one
        plays on: if it completes, its result is recorded as usual, and if it is voided it
        becomes ``withdrawn`` instead of going back to the queue.  Finished matches are left
        as they are.  Returns how many were queued or running.  One round trip."""
        pipe = self.r.pipeline(transaction=False)
        for mid in mids:
            self._withdraw(keys=[self._h(mid), self.QUEUED], args=[mid, reason], client=pipe)
        return sum(1 for x in pipe.execute() if x)

    def requeue_lost(self) -> list[str]:
        """The reconciler: requeue running matches whose lease expired, and re-push queued
        matches missing from the queue list.  Returns the requeued ids.

        Every service instance runs this every few seconds beside its matches, and a
        tournament's queue holds thousands of matches: it reads the job lists (ids only) and
        two fields of the queued matches missing from the default lane's list, never whole
        match records, in a few round trips (one pipeline for the running matches' leases)."""
        back: list[str] = []
        running = [m.decode() if isinstance(m, bytes) else str(m) for m in self.r.smembers(self.RUNNING)]
        if running:
            pipe = self.r.pipeline(transaction=False)
            for mid in running:
                self._requeue(
                    keys=[self._h(mid), self._lease(mid), self.RUNNING, self.jobs(""), self.QUEUED, self.COUNTERS],
                    args=[mid, "1", "", "lease expired", time.time(), "requeued:lease_expired"],
                    client=pipe,
                )
            back += [mid for mid, moved in zip(running, pipe.execute(), strict=True) if moved]
        queued = sorted(m.decode() if isinstance(m, bytes) else str(m) for m in self.r.smembers(self.QUEUED))
        listed: dict[str, set[str]] = {}

        def in_list(lane: str) -> set[str]:
            if lane not in listed:
                ids = self.r.lrange(self.jobs(lane), 0, -1)
                listed[lane] = {m.decode() if isinstance(m, bytes) else str(m) for m in ids}
            return listed[lane]

        missing = [mid for mid in queued if is_match_id(mid) and mid not in in_list("")] if queued else []
        if not missing:
            return back
        pipe = self.r.pipeline(transaction=False)
        for mid in missing:
            pipe.hmget(self._h(mid), "status", "queue")
        for mid, (status, lane) in zip(missing, pipe.execute(), strict=True):
            if (status.decode() if isinstance(status, bytes) else status) != "queued":
                continue
            lane_name = (lane.decode() if isinstance(lane, bytes) else str(lane)) if lane else ""
            if mid not in in_list(lane_name):
                pipe = self.r.pipeline(transaction=False)
                pipe.rpush(self.jobs(lane_name), mid)
                pipe.hincrby(self.COUNTERS, "requeued:relisted", 1)
                pipe.execute()
                back.append(mid)
        return back

    # reads
    def spec(self, mid: str) -> MatchSpec | None:
        """The stored spec."""
        raw = self.r.hget(self._h(mid), "spec") if is_match_id(mid) else None
        return MatchSpec.from_json(json.loads(raw)) if raw else None

    def status(self, mid: str) -> str | None:
        """``queued``, ``running``, ``done``, ``withdrawn`` or ``None`` (unknown)."""
        raw = self.r.hget(self._h(mid), "status") if is_match_id(mid) else None
        return raw.decode() if isinstance(raw, bytes) else raw

    def attempts(self, mid: str) -> int:
        """How many times the match was claimed (this claim included)."""
        return int((self.r.hget(self._h(mid), "attempts") if is_match_id(mid) else None) or 0)

    def info(self, mid: str) -> dict[str, str]:
        """All stored fields of the match (status, attempts, timestamps, result JSON ...)."""
        if not is_match_id(mid):
            return {}
        return {k.decode(): v.decode() for k, v in self.r.hgetall(self._h(mid)).items()}

    def infos(self, mids: Sequence[str]) -> list[dict[str, str]]:
        """:meth:`info` of each id, in order, read in one round trip (``{}`` for an unknown id)."""
        if not mids:
            return []
        pipe = self.r.pipeline(transaction=False)
        valid = [mid for mid in mids if is_match_id(mid)]
        for mid in valid:
            pipe.hgetall(self._h(mid))
        found = dict(zip(valid, pipe.execute(), strict=True)) if valid else {}
        return [{k.decode(): v.decode() for k, v in found.get(mid, {}).items()} for mid in mids]

    def result(self, mid: str) -> dict[str, Any] | None:
        """The recorded result."""
        raw = self.r.hget(self._h(mid), "result") if is_match_id(mid) else None
        return json.loads(raw) if raw else None

    def replay(self, mid: str) -> dict[str, Any] | None:
        """The recorded replay."""
        raw = self.r.get(self._replay(mid)) if is_match_id(mid) else None
        return json.loads(zlib.decompress(raw)) if raw else None

    def recent(self, start: int = 0, count: int = 50) -> list[str]:
        """Match ids, newest first."""
        return [m.decode() for m in self.r.zrevrange(self.ALL, start, start + count - 1)]

    def listed(self, start: int = 0, count: int = 50, *, bot: str | None = None, game: str | None = None) -> list[str]:
        """Match ids of ``bot`` and/or ``game``, newest first (as :meth:`recent`): a page of
        their index, however many other matches were stored after them.  Without a filter,
        :meth:`recent`."""
        index = self.index_key(bot, game)
        if index is None:
            return [] if bot is not None or game is not None else self.recent(start, count)
        if count <= 0:
            return []
        return [m.decode() for m in self.r.zrevrange(index, start, start + count - 1)]

    def index_older(self, *, force: bool = False, chunk: int = 1000) -> int | None:
        """Index the matches stored before the indexes existed (an earlier version), once:
        ``None`` if that was done already (:attr:`INDEXED` is set; ``force`` does it again),
        else how many matches were missing from an index (``0`` when this version wrote them
        all, indexing each as it stored it).  Idempotent (each match is added with its score in
        ``matches:all``) and safe beside writers of new matches; one round trip per ``chunk``
        matches to read their specs and one to index them."""
        if not force and self.r.exists(self.INDEXED):
            return None
        done, start = 0, 0
        while batch := self.r.zrange(self.ALL, start, start + chunk - 1, withscores=True):
            start += len(batch)
            mids = [m.decode() if isinstance(m, bytes) else str(m) for m, _ in batch]
            read = self.r.pipeline(transaction=False)
            for mid in mids:
                read.hget(self._h(mid), "spec")
            write = self.r.pipeline(transaction=False)
            adds: list[int] = []  # how many index additions each match's ZADDs are
            for mid, (_, score), raw in zip(mids, batch, read.execute(), strict=True):
                try:
                    data: Any = json.loads(raw) if raw else None
                    game, seats = str(data["game"]), [str(s) for s in data["seats"]]
                except (ValueError, KeyError, TypeError):
                    continue  # unknown or unreadable: no list shows it
                indexes = self.index_keys(game, seats)
                for index in indexes:
                    write.zadd(index, {mid: score})
                adds.append(len(indexes))
            added = iter(write.execute())
            done += sum(1 for n in adds if any([int(next(added)) for _ in range(n)]))
        self.r.set(self.INDEXED, repr(time.time()))
        return done
