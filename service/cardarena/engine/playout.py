"""Playing a whole match locally: a driver loop and the built-in random policy.

A *policy* is any callable ``(state_view, legal_actions, seat) -> action``.  The driver asks
each seat in :meth:`State.to_act` in turn and draws chance outcomes from the match RNG, so
a local match is a pure function of its seed and the policies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .core import JSON, State
from .registry import get_game
from .rng import MatchRng

Policy = Callable[[Any, Sequence[str], int], str]
"""Chooses an action from a seat's view and its legal actions."""


def random_policy(rng: MatchRng) -> Policy:
    """A policy that picks uniformly among the legal actions with its own RNG."""

    def choose(view: Any, legal: Sequence[str], seat: int) -> str:
        return legal[rng.below(len(legal))]

    return choose


def play_match(
    game_id: str,
    players: int,
    policies: Sequence[Policy],
    *,
    seed: int | str,
    options: Mapping[str, JSON] | None = None,
) -> State:
    """Play one match to its end and return the final state."""
    game = get_game(game_id)
    state = game.new_state(players, options)
    if len(policies) != players:
        raise ValueError(f"need {players} policies, got {len(policies)}")
    rng = MatchRng(seed)
    while True:
        seats = state.to_act()
        if not seats:
            return state
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        for seat in seats:
            legal = state.legal_actions(seat)
            state.apply(seat, policies[seat](state.view(seat), legal, seat))
