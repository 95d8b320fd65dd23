"""Structured logs (one JSON object per line) and Prometheus metrics of a service instance."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server


class JsonFormatter(logging.Formatter):
    """Formats a record as ``{"ts":..., "level":..., "logger":..., "event":..., **fields}``."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": round(time.time(), 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            data.update(fields)
        if record.exc_info:
            data["error"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str)


def configure_logging(level: int = logging.INFO, names: tuple[str, ...] = ("cardarena",)) -> None:
    """Send the loggers ``names`` (and their children) to stderr as JSON lines from ``level`` on."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in names:
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level)
        logger.propagate = False


AUTH_KINDS = ("bot", "admin")
"""Values of the ``kind`` label of the authentication metrics: the token the refused call
needed, a bot's (``Arena.Play``) or the admin token (the ``Admin`` service; the dashboard's
admin API counts its own, ``kind="admin"`` only)."""


MATCH_OUTCOMES = ("completed", "aborted", "voided", "superseded")
"""Values of the ``status`` label of ``cardarena_matches_total`` (how a match's run ended)."""


class Metrics:
    """The instance's metrics on its own registry (several instances may share a process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.move_latency = Histogram(
            "cardarena_move_latency_seconds",
            "Time from sending an ActionRequest to receiving the accepted answer",
            registry=r,
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )
        self.timeouts = Counter("cardarena_timeouts", "Moves that ran out of time", registry=r)
        self.illegal = Counter("cardarena_illegal_actions", "Actions rejected as illegal", registry=r)
        self.errors = Counter(
            "cardarena_bot_errors", "Requests handed back unanswered by their bot (HandBack: fault error)", registry=r
        )
        self.bad_messages = Counter("cardarena_bad_messages", "Malformed, stale or misdirected messages", registry=r)
        self.live_streams = Gauge("cardarena_live_streams", "Open bot sessions", registry=r)
        self.unread_streams = Counter(
            "cardarena_unread_streams",
            "Sessions ended because their bot stopped reading its stream (outbox over its limit)",
            registry=r,
        )
        self.auth_failures = Counter(
            "cardarena_auth_failures",
            "Bot streams (kind bot) and Admin calls (kind admin) refused for a missing or wrong token "
            "(UNAUTHENTICATED)",
            ["kind"],
            registry=r,
        )
        self.auth_refused = Counter(
            "cardarena_auth_refused",
            "Bot streams (kind bot) and Admin calls (kind admin) refused unchecked: their address had too many "
            "failed authentications in a minute",
            ["kind"],
            registry=r,
        )
        for kind in AUTH_KINDS:  # both series from the start, at 0
            self.auth_failures.labels(kind=kind)
            self.auth_refused.labels(kind=kind)
        self.live_matches = Gauge("cardarena_live_matches", "Matches being played", registry=r)
        self.name_conflict = Gauge(
            "cardarena_instance_name_conflict",
            "1 while another live process holds this instance's name (--instance-name): this one claims no "
            "matches and answers health checks NOT_SERVING until the name is its own again",
            registry=r,
        )
        self.matches = Counter(
            "cardarena_matches",
            "Matches finished, by outcome: completed, aborted (stopped at the action limit), voided or superseded",
            ["status"],
            registry=r,
        )
        for status in MATCH_OUTCOMES:  # every series from the start, at 0 (an alert sees the first one)
            self.matches.labels(status=status)

    def serve(self, port: int, host: str = "127.0.0.1") -> None:
        """Expose ``/metrics`` on ``host:port`` (port 0: do not serve)."""
        if port:
            start_http_server(port, addr=host or "0.0.0.0", registry=self.registry)
