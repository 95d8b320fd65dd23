"""``GET /metrics``: the platform's state in Redis as Prometheus metrics (unauthenticated, as
the service's ``--metrics-port``).

Every scrape reads Redis once through :func:`cardarena.store.health.read_health` (two round
trips, a bounded number of commands) and turns the reading into ``cardarena_*`` families.
When Redis cannot be reached the page still answers, with ``cardarena_redis_up 0`` (and the
process's own metrics below).

The page also has this process's wrong admin tokens and the requests it refused after too
many of them (``cardarena_dashboard_admin_auth_failures_total``,
``cardarena_dashboard_admin_auth_refused_total``, labelled ``kind="admin"`` as the service's
``cardarena_auth_*_total{kind}`` are: :mod:`.admin`).

Served by ``cardarena dashboard``, the page also has this process's own connections
(``cardarena_dashboard_connections``, ``..._max_connections``, ``..._refused_connections_total``:
:mod:`.connections`), the one set of numbers here that is not the deployment's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping

import redis
from cardarena.store.health import PlatformHealth, read_health
from flask import Blueprint, Response, current_app
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from . import connections
from .admin import LIMIT_EXTENSION, AdminAuthLimit
from .app import sources

bp = Blueprint("metrics", __name__)

GAUGES: dict[str, tuple[str, str]] = {
    "cardarena_queued_matches": ("queued_matches", "Matches waiting to be claimed by a service instance (every lane)"),
    "cardarena_running_matches": ("running_matches", "Matches leased to a service instance"),
    "cardarena_queue_wait_seconds": ("queue_wait_s", "Wait of the match next in line (default lane) since queued"),
    "cardarena_results_stream_entries": ("results_entries", "Entries in the results stream (recorded or not)"),
    "cardarena_results_pending": ("results_pending", "Result events delivered to a worker, not yet acknowledged"),
    "cardarena_results_unrecorded_age_seconds": ("results_unrecorded_s", "Age of the oldest unrecorded result"),
    "cardarena_schedules_due": ("schedules_due", "Schedules whose next run is due now"),
    "cardarena_schedule_late_seconds": ("schedule_late_s", "How late the most overdue scheduled run is (0: none)"),
    "cardarena_beat_leader": ("beat_leader", "1 while a beat holds the deployment's lease, else 0"),
    "cardarena_workers_alive": ("workers_alive", "Celery workers that started a task within the last minute"),
    "cardarena_celery_backlog": ("celery_backlog", "Messages waiting in Celery's queue"),
    "cardarena_service_instances": ("service_instances", "Service instances with an unexpired presence"),
}
"""Unlabelled gauges: metric name -> (:class:`PlatformHealth` field, help)."""
REDIS_UP = "cardarena_redis_up"
TOURNAMENTS = "cardarena_tournaments"
REQUEUED = "cardarena_requeued_matches"
BOT_STATS = "cardarena_bot_stats"


def _labelled(family: GaugeMetricFamily | CounterMetricFamily, values: Mapping[tuple[str, ...], int]) -> Metric:
    """``family`` with one sample per label values."""
    for labels, n in values.items():
        family.add_metric(list(labels), n)
    return family


def families(health: PlatformHealth) -> Iterator[Metric]:
    """The metric families of one reading (besides ``cardarena_redis_up``)."""
    for name, (attr, doc) in GAUGES.items():
        yield GaugeMetricFamily(name, doc, value=float(getattr(health, attr)))
    yield _labelled(
        GaugeMetricFamily(TOURNAMENTS, "Tournaments by status", labels=["status"]),
        {(status,): n for status, n in health.tournaments.items()},
    )
    yield _labelled(
        CounterMetricFamily(REQUEUED, "Matches put back in the queue, by reason", labels=["reason"]),
        {(reason,): n for reason, n in health.requeued.items()},
    )
    yield _labelled(
        CounterMetricFamily(BOT_STATS, "Per-bot statistics counted with each finished match", labels=["bot", "stat"]),
        {(bot, stat): n for bot, counts in health.bot_stats.items() for stat, n in counts.items()},
    )


class PlatformCollector(Collector):
    """Reads Redis on every collection (no caching: each scrape sees the state of now)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client

    def collect(self) -> Iterator[Metric]:
        try:
            health = read_health(self.client, time.time())
        except redis.RedisError:
            yield GaugeMetricFamily(REDIS_UP, "1 when the dashboard could read Redis for this scrape", value=0)
            return
        yield GaugeMetricFamily(REDIS_UP, "1 when the dashboard could read Redis for this scrape", value=1)
        yield from families(health)


ADMIN_AUTH_FAILURES = "cardarena_dashboard_admin_auth_failures"
ADMIN_AUTH_REFUSED = "cardarena_dashboard_admin_auth_refused"


def admin_auth_families(limits: AdminAuthLimit) -> Iterator[Metric]:
    """The metric families of ``limits`` (this process's wrong admin tokens, and the requests
    it refused after too many), labelled ``kind="admin"`` as the service's authentication
    metrics are (``cardarena.server.observability.AUTH_KINDS``)."""
    counts = (
        (ADMIN_AUTH_FAILURES, "answered 401 since it started (a missing or wrong admin token)", limits.failures),
        (
            ADMIN_AUTH_REFUSED,
            "answered 429 since it started, before their token was compared (their address had "
            "--failed-auths-per-minute wrong admin tokens within a minute)",
            limits.refused,
        ),
    )
    for name, what, n in counts:
        family = CounterMetricFamily(name, f"Admin API requests this dashboard process {what}", labels=["kind"])
        yield _labelled(family, {("admin",): n})


class AdminAuthCollector(Collector):
    """This process's wrong admin tokens and the requests it refused for them (:class:`.admin.AdminAuthLimit`)."""

    def __init__(self, limits: AdminAuthLimit) -> None:
        self.limits = limits

    def collect(self) -> Iterator[Metric]:
        return admin_auth_families(self.limits)


class ConnectionCollector(Collector):
    """The serving process's connections (:class:`.connections.ConnectionStats`)."""

    def __init__(self, stats: connections.ConnectionStats) -> None:
        self.stats = stats

    def collect(self) -> Iterator[Metric]:
        return connections.families(self.stats)


@bp.get("/metrics")
def metrics() -> Response:
    """The Prometheus text format of the platform's metrics."""
    registry = CollectorRegistry()
    registry.register(PlatformCollector(sources().client))
    limits = current_app.extensions.get(LIMIT_EXTENSION)
    if limits is not None:
        registry.register(AdminAuthCollector(limits))
    stats = current_app.extensions.get(connections.STATS_EXTENSION)
    if stats is not None:
        registry.register(ConnectionCollector(stats))
    return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
