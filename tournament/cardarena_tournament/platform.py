"""``cardarena up`` and ``cardarena demo``: the whole platform on one machine.

``up`` starts (or joins) the user's embedded default Redis (its data under the user's data
directory, shared with the other commands running at the same time; ``REDIS_URL`` switches to
an external one), the gRPC service, one Celery worker, beat and the dashboard, all on
loopback, prints the addresses and runs until Ctrl-C or SIGTERM, when it stops every part
(children also die with it if it is killed).

``demo`` is ``up`` plus example bots registered and connected and a 3-player Glaves round
robin with duplicate deals, with a progress bar and the dashboard URL; ``demo --once`` runs
the tournament, prints the standings and exits.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEMO_BOTS = "heuristic,heuristic,random,random"
"""The demo's entrants (named heuristic-1, heuristic-2, random-1, random-2)."""


@dataclass
class Platform:
    """Addresses and processes of a running platform."""

    redis_url: str
    grpc_port: int
    http_port: int
    env: dict[str, str]
    procs: list[Any] = field(default_factory=list)

    @property
    def dashboard_url(self) -> str:
        """Where the dashboard listens."""
        return f"http://127.0.0.1:{self.http_port}/"

    def check_alive(self) -> None:
        """Raise if any part of the platform has exited."""
        for proc in self.procs:
            if proc.poll() is not None:
                raise RuntimeError(f"a platform process exited with {proc.returncode}: {' '.join(map(str, proc.args))}")


@contextlib.contextmanager
def _redis(data_dir: Path | None) -> Iterator[str]:
    from cardarena.store.connection import DEFAULT_DATA_DIR, default_redis

    with default_redis((data_dir or DEFAULT_DATA_DIR) / "redis") as url:
        yield url


@contextlib.contextmanager
def running_platform(
    *, grpc_port: int = 0, http_port: int = 0, data_dir: Path | None = None, verbose: bool = False
) -> Iterator[Platform]:
    """Start Redis, service, worker, beat and dashboard; stop them all on exit."""
    from cardarena.server.commands import spawn, start_service, stop_process
    from cardarena.store.connection import free_port

    log = sys.stderr if verbose else None
    with _redis(data_dir) as url, tempfile.TemporaryDirectory(prefix="cardarena-up-") as tmp:
        env = {**os.environ, "REDIS_URL": url}
        os.environ["REDIS_URL"] = url
        platform = Platform(redis_url=url, grpc_port=0, http_port=http_port or free_port(), env=env)
        try:
            service, platform.grpc_port = start_service(env, extra=["--port", str(grpc_port)], log=log)
            platform.procs.append(service)
            cli = [sys.executable, "-m", "cardarena.cli"]
            level = "INFO" if verbose else "WARNING"
            platform.procs.append(
                spawn([*cli, "worker", "--pool", "threads", "--concurrency", "2", "--loglevel", level], env, log=log)
            )
            platform.procs.append(
                spawn([*cli, "beat", "--state", str(Path(tmp) / "beat"), "--loglevel", level], env, log=log)
            )
            platform.procs.append(
                spawn([*cli, "dashboard", "--host", "127.0.0.1", "--port", str(platform.http_port)], env, log=log)
            )
            _wait_http(platform)
            yield platform
        finally:
            for proc in reversed(platform.procs):
                stop_process(proc)


def _wait_http(platform: Platform, timeout: float = 30.0) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout
    while True:
        platform.check_alive()
        try:
            with urllib.request.urlopen(platform.dashboard_url + "api/v1/games", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the dashboard did not come up")
        time.sleep(0.2)


def _print_addresses(platform: Platform) -> None:
    print(f"redis      {platform.redis_url}")
    print(f"service    127.0.0.1:{platform.grpc_port}  (gRPC; bots connect here)")
    print(f"dashboard  {platform.dashboard_url}")
    print("Ctrl-C stops everything.", flush=True)


def _up(args: argparse.Namespace) -> int:
    from cardarena.processes import sigterm_as_keyboard_interrupt

    with sigterm_as_keyboard_interrupt():
        try:
            with running_platform(grpc_port=args.grpc_port, http_port=args.http_port, verbose=args.verbose) as p:
                _print_addresses(p)
                while True:
                    p.check_alive()
                    time.sleep(0.5)
        except KeyboardInterrupt:
            print("stopped.", file=sys.stderr)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from cardarena.processes import sigterm_as_keyboard_interrupt
    from cardarena.server.commands import issue_token, spawn
    from cardarena.store.bots import BotStore
    from cardarena.store.connection import client_for
    from cardarena.store.tournaments import TournamentStore

    from . import lifecycle
    from .celery_app import make_app
    from .commands import render_standings
    from .run import START_TASK, _watch, bot_names

    bots = bot_names(args.bots)
    run_id = uuid.uuid4().hex[:6]
    with sigterm_as_keyboard_interrupt():
        try:
            with running_platform(grpc_port=args.grpc_port, http_port=args.http_port, verbose=args.verbose) as p:
                _print_addresses(p)
                client = client_for(p.redis_url)
                try:
                    registry, ts = BotStore(client), TournamentStore(client)
                    for kind, name in bots:
                        token = issue_token(registry, name)
                        argv = [
                            sys.executable,
                            "-m",
                            "cardarena.server",
                            "bot",
                            "run",
                            kind,
                            "--server",
                            f"127.0.0.1:{p.grpc_port}",
                            "--name",
                            name,
                            "--seed",
                            f"demo/{name}",
                            "--max-matches",
                            "8",
                        ]
                        p.procs.append(spawn(argv, {**p.env, "CARDARENA_TOKEN": token}))
                    t = lifecycle.new_tournament(
                        game=args.game,
                        players=args.players,
                        entrants=[n for _, n in bots],
                        deal_sets=args.deal_sets,
                        name=f"demo {run_id}",
                    )
                    ts.create(t)
                    make_app(p.redis_url).send_task(START_TASK, args=[t.id])
                    print(f"tournament {t.id}: {p.dashboard_url}tournaments/{t.id}", flush=True)
                    _watch(ts, t.id, t.total_matches, p.procs, args.timeout)
                    render_standings(lifecycle.refresh_standings(ts, t.id))
                    if not args.once:
                        print(f"done; the dashboard stays up at {p.dashboard_url} (Ctrl-C stops)", flush=True)
                        while True:
                            p.check_alive()
                            time.sleep(0.5)
                finally:
                    client.close()
        except KeyboardInterrupt:
            print("stopped.", file=sys.stderr)
    return 0


def register(sub: Any) -> None:
    """Add ``up`` and ``demo``."""
    up = sub.add_parser("up", help="start Redis, service, worker, beat and dashboard on loopback")
    up.add_argument("--grpc-port", type=int, default=50051, help="gRPC port (0 picks a free one)")
    up.add_argument("--http-port", type=int, default=8080, help="dashboard port (0 picks a free one)")
    up.add_argument("--verbose", action="store_true", help="show every process's log")
    up.set_defaults(func=_up)

    demo = sub.add_parser("demo", help="up, plus example bots and a Glaves round robin with duplicate deals")
    demo.add_argument("--once", action="store_true", help="run the tournament, print the standings and exit")
    demo.add_argument("--grpc-port", type=int, default=0, help="gRPC port (0 picks a free one)")
    demo.add_argument("--http-port", type=int, default=8080, help="dashboard port (0 picks a free one)")
    demo.add_argument("--game", default="glaves")
    demo.add_argument("--players", type=int, default=3)
    demo.add_argument("--bots", default=DEMO_BOTS)
    demo.add_argument("--deal-sets", type=int, default=2)
    demo.add_argument("--timeout", type=float, default=1800)
    demo.add_argument("--verbose", action="store_true")
    demo.set_defaults(func=_demo)
