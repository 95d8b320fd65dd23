"""``cardarena dashboard [--host H --port P] [--tls-cert FILE --tls-key FILE] [--max-connections N]
[--max-connections-per-client M] [--failed-auths-per-minute F]``:
serve the dashboard and REST API (HTTPS only with the two PEM files, :mod:`.https`; a
non-loopback ``--host`` without them is served with a warning: the admin token would travel in
clear; at most ``N`` connections at once, :mod:`.connections`; at most ``F`` wrong admin tokens from
one address a minute, :mod:`.admin`).

Redis: ``--redis-url``, else ``REDIS_URL``, else the user's shared embedded default (its data
under the user's data directory; the one ``cardarena tournament run`` and ``match`` use).

The command's arguments are defined in :mod:`.arguments`.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import socket
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from cardarena.cliargs import DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PER_CLIENT
from cardarena.ports import bind_problem, is_loopback, join_host_port

if TYPE_CHECKING:
    from cardarena.server.tls import ServerTls

    from .connections import CappedWSGIServer

CLEAR_WARNING = (
    "cardarena: warning: --host {host} is reachable from other machines and there is no TLS "
    "(--tls-cert/--tls-key): the admin token and pages travel in clear"
)
"""What ``cardarena dashboard`` says when it serves plain HTTP beyond loopback."""


def _dashboard(args: argparse.Namespace) -> int:
    from cardarena.secretcheck import start_warnings
    from cardarena.server.observability import configure_logging
    from cardarena.server.tls import load_server_tls
    from cardarena_tournament.webhook import AllowList

    from .app import create_app
    from .replay_cache import DEFAULT_MATCHES, DEFAULT_MB, MATCHES_ENV, MB_ENV, setting

    try:  # a typo in a setting or an unusable certificate shows at the start, in one line
        setting(MATCHES_ENV, DEFAULT_MATCHES)
        setting(MB_ENV, DEFAULT_MB)
        AllowList.from_env()  # the admin API checks tournaments' webhooks with it
        tls = load_server_tls(args.tls_cert, args.tls_key)
    except ValueError as exc:  # PemError too
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2
    for warning in start_warnings(args.tls_key):  # a short admin token, a key file others may read
        print(warning, file=sys.stderr, flush=True)

    def _stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    # JSON lines on stderr as the service logs them; Flask's app logger is
    # cardarena_dashboard.app, werkzeug logs each request.
    configure_logging(getattr(logging, args.loglevel), names=("cardarena", "cardarena_dashboard", "werkzeug"))
    if args.reindex:
        from .sources import Sources

        with _redis(args) as url:
            found = Sources.from_url(url)
            done = found.matches.index_older(force=True)
            boards = reindex_leaderboards(found)
            faults = fill_snapshot_faults(found)
        print(f"cardarena dashboard: match indexes checked; {done} matches were missing from them and are indexed now")
        if boards is not None:
            print(f"cardarena dashboard: leaderboards rebuilt from the ratings; {boards} rated bots in all games")
        if faults is not None:
            print(
                f"cardarena dashboard: {faults} ended tournaments' standings were missing their fault totals; "
                "stored now"
            )
        return 0
    try:  # first: a busy port is one line before anything starts
        listener = _listen(args.host, args.port)
    except OSError as exc:
        print(f"cardarena: error: {bind_problem(exc, args.port, '--port', args.host)}", file=sys.stderr)
        return 2
    if tls is None and not is_loopback(args.host):
        print(CLEAR_WARNING.format(host=args.host), file=sys.stderr, flush=True)
    from .connections import raise_fd_limit

    raise_fd_limit(args.max_connections)  # room for them (else fewer are served: connections.fd_bound)
    try:  # Ctrl-C or SIGTERM, whenever it comes, stops it without a traceback
        with listener, _redis(args) as url:
            app = create_app({"REDIS_URL": url, "ADMIN_FAILED_AUTHS_PER_MINUTE": args.failed_auths_per_minute})
            server = dashboard_server(
                args.host,
                args.port,
                app,
                listener.fileno(),
                tls,
                max_connections=args.max_connections,
                per_client=args.max_connections_per_client,
            )
            scheme = "http" if tls is None else "https"
            try:
                address = join_host_port(args.host, server.port)
                print(f"cardarena dashboard: {scheme}://{address}/", file=sys.stderr, flush=True)
                server.serve_forever()
            finally:
                server.server_close()
    except KeyboardInterrupt:
        pass
    return 0


IDLE_TIMEOUT_S = 30.0
"""Seconds a dashboard connection may stay silent (before or during its TLS handshake, within a
request, or between two requests on a kept-alive connection) before it is closed, so that idle
or stalled clients cannot hold the server's threads (one per connection) forever."""


def dashboard_server(
    host: str,
    port: int,
    app: Any,
    fd: int,
    tls: ServerTls | None,
    *,
    idle_timeout: float = IDLE_TIMEOUT_S,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    per_client: int = DEFAULT_MAX_PER_CLIENT,
) -> CappedWSGIServer:
    """werkzeug's threaded server for ``app`` on the listening socket ``fd``: HTTPS only with
    ``tls`` (:func:`.https.serve_tls`), every connection closed after ``idle_timeout`` seconds
    without progress, and at most ``max_connections`` of them at once, ``per_client`` from one
    client address (:mod:`.connections`; their numbers on the app's ``/metrics``)."""
    from flask import Flask
    from werkzeug.serving import WSGIRequestHandler

    from .connections import STATS_EXTENSION, CappedWSGIServer
    from .https import serve_tls

    class Handler(WSGIRequestHandler):
        timeout = idle_timeout  # socketserver sets it on each connection (handshake included)

    server = CappedWSGIServer(host, port, app, Handler, fd=fd, max_connections=max_connections, per_client=per_client)
    if isinstance(app, Flask):
        app.extensions[STATS_EXTENSION] = server.stats  # read by /metrics
    if tls is not None:
        serve_tls(server, tls)
    return server


@contextlib.contextmanager
def _redis(args: argparse.Namespace) -> Iterator[str]:
    """``--redis-url``, else ``REDIS_URL``, else the embedded default, held while the block runs."""
    from cardarena.store.connection import chosen_redis

    with chosen_redis(args.redis_url, "cardarena dashboard") as url:
        yield url


def _listen(host: str, port: int) -> socket.socket:
    """The dashboard's listening socket on ``host:port``, bound as werkzeug binds it (which
    then serves on it): ``OSError`` if it cannot be."""
    from werkzeug.serving import get_sockaddr, select_address_family

    family = select_address_family(host, port)
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(get_sockaddr(host, port, family))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def reindex_leaderboards(found: Any) -> int | None:
    """Build every game's leaderboard index again from its ratings (``TournamentStore.index_ratings``:
    a worker of an earlier version, still running in a rolling upgrade, rates without it); the
    number of rated bots over all games, ``None`` without the tournaments module."""
    from cardarena.engine import games

    if found.tournaments is None:
        return None
    return sum(int(found.tournaments.index_ratings(g)) for g in games())


def fill_snapshot_faults(found: Any) -> int | None:
    """Store the fault totals in the standings snapshots of ended tournaments that lack them
    (``lifecycle.fill_snapshot_faults``); how many, ``None`` without the tournaments module."""
    if found.tournaments is None:
        return None
    from cardarena_tournament import lifecycle

    return lifecycle.fill_snapshot_faults(found.tournaments)
