"""``Result.won``: JSON form, set by the solitaires, carried by replays and checked on re-run."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from cardarena.engine import CHANCE, MatchRng, ReplayMismatch, Result, build_replay, games, rerun, rerun_from_seed

SOLITAIRES = sorted(gid for gid, game in games().items() if game.solitaire)
MULTI = sorted(gid for gid, game in games().items() if not game.solitaire)


def play(game_id: str, seed: int) -> tuple[Any, dict[str, Any]]:
    """A random playout of ``game_id`` at its smallest player count: ``(state, replay)``."""
    game = games()[game_id]
    players = game.player_counts[0]
    state = game.new_state(players)
    rng, picker = MatchRng(seed), MatchRng(f"{seed}/picker")
    while not state.is_terminal():
        seats = state.to_act()
        if seats == (CHANCE,):
            state.apply_chance(state.sample_chance(rng))
            continue
        for seat in seats:
            state.apply(seat, picker.choice(state.legal_actions(seat)))
    return state, build_replay(state, seed=seed, seats=[f"random-{s + 1}" for s in range(players)])


def test_to_json_leaves_won_out_unless_set() -> None:
    assert Result((3.0, 1.0), (1, 2)).to_json() == {"scores": [3.0, 1.0], "ranks": [1, 2]}
    assert Result((3.0,), (1,), won=(True,)).to_json() == {"scores": [3.0], "ranks": [1], "won": [True]}
    assert Result((0.0,), (1,), won=(False,)).to_json()["won"] == [False]


def test_solitaires_are_registered() -> None:
    assert len(SOLITAIRES) >= 3


@pytest.mark.parametrize("game_id", SOLITAIRES)
def test_solitaire_result_says_won_like_the_view(game_id: str) -> None:
    outcomes = set()
    for seed in range(12):
        state, replay = play(game_id, seed)
        result = state.result()
        assert result.won is not None and len(result.won) == 1
        assert result.won[0] == (state.view_json(0)["outcome"] == "won")
        assert replay["result"]["won"] == list(result.won)
        assert rerun(replay).result() == result
        assert rerun_from_seed(replay).result() == result
        outcomes.add(result.won[0])
    assert False in outcomes  # random play loses at least once in twelve seeds


@pytest.mark.parametrize("game_id", SOLITAIRES)
def test_rerun_checks_won_when_recorded(game_id: str) -> None:
    _, replay = play(game_id, 7)
    tampered = copy.deepcopy(replay)
    tampered["result"]["won"] = [not replay["result"]["won"][0]]
    with pytest.raises(ReplayMismatch, match="won"):
        rerun(tampered)
    with pytest.raises(ReplayMismatch, match="won"):
        rerun_from_seed(tampered)
    # A replay written before ``won`` existed still re-runs.
    old = copy.deepcopy(replay)
    del old["result"]["won"]
    rerun(old)
    rerun_from_seed(old)


@pytest.mark.parametrize("game_id", MULTI[:3])
def test_multiplayer_results_do_not_set_won(game_id: str) -> None:
    state, replay = play(game_id, 3)
    assert state.result().won is None
    assert "won" not in replay["result"]
    rerun(replay)
