"""A liveness watchdog against Celery 5's "worker stops consuming after a Redis reconnect".

After the broker connection drops and comes back, a Celery 5 worker with the Redis transport
can stay up, look healthy and never fetch another message (celery/celery issues on consumer
recovery after ``ConnectionError``).  Broker settings make this rarer (socket keepalive,
health checks, ``broker_connection_retry``, cancelling long tasks on connection loss, see
:mod:`.celery_app`) but do not rule it out, so the worker checks itself:

* every task this worker runs stamps ``heartbeat:worker:<hostname>`` in Redis (a
  ``task_prerun`` handler), and beat sends a ``heartbeat`` task every
  ``CARDARENA_HEARTBEAT_S`` seconds;
* a thread in the worker's main process looks every few seconds: if the stamp is older than
  :data:`STALE_AFTER_S` while messages are waiting in the queue, the worker is not consuming.
  It logs why and exits with status 70; the supervisor (``cardarena worker`` and ``cardarena
  beat`` run Celery as a supervised child, see :func:`cardarena.processes.supervise`; compose ``restart:``,
  Kubernetes) starts a fresh one.  Because tasks are ``acks_late`` and idempotent, nothing
  is lost.
* the same thread bounds a shutdown: kombu can raise an "Unrecoverable error" when Redis goes
  away, and the warm shutdown that follows can wedge on tasks blocked in Redis retries.  A
  worker that has left its running state and is still alive :data:`SHUTDOWN_BOUND_S` later
  exits with status 70 (this check needs no Redis).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from .celery_app import HEARTBEAT_S, seconds_setting

STALE_AFTER_S = seconds_setting("CARDARENA_WATCHDOG_STALE_S", max(60.0, 6 * HEARTBEAT_S))
"""A worker that has not started a task for this long while messages wait is restarted."""
SHUTDOWN_BOUND_S = seconds_setting("CARDARENA_WATCHDOG_SHUTDOWN_S", 30.0)
"""A worker still alive this long after it stopped running (a wedged shutdown) exits."""
EXIT_STATUS = 70
"""Exit status of a worker the watchdog stopped."""

log = logging.getLogger(__name__)


def stuck(last_task: float | None, started: float, backlog: int, now: float) -> bool:
    """Whether a worker looks stuck: messages wait and it has started nothing for too long."""
    last = max(last_task or 0.0, started)
    return backlog > 0 and now - last > STALE_AFTER_S


def install() -> None:
    """Connect the signal handlers (called when the worker starts)."""
    from celery.signals import task_prerun, worker_ready

    def _stamp(sender: Any = None, **_: Any) -> None:
        from .tasks import stores

        hostname = getattr(getattr(sender, "request", None), "hostname", None)
        if hostname:
            stores()[0].beat(f"worker:{hostname}")

    def _start(sender: Any = None, **_: Any) -> None:
        hostname = str(getattr(sender, "hostname", "worker"))
        # worker_ready is sent by the Consumer; the WorkController (state, exitcode) is its controller.
        controller = getattr(sender, "controller", sender)
        threading.Thread(target=_watch, args=(hostname, controller), name="cardarena-watchdog", daemon=True).start()

    task_prerun.connect(_stamp, weak=False)
    worker_ready.connect(_start, weak=False)


def running(worker: Any) -> bool:
    """Whether a Celery worker is running: its blueprint is in the RUN state and no shutdown
    has begun (``WorkController.stop`` sets ``exitcode`` first, before any step can wedge)."""
    from celery.bootsteps import RUN

    if getattr(worker, "exitcode", None) is not None:
        return False
    blueprint = getattr(worker, "blueprint", None)
    return blueprint is None or blueprint.state == RUN


def _watch(hostname: str, worker: Any = None) -> None:
    from .tasks import stores

    started = time.time()
    stopped_at: float | None = None
    while True:
        time.sleep(min(2.0, HEARTBEAT_S))
        if worker is not None and not running(worker):
            stopped_at = stopped_at or time.monotonic()
            if time.monotonic() - stopped_at > SHUTDOWN_BOUND_S:
                log.error("watchdog: %s is still shutting down after %.0f s; exiting", hostname, SHUTDOWN_BOUND_S)
                os._exit(EXIT_STATUS)
            continue
        try:
            ts = stores()[0]
            now = time.time()
            if stuck(ts.last_beat(f"worker:{hostname}"), started, ts.celery_backlog(), now):
                log.error(
                    "watchdog: %s started no task for %.0f s while messages wait; exiting", hostname, STALE_AFTER_S
                )
                os._exit(EXIT_STATUS)
        except Exception:  # Redis down: the broker reconnect logic handles it; keep watching
            log.warning("watchdog: cannot reach Redis", exc_info=True)
