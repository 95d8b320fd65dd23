"""Where a tournament's end is announced: its webhook targets and each one's delivery state.

A tournament (or a schedule, for each of its runs) may carry notification targets, webhook
URLs.  They embed tokens, so they are kept apart from the tournament record, which the
dashboard and the public API show: nothing that serialises a ``Tournament`` or a schedule can
reveal them.

Keys:

* ``tournament:<id>:notify`` — a hash: ``targets`` (the URLs, a JSON list, in the order given)
  and per target ``i`` its delivery: ``<i>:state`` (see :data:`STATES`), ``<i>:attempts``,
  ``<i>:error`` (the last one, already made safe to show), ``<i>:at`` (last change, unix
  time), ``<i>:next_at`` (when a retry is due);
* ``tournament:<id>:notify:<i>:lease`` — held (with a time to live) while an attempt posts;
* ``notify:waiting`` — the set of tournaments with a target whose delivery has not concluded
  (``delivered`` or ``failed``), so that a sweep can find lost announcements cheaply;
* the field ``notify`` of ``schedule:<id>`` — a schedule's targets, passed on to each run.

Delivery of one target is a chain of attempts 1, 2 ... (:meth:`NotificationStore.claim`
decides atomically whether an attempt may post: never after the target concluded, never twice
for one attempt number unless the one that began it died with its lease), so a task that is
delivered twice, or two sweeps, never post twice.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

from .keys import key

STATES = ("queued", "sending", "retrying", "delivered", "failed")
"""A target's delivery state: announced (a task is on its way), an attempt is posting, waiting
for the next attempt, done, given up.  No state: the tournament has not ended (or its end has
not been announced yet)."""
CONCLUDED = ("delivered", "failed")
SCHEDULE_FIELD = "notify"
"""The field of a schedule's hash (``schedule:<id>``) that holds its targets (a JSON list)."""

_CLAIM = """
-- KEYS: the notify hash, the target's lease.  ARGV: target, attempt, lease ms, now.
-- 1: claimed; 0: concluded or stale (a later attempt exists, or this one concluded);
-- negative: another holds the lease for that many more ms.
local t = ARGV[1]
local state = redis.call('HGET', KEYS[1], t .. ':state')
if state == 'delivered' or state == 'failed' then return 0 end
local done = tonumber(redis.call('HGET', KEYS[1], t .. ':attempts') or '0')
local attempt = tonumber(ARGV[2])
if done > attempt or (done == attempt and state ~= 'sending') then return 0 end
local left = redis.call('PTTL', KEYS[2])
if left > 0 then return -left end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
redis.call('HSET', KEYS[1], t .. ':state', 'sending', t .. ':attempts', attempt, t .. ':at', ARGV[4])
return 1
"""

_CONCLUDE = """
-- KEYS: the notify hash, the target's lease, the waiting set.
-- ARGV: target, state, error, next_at ('' for none), now, tournament id.
local t = ARGV[1]
redis.call('HSET', KEYS[1], t .. ':state', ARGV[2], t .. ':error', ARGV[3], t .. ':at', ARGV[5])
if ARGV[4] == '' then
  redis.call('HDEL', KEYS[1], t .. ':next_at')
else
  redis.call('HSET', KEYS[1], t .. ':next_at', ARGV[4])
end
redis.call('DEL', KEYS[2])
local targets = cjson.decode(redis.call('HGET', KEYS[1], 'targets') or '[]')
for i = 0, #targets - 1 do
  local s = redis.call('HGET', KEYS[1], i .. ':state')
  if s ~= 'delivered' and s ~= 'failed' then return 1 end
end
redis.call('SREM', KEYS[3], ARGV[6])
return 1
"""


@dataclass(frozen=True)
class Delivery:
    """One target of a tournament and how its delivery stands."""

    index: int
    url: str
    """The webhook URL: a secret (it embeds a token); show :func:`host` forms of it only."""
    state: str | None
    """One of :data:`STATES`, or ``None`` before the end was announced."""
    attempts: int
    error: str | None
    """The last attempt's error (safe to show: no part of the URL but its host)."""
    at: float | None
    """When the state last changed (unix time)."""
    next_at: float | None
    """When the next attempt is due (``retrying``)."""


def _s(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _float(raw: str | None) -> float | None:
    try:
        return float(raw) if raw else None
    except ValueError:
        return None


class NotificationStore:
    """Repository of notification targets and their delivery state on one client."""

    def __init__(self, client: redis.Redis) -> None:
        self.r: Any = client
        self._claim = client.register_script(_CLAIM)
        self._conclude = client.register_script(_CONCLUDE)

    WAITING = property(lambda self: key("notify", "waiting"))

    @staticmethod
    def _h(tid: str) -> str:
        return key("tournament", tid, "notify")

    @classmethod
    def _lease(cls, tid: str, target: int) -> str:
        return f"{cls._h(tid)}:{target}:lease"

    # ------------------------------------------------------------------ targets
    def add_targets(self, pipe: Any, tid: str, urls: Sequence[str]) -> None:
        """Queue on ``pipe`` the writes that give tournament ``tid`` its targets (with the
        tournament record, in :meth:`TournamentStore.create
        <cardarena.store.tournaments.TournamentStore.create>`); nothing for none."""
        if urls:
            pipe.hset(self._h(tid), "targets", json.dumps(list(urls)))
            pipe.sadd(self.WAITING, tid)

    def targets(self, tid: str) -> list[str]:
        """The tournament's webhook URLs (empty: none)."""
        raw = self.r.hget(self._h(tid), "targets")
        return list(json.loads(raw)) if raw else []

    # ------------------------------------------------------------------ delivery
    def deliveries(self, tid: str) -> list[Delivery]:
        """Every target of the tournament with its delivery state, in order (one round trip)."""
        raw = {_s(k): _s(v) for k, v in self.r.hgetall(self._h(tid)).items()}
        urls = json.loads(raw.get("targets") or "[]")
        return [
            Delivery(
                index=i,
                url=str(url),
                state=raw.get(f"{i}:state") or None,
                attempts=int(raw.get(f"{i}:attempts") or 0),
                error=raw.get(f"{i}:error") or None,
                at=_float(raw.get(f"{i}:at")),
                next_at=_float(raw.get(f"{i}:next_at")),
            )
            for i, url in enumerate(urls)
        ]

    def lease_left(self, tid: str, target: int) -> float:
        """Seconds left on the lease of an attempt posting to the target (0: none held)."""
        left = int(self.r.pttl(self._lease(tid, target)))
        return left / 1000 if left > 0 else 0.0

    def mark_queued(self, tid: str, target: int) -> bool:
        """Note that the end was announced to the target (its first attempt is on its way);
        ``False`` if it already had a state (someone else announced it)."""
        h = self._h(tid)
        pipe = self.r.pipeline()
        pipe.hsetnx(h, f"{target}:state", "queued")
        pipe.hsetnx(h, f"{target}:at", repr(time.time()))
        return bool(pipe.execute()[0])

    def requeued(self, tid: str, target: int, *, retrying: bool = False) -> None:
        """Note that the target's pending attempt was sent again now (by the sweep), so that it
        is not sent again before it had time to run (``retrying``: its due time moves too)."""
        now = repr(time.time())
        fields = {f"{target}:at": now, **({f"{target}:next_at": now} if retrying else {})}
        self.r.hset(self._h(tid), mapping=fields)

    def claim(self, tid: str, target: int, attempt: int, lease_s: float) -> float | None:
        """Take attempt ``attempt`` of the target: ``0.0`` when it may post now (its lease held
        for ``lease_s``), ``None`` when it must not (the target concluded, or this attempt was
        made already: a duplicate task), or the seconds another attempt still holds the lease
        for (it is posting; if it died, try again after that)."""
        got = int(
            self._claim(
                keys=[self._h(tid), self._lease(tid, target)],
                args=[target, attempt, max(1, int(lease_s * 1000)), repr(time.time())],
            )
        )
        if got == 1:
            return 0.0
        return None if got == 0 else -got / 1000

    def conclude(
        self, tid: str, target: int, state: str, *, error: str | None = None, next_at: float | None = None
    ) -> None:
        """Record how the attempt that holds the lease ended (``retrying`` with ``next_at``,
        ``delivered`` or ``failed``) and release the lease; once every target of the tournament
        concluded, it leaves the waiting set."""
        if state not in STATES:
            raise ValueError(f"unknown delivery state {state!r}")
        self._conclude(
            keys=[self._h(tid), self._lease(tid, target), self.WAITING],
            args=[target, state, error or "", "" if next_at is None else repr(next_at), repr(time.time()), tid],
        )

    def waiting(self) -> list[str]:
        """The tournaments with a target whose delivery has not concluded, in name order."""
        return sorted(_s(x) for x in self.r.smembers(self.WAITING))

    def forget(self, tid: str) -> None:
        """Take a tournament out of the waiting set (it no longer exists)."""
        self.r.srem(self.WAITING, tid)
