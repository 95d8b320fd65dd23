"""CLI: ``cardarena service``, ``cardarena bot register|run``, ``cardarena match``,
``cardarena bench service``."""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..processes import parent_death_signal

if TYPE_CHECKING:
    from ..store.bots import BotStore


def _redis_url(args: argparse.Namespace) -> str:
    url = getattr(args, "redis_url", None) or os.environ.get("REDIS_URL")
    if not url:
        raise SystemExit("cardarena: error: set REDIS_URL or pass --redis-url")
    return str(url)


def _service(args: argparse.Namespace) -> int:
    from .observability import configure_logging
    from .service import Instance, Limits

    configure_logging()
    # The event loop is busy with gRPC while Redis calls run in worker threads: with the default
    # 5 ms switch interval every reply a worker waits for can wait that long for the GIL.
    sys.setswitchinterval(0.0005)

    async def main() -> None:
        instance = Instance(
            _redis_url(args),
            port=args.port,
            host=args.host,
            name=args.instance_name,
            metrics_port=args.metrics_port,
            limits=Limits(
                max_message_bytes=args.max_message_bytes,
                sessions_per_bot=args.sessions_per_bot,
                bad_messages_per_minute=args.bad_messages_per_minute,
                lease_ms=args.lease_ms,
            ),
            advertise=args.advertise,
        )
        port = await instance.start()
        print(json.dumps({"event": "listening", "port": port}), flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await instance.stop(args.grace)

    asyncio.run(main())
    return 0


def _bot_register(args: argparse.Namespace) -> int:
    from ..store.bots import BotError, BotStore
    from ..store.connection import client_for

    try:
        token = BotStore(client_for(_redis_url(args))).register(args.name)
    except BotError as exc:
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2
    print(token)
    print("(the token is shown once; keep it)", file=sys.stderr)
    return 0


def _bot_run(args: argparse.Namespace) -> int:
    from cardarena_sdk import load_bot
    from cardarena_sdk.client import SessionEnded, run_async

    token = args.token or os.environ.get("CARDARENA_TOKEN")
    if not token:
        raise SystemExit("cardarena: error: pass --token or set CARDARENA_TOKEN")
    bot = load_bot(args.bot, args.seed)
    if args.name:
        bot.name = args.name
    if args.max_matches:
        bot.max_matches = args.max_matches

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await run_async(bot, args.server, token, stop=stop)

    try:
        asyncio.run(main())
    except SessionEnded as exc:
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 1
    return 0


# ---------------------------------------------------------------- cardarena match
def spawn(argv: list[str], env: dict[str, str], *, log: Any = None) -> subprocess.Popen[bytes]:
    """Start a child that dies with this process (Linux parent-death signal)."""
    return subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=log or subprocess.DEVNULL, preexec_fn=parent_death_signal
    )


def stop_process(proc: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    """SIGTERM, wait, then SIGKILL."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout:
        proc.stdout.close()


def _drain(stream: Any, tail: collections.deque[str]) -> None:
    for raw in iter(stream.readline, b""):
        tail.append(raw.decode(errors="replace"))
    stream.close()


def start_service(env: dict[str, str], *, extra: list[str] | None = None, log: Any = None) -> tuple[Any, int]:
    """Run ``cardarena service`` as a child; returns ``(process, port)`` once it listens."""
    argv = [sys.executable, "-m", "cardarena.server", "service", "--port", "0", *(extra or [])]
    tail: collections.deque[str] = collections.deque(maxlen=40)
    if log is None:
        # Keep the last lines of its log (drained by a thread) so a failed start says why.
        proc = subprocess.Popen(
            argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=parent_death_signal
        )
        threading.Thread(target=_drain, args=(proc.stderr, tail), daemon=True).start()
    else:
        proc = spawn(argv, env, log=log)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        stop_process(proc)
        detail = "".join(tail).strip()
        raise RuntimeError(f"the service did not start (exit status {proc.returncode}): {detail[-3000:]}")
    return proc, int(json.loads(line)["port"])


@contextlib.contextmanager
def redis_for_run() -> Iterator[str]:
    """``REDIS_URL`` if set, else the user's shared embedded default (see ``store.connection.default_redis``)."""
    from ..store.connection import default_redis

    with default_redis() as url:
        yield url


def issue_token(bots: BotStore, name: str) -> str:
    """A token for bot ``name`` in ``bots`` (a ``BotStore``): registered if new, else rotated.

    Re-running a command with the same bot names on a persistent store must work; the old
    token of an existing bot stops working.
    """
    from ..store.bots import BotExists

    try:
        return bots.register(name)
    except BotExists:
        return bots.rotate(name)


def _match(args: argparse.Namespace) -> int:
    from ..engine import MatchRng, get_game
    from ..store.bots import BotStore
    from ..store.connection import client_for
    from ..store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl

    game = get_game(args.game)
    players = args.players or game.min_players
    game.options(players, json.loads(args.options) if args.options else None)
    kinds = [b.strip() for b in args.bots.split(",") if b.strip()]
    if len(kinds) != players:
        raise SystemExit(f"cardarena: error: --bots needs {players} entries, got {len(kinds)}")
    seats = [f"{Path(k).stem}-{i + 1}" for i, k in enumerate(kinds)]
    out = Path(args.replays) if args.replays else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    run_id = uuid.uuid4().hex[:8]
    procs: list[subprocess.Popen[bytes]] = []
    with redis_for_run() as url:
        env = {**os.environ, "REDIS_URL": url, "CARDARENA_PREFIX": os.environ.get("CARDARENA_PREFIX", "ca:")}
        if os.environ.get("REDIS_URL"):
            env["CARDARENA_PREFIX"] = f"{env['CARDARENA_PREFIX']}match-{run_id}:"
        os.environ["CARDARENA_PREFIX"] = env["CARDARENA_PREFIX"]
        client = client_for(url)
        store, bots = MatchStore(client), BotStore(client)
        try:
            service, port = start_service(env, log=sys.stderr if args.verbose else None)
            procs.append(service)
            for name, kind in zip(seats, kinds, strict=True):
                token = issue_token(bots, name)
                argv = [sys.executable, "-m", "cardarena.server", "bot", "run", kind, "--server", f"127.0.0.1:{port}"]
                argv += ["--name", name, "--seed", f"{args.seed}/{name}", "--max-matches", str(args.concurrency)]
                procs.append(spawn(argv, {**env, "CARDARENA_TOKEN": token}))
            master = MatchRng(args.seed)
            ids = []
            tc = TimeControl(move_ms=args.move_ms, bank_ms=args.bank_ms)
            for m in range(args.matches):
                mid = f"match-{run_id}-{m + 1:05d}"
                spec = MatchSpec(
                    match_id=mid,
                    game=game.id,
                    players=players,
                    seats=tuple(seats),
                    seed=master.below(2**63),
                    options=json.loads(args.options) if args.options else {},
                    time_control=tc,
                    fault_policy=FaultPolicy(),
                )
                store.enqueue(spec)
                ids.append(mid)
            wins = [0.0] * players
            totals = [0.0] * players
            pending = list(ids)
            while pending:
                for proc in procs:
                    if proc.poll() is not None:
                        raise SystemExit(f"cardarena: error: a child process exited ({proc.args!r})")
                pending = [m for m in pending if store.status(m) != "done"]
                time.sleep(0.1)
            for number, mid in enumerate(ids):
                result = store.result(mid) or {}
                firsts = [s for s in range(players) if result["ranks"][s] == 1]
                for s in firsts:
                    wins[s] += 1 / len(firsts)
                for s in range(players):
                    totals[s] += result["scores"][s]
                if out:
                    replay = store.replay(mid)
                    (out / f"{game.id}-{number + 1:05d}.json").write_text(json.dumps(replay, separators=(",", ":")))
        finally:
            for proc in reversed(procs):
                stop_process(proc)
    print(f"{game.name}, {players} players, {args.matches} matches (seed {args.seed}) over gRPC")
    for s in range(players):
        share = 100 * wins[s] / max(1, args.matches)
        print(
            f"  {seats[s]:>16}: wins {wins[s]:5.1f} ({share:4.1f}%)  mean score {totals[s] / max(1, args.matches):.2f}"
        )
    if out:
        print(f"replays written to {out}/")
    return 0


def _bench_service(args: argparse.Namespace) -> int:
    import importlib

    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    bench: Any = importlib.import_module("bench.service_bench")
    return int(bench.main(args))


def register(sub: Any) -> None:
    """Add the service's subcommands to the ``cardarena`` parser."""
    svc = sub.add_parser("service", help="run the gRPC match service")
    svc.add_argument("--port", type=int, default=50051)
    svc.add_argument("--host", default="127.0.0.1")
    svc.add_argument("--redis-url")
    svc.add_argument("--metrics-port", type=int, default=0, help="Prometheus /metrics port (0: off)")
    svc.add_argument("--instance-name")
    svc.add_argument(
        "--advertise",
        help="address other instances send this instance's bots to (default $CARDARENA_SERVICE_ADDR, else host:port)",
    )
    svc.add_argument("--grace", type=float, default=10.0, help="seconds live matches get on shutdown")
    svc.add_argument("--max-message-bytes", type=int, default=64 * 1024)
    svc.add_argument("--sessions-per-bot", type=int, default=4)
    svc.add_argument("--bad-messages-per-minute", type=int, default=30)
    svc.add_argument("--lease-ms", type=int, default=30000)
    svc.set_defaults(func=_service)

    bot = sub.add_parser("bot", help="register or run bots")
    bot_sub = bot.add_subparsers(dest="bot_command", required=True)
    reg = bot_sub.add_parser("register", help="register a bot; prints its token once")
    reg.add_argument("name")
    reg.add_argument("--redis-url")
    reg.set_defaults(func=_bot_register)
    run = bot_sub.add_parser("run", help="connect a bot to a service")
    run.add_argument("bot", help="random, heuristic, or a path to a .py file defining a Bot subclass")
    run.add_argument("--server", default="127.0.0.1:50051")
    run.add_argument("--token", help="the bot's token (default: $CARDARENA_TOKEN)")
    run.add_argument("--name", help="the registered bot name (default: from the token)")
    run.add_argument("--seed", default=None)
    run.add_argument("--max-matches", type=int, default=0)
    run.set_defaults(func=_bot_run)

    match = sub.add_parser("match", help="play matches over gRPC between bots in their own processes")
    match.add_argument("game")
    match.add_argument("--players", type=int, default=0)
    match.add_argument("--bots", required=True, help="one per seat: random, heuristic or a .py file")
    match.add_argument("--matches", type=int, default=1)
    match.add_argument("--seed", default="0")
    match.add_argument("--options", help="match options as JSON")
    match.add_argument("--replays", metavar="DIR")
    match.add_argument("--move-ms", type=int, default=2000)
    match.add_argument("--bank-ms", type=int, default=30000)
    match.add_argument("--concurrency", type=int, default=8, help="matches each bot plays at once")
    match.add_argument("--verbose", action="store_true", help="show the service's log")
    match.set_defaults(func=_match)

    bench = sub.choices.get("bench")
    if bench is not None:
        bench_sub = next(a for a in bench._actions if isinstance(a, argparse._SubParsersAction))
        svcb = bench_sub.add_parser("service", help="service moves/s and round-trip latency vs a bare gRPC echo")
        svcb.add_argument("--concurrency", default="1,10,100")
        svcb.add_argument("--seconds", type=float, default=3.0, help="measured seconds per run (after 1 s warm-up)")
        svcb.add_argument("--repeats", type=int, default=3, help="runs per level; figures are medians")
        svcb.add_argument("--clients", type=int, default=2, help="bot / echo client processes")
        svcb.add_argument("--json", action="store_true")
        svcb.set_defaults(func=_bench_service)
