"""Coup: every rule of the seed and each edge of the rulings, plus properties and the bot."""

from __future__ import annotations

import importlib.util
import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from cardarena.engine import (
    CHANCE,
    IllegalAction,
    InvalidChance,
    InvalidOptions,
    MatchRng,
    NotYourTurn,
    State,
    UnknownAction,
    build_replay,
    get_game,
    play_match,
    random_policy,
    rerun,
)
from cardarena.games.coup import CODES
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import play_first_legal

ROOT = Path(__file__).resolve().parent.parent


def deal(hands: list[list[str]], dealer: int | None = None, **options: bool | int) -> State:
    """A match dealt exactly ``hands``; the dealer defaults to the last seat (seat 0 starts)."""
    players = len(hands)
    state = get_game("coup").new_state(players, options or None)
    used = {c for h in hands for c in h}
    deck = [c for c in CODES if c not in used]
    state.apply_chance({"dealer": players - 1 if dealer is None else dealer, "hands": hands, "deck": deck})
    return state


def view(state: State, seat: int | None = None) -> dict[str, Any]:
    return state.view_json(seat)


def coins(state: State) -> list[int]:
    return [s["coins"] for s in view(state)["seats"]]


def draw(state: State, seat: int, *cards: str) -> None:
    assert state.to_act() == (CHANCE,)
    state.apply_chance({"seat": seat, "draw": list(cards)})


def passes(state: State, *seats: int) -> None:
    for seat in seats:
        assert state.to_act() == (seat,), f"expected seat {seat}, got {state.to_act()}"
        state.apply(seat, "pass")


THREE = [["KC", "QC"], ["AC", "JC"], ["2C", "QD"]]


# ------------------------------------------------------------------ setup
def test_deal_and_setup() -> None:
    for n in range(2, 7):
        state = get_game("coup").new_state(n)
        outcome = state.sample_chance(MatchRng(n))
        state.apply_chance(outcome)
        v = view(state, None)
        assert v["deck_size"] == 15 - 2 * n
        assert coins(state) == [2] * n
        assert all(s["cards"] == 2 for s in v["seats"])
        assert state.to_act() == ((outcome["dealer"] + 1) % n,)
        assert state.deal_records()[0].chance == outcome
        assert v["call_the_coup"] is v["five_lives"] is (n == 2)
    with pytest.raises(InvalidChance):
        get_game("coup").new_state(3).apply_chance({"dealer": 0, "hands": [["KC", "KC"]] * 3, "deck": []})


def test_variant_options_only_for_two() -> None:
    game = get_game("coup")
    assert game.options(2) == {"call_the_coup": True, "five_lives": True, "max_turns": 200}
    assert game.options(2, {"call_the_coup": False})["call_the_coup"] is False
    with pytest.raises(InvalidOptions, match="two-player"):
        game.new_state(3, {"five_lives": True})


def test_a_match_always_ends_at_the_turn_limit() -> None:
    """Two players who always take the first legal action (what the server plays for a
    forfeited seat) keep calling a character the other does not hold: without the turn limit
    the match never ended.  At the limit the players still in with the most cards left, then
    coins, share first place."""
    game = get_game("coup")
    for limit in (200, 30):
        state = game.new_state(2, {"max_turns": limit})
        play_first_legal(state, 1)
        view = state.view_json(0)
        assert view["turns"] == limit and state.invariants() == []
        lives = [(s["lives"], s["coins"]) for s in view["seats"]]
        best = max(lives)
        assert state.result().scores == tuple(1.0 if x == best else 0.0 for x in lives)
        assert state.deal_records()[0].scores == list(state.result().scores)
        assert rerun(build_replay(state, seed=1, seats=("a", "b"))).result() == state.result()
    with pytest.raises(InvalidOptions, match="max_turns"):
        game.options(2, {"max_turns": 1})


def test_the_view_gives_the_turn_limit() -> None:
    """Near the turn limit the ranking is cards left, then coins: every seat's view gives the
    limit beside ``turns``, so a bot knows which turn is the last without the match options."""
    state = deal(THREE, max_turns=3)
    assert [view(state, s)["max_turns"] for s in (None, 0, 1, 2)] == [3] * 4
    for turn in (1, 2, 3):
        v = view(state, state.to_act()[0])
        assert (v["turns"], v["max_turns"], v["stage"]) == (turn, 3, "turn")
        state.apply(state.to_act()[0], "income")
    assert view(state)["stage"] == "over" and view(state)["turns"] == 3
    assert view(deal(THREE))["max_turns"] == 200


def test_turn_actions_and_costs() -> None:
    state = deal(THREE)
    legal = state.legal_actions(0)
    assert set(legal) == {
        "income",
        "foreign_aid",
        "tax",
        "exchange",
        "steal:1",
        "steal:2",
        "examine:1",
        "examine:2",
        "assassinate:1",
        "assassinate:2",
    } - {"assassinate:1", "assassinate:2"}
    with pytest.raises(IllegalAction, match="costs 3"):
        state.apply(0, "assassinate:1")
    with pytest.raises(IllegalAction, match="costs 7"):
        state.apply(0, "coup:1")
    with pytest.raises(UnknownAction, match="expected"):
        state.apply(0, "play:KC")
    with pytest.raises(NotYourTurn, match="waiting for seat 0"):
        state.apply(1, "income")
    state.apply(0, "income")
    assert coins(state) == [3, 2, 2]
    assert state.to_act() == (1,), "income opens no window"


def test_forced_coup_at_ten_coins() -> None:
    state = deal(THREE)
    for _ in range(24):
        state.apply(state.to_act()[0], "income")
    assert coins(state) == [10, 10, 10] and state.to_act() == (0,)
    assert coins(state)[0] >= 10
    assert set(state.legal_actions(0)) == {"coup:1", "coup:2"}
    with pytest.raises(IllegalAction, match="must coup"):
        state.apply(0, "income")
    before = coins(state)[0]
    state.apply(0, "coup:2")
    assert coins(state)[0] == before - 7
    assert state.to_act() == (2,)
    assert set(state.legal_actions(2)) == {"lose:2C", "lose:QD"}
    state.apply(2, "lose:QD")
    assert view(state)["seats"][2]["dead"] == ["QD"]


# ------------------------------------------------------------------ reaction windows
def test_window_order_starts_left_of_the_actor_and_first_taker_wins() -> None:
    state = deal([["KC", "QC"], ["AC", "JC"], ["2C", "QD"], ["KD", "JD"]])
    state.apply(0, "income")
    state.apply(1, "tax")  # seat 1 claims the Duke (a bluff)
    assert state.to_act() == (2,)
    assert state.legal_actions(2) == ("pass", "challenge")
    assert view(state, 2)["window"] == "action"
    state.apply(2, "pass")
    assert state.to_act() == (3,)
    state.apply(3, "challenge")  # seat 3 takes the window: seat 0 is never asked
    assert state.to_act() == (1,)
    assert set(state.legal_actions(1)) == {"lose:AC", "lose:JC"}
    state.apply(1, "lose:JC")
    assert coins(state) == [3, 2, 2, 2], "a bluffed tax pays nothing"
    assert view(state)["seats"][1]["dead"] == ["JC"]
    assert state.to_act() == (2,)
    log = view(state)["log"]
    assert [e["event"] for e in log[-4:]] == ["tax", "challenge", "bluffed", "lost"]


def test_true_claim_challenged_challenger_loses_and_claimant_redraws() -> None:
    state = deal(THREE)
    state.apply(0, "tax")
    state.apply(1, "challenge")
    # Seat 0 holds the Duke: shown, seat 1 loses a card of its choice.
    assert state.to_act() == (1,)
    state.apply(1, "lose:AC")
    assert state.to_act() == (CHANCE,)
    assert "KC" not in view(state, 0)["hand"], "the shown Duke went back into the deck"
    with pytest.raises(InvalidChance):
        state.apply_chance({"seat": 0, "draw": ["AC"]})  # dead, not in the deck
    draw(state, 0, "KC")
    assert sorted(view(state, 0)["hand"]) == ["KC", "QC"]
    assert coins(state) == [5, 2, 2], "the tax goes through"
    log = view(state)["log"]
    assert {"seat": 0, "event": "proved", "target": None, "character": "duke", "card": None} in log
    assert state.to_act() == (1,)


def test_assassination_refund_when_bluff_is_caught() -> None:
    state = deal(THREE)
    state.apply(0, "income")
    state.apply(1, "income")
    state.apply(2, "income")
    state.apply(0, "assassinate:1")  # seat 0 has no Assassin
    assert coins(state)[0] == 0
    passes(state, 1)
    state.apply(2, "challenge")
    state.apply(0, "lose:QC")
    assert coins(state)[0] == 3, "the cost is refunded when the action's claim fails"
    assert view(state)["seats"][1]["cards"] == 2


def test_caught_assassin_put_out_by_the_bluff_gets_no_refund() -> None:
    """An eliminated player's coins return to the bank (docs/games/coup.md, "Losing cards"), so
    an assassin whose caught bluff costs their last card is not refunded the 3 coins (it was:
    an out seat showed 3 coins)."""
    state = deal(THREE)
    state.apply(0, "tax")  # true: seat 0 holds the Duke KC
    passes(state, 1, 2)
    state.apply(1, "income")
    state.apply(2, "income")
    state.apply(0, "exchange")  # a bluff: no Inquisitor
    state.apply(1, "challenge")
    state.apply(0, "lose:QC")
    state.apply(1, "income")
    state.apply(2, "income")
    assert coins(state)[0] == 5
    state.apply(0, "assassinate:1")  # a bluff again: seat 0 holds only KC
    passes(state, 1)
    state.apply(2, "challenge")  # seat 0 loses its last card, KC, without a choice
    seat0 = view(state)["seats"][0]
    assert seat0["out"] is True and seat0["dead"] == ["QC", "KC"]
    assert seat0["coins"] == 0, "an eliminated player keeps no coins, refund included"
    assert state.to_act() == (1,)


def test_block_then_challenge_of_the_block() -> None:
    # Seat 0 steals from seat 1; seat 1 blocks as Captain (true); seat 2 challenges the block.
    state = deal(THREE)
    state.apply(0, "steal:1")
    assert state.legal_actions(1) == ("pass", "challenge", "block:captain", "block:inquisitor")
    state.apply(1, "block:captain")
    assert view(state)["window"] == "block_challenge"
    assert state.to_act() == (2,), "challenges of a block start left of the blocker"
    state.apply(2, "challenge")
    state.apply(2, "lose:QD")
    draw(state, 1, "JC")
    assert coins(state) == [2, 2, 2], "the steal is blocked"
    assert view(state)["seats"][2]["dead"] == ["QD"]
    assert state.to_act() == (1,)


def test_bluffed_block_caught_and_assassination_then_kills() -> None:
    state = deal(THREE)
    for seat in (0, 1, 2):
        state.apply(seat, "income")
    state.apply(0, "income")
    state.apply(1, "assassinate:2")  # seat 1 holds the Assassin
    assert state.to_act() == (2,)
    state.apply(2, "block:contessa")  # seat 2 holds QD: a true block
    assert state.to_act() == (0,)
    state.apply(0, "challenge")
    # Seat 2 proves the Contessa: seat 0 loses a card; the assassination is blocked, coins spent.
    state.apply(0, "lose:QC")
    draw(state, 2, "QD")
    assert coins(state)[1] == 0
    assert view(state)["seats"][2]["cards"] == 2

    bluff = deal([["KC", "QC"], ["AC", "JC"], ["2C", "KD"]])
    for seat in (0, 1, 2):
        bluff.apply(seat, "income")
    bluff.apply(0, "income")
    bluff.apply(1, "assassinate:2")
    bluff.apply(2, "block:contessa")  # a bluff: seat 2 has no Contessa
    bluff.apply(0, "challenge")
    bluff.apply(2, "lose:KD")  # the caught bluffer loses a card ...
    # ... and the assassination goes through: seat 2's last card dies, seat 2 is out.
    v = view(bluff)
    assert v["seats"][2]["out"] is True and v["seats"][2]["dead"] == ["KD", "2C"]
    assert bluff.to_act() == (0,)


def test_challenge_of_a_block_is_offered_from_the_actors_left() -> None:
    """Rulings: "Reaction windows (challenge, block, challenge of a block) are offered to the
    eligible players in turn order starting left of the actor". The challenge of a block
    started left of the blocker instead: with the actor at seat 0 and seat 2 blocking, seat 3
    was asked before seat 1."""
    state = deal([["KC", "QC"], ["AC", "JC"], ["2C", "QD"], ["KD", "JD"]])
    state.apply(0, "foreign_aid")
    passes(state, 1)
    state.apply(2, "block:duke")
    order = []
    while view(state)["window"] == "block_challenge":
        seat = state.to_act()[0]
        assert state.legal_actions(seat) == ("pass", "challenge")
        order.append(seat)
        state.apply(seat, "pass")
    assert order == [1, 3, 0]
    assert coins(state) == [2, 2, 2, 2], "the unchallenged block stops the foreign aid"
    # A steal blocked by its target: the same order, the blocker left out.
    state = deal([["KC", "QC"], ["AC", "JC"], ["2C", "QD"], ["KD", "JD"]])
    state.apply(0, "steal:2")
    passes(state, 1)
    state.apply(2, "block:inquisitor")
    assert state.to_act() == (1,)


def test_challenge_of_a_block_by_the_actor() -> None:
    state = deal(THREE)
    state.apply(0, "foreign_aid")
    assert state.legal_actions(1) == ("pass", "block:duke"), "no character claimed: no challenge"
    state.apply(1, "block:duke")  # seat 1 has no Duke
    assert state.to_act() == (2,)
    state.apply(2, "pass")
    assert state.to_act() == (0,)
    state.apply(0, "challenge")
    state.apply(1, "lose:AC")
    assert coins(state) == [4, 2, 2], "the failed block lets the foreign aid through"


def test_target_may_still_block_after_a_failed_challenge() -> None:
    state = deal(THREE)
    state.apply(0, "income")
    state.apply(1, "steal:0")  # true Captain
    state.apply(2, "challenge")
    state.apply(2, "lose:2C")
    draw(state, 1, "JC")
    assert view(state)["window"] == "block"
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == ("pass", "block:captain", "block:inquisitor")
    state.apply(0, "pass")
    assert coins(state) == [1, 4, 2]


def test_steal_takes_at_most_what_the_target_has() -> None:
    state = deal(THREE)
    state.apply(0, "steal:1")
    passes(state, 1, 2)
    state.apply(1, "income")
    state.apply(2, "steal:1")  # seat 1 has 1 coin
    passes(state, 0, 1)
    assert coins(state) == [4, 0, 3]
    assert "steal:1" not in state.legal_actions(0)


# ------------------------------------------------------------------ the Inquisitor
def test_exchange_draws_one_and_returns_one_secretly() -> None:
    state = deal(THREE)
    state.apply(0, "exchange")
    passes(state, 1, 2)
    assert state.to_act() == (CHANCE,)
    draw(state, 0, "AD")
    assert view(state, 0)["drawn"] == ["AD"]
    assert sorted(view(state, 0)["hand"]) == ["AD", "KC", "QC"]
    assert view(state, 1)["drawn"] == [] and "AD" in state.secrets(1)
    assert set(state.legal_actions(0)) == {"return:AD", "return:KC", "return:QC"}
    assert state.public_action(1, 0, "return:QC") == "return"
    state.apply(0, "return:QC")
    assert sorted(view(state, 0)["hand"]) == ["AD", "KC"]
    assert view(state)["deck_size"] == 9


def test_examine_shows_a_card_to_the_examiner_only() -> None:
    state = deal(THREE)
    state.apply(0, "examine:1")
    passes(state, 1, 2)
    assert state.to_act() == (1,)
    assert set(state.legal_actions(1)) == {"show:AC", "show:JC"}
    assert state.public_action(2, 1, "show:JC") == "show"
    assert state.public_action(0, 1, "show:JC") == "show:JC"
    state.apply(1, "show:JC")
    assert view(state, 0)["shown"] == "JC"
    assert view(state, 0)["known"] == [{"seat": 1, "card": "JC"}]
    assert "JC" not in state.secrets(0) and "JC" in state.secrets(2)
    assert view(state, 2)["shown"] is None and view(state, 2)["known"] == []
    assert state.legal_actions(0) == ("force", "leave")
    leave = state.clone()
    leave.apply(0, "leave")
    assert view(leave, 0)["known"] == [{"seat": 1, "card": "JC"}], "known until it leaves the hand"
    state.apply(0, "force")
    draw(state, 1, "JD")
    assert sorted(view(state, 1)["hand"]) == ["AC", "JD"]
    assert view(state, 0)["known"] == [], "a forced card is shuffled back: the knowledge is gone"


def test_forced_player_draws_a_new_card_before_the_shown_one_goes_back() -> None:
    """Seed (Inquisitor): "You may force that player to draw a new card and shuffle the
    revealed card back into the deck." The draw comes first, so it is never the shown card
    (the challenge rule says the other order: "shuffles the revealed card back into the deck
    and draws a new card"). The code put the card back first and could deal it again."""
    state = deal(THREE)
    state.apply(0, "examine:1")
    passes(state, 1, 2)
    state.apply(1, "show:JC")
    state.apply(0, "force")
    assert state.to_act() == (CHANCE,)
    assert "JC" in view(state, 1)["hand"], "the shown card is still in hand while drawing"
    with pytest.raises(InvalidChance):
        state.clone().apply_chance({"seat": 1, "draw": ["JC"]})
    for seed in range(40):
        clone = state.clone()
        outcome = clone.sample_chance(MatchRng(seed))
        assert outcome["draw"] != ["JC"]
        clone.apply_chance(outcome)
        assert "JC" not in view(clone, 1)["hand"] and len(view(clone, 1)["hand"]) == 2
        assert view(clone)["deck_size"] == 9 and clone.invariants() == []


@pytest.mark.parametrize("returned", ["JC", "AC"])
def test_examiner_does_not_learn_what_an_exchange_put_back(returned: str) -> None:
    """Rulings: "A bot sees only what its seat would see at a real table"; an exchange puts a
    card back face down (``public_action`` hides ``return:<card>``). The examiner's ``known``
    card stayed listed exactly when the examined player kept it, telling the examiner which
    card went back. Any return of that player's cards now ends what others knew of the hand."""
    state = deal(THREE)
    state.apply(0, "examine:1")
    passes(state, 1, 2)
    state.apply(1, "show:JC")
    state.apply(0, "leave")
    assert view(state, 0)["known"] == [{"seat": 1, "card": "JC"}]
    state.apply(1, "exchange")
    passes(state, 2, 0)
    draw(state, 1, "AD")
    assert view(state, 0)["known"] == [{"seat": 1, "card": "JC"}], "drawing alone changes nothing"
    state.apply(1, "return:" + returned)
    assert view(state, 0)["known"] == []
    assert "JC" in state.secrets(0)
    assert state.invariants() == []


# ------------------------------------------------------------------ two players
def two_player(hands: list[list[str]]) -> State:
    state = deal(hands)
    assert view(state)["call_the_coup"] and view(state)["five_lives"]
    return state


def rich(state: State, seat: int, amount: int) -> None:
    while coins(state)[seat] < amount:
        state.apply(state.to_act()[0], "income")
    while state.to_act() != (seat,):
        state.apply(state.to_act()[0], "income")


def test_call_the_coup_hit_and_replacement() -> None:
    state = two_player([["KC", "QC"], ["AC", "JC"]])
    rich(state, 0, 7)
    assert "coup:1:assassin" in state.legal_actions(0) and "coup:1" not in state.legal_actions(0)
    with pytest.raises(IllegalAction):
        state.apply(0, "coup:1")
    state.apply(0, "coup:1:assassin")
    assert view(state)["seats"][1]["dead"] == ["AC"]
    assert state.to_act() == (CHANCE,), "five lives: the first lost card is replaced"
    draw(state, 1, "AD")
    assert sorted(view(state, 1)["hand"]) == ["AD", "JC"]
    assert view(state)["seats"][1]["lives"] == 4


def test_call_the_coup_miss_reveals_hand_and_redraws() -> None:
    state = two_player([["KC", "QC"], ["AC", "JC"]])
    rich(state, 0, 7)
    before = coins(state)[0]
    state.apply(0, "coup:1:duke")
    assert coins(state)[0] == before - 7
    assert view(state)["log"][-1] == {
        "seat": 1,
        "event": "missed",
        "target": None,
        "character": "assassin captain",
        "card": None,
    }
    draw(state, 1, "KD", "2D")
    assert sorted(view(state, 1)["drawn"]) == ["2D", "KD"]
    legal = state.legal_actions(1)
    assert "return:AC:JC" in legal or "return:JC:AC" in legal
    state.apply(1, legal[0])
    v = view(state, 1)
    assert len(v["hand"]) == 2 and v["seats"][1]["dead"] == [] and v["seats"][1]["lives"] == 5


def test_five_lives_exact_count() -> None:
    state = two_player([["KC", "QC"], ["AC", "JC"]])
    deaths = 0
    rng = MatchRng(1)
    while not state.is_terminal():
        seats = state.to_act()
        if seats == (CHANCE,):
            state.apply_chance(state.sample_chance(rng))
            continue
        seat = seats[0]
        stage = view(state)["stage"]
        if stage == "turn":
            legal = state.legal_actions(seat)
            state.apply(seat, "tax" if seat == 1 and "tax" in legal else "income" if "income" in legal else legal[0])
        elif stage == "window":
            state.apply(seat, "challenge")
        else:
            state.apply(seat, state.legal_actions(seat)[0])
        cards = [s["cards"] for s in view(state)["seats"]]
        dead = [len(s["dead"]) for s in view(state)["seats"]]
        for s in (0, 1):
            if state.to_act() != (CHANCE,) and not state.is_terminal() and view(state)["stage"] != "return":
                assert cards[s] == (2 if dead[s] <= 3 else 5 - dead[s])
        deaths = max(deaths, *dead)
    assert deaths == 5, "someone lost all five lives"
    loser = [s for s in view(state)["seats"] if s["out"]]
    assert len(loser) == 1 and len(loser[0]["dead"]) == 5


# ------------------------------------------------------------------ elimination and result
def test_last_player_with_cards_wins() -> None:
    state = deal([["KC", "QC"], ["AC", "JC"], ["2C", "QD"]])
    # Seat 1 and seat 2 bluff taxes; seat 0 challenges each time.
    while not state.is_terminal():
        seats = state.to_act()
        if seats == (CHANCE,):
            state.apply_chance(state.sample_chance(MatchRng(5)))
            continue
        seat = seats[0]
        stage = view(state)["stage"]
        if stage == "turn":
            state.apply(seat, "income" if seat == 0 else "tax")
        elif stage == "window":
            state.apply(seat, "challenge" if seat == 0 else "pass")
        else:
            state.apply(seat, state.legal_actions(seat)[0])
    assert state.result().scores == (1.0, 0.0, 0.0) and state.result().ranks == (1, 2, 2)
    v = view(state)
    assert v["winner"] == 0 and v["seats"][1]["out"] and v["seats"][2]["out"]
    assert v["seats"][1]["coins"] == 0
    with pytest.raises(NotYourTurn, match="over"):
        state.apply(0, "income")


def test_out_players_are_skipped() -> None:
    state = deal([["KC", "QC"], ["AC", "JC"], ["2C", "QD"]])
    state.apply(0, "tax")
    state.apply(1, "pass")
    state.apply(2, "pass")
    state.apply(1, "tax")  # bluff
    state.apply(2, "pass")
    state.apply(0, "challenge")
    state.apply(1, "lose:AC")
    state.apply(2, "tax")  # bluff
    state.apply(0, "challenge")
    state.apply(2, "lose:2C")
    state.apply(0, "tax")
    passes(state, 1, 2)
    state.apply(1, "tax")
    state.apply(2, "challenge")
    assert view(state)["seats"][1]["out"] is True
    assert state.to_act() == (2,), "seat 1 is out and skipped"
    with pytest.raises(NotYourTurn, match="out of the game"):
        state.apply(1, "income")
    assert "steal:1" not in state.legal_actions(2)


def test_describe_gives_typed_payloads() -> None:
    game = get_game("coup")
    assert game.describe("steal:2").target == 2 and game.describe("steal:2").choice == "captain"
    info = game.describe("coup:1:duke")
    assert (info.kind, info.target, info.choice) == ("coup", 1, "duke")
    assert game.describe("block:contessa").choice == "contessa"
    assert game.describe("lose:KC").cards == ("KC",) and game.describe("lose:KC").choice == "duke"
    assert game.describe("return:KC:QD").cards == ("KC", "QD")
    assert game.describe("tax").choice == "duke"


# ------------------------------------------------------------------ views, wire, properties
def random_match(players: int, seed: int) -> State:
    bots = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(players)]
    return play_match("coup", players, bots, seed=seed)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**32))
def test_random_matches_keep_the_rules(players: int, seed: int) -> None:
    state = random_match(players, seed)
    v = view(state)
    alive = [s["seat"] for s in v["seats"] if not s["out"]]
    assert alive == [v["winner"]]
    lives = 5 if players == 2 else 2
    for s in v["seats"]:
        assert len(s["dead"]) == (lives if s["out"] else lives - s["lives"])
    assert state.invariants() == []
    replay = json.loads(json.dumps(build_replay(state, seed=seed, seats=["x"] * players)))
    assert rerun(replay).view_json(None) == v
    draws = [a for a in state.deal_records()[0].actions if a[0] == CHANCE]
    assert all(set(json.loads(text)) == {"seat", "draw"} for _, text in draws)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**32))
def test_hands_and_deck_never_leak(players: int, seed: int) -> None:
    game = get_game("coup")
    state = game.new_state(players)
    rng, picker = MatchRng(seed), MatchRng(seed ^ 0x5EED)
    while not state.is_terminal():
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        for viewer in [None, *range(players)]:
            text = json.dumps(state.view_json(viewer))
            hidden = state.secrets(viewer)
            assert not [c for c in hidden if f'"{c}"' in text]
            if viewer is not None:
                own = set(state.view_json(viewer)["hand"])
                assert not own & hidden
        for seat in state.to_act():
            state.apply(seat, picker.choice(state.legal_actions(seat)))


# ------------------------------------------------------------------ heuristic bot
def load_strategy() -> Callable[[dict[str, Any], Sequence[str], random.Random], str]:
    path = ROOT / "clients/python/cardarena_sdk/strategies/coup.py"
    spec = importlib.util.spec_from_file_location("coup_strategy", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    choose: Callable[[dict[str, Any], Sequence[str], random.Random], str] = module.choose
    return choose


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_heuristic_clearly_beats_random(players: int) -> None:
    choose = load_strategy()
    matches = 60
    wins = 0
    for seed in range(matches):
        hero = seed % players
        rng = random.Random(seed)

        def heuristic(view: Any, legal: Sequence[str], seat: int, rng: random.Random = rng) -> str:
            return choose(view.to_json(), legal, rng)

        bots = [heuristic if s == hero else random_policy(MatchRng(f"{seed}/{s}")) for s in range(players)]
        wins += play_match("coup", players, bots, seed=seed).result().ranks[hero] == 1
    baseline = 1 / players
    assert wins / matches > baseline + 0.3, f"{wins}/{matches} wins vs baseline {baseline:.2f}"
