"""Ricochet Poker: partial-hand ranking, stop-when-no-longer-lowest dealing, split pots, chips."""

from __future__ import annotations

import importlib.util
import json
import random
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cardarena.engine import (
    CHANCE,
    IllegalAction,
    InvalidChance,
    InvalidOptions,
    MatchRng,
    NotYourTurn,
    UnknownAction,
    build_replay,
    get_game,
    play_match,
    random_policy,
    rerun,
)
from cardarena.engine.cards import CODES
from cardarena.games.ricochet_poker import PokerState, act_key, describe_hand, hand_key
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]


def key(*codes: str) -> Any:
    return describe_hand(codes)


def new_match(players: int, **options: Any) -> PokerState:
    state = get_game("ricochet_poker").new_state(players, options or None)
    assert isinstance(state, PokerState)
    return state


def deal(state: PokerState, top: Sequence[str], dealer: int | None = None) -> None:
    """Deal a deck whose first cards are ``top`` (first cards go to the dealer's left, in turn)."""
    if dealer is None:
        dealer = state.players - 1 if state._dealer < 0 else (state._dealer + 1) % state.players
    rest = [c for c in CODES if c not in top]
    state.apply_chance({"dealer": dealer, "deck": [*top, *rest]})


def seat(state: PokerState, s: int) -> dict[str, Any]:
    data: dict[str, Any] = state.view_json(None)["seats"][s]
    return data


# ----------------------------------------------------------------- hand ranking
def test_kicker_beats_no_kicker() -> None:
    assert key("KC", "3D") > key("KH")
    assert key("KC", "8D") > key("KH", "3S")
    assert key("KC", "KD", "2S") > key("KH", "KS")
    assert key("AC") > key("KC", "QD", "JH", "9S")  # high card: the ace decides first
    assert key("5C", "5D", "9S", "9H", "2C") > key("5H", "5S", "9C", "9D")


def test_categories_in_order() -> None:
    ladder = [
        key("AC", "KD", "QH", "JS", "9C"),  # high card
        key("2C", "2D"),  # pair
        key("2C", "2D", "3H", "3S"),  # two pair
        key("2C", "2D", "2H"),  # three of a kind
        key("AC", "2D", "3H", "4S", "5C"),  # the wheel, lowest straight
        key("6C", "2D", "3H", "4S", "5C"),  # six-high straight
        key("AC", "KD", "QH", "JS", "TC"),  # broadway
        key("2C", "4C", "6C", "8C", "TC"),  # flush
        key("2C", "2D", "2H", "3S", "3C"),  # full house
        key("2C", "2D", "2H", "2S"),  # four of a kind
        key("AC", "2C", "3C", "4C", "5C"),  # steel wheel
        key("AH", "KH", "QH", "JH", "TH"),  # royal flush
    ]
    assert ladder == sorted(ladder)
    assert len(set(ladder)) == len(ladder)


def test_no_straight_or_flush_under_five_cards() -> None:
    assert key("2C", "3C", "4C", "5C")[0] == 0
    assert key("AC", "KC", "QC", "JC") < key("2D", "2H")


def test_suits_break_ties_only_for_acting() -> None:
    assert hand_key([CODES.index("KS")]) == hand_key([CODES.index("KC")])
    order = [act_key([CODES.index(c)]) for c in ("KC", "KD", "KH", "KS")]
    assert order == sorted(order)
    a = [CODES.index(c) for c in ("9S", "9C", "4D")]
    b = [CODES.index(c) for c in ("9H", "9D", "4S")]
    assert hand_key(a) == hand_key(b)
    assert act_key(a) > act_key(b)  # the spade on the pair decides


# ------------------------------------------------------------------- the deal
def test_deal_antes_and_lowest_acts() -> None:
    state = new_match(4)
    deal(state, ["9C", "3D", "KH", "AS"])
    view = state.view_json(None)
    assert view["pot"] == 4
    assert [s["chips"] for s in view["seats"]] == [19] * 4
    assert [s["hand"] for s in view["seats"]] == [["9C"], ["3D"], ["KH"], ["AS"]]
    assert state.to_act() == (1,)
    assert view["to_act"] == 1
    assert "AD" in state.secrets(0)


def test_deal_order_from_dealers_left() -> None:
    state = new_match(3)
    deal(state, ["9C", "3D", "KH"], dealer=0)
    assert [seat(state, s)["hand"] for s in range(3)] == [["KH"], ["9C"], ["3D"]]


def test_suits_decide_who_acts_first() -> None:
    state = new_match(3)
    deal(state, ["7S", "7C", "9H"])
    assert state.to_act() == (1,)  # 7C and 7S tie as hands; the club is lowest


def test_bad_deck_rejected() -> None:
    state = new_match(3)
    outcome = state.sample_chance(MatchRng(2))
    bad = json.loads(json.dumps(outcome))
    bad["deck"][0] = bad["deck"][1]
    with pytest.raises(InvalidChance):
        state.apply_chance(bad)
    with pytest.raises(InvalidChance):
        state.apply_chance({"dealer": outcome["dealer"], "deck": outcome["deck"][:51]})
    state.apply_chance(outcome)
    while not state.is_chance():
        state.apply(state.to_act()[0], "fold")
    # The deal passes left: any other dealer is a corrupt outcome.
    wrong = (int(outcome["dealer"]) + 2) % 3
    with pytest.raises(InvalidChance):
        state.apply_chance({"dealer": wrong, "deck": outcome["deck"]})
    with pytest.raises(IllegalAction):
        state.apply(0, "fold")


# -------------------------------------------------- stop when no longer lowest
def test_deal_stops_when_no_longer_lowest() -> None:
    state = new_match(3)
    # Seat 1 (3D) is lowest and buys 3.  5C gives 5-3, still below 9C; 9H gives 9-5-3, which
    # beats the single 9C (a kicker beats none), so the deal stops after two cards.
    deal(state, ["9C", "3D", "KH", "5C", "9H", "AS"])
    assert state.to_act() == (1,)
    state.apply(1, "buy:3")
    s1 = seat(state, 1)
    assert s1["hand"] == ["3D", "5C", "9H"]
    assert s1["chips"] == 19 - 3  # paid for three, received two
    assert s1["status"] == "in"
    assert state.view_json(None)["pot"] == 6
    assert state.view_json(None)["last_action"] == {
        "seat": 1,
        "action": "buy:3",
        "received": ["5C", "9H"],
        "outcome": "in",
    }
    assert state.view_json(None)["deck_size"] == 52 - 5
    # The next lowest is seat 0 (9C alone).
    assert state.to_act() == (0,)


def test_buyer_still_lowest_is_out() -> None:
    state = new_match(3)
    deal(state, ["9C", "3D", "KH", "4C", "2S"])
    state.apply(1, "buy:2")  # 3-4-2 ... still below 9C
    s1 = seat(state, 1)
    assert s1["hand"] == ["3D", "4C", "2S"]
    assert s1["status"] == "out"
    assert state.view_json(None)["last_action"]["outcome"] == "out"
    assert state.to_act() == (0,)


def test_suit_order_picks_the_buyer_and_the_next_actor() -> None:
    # KS, KC, AH: KC acts (lowest by suit); one card (2D) makes K-2, which beats KS alone.
    state = new_match(3)
    deal(state, ["KS", "KC", "AH", "2D"])
    assert state.to_act() == (1,)
    state.apply(1, "buy:3")
    assert seat(state, 1)["hand"] == ["KC", "2D"]
    assert seat(state, 1)["chips"] == 16
    assert state.to_act() == (0,)


def test_equal_hand_higher_suit_escapes() -> None:
    # 9S, 2C, AS.  Seat 1 buys 1, gets 9D: 9-2 beats 9 alone.  Seat 0 buys 1, gets 2D: 9S-2D
    # equals 9D-2C ignoring suits, but the spade nine beats the diamond nine: seat 0 escapes.
    state = new_match(3)
    deal(state, ["9S", "2C", "AS", "9D", "2D", "2H"])
    state.apply(1, "buy:1")
    assert state.to_act() == (0,)
    state.apply(0, "buy:1")
    assert seat(state, 0)["status"] == "in"
    assert state.to_act() == (1,)  # 9D-2C is now the lowest by suit
    state.apply(1, "buy:1")  # 2H: a pair of twos
    assert seat(state, 1)["hand"] == ["2C", "9D", "2H"]
    assert state.to_act() == (0,)


def test_equal_hand_lower_suit_is_out() -> None:
    # 9C, 2S, AS.  Seat 1 buys 1, gets 9D: 9-2 beats 9C.  Seat 0 buys 1, gets 2H: 9C-2H
    # equals 9D-2S ignoring suits, and the club nine is lower: still lowest, so out.
    state = new_match(3)
    deal(state, ["9C", "2S", "AS", "9D", "2H"])
    state.apply(1, "buy:1")
    assert state.to_act() == (0,)
    state.apply(0, "buy:1")
    assert seat(state, 0)["status"] == "out"
    assert state.to_act() == (1,)  # AS against 9-2: seat 1 is lowest


# ------------------------------------------------------------ end and the pot
def test_last_player_in_takes_the_pot() -> None:
    state = new_match(3)
    deal(state, ["9C", "3D", "KH"])
    state.apply(1, "fold")
    assert state.to_act() == (0,)
    state.apply(0, "fold")
    assert state.to_act() == (CHANCE,)
    assert [seat(state, s)["chips"] for s in range(3)] == [19, 19, 22]
    assert state.deal_records()[0].scores == [-1.0, -1.0, 2.0]
    assert seat(state, 2)["won"] == 3


def test_tie_for_best_hand_splits_the_pot() -> None:
    state = new_match(3)
    deal(state, ["KC", "3D", "KH"])
    # Seat 1 (3D) folds: KC and KH tie for the best hand ignoring suits: the pot is split.
    state.apply(1, "fold")
    assert state.to_act() == (CHANCE,)
    chips = [seat(state, s)["chips"] for s in range(3)]
    # Pot 3 between seats 0 and 2: 1 each, the odd chip to the first tied seat from the
    # dealer's left (dealer 2: seat 0 first).
    assert chips == [19 + 2, 19, 19 + 1]
    assert state.deal_records()[0].scores == [1.0, -1.0, 0.0]
    assert seat(state, 0)["won"] == 2 and seat(state, 2)["won"] == 1


def test_two_best_tied_do_not_end_the_round_while_a_lower_hand_is_in() -> None:
    """Ruling made here: "a tie for the best hand" ends the round only when every player still
    in ties (ignoring suits); a lower hand still acts, then the club king (lowest by suit)."""
    state = new_match(3)
    deal(state, ["KC", "3D", "KH", "3H", "2S"])
    assert state.to_act() == (1,)
    state.apply(1, "buy:1")  # 3D-3H: a pair beats both kings
    assert seat(state, 1)["status"] == "in"
    assert state.to_act() == (0,)  # KC ties KH as a hand; the club is lowest and must act


def test_wheel_suits_compare_the_ace_first() -> None:
    """Ruling made here: identical hands compare suits card by card, by group size then rank."""
    a = [CODES.index(c) for c in ("AS", "2C", "3D", "4C", "5D")]
    b = [CODES.index(c) for c in ("AC", "2D", "3C", "4D", "5S")]
    assert hand_key(a) == hand_key(b) and act_key(a) > act_key(b)


def test_all_tied_at_the_deal_splits_at_once() -> None:
    state = new_match(4)
    deal(state, ["7C", "7D", "7H", "7S"])
    assert state.to_act() == (CHANCE,)
    assert state.deal_records()[0].actions == []
    assert [seat(state, s)["chips"] for s in range(4)] == [20] * 4


def test_split_after_buying_with_odd_chips() -> None:
    state = new_match(3)
    # Seat 0: 8C, seat 1: 2C, seat 2: 8D.  Seat 1 buys 2: 4H (4-2 < 8), 3S (4-3-2 < 8): out.
    # 8C and 8D are left and tie: pot 3 + 2 = 5, split 3/2 with the odd chip to seat 0 (dealer
    # 2's left).
    deal(state, ["8C", "2C", "8D", "4H", "3S"])
    state.apply(1, "buy:2")
    assert seat(state, 1)["status"] == "out"
    assert state.to_act() == (CHANCE,)
    assert [seat(state, s)["chips"] for s in range(3)] == [19 + 3, 17, 19 + 2]
    assert sum(seat(state, s)["chips"] for s in range(3)) == 60


def test_legal_buys_limited_by_hand_size_and_chips() -> None:
    state = new_match(3, chips=3)
    deal(state, ["9C", "3D", "KH"])
    assert state.legal_actions(1) == ("fold", "buy:1", "buy:2")
    with pytest.raises(IllegalAction) as info:
        state.apply(1, "buy:3")
    assert "chips" in info.value.reason
    state2 = new_match(3)
    deal(state2, ["9C", "3D", "KH"])
    assert state2.legal_actions(1) == ("fold", "buy:1", "buy:2", "buy:3", "buy:4")
    with pytest.raises(UnknownAction):
        state2.apply(1, "buy:5")
    with pytest.raises(NotYourTurn):
        state2.apply(0, "fold")
    with pytest.raises(UnknownAction):
        state2.apply(1, "raise:2")


def test_five_card_hand_can_only_fold() -> None:
    state = new_match(3)
    # Seat 1 (2C) buys 4 and gets 3D 4H 6S 7C: 7-6-4-3-2 is still below 9C: out.
    deal(state, ["9C", "2C", "KH", "3D", "4H", "6S", "7C", "8S"])
    state.apply(1, "buy:4")
    assert seat(state, 1)["hand"] == ["2C", "3D", "4H", "6S", "7C"]
    assert seat(state, 1)["status"] == "out"
    state2 = new_match(3)
    # Seat 1 (2C) buys 4: 3D 4H 5S 9D -> 9-5-4-3-2 beats 9C alone after the fourth card.
    deal(state2, ["9C", "2C", "KH", "3D", "4H", "5S", "9D", "QC", "QD", "QH", "QS"])
    state2.apply(1, "buy:4")
    assert len(seat(state2, 1)["hand"]) == 5 and seat(state2, 1)["status"] == "in"
    # Seat 0 (9C) is lowest, buys 1: QC -> Q-9 beats 9-5-4-3-2: in.  Then seat 1 is lowest
    # with five cards: it can only fold.
    state2.apply(0, "buy:1")
    assert state2.to_act() == (1,)
    assert state2.legal_actions(1) == ("fold",)


def test_broke_player_sits_out_and_match_ends_early() -> None:
    state = new_match(3, chips=1)
    deal(state, ["9C", "3D", "KH"])
    state.apply(1, "fold")
    state.apply(0, "fold")
    assert [seat(state, s)["chips"] for s in range(3)] == [0, 0, 3]
    # Only seat 2 has chips: the match is over.
    assert state.is_terminal()
    assert state.result().ranks == (2, 2, 1)
    # With no chip left after the ante, the lowest hand may only fold.
    state = new_match(3, chips=1, deals=3)
    deal(state, ["9C", "3D", "KH"])
    assert state.legal_actions(1) == ("fold",)


def test_sitting_out_round() -> None:
    state = new_match(4, chips=2)
    deal(state, ["9C", "3D", "KH", "AS"])
    state.apply(1, "buy:1")  # 3D + 2C: still below 9C, so out; no chips left
    assert seat(state, 1)["chips"] == 0
    while not state.is_chance():
        s = state.to_act()[0]
        state.apply(s, "fold")
    deal(state, ["2C", "3C", "4C", "5C"])
    view = state.view_json(None)
    assert view["seats"][1]["status"] == "sitting"
    assert view["seats"][1]["hand"] == []
    assert view["pot"] == 3
    assert not state.invariants()


def test_fixed_rounds_and_chips_conserved() -> None:
    bots = [random_policy(MatchRng(f"b{s}")) for s in range(5)]
    state = play_match("ricochet_poker", 5, bots, seed=4)
    records = state.deal_records()
    assert len(records) == 10 or sum(1 for c in state.result().scores if c > 0) < 2
    assert sum(state.result().scores) == 100
    for r in records:
        assert r.scores is not None and sum(r.scores) == 0
    short = play_match("ricochet_poker", 3, bots[:3], seed=4, options={"deals": 2})
    assert len(short.deal_records()) <= 2


def test_options_validated() -> None:
    with pytest.raises(InvalidOptions):
        new_match(3, deals=0)
    with pytest.raises(InvalidOptions):
        new_match(3, chips=0)
    with pytest.raises(InvalidOptions):
        new_match(2)
    with pytest.raises(InvalidOptions):
        new_match(7)


# ------------------------------------------------------------------ properties
card_lists = st.lists(st.sampled_from(range(52)), min_size=1, max_size=5, unique=True)


@settings(max_examples=300, deadline=None)
@given(card_lists, st.integers(0, 51))
def test_adding_a_card_never_lowers_a_hand(cards: list[int], extra: int) -> None:
    if extra in cards or len(cards) == 5:
        return
    assert hand_key([*cards, extra]) > hand_key(cards)


@settings(max_examples=300, deadline=None)
@given(card_lists, st.permutations([0, 1, 2, 3]))
def test_hand_strength_ignores_suit_names(cards: list[int], perm: list[int]) -> None:
    renamed = [perm[c // 13] * 13 + c % 13 for c in cards]
    assert hand_key(renamed) == hand_key(cards)


@settings(max_examples=300, deadline=None)
@given(card_lists, card_lists)
def test_acting_order_is_total_on_disjoint_hands(a: list[int], b: list[int]) -> None:
    if set(a) & set(b):
        return
    assert act_key(a) != act_key(b)
    if hand_key(a) != hand_key(b):
        assert (act_key(a) < act_key(b)) == (hand_key(a) < hand_key(b))


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 6), st.integers(0, 2**32), st.integers(0, 2**16))
def test_random_matches_conserve_chips_and_replay(players: int, seed: int, bot_seed: int) -> None:
    bots = [random_policy(MatchRng(bot_seed + s)) for s in range(players)]
    state = play_match("ricochet_poker", players, bots, seed=seed, options={"deals": 3})
    assert not state.invariants()
    assert sum(state.result().scores) == 20 * players
    replay = json.loads(json.dumps(build_replay(state, seed=seed, seats=["x"] * players)))
    assert rerun(replay).view_json(None) == state.view_json(None)


# ---------------------------------------------------------------- the heuristic
def load_strategy() -> ModuleType:
    path = ROOT / "clients/python/cardarena_sdk/strategies/ricochet_poker.py"
    spec = importlib.util.spec_from_file_location("poker_strategy", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_heuristic_beats_random() -> None:
    choose = load_strategy().choose
    firsts = 0
    mine = theirs = 0.0
    matches = 40
    for seed in range(matches):
        rng = random.Random(seed)
        me = seed % 4

        def bot(view: Any, legal: Any, seat: int, rng: random.Random = rng) -> str:
            return str(choose(view.to_json(), legal, rng))

        policies = [bot if s == me else random_policy(MatchRng(f"r{seed}/{s}")) for s in range(4)]
        result = play_match("ricochet_poker", 4, policies, seed=seed).result()
        firsts += result.ranks[me] == 1
        mine += result.scores[me]
        theirs += (sum(result.scores) - result.scores[me]) / 3
    # A random seat would be first about 10 times in 40 and average 20 chips.
    assert firsts >= 18
    assert mine / matches > 1.6 * theirs / matches


# ------------------------------------------------------------------ proto
