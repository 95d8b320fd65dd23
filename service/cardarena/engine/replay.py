"""Replays: the JSON record of a match (``cardarena-replay/1``) and re-running it.

A replay holds every chance outcome, so :func:`rerun` reproduces the match from the replay
alone; :func:`rerun_from_seed` reproduces it from the seed and the players' actions only.
The format is documented in ``docs/replay-format.md``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .core import CHANCE, JSON, GameError, State
from .registry import get_game
from .rng import MatchRng

FORMAT = "cardarena-replay/1"
"""The value of the ``format`` field."""


class ReplayMismatch(GameError):
    """A replay whose recorded scores or result the engine does not reproduce."""


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


def rerun(replay: Mapping[str, Any]) -> State:
    """Re-run a replay from its recorded chance outcomes; check deal scores and the result."""
    _check_format(replay)
    game = get_game(replay["game"])
    players = int(replay.get("players") or len(replay["seats"]))
    state = game.new_state(players, replay["options"])
    for number, deal in enumerate(replay["deals"]):
        chance = {k: v for k, v in deal.items() if k not in ("actions", "scores")}
        state.apply_chance(chance)
        for entry in deal["actions"]:
            if "chance" in entry:
                state.apply_chance(entry["chance"])
            else:
                state.apply(int(entry["seat"]), str(entry["action"]))
        record = state.deal_records()[number]
        if deal.get("scores") is not None and record.scores != deal["scores"]:
            raise ReplayMismatch(f"deal {number}: scores {record.scores} != recorded {deal['scores']}")
    _check_result(state, replay)
    return state


def rerun_from_seed(replay: Mapping[str, Any]) -> State:
    """Re-run a replay from its seed and its player actions only (chance drawn afresh)."""
    _check_format(replay)
    game = get_game(replay["game"])
    players = int(replay.get("players") or len(replay["seats"]))
    state = game.new_state(players, replay["options"])
    rng = MatchRng(replay["seed"])
    actions = [
        (int(e["seat"]), str(e["action"])) for deal in replay["deals"] for e in deal["actions"] if "chance" not in e
    ]
    position = 0
    while not state.is_terminal():
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        if position >= len(actions):
            break
        seat, action = actions[position]
        state.apply(seat, action)
        position += 1
    _check_result(state, replay)
    return state


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
