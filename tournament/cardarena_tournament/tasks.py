"""Celery tasks: thin adapters that take ids, open the repositories and call :mod:`.lifecycle`.

No task waits on another task and there are no chords; each is idempotent, so redelivery
(``acks_late`` after a killed worker) is harmless.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from cardarena.store import retention
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchStore
from cardarena.store.notifications import NotificationStore
from cardarena.store.tournaments import TournamentStore

from . import lifecycle, notify, watchdog
from .celery_app import app, redis_url

F = TypeVar("F", bound=Callable[..., Any])

log = logging.getLogger(__name__)

NOTIFY_TASK = "cardarena_tournament.tasks.notify"
"""The task that makes one attempt to post a tournament's end to one target."""


def _task(name: str, **options: Any) -> Callable[[F], F]:
    """``app.task`` with the function's own type kept (Celery is untyped)."""
    return cast(Callable[[F], F], app.task(name=f"cardarena_tournament.tasks.{name}", **options))


_stores: dict[int, tuple[TournamentStore, MatchStore]] = {}


def stores() -> tuple[TournamentStore, MatchStore]:
    """The repositories of this process (one client per process; rebuilt after a fork)."""
    pid = os.getpid()
    if pid not in _stores:
        client = client_for(redis_url())
        _stores.clear()
        _stores[pid] = (TournamentStore(client), MatchStore(client))
    return _stores[pid]


def _all_bots() -> list[str]:
    from cardarena.store.bots import BotStore

    ts, _ = stores()
    return BotStore(ts.r).entrants()


@_task("start_tournament")
def start_tournament(tid: str) -> int:
    """Queue every match of tournament ``tid`` (idempotent)."""
    ts, ms = stores()
    return lifecycle.start_tournament(ts, ms, tid)


@_task("consume_results")
def consume_results() -> int:
    """Count newly completed matches, update standings and ratings, finish tournaments."""
    ts, ms = stores()
    return lifecycle.consume_results(ts, ms, f"{socket.gethostname()}-{os.getpid()}", on_end=_announce)


@_task("reconcile")
def reconcile() -> dict[str, int]:
    """Requeue lost matches, re-enqueue missing ones, count stragglers, finish complete
    tournaments; announce the ends not announced yet and send again lost notification attempts
    (:func:`.notify.sweep`)."""
    ts, ms = stores()
    report = lifecycle.reconcile(ts, ms, on_end=_announce)
    report["notified"] = notify.sweep(NotificationStore(ts.r), ts, _send_attempt, time.time())
    return report


def _send_attempt(tid: str, target: int, attempt: int, countdown: float) -> None:
    app.send_task(NOTIFY_TASK, args=[tid, target, attempt], countdown=countdown or None)


def _announce(tid: str) -> None:
    """Tell the targets of ``tid`` that it ended (the tournament was just finished here)."""
    ts, _ = stores()
    notify.dispatch(NotificationStore(ts.r), tid, _send_attempt)


@_task("notify", time_limit=notify.TASK_TIME_LIMIT_S, soft_time_limit=notify.TASK_SOFT_TIME_LIMIT_S)
def deliver_notification(tid: str, target: int, attempt: int = 1) -> str:
    """Post the end of tournament ``tid`` to its target ``target`` (attempt ``attempt``), once
    (:func:`.notify.deliver`); queue the next attempt after a failure worth retrying."""
    ts, _ = stores()
    step = notify.deliver(NotificationStore(ts.r), ts, tid, target, attempt, notify.Settings.from_env())
    if step.retry_in is not None:
        _send_attempt(tid, target, step.next_attempt, step.retry_in)
    return step.outcome


@_task("start_due_schedules")
def start_due_schedules() -> list[str]:
    """Create and start a run of every schedule that is due."""
    ts, ms = stores()
    return lifecycle.start_due_schedules(ts, ms, time.time(), _all_bots)


@_task("prune")
def prune() -> dict[str, int]:
    """Retention (:mod:`cardarena.store.retention`): trim the results stream's acknowledged
    entries and, when ``CARDARENA_REPLAY_RETENTION_DAYS`` is set, drop the replays of
    tournaments that ended longer ago.  Skipped while another prune holds the turn (also the
    turn of one whose worker was killed, until it lapses: within ``retention.TURN_S``, a
    minute): then ``skipped`` is 1 and nothing was examined."""
    ts, _ = stores()
    try:
        days = retention.retention_days()
    except ValueError as exc:  # the stream is still trimmed; the replays wait for a good setting
        log.error("prune: %s; no replays are dropped until it is fixed", exc)
        days = None
    report = retention.prune_in_turn(ts.r, older_than_days=days)
    if report is None:
        log.info("prune: skipped, another prune holds the turn")
        return {"replays": 0, "replay_bytes": 0, "stream_trimmed": 0, "skipped": 1}
    return {
        "replays": report.replays,
        "replay_bytes": report.replay_bytes,
        "stream_trimmed": report.stream.trimmed,
        "skipped": 0,
    }


@_task("heartbeat", bind=True)
def heartbeat(self: Any) -> None:
    """Record that this worker consumed a task now (the watchdog checks it)."""
    ts, _ = stores()
    ts.beat(f"worker:{self.request.hostname}")


watchdog.install()
