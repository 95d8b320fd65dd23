"""The arguments of ``cardarena dashboard``: definitions only, so that building the ``cardarena``
parser and ``--help`` load neither Flask nor the app (:mod:`.commands` is imported when the
command runs)."""

from __future__ import annotations

from typing import Any

from cardarena.cliargs import (
    Handler,
    add_failed_auths_per_minute,
    add_max_connections,
    add_redis_url,
    add_tls_files,
    port_number,
)


def register(sub: Any) -> None:
    """Add ``cardarena dashboard`` to the ``cardarena`` parser."""
    dash = sub.add_parser("dashboard", help="serve the web dashboard and REST API")
    dash.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    dash.add_argument("--port", type=port_number, default=8080, help="port (default 8080; 0 picks a free one)")
    add_redis_url(dash)
    add_tls_files(dash, "HTTPS", "plain HTTP")
    add_max_connections(dash)
    add_failed_auths_per_minute(
        dash,
        "admin API requests with a missing or wrong admin token",
        "its admin requests are answered 429 for a minute",
    )
    dash.add_argument(
        "--reindex",
        action="store_true",
        help="index every stored match by game and bot again and rebuild the game leaderboards from the "
        "ratings (idempotent; done by itself once, at the first start after an upgrade), store the fault "
        "totals in the standings of ended tournaments that lack them (idempotent), then exit",
    )
    dash.add_argument(
        "--loglevel",
        type=str.upper,
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        default="INFO",
        help="least level logged to stderr, as JSON lines (default %(default)s: with each request)",
    )
    dash.set_defaults(func=Handler("cardarena_dashboard.commands:_dashboard"))
