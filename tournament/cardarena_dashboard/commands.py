"""``cardarena dashboard [--host H --port P]``: serve the dashboard and REST API.

Redis: ``--redis-url``, else ``REDIS_URL``, else the user's shared embedded default (its data
under the user's data directory; the one ``cardarena tournament run`` and ``match`` use).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from typing import Any


def _dashboard(args: argparse.Namespace) -> int:
    from cardarena.store.connection import default_redis
    from werkzeug.serving import make_server

    from .app import create_app
    from .replay_cache import DEFAULT_MATCHES, DEFAULT_MB, MATCHES_ENV, MB_ENV, setting

    try:  # a typo in a setting shows at the start, in one line
        setting(MATCHES_ENV, DEFAULT_MATCHES)
        setting(MB_ENV, DEFAULT_MB)
    except ValueError as exc:
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2

    def _stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    with contextlib.ExitStack() as stack:
        url = args.redis_url or os.environ.get("REDIS_URL")
        if not url:
            url = stack.enter_context(default_redis())
            print(f"cardarena dashboard: embedded Redis at {url}", file=sys.stderr)
        if args.reindex:
            from .sources import Sources

            done = Sources.from_url(url).matches.index_older(force=True)
            print(f"cardarena dashboard: {done} matches indexed (by game, bot, and bot in game)")
            return 0
        app = create_app({"REDIS_URL": url})
        server = make_server(args.host, args.port, app, threaded=True)
        print(f"cardarena dashboard: http://{args.host}:{server.server_port}/", file=sys.stderr, flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    return 0


def register(sub: Any) -> None:
    """Add ``cardarena dashboard`` to the ``cardarena`` parser."""
    dash = sub.add_parser("dashboard", help="serve the web dashboard and REST API")
    dash.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    dash.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks a free one)")
    dash.add_argument("--redis-url", help="Redis to read (default: $REDIS_URL or the embedded default)")
    dash.add_argument(
        "--reindex",
        action="store_true",
        help="index every stored match by game and bot again (idempotent; done by itself once, "
        "at the first start after an upgrade), then exit",
    )
    dash.set_defaults(func=_dashboard)
