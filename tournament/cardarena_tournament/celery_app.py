"""The Celery application: all configuration in one place.

* Broker and result backend: ``REDIS_URL`` (required; ``cardarena tournament run`` and
  ``cardarena up`` start an embedded Redis and pass its URL to the worker and beat they
  start).  Every broker key lives under ``key("celery", "")`` so several deployments (and
  tests) can share one Redis.
* Reliability: ``acks_late`` + ``task_reject_on_worker_lost`` (a task whose worker dies is
  redelivered; every task is idempotent), ``worker_prefetch_multiplier = 1``, time limits
  well below the broker's visibility timeout (so a message is never redelivered while its
  first run is still going), socket keepalive and a health-check interval on every broker
  connection, retrying the broker connection on startup and forever afterwards.
* Beat schedule: :data:`TICK_S` (``CARDARENA_TICK_S``, default 1 s) for counting results and
  starting due schedules, reconcile every ``CARDARENA_RECONCILE_S`` (default 15 s), and the
  watchdog heartbeat (see :mod:`.watchdog`), and prune every ``CARDARENA_PRUNE_S`` (default
  3600 s: the results stream's acknowledged entries, and replays past
  ``CARDARENA_REPLAY_RETENTION_DAYS`` when that is set; see :mod:`cardarena.store.retention`).
  Their routine log lines are kept out of the INFO log (:class:`QuietSweeps`).
* Beat: :class:`~.beat.LeaderScheduler`, so a second beat of a deployment stands by.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping

from cardarena.store.keys import key
from celery import Celery

VISIBILITY_TIMEOUT_S = 3600
"""Broker visibility timeout: an unacknowledged message is redelivered after this long."""
TASK_TIME_LIMIT_S = 600
"""Hard per-task limit, well below :data:`VISIBILITY_TIMEOUT_S`."""


def seconds_setting(name: str, default: float, environ: Mapping[str, str] | None = None) -> float:
    """The period (or timeout) in seconds set by the environment variable ``name``, else
    ``default`` when it is unset or empty.  ``ValueError`` naming the variable for anything but
    a number > 0 (``30``, ``0.5``; not ``30s``), so that ``cardarena worker`` / ``beat`` can
    refuse it in one line instead of a traceback (or, for 0, a beat sending without pause)."""
    raw = (os.environ if environ is None else environ).get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise ValueError(f"{name} must be a number of seconds > 0 (e.g. {default:g}), not {raw!r}")
    return value


TICK_S = seconds_setting("CARDARENA_TICK_S", 1.0)
"""Period of ``consume_results`` and ``start_due_schedules``."""
RECONCILE_S = seconds_setting("CARDARENA_RECONCILE_S", 15.0)
"""Period of ``reconcile``."""
HEARTBEAT_S = seconds_setting("CARDARENA_HEARTBEAT_S", 10.0)
"""Period of the watchdog heartbeat task."""
PRUNE_S = seconds_setting("CARDARENA_PRUNE_S", 3600.0)
"""Period of ``prune`` (retention: acknowledged stream entries always, old replays when
``CARDARENA_REPLAY_RETENTION_DAYS`` is set in the worker's environment)."""


def redis_url() -> str:
    """The Redis URL every tournament process uses (``REDIS_URL``)."""
    url = os.environ.get("REDIS_URL")
    if not url:
        raise RuntimeError(
            "REDIS_URL is not set: point it at your Redis, or use `cardarena tournament run` / "
            "`cardarena up`, which start an embedded Redis for their worker and beat"
        )
    return url


def _transport_options() -> dict[str, object]:
    return {
        "visibility_timeout": VISIBILITY_TIMEOUT_S,
        "global_keyprefix": key("celery", ""),
        "socket_keepalive": True,
        "health_check_interval": 10,
        "socket_connect_timeout": 5,
        "retry_on_timeout": True,
    }


def make_app(url: str | None = None) -> Celery:
    """A configured Celery app on ``url`` (default: ``REDIS_URL`` as set now).  Key prefix:
    ``CARDARENA_PREFIX`` as set now."""
    url = url or os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    app = Celery("cardarena_tournament", broker=url, backend=url, include=["cardarena_tournament.tasks"])
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,
        task_ignore_result=True,
        task_time_limit=TASK_TIME_LIMIT_S,
        task_soft_time_limit=TASK_TIME_LIMIT_S - 60,
        task_serializer="json",
        accept_content=["json"],
        worker_prefetch_multiplier=1,
        worker_cancel_long_running_tasks_on_connection_loss=True,
        worker_hijack_root_logger=False,
        broker_connection_retry_on_startup=True,
        broker_connection_retry=True,
        broker_connection_max_retries=None,
        broker_heartbeat=10,
        broker_pool_limit=4,
        broker_transport_options=_transport_options(),
        result_backend_transport_options=_transport_options(),
        redis_socket_keepalive=True,
        redis_backend_health_check_interval=10,
        # Sends only while it holds the deployment's beat lease: a second beat stands by.
        beat_scheduler="cardarena_tournament.beat:LeaderScheduler",
        timezone="UTC",
        enable_utc=True,
        # The periodic tasks are idempotent sweeps: one that waited in the queue longer than a few
        # periods (no worker up) is worth nothing, so it expires instead of piling up (2 a second).
        beat_schedule={
            "consume-results": {
                "task": "cardarena_tournament.tasks.consume_results",
                "schedule": TICK_S,
                "options": {"expires": max(30.0, 10 * TICK_S)},
            },
            "start-due-schedules": {
                "task": "cardarena_tournament.tasks.start_due_schedules",
                "schedule": TICK_S,
                "options": {"expires": max(30.0, 10 * TICK_S)},
            },
            "reconcile": {
                "task": "cardarena_tournament.tasks.reconcile",
                "schedule": RECONCILE_S,
                "options": {"expires": 2 * RECONCILE_S},
            },
            "heartbeat": {"task": "cardarena_tournament.tasks.heartbeat", "schedule": HEARTBEAT_S},
            "prune": {
                "task": "cardarena_tournament.tasks.prune",
                "schedule": PRUNE_S,
                "options": {"expires": PRUNE_S},
            },
        },
    )
    return app


SWEEPS = frozenset(
    f"cardarena_tournament.tasks.{t}"
    for t in ("consume_results", "start_due_schedules", "reconcile", "heartbeat", "prune")
)
"""The periodic sweeps beat sends every tick: their routine log lines are DEBUG, not INFO."""

_IDLE = re.compile(r"0|None|\[\]|\{\}|\{'\w+': 0(?:, '\w+': 0)*\}")


class QuietSweeps(logging.Filter):
    """Keeps the worker's and beat's INFO log about the platform's work.

    Beat sends a sweep or two a second, and Celery logs each one three times (sent, received,
    succeeded; or discarded, once it expired while the worker was busy), which buries
    everything else.  Below DEBUG this filter drops those lines for
    the sweeps unless the sweep did something: a ``consume_results`` that counted results, a
    ``reconcile`` that requeued matches or a ``start_due_schedules`` that started runs still
    logs its "succeeded" line with what it did.  Other tasks and every warning are untouched.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING or logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
            return True
        args = record.args
        if isinstance(args, Mapping):  # the worker's "received" / "succeeded" lines
            if args.get("name") not in SWEEPS:
                return True
            done = args.get("return_value")
            return done is not None and not _IDLE.fullmatch(str(done))
        # beat's "Sending due task", the worker's "Discarding revoked task" (an expired sweep)
        return not (isinstance(args, tuple) and any(isinstance(a, str) and a in SWEEPS for a in args))


for _name in ("celery.beat", "celery.worker.strategy", "celery.app.trace", "celery.worker.request"):
    logging.getLogger(_name).addFilter(QuietSweeps())

app = make_app()
"""The application the worker and beat run (``celery -A cardarena_tournament.celery_app``)."""
