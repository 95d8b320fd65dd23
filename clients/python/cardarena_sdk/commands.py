"""The SDK's commands: ``cardarena replay FILE --seat N [--bot SPEC] [--step K] [--json]``, a
seat's decisions in a recorded match and a bot asked them again (:mod:`cardarena_sdk.replay`);
``cardarena play GAME``, a person against bots (:mod:`cardarena_sdk.play_command`).  Their
arguments: :mod:`cardarena_sdk.arguments`."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import statistics
import sys
from collections.abc import Iterator
from typing import Any

from cardarena.engine import get_game
from cardarena.engine.replay import annotation_text
from cardarena.summary import how_many
from cardarena.think import clock_text, has_bank

from .bot import legal_ids, load_bot
from .replay import Decision, Reasked, ReplayError, decisions, load, reask


def _replay(args: argparse.Namespace) -> int:
    if args.debug and (args.bot is None or args.step is None):
        return _error("--debug needs --bot and --step")
    try:
        data = load(args.file)
    except ReplayError as exc:
        return _error(f"{args.file}: {exc}")
    bot = None
    if args.bot is not None:
        try:
            bot = load_bot(args.bot, args.seed)
        except ValueError as exc:
            return _error(str(exc))
    try:  # the replay is checked whole here, before anything is printed
        rows: Iterator[Reasked | Decision] = (
            decisions(data, args.seat)
            if bot is None
            else reask(data, args.seat, bot, debug_step=args.step if args.debug else None)
        )
    except ReplayError as exc:
        return _error(f"{args.file}: {exc}")
    banked = has_bank(data)
    if not args.json:
        print(_header(data, args.seat, bot is not None))
    # The bot's prints and its hooks' errors go beside the listing: to stderr under --json.
    out = sys.stderr if args.json else sys.stdout
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    sdk_log = logging.getLogger("cardarena_sdk")
    sdk_log.addHandler(handler)
    kept: list[Reasked | Decision] = []
    beyond = None  # with --step: the first decision after it
    try:
        with contextlib.redirect_stdout(out):
            for row in rows:
                if args.step is not None and _decision(row).step > args.step:
                    beyond = _decision(row).step
                    break
                kept.append(row)
                if not args.json:
                    _show(row, args.step, banked)
                if _decision(row).step == args.step:
                    break
    finally:
        sdk_log.removeHandler(handler)
    if args.step is not None and not (kept and _decision(kept[-1]).step == args.step):
        near = [_decision(r).step for r in kept[-1:]] + ([] if beyond is None else [beyond])
        nearest = "the nearest: step " + " and step ".join(map(str, near)) if near else "it has no decisions"
        return _error(f"step {args.step} is not a decision of seat {args.seat}; {nearest}")
    if args.json:
        print(json.dumps([row.to_json() for row in kept]))
    else:
        timed = _times([_decision(r) for r in kept])
        if timed:
            print(timed)
        print(_summary(kept, args.step))
    return 0


def _decision(row: Reasked | Decision) -> Decision:
    return row.decision if isinstance(row, Reasked) else row


def _error(message: str) -> int:
    print(f"cardarena: error: {message}", file=sys.stderr)
    return 2


def _header(replay: dict[str, Any], seat: int, asking: bool) -> str:
    game = get_game(str(replay["game"]))
    seats = list(replay.get("seats") or [])
    name = f" ({seats[seat]})" if seat < len(seats) else ""
    match = f" {replay['match_id']}," if replay.get("match_id") else ""
    players = int(replay.get("players") or len(seats))
    again = ", asked again" if asking else ""
    who = how_many(players, "player")
    return f"{game.name},{match} {who}: seat {seat}{name}{again} (step: the dashboard's replay step)"


def _show(row: Reasked | Decision, step: int | None, banked: bool) -> None:
    """One decision's line (its traceback below it), and its full view at ``--step``;
    ``banked``: the match had a time bank (each line says what was left of it)."""
    decision = _decision(row)
    print(_line(decision, banked) + (_answer(row) if isinstance(row, Reasked) else ""))
    if isinstance(row, Reasked) and row.error:
        print("    " + row.error.replace("\n", "\n    "))
    if decision.step == step:
        print(f"--- step {decision.step}: the view seat {decision.seat} was asked with ---")
        print(json.dumps(decision.view, indent=2, ensure_ascii=False))
        print("--- its legal actions ---")
        width = max(len(a.id) for a in decision.legal)
        for a in decision.legal:
            print(f"  {a.id:<{width}}  {a.label}" + ("  <- played" if a.id == decision.played else ""))


def _line(d: Decision, banked: bool) -> str:
    parts = [f"step {d.step:>4}", f"deal {d.deal}"]
    if d.seq is not None:
        parts.append(f"seq {d.seq}")
    hand = d.view.get("hand")
    if isinstance(hand, list):
        parts.append("hand " + " ".join(map(str, hand)))
    parts.append(f"legal {legal_ids(d.legal, 8)}")
    parts.append(f"played {d.played!r}")
    notes = {k: v for k, v in (("fault", d.fault), ("default", d.default), ("forfeit", d.forfeit)) if v}
    if notes:
        parts.append(f"[{annotation_text(notes)}]")
    if d.refused:
        answers = "an illegal answer" if d.refused == 1 else f"{d.refused} illegal answers"
        parts.append(f"[{answers} refused first: {d.refused_reason}]")
    if d.think_ms is not None:
        parts.append(clock_text(d.think_ms, d.bank_ms_left, answered=d.fault is None, banked=banked))
    return "  ".join(parts)


def _answer(row: Reasked) -> str:
    differs = "  <- differs" if row.differs else ""
    if not row.decision.asked:
        return "  now: not asked (nor was it then)"
    if row.error:
        return f"  now: choose raised {row.error.splitlines()[-1]}{differs}"
    if row.illegal:
        return f"  now {row.answer!r}: {row.illegal}{differs}"
    return f"  now {row.answer!r}{differs}"


def _times(listed: list[Decision]) -> str:
    """``think times: median 35 ms, max 1003 ms (step 40)`` over the decisions listed that have
    a time (``""`` when none has: a local replay, or one stored before times were)."""
    timed = [d for d in listed if d.think_ms is not None]
    if not timed:
        return ""
    median = statistics.median_low(d.think_ms or 0 for d in timed)
    slowest = max(timed, key=lambda d: (d.think_ms or 0, -d.step))
    return f"think times: median {median} ms, max {slowest.think_ms} ms (step {slowest.step})"


def _summary(rows: list[Reasked | Decision], step: int | None) -> str:
    """``N of M decisions differ`` (M: those the bot was asked), or ``M decisions``."""
    upto = f" up to step {step}" if step is not None else ""
    asked = [r for r in rows if isinstance(r, Reasked) and r.decision.asked]
    if not any(isinstance(r, Reasked) for r in rows):
        return f"{how_many(len(rows), 'decision')}{upto}"
    unasked = len(rows) - len(asked)
    also = f" ({unasked} more not asked: the seat had forfeited or resigned)" if unasked else ""
    return f"{sum(r.differs for r in asked)} of {len(asked)} decisions differ{upto}{also}"
