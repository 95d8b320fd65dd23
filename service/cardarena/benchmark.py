"""Benchmarks (never timed tests): the engine's cost per player action.

``cardarena bench engine`` plays random matches of every registered game through the public
API (``to_act``, ``legal_actions``, ``view`` and ``apply`` for every player action; chance
outcomes sampled and applied) and reports microseconds per player action: dealing counts in
the time, not in the count.  When ``open_spiel`` is installed (the ``bench`` extra) the same
run measures pyspiel's ``hearts`` driven from a Python loop as the reference, twice: without
any per-player view (``pyspiel:hearts``, less work than our loop does) and with the acting
player's view (``pyspiel:hearts+view``: ``information_state_string``, like for like).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass

from .engine import MatchRng, games, get_game


@dataclass(frozen=True)
class EngineFigure:
    """One measured line of the engine benchmark."""

    game: str
    players: int
    us_per_action: float
    actions: int
    repeats: int
    spread: float

    def to_json(self) -> dict[str, object]:
        """The JSON line printed by ``--json``."""
        return {
            "game": self.game,
            "players": self.players,
            "us_per_action": round(self.us_per_action, 3),
            "actions": self.actions,
            "repeats": self.repeats,
            "spread": round(self.spread, 3),
        }


def _run_ours(game_id: str, players: int, seed: int, min_actions: int) -> tuple[float, int]:
    game = get_game(game_id)
    rng = MatchRng(seed)
    pick = random.Random(seed + 1).random
    actions = 0
    clock = time.process_time  # CPU time: robust to other load on a shared machine
    start = clock()
    while actions < min_actions:
        state = game.new_state(players)
        to_act = state.to_act
        legal_actions = state.legal_actions
        view = state.view
        apply = state.apply
        while True:
            seats = to_act()
            if not seats:
                break
            if seats[0] < 0:
                state.apply_chance(state.sample_chance(rng))
                continue
            for seat in seats:
                legal = legal_actions(seat)
                view(seat)
                apply(seat, legal[int(pick() * len(legal))])
                actions += 1
    return clock() - start, actions


def _run_pyspiel(seed: int, min_actions: int, *, view: bool = False) -> tuple[float, int]:
    """pyspiel's hearts from the same loop; ``view``: also build the acting player's view
    (``information_state_string``, the only per-player observation hearts implements)."""
    import pyspiel

    game = pyspiel.load_game("hearts")
    pick = random.Random(seed + 1).random
    actions = 0
    clock = time.process_time  # CPU time: robust to other load on a shared machine
    start = clock()
    while actions < min_actions:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.current_player()
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(pick() * len(outcomes))][0])
                continue
            legal = state.legal_actions()
            if view:
                state.information_state_string(state.current_player())
            state.apply_action(legal[int(pick() * len(legal))])
            actions += 1
    return clock() - start, actions


def _figure(game: str, players: int, runs: list[tuple[float, int]]) -> EngineFigure:
    per = [1e6 * t / n for t, n in runs]
    return EngineFigure(
        game=game,
        players=players,
        us_per_action=statistics.median(per),
        actions=sum(n for _, n in runs),
        repeats=len(runs),
        spread=max(per) - min(per),
    )


def pyspiel_available() -> bool:
    """Whether the reference (``open_spiel``) is installed."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def engine_benchmark(*, repeats: int = 5, min_actions: int = 20000, only: str | None = None) -> Iterator[EngineFigure]:
    """Yield one figure per (game, player count) and, if installed, the pyspiel reference.

    Runs are interleaved (ours, reference, ours, ...) so that machine noise hits both alike;
    each figure is the median over ``repeats``.  ``only``: one game id (an unknown id raises
    :class:`~cardarena.engine.InvalidOptions`).
    """
    if only is not None:
        get_game(only)  # an unknown id raises InvalidOptions naming the known ones
    plan = [(g.id, n) for g in games().values() if only is None or g.id == only for n in g.player_counts]
    reference = pyspiel_available()
    results: dict[tuple[str, int], list[tuple[float, int]]] = {key: [] for key in plan}
    ref_runs: list[tuple[float, int]] = []
    ref_view_runs: list[tuple[float, int]] = []
    for r in range(repeats):
        for key in plan:
            results[key].append(_run_ours(key[0], key[1], 1000 + r, min_actions))
        if reference:
            ref_runs.append(_run_pyspiel(1000 + r, min_actions))
            ref_view_runs.append(_run_pyspiel(1000 + r, min_actions, view=True))
    for key in plan:
        yield _figure(key[0], key[1], results[key])
    if reference:
        yield _figure("pyspiel:hearts", 4, ref_runs)
        yield _figure("pyspiel:hearts+view", 4, ref_view_runs)
