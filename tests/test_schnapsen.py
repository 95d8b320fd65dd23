"""Schnapsen (the seed's 20-card variant): every scoring rule and the rulings' edge cases."""

from __future__ import annotations

import importlib.util
import itertools
import json
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cardarena.engine import (
    CHANCE,
    IllegalAction,
    InvalidChance,
    MatchRng,
    NotYourTurn,
    State,
    UnknownAction,
    get_game,
    play_match,
    random_policy,
)
from cardarena.games.schnapsen import CODES, SchnapsenState
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent


def deal(dealer: int, hands: list[list[str]], stock: list[str], **options: int) -> SchnapsenState:
    state = get_game("schnapsen").new_state(2, options or {"deals": 1})
    assert isinstance(state, SchnapsenState)
    state.apply_chance({"dealer": dealer, "hands": hands, "stock": stock, "trump_card": stock[-1]})
    return state


def run(state: State, *steps: tuple[int, str]) -> None:
    for seat, action in steps:
        assert action in state.legal_actions(seat), (seat, action, state.legal_actions(seat))
        state.apply(seat, action)


def seat_view(state: State, viewer: int | None, seat: int) -> dict[str, Any]:
    seats: list[dict[str, Any]] = state.view_json(viewer)["seats"]
    return seats[seat]


# Scenario B of the docs: trump hearts, seat 0 melds, closes with seat 1 at 5 points.
B_HANDS = [["AH", "TH", "4H", "3H", "2C"], ["3C", "4C", "2D", "3D", "4D"]]
B_STOCK = ["AC", "TC", "AD", "TD", "2S", "3S", "4S", "TS", "AS", "2H"]


def scenario_b(meld: bool) -> SchnapsenState:
    state = deal(1, B_HANDS, B_STOCK)
    run(state, (0, "play:2C"), (1, "play:3C"))  # seat 1 wins 5
    run(state, (1, "play:2D"), (0, "play:AH"))  # seat 0 wins 13
    if meld:
        run(state, (0, "meld:H"))
    run(state, (0, "close"))
    assert state.view_json(None)["closed_opponent_points"] == 5
    run(state, (0, "play:4H"))
    assert set(state.legal_actions(1)) == {"play:4C", "play:3D", "play:4D", "play:AC", "play:TD"}
    run(state, (1, "play:4C"))
    run(state, (0, "play:TH"), (1, "play:3D"))
    run(state, (0, "play:3H"), (1, "play:4D"))
    run(state, (0, "play:TC"))
    assert state.legal_actions(1) == ("play:AC",)  # must follow and beat
    run(state, (1, "play:AC"))
    run(state, (1, "play:TD"))
    assert state.legal_actions(0) == ("play:AD",)
    run(state, (0, "play:AD"))
    return state


# ------------------------------------------------------------------ the deal
def test_deal_layout_and_first_lead() -> None:
    for seed in range(10):
        state = get_game("schnapsen").new_state(2)
        outcome = state.sample_chance(MatchRng(seed))
        state.apply_chance(outcome)
        dealer = outcome["dealer"]
        assert state.to_act() == (1 - dealer,)
        view = state.view_json(1 - dealer)
        assert len(view["hand"]) == 5 and view["stock_size"] == 10
        assert view["stock_bottom"] == outcome["stock"][-1] == view["trump_card"]
        assert view["trump_suit"] == outcome["trump_card"][1]
        assert sorted(outcome["hands"][0] + outcome["hands"][1] + outcome["stock"]) == sorted(CODES)
        assert {c[0] for c in CODES} == set("234TA")


def test_dealer_alternates_and_bad_deals_are_rejected() -> None:
    state = play_match("schnapsen", 2, [random_policy(MatchRng(s)) for s in range(2)], seed=3)
    dealers = [r.dealer for r in state.deal_records()]
    assert len(dealers) > 1
    assert all(a != b for a, b in itertools.pairwise(dealers))
    fresh = get_game("schnapsen").new_state(2)
    good = {"dealer": 0, "hands": B_HANDS, "stock": B_STOCK, "trump_card": "2H"}
    for bad in (
        {**good, "trump_card": "AS"},
        {**good, "stock": B_STOCK[:-1] + ["AH"]},
        {**good, "hands": [B_HANDS[0][:4], B_HANDS[1]]},
        {**good, "dealer": 2},
        {"hands": B_HANDS},
    ):
        with pytest.raises(InvalidChance):
            fresh.apply_chance(bad)
    assert fresh.to_act() == (CHANCE,)


def test_trick_winner_and_drawing_order() -> None:
    state = deal(1, B_HANDS, B_STOCK)
    # Off-suit non-trump loses to the lead even when higher; winner draws first.
    run(state, (0, "play:2C"), (1, "play:4D"))
    assert state.view_json(None)["last_winner"] == 0
    assert "AC" in state.view_json(0)["hand"] and "TC" in state.view_json(1)["hand"]
    assert seat_view(state, None, 0)["card_points"] == 6
    run(state, (0, "play:AC"), (1, "play:3C"))
    run(state, (0, "play:AH"), (1, "play:2D"))
    assert seat_view(state, None, 0)["card_points"] == 6 + 14 + 13


def test_loser_draws_face_up_trump_card_which_becomes_known() -> None:
    for seed in range(30):
        state = get_game("schnapsen").new_state(2)
        state.apply_chance(state.sample_chance(MatchRng(seed)))
        trump_card = state.view_json(None)["trump_card"]
        for _ in range(10):
            seat = state.to_act()[0]
            plays = [a for a in state.legal_actions(seat) if a.startswith("play:")]
            state.apply(seat, plays[0])
        view = state.view_json(None)
        assert view["stock_size"] == 0 and view["strict"] and view["stock_bottom"] is None
        loser = 1 - view["last_winner"]
        if trump_card in state.view_json(loser)["hand"]:
            for viewer in (None, 0, 1):
                assert seat_view(state, viewer, loser)["known_cards"] == [trump_card]
        else:
            assert trump_card in view["played"]


# ------------------------------------------------------------------ exchange, meld, close
def test_exchange_trump_two() -> None:
    hands = [["2C", "3C", "2D", "3D", "2H"], ["AH", "TH", "AC", "TC", "AS"]]
    stock = ["4C", "4D", "TD", "AD", "3H", "2S", "3S", "4S", "TS", "4H"]
    state = deal(1, hands, stock)
    assert "exchange:2H" in state.legal_actions(0)  # allowed at the first trick
    with pytest.raises(IllegalAction, match="2 of trumps"):
        state.apply(0, "exchange:2C")
    run(state, (0, "exchange:2H"))
    assert "4H" in state.view_json(0)["hand"] and "2H" not in state.view_json(0)["hand"]
    for viewer in (None, 0, 1):
        assert seat_view(state, viewer, 0)["known_cards"] == ["4H"]
        assert state.view_json(viewer)["stock_bottom"] == "2H"
    assert not any(a.startswith("exchange") for a in state.legal_actions(0))
    with pytest.raises(IllegalAction, match="already exchanged"):
        state.apply(0, "exchange:2H")
    run(state, (0, "play:4H"))
    assert seat_view(state, 1, 0)["known_cards"] == []
    with pytest.raises(IllegalAction, match="only the leader"):
        state.apply(1, "exchange:2H")


def test_exchange_not_after_meld_or_close_nor_by_follower() -> None:
    hands = [["2H", "3C", "4C", "2D", "3D"], ["AH", "TH", "AC", "TC", "AS"]]
    stock = ["2C", "4D", "TD", "AD", "3H", "2S", "3S", "4S", "TS", "4H"]
    state = deal(1, hands, stock)
    run(state, (0, "meld:C"))
    assert "exchange:2H" not in state.legal_actions(0)
    with pytest.raises(IllegalAction, match="exchange must come before"):
        state.apply(0, "exchange:2H")
    state = deal(1, hands, stock)
    run(state, (0, "close"))
    assert state.legal_actions(0) == tuple("play:" + c for c in ["3C", "4C", "2D", "3D", "2H"])
    with pytest.raises(IllegalAction):
        state.apply(0, "exchange:2H")
    with pytest.raises(IllegalAction, match="melding comes before closing"):
        state.apply(0, "meld:C")
    # The follower may not exchange, meld or close.
    hands2 = [["AH", "TH", "AC", "TC", "AS"], ["2H", "3C", "4C", "2D", "3D"]]
    state = deal(1, hands2, stock)
    run(state, (0, "play:AS"))
    assert state.legal_actions(1) == tuple("play:" + c for c in ["3C", "4C", "2D", "3D", "2H"])
    for action in ("exchange:2H", "meld:C", "close"):
        with pytest.raises(IllegalAction, match="only the leader"):
            state.apply(1, action)


def test_marriage_points_lead_and_public_knowledge() -> None:
    hands = [["3C", "4C", "3H", "4H", "2D"], ["AH", "TH", "AC", "TC", "AS"]]
    stock = ["2C", "4D", "TD", "AD", "2H", "2S", "3S", "4S", "TS", "AC"]
    stock[-1] = "3D"
    state = deal(1, hands, stock)  # trump: diamonds
    legal = state.legal_actions(0)
    assert "meld:C" in legal and "meld:H" in legal
    run(state, (0, "meld:H"))
    assert state.view_json(1)["marriage_pending"] == "H"
    assert not any(a.startswith("meld") for a in state.legal_actions(0))
    with pytest.raises(IllegalAction, match="at most one marriage per lead"):
        state.apply(0, "meld:C")
    assert state.legal_actions(0) == ("close", "play:3H", "play:4H")
    with pytest.raises(IllegalAction, match="must lead 3H or 4H"):
        state.apply(0, "play:2D")
    assert seat_view(state, 1, 0)["known_cards"] == ["3H", "4H"]
    assert seat_view(state, 1, 0)["marriage_points"] == 20
    assert seat_view(state, 1, 0)["round_points"] == 0  # no trick won yet
    run(state, (0, "play:4H"))
    assert seat_view(state, 1, 0)["known_cards"] == ["3H"]
    run(state, (1, "play:AH"))  # seat 1 wins: seat 0 still has no trick
    assert seat_view(state, None, 0)["round_points"] == 0
    # Seat 1 leads, closes: seat 0's recorded points are 0 (the marriage does not count yet).
    run(state, (1, "close"))
    assert state.view_json(0)["closed_opponent_points"] == 0
    run(state, (1, "play:2C"))
    assert state.legal_actions(0) == ("play:3C", "play:4C")  # must follow and beat
    run(state, (0, "play:3C"))
    assert seat_view(state, None, 0)["round_points"] == 5 + 20  # now the marriage counts


def test_trump_marriage_is_40_and_counts_after_a_trick() -> None:
    state = deal(1, B_HANDS, B_STOCK)
    run(state, (0, "meld:H"))
    assert seat_view(state, None, 0)["marriage_points"] == 40
    assert seat_view(state, None, 0)["round_points"] == 0
    run(state, (0, "play:3H"), (1, "play:2D"))
    assert seat_view(state, None, 0)["round_points"] == 40 + 5
    assert seat_view(state, None, 0)["marriages"] == ["H"]


def _four_tricks_to_seat_0() -> SchnapsenState:
    """Trump spades; seat 0 wins four tricks and holds 2S 3S AS TS AH with two stock cards
    left (TH face down, 4S face up)."""
    hands = [["AC", "TC", "AD", "TD", "AH"], ["2C", "3C", "2D", "3D", "2H"]]
    stock = ["2S", "4C", "3S", "4D", "AS", "3H", "TS", "4H", "TH", "4S"]
    state = deal(1, hands, stock)
    for lead, answer in (("AC", "2C"), ("TC", "3C"), ("AD", "2D"), ("TD", "3D")):
        run(state, (0, "play:" + lead), (1, "play:" + answer))
    assert state.view_json(0)["stock_size"] == 2 and state.view_json(0)["hand"] == ["AH", "2S", "3S", "TS", "AS"]
    return state


def test_silent_points_exchange_and_close_with_two_stock_cards_and_bottom_stays_known() -> None:
    """Seed and rulings silent, module docstring: the exchange and the close are allowed while
    the stock is open, also with only two cards left; after a close the turned-down trump card
    stays known (``stock_bottom``), as everyone saw it."""
    state = _four_tricks_to_seat_0()
    assert state.legal_actions(0)[:3] == ("exchange:2S", "close", "play:AH")
    run(state, (0, "exchange:2S"), (0, "meld:S"), (0, "close"))
    for viewer in (None, 0, 1):
        view = state.view_json(viewer)
        assert view["closed"] and view["strict"] and view["stock_size"] == 2
        assert view["stock_bottom"] == "2S"
        assert '"TH"' not in json.dumps(view)  # the face-down stock card stays hidden
    assert state.legal_actions(0) == ("play:3S", "play:4S")


def test_silent_point_meld_after_the_stock_is_exhausted() -> None:
    """Seed: "A marriage can be declared during any point in the round"; the module allows it
    at any lead, also once the stock is exhausted (no exchange or close then)."""
    state = _four_tricks_to_seat_0()
    run(state, (0, "exchange:2S"), (0, "play:AH"), (1, "play:2H"))
    view = state.view_json(0)
    assert view["stock_size"] == 0 and view["strict"]
    assert seat_view(state, 0, 1)["known_cards"] == ["2S"]  # the loser drew the face-up 2S
    assert state.legal_actions(0) == ("meld:S", "play:TH", "play:3S", "play:4S", "play:TS", "play:AS")
    run(state, (0, "meld:S"))
    assert seat_view(state, 1, 0)["marriage_points"] == 40
    assert state.legal_actions(0) == ("play:3S", "play:4S")


# ------------------------------------------------------------------ round scoring
def test_close_three_points_when_opponent_had_nothing() -> None:
    hands = [["AH", "TH", "4H", "3H", "AC"], ["2C", "3C", "4C", "2D", "3D"]]
    stock = ["TC", "4D", "TD", "AD", "2S", "3S", "4S", "TS", "AS", "2H"]
    state = deal(1, hands, stock)
    run(state, (0, "meld:H"), (0, "close"), (0, "play:4H"), (1, "play:2C"))
    for card, answer in (("AH", "3C"), ("TH", "4C"), ("3H", "2D"), ("AC", "3D")):
        run(state, (0, "play:" + card), (1, "play:" + answer))
    assert state.is_terminal()
    assert seat_view(state, None, 0)["round_points"] == 40 + 39 + 14
    assert state.deal_records()[0].scores == [3.0, 0.0]
    assert state.result().scores == (3.0, 0.0)


def test_close_two_points_when_opponent_had_32_or_less() -> None:
    state = scenario_b(meld=True)
    assert seat_view(state, None, 0)["card_points"] == 62
    assert seat_view(state, None, 1)["card_points"] == 26
    assert seat_view(state, None, 0)["round_points"] == 102
    assert state.deal_records()[0].scores == [2.0, 0.0]


def test_failed_close_gives_opponent_two_points() -> None:
    state = scenario_b(meld=False)
    assert seat_view(state, None, 0)["round_points"] == 62  # short of 66
    assert state.deal_records()[0].scores == [0.0, 2.0]


def test_close_one_point_when_opponent_had_33_or_more() -> None:
    hands = [["AH", "TH", "4H", "3H", "TS"], ["AS", "2C", "3C", "2D", "3D"]]
    stock = ["AC", "TC", "AD", "TD", "4C", "4D", "2S", "3S", "4S", "2H"]
    state = deal(1, hands, stock)
    run(state, (0, "play:TS"), (1, "play:AS"))
    run(state, (1, "play:AC"), (0, "play:TC"))
    run(state, (1, "play:2C"), (0, "play:AH"))
    assert seat_view(state, None, 1)["card_points"] == 42
    run(state, (0, "meld:H"), (0, "close"))
    assert state.view_json(1)["closed_opponent_points"] == 42
    run(state, (0, "play:4H"), (1, "play:2D"))
    run(state, (0, "play:TH"), (1, "play:3C"))
    run(state, (0, "play:3H"), (1, "play:3D"))
    run(state, (0, "play:TD"), (1, "play:AD"))
    run(state, (1, "play:4D"), (0, "play:4C"))
    assert seat_view(state, None, 0)["round_points"] == 38 + 40
    assert seat_view(state, None, 1)["card_points"] == 71  # more than the closer's cards
    assert state.deal_records()[0].scores == [1.0, 0.0]


def test_failed_close_three_points_and_strict_rules() -> None:
    hands = [["2C", "3C", "2D", "3D", "2H"], ["AH", "TH", "AC", "TC", "AS"]]
    stock = ["4C", "4D", "TD", "AD", "3H", "2S", "3S", "4S", "TS", "4H"]
    state = deal(1, hands, stock)
    run(state, (0, "close"), (0, "play:2C"))
    assert set(state.legal_actions(1)) == {"play:TC", "play:AC"}  # follow and beat
    with pytest.raises(IllegalAction, match="must follow clubs and beat 2C"):
        state.apply(1, "play:AH")
    run(state, (1, "play:TC"), (1, "play:AS"))
    assert state.legal_actions(0) == ("play:2H",)  # cannot follow: must trump
    with pytest.raises(IllegalAction, match="must trump"):
        state.apply(0, "play:2D")
    run(state, (0, "play:2H"), (0, "play:3C"), (1, "play:AC"))
    run(state, (1, "play:AH"))
    assert set(state.legal_actions(0)) == {"play:2D", "play:3D"}  # no trump left: anything
    run(state, (0, "play:2D"), (1, "play:TH"), (0, "play:3D"))
    assert state.is_terminal()
    assert seat_view(state, None, 0)["card_points"] == 13
    assert state.deal_records()[0].scores == [0.0, 3.0]


def test_open_stock_allows_any_card() -> None:
    hands = [["2C", "3C", "2D", "3D", "2H"], ["AH", "TH", "AC", "TC", "AS"]]
    stock = ["4C", "4D", "TD", "AD", "3H", "2S", "3S", "4S", "TS", "4H"]
    state = deal(1, hands, stock)
    run(state, (0, "play:2C"))
    assert len(state.legal_actions(1)) == 5


def test_unclosed_round_last_trick_wins_one_point() -> None:
    for seed in range(40):
        bots = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(2)]
        state = play_match("schnapsen", 2, bots, seed=seed, options={"deals": 1})
        view = state.view_json(None)
        if view["closed"]:
            continue
        winner = view["last_winner"]
        scores = state.deal_records()[0].scores
        assert scores == [1.0 if s == winner else 0.0 for s in range(2)]
        assert sum(s["card_points"] for s in view["seats"]) == 120


def test_match_to_seven_and_deals_option() -> None:
    for seed in range(15):
        bots = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(2)]
        state = play_match("schnapsen", 2, bots, seed=seed)
        totals = [0.0, 0.0]
        records = state.deal_records()
        for i, record in enumerate(records):
            assert record.scores is not None
            totals = [t + s for t, s in zip(totals, record.scores, strict=True)]
            assert (max(totals) >= 7) == (i == len(records) - 1)
        assert list(state.result().scores) == totals
        assert state.result().ranks in ((1, 2), (2, 1))
    state = play_match("schnapsen", 2, [random_policy(MatchRng(s)) for s in range(2)], seed=1, options={"deals": 3})
    assert len(state.deal_records()) == 3


def test_errors_are_typed() -> None:
    state = deal(1, B_HANDS, B_STOCK)
    with pytest.raises(NotYourTurn, match="waiting for seat 0"):
        state.apply(1, "play:3C")
    with pytest.raises(UnknownAction):
        state.apply(0, "play:9H")
    with pytest.raises(UnknownAction):
        state.apply(0, "meld:X")
    with pytest.raises(IllegalAction, match="not in your hand"):
        state.apply(0, "play:AS")
    with pytest.raises(IllegalAction, match="needs 3C and 4C"):
        state.apply(0, "meld:C")
    assert get_game("schnapsen").describe("meld:H").cards == ("3H", "4H")
    assert get_game("schnapsen").describe("exchange:2S").kind == "exchange"
    assert get_game("schnapsen").describe("close").kind == "close"


def test_views_hide_the_opponent_hand_and_stock() -> None:
    state = deal(1, B_HANDS, B_STOCK)
    text = json.dumps(state.view_json(0))
    for card in B_HANDS[1] + B_STOCK[:-1]:
        assert f'"{card}"' not in text
    spectator = json.dumps(state.view_json(None))
    for card in B_HANDS[0] + B_HANDS[1]:
        assert f'"{card}"' not in spectator


# ------------------------------------------------------------------ property tests
@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(0, 2**16))
def test_round_scoring_properties(seed: int, bot_seed: int) -> None:
    bots = [random_policy(MatchRng(bot_seed + s)) for s in range(2)]
    state = play_match("schnapsen", 2, bots, seed=seed, options={"deals": 1})
    assert not state.invariants()
    view = state.view_json(None)
    scores = state.deal_records()[0].scores
    assert scores is not None and sorted(scores) in ([0.0, 1.0], [0.0, 2.0], [0.0, 3.0])
    seats = view["seats"]
    if not view["closed"]:
        assert scores[view["last_winner"]] == 1.0
        assert seats[0]["card_points"] + seats[1]["card_points"] == 120
    else:
        closer = view["closed_by"]
        recorded = view["closed_opponent_points"]
        if seats[closer]["round_points"] >= 66:
            assert scores[closer] == (3 if recorded == 0 else 2 if recorded <= 32 else 1)
        else:
            assert scores[1 - closer] == (3 if recorded == 0 else 2)
    for s in seats:
        assert s["round_points"] == s["card_points"] + (s["marriage_points"] if s["tricks_won"] else 0)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_views_never_leak_and_known_cards_are_held(seed: int) -> None:
    state = get_game("schnapsen").new_state(2, {"deals": 1})
    rng, picker = MatchRng(seed), MatchRng(seed + 1)
    while not state.is_terminal():
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        for viewer in (0, 1):
            view = state.view_json(viewer)
            other = seat_view(state, viewer, 1 - viewer)
            hidden = set(state.view_json(1 - viewer)["hand"]) - set(other["known_cards"])
            text = json.dumps(view)
            assert not [c for c in hidden if f'"{c}"' in text]
            assert set(other["known_cards"]) <= set(state.view_json(1 - viewer)["hand"])
        seat = state.to_act()[0]
        state.apply(seat, picker.choice(state.legal_actions(seat)))


# ------------------------------------------------------------------ proto and bot
def load_bot() -> ModuleType:
    path = ROOT / "clients/python/cardarena_sdk/strategies/schnapsen.py"
    spec = importlib.util.spec_from_file_location("schnapsen_strategy", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bot_policy(bot: ModuleType, seed: int) -> Any:
    rng = random.Random(seed)

    def policy(view: Any, legal: Any, seat: int) -> str:
        action: str = bot.choose(view.to_json(), legal, rng)
        return action

    return policy


def test_heuristic_beats_random() -> None:
    bot = load_bot()
    wins = 0
    for seed in range(40):
        me = seed % 2
        policies: list[Any] = [None, None]
        policies[me] = bot_policy(bot, seed)
        policies[1 - me] = random_policy(MatchRng(f"r{seed}"))
        state = play_match("schnapsen", 2, policies, seed=seed)
        wins += state.result().ranks[me] == 1
    assert wins >= 34, f"heuristic won only {wins}/40 against random"
