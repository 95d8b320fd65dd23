"""The ``cardarena`` command.

Building its parser loads only argument definitions: this module, :mod:`.cliargs` and each
area's ``arguments`` module (:data:`AREA_COMMANDS`), which import nothing heavier.  A command's
code, and what it needs (the engine, the stores, gRPC, Celery, Flask), is imported when that
command runs, so ``--help``, an argument error or a health probe does not pay for the others
(``tests/test_cli_startup.py``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import quiet_grpc_core_logs
from .cliargs import MAX_ACTIONS, at_least, json_object

AREA_COMMANDS = (
    "cardarena.server.arguments",
    "cardarena_sdk.arguments",
    "cardarena_tournament.arguments",
    "cardarena_dashboard.arguments",
    "cardarena_tournament.arguments:register_platform",
    "cardarena.datacmd",
)
"""Where each area adds its subcommands, in this order: ``module`` (its ``register(subparsers)``)
or ``module:function``; an area whose package is absent is skipped.  Each module defines
arguments only (the standard library and :mod:`.cliargs`), its commands' code behind a
:class:`~.cliargs.Handler`."""


class UsageError(Exception):
    """A bad argument found after parsing: ``cardarena: error: <message>``, exit status 2."""


def _json_options(text: str | None) -> dict[str, Any] | None:
    """``--options`` as a JSON object (``None`` when not given)."""
    try:
        return json_object(text, "--options")
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _simulate(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from .engine import (
        ActionLimitReached,
        GameError,
        MatchRng,
        build_replay,
        get_game,
        play_match,
        random_policy,
        rerun,
    )
    from .summary import Tally, how_many

    game = get_game(args.game)
    players = args.players or game.min_players
    options = game.options(players, _json_options(args.options))
    out = Path(args.replays) if args.replays else None
    if out:
        if out.exists() and not out.is_dir():
            raise UsageError(f"--replays {out}: exists and is not a directory")
        out.mkdir(parents=True, exist_ok=True)
    tally = Tally(players)
    master = MatchRng(args.seed)
    for m in range(args.matches):
        seed = master.below(2**63)
        bots = [random_policy(MatchRng(f"{seed}/bot/{s}")) for s in range(players)]
        seats = [f"random-{s + 1}" for s in range(players)]
        try:
            state = play_match(game.id, players, bots, seed=seed, options=options, max_actions=args.max_actions)
        except ActionLimitReached as exc:  # the service would stop it there too: say so, keep what was played
            where = ""
            if out:
                path = out / f"{game.id}-{m + 1:05d}.json"
                path.write_text(json.dumps(build_replay(exc.state, seed=seed, seats=seats), separators=(",", ":")))
                where = f"; its replay so far: {path}"
            print(
                f"cardarena: error: match {m + 1}: {exc} (--max-actions): the game may loop; the service stops "
                f"such a match (a no contest, action_limit), `cardarena conformance {game.id}` looks for loops{where}",
                file=sys.stderr,
            )
            return 1
        result = state.result()
        tally.add(result.scores, result.ranks, result.won)
        if out:
            replay = json.loads(json.dumps(build_replay(state, seed=seed, seats=seats)))
            try:  # a replay the engine cannot re-run is a bug of the game: say so now, not later
                rerun(replay)
            except GameError as exc:
                raise GameError(f"the replay of match {m + 1} (seed {seed}) does not re-run: {exc}") from exc
            (out / f"{game.id}-{m + 1:05d}.json").write_text(json.dumps(replay, separators=(",", ":")))
    who = "a random bot" if players == 1 else "random bots"
    print(f"{game.name}, {how_many(players, 'player')}, {how_many(args.matches, 'match')} (seed {args.seed}), {who}")
    for s in range(players):
        print(f"  seat {s}: {tally.line(s)}")
    if out:
        print(f"replays written to {out}/")
    return 0


def _conformance(args: argparse.Namespace) -> int:
    import traceback
    from functools import partial

    from .conformance import PER_PLAYER_COUNT, ConformanceError, check_purity
    from .engine import get_game
    from .summary import how_many

    game = get_game(args.game)
    if args.players:
        game.check_players(args.players)
    counts = [args.players] if args.players else list(game.player_counts)
    seeds = range(args.seeds)
    checks: list[tuple[str, Callable[[], None]]] = [("rules code is pure", lambda: check_purity(game.id))]
    for players in counts:
        for name, run in PER_PLAYER_COUNT:
            checks.append((f"{how_many(players, 'player')}: {name}", partial(run, game.id, players, seeds)))
    print(
        f"{game.name} ({game.id}): the conformance suite, {how_many(args.seeds, 'seed')} per player count", flush=True
    )
    if game.hidden_information == "own_tests":
        print(
            "  note  hidden_information = 'own_tests': secrets() stays empty, so nothing here checks what a seat "
            "sees or is told; the game's own tests must (docs/engine.md, Hidden information)"
        )
    failed = 0
    for name, check in checks:
        try:
            check()
        except ConformanceError as exc:
            failed += 1
            print(f"  FAIL  {name}: {exc}", flush=True)
        except Exception as exc:  # the game's own code failed: its traceback is what helps
            failed += 1
            print(f"  FAIL  {name}: the game raised {type(exc).__name__}: {exc}", flush=True)
            tb = exc.__traceback__.tb_next if exc.__traceback__ else None  # not this loop's frame
            lines = traceback.format_exception(type(exc), exc, tb)
            print("        " + "".join(lines).rstrip().replace("\n", "\n        "), flush=True)
        else:
            print(f"  ok    {name}", flush=True)
    if failed:
        print(f"{failed} of {len(checks)} checks failed (what each needs: docs/engine.md, the engine contract)")
        return 1
    print(f"all {len(checks)} checks passed")
    return 0


def _bench(args: argparse.Namespace) -> int:
    import json

    from .benchmark import engine_benchmark, pyspiel_available
    from .engine import get_game

    if args.game is not None:
        get_game(args.game)  # an unknown game is an error before anything runs, not an empty benchmark
    if not args.json and not pyspiel_available():
        print("(open_spiel not installed: no reference; pip install '.[bench]')", file=sys.stderr)
    for fig in engine_benchmark(repeats=args.repeats, min_actions=args.actions, only=args.game):
        if args.json:
            print(json.dumps(fig.to_json()), flush=True)
        else:
            print(
                f"{fig.game:>16} {fig.players}p  {fig.us_per_action:7.3f} us/action "
                f"(median of {fig.repeats}, spread {fig.spread:.3f})",
                flush=True,
            )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``cardarena`` command."""
    parser = argparse.ArgumentParser(prog="cardarena", description="Bots compete at card games.")
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser(
        "simulate",
        help="play matches locally between random bots (no network)",
    )
    sim.add_argument("game", help="the game id (e.g. glaves)")
    sim.add_argument(
        "--players", type=at_least(0), default=0, help="number of players; 0 (the default): the game's minimum"
    )
    sim.add_argument("--matches", type=at_least(1), default=1, help="how many matches to play (default: %(default)s)")
    sim.add_argument(
        "--seed",
        default="0",
        help="the master seed (an integer or any string); each match's seed is drawn from it (default: %(default)s)",
    )
    sim.add_argument(
        "--options", help="match options as a JSON object, e.g. '{\"deals\": 3}' (default: the game's defaults)"
    )
    sim.add_argument(
        "--replays", metavar="DIR", help="write one replay per match into DIR (each is re-run before it is written)"
    )
    sim.add_argument(
        "--max-actions",
        type=at_least(1),
        default=MAX_ACTIONS,
        help="player actions after which a match that has not ended stops the run with an error, exit status 1 "
        "(as the service stops it: a game that loops; default: %(default)s)",
    )
    sim.set_defaults(func=_simulate)

    conf = sub.add_parser(
        "conformance",
        help="check a game against the engine contract (the conformance suite; a game of your own package too)",
        description="Run the conformance suite on one registered game: random playouts checked after every "
        "transition (who acts, refusals, chance as replayed, invariants, what each seat sees and is told), "
        "replays that re-run, a match of first legal actions that ends, matches of stubborn bots (always the last "
        "action, the kind just played, or one kind of action) that end within the service's action limit, the "
        "options, pure rules code. "
        "Exit status 1 if a check fails.",
    )
    conf.add_argument("game", help="the game id (e.g. glaves, or your own game's)")
    conf.add_argument(
        "--players", type=at_least(0), default=0, help="only this player count; 0 (the default): every one the game has"
    )
    conf.add_argument(
        "--seeds", type=at_least(1), default=12, help="random playouts per player count (default: %(default)s)"
    )
    conf.set_defaults(func=_conformance)

    bench = sub.add_parser("bench", help="benchmarks")
    bench_sub = bench.add_subparsers(dest="bench", required=True)
    eng = bench_sub.add_parser(
        "engine",
        help="engine cost per player action, with the pyspiel reference",
    )
    eng.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")
    eng.add_argument(
        "--repeats",
        type=at_least(1),
        default=5,
        help="timed runs per game and player count (the median is shown; default: %(default)s)",
    )
    eng.add_argument(
        "--actions", type=at_least(1), default=20000, help="player actions per repeat (default: %(default)s)"
    )
    eng.add_argument("--game", help="only this game id (default: every game)")
    eng.set_defaults(func=_bench)

    # Each area registers its own subcommands in its own module (``register(subparsers)``),
    # so the service, tournaments and dashboard never edit this file to add a command.
    for area in AREA_COMMANDS:
        name, _, function = area.partition(":")
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue
            raise
        getattr(module, function or "register")(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cardarena`` console command."""
    quiet_grpc_core_logs()  # before the commands' modules import grpc
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "seed", None) is not None and isinstance(args.seed, str) and args.seed.isdigit():
        args.seed = int(args.seed)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # inside the try: a reader that left is handled below
        return code
    except BrokenPipeError:
        # The reader left (``cardarena tournament status ID | head``): no traceback; stdout is
        # pointed at /dev/null so the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:
        if not _told_in_one_line(exc):
            raise
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2


def _told_in_one_line(exc: Exception) -> bool:
    """Whether a command's ``exc`` is a mistake of the input, told as ``cardarena: error: <exc>``
    (exit status 2): a :class:`UsageError`, an unknown game or bad options (``GameError``), a
    game that cannot be registered.  The engine is imported only here, once a command failed."""
    if isinstance(exc, UsageError):
        return True
    from .engine import GameError
    from .engine.registry import GameRegistrationError

    return isinstance(exc, GameError | GameRegistrationError)


if __name__ == "__main__":
    sys.exit(main())
