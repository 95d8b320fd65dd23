"""The platform's state as an operator watches it, read from Redis in a bounded number of commands.

:func:`read_health` answers "is the platform doing its work?" from the structures the other
store modules already keep, never by scanning matches or tournaments:

* the queue and running sets of :class:`~.matches.MatchStore` (sizes), the match next in line
  in the default lane (how long it has waited), and its counters of requeued matches;
* the results stream and its workers' consumer group (``XINFO GROUPS``, the oldest pending
  entry, the oldest entry not yet delivered): how far the recording of results lags;
* the tournament status sets, the schedules' due times, the beat lease, the workers'
  heartbeats, the Celery queue and the service instances' presence;
* the statistics counters of every registered bot but those of local runs (at most
  :data:`MAX_BOTS`), all of them with one script (:data:`BOT_STATS_SCRIPT`).

Two round trips and at most :data:`FIXED_COMMANDS` commands, whatever the number of matches
and bots.  Times are ages in seconds measured against the caller's ``now``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import redis

from .bots import STATS, BotStore
from .keys import key
from .matches import REQUEUE_REASONS, RESULTS_GROUP, MatchStore
from .presence import PresenceStore
from .tournaments import STATUSES, TournamentStore

MAX_BOTS = 1000
"""Bots whose statistics are read (the first in name order); more would make the read costly."""
WORKER_ALIVE_S = 60.0
"""A worker counts as alive when it started a task this recently (as the watchdog's
``CARDARENA_WATCHDOG_STALE_S`` default: beat sends work every second)."""
FIXED_COMMANDS = 23
"""The most commands :func:`read_health` sends, whatever the number of bots."""
BOT_STATS_SCRIPT = """
local out = {}
for _, name in ipairs(KEYS) do
  local values = redis.call('HMGET', name, unpack(ARGV))
  for i = 1, #ARGV do out[#out + 1] = values[i] or false end
end
return out
"""
"""``HMGET`` of the fields ``ARGV`` of each hash ``KEYS``, as one flat list (a missing value:
nil): the bots' statistics in one command rather than one per bot (1,000 commands for 1,000
bots, most of the time of a scrape).  Sent with ``EVAL`` (Redis keeps the compiled script), so
that no round trip is spent checking that Redis has it."""
BEAT_LEADER_KEY = ("beat", "leader")
"""The parts of the key of the leading beat's lease (``cardarena_tournament.beat.BeatLease``)."""
CELERY_QUEUE = ("celery", "celery")
"""The parts of the key of Celery's default queue (the broker's keys live under ``celery:``)."""


@dataclass(frozen=True)
class PlatformHealth:
    """One reading of the platform's state."""

    queued_matches: int = 0
    """Matches waiting to be claimed (every lane)."""
    running_matches: int = 0
    """Matches leased to a service instance."""
    queue_wait_s: float = 0.0
    """How long the match next in line in the default lane has waited since it was queued
    (or requeued); 0 when that lane is empty."""
    requeued: dict[str, int] = field(default_factory=dict)
    """Matches put back in the queue since the platform began, by reason (:data:`REQUEUE_REASONS`)."""
    results_entries: int = 0
    """Entries in the results stream (recorded ones stay until the hourly prune)."""
    results_pending: int = 0
    """Result events delivered to a worker and not yet acknowledged."""
    results_unrecorded_s: float = 0.0
    """Age of the oldest result event the workers have not recorded; 0 when none waits."""
    tournaments: dict[str, int] = field(default_factory=dict)
    """Tournaments by status (:data:`~.tournaments.STATUSES`)."""
    schedules_due: int = 0
    """Schedules whose next run is due now (beat starts them within a second or two)."""
    schedule_late_s: float = 0.0
    """How long the most overdue schedule's run has been due; 0 when none is due."""
    beat_leader: bool = False
    """Whether a beat holds the deployment's lease."""
    workers_alive: int = 0
    """Workers that started a task within :data:`WORKER_ALIVE_S`."""
    celery_backlog: int = 0
    """Messages waiting in Celery's queue."""
    service_instances: int = 0
    """Service instances whose presence has not expired."""
    bot_stats: dict[str, dict[str, int]] = field(default_factory=dict)
    """Bot name -> statistic (:data:`~.bots.STATS`) -> count, for the registered bots but those
    of local runs."""


def _text(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _number(raw: Any) -> float:
    try:
        return float(_text(raw)) if raw is not None else 0.0
    except ValueError:
        return 0.0


def _entry_time(entry_id: Any) -> float:
    """The time (unix seconds) a stream entry id ``<ms>-<seq>`` was added at."""
    return _number(_text(entry_id).partition("-")[0]) / 1000.0


def _ok(reply: Any, default: Any) -> Any:
    """A pipeline reply, or ``default`` for a command Redis refused (no stream, no group yet)."""
    return default if isinstance(reply, redis.ResponseError) else reply


def _live_instances(raw: dict[Any, Any], now: float) -> int:
    """Instances in ``presence:instances`` whose entry has not expired (the JSON's ``expires``)."""
    live = 0
    for value in raw.values():
        try:
            live += float(json.loads(value)["expires"]) >= now
        except (ValueError, KeyError, TypeError):
            continue
    return live


def read_health(client: redis.Redis, now: float, *, worker_alive_s: float = WORKER_ALIVE_S) -> PlatformHealth:
    """Read the platform's state (see the module docstring for what and at what cost).

    Raises ``redis.RedisError`` when Redis cannot be reached."""
    r: Any = client
    ms, ts, bots = MatchStore(client), TournamentStore(client), BotStore(client)
    first = r.pipeline(transaction=False)
    first.scard(ms.QUEUED)
    first.scard(ms.RUNNING)
    first.lindex(ms.jobs(""), -1)
    first.hgetall(ms.COUNTERS)
    first.xlen(ms.STREAM)
    first.xinfo_groups(ms.STREAM)
    first.xpending_range(ms.STREAM, RESULTS_GROUP, min="-", max="+", count=1)
    for status in STATUSES:
        first.scard(ts.status_set(status))
    first.zcount(ts.DUE, "-inf", now)
    first.zrange(ts.DUE, 0, 0, withscores=True)
    first.exists(key(*BEAT_LEADER_KEY))
    first.zcount(ts.HEARTBEATS, now - worker_alive_s, "+inf")
    first.llen(key(*CELERY_QUEUE))
    first.hgetall(PresenceStore(client).INSTANCES)
    first.zrange(bots.ALL, 0, MAX_BOTS - 1)
    first.smembers(bots.LOCAL)
    replies = first.execute(raise_on_error=False)  # the stream reads are refused until it exists
    queued, running, head, counters, entries, groups, oldest_pending = replies[:7]
    by_status = replies[7 : 7 + len(STATUSES)]
    due, earliest, leader, workers, backlog, instances, names, local = replies[7 + len(STATUSES) :]

    group = next((g for g in _ok(groups, []) if _text(g.get("name")) == RESULTS_GROUP), None)
    local_names = {_text(n) for n in local}
    shown = [_text(n) for n in names if _text(n) not in local_names]

    second = r.pipeline(transaction=False)
    if head is not None:
        second.hmget(MatchStore.record_key(_text(head)), "queued_at", "created_at")
    pending = _ok(oldest_pending, [])
    if not pending:  # nothing delivered waits: the oldest unrecorded entry is the first undelivered one
        after = _text(group.get("last-delivered-id")) if group else None
        second.xrange(ms.STREAM, min=f"({after}" if after else "-", max="+", count=1)
    stat_fields = [f"stat:{s}" for s in STATS]
    if shown:
        second.eval(BOT_STATS_SCRIPT, len(shown), *(BotStore.record_key(n) for n in shown), *stat_fields)
    more = list(second.execute(raise_on_error=False))

    wait = 0.0
    if head is not None:
        queued_at, created_at = more.pop(0)
        since = _number(queued_at) or _number(created_at)
        wait = max(0.0, now - since) if since else 0.0
    unrecorded = 0.0
    if pending:
        unrecorded = max(0.0, now - _entry_time(pending[0]["message_id"]))
    else:
        undelivered = _ok(more.pop(0), [])
        if undelivered:
            unrecorded = max(0.0, now - _entry_time(undelivered[0][0]))
    flat = more.pop(0) if shown else []
    if isinstance(flat, redis.ResponseError):
        raise flat
    width = len(STATS)
    stats = {
        name: {s: int(_number(v)) for s, v in zip(STATS, flat[n * width : (n + 1) * width], strict=True)}
        for n, name in enumerate(shown)
    }
    counted = {_text(k): int(_number(v)) for k, v in counters.items()}
    return PlatformHealth(
        queued_matches=int(queued),
        running_matches=int(running),
        queue_wait_s=wait,
        requeued={reason: counted.get(f"requeued:{reason}", 0) for reason in REQUEUE_REASONS},
        results_entries=int(entries),
        results_pending=int(group.get("pending", 0)) if group else 0,
        results_unrecorded_s=unrecorded,
        tournaments=dict(zip(STATUSES, (int(n) for n in by_status), strict=True)),
        schedules_due=int(due),
        schedule_late_s=max(0.0, now - float(earliest[0][1])) if earliest and due else 0.0,
        beat_leader=bool(leader),
        workers_alive=int(workers),
        celery_backlog=int(backlog),
        service_instances=_live_instances(instances, now),
        bot_stats=stats,
    )
