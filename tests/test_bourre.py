"""Bourré: deal, stay/fold, exchanges and reshuffles, strict play, sure-to-win, payments."""

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
    MatchRng,
    NotYourTurn,
    Policy,
    UnknownAction,
    build_replay,
    get_game,
    play_match,
    random_policy,
    rerun,
)
from cardarena.engine.cards import CODES
from cardarena.games.bourre import BourreState
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent


def new(players: int, **options: int) -> BourreState:
    state = get_game("bourre").new_state(players, options or None)
    assert isinstance(state, BourreState)
    return state


def deal(state: BourreState, dealer: int, hands: Sequence[Sequence[str]], turned: str) -> None:
    used = {c for h in hands for c in h}
    deck = [c for c in CODES if c not in used]
    state.apply_chance({"dealer": dealer, "hands": [list(h) for h in hands], "turned_card": turned, "deck": deck})


def everyone(state: BourreState, action: str) -> None:
    """Let every seat asked in the current phase take ``action``."""
    phase = state.view_json(None)["phase"]
    while state.view_json(None)["phase"] == phase and state.to_act() and state.to_act()[0] >= 0:
        state.apply(state.to_act()[0], action)


def legal(state: BourreState) -> set[str]:
    return set(state.legal_actions(state.to_act()[0]))


def random_match(players: int, seed: int, **options: int) -> BourreState:
    bots = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(players)]
    state = play_match("bourre", players, bots, seed=seed, options=options or None)
    assert isinstance(state, BourreState)
    return state


# --------------------------------------------------------------------- the deal
@pytest.mark.parametrize("players", range(3, 9))
def test_deal_antes_and_turned_card(players: int) -> None:
    state = new(players)
    state.apply_chance(state.sample_chance(MatchRng(players)))
    view = state.view_json(None)
    dealer = view["dealer"]
    assert view["pot"] == players
    assert all(s["balance"] == -1 and s["hand_size"] == 5 for s in view["seats"])
    assert view["deck_size"] == 52 - 5 * players
    turned = view["turned_card"]
    assert view["trump_suit"] == turned[1]
    assert turned in state.view_json(dealer)["hand"]
    for seat in range(players):
        assert state.view_json(seat)["turned_card"] == turned
        assert turned not in state.secrets(seat)
    assert state.to_act() == ((dealer + 1) % players,)
    assert view["max_exchange"] == (3 if players >= 7 else 5)


def test_first_dealer_from_the_seed_then_the_deal_passes_left() -> None:
    """Rulings: "The first dealer is drawn from the seed; the deal passes to the left (seat + 1)
    after each hand"; seed: "Starting left from the dealer, each player decides if they stay
    in or fold" and "Deal then passes to the left"."""
    firsts = set()
    for seed in range(8):
        records = random_match(4, seed, deals=6).deal_records()
        firsts.add(records[0].dealer)
        assert [r.dealer for r in records] == [(records[0].dealer + k) % 4 for k in range(6)]
        assert all(r.actions[0][0] == (r.dealer + 1) % 4 for r in records)
    assert len(firsts) > 1


def test_bad_deal_is_rejected() -> None:
    state = new(3)
    hands = [["2C", "3C", "4C", "5C", "6C"], ["2D", "3D", "4D", "5D", "6D"], ["2H", "3H", "4H", "5H", "6H"]]
    with pytest.raises(InvalidChance, match="turned card"):
        deal(state, 2, hands, "2C")
    with pytest.raises(InvalidChance, match="52 cards"):
        state.apply_chance({"dealer": 2, "hands": hands, "turned_card": "2H", "deck": ["AS"]})


def test_turned_ace_forces_dealer_to_stay() -> None:
    state = new(3)
    deal(
        state, 2, [["2C", "3C", "4C", "5C", "6C"], ["2D", "3D", "4D", "5D", "6D"], ["2H", "3H", "4H", "5H", "AH"]], "AH"
    )
    state.apply(0, "fold")
    state.apply(1, "fold")
    assert state.legal_actions(2) == ("stay",)
    with pytest.raises(IllegalAction, match="ace"):
        state.apply(2, "fold")
    state.apply(2, "stay")
    # The dealer alone stays: wins all five tricks and the pot.
    view = state.view_json(None)
    assert view["seats"][2]["tricks"] == 5
    assert view["pot_winner"] == 2
    assert [s["balance"] for s in view["seats"]] == [-1, -1, 2]


def test_nobody_stays_carries_the_pot() -> None:
    state = new(3)
    state.apply_chance(state.sample_chance(MatchRng(1)))
    if state.view_json(None)["turned_card"][0] == "A":
        pytest.skip("seed turned an ace")
    everyone(state, "fold")
    view = state.view_json(None)
    assert view["pot"] == 3 and view["pot_winner"] is None
    assert state.to_act() == (CHANCE,)
    state.apply_chance(state.sample_chance(MatchRng(2)))
    assert state.view_json(None)["pot"] == 6


# ------------------------------------------------------------------- exchanges
def test_exchange_limits_and_actions() -> None:
    for players, count, limit in [(5, 32, 5), (7, 26, 3)]:
        state = new(players)
        state.apply_chance(state.sample_chance(MatchRng(3)))
        everyone(state, "stay")
        seat = state.to_act()[0]
        acts = state.legal_actions(seat)
        assert len(acts) == count
        assert "exchange" in acts
        hand = state.view_json(seat)["hand"]
        too_many = "exchange:" + ":".join(hand[: limit + 1])
        if limit < 5:
            with pytest.raises(IllegalAction, match=f"at most {limit}"):
                state.apply(seat, too_many)
        with pytest.raises(UnknownAction):
            state.apply(seat, "exchange:ZZ")
        with pytest.raises(IllegalAction, match=r"exchange"):
            state.apply(seat, "stay")
        other = next(c for c in CODES if c not in hand)
        with pytest.raises(IllegalAction, match="not in your hand"):
            state.apply(seat, "exchange:" + other)
        state.apply(seat, "exchange:" + ":".join(hand[:2]))
        mine = state.view_json(seat)
        assert mine["my_discards"] == hand[:2]
        assert len(mine["hand"]) == 5 and not set(hand[:2]) & set(mine["hand"])
        assert mine["seats"][seat]["exchanged"] == 2
        for s in range(players):
            if s != seat:
                assert hand[0] in state.secrets(s)


def test_other_seats_are_told_how_many_cards_were_exchanged_not_which() -> None:
    """The discards go face down: the events of other seats and spectators say
    ``exchange:<n>``; the exchanging seat is told its own action."""
    state = new(4)
    state.apply_chance(state.sample_chance(MatchRng(3)))
    everyone(state, "stay")
    seat = state.to_act()[0]
    hand = state.view_json(seat)["hand"]
    action = next(a for a in state.legal_actions(seat) if sorted(a.split(":")[1:]) == sorted(hand[:3]))
    state.apply(seat, action)
    assert state.public_action(seat, seat, action) == action
    for viewer in [None, *(s for s in range(4) if s != seat)]:
        assert state.public_action(viewer, seat, action) == "exchange:3"
    assert state.public_action(None, seat, "exchange") == "exchange"


def test_apply_accepts_only_the_canonical_exchange_ids() -> None:
    state = new(5)
    state.apply_chance(state.sample_chance(MatchRng(3)))
    everyone(state, "stay")
    seat = state.to_act()[0]
    hand = state.view_json(seat)["hand"]
    acts = state.legal_actions(seat)
    canonical = "exchange:" + ":".join(hand[:2])
    assert canonical in acts
    for spelling in ("exchange:", "exchange:" + ":".join(reversed(hand[:2])), canonical + ":"):
        assert spelling not in acts
        assert state.check(seat, spelling)
        with pytest.raises(IllegalAction):
            state.apply(seat, spelling)
    assert state.to_act() == (seat,) and state.legal_actions(seat) == acts  # nothing changed
    state.apply(seat, canonical)
    assert state.deal_records()[-1].actions[-1] == (seat, canonical)


def test_dealer_exchanges_turned_card_sets_it_aside() -> None:
    state = new(3)
    deal(
        state, 2, [["2C", "3C", "4C", "5C", "6C"], ["2D", "3D", "4D", "5D", "6D"], ["2H", "3H", "4H", "5H", "7H"]], "7H"
    )
    everyone(state, "stay")
    state.apply(0, "exchange")
    state.apply(1, "exchange")
    state.apply(2, "exchange:7H")
    view = state.view_json(None)
    assert view["turned_card_set_aside"] and not view["turned_card_in_hand"]
    assert view["trump_suit"] == "H"
    assert view["discard_pile_size"] == 0
    assert "7H" not in state.view_json(2)["hand"]
    assert view["phase"] == "play"
    assert state.invariants() == []


def test_reshuffle_is_a_chance_outcome_in_the_replay() -> None:
    state = new(8)
    state.apply_chance(state.sample_chance(MatchRng(5)))
    if state.view_json(None)["turned_card"][0] == "A":
        pytest.skip("seed turned an ace")
    everyone(state, "stay")
    # Each of 8 players discards 3: the 12-card deck runs out after four players.
    for _ in range(4):
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[-1])
    assert state.view_json(None)["deck_size"] == 0
    assert state.view_json(None)["discard_pile_size"] == 12
    seat = state.to_act()[0]
    mine = state.view_json(seat)["hand"]
    discard = state.legal_actions(seat)[-1]
    state.apply(seat, discard)
    assert state.to_act() == (CHANCE,)
    assert state.view_json(None)["phase"] == "reshuffle"
    assert state.invariants() == []
    with pytest.raises(InvalidChance):
        state.apply_chance({"reshuffle": ["AS"]})
    with pytest.raises(NotYourTurn):
        state.apply(seat, "exchange")
    outcome = state.sample_chance(MatchRng(9))
    assert sorted(outcome["reshuffle"]) == sorted(set(outcome["reshuffle"]))
    assert len(outcome["reshuffle"]) == 12
    assert not set(discard.split(":")[1:]) & set(outcome["reshuffle"])
    state.apply_chance(outcome)
    hand = state.view_json(seat)["hand"]
    assert len(hand) == 5 and set(hand) - set(mine) <= set(outcome["reshuffle"])
    assert state.view_json(None)["deck_size"] == 9
    assert state.view_json(seat)["my_discards"] == discard.split(":")[1:]
    assert any(a[0] == CHANCE for a in state.deal_records()[0].actions)
    while not state.is_terminal():
        if state.is_chance():
            state.apply_chance(state.sample_chance(MatchRng(11)))
        else:
            s = state.to_act()[0]
            state.apply(s, state.legal_actions(s)[0])
        assert state.invariants() == []
    replay = json.loads(json.dumps(build_replay(state, seed=None, seats=[str(i) for i in range(8)])))
    assert any("chance" in a for a in replay["deals"][0]["actions"])
    assert rerun(replay).view_json(None) == state.view_json(None)


# ----------------------------------------------------------------- strict play
def _stay_keep(state: BourreState) -> None:
    everyone(state, "stay")
    everyone(state, "exchange")


def test_follow_trump_and_head_the_trick() -> None:
    state = new(3)
    hands = [["KS", "3C", "4C", "5C", "6D"], ["AS", "2S", "7H", "8C", "9D"], ["2H", "3H", "TD", "JD", "4S"]]
    deal(state, 2, hands, "2H")
    _stay_keep(state)
    assert state.to_act() == (0,)
    state.apply(0, "play:KS")
    assert legal(state) == {"play:AS"}
    with pytest.raises(IllegalAction, match="wins the trick"):
        state.apply(1, "play:2S")
    with pytest.raises(IllegalAction, match="follow spades"):
        state.apply(1, "play:9D")
    state.apply(1, "play:AS")
    assert legal(state) == {"play:4S"}
    state.apply(2, "play:4S")
    assert state.view_json(None)["last_winner"] == 1
    state.apply(1, "play:8C")
    assert legal(state) == {"play:2H", "play:3H"}
    with pytest.raises(IllegalAction, match="must play a trump"):
        state.apply(2, "play:TD")
    state.apply(2, "play:2H")
    # Seat 0 follows clubs; none of its clubs can beat the trump: any club.
    assert legal(state) == {"play:3C", "play:4C", "play:5C"}
    state.apply(0, "play:3C")
    assert state.view_json(None)["last_winner"] == 2
    # Seat 2 leads a diamond: seat 0 must follow with its only diamond.
    state.apply(2, "play:JD")
    assert legal(state) == {"play:6D"}
    state.apply(0, "play:6D")
    # Seat 1 has 9D only: cannot beat JD, follows anyway.
    assert legal(state) == {"play:9D"}


def test_must_overtrump_if_able_else_any_trump() -> None:
    state = new(3)
    hands = [["AC", "3D", "4D", "5D", "6D"], ["9H", "4H", "8S", "9S", "TS"], ["2C", "5H", "JS", "QS", "KS"]]
    deal(state, 2, hands, "5H")
    _stay_keep(state)
    state.apply(0, "play:AC")
    # Seat 1 is void in clubs: must trump; both trumps win.
    assert legal(state) == {"play:9H", "play:4H"}
    state.apply(1, "play:4H")
    # Seat 2 can follow clubs with 2C (cannot win): follow suit beats trumping.
    assert legal(state) == {"play:2C"}
    state = new(3)
    hands = [["AC", "3D", "4D", "5D", "6D"], ["9H", "8S", "9S", "TS", "JD"], ["4H", "5H", "JS", "QS", "KS"]]
    deal(state, 2, hands, "5H")
    _stay_keep(state)
    state.apply(0, "play:AC")
    state.apply(1, "play:9H")
    # Seat 2 must trump but cannot overtrump: either trump.
    assert legal(state) == {"play:4H", "play:5H"}


def test_sure_to_win_leads_highest_trump() -> None:
    state = new(3)
    hands = [["AH", "KH", "QH", "3C", "4C"], ["2S", "3S", "4S", "5S", "6S"], ["2H", "7D", "8D", "9D", "TD"]]
    deal(state, 2, hands, "2H")
    _stay_keep(state)
    assert state.view_json(0)["sure_to_win"]
    assert legal(state) == {"play:AH"}
    with pytest.raises(IllegalAction, match="sure to win three tricks"):
        state.apply(0, "play:3C")


def test_not_sure_when_a_higher_trump_is_outstanding() -> None:
    # KH is in the deck: nobody can know it is dead, so AH QH JH is not "sure".
    state = new(3)
    hands = [["AH", "QH", "JH", "3C", "4C"], ["2S", "3S", "4S", "5S", "6S"], ["2H", "7D", "8D", "9D", "TD"]]
    deal(state, 2, hands, "2H")
    _stay_keep(state)
    assert not state.view_json(0)["sure_to_win"]
    assert legal(state) == {"play:AH", "play:QH", "play:JH", "play:3C", "play:4C"}


def test_own_discarded_trump_is_not_outstanding() -> None:
    """Seed: "A player who is sure to win 3 tricks irrespective of how the cards are played ...
    If it is their turn to lead, they must lead with their highest trump."  Ruling: sure when
    tricks won plus "the count of the highest outstanding trumps they hold reaches 3".  Once the
    exchange is over the discard pile is out of play, and a player knows their own discards still
    in it: a trump they discarded is dead, not outstanding.  Seat 0 discards AH and keeps
    KH QH JH, the three highest trumps left in play: sure, so it must lead KH."""
    state = new(3)
    hands = [["AH", "KH", "QH", "JH", "3C"], ["2S", "3S", "4S", "5S", "6S"], ["2H", "7D", "8D", "9D", "TD"]]
    deal(state, 2, hands, "2H")
    everyone(state, "stay")
    state.apply(0, "exchange:AH")
    state.apply(1, "exchange")
    state.apply(2, "exchange")
    view = state.view_json(0)
    assert view["my_discards"] == ["AH"]
    assert view["sure_to_win"]
    assert legal(state) == {"play:KH"}
    # Another seat's discards are unknown to seat 0: seat 2 discarding AH leaves seat 0 unsure.
    state = new(3)
    hands = [["KH", "QH", "JH", "3C", "4C"], ["2S", "3S", "4S", "5S", "6S"], ["AH", "7D", "8D", "9D", "2H"]]
    deal(state, 2, hands, "2H")
    everyone(state, "stay")
    state.apply(0, "exchange")
    state.apply(1, "exchange")
    state.apply(2, "exchange:AH")
    assert not state.view_json(0)["sure_to_win"]
    assert legal(state) == {"play:KH", "play:QH", "play:JH", "play:3C", "play:4C"}


def test_sure_to_win_follows_with_highest_trump_unless_last() -> None:
    state = new(3)
    hands = [["5C", "6C", "7C", "8C", "9C"], ["AH", "KH", "QH", "3D", "4D"], ["2H", "TC", "8D", "9D", "TD"]]
    deal(state, 2, hands, "2H")
    _stay_keep(state)
    state.apply(0, "play:5C")
    assert state.view_json(1)["sure_to_win"]
    assert legal(state) == {"play:AH"}
    with pytest.raises(IllegalAction, match="highest trump"):
        state.apply(1, "play:QH")
    # The same hand playing last to the trick is free among winning trumps.
    state = new(3)
    hands = [["5C", "6C", "7C", "8C", "9C"], ["2S", "TC", "8D", "9D", "TD"], ["AH", "KH", "QH", "2H", "4D"]]
    deal(state, 2, hands, "2H")
    _stay_keep(state)
    state.apply(0, "play:5C")
    state.apply(1, "play:TC")
    assert state.view_json(2)["sure_to_win"]
    assert legal(state) == {"play:AH", "play:KH", "play:QH", "play:2H"}


def test_sure_counts_tricks_already_won() -> None:
    state = new(3)
    hands = [["AH", "AS", "AD", "KS", "4C"], ["2S", "3S", "4S", "5S", "6S"], ["2H", "7S", "8S", "9D", "TD"]]
    deal(state, 2, hands, "2H")
    _stay_keep(state)
    # AH alone (1) is not sure; after winning two tricks AH makes three.
    assert not state.view_json(0)["sure_to_win"]
    state.apply(0, "play:AS")
    state.apply(1, state.legal_actions(1)[0])
    state.apply(2, state.legal_actions(2)[0])
    assert state.view_json(None)["last_winner"] == 0
    state.apply(0, "play:AD")
    state.apply(1, state.legal_actions(1)[0])
    state.apply(2, state.legal_actions(2)[0])
    assert state.view_json(None)["last_winner"] == 0
    assert state.view_json(0)["sure_to_win"]
    assert legal(state) == {"play:AH"}


# --------------------------------------------------------------------- payments
def test_sweep_makes_others_go_bourre_and_skip_the_ante() -> None:
    state = new(3, deals=2)
    hands = [["AH", "KH", "QH", "JH", "TH"], ["2S", "3S", "4S", "5S", "6S"], ["2H", "7D", "8D", "9D", "TD"]]
    deal(state, 2, hands, "2H")
    _stay_keep(state)
    while state.view_json(None)["phase"] == "play":
        s = state.to_act()[0]
        state.apply(s, state.legal_actions(s)[0])
    view = state.view_json(None)
    assert [s["tricks"] for s in view["seats"]] == [5, 0, 0]
    assert [s["bourre"] for s in view["seats"]] == [False, True, True]
    # Pot 3: seat 0 takes 3; seats 1 and 2 each pay the pot (3).
    assert [s["balance"] for s in view["seats"]] == [2, -4, -4]
    assert view["pot"] == 6
    assert state.deal_records()[0].scores == [2.0, -4.0, -4.0]
    assert [s["ante_exempt"] for s in view["seats"]] == [False, True, True]
    state.apply_chance(state.sample_chance(MatchRng(0)))
    view = state.view_json(None)
    assert view["pot"] == 7
    assert [s["balance"] for s in view["seats"]] == [1, -4, -4]


def test_chip_limit_caps_take_and_bourre_payment() -> None:
    state = new(3, chip_limit=2)
    hands = [["AH", "KH", "QH", "JH", "TH"], ["2S", "3S", "4S", "5S", "6S"], ["2H", "7D", "8D", "9D", "TD"]]
    deal(state, 2, hands, "2H")
    _stay_keep(state)
    while state.view_json(None)["phase"] == "play":
        s = state.to_act()[0]
        state.apply(s, state.legal_actions(s)[0])
    view = state.view_json(None)
    assert [s["balance"] for s in view["seats"]] == [1, -3, -3]
    assert view["pot"] == 5


def test_folded_player_loses_only_the_ante() -> None:
    state = new(3)
    hands = [["AH", "KH", "QH", "JH", "TH"], ["2S", "3S", "4S", "5S", "6S"], ["2H", "7D", "8D", "9D", "TD"]]
    deal(state, 2, hands, "2H")
    state.apply(0, "stay")
    state.apply(1, "fold")
    state.apply(2, "stay")
    assert state.legal_actions(1) == ()
    everyone(state, "exchange")
    while state.view_json(None)["phase"] == "play":
        s = state.to_act()[0]
        assert s != 1
        state.apply(s, state.legal_actions(s)[0])
    view = state.view_json(None)
    assert [s["balance"] for s in view["seats"]] == [2, -1, -4]
    assert view["seats"][1]["hand_size"] == 5


def _settle_model(view_before: dict[str, Any], view_after: dict[str, Any], limit: int) -> None:
    """Check one deal's payments against an independent reading of the rules."""
    seats = view_after["seats"]
    pot = view_before["pot"]
    cap = min(pot, limit) if limit else pot
    stayers = [s["seat"] for s in seats if s["status"] == "stay"]
    expected = [s["balance"] for s in view_before["seats"]]
    exempt = [False] * len(seats)
    if stayers:
        most = max(seats[s]["tricks"] for s in stayers)
        top = [s for s in stayers if seats[s]["tricks"] == most]
        if len(top) == 1:
            expected[top[0]] += cap
            assert view_after["pot_winner"] == top[0]
        else:
            assert view_after["pot_winner"] is None
            for s in top:
                exempt[s] = True
        for s in stayers:
            if seats[s]["tricks"] == 0:
                expected[s] -= cap
                exempt[s] = True
                assert seats[s]["bourre"]
    assert sum(s["tricks"] for s in seats) == (5 if stayers else 0)
    assert [s["balance"] for s in seats] == expected
    assert [s["ante_exempt"] for s in seats] == exempt


@pytest.mark.parametrize("limit", [0, 20, 3])
def test_payments_match_the_rules_over_many_deals(limit: int) -> None:
    ties = bourres = capped = 0
    for seed in range(30):
        players = 3 + seed % 6
        state = new(players, deals=6, chip_limit=limit)
        rng = MatchRng(seed)
        pick = random.Random(seed)
        before: dict[str, Any] | None = None
        while not state.is_terminal():
            if state.is_chance():
                state.apply_chance(state.sample_chance(rng))
                if state.view_json(None)["phase"] == "stay":
                    before = state.view_json(None)
                continue
            s = state.to_act()[0]
            acts = state.legal_actions(s)
            state.apply(s, "stay" if "stay" in acts and pick.random() < 0.7 else pick.choice(acts))
            if state.is_chance() and state.view_json(None)["phase"] == "reshuffle":
                continue
            if state.view_json(None)["phase"] == "deal" or state.is_terminal():
                assert before is not None
                _settle_model(before, state.view_json(None), limit)
                after = state.view_json(None)
                ties += after["pot_winner"] is None and any(x["status"] == "stay" for x in after["seats"])
                bourres += any(x["bourre"] for x in after["seats"])
                capped += bool(limit) and before["pot"] > limit
            assert state.invariants() == []
    assert ties and bourres
    if limit == 3:
        assert capped


def test_ties_carry_the_pot_and_tied_players_skip_the_ante() -> None:
    for seed in range(200):
        state = random_match(4, seed, deals=1)
        view = state.view_json(None)
        tricks = [s["tricks"] for s in view["seats"] if s["status"] == "stay"]
        if len(tricks) > 1 and tricks.count(max(tricks)) > 1:
            break
    else:
        raise AssertionError("no tie in 200 deals")
    # The pot had 4 antes; nobody took it; bourré payments only add to it.
    bourre = sum(1 for s in view["seats"] if s["bourre"])
    assert view["pot"] == 4 + 4 * bourre
    tied = [s["seat"] for s in view["seats"] if s["status"] == "stay" and s["tricks"] == max(tricks)]
    assert all(view["seats"][s]["ante_exempt"] for s in tied)
    assert all(view["seats"][s]["balance"] == -1 for s in tied)


# ------------------------------------------------------------- views, replays
def test_views_hide_other_hands_and_deck() -> None:
    state = new(4)
    state.apply_chance(state.sample_chance(MatchRng(4)))
    dealer = state.view_json(None)["dealer"]
    turned = state.view_json(None)["turned_card"]
    for seat in range(4):
        text = json.dumps(state.view_json(seat))
        for other in range(4):
            for card in state.view_json(other)["hand"]:
                if other != seat and card != turned:
                    assert f'"{card}"' not in text
    assert state.view_json(None)["hand"] == []
    assert turned in state.view_json(dealer)["hand"]


def test_describe_payloads() -> None:
    game = get_game("bourre")
    info = game.describe("exchange:2C:7H")
    assert (info.kind, info.cards, info.amount) == ("exchange", ("2C", "7H"), 2)
    assert game.describe("exchange").amount == 0
    assert game.describe("play:QH").cards == ("QH",)
    assert game.describe("stay").kind == "stay" and game.describe("fold").kind == "fold"


def test_options() -> None:
    game = get_game("bourre")
    assert game.options(3) == {"deals": 10, "chip_limit": 20}
    with pytest.raises(ValueError, match="deals"):
        game.new_state(3, {"deals": 0})
    state = random_match(3, 1, deals=3)
    assert len(state.deal_records()) == 3
    assert state.result().scores == tuple(s["balance"] for s in state.view_json(None)["seats"])


@settings(max_examples=25, deadline=None)
@given(players=st.integers(3, 8), seed=st.integers(0, 10**6), limit=st.sampled_from([0, 1, 5, 20]))
def test_chips_conserved_and_replay_reruns(players: int, seed: int, limit: int) -> None:
    state = random_match(players, seed, deals=4, chip_limit=limit)
    view = state.view_json(None)
    assert sum(s["balance"] for s in view["seats"]) + view["pot"] == 0
    records = state.deal_records()
    assert len(records) == 4
    assert sum(sum(r.scores or []) for r in records) == -view["pot"]
    replay = json.loads(json.dumps(build_replay(state, seed=seed, seats=[str(i) for i in range(players)])))
    assert rerun(replay).result() == state.result()


# ----------------------------------------------------------------------- bot
def _load_bot() -> ModuleType:
    path = ROOT / "clients/python/cardarena_sdk/strategies/bourre.py"
    spec = importlib.util.spec_from_file_location("bourre_strategy", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _bot_policy(bot: ModuleType, rng: random.Random) -> Policy:
    def policy(view: Any, legal: Sequence[str], seat: int) -> str:
        return str(bot.choose(view.to_json(), legal, rng))

    return policy


def test_bourre_bot_beats_random() -> None:
    bot = _load_bot()
    players = 4
    mine = others = firsts = 0.0
    seeds = range(24)
    for seed in seeds:
        me = seed % players
        rng = random.Random(seed)
        policies = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(players)]
        policies[me] = _bot_policy(bot, rng)
        result = play_match("bourre", players, policies, seed=seed).result()
        mine += result.scores[me]
        others += (sum(result.scores) - result.scores[me]) / (players - 1)
        firsts += result.ranks[me] == 1
    assert mine / len(seeds) > 10 + others / len(seeds)
    assert firsts / len(seeds) >= 0.6
