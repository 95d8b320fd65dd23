"""Playing a whole match locally: a driver loop and the built-in random policy.

A *policy* is any callable ``(state_view, legal_actions, seat) -> action``.  The driver asks
each seat in :meth:`State.to_act` in turn and draws chance outcomes from the match RNG, so
a local match is a pure function of its seed and the policies.  A match still going after
``max_actions`` player actions (the platform's :data:`~.core.MAX_ACTIONS` unless told) raises
:class:`ActionLimitReached`, as the service stops it there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .core import JSON, MAX_ACTIONS, State
from .registry import get_game
from .rng import MatchRng

Policy = Callable[[Any, Sequence[str], int], str]
"""Chooses an action from a seat's view and its legal actions."""


class ActionLimitReached(Exception):
    """A match played locally did not end within its action limit (a game that loops under
    these policies: ``cardarena conformance`` finds such loops); ``state`` is where it stopped."""

    def __init__(self, message: str, state: State) -> None:
        super().__init__(message)
        self.state = state


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
    max_actions: int = MAX_ACTIONS,
) -> State:
    """Play one match to its end and return the final state; :class:`ActionLimitReached` if it
    has not ended after ``max_actions`` player actions."""
    game = get_game(game_id)
    state = game.new_state(players, options)
    if len(policies) != players:
        raise ValueError(f"need {players} policies, got {len(policies)}")
    rng = MatchRng(seed)
    actions = 0
    while True:
        seats = state.to_act()
        if not seats:
            return state
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        if actions >= max_actions:
            raise ActionLimitReached(
                f"{game.name}: the match (seed {seed!r}) has not ended after {max_actions} actions", state
            )
        for seat in seats:
            legal = state.legal_actions(seat)
            state.apply(seat, policies[seat](state.view(seat), legal, seat))
            actions += 1
