"""What ``cardarena service``, ``cardarena bot register|run ...``, ``cardarena match`` and
``cardarena bench service`` do (their arguments: :mod:`.arguments`; ``service health``:
:mod:`.healthcheck`)."""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import logging
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..cliargs import json_object, usage_error
from ..processes import parent_death_signal, sigterm_as_keyboard_interrupt
from ..summary import how_many, seat_names
from ..think import Times, action_seats, seconds_text

if TYPE_CHECKING:
    from ..store.bots import BotStore
    from ..store.matches import MatchStore


@contextlib.contextmanager
def _redis(args: argparse.Namespace) -> Iterator[str]:
    """``--redis-url``, else ``REDIS_URL``, else the user's shared embedded default (the one
    ``up``, ``dashboard``, ``match`` and ``tournament run`` use), held while the block runs."""
    from ..store.connection import chosen_redis

    with chosen_redis(getattr(args, "redis_url", None)) as url:
        yield url


def _service(args: argparse.Namespace) -> int:
    from ..engine import games
    from ..engine.registry import GameRegistrationError
    from ..pem import PemError
    from ..secretcheck import start_warnings
    from ..store.connection import client_for, shown_url
    from .observability import configure_logging
    from .service import Instance, Limits, NameInUse
    from .tls import load_server_tls

    try:  # the files are checked now: a bad one is a one-line error before anything starts
        tls = load_server_tls(args.tls_cert, args.tls_key, args.tls_client_ca)
    except PemError as exc:
        usage_error(str(exc))
    for warning in start_warnings(args.tls_key):  # a short admin token, a key file others may read
        print(warning, file=sys.stderr, flush=True)
    try:  # a game that cannot be registered (a broken plugin) too, not "cannot listen" later
        games()
    except GameRegistrationError as exc:
        usage_error(str(exc))
    problem = _port_problem(args)  # a busy port too (gRPC would say "Failed to bind", not which)
    if problem:
        usage_error(problem)
    configure_logging()
    # The event loop is busy with gRPC while Redis calls run in worker threads: with the default
    # 5 ms switch interval every reply a worker waits for can wait that long for the GIL.
    sys.setswitchinterval(0.0005)

    async def main(url: str) -> None:
        instance = Instance(
            url,
            port=args.port,
            host=args.host,
            name=args.instance_name,
            metrics_port=args.metrics_port,
            limits=Limits(
                max_message_bytes=args.max_message_bytes,
                sessions_per_bot=args.sessions_per_bot,
                bad_messages_per_minute=args.bad_messages_per_minute,
                max_queued_messages=args.max_queued_messages,
                max_queued_bytes=args.max_queued_bytes,
                failed_auths_per_minute=args.failed_auths_per_minute,
                lease_ms=args.lease_ms,
            ),
            advertise=args.advertise,
            lane=args.queue,
            tls=tls,
        )
        # The handlers come first: a SIGTERM sent as soon as "listening" is read (or during the
        # start) stops the instance gracefully, presence withdrawn, instead of killing it.
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        port = await instance.start()
        print(json.dumps({"event": "listening", "port": port}), flush=True)
        await stop.wait()
        await instance.stop(args.grace)

    with _redis(args) as url:
        try:
            client_for(url).ping()
        except Exception as exc:
            print(f"cardarena: error: cannot reach Redis at {shown_url(url)}: {exc}", file=sys.stderr)
            return 2
        try:
            asyncio.run(main(url))
        except NameInUse as exc:
            print(f"cardarena: error: {exc}", file=sys.stderr)
            return 2
        except (OSError, RuntimeError) as exc:  # a port taken since it was checked (gRPC or metrics)
            print(f"cardarena: error: {_port_problem(args) or f'cannot listen: {exc}'}", file=sys.stderr)
            return 2
    return 0


def _port_problem(args: argparse.Namespace) -> str | None:
    """Why the service cannot listen on its ``--port`` or ``--metrics-port`` now, or ``None``."""
    from ..ports import port_problem

    if args.port and args.port == args.metrics_port:
        return f"--port and --metrics-port are both {args.port}; they need different ports"
    return port_problem(args.port, "--port", args.host) or port_problem(args.metrics_port, "--metrics-port", args.host)


def _issue_token(args: argparse.Namespace, rotate: bool, note: str) -> int:
    """Register ``args.name`` (or replace its token) and print the token once."""
    from ..store.bots import BotError, BotExists, BotStore
    from ..store.connection import client_for

    try:
        with _redis(args) as url:
            store = BotStore(client_for(url))
            token = store.rotate(args.name) if rotate else store.register(args.name)
    except BotError as exc:
        # A second `register` is most often a lost token: say how to get a new one.
        lost = f" (lost its token? `cardarena bot token {args.name}` issues a new one)"
        hint = lost if isinstance(exc, BotExists) else ""
        print(f"cardarena: error: {exc}{hint}", file=sys.stderr)
        return 2
    print(token)
    print(f"(the token is shown once; keep it{note})", file=sys.stderr)
    return 0


def _bot_register(args: argparse.Namespace) -> int:
    if len(args.names) == 1 and args.roster is None and not args.skip_registered:
        args.name = args.names[0]
        return _issue_token(args, False, "")
    names = list(args.names)
    if args.roster is not None:
        try:
            names += roster_names(sys.stdin.read() if args.roster == "-" else Path(args.roster).read_text("utf-8"))
        except OSError as exc:
            usage_error(f"--from {args.roster}: {exc.strerror or exc}")
        except UnicodeDecodeError:
            usage_error(f"--from {args.roster}: not UTF-8 text (one bot name per line)")
    if not names:
        usage_error("no bot names: give NAME ... or --from FILE (one name per line)")
    return _register_many(args, names)


def roster_names(text: str) -> list[str]:
    """The bot names of a roster: one per line, surrounding spaces dropped; blank lines and
    lines starting with ``#`` are skipped."""
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _register_many(args: argparse.Namespace, names: list[str]) -> int:
    """Register every name and print ``name,token`` CSV rows; nothing is registered when any
    name is bad, repeated, looks like another or (without ``--skip-registered``) is already
    registered, even when the name that refuses it was registered meanwhile."""
    import csv

    from ..store.bots import BotStore, RosterRefused
    from ..store.connection import client_for

    with _redis(args) as url:
        store = BotStore(client_for(url))
        try:
            issued, taken = store.register_roster(names, skip_registered=args.skip_registered)
        except RosterRefused as exc:
            hint = " (--skip-registered registers only the others; `cardarena bot token NAME` replaces a lost token)"
            return _nothing_registered([p + hint if exc.taken else p for p in exc.problems])
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["name", "token"])
    out.writerows(issued)
    sys.stdout.flush()
    skipped = f"; skipped {len(taken)} already registered: {', '.join(taken)}" if taken else ""
    done = how_many(len(issued), "bot")
    print(f"registered {done}{skipped} (the tokens are shown once; keep them private)", file=sys.stderr)
    return 0


def _nothing_registered(problems: list[str]) -> int:
    for problem in problems:
        print(f"cardarena: error: {problem}", file=sys.stderr)
    print("cardarena: error: nothing was registered", file=sys.stderr)
    return 2


def _bot_token(args: argparse.Namespace) -> int:
    note = ". The old token no longer connects, and sessions open with it are ended within seconds"
    return _issue_token(args, True, note)


def _bot_list(args: argparse.Namespace) -> int:
    from ..store.bots import BotStore
    from ..store.connection import client_for

    with _redis(args) as url:
        store = BotStore(client_for(url))
        bots = store.list()
        local = {b.name for b in bots if store.is_local(b.name)}
        retired = set(store.retired())
    if args.json:
        rows = [
            {
                "name": b.name,
                "created_at": b.created_at,
                "local": b.name in local,
                "retired": b.name in retired,
                **b.stats,
            }
            for b in bots
        ]
        print(json.dumps({"bots": rows}))
        return 0
    if not bots:
        print("no bots registered")
    for b in bots:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(b.created_at)) + " UTC" if b.created_at else "-"
        faults = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in b.stats.items() if k != "matches" and v)
        tag = "  (local run)" if b.name in local else "  (retired)" if b.name in retired else ""
        print(
            f"{b.name}{tag}  registered {when}  {how_many(b.stats['matches'], 'match')}"
            + (f"  {faults}" if faults else "")
        )
    return 0


def _bot_retire(args: argparse.Namespace) -> int:
    from ..store.bots import BotError, BotStore
    from ..store.connection import client_for

    try:
        with _redis(args) as url:
            bots = BotStore(client_for(url))
            changed = bots.retire(args.name, undo=args.undo)
            entrants = bots.entrants()
    except BotError as exc:
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2
    if args.undo:
        print(f"{args.name}: {'back in' if changed else 'was not retired; stays in'} the --all tournaments")
    else:
        state = "retired" if changed else "already retired"
        print(f"{args.name}: {state}; the --all tournaments that start from now on leave it out")
    print(f"--all takes {how_many(len(entrants), 'bot')}: {', '.join(entrants) or '(none)'}")
    return 0


def _bot_delete(args: argparse.Namespace) -> int:
    from ..engine import games
    from ..store.bots import BotError, BotStore
    from ..store.connection import client_for

    try:
        with _redis(args) as url:
            BotStore(client_for(url)).delete(args.name, games=list(games()))
    except BotError as exc:
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.name}: deleted (it never played); its token no longer connects, and the name can be registered again")
    return 0


TOKEN_IN_ARGV_WARNING = (
    "cardarena: warning: --token puts the token on this command line, which every user of this machine "
    "can read (ps) and then play in your bot's seats: set CARDARENA_TOKEN instead "
    "(CARDARENA_TOKEN=<token> cardarena bot run ...)"
)
"""What ``bot run --token`` says on stderr before it connects."""


def _bot_run(args: argparse.Namespace) -> int:
    from cardarena_sdk import load_bot
    from cardarena_sdk.client import SessionEnded, run_async

    from ..secretcheck import key_file_warning
    from ..wire.codec import version_problem
    from .healthcheck import client_tls

    # Connects, failed connects with their back-off, session ends and the bot's errors (a
    # raising choose, an illegal id) go to stderr.
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("cardarena_sdk").setLevel(logging.INFO)
    token = args.token or os.environ.get("CARDARENA_TOKEN")
    if not token:
        usage_error("pass --token or set CARDARENA_TOKEN")
    try:
        bot = load_bot(args.bot, args.seed)
    except ValueError as exc:
        usage_error(str(exc))
    if args.name:
        bot.name = args.name
    if args.max_matches:
        bot.max_matches = args.max_matches
    if args.version is not None:
        bot.version = args.version
    bad_version = version_problem(bot.version)
    if bad_version:
        usage_error(f"--{bad_version}")
    tls = client_tls(args)
    if args.token:
        print(TOKEN_IN_ARGV_WARNING, file=sys.stderr, flush=True)
    open_key = key_file_warning(args.client_key, "--client-key")
    if open_key:
        print(open_key, file=sys.stderr, flush=True)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await run_async(
            bot,
            args.server,
            token,
            stop=stop,
            tls=tls,
            ca_cert=args.ca_cert,
            client_cert=args.client_cert,
            client_key=args.client_key,
        )

    try:
        asyncio.run(main())
    except SessionEnded as exc:
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 1
    return 0


# ---------------------------------------------------------------- cardarena match
def spawn(argv: list[str], env: dict[str, str], *, log: Any = None, stdout: Any = None) -> subprocess.Popen[bytes]:
    """Start a child that dies with this process (Linux parent-death signal).

    Its stdout and stderr both go to ``log`` (a file or stream with a file descriptor;
    ``None``: discarded), so a child that prints never blocks on a pipe nobody reads.  With
    ``stdout=subprocess.PIPE`` the caller gets the child's stdout to read (and must read it);
    stderr still goes to ``log``.
    """
    sink = log or subprocess.DEVNULL
    if stdout is None:
        out, err = sink, subprocess.STDOUT
    else:
        out, err = stdout, sink
    return subprocess.Popen(argv, env=env, stdout=out, stderr=err, preexec_fn=parent_death_signal)


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
        proc = spawn(argv, env, log=log, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        stop_process(proc)
        detail = "".join(tail).strip()
        raise RuntimeError(f"the service did not start (exit status {proc.returncode}): {detail[-3000:]}")
    return proc, int(json.loads(line)["port"])


@contextlib.contextmanager
def run_namespace(kind: str, run_id: str, *, keep: bool, url: str | None = None) -> Iterator[tuple[str, str]]:
    """The Redis URL and key prefix of a local run (``match``, ``tournament run``, ``demo``), held while
    the block runs; ``CARDARENA_PREFIX`` in this process's environment is the prefix meanwhile.

    Without ``url`` (``--redis-url``) or ``REDIS_URL``: the user's shared embedded default
    (``store.connection.default_redis``) and the usual prefix; the run's data stays there, as
    every local command's does (the dashboard shows it).  With either: a prefix of the run's own,
    ``<CARDARENA_PREFIX><kind>-<run_id>:``, and when the block ends, however it ends, every key
    under it is deleted (the block must have stopped whatever writes under it) unless ``keep``:
    then a line on stderr says where the data is.  Nothing outside the prefix is touched.
    """
    from ..store.connection import chosen_redis, configured_url

    base = os.environ.get("CARDARENA_PREFIX", "ca:")
    private = bool(url or configured_url())
    prefix = f"{base}{kind}-{run_id}:" if private else base
    with chosen_redis(url, quiet=True) as where:
        os.environ["CARDARENA_PREFIX"] = prefix
        try:
            yield where, prefix
        finally:
            os.environ["CARDARENA_PREFIX"] = base
            if private:
                _leave_namespace(where, prefix, keep)


def _leave_namespace(url: str, prefix: str, keep: bool) -> None:
    """Delete a finished local run's keys (all under its own ``prefix``), or say where they are."""
    import shlex

    import redis

    from ..store.connection import client_for
    from ..store.retention import drop_namespace

    if keep:
        print(
            f"cardarena: the run's data stays in Redis under the key prefix {prefix} "
            f"(CARDARENA_PREFIX={shlex.quote(prefix)} cardarena dashboard shows it)",
            file=sys.stderr,
        )
        return
    client = client_for(url)
    try:
        drop_namespace(client, prefix)
    except redis.RedisError as exc:
        print(f"cardarena: warning: the run's keys under {prefix} were not deleted: {exc}", file=sys.stderr)
    finally:
        client.close()


def issue_token(bots: BotStore, name: str, *, wait_s: float = 12.0) -> str:
    """A token for the local run's bot ``name`` in ``bots`` (a ``BotStore``): registered (as
    a local bot) if new, else rotated if a local run registered it.

    Re-running a command with the same bot names on a persistent store must work; the old
    token of an existing local bot stops working.  A bot registered otherwise (``cardarena bot
    register``, the admin API) keeps its token: :class:`~cardarena.store.bots.BotExists`; so
    does a local bot connected now (another run using the name: a new token would end its
    sessions, and that run).  A connection can outlive a run that was killed (its session lease
    lapses within ~10 s), so a held lease is waited for up to ``wait_s`` seconds first.
    """
    from ..store.bots import BotExists
    from ..store.presence import SessionLeases

    try:
        return bots.register(name, local=True)
    except BotExists:
        if not bots.is_local(name):
            raise BotExists(
                f"a bot named {name!r} is registered (not by a local run); a local run does not take "
                "over its token: rename your bot file, or use REDIS_URL or another XDG_DATA_HOME"
            ) from None
        leases = SessionLeases(bots.r)
        give_up = time.monotonic() + wait_s
        while leases.held(name) and time.monotonic() < give_up:
            time.sleep(0.25)
        if leases.held(name):
            raise BotExists(
                f"a bot named {name!r} is connected now: another run (cardarena match, tournament run or demo) "
                "is using the name, and a new token would end it; wait for it to finish, or give this run "
                "its own Redis (REDIS_URL, or another XDG_DATA_HOME)"
            ) from None
        return bots.rotate(name)


class _ChildExited(Exception):
    """A child process of ``cardarena match`` ended before the matches did."""


def _json_options(text: str | None) -> dict[str, Any] | None:
    """``--options`` as a JSON object (``None`` when not given); an argument error otherwise."""
    try:
        return json_object(text, "--options")
    except ValueError as exc:
        usage_error(str(exc))


def _replays_dir(text: str | None) -> Path | None:
    """``--replays`` as a created directory; an argument error when it cannot be one."""
    if not text:
        return None
    out = Path(text)
    if out.exists() and not out.is_dir():
        usage_error(f"--replays {text}: exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        usage_error(f"--replays {text}: {exc.strerror or exc}")
    return out


def _match(args: argparse.Namespace) -> int:
    try:
        return _match_checked(args)
    except KeyboardInterrupt:  # before anything started
        print("cardarena: interrupted", file=sys.stderr)
        return 130


def _match_checked(args: argparse.Namespace) -> int:
    from cardarena_sdk import check_bot_spec

    from ..engine import get_game
    from ..store.bots import BotError, check_name
    from ..store.connection import DEFAULT_DATA_DIR, configured_url

    # Everything is checked before a single process starts.
    game = get_game(args.game)
    players = args.players or game.min_players
    options = _json_options(args.options)
    game.new_state(players, game.options(players, options))  # ranges too: a match must be playable
    kinds = [b.strip() for b in args.bots.split(",") if b.strip()]
    if len(kinds) != players:
        usage_error(f"--bots needs {how_many(players, 'entry', 'entries')}, got {len(kinds)}")
    for kind in dict.fromkeys(kinds):
        try:
            check_bot_spec(kind)
        except ValueError as exc:
            usage_error(str(exc))
    for kind, name in zip(kinds, seat_names(kinds), strict=True):
        try:
            check_name(name)  # a file named my:bot.py names its bot my:bot-2
        except BotError as exc:
            usage_error(f"{kind}: its bot would be named {name!r}: {exc}")
    out = _replays_dir(args.replays)
    run_id = uuid.uuid4().hex[:8]
    logs = out / "logs" if out else DEFAULT_DATA_DIR / "logs" / f"match-{run_id}"
    logs.mkdir(parents=True, exist_ok=True)
    run = _MatchRun(args, game, players, kinds, run_id, options or {}, logs)
    try:
        with sigterm_as_keyboard_interrupt():
            run.play()
    except KeyboardInterrupt:
        print(f"cardarena: interrupted; {run.unfinished()} (bot logs in {logs}/)", file=sys.stderr)
        return 130
    except _ChildExited as exc:
        print(f"cardarena: error: {exc}; {run.unfinished()}", file=sys.stderr)
        return 1
    except BotError as exc:  # a name taken by a registered bot
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2
    print(f"{game.name}, {how_many(players, 'player')}, {how_many(args.matches, 'match')} (seed {args.seed}) over gRPC")
    for s in range(players):
        print(f"  {run.seats[s]:>16}: {run.tally.line(s)}")
    if any(run.think):
        clock = f"move clock {seconds_text(args.move_ms)}, bank {seconds_text(args.bank_ms)}"
        print(f"think times (each request to its answer, as the service measured them; {clock}):")
        for s in range(players):
            print(f"  {run.seats[s]:>16}: {run.think_line(s)}")
    if run.aborted:
        print(
            f"aborted: {how_many(len(run.aborted), 'match')} stopped at the action limit ({args.max_actions} actions, "
            "--max-actions): no contests, left out of the wins and scores above; the game loops, or the bots found a "
            f"loop in it (`cardarena conformance {game.id}` looks for loops): {', '.join(run.aborted)}"
        )
    troubles = [(s, line) for s in range(players) if (line := run.trouble(s))]
    if troubles:
        print("faults and errors:")
        for s, line in troubles:
            print(f"  {run.seats[s]:>16}: {line}")
    print(f"bot logs in {logs}/")
    if out:
        print(f"replays written to {out}/")
    if configured_url() is None:  # the embedded default keeps the run's matches: the dashboard has them
        print("step through each match (every move, each seat's view, the faults): cardarena dashboard, page Matches")
    return 0


class _MatchRun:
    """One ``cardarena match`` run: the service and one process per bot, the matches, the
    per-seat tallies; on any failure or interrupt its unfinished matches are withdrawn."""

    def __init__(
        self,
        args: argparse.Namespace,
        game: Any,
        players: int,
        kinds: list[str],
        run_id: str,
        options: dict[str, Any],
        logs: Path,
    ) -> None:
        from ..summary import Tally

        self.args, self.game, self.players, self.kinds = args, game, players, kinds
        self.run_id, self.options, self.logs = run_id, options, logs
        self.seats = seat_names(kinds)
        self.ids: list[str] = []
        self.done = 0
        self.withdrawn = 0
        self.tally = Tally(players)
        self.faults: list[Counter[str]] = [Counter() for _ in range(players)]
        self.forfeits = [0] * players
        self.aborted: list[str] = []
        """The matches the service stopped at their action limit (no contests: not in the tally)."""
        self.think: list[list[int]] = [[] for _ in range(players)]
        """Per seat, the time of each action it was asked for, in ms (the replays' ``think_ms``)."""

    def log_path(self, seat: int) -> Path:
        """Where the bot in ``seat`` writes its stdout and stderr."""
        return self.logs / f"{self.seats[seat]}.log"

    def play(self) -> None:
        """Start everything, play the matches, record the results; stop everything."""
        from ..store.bots import BotStore
        from ..store.connection import client_for
        from ..store.matches import MatchStore

        args = self.args
        procs: list[subprocess.Popen[bytes]] = []
        files: list[IO[bytes]] = []
        finished = False
        with run_namespace("match", self.run_id, keep=args.keep_data, url=args.redis_url) as (url, prefix):
            env = {**os.environ, "REDIS_URL": url, "CARDARENA_PREFIX": prefix}
            client = client_for(url)
            store, bots = MatchStore(client), BotStore(client)
            try:
                # grace 0: whatever is still live when the service stops is voided at once
                # (and, withdrawn first, never queued again)
                # its own lane: a platform's service on the same Redis never plays these matches,
                # and this one plays no other
                lane = ["--queue", f"match-{self.run_id}"]
                service, port = start_service(
                    env, extra=["--grace", "0", *lane], log=sys.stderr if args.verbose else None
                )
                procs.append(service)
                for seat, (name, kind) in enumerate(zip(self.seats, self.kinds, strict=True)):
                    token = issue_token(bots, name)
                    argv = [sys.executable, "-m", "cardarena.server", "bot", "run", kind]
                    argv += ["--server", f"127.0.0.1:{port}", "--name", name, "--seed", f"{args.seed}/{name}"]
                    argv += ["--max-matches", str(args.concurrency)]
                    files.append(self.log_path(seat).open("wb"))
                    procs.append(spawn(argv, {**env, "CARDARENA_TOKEN": token}, log=files[-1]))
                self._enqueue(store)
                self._wait(store, procs)
                self._record(store)
                finished = True
            finally:
                if not finished:
                    self._withdraw(store)
                for proc in reversed(procs):
                    stop_process(proc)
                if not finished:
                    self._withdraw(store)  # voided while stopping
                for f in files:
                    f.close()
                client.close()

    def _enqueue(self, store: MatchStore) -> None:
        from ..engine import MatchRng
        from ..store.matches import FaultPolicy, MatchSpec, TimeControl

        master = MatchRng(self.args.seed)
        tc = TimeControl(move_ms=self.args.move_ms, bank_ms=self.args.bank_ms)
        for m in range(self.args.matches):
            mid = f"match-{self.run_id}-{m + 1:05d}"
            spec = MatchSpec(
                match_id=mid,
                game=self.game.id,
                players=self.players,
                seats=tuple(self.seats),
                seed=master.below(2**63),
                queue=f"match-{self.run_id}",
                options=self.options,
                time_control=tc,
                fault_policy=FaultPolicy(max_actions=self.args.max_actions),
            )
            store.enqueue(spec)
            self.ids.append(mid)

    def _wait(self, store: MatchStore, procs: list[subprocess.Popen[bytes]]) -> None:
        pending = list(self.ids)
        while pending:
            for i, proc in enumerate(procs):
                if proc.poll() is not None:
                    if i == 0:
                        raise _ChildExited(f"the service exited with status {proc.returncode}")
                    seat = i - 1
                    raise _ChildExited(
                        f"bot {self.seats[seat]} exited with status {proc.returncode}; see {self.log_path(seat)}"
                    )
            infos = store.infos(pending)
            for mid, info in zip(pending, infos, strict=True):
                if info.get("status") == "withdrawn":
                    raise _ChildExited(f"match {mid} could not be played: {info.get('withdrawn_reason', '')}")
            pending = [m for m, info in zip(pending, infos, strict=True) if info.get("status") != "done"]
            self.done = len(self.ids) - len(pending)
            time.sleep(0.1)

    def _record(self, store: MatchStore) -> None:
        out = Path(self.args.replays) if self.args.replays else None
        for number, mid in enumerate(self.ids):
            result = store.result(mid) or {}
            if result.get("aborted"):  # stopped at its action limit: no result to count
                self.aborted.append(mid)
            else:
                self.tally.add(result["scores"], result["ranks"], result.get("won"))
            for seat in result.get("forfeited", []):
                self.forfeits[seat] += 1
            replay = store.replay(mid)
            if replay is None:  # dropped meanwhile by a prune with a tiny --older-than: no file, say so
                from ..store.retention import pruned_note

                why = pruned_note(store.info(mid)) or "replay missing"
                print(f"cardarena: warning: match {mid}: {why}; its faults are not counted", file=sys.stderr)
                continue
            for fault in replay.get("faults", []):
                self.faults[int(fault["seat"])][str(fault["fault"])] += 1
            times = Times.of(replay)
            if times is not None:
                for index, seat in enumerate(action_seats(replay)):
                    clock = times.at(index)
                    if clock is not None:
                        self.think[seat].append(clock[0])
            if out:
                (out / f"{self.game.id}-{number + 1:05d}.json").write_text(json.dumps(replay, separators=(",", ":")))

    def _withdraw(self, store: MatchStore) -> None:
        """Take the run's unfinished matches out of play for good (a later run sharing the
        Redis must not claim them and wait for bots that are gone)."""
        if not self.ids:
            return
        try:
            store.withdraw(self.ids, f"cardarena match {self.run_id} stopped")
            self.withdrawn = sum(1 for info in store.infos(self.ids) if info.get("status") == "withdrawn")
        except Exception as exc:  # Redis gone: nothing more can be done about it
            print(f"cardarena: warning: could not withdraw the unfinished matches: {exc}", file=sys.stderr)

    def unfinished(self) -> str:
        """What became of the matches of an aborted run."""
        return (
            f"{self.done} of {how_many(len(self.ids) or self.args.matches, 'match')} done, {self.withdrawn} withdrawn"
        )

    def think_line(self, seat: int) -> str:
        """``median 3 ms, max 41 ms over 120 requests`` (the lower median; "never asked")."""
        took = self.think[seat]
        if not took:
            return "never asked"
        return f"median {statistics.median_low(took)} ms, max {max(took)} ms over {how_many(len(took), 'request')}"

    def trouble(self, seat: int) -> str:
        """``3 timeouts, forfeited 1 of 1 match; 3 errors in <log>`` ("" when all went well)."""
        names = {"timeout": "timeout", "illegal": "illegal-action fault", "disconnect": "disconnect"}
        names |= {"error": "handed-back move"}
        names |= {"no-show": "no-show", "resign": "resignation"}
        parts = [how_many(n, names.get(kind, kind)) for kind, n in sorted(self.faults[seat].items())]
        if self.forfeits[seat]:
            parts.append(f"forfeited {self.forfeits[seat]} of {how_many(len(self.ids), 'match')}")
        errors = _error_lines(self.log_path(seat))
        text = ", ".join(parts)
        if errors:
            text += f"{'; ' if text else ''}{how_many(errors, 'error')} logged"
        if not text:
            return ""
        return f"{text}; see {self.log_path(seat)}"


def _error_lines(path: Path) -> int:
    """Error records in a bot's log (``bot run`` logs ``<time> ERROR <logger>: ...``)."""
    try:
        with path.open("rb") as f:
            return sum(1 for line in f if b" ERROR " in line)
    except OSError:
        return 0


def _bench_service(args: argparse.Namespace) -> int:
    import importlib

    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    bench: Any = importlib.import_module("bench.service_bench")
    return int(bench.main(args))
