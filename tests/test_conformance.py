"""One conformance suite for every registered game: random playouts over many seeds.

Checks after every transition: the right seats act, illegal input is rejected with a reason
and changes nothing, the game's invariants hold (cards conserved ...), views hide the
seat's secrets; at the end: the match terminates with a consistent result, and the replay
reproduces the match both from its recorded chance outcomes and from its seed.
"""

from __future__ import annotations

import json

import pytest
from cardarena.engine import (
    CHANCE,
    IllegalAction,
    MatchRng,
    NotYourTurn,
    State,
    build_replay,
    get_game,
    rerun,
    rerun_from_seed,
)

from .conftest import game_seatings

SEATINGS = list(game_seatings())
SEEDS = range(12)
MAX_STEPS = 20000


def check_rejections(state: State, rng: MatchRng) -> None:
    seats = state.to_act()
    before = json.dumps(state.view_json(None), sort_keys=True)
    for seat in range(state.players):
        if seat in seats:
            with pytest.raises(IllegalAction) as info:
                state.apply(seat, "no-such-action:XX")
            assert info.value.reason
        else:
            assert state.legal_actions(seat) == ()
            legal_elsewhere = state.legal_actions(seats[0]) if seats and seats[0] >= 0 else ()
            action = legal_elsewhere[0] if legal_elsewhere else "pass"
            with pytest.raises(NotYourTurn) as info:
                state.apply(seat, action)
            assert info.value.reason
    assert json.dumps(state.view_json(None), sort_keys=True) == before


def check_views(state: State) -> None:
    for seat in [None, *range(state.players)]:
        text = json.dumps(state.view_json(seat))
        secrets = state.secrets(seat)
        leaked = sorted(s for s in secrets if f'"{s}"' in text)
        assert not leaked, f"seat {seat} sees {leaked}"


def playout(game_id: str, players: int, seed: int) -> State:
    game = get_game(game_id)
    state = game.new_state(players)
    rng = MatchRng(seed)
    picker = MatchRng(f"pick/{seed}")
    steps = 0
    while not state.is_terminal():
        steps += 1
        assert steps < MAX_STEPS, "the match does not terminate"
        seats = state.to_act()
        assert seats, "nobody to act in a live match"
        if seats == (CHANCE,):
            state.apply_chance(state.sample_chance(rng))
        else:
            assert all(0 <= s < players for s in seats)
            if steps % 7 == 1:
                check_rejections(state, picker)
                check_views(state)
            for seat in seats:
                legal = state.legal_actions(seat)
                assert legal, f"seat {seat} is asked to act but has no legal action"
                assert len(set(legal)) == len(legal)
                for action in legal[:3]:
                    info = game.describe(action)
                    assert info.id == action and info.kind and info.label
                state.apply(seat, picker.choice(legal))
        problems = state.invariants()
        assert not problems, problems
    return state


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_random_playouts(game_id: str, players: int) -> None:
    for seed in SEEDS:
        state = playout(game_id, players, seed)
        result = state.result()
        assert len(result.scores) == len(result.ranks) == players
        assert min(result.ranks) == 1
        for a in range(players):
            for b in range(players):
                if result.scores[a] == result.scores[b]:
                    assert result.ranks[a] == result.ranks[b]
        replay = build_replay(state, seed=seed, seats=[f"bot-{i}" for i in range(players)])
        replay = json.loads(json.dumps(replay))
        again = rerun(replay)
        assert again.view_json(None) == state.view_json(None)
        from_seed = rerun_from_seed(replay)
        assert from_seed.result() == state.result()
        assert build_replay(from_seed, seed=seed, seats=replay["seats"]) == replay


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_options_are_validated(game_id: str, players: int) -> None:
    game = get_game(game_id)
    with pytest.raises(ValueError, match="unknown option"):
        game.new_state(players, {"no_such_option": 1})
    with pytest.raises(ValueError, match="players"):
        game.new_state(game.max_players + 1)


def test_registry_ids_are_snake_case() -> None:
    from cardarena.engine import games

    for game_id, game in games().items():
        assert game_id == game.id
        assert game_id.replace("_", "").isalpha() and game_id.islower()
        assert game.summary
