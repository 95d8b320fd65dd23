"""Knaves: rules audit against the seed (seed 002) and the rulings.

The deal, scoring and the target are also covered in ``test_glaves_family.py``.
"""

from __future__ import annotations

import pytest
from cardarena.engine import MatchRng, State, get_game, play_match, random_policy
from cardarena.engine.cards import CODES

from .conftest import drawn_deal

PENALTY = {"JH": 4, "JD": 3, "JC": 2, "JS": 1}


def random_match(seed: int, **options: int) -> State:
    bots = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(3)]
    return play_match("knaves", 3, bots, seed=seed, options=options or None)


def test_deal_one_at_a_time_then_the_40th_card_turned_and_12_unused() -> None:
    """Seed: "The first dealer is chosen at random ... each player will receive a hand of 13
    cards. cards are dealt clockwise one card at a time.  The next card is revealed to determine
    the trump suit."  Rulings: "the 40th card is turned for trump, the last 12 are unused"."""
    for seed in range(5):
        dealer, deck = drawn_deal(seed, 3)
        state = get_game("knaves").new_state(3)
        outcome = state.sample_chance(MatchRng(seed))
        assert outcome["dealer"] == dealer
        for i in range(39):
            assert CODES[deck[i]] in outcome["hands"][(dealer + 1 + i) % 3]
        assert outcome["trump_card"] == CODES[deck[39]]
        assert outcome["unused"] == [CODES[c] for c in deck[40:]]
        state.apply_chance(outcome)
        assert state.to_act() == ((dealer + 1) % 3,)  # "The game starts with the player left of the dealer."
        view = state.view(None)
        assert (view.trump_card, view.trump_suit, view.stock_size, view.stock_face_up) == (
            CODES[deck[39]],
            CODES[deck[39]][1],
            0,
            None,
        )
        for seat in (None, 0, 1, 2):
            assert set(outcome["unused"]) <= state.secrets(seat)
            assert outcome["trump_card"] not in state.secrets(seat)  # revealed to everyone


def test_all_four_jacks_is_no_moon() -> None:
    """Rulings: "+1 per trick, the same jack penalties as Glaves, no shooting the moon"; seed:
    "A player's score can be negative."  A player who takes all four jacks scores tricks - 10."""
    for seed in range(400):
        state = random_match(seed, deals=1)
        view = state.view(None)
        for seat in range(3):
            if len(view.jacks_taken[seat]) == 4:
                scores = state.deal_records()[0].scores
                assert scores is not None
                assert scores[seat] == view.tricks_taken[seat] - 10
                assert sum(scores) == 3
                return
    pytest.fail("no hand with all four jacks in one player's tricks in 400 seeds")


def test_equal_highest_totals_share_the_win() -> None:
    """Seed: "The game ends when a player reaches 20 or more points. This player is the winner."
    Rulings: "First to 20 or more at the end of a hand; if several, the highest; equal highest
    share the win."  (target=1: the first hand decides.)"""
    for seed in range(300):
        state = random_match(seed, target=1)
        scores = state.result().scores
        best = max(scores)
        if scores.count(best) > 1:
            assert all((r == 1) == (s == best) for r, s in zip(state.result().ranks, scores, strict=True))
            return
    pytest.fail("no tie for first in 300 seeds")


def test_dealer_passes_to_the_left() -> None:
    """Seed: "The first dealer is chosen at random and passes to the left for each new round."."""
    state = random_match(2)
    dealers = [r.dealer for r in state.deal_records()]
    assert len(dealers) > 3
    assert dealers == [(dealers[0] + k) % 3 for k in range(len(dealers))]
