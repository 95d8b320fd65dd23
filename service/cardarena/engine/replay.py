"""Replays: the JSON record of a match (``cardarena-replay/1``) and re-running it.

A replay holds every chance outcome, so :func:`rerun` reproduces the match from the replay
alone (:class:`Rerun`: the same, stopping before each turn); :func:`rerun_from_seed`
reproduces it from the seed and the players' actions only.  The format is documented in
``docs/replay-format.md``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from .core import CHANCE, JSON, GameError, IllegalAction, State
from .registry import get_game
from .rng import MatchRng

FORMAT = "cardarena-replay/1"
"""The value of the ``format`` field."""


class ReplayMismatch(GameError):
    """A replay that the engine does not reproduce: its recorded scores, result, deals or
    chance outcomes differ, or it holds actions after the end of the match."""


def build_replay(
    state: State,
    *,
    seed: int | str | None,
    seats: Sequence[str],
    extra: Mapping[str, JSON] | None = None,
    annotations: Mapping[int, Mapping[str, JSON]] | None = None,
) -> dict[str, JSON]:
    """The replay of ``state`` (finished or not; ``result`` is ``None`` until it is over).

    ``annotations`` maps a global action index (counting player actions across deals) to
    extra keys stored with that action, e.g. ``{"fault": "timeout"}`` from the match runner.
    """
    deals: list[dict[str, JSON]] = []
    index = 0
    for record in state.deal_records():
        actions: list[dict[str, JSON]] = []
        for seat, action in record.actions:
            if seat == CHANCE:
                actions.append({"chance": json.loads(action)})
                continue
            entry: dict[str, JSON] = {"seat": seat, "action": action}
            if annotations and index in annotations:
                entry.update(annotations[index])
            actions.append(entry)
            index += 1
        deal: dict[str, JSON] = {"dealer": record.dealer}
        deal.update({k: v for k, v in record.chance.items() if k != "dealer"})
        deal["actions"] = actions
        deal["scores"] = record.scores
        deals.append(deal)
    replay: dict[str, JSON] = {
        "format": FORMAT,
        "game": state.game.id,
        "options": dict(state.options),
        "seed": seed,
        "players": state.players,
        "seats": list(seats),
        "deals": deals,
        "result": state.result().to_json() if state.is_terminal() else None,
    }
    if extra:
        replay.update(extra)
    return replay


def _check_format(replay: Mapping[str, Any]) -> None:
    if replay.get("format") != FORMAT:
        raise GameError(f"not a {FORMAT} replay (format={replay.get('format')!r})")


DEAL_KEYS = ("actions", "scores")
"""The keys of a replay's deal that are not part of its opening chance outcome."""


def opening_outcome(deal: Mapping[str, Any]) -> dict[str, JSON]:
    """The opening chance outcome of a replay's deal, as :func:`rerun` passes it to
    :meth:`State.apply_chance`: every key of the deal except ``actions`` and ``scores``.

    :func:`build_replay` writes the deal as ``dealer`` (from :attr:`DealRecord.dealer`) plus the
    keys of :attr:`DealRecord.chance`, so a game's ``apply_chance`` must accept the outcome its
    ``sample_chance`` produced with ``dealer`` in it (every game's opening outcome has it) and
    no key named ``actions`` or ``scores``; the conformance suite checks it while playing.
    """
    return {k: v for k, v in deal.items() if k not in DEAL_KEYS}


def _short(value: JSON, limit: int = 80) -> str:
    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _located(exc: GameError, where: str) -> GameError:
    """``exc`` with ``where`` in front of its message, of the same type (the original is the
    ``__cause__`` of the raised error)."""
    message = f"{where}: {exc}"
    try:
        located = copy.copy(exc)
    except Exception:  # an error type that cannot be copied: the generic replay error
        return ReplayMismatch(message)
    located.args = (message,)
    if isinstance(located, IllegalAction):
        located.reason = message
    return located


class _Where:
    """Where a re-run is, for error messages: ``deal 2, action 17 (seat 1 'play:JH')``, both
    counted from 1 (``deals[1].actions[16]``; chance entries count)."""

    def __init__(self) -> None:
        self.deal = 0
        self.action = 0
        self.what: str | tuple[int, str] = "opening chance outcome"
        """What is applied: its description, or ``(seat, action)`` (described when needed)."""

    def __str__(self) -> str:
        what = self.what if isinstance(self.what, str) else f"seat {self.what[0]} {self.what[1]!r}"
        if self.action == 0:
            return f"deal {self.deal + 1}, {what}"
        return f"deal {self.deal + 1}, action {self.action} ({what})"


class RecordedAction(NamedTuple):
    """A player action of a replay, as :meth:`Rerun.turns` stops before it."""

    seat: int
    action: str
    deal: int
    """Its deal, counted from 0 (``deals[deal]``)."""
    position: int
    """Its place in the deal's ``actions``, counted from 0 (chance entries count)."""
    action_index: int
    """The player actions of the match before it (chance outcomes not counted): the
    ``action_index`` of the replay's ``faults`` and ``refused``."""
    step: int
    """The replay viewer's step that shows it played: each deal's opening outcome and each
    recorded entry is one step, the first deal is step 0 (the dashboard's numbering)."""
    notes: Mapping[str, JSON]
    """The other keys recorded with it: ``fault``, ``default``, ``forfeit`` (docs/replay-format.md)."""


class Rerun:
    """A replay re-run from its recorded chance outcomes, one turn at a time: :meth:`turns`
    stops before the actions of each turn, with :attr:`state` as the seats were asked.

    A turn is what the match runner asks at once: the seats of ``State.to_act()``, every one
    asked before any answer is applied (simultaneous choices), their answers then applied in
    that order; it is one action for an ordinary turn.  The recorded actions that follow a
    position in ``to_act()`` order form its turn.  :func:`rerun` is a whole :class:`Rerun`.

    ``applied``, if given, is called right after each recorded action is applied, with it
    (:attr:`state` is then the state after it: what the seats are told of it is read there).
    """

    def __init__(self, replay: Mapping[str, Any], applied: Callable[[RecordedAction], None] | None = None) -> None:
        _check_format(replay)
        game = get_game(replay["game"])
        players = int(replay.get("players") or len(replay["seats"]))
        self.replay = replay
        self.applied = applied
        self.state: State = game.new_state(players, replay["options"])
        """The match as re-run so far: read it (``view_json``, ``legal_actions``) between turns,
        never change it; the re-run advances it in place."""

    def turns(self) -> Iterator[tuple[RecordedAction, ...]]:
        """Each turn's recorded actions, before they are applied (iterate once).

        Checks each deal's scores when it ends, then the number of deals and the result.  An
        error of the rules is raised with its type kept and where it happened in front of its
        message (``deal 2, action 17 (seat 1 'play:JH'): JH is not in your hand``)."""
        state, replay = self.state, self.replay
        where = _Where()
        step = acted = 0
        try:
            for number, deal in enumerate(replay["deals"]):
                where.deal, where.action, where.what = number, 0, "opening chance outcome"
                state.apply_chance(opening_outcome(deal))
                entries = deal["actions"]
                index = 0
                while index < len(entries):
                    entry = entries[index]
                    where.action = index + 1
                    if "chance" in entry:
                        where.what = f"chance {_short(entry['chance'])}"
                        state.apply_chance(entry["chance"])
                        index += 1
                        continue
                    if state.is_chance():
                        where.what = (int(entry["seat"]), str(entry["action"]))
                        raise ReplayMismatch(
                            f"{where}: the game waits for a chance outcome here, but the replay records a "
                            "player action: a game must record each chance outcome inside a deal in its deal "
                            "record's actions, as (CHANCE, json.dumps(outcome)), when apply_chance takes it "
                            "(docs/engine.md, Adding a game: Chance)"
                        )
                    seats = state.to_act()
                    if len(seats) == 1:  # an ordinary turn (or an action out of turn, refused when applied)
                        turn: tuple[RecordedAction, ...] = (_recorded(entry, number, index, acted, step + 1 + index),)
                    else:
                        turn = tuple(
                            _recorded(entries[at], number, at, acted + at - index, step + 1 + at)
                            for at in range(index, index + _turn_length(seats, entries, index))
                        )
                    yield turn
                    for played in turn:
                        where.action, where.what = played.position + 1, (played.seat, played.action)
                        state.apply(played.seat, played.action)
                        if self.applied is not None:
                            self.applied(played)
                    index += len(turn)
                    acted += len(turn)
                step += 1 + len(entries)
                _check_deal_scores(state, number, deal)
        except ReplayMismatch:
            raise
        except GameError as exc:
            raise _located(exc, str(where)) from exc
        if len(state.deal_records()) != len(replay["deals"]):
            raise ReplayMismatch(f"{len(replay['deals'])} deals recorded, the engine has {len(state.deal_records())}")
        _check_result(state, replay)


def _turn_length(seats: Sequence[int], entries: Sequence[Mapping[str, Any]], index: int) -> int:
    """How many of the entries from ``index`` on are one turn: the actions of ``seats`` (those
    asked now), in that order (at least one: an action by a seat not asked is applied alone,
    and applying it says why it does not fit)."""
    length = 0
    for seat in seats:
        at = index + length
        if at >= len(entries) or "chance" in entries[at] or int(entries[at]["seat"]) != seat:
            break
        length += 1
    return max(1, length)


_NO_NOTES: Mapping[str, JSON] = MappingProxyType({})


def _recorded(entry: Mapping[str, Any], deal: int, index: int, action_index: int, step: int) -> RecordedAction:
    notes = {str(k): v for k, v in entry.items() if k not in ("seat", "action")} if len(entry) > 2 else _NO_NOTES
    return RecordedAction(int(entry["seat"]), str(entry["action"]), deal, index, action_index, step, notes)


def rerun(replay: Mapping[str, Any]) -> State:
    """Re-run a replay from its recorded chance outcomes; check deal scores and the result.

    An error of the rules while re-running (an illegal action, a chance outcome that does not
    fit) is raised with its type kept and where it happened in front of its message
    (``deal 2, action 17 (seat 1 'play:JH'): JH is not in your hand``).
    """
    run = Rerun(replay)
    for _ in run.turns():
        pass
    return run.state


def rerun_from_seed(replay: Mapping[str, Any]) -> State:
    """Re-run a replay from its seed and its player actions only (chance drawn afresh).

    Checks what :func:`rerun` checks (each deal's scores, the result, nothing after the end),
    and that what the seed deals is what the replay records: each deal's opening outcome (the
    dealer, the hands, the stock ...), the chance outcomes inside a deal, and each deal's
    actions in their places.
    """
    _check_format(replay)
    game = get_game(replay["game"])
    players = int(replay.get("players") or len(replay["seats"]))
    state = game.new_state(players, replay["options"])
    rng = MatchRng(replay["seed"])
    recorded = replay["deals"]
    actions = [
        (number, index, int(e["seat"]), str(e["action"]))
        for number, deal in enumerate(recorded)
        for index, e in enumerate(deal["actions"])
        if "chance" not in e
    ]
    chances = len(recorded) + sum(1 for deal in recorded for e in deal["actions"] if "chance" in e)
    where = _Where()
    position = drawn = 0
    try:
        while not state.is_terminal():
            if state.is_chance():
                if position >= len(actions) and drawn >= chances:
                    break  # an unfinished match, stopped where the record stops
                where.action, where.what = 0, "chance drawn from the seed"
                opened = len(state.deal_records())
                state.apply_chance(state.sample_chance(rng))
                drawn += 1
                if len(state.deal_records()) > opened:
                    _check_opening(state, recorded)
                continue
            if position >= len(actions):
                break
            number, index, seat, action = actions[position]
            where.deal, where.action, where.what = number, index + 1, (seat, action)
            state.apply(seat, action)
            position += 1
    except ReplayMismatch:
        raise
    except GameError as exc:
        raise _located(exc, str(where)) from exc
    if position < len(actions):
        number, index, seat, action = actions[position]
        raise ReplayMismatch(
            f"deal {number + 1}, action {index + 1} (seat {seat} {action!r}): "
            f"{len(actions) - position} action(s) recorded after the end of the match"
        )
    _check_against_record(state, replay)
    _check_result(state, replay)
    return state


def _check_opening(state: State, recorded: Sequence[Mapping[str, Any]]) -> None:
    """The deal the seed just opened is the recorded one (dealer, hands, stock ...)."""
    records = state.deal_records()
    number = len(records) - 1
    if number >= len(recorded):
        raise ReplayMismatch(f"the seed re-run opens deal {number + 1}, the replay records {len(recorded)} deal(s)")
    record = records[number]
    opening = json.loads(json.dumps({**record.chance, "dealer": record.dealer}))
    want = opening_outcome(recorded[number])
    for key in sorted(set(want) | set(opening)):
        if opening.get(key) != want.get(key):
            raise ReplayMismatch(
                f"deal {number + 1}: recorded {key} {_short(want.get(key))} is not what the seed deals "
                f"({_short(opening.get(key))})"
            )


def _check_deal_scores(state: State, number: int, deal: Mapping[str, Any]) -> None:
    records = state.deal_records()
    got = records[number].scores if number < len(records) else None
    if deal.get("scores") is not None and got != deal["scores"]:
        raise ReplayMismatch(f"deal {number + 1}: scores {got} != recorded {deal['scores']}")


def _check_against_record(state: State, replay: Mapping[str, Any]) -> None:
    """The deals a seed re-run produced are the recorded ones: same number of deals, same
    opening outcomes, same chance outcomes and actions in the same places, same scores."""
    recorded = replay["deals"]
    records = state.deal_records()
    if len(records) != len(recorded):
        raise ReplayMismatch(f"{len(recorded)} deals recorded, the seed re-run has {len(records)}")
    for number, (record, deal) in enumerate(zip(records, recorded, strict=True)):
        entries = deal["actions"]
        if len(entries) != len(record.actions):
            raise ReplayMismatch(
                f"deal {number + 1}: {len(entries)} actions recorded, the seed re-run has {len(record.actions)}"
            )
        for index, (entry, (seat, action)) in enumerate(zip(entries, record.actions, strict=True)):
            if seat == CHANCE:
                same = "chance" in entry and entry["chance"] == json.loads(action)
            else:
                same = "chance" not in entry and (int(entry["seat"]), str(entry["action"])) == (seat, action)
            if not same:
                got = f"chance {_short(json.loads(action))}" if seat == CHANCE else f"seat {seat} {action!r}"
                raise ReplayMismatch(
                    f"deal {number + 1}, action {index + 1}: recorded {_short(entry)}, the seed re-run has {got}"
                )
        _check_deal_scores(state, number, deal)


def _check_result(state: State, replay: Mapping[str, Any]) -> None:
    recorded = replay.get("result")
    if recorded is None:
        return
    if not state.is_terminal():
        raise ReplayMismatch("the replay's actions do not finish the match")
    got = state.result().to_json()
    if got["scores"] != recorded["scores"] or got["ranks"] != recorded["ranks"]:
        raise ReplayMismatch(f"result {got} != recorded {recorded}")
    # ``won`` is optional (replays written before it existed lack it): compare when both have it.
    if "won" in got and recorded.get("won") is not None and got["won"] != recorded["won"]:
        raise ReplayMismatch(f"result won {got['won']} != recorded {recorded['won']}")


FAULT_SHORT = {
    "timeout": "time-out",
    "disconnect": "disconnected",
    "illegal": "illegal answers",
    "error": "handed back (error)",
    "resign": "resigned",
    "forfeited": "seat forfeited",
}
"""An action's ``fault`` annotation in a few words (the replay viewer, ``cardarena replay``)."""


def annotation_text(annotations: Mapping[str, Any]) -> str:
    """A replay action's annotations (``fault``, ``default``, ``forfeit``) as a reader sees
    them: ``default action: time-out``, ``... · forfeits the seat``; other keys as ``k=v``."""
    parts = []
    fault = annotations.get("fault")
    if fault is not None:
        what = FAULT_SHORT.get(str(fault), str(fault))
        parts.append(f"default action: {what}" if annotations.get("default") else what)
    elif annotations.get("default"):
        parts.append("default action")
    if annotations.get("forfeit"):
        parts.append("forfeits the seat")
    parts += [f"{k}={v}" for k, v in annotations.items() if k not in ("fault", "default", "forfeit")]
    return " · ".join(parts)
