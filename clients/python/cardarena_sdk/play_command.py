"""``cardarena play GAME``: a person plays a game against bots, at the keyboard.

One seat is the person's (:class:`~cardarena_sdk.human.HumanSeat`), the others are bots
(``--against``: built-in names or bot files, as ``cardarena match --bots``; default the
heuristic bot).  Each match is played in this process by the SDK's local match runner
(:func:`cardarena_sdk.local.play_match`), with no server, Redis or bot process, so it starts at
once; the person's seat sees exactly what a bot in it would.  What the bots write (prints,
logging, the SDK's lines about their faults) is kept off the person's screen and saved to a log
file named at the end.  ``--replay FILE`` writes each finished match's replay (the format of
``cardarena simulate``/``match``), whole or not at all.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import sys
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardarena.cli import UsageError
from cardarena.cliargs import json_object
from cardarena.engine import Game, MatchRng, get_game, rerun
from cardarena.summary import Tally, how_many, seat_names
from rich.table import Table
from rich.text import Text

from .arguments import DEFAULT_OPPONENT
from .bot import BUILTIN, Bot, builtin_bot, load_bot
from .human import HumanSeat, Quit, Screen, records_table
from .local import TableResult, captured, play_match, seat_request

FAULT_WORDS = {"illegal": "illegal answers", "error": "choose raised"}
"""A fault of a local match (:class:`~cardarena_sdk.local.LocalFault`) in a few words."""


@dataclass(frozen=True)
class Seating:
    """A checked ``cardarena play`` table: the game, its options, who sits where."""

    game: Game
    players: int
    options: dict[str, Any]
    seat: int
    kinds: list[str]
    """Per seat, the bot spec (``""`` for the person's)."""
    names: list[str]
    """Per seat, the player's name: ``you``, ``heuristic-2``, ``my_bot-3``."""
    loaded: dict[int, Bot]
    """The bot files' bots, loaded once per seat (a built-in is made afresh for each match)."""


def _checked(args: argparse.Namespace) -> Seating:
    """The run ``args`` ask for, everything checked before anything is played; ``ValueError``
    with a one-line message otherwise."""
    game = get_game(args.game)
    against = [spec.strip() for spec in (args.against or "").split(",") if spec.strip()]
    if args.against is not None and not against:
        raise ValueError("--against names no bot")
    if game.solitaire and against:
        raise ValueError(f"{game.name} is a solitaire: there is nobody to play against (leave out --against)")
    players = args.players or (len(against) + 1 if against else game.min_players)
    game.check_players(players)
    others = players - 1
    if len(against) == 1:
        against *= others
    elif not against:
        against = [DEFAULT_OPPONENT] * others
    if len(against) != others:
        needs = f"{how_many(others, 'bot')} for {how_many(players, 'player')}"
        raise ValueError(f"--against needs {needs} (or one for all), got {len(against)}")
    options = game.options(players, json_object(args.options, "--options"))
    game.new_state(players, options)  # ranges too: a match must be playable
    if args.seat >= players:
        raise ValueError(f"--seat {args.seat}: the seats of {how_many(players, 'player')} are 0 to {players - 1}")
    kinds = list(against)
    kinds.insert(args.seat, "")
    names = seat_names([kind or "you" for kind in kinds])
    names[args.seat] = "you"
    loaded: dict[int, Bot] = {}
    for seat, kind in enumerate(kinds):
        if kind and kind not in BUILTIN:
            bot = loaded[seat] = load_bot(kind)  # "<spec>: <reason>" when it names no bot
            if bot.games and game.id not in bot.games:
                raise ValueError(f"{kind}: its bot plays only {', '.join(bot.games)} (its games), not {game.id}")
    if args.replay:
        _replay_target(Path(args.replay))
    return Seating(game, players, options, args.seat, kinds, names, loaded)


def _replay_target(path: Path) -> None:
    """Check that replays can be written to ``path`` (its directory made if missing)."""
    if path.is_dir():
        raise ValueError(f"--replay {path}: is a directory (give a file name)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--replay {path}: {exc.strerror or exc}") from None


def replay_path(base: Path, number: int, matches: int) -> Path:
    """Where match ``number`` (from 1) of ``matches`` writes its replay: ``base`` for one match,
    ``<stem>-00001<suffix>`` and on for several."""
    return base if matches == 1 else base.with_name(f"{base.stem}-{number:05d}{base.suffix or '.json'}")


def _write_whole(path: Path, text: str) -> None:
    """``text`` into ``path`` in one step: a file beside it renamed over it (never half a file)."""
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        part.write_text(text)
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def _play(args: argparse.Namespace) -> int:
    try:
        table = _checked(args)
    except ValueError as exc:  # the engine's GameError (unknown game, options, players) is one too
        raise UsageError(str(exc)) from None
    seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    screen = Screen(sys.stdout, sys.stdin)
    human = HumanSeat(table.game, screen)
    tally = Tally(table.players)
    bot_output: list[str] = []
    screen.show(Text(_introduction(table, seed), style="bold"), Text("Type ? at the prompt for help, q to quit."))
    master = MatchRng(seed)
    number = 0
    try:
        for number in range(1, args.matches + 1):
            heading = table.game.name + (f", match {number} of {args.matches}" if args.matches > 1 else "")
            human.start(table.seat, table.names, heading)
            result = _play_match(table, human, master.below(2**63), number, bot_output)
            replay = result.replay
            assert replay is not None  # play_match was given the seats' names
            human.end(seat_request(table.game, rerun(replay), table.seat)[0])  # why it ended, the last trick
            screen.show(Text("Result:", style="bold"), _result_table(table, result, screen.rich))
            screen.show(*_fault_lines(table, result))
            tally.add(result.scores, result.ranks, result.won)
            if args.replay:
                path = replay_path(Path(args.replay), number, args.matches)
                _write_whole(path, json.dumps(replay, separators=(",", ":")))
                screen.show(Text(f"replay written to {path}"))
            if args.matches > 1:
                after = Text(f"After {number} of {args.matches} matches:", style="bold")
                screen.show(after, _tally_table(table, tally))
    except Quit as why:
        done = f" ({tally.matches} finished before it)" if tally.matches else ""
        screen.show(Text(f"{why.reason}: match {number} abandoned, nothing of it recorded{done}"))
    except KeyboardInterrupt:
        sys.stdout.flush()
        print(f"\ncardarena: interrupted; match {number} abandoned, nothing of it recorded", file=sys.stderr)
        return 130
    finally:
        _save_bot_output("".join(bot_output), screen)
    return 0


def _play_match(table: Seating, human: HumanSeat, seed: int, number: int, bot_output: list[str]) -> TableResult:
    """Match ``number`` on ``seed``, the bots' output added to ``bot_output`` (also when it is
    abandoned)."""
    seated: list[Bot] = [
        human if s == table.seat else table.loaded.get(s) or builtin_bot(kind, f"{seed}/{table.names[s]}")
        for s, kind in enumerate(table.kinds)
    ]
    random.seed(f"{seed}/random")  # a bot file drawing from `random` plays a seed the same way
    with captured() as written:
        try:
            return play_match(
                table.game.id,
                seated,
                seed,
                match_id=f"play-{number}",
                options=table.options,
                replay_seats=table.names,
                on_deal=human.dealt,
            )
        finally:
            bot_output.append(written.getvalue())


def _introduction(table: Seating, seed: int | str) -> str:
    others = [name for s, name in enumerate(table.names) if s != table.seat]
    who = f"{table.players} players, you in seat {table.seat} against {', '.join(others)}" if others else "solitaire"
    return f"{table.game.name}, {who} (seed {seed}: --seed {seed} deals the same again)"


def _result_table(table: Seating, result: TableResult, rich: bool) -> Table:
    """Each seat's place and score, best first (a solitaire: won or lost, where the game says)."""
    rows = []
    for s in sorted(range(table.players), key=lambda s: (result.ranks[s], s)):
        row: dict[str, Any] = {"place": result.ranks[s]} if table.players > 1 else {}
        row |= {"player": table.names[s], "score": result.scores[s]}
        if result.won is not None:
            row["won"] = result.won[s]
        if s in result.forfeited:
            row["forfeited"] = True
        rows.append(row)
    return records_table(rows, table.names, rich)


def _fault_lines(table: Seating, result: TableResult) -> list[Text]:
    """A line per bot that faulted (a default action was played for it): how, and whether it forfeited."""
    faults: dict[int, Counter[str]] = {}
    for fault in result.faults:
        faults.setdefault(fault.player, Counter())[fault.fault] += 1
    lines = []
    for s, kinds in sorted(faults.items()):
        what = ", ".join(f"{n} × {FAULT_WORDS.get(kind, kind)}" for kind, n in sorted(kinds.items()))
        gone = "; forfeited (default actions from then on)" if s in result.forfeited else ""
        lines.append(Text(f"{table.names[s]}: default actions played for it ({what}){gone}", style="yellow"))
    return lines


def _tally_table(table: Seating, tally: Tally) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(justify="right")
    grid.add_column()
    for s, name in enumerate(table.names):
        grid.add_row(Text(name), Text(tally.line(s)))
    return grid


def _save_bot_output(text: str, screen: Screen) -> None:
    """What the bots wrote, into a log file named on the screen (nothing when they wrote nothing)."""
    if not text.strip():
        return
    from cardarena.store.connection import DEFAULT_DATA_DIR

    path = DEFAULT_DATA_DIR / "logs" / f"play-{uuid.uuid4().hex[:8]}.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    except OSError as exc:
        print(f"cardarena: warning: the bots' output could not be saved to {path}: {exc}", file=sys.stderr)
        return
    screen.show(Text(f"what the bots wrote (prints, errors): {path}"))
