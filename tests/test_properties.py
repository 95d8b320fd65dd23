"""Property-based tests (hypothesis) of the rules core."""

from __future__ import annotations

import json

from cardarena.engine import MatchRng, build_replay, get_game, play_match, random_policy, rerun
from cardarena.engine.cards import CODES, codes_of, mask_of
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import game_seatings

SEATINGS = list(game_seatings())


@given(st.sets(st.sampled_from(CODES)))
def test_card_mask_round_trip(cards: set[str]) -> None:
    assert set(codes_of(mask_of(cards))) == cards
    assert len(codes_of(mask_of(cards))) == len(cards)


@given(st.integers(min_value=0, max_value=2**64), st.integers(min_value=1, max_value=60))
def test_shuffle_is_a_permutation_and_reproducible(seed: int, n: int) -> None:
    a, b = list(range(n)), list(range(n))
    MatchRng(seed).shuffle(a)
    MatchRng(seed).shuffle(b)
    assert a == b and sorted(a) == list(range(n))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SEATINGS), st.integers(min_value=0, max_value=2**32), st.integers(0, 2**16))
def test_any_match_replays_and_keeps_invariants(seating: tuple[str, int], seed: int, bot_seed: int) -> None:
    game_id, players = seating
    bots = [random_policy(MatchRng(bot_seed + s)) for s in range(players)]
    state = play_match(
        game_id,
        players,
        bots,
        seed=seed,
        options={"deals": 1} if "deals" in get_game(game_id).option_defaults(players) else None,
    )
    assert not state.invariants()
    replay = json.loads(json.dumps(build_replay(state, seed=seed, seats=["a"] * players)))
    assert rerun(replay).result() == state.result()


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.sampled_from([2, 3, 4]))
def test_glaves_hand_sum_rule(seed: int, players: int) -> None:
    bots = [random_policy(MatchRng(seed + s + 1)) for s in range(players)]
    state = play_match("glaves", players, bots, seed=seed, options={"deals": 1})
    record = state.deal_records()[0]
    penalty = {"JH": 4, "JD": 3, "JC": 2, "JS": 1}
    extra = penalty.get(record.chance["trump_card"], 0) if players == 3 else 0
    assert record.scores is not None
    assert sum(record.scores) == {2: 16, 3: 7, 4: 3}[players] + extra
