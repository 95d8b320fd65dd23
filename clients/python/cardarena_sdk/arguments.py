"""The arguments of the SDK's commands, ``cardarena replay`` (:mod:`.commands`) and ``cardarena play``
(:mod:`.play_command`): definitions only, so that building the ``cardarena`` parser and
``--help`` load neither the SDK nor the engine (the commands' code is imported when one runs)."""

from __future__ import annotations

from typing import Any

from cardarena.cliargs import Handler, at_least

DEFAULT_OPPONENT = "heuristic"
"""Who plays the other seats of ``cardarena play`` unless ``--against`` says otherwise
(``HeuristicBot``: the game's strategy in ``cardarena_sdk.strategies``)."""


def register(sub: Any) -> None:
    """Add ``cardarena replay`` and ``cardarena play`` to the ``cardarena`` command's subparsers."""
    cmd = sub.add_parser(
        "replay",
        help="a seat's decisions in a recorded match; with --bot, ask your bot them again",
        description="Re-run a replay (cardarena match/simulate --replays, local.play(replays=...), the dashboard's "
        "GET /api/v1/matches/<id>/replay) and list one seat's decisions: the step (the dashboard replay viewer's), "
        "the request's seq when recorded, the legal actions, the action played and its fault. With --bot, the bot "
        "is called as in a live match (on_event, choose, on_match_end, on_result) while the recorded actions are "
        "applied, and each decision where it now answers otherwise is marked.",
    )
    cmd.add_argument("file", metavar="FILE", help="the replay (a cardarena-replay/1 JSON file)")
    cmd.add_argument("--seat", type=at_least(0), required=True, help="the seat whose decisions to show (from 0)")
    cmd.add_argument("--bot", metavar="SPEC", help="a bot file (my_bot.py) or built-in name to ask again")
    cmd.add_argument("--seed", default=None, help="seed of a built-in bot's random choices (default: random)")
    cmd.add_argument(
        "--step", type=at_least(0), metavar="K", help="stop at the decision of step K and print its full view"
    )
    cmd.add_argument(
        "--debug",
        action="store_true",
        help="with --bot and --step: open the debugger (breakpoint()) right before choose is called at step K",
    )
    cmd.add_argument("--json", action="store_true", help="print the decisions as a JSON list")
    cmd.set_defaults(func=Handler("cardarena_sdk.commands:_replay"))
    _register_play(sub)


def _register_play(sub: Any) -> None:
    """Add ``cardarena play`` to the ``cardarena`` command's subparsers."""
    cmd = sub.add_parser(
        "play",
        help="play a game yourself against bots, in the terminal (no server)",
        description="Play GAME at the keyboard: one seat is yours, bots play the others, in this process (no "
        "server, no Redis). At each of your decisions you see what your seat may see (your view, what the others "
        "did since your last move) and your numbered moves; answer with a number or a move's id, ? for help, "
        "q to quit. Input may be piped.",
    )
    cmd.add_argument("game", help="the game id (e.g. glaves)")
    cmd.add_argument(
        "--players",
        type=at_least(0),
        default=0,
        help="seats at the table, yours included (default 0: one more than --against names, else the game's minimum)",
    )
    cmd.add_argument(
        "--against",
        metavar="SPEC,...",
        help="the other seats in table order, as `cardarena match --bots`: random, heuristic or a .py bot file; "
        f"one SPEC fills every other seat (default: {DEFAULT_OPPONENT})",
    )
    cmd.add_argument("--seat", type=at_least(0), default=0, help="your seat, from 0 (default %(default)s)")
    cmd.add_argument(
        "--seed",
        default=None,
        help="the run's seed: the deals and the built-in bots' choices; the same seed and the same moves play the "
        "same match again (default: a random one, printed)",
    )
    cmd.add_argument("--options", help="match options as a JSON object (default: the game's defaults)")
    cmd.add_argument(
        "--replay",
        metavar="FILE",
        help="write the replay of each finished match to FILE (with --matches: FILE-00001.json and on)",
    )
    cmd.add_argument("--matches", type=at_least(1), default=1, help="how many to play (default %(default)s)")
    cmd.set_defaults(func=Handler("cardarena_sdk.play_command:_play"))
