"""The worker watchdog in a real ``cardarena worker`` subprocess against the real test Redis.

The condition it guards against (a worker that is up and connected but no longer consumes) is
provoked with Celery's own remote control: ``cancel_consumer`` makes the live worker stop
consuming the task queue, exactly the state of the Celery 5 reconnect bug.  Tasks sent
afterwards wait in the queue, the worker's heartbeat stamp goes stale, and the watchdog thread
must end the worker with status 70, leaving the waiting messages in the queue for the next
worker.  Before that, an idle worker (nothing waiting) must be left alone for longer than the
stale window.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from cardarena.store.connection import client_for
from cardarena.store.tournaments import TournamentStore
from cardarena_tournament.celery_app import make_app
from cardarena_tournament.watchdog import EXIT_STATUS

from .tournament_fixtures import WorkerProcess, wait_for

STALE_S = 3.0
HOSTNAME = "watchdog-test@localhost"
HEARTBEAT_TASK = "cardarena_tournament.tasks.heartbeat"


@pytest.fixture
def store(redis_url: str, key_prefix: str) -> Iterator[TournamentStore]:
    client = client_for(redis_url)
    yield TournamentStore(client)
    client.close()


def _unsupervised() -> tuple[str, ...]:
    """``--no-supervise`` where ``cardarena worker`` supervises (restarts) its Celery worker by
    default: the watchdog's exit status is asserted on the Celery worker process itself."""
    import argparse

    from cardarena_tournament import arguments

    sub = argparse.ArgumentParser().add_subparsers()
    arguments.register(sub)
    return ("--no-supervise",) if "--no-supervise" in sub.choices["worker"].format_help() else ()


@pytest.fixture
def worker(redis_url: str, key_prefix: str) -> Iterator[WorkerProcess]:
    w = WorkerProcess(
        redis_url,
        key_prefix,
        *("worker", "--pool", "threads", "--concurrency", "1", "--hostname", HOSTNAME, "--loglevel", "WARNING"),
        *_unsupervised(),
        extra_env={"CARDARENA_WATCHDOG_STALE_S": str(STALE_S), "CARDARENA_HEARTBEAT_S": "0.5"},
    ).start()
    yield w
    w.kill()


def test_stale_heartbeat_with_waiting_messages_exits_70(
    store: TournamentStore, worker: WorkerProcess, redis_url: str
) -> None:
    app = make_app(redis_url)
    proc = worker.proc
    assert proc is not None
    stamp = f"worker:{HOSTNAME}"

    # the worker consumes: a task it runs stamps its heartbeat
    app.send_task(HEARTBEAT_TASK)
    wait_for(lambda: store.last_beat(stamp) is not None, 90, "the worker to run its first task")

    # idle (nothing waiting) for longer than the stale window: the watchdog leaves it alone
    time.sleep(STALE_S + 2.0)
    assert proc.poll() is None, "the watchdog stopped an idle worker"
    assert store.celery_backlog() == 0

    # the worker stops consuming while staying up and connected (the guarded condition) ...
    replies = app.control.cancel_consumer("celery", destination=[HOSTNAME], reply=True, timeout=10)
    assert replies, "the worker did not answer the cancel_consumer request"
    last = store.last_beat(stamp)
    for _ in range(3):  # ... and messages arrive that nobody fetches
        app.send_task(HEARTBEAT_TASK)
    wait_for(lambda: store.celery_backlog() == 3, 10, "three waiting messages")

    # the watchdog ends the worker with its documented status once the stamp is stale
    deadline = time.monotonic() + STALE_S + 30
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert proc.poll() == EXIT_STATUS
    assert store.last_beat(stamp) == last  # it ran nothing after the cancel
    assert store.celery_backlog() == 3  # the waiting messages are left for the next worker
