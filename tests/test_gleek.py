"""Gleek: dealer's 4/5/6, auction, ruff betting, gleeks and mournivals, tricks, the 66 and the pot."""

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
    IllegalAction,
    InvalidChance,
    MatchRng,
    NotYourTurn,
    Policy,
    UnknownAction,
    build_replay,
    get_game,
    play_match,
    public_forms,
    random_policy,
    rerun,
)
from cardarena.engine.cards import CODES
from cardarena.games.gleek import DECK, GleekState, ruff_of
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
ALL = [CODES[c] for c in DECK]


def new(**options: int) -> GleekState:
    state = get_game("gleek").new_state(3, options or None)
    assert isinstance(state, GleekState)
    return state


def deal(
    state: GleekState,
    fixed: dict[int, Sequence[str]],
    turned: str,
    stock: Sequence[str] = (),
    dealer: int = 2,
) -> None:
    """Deal with the given cards fixed; the rest filled in deck order."""
    used = {c for h in fixed.values() for c in h} | {turned} | set(stock)
    rest = [c for c in ALL if c not in used]
    hands = []
    for seat in range(3):
        hand = list(fixed.get(seat, ()))
        while len(hand) < 12:
            hand.append(rest.pop(0))
        hands.append(hand)
    stock = list(stock)
    while len(stock) < 7:
        stock.append(rest.pop(0))
    assert not rest
    state.apply_chance({"dealer": dealer, "hands": hands, "turned_card": turned, "stock": stock})


def auction_to_opener(state: GleekState) -> None:
    """Seat left of the dealer opens at 12, the others pass; it discards its 7 lowest cards."""
    opener = state.to_act()[0]
    state.apply(opener, "bid:12")
    state.apply(state.to_act()[0], "pass")
    state.apply(state.to_act()[0], "pass")
    for _ in range(7):
        state.apply(opener, state.legal_actions(opener)[0])


def balances(state: GleekState) -> list[int]:
    return [s["balance"] for s in state.view_json(None)["seats"]]


def random_match(seed: int, **options: int) -> GleekState:
    bots = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(3)]
    state = play_match("gleek", 3, bots, seed=seed, options=options or None)
    assert isinstance(state, GleekState)
    return state


def play_out(state: GleekState) -> None:
    while state.view_json(None)["phase"] == "play":
        s = state.to_act()[0]
        state.apply(s, state.legal_actions(s)[0])


# --------------------------------------------------------------------- the deal
def test_deal_layout_and_public_turned_card() -> None:
    state = new()
    state.apply_chance(state.sample_chance(MatchRng(3)))
    view = state.view_json(None)
    assert len(DECK) == 44 and not any(c[0] in "23" for c in ALL)
    assert view["stock_size"] == 7
    assert all(s["hand_size"] == 12 for s in view["seats"])
    assert view["trump_suit"] == view["turned_card"][1]
    for seat in range(3):
        assert view["turned_card"] not in state.view_json(seat)["hand"]
    with pytest.raises(InvalidChance):
        new().apply_chance(
            {"dealer": 0, "hands": [ALL[:12], ALL[12:24], ALL[24:36]], "turned_card": "2C", "stock": ALL[36:43]}
        )


def test_first_dealer_from_the_seed_then_the_deal_passes_left() -> None:
    """Seed: "The first dealer is chosen at random and for future rounds, the dealer passes to
    the left for each new deal" and "The player left of the dealer must start the bidding"."""
    firsts = set()
    for seed in range(8):
        records = random_match(seed, deals=4).deal_records()
        firsts.add(records[0].dealer)
        assert [r.dealer for r in records] == [(records[0].dealer + k) % 3 for k in range(4)]
        assert all(r.actions[0] == ((r.dealer + 1) % 3, "bid:12") for r in records)
    assert len(firsts) > 1


@pytest.mark.parametrize(("turned", "paid"), [("4H", 4), ("5H", 5), ("6H", 6), ("7H", 0), ("AH", 0)])
def test_dealer_paid_for_turned_four_five_six(turned: str, paid: int) -> None:
    state = new()
    deal(state, {}, turned)
    assert balances(state) == [-paid, -paid, 2 * paid]


# ---------------------------------------------------------------------- auction
def test_auction_opens_at_twelve_and_winner_pays_each_other_player() -> None:
    state = new()
    deal(state, {}, "7H")
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == ("bid:12",)
    with pytest.raises(IllegalAction, match="open at 12"):
        state.apply(0, "pass")
    with pytest.raises(IllegalAction, match="exactly 12"):
        state.apply(0, "bid:13")
    with pytest.raises(UnknownAction):
        state.apply(0, "bid:lots")
    state.apply(0, "bid:12")
    with pytest.raises(IllegalAction, match="between 13"):
        state.apply(1, "bid:12")
    state.apply(1, "bid:15")
    state.apply(2, "pass")
    # Seat 2 passed: it cannot re-enter, the auction goes 0 -> 1 -> 0 ...
    state.apply(0, "bid:16")
    assert state.to_act() == (1,)
    assert state.legal_actions(2) == ()
    state.apply(1, "pass")
    view = state.view_json(None)
    assert view["auction_winner"] == 0 and view["bid"] == 16
    assert balances(state) == [-32, 16, 16]
    assert view["phase"] == "discard" and state.to_act() == (0,)


def test_discard_seven_then_take_the_stock() -> None:
    state = new()
    stock = ["AS", "KS", "QS", "JS", "TS", "9S", "8S"]
    deal(state, {}, "7H", stock)
    hidden = state.secrets(0)
    assert set(stock) <= hidden
    auction_to_opener(state)
    mine = state.view_json(0)
    assert set(stock) <= set(mine["hand"])
    assert len(mine["hand"]) == 12 and len(mine["my_discards"]) == 7
    assert state.view_json(1)["my_discards"] == []
    for card in mine["my_discards"]:
        assert card in state.secrets(1) and card in state.secrets(None)
        assert card not in state.secrets(0)
    assert state.view_json(None)["phase"] == "ruff"
    assert state.invariants() == []


def test_discards_are_told_to_the_other_seats_without_the_card() -> None:
    """Rulings: "A bot sees only what its seat would see at a real table: its own hand, every
    public card ..."; the seed: the auction winner "discards 7 cards from their hand" (face
    down, unseen). Every action reaches every bot as an event in its ``public_action`` form,
    which named the discarded card to the other seats and to spectators."""
    state = new()
    deal(state, {}, "7H")
    state.apply(0, "bid:12")
    state.apply(1, "pass")
    state.apply(2, "pass")
    action = state.legal_actions(0)[0]
    assert state.public_action(0, 0, action) == action
    for viewer in (1, 2, None):
        assert state.public_action(viewer, 0, action) == "discard"
    assert public_forms(state, 0, action, [1, 2]) == ["discard"]
    # Public actions stay whole.
    assert state.public_action(1, 0, "bid:13") == "bid:13"
    assert state.public_action(1, 0, "play:AS") == "play:AS"


# ------------------------------------------------------------------------- ruff
def test_ruff_values() -> None:
    assert ruff_of(sum(1 << c for c in [12 + 39, 11 + 39, 8 + 39, 2 + 39]))[:2] == (0, 11 + 10 + 10 + 4)
    four_aces = sum(1 << (13 * s + 12) for s in range(4))
    assert ruff_of(four_aces)[0] == 1


def _ruff_deal(doubled_first: bool = False) -> GleekState:
    state = new(deals=3)
    # Seat 1 holds every spade (a 90-point ruff); seat 0 opens the auction at 12.
    spades = [r + "S" for r in "456789TJQKA"]
    deal(state, {1: [*spades, "4D"]}, "7H", ["4C", "5C", "6C", "7C", "8C", "9C", "TC"])
    auction_to_opener(state)
    return state


def test_ruff_showdown_best_ruff_takes_all_bets() -> None:
    state = _ruff_deal()
    before = balances(state)
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == ("open", "pass")
    state.apply(0, "open")
    assert state.legal_actions(1)[0] == "call" and "raise:10" in state.legal_actions(1)
    with pytest.raises(IllegalAction, match="ruff betting"):
        state.apply(1, "open")
    state.apply(1, "raise:3")
    state.apply(2, "call")
    assert state.view_json(None)["phase"] == "ruff"
    state.apply(0, "call")
    view = state.view_json(None)
    assert view["ruff_winners"] == [1]
    assert view["phase"] == "play"
    after = balances(state)
    assert [a - b for a, b in zip(after, before, strict=True)] == [-5, 10, -5]
    # Showdown ruffs are shown: seat 1's spades are public knowledge until played.
    assert view["seats"][1]["ruff_value"] == 90
    assert {"AS", "KS", "QS", "JS", "TS", "9S"} <= set(view["seats"][1]["known_cards"])
    assert "AS" not in state.secrets(0)


def test_ruff_two_folds_give_the_bets_without_showdown() -> None:
    state = _ruff_deal()
    before = balances(state)
    state.apply(0, "pass")
    state.apply(1, "pass")
    state.apply(2, "open")
    state.apply(0, "fold")
    state.apply(1, "fold")
    view = state.view_json(None)
    assert view["ruff_winners"] == [2]
    assert balances(state) == before
    assert all(s["ruff_value"] is None for s in view["seats"])


def test_ruff_tie_splits_bets_odd_stake_left_of_dealer() -> None:
    state = new()
    seat0 = ["AH", "KH", "QH", "4D", "5D", "4C", "5C", "6C", "7C", "8C", "9C", "TC"]
    seat1 = ["AS", "KS", "QS", "8H", "7H", "6H", "5H", "4H", "9D", "TD", "JC", "QC"]
    deal(state, {0: seat0, 1: seat1}, "JD", ["6D", "7D", "8D", "4S", "5S", "6S", "7S"])
    state.apply(0, "bid:12")
    state.apply(1, "pass")
    state.apply(2, "pass")
    for card in ["4C", "5C", "6C", "7C", "8C", "9C", "TC"]:
        state.apply(0, "discard:" + card)
    assert state.view_json(0)["my_ruff"] == state.view_json(1)["my_ruff"] == 31
    assert state.view_json(2)["my_ruff"] > 31
    before = balances(state)
    state.apply(0, "open")
    state.apply(1, "raise:1")
    state.apply(2, "call")
    state.apply(0, "raise:1")
    state.apply(1, "call")
    state.apply(2, "fold")
    view = state.view_json(None)
    assert view["ruff_winners"] == [0, 1]
    # Bets 4 + 4 + 3 = 11: split 6/5, the odd stake to seat 0 (first left of the dealer).
    assert [a - b for a, b in zip(balances(state), before, strict=True)] == [2, 1, -3]
    assert view["seats"][2]["ruff_value"] is None


def test_nobody_opens_doubles_next_deal() -> None:
    state = new(deals=2)
    deal(state, {}, "7H")
    auction_to_opener(state)
    for _ in range(3):
        state.apply(state.to_act()[0], "pass")
    view = state.view_json(None)
    assert view["next_ruff_doubled"] and not view["ruff_doubled"]
    assert view["phase"] == "play"
    play_out(state)
    state.apply_chance(state.sample_chance(MatchRng(1)))
    assert state.view_json(None)["ruff_doubled"]
    auction_to_opener(state)
    before = balances(state)
    opener = state.to_act()[0]
    state.apply(opener, "open")
    assert balances(state)[opener] == before[opener] - 4
    nxt = state.to_act()[0]
    state.apply(nxt, "raise:2")
    assert state.view_json(None)["ruff_bet"] == 8


def test_doubling_is_not_cumulative_and_bids_and_raises_are_capped() -> None:
    """Rulings made here (seed and rulings silent): two deals in a row without a ruff opening
    double the next ruff once (open 4, not 8); auction bids stop at 40 and a ruff raise at 10
    stakes (before doubling), so the action lists stay finite."""
    state = new(deals=3)
    for deal_number in (1, 2):
        state.apply_chance(state.sample_chance(MatchRng(deal_number)))
        opener = state.to_act()[0]
        state.apply(opener, "bid:12")
        raiser = state.to_act()[0]
        assert state.legal_actions(raiser)[-1] == "bid:40" and "bid:41" not in state.legal_actions(raiser)
        with pytest.raises(IllegalAction, match="40"):
            state.apply(raiser, "bid:41")
        state.apply(raiser, "pass")
        state.apply(state.to_act()[0], "pass")
        for _ in range(7):
            state.apply(opener, state.legal_actions(opener)[0])
        assert state.view_json(None)["ruff_doubled"] is (deal_number == 2)
        for _ in range(3):
            state.apply(state.to_act()[0], "pass")
        assert state.view_json(None)["next_ruff_doubled"]
        play_out(state)
    state.apply_chance(state.sample_chance(MatchRng(3)))
    auction_to_opener(state)
    assert state.view_json(None)["ruff_doubled"]
    before = balances(state)
    first = state.to_act()[0]
    state.apply(first, "open")
    assert balances(state)[first] == before[first] - 4, "doubled once, not twice"
    second = state.to_act()[0]
    assert state.legal_actions(second)[-2:] == ("raise:10", "fold")
    with pytest.raises(IllegalAction, match="1 to 10"):
        state.apply(second, "raise:11")


def test_ruff_raising_war_ends_after_three_raises() -> None:
    """Regression: two bots that raise whenever they may never ended the match (the ruff had
    no limit on raises and balances may go negative, so nothing stopped them).  Ruling made
    here (seed: "players may call, raise, or fold ... until ... a bet has been called with no
    raise since", no cap): the opening bet and at most three raises per ruff, then only
    ``call`` or ``fold``."""
    state = _ruff_deal()
    state.apply(0, "open")
    for seat in (1, 2, 0):
        assert "raise:1" in state.legal_actions(seat)
        state.apply(seat, "raise:1")
    assert state.legal_actions(1) == ("call", "fold")
    with pytest.raises(IllegalAction, match="3 raises: call or fold"):
        state.apply(1, "raise:1")
    assert state.view_json(None)["ruff_bet"] == 5
    state.apply(1, "call")
    state.apply(2, "call")
    assert state.view_json(None)["phase"] == "play"

    def raiser(view: Any, legal: Sequence[str], seat: int) -> str:
        raises = [a for a in legal if a.startswith("raise:")]
        return raises[-1] if raises else ("call" if "call" in legal else legal[0])

    match = new()
    rng = MatchRng(5)
    for _ in range(2000):  # a whole match is a few hundred actions
        if match.is_terminal():
            break
        if match.is_chance():
            match.apply_chance(match.sample_chance(rng))
            continue
        seat = match.to_act()[0]
        match.apply(seat, raiser(match.view(seat), match.legal_actions(seat), seat))
    assert match.is_terminal(), "three always-raising bots never finish the match"
    assert sum(match.result().scores) + match.view_json(None)["pot"] == 0


def test_the_view_counts_the_ruff_raises_made_and_left() -> None:
    """Every seat's view says how many raises the ruff has had and how many are left (at most
    three): a seat not to act (or a bot resumed mid-ruff) could tell it only from the events."""

    def counts(state: GleekState) -> list[tuple[int, int]]:
        return [(v["ruff_raises"], v["ruff_raises_left"]) for v in map(state.view_json, (None, 0, 1, 2))]

    state = _ruff_deal()
    assert counts(state) == [(0, 3)] * 4
    state.apply(0, "open")
    assert counts(state) == [(0, 3)] * 4
    for made, seat in enumerate((1, 2, 0), start=1):
        state.apply(seat, "raise:1")
        assert counts(state) == [(made, 3 - made)] * 4
    assert state.legal_actions(1) == ("call", "fold")  # what ruff_raises_left 0 means
    state.apply(1, "call")
    state.apply(2, "call")
    assert state.view_json(2)["phase"] == "play" and counts(state) == [(3, 0)] * 4
    play_out(state)
    state.apply_chance(state.sample_chance(MatchRng(1)))  # the next deal's ruff starts afresh
    assert counts(state) == [(0, 3)] * 4


def test_four_aces_beat_any_ruff() -> None:
    state = new()
    deal(state, {0: ["AC", "AD", "AH", "AS", "QC"], 1: ["KS", "QS", "JS", "TS", "9S", "8S"]}, "7D")
    auction_to_opener(state)  # seat 0 discards its 7 lowest cards, keeping the aces
    assert state.view_json(0)["my_four_aces"]
    state.apply(0, "open")
    state.apply(1, "call")
    state.apply(2, "fold")
    assert state.view_json(None)["ruff_winners"] == [0]


def test_four_aces_showdown_shows_the_aces_and_nothing_else() -> None:
    """Rulings: "four aces beat any ruff" and a bot sees "every public card" and nothing
    hidden. A four-aces hand shows its aces at the showdown, not a suit: its best single-suit
    sum was published as ``ruff_value``, a number about cards nobody was shown (here 60 or 50
    by the stock the auction winner took unseen)."""
    values = []
    for stock in (["4S", "5S", "6S", "7S", "8S", "9S", "TS"], ["4S", "5S", "6S", "7S", "8S", "9S", "TD"]):
        state = new()
        hand0 = ["AC", "AD", "AH", "AS", "KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C"]
        deal(state, {0: hand0}, "7D", stock)
        state.apply(0, "bid:12")
        state.apply(1, "pass")
        state.apply(2, "pass")
        for card in ["QC", "JC", "TC", "9C", "8C", "7C", "6C"]:
            state.apply(0, "discard:" + card)
        assert state.view_json(0)["my_four_aces"]
        state.apply(0, "open")
        state.apply(1, "call")
        state.apply(2, "fold")
        view = state.view_json(1)
        assert view["ruff_winners"] == [0]
        assert {"AC", "AD", "AH", "AS"} <= set(view["seats"][0]["known_cards"])
        assert "4S" not in view["seats"][0]["known_cards"]
        assert view["seats"][1]["ruff_value"] is not None, "a suit ruff is shown with its value"
        values.append(view["seats"][0]["ruff_value"])
    assert values == [None, None]


# ---------------------------------------------------------- gleeks, mournivals
def test_gleeks_and_mournivals_paid_by_each_other_player() -> None:
    state = new()
    deal(state, {1: ["AC", "AD", "AH", "KC", "KD", "KH", "KS", "JC", "JD", "JH"]}, "7S")
    auction_to_opener(state)
    before = balances(state)
    for _ in range(3):
        state.apply(state.to_act()[0], "pass")
    view = state.view_json(None)
    assert view["seats"][1]["gleeks"] == ["A", "J"]
    assert view["seats"][1]["mournivals"] == ["K"]
    # A gleek 4 + K mournival 6 + J gleek 1 = 11 from each of the two others.
    delta = [a - b for a, b in zip(balances(state), before, strict=True)]
    assert delta == [-11, 22, -11]
    assert {"AC", "KS", "JH"} <= set(view["seats"][1]["known_cards"])
    assert "KS" not in state.secrets(2)


# ----------------------------------------------------------------------- tricks
def test_follow_suit_trumps_win_and_trump_456_pay() -> None:
    state = new()
    deal(
        state,
        {0: ["AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C", "5C", "4C", "AD"], 1: ["4H", "AS"], 2: ["KD"]},
        "7H",
    )
    state.apply(0, "bid:12")
    state.apply(1, "pass")
    state.apply(2, "pass")
    for card in ["4C", "5C", "6C", "7C", "8C", "9C", "TC"]:
        state.apply(0, "discard:" + card)
    for _ in range(3):
        state.apply(state.to_act()[0], "pass")
    hand0 = state.view_json(0)["hand"]
    clubs = [c for c in hand0 if c[1] == "C"]
    state.apply(0, "play:" + clubs[0])
    assert not any(c[1] == "C" for c in state.view_json(1)["hand"])  # seat 0 held every club
    before = balances(state)
    state.apply(1, "play:4H")
    # The 4 of trumps earns 4 from each other player at once.
    assert [a - b for a, b in zip(balances(state), before, strict=True)] == [-4, 8, -4]
    state.apply(2, state.legal_actions(2)[0])
    assert state.view_json(None)["last_winner"] in (1, 2)


def test_deal_points_sum_to_66_and_pot_pays_score_minus_22() -> None:
    state = new(deals=1)
    # Turned JH: the dealer (seat 2) counts the jack's 9.
    deal(state, {}, "JH")
    auction_to_opener(state)
    for _ in range(3):
        state.apply(state.to_act()[0], "pass")
    before = balances(state)
    play_out(state)
    view = state.view_json(None)
    points = [s["deal_points"] for s in view["seats"]]
    assert sum(points) == 66
    assert view["seats"][2]["honours"] >= 9
    assert [3 * s["tricks"] + s["honours"] for s in view["seats"]] == points
    expected = [p - 22 for p in points]
    for seat, action in state.deal_records()[0].actions:
        if action in ("play:4H", "play:5H", "play:6H"):
            value = int(action[5])
            expected = [e + (2 * value if s == seat else -value) for s, e in enumerate(expected)]
    assert [a - b for a, b in zip(balances(state), before, strict=True)] == expected
    assert view["pot"] == 0
    assert state.deal_records()[0].scores == [float(p) for p in points]


def test_discarded_trump_honour_scores_for_nobody() -> None:
    state = new(deals=1)
    deal(state, {0: ["AH", "4C", "5C", "6C", "7C", "8C", "9C"]}, "7H")
    state.apply(0, "bid:12")
    state.apply(1, "pass")
    state.apply(2, "pass")
    for card in ["AH", "4C", "5C", "6C", "7C", "8C", "9C"]:
        state.apply(0, "discard:" + card)
    for _ in range(3):
        state.apply(state.to_act()[0], "pass")
    play_out(state)
    view = state.view_json(None)
    assert sum(s["deal_points"] for s in view["seats"]) == 66 - 15
    # The players pay the missing 15 net into the running pot.
    assert view["pot"] == 15
    assert state.invariants() == []


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), deals=st.integers(1, 4))
def test_stakes_conserved_points_sum_and_replay(seed: int, deals: int) -> None:
    state = random_match(seed, deals=deals)
    view = state.view_json(None)
    assert sum(s["balance"] for s in view["seats"]) + view["pot"] == 0
    records = state.deal_records()
    assert len(records) == deals
    assert all(sum(r.scores or []) <= 66 for r in records)
    replay = json.loads(json.dumps(build_replay(state, seed=seed, seats=["a", "b", "c"])))
    assert rerun(replay).result() == state.result()


def test_points_are_66_unless_an_honour_was_discarded() -> None:
    full = short = 0
    for seed in range(60):
        state = new(deals=1)
        rng = MatchRng(seed)
        pick = MatchRng(f"p{seed}")
        discarded: list[str] = []
        trump = ""
        while not state.is_terminal():
            if state.is_chance():
                state.apply_chance(state.sample_chance(rng))
                trump = state.view_json(None)["trump_suit"]
                continue
            s = state.to_act()[0]
            action = pick.choice(state.legal_actions(s))
            if action.startswith("discard:"):
                discarded.append(action[8:])
            state.apply(s, action)
        lost = sum({"A": 15, "K": 3, "Q": 3, "J": 9}.get(c[0], 0) for c in discarded if c[1] == trump)
        total = sum(state.deal_records()[0].scores or [])
        assert total == 66 - lost
        full += lost == 0
        short += lost > 0
    assert full and short


def test_must_follow_suit_reason() -> None:
    checked = 0
    for seed in range(20):
        state = new(deals=1)
        state.apply_chance(state.sample_chance(MatchRng(seed)))
        pick = MatchRng(seed)
        while not state.is_terminal():
            s = state.to_act()[0]
            view = state.view_json(s)
            if view["phase"] == "play" and view["trick"]:
                lead = view["trick"][0]["card"][1]
                off = [c for c in view["hand"] if c[1] != lead]
                if off and len(off) < len(view["hand"]):
                    with pytest.raises(IllegalAction, match="must follow"):
                        state.apply(s, "play:" + off[0])
                    assert all(a[-1] == lead for a in state.legal_actions(s))
                    checked += 1
            state.apply(s, pick.choice(state.legal_actions(s)))
    assert checked > 20


def test_not_your_turn_and_unknown() -> None:
    state = new()
    deal(state, {}, "7H")
    with pytest.raises(NotYourTurn):
        state.apply(1, "pass")
    with pytest.raises(UnknownAction):
        state.apply(0, "shout")
    with pytest.raises(IllegalAction, match="auction"):
        state.apply(0, "play:AS")


def test_describe_and_options() -> None:
    game = get_game("gleek")
    assert game.describe("bid:14").amount == 14
    assert game.describe("raise:3").kind == "raise"
    assert game.describe("discard:AS").cards == ("AS",)
    assert game.describe("open").kind == "open"
    assert game.options(3) == {"deals": 3}
    assert len(random_match(5).deal_records()) == 3


# ----------------------------------------------------------------------- bot
def _load_bot() -> ModuleType:
    path = ROOT / "clients/python/cardarena_sdk/strategies/gleek.py"
    spec = importlib.util.spec_from_file_location("gleek_strategy", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _bot_policy(bot: ModuleType, rng: random.Random) -> Policy:
    def policy(view: Any, legal: Sequence[str], seat: int) -> str:
        return str(bot.choose(view.to_json(), legal, rng))

    return policy


def test_gleek_bot_beats_random() -> None:
    bot = _load_bot()
    mine = others = firsts = 0.0
    seeds = range(24)
    for seed in seeds:
        me = seed % 3
        policies = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(3)]
        policies[me] = _bot_policy(bot, random.Random(seed))
        result = play_match("gleek", 3, policies, seed=seed).result()
        mine += result.scores[me]
        others += (sum(result.scores) - result.scores[me]) / 2
        firsts += result.ranks[me] == 1
    assert mine / len(seeds) > 50 + others / len(seeds)
    assert firsts / len(seeds) >= 0.6
