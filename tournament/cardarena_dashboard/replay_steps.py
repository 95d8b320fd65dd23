"""Stepping through a recorded match with the engine, for the replay viewer.

A replay (``cardarena-replay/1``) is re-run one transition at a time: create the state, apply
each deal's opening chance outcome, then every action (and inline chance outcome) in order.
Step ``0`` is the state after the first deal's opening outcome; step ``n`` follows the
``n``-th recorded entry.  At each step the viewer renders ``state.view_json(seat)``.

Hidden cards: :func:`viewer_seats` decides which points of view a replay may be shown from.
Only a **finished** match (stored status ``done`` and a recorded result) may be shown from a
seat's point of view or with every card open; anything else is shown as a spectator only.
Nothing here does IO.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cardarena.engine import FORMAT, GameError, State, get_game

OPEN = "all"
"""The point of view that shows every seat's private view (finished matches only)."""


class ReplayError(ValueError):
    """A stored replay the engine cannot step through (unknown game, corrupt record)."""


@dataclass(frozen=True)
class Step:
    """One position of a replay."""

    index: int
    """0 for the position after the first deal; n after the n-th recorded entry."""
    deal: int
    """Deal number (0-based) this step belongs to."""
    seat: int | None
    """The seat that acted to reach this step (``None`` for a chance outcome / the deal)."""
    action: str | None
    """The action id that led here (``None`` for the deal itself)."""
    annotations: dict[str, Any]
    """Extra keys the service stored with the action (faults, defaults)."""


def transitions(replay: Mapping[str, Any]) -> list[Step]:
    """Every transition of a replay in order; step ``i`` is the position after ``transitions[i]``."""
    out: list[Step] = []
    deals = replay.get("deals")
    if not isinstance(deals, list):
        raise ReplayError("the replay has no list of deals")
    for number, deal in enumerate(deals):
        if not isinstance(deal, Mapping) or not isinstance(deal.get("actions", []), list):
            raise ReplayError(f"deal {number} is not a deal object")
        out.append(Step(len(out), number, None, None, {}))
        for entry in deal.get("actions") or []:
            if not isinstance(entry, Mapping):
                raise ReplayError(f"deal {number}: an action is not an object")
            if "chance" in entry:
                out.append(Step(len(out), number, None, None, {}))
                continue
            try:
                seat, action = int(entry["seat"]), str(entry["action"])
            except (KeyError, TypeError, ValueError) as exc:
                raise ReplayError(f"deal {number}: malformed action {dict(entry)!r}") from exc
            extra = {str(k): v for k, v in entry.items() if k not in ("seat", "action")}
            out.append(Step(len(out), number, seat, action, extra))
    if not out:
        raise ReplayError("the replay has no deals")
    return out


def state_at(replay: Mapping[str, Any], index: int) -> tuple[State, Step, int]:
    """The state after step ``index`` (clamped into range), that step, and the last step index."""
    if replay.get("format") != FORMAT:
        raise ReplayError(f"not a {FORMAT} replay")
    steps = transitions(replay)
    last = len(steps) - 1
    index = max(0, min(index, last))
    try:
        game = get_game(str(replay["game"]))
        players = int(replay.get("players") or len(replay["seats"]))
        state = game.new_state(players, replay.get("options") or {})
    except (GameError, KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"cannot start the replay: {exc}") from exc
    deals = replay["deals"]
    position = 0
    try:
        for number, deal in enumerate(deals):
            state.apply_chance({k: v for k, v in deal.items() if k not in ("actions", "scores")})
            if position >= index and number == 0:
                return state, steps[index], last
            for entry in deal.get("actions") or []:
                if position >= index:
                    return state, steps[index], last
                position += 1
                if "chance" in entry:
                    state.apply_chance(entry["chance"])
                else:
                    state.apply(int(entry["seat"]), str(entry["action"]))
            if position >= index:
                return state, steps[index], last
            position += 1
    except (GameError, KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"the replay does not re-run at step {position}: {exc}") from exc
    return state, steps[index], last


def is_finished(status: str | None, replay: Mapping[str, Any] | None) -> bool:
    """Whether a match may be shown with hidden cards: stored as done with a recorded result."""
    return status == "done" and replay is not None and replay.get("result") is not None


def viewer_seats(players: int, finished: bool) -> list[str]:
    """Points of view allowed: ``spectator`` always; seats and :data:`OPEN` only when finished."""
    if not finished:
        return ["spectator"]
    return ["spectator", *(str(s) for s in range(players)), OPEN]


def views(state: State, pov: str, finished: bool) -> list[tuple[str, dict[str, Any]]]:
    """The view JSONs to render for a point of view: ``[(title, view), ...]``.

    ``spectator`` (and anything for an unfinished match): the public view only. A seat: that
    seat's view. :data:`OPEN`: the public view, then each seat's private view.
    """
    if not finished or pov == "spectator":
        return [("Spectator", state.view_json(None))]
    if pov == OPEN:
        table = state.view_json(None)
        out = [("Table", table)]
        for s in range(state.players):
            own = state.view_json(s)
            private = {k: v for k, v in own.items() if k != "seat" and table.get(k) != v}
            out.append((f"Seat {s} also sees", private))
        return out
    seat = int(pov)
    return [(f"Seat {seat}", state.view_json(seat))]
