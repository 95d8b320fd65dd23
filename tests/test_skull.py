"""Skull: every rule of the seed and each edge of the rulings, plus properties and the bot."""

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
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent


def start(players: int = 4, first: int = 0) -> State:
    state = get_game("skull").new_state(players)
    assert state.to_act() == (CHANCE,)
    state.apply_chance({"dealer": first, "first_player": first})
    return state


def place_first(state: State, cards: dict[int, str]) -> None:
    for seat, card in cards.items():
        state.apply(seat, f"place:{card}")


def roses(players: int, **special: str) -> dict[int, str]:
    cards = {s: "rose" for s in range(players)}
    for key, card in special.items():
        cards[int(key[1:])] = card
    return cards


def seat_view(state: State, seat: int | None) -> dict[str, Any]:
    return state.view_json(seat)


# ------------------------------------------------------------------ opening and placement
def test_first_player_is_drawn_and_recorded() -> None:
    firsts = set()
    for seed in range(30):
        state = get_game("skull").new_state(4)
        outcome = state.sample_chance(MatchRng(seed))
        assert outcome["dealer"] == outcome["first_player"]
        state.apply_chance(outcome)
        firsts.add(outcome["first_player"])
        assert state.deal_records()[0].chance == outcome
        assert state.view_json(None)["first_player"] == outcome["first_player"]
    assert firsts == {0, 1, 2, 3}


def test_bad_opening_outcome_is_rejected() -> None:
    state = get_game("skull").new_state(4)
    with pytest.raises(InvalidChance):
        state.apply_chance({"dealer": 5, "first_player": 5})
    with pytest.raises(InvalidChance):
        state.apply_chance({"dealer": 1, "first_player": 2})
    with pytest.raises(InvalidChance):
        state.apply_chance({})


def test_three_to_six_players() -> None:
    game = get_game("skull")
    assert (game.min_players, game.max_players) == (3, 6)
    for n in (3, 4, 5, 6):
        state = start(n)
        assert state.to_act() == tuple(range(n))
        for seat in range(n):
            assert seat_view(state, seat)["hand"] == ["rose", "rose", "rose", "skull"]
    with pytest.raises(ValueError, match="players"):
        game.new_state(2)


def test_first_placement_is_simultaneous_and_secret() -> None:
    a, b = start(), start()
    assert a.to_act() == (0, 1, 2, 3)
    assert a.legal_actions(2) == ("place:rose", "place:skull")
    a.apply(2, "place:skull")
    b.apply(2, "place:rose")
    assert a.to_act() == b.to_act() == (0, 1, 3)
    for seat in (None, 0, 1, 3):
        assert seat_view(a, seat) == seat_view(b, seat)
    assert seat_view(a, 2)["pile"] == ["skull"]
    assert seat_view(a, 2)["hand"] == ["rose", "rose", "rose"]
    with pytest.raises(NotYourTurn, match="placed your first card"):
        a.apply(2, "place:rose")
    with pytest.raises(IllegalAction, match="places a first card before anyone may bid"):
        a.apply(0, "bid:1")
    # Answer in any order; the others' answers stay hidden too.
    for s in (3, 0, 1):
        a.apply(s, "place:rose")
        b.apply(s, "place:rose")
    assert a.to_act() == (0,)
    assert seat_view(a, 1) == seat_view(b, 1)
    assert [x["pile_size"] for x in seat_view(a, 1)["seats"]] == [1, 1, 1, 1]


def test_public_action_hides_card_types() -> None:
    state = start()
    assert state.public_action(1, 2, "place:skull") == "place"
    assert state.public_action(None, 2, "place:rose") == "place"
    assert state.public_action(2, 2, "place:skull") == "place:skull"
    assert state.public_action(1, 2, "lose:skull") == "lose"
    assert state.public_action(1, 2, "bid:3") == "bid:3"
    assert state.public_action(1, 2, "flip:0") == "flip:0"


def test_turn_place_or_bid_and_maximum_bid() -> None:
    state = start(first=1)
    place_first(state, roses(4))
    assert state.to_act() == (1,)
    legal = state.legal_actions(1)
    assert legal == ("place:rose", "place:skull", "bid:1", "bid:2", "bid:3", "bid:4")
    state.apply(1, "place:rose")
    assert state.to_act() == (2,)
    assert "bid:5" in state.legal_actions(2) and "bid:6" not in state.legal_actions(2)
    with pytest.raises(IllegalAction, match="from 1 to 5"):
        state.apply(2, "bid:6")
    with pytest.raises(IllegalAction, match="only after a bid"):
        state.apply(2, "pass")
    state.apply(2, "bid:2")
    assert seat_view(state, None)["phase"] == "bid"
    assert state.to_act() == (3,)
    assert state.legal_actions(3) == ("pass", "bid:3", "bid:4", "bid:5")
    with pytest.raises(IllegalAction, match="no more cards"):
        state.apply(3, "place:rose")
    with pytest.raises(IllegalAction, match="from 3 to 5"):
        state.apply(3, "bid:2")


def test_empty_hand_must_bid() -> None:
    state = start(3)
    place_first(state, roses(3, s0="skull"))
    for _ in range(3):
        for seat in (0, 1, 2):
            assert state.to_act() == (seat,)
            hand = seat_view(state, seat)["hand"]
            state.apply(seat, "place:rose" if "rose" in hand else "place:skull")
    # Everyone has all four cards down: only bids are left.
    assert all(not a.startswith("place") for a in state.legal_actions(0))
    assert state.legal_actions(0) == tuple(f"bid:{b}" for b in range(1, 13))


def test_passed_players_leave_the_bidding_and_max_bid_ends_it() -> None:
    state = start()
    place_first(state, roses(4))
    state.apply(0, "bid:1")
    state.apply(1, "pass")
    state.apply(2, "bid:2")
    state.apply(3, "pass")
    state.apply(0, "bid:3")
    assert state.to_act() == (2,), "seat 1 passed and is skipped"
    assert seat_view(state, None)["seats"][1]["passed"] is True
    state.apply(2, "bid:4")
    # 4 = every card on the table: nobody can raise, the reveal starts at once.
    assert seat_view(state, None)["phase"] == "flip"
    assert state.to_act() == (2,)
    assert seat_view(state, None)["seats"][2]["revealed"] == ["rose"]


# ------------------------------------------------------------------ revealing and scoring
def test_own_pile_first_and_success_scores_and_starts_next_round() -> None:
    state = start()
    place_first(state, roses(4))
    state.apply(0, "place:rose")
    state.apply(1, "bid:3")
    for s in (2, 3, 0):
        state.apply(s, "pass")
    view = seat_view(state, None)
    assert view["seats"][1]["revealed"] == ["rose"]
    assert state.legal_actions(1) == ("flip:0", "flip:2", "flip:3")
    with pytest.raises(IllegalAction, match="no unrevealed card"):
        state.apply(1, "flip:1")
    state.apply(1, "flip:0")
    assert seat_view(state, None)["seats"][0]["revealed"] == ["rose"]
    state.apply(1, "flip:0")
    view = seat_view(state, None)
    assert view["seats"][1]["points"] == 1
    assert view["last_success"] is True and view["last_bidder"] == 1 and view["last_bid"] == 3
    assert view["round"] == 2 and view["phase"] == "place_first" and view["first_player"] == 1
    assert [x["cards"] for x in view["seats"]] == [4, 4, 4, 4]
    assert view["seats"][0]["last_revealed"] == ["rose", "rose"]
    assert view["seats"][1]["last_revealed"] == ["rose"]


def test_reveal_stops_at_the_bid_inside_own_pile() -> None:
    state = start()
    place_first(state, roses(4))
    state.apply(0, "place:skull")  # skull on top of a rose
    state.apply(1, "place:rose")
    state.apply(2, "place:rose")
    state.apply(3, "place:rose")
    state.apply(0, "place:rose")  # pile: rose, skull, rose (top)
    state.apply(1, "bid:1")
    for s in (2, 3, 0):
        state.apply(s, "pass")
    # Seat 1's own pile has two roses: one reveal reaches the bid.
    view = seat_view(state, None)
    assert view["seats"][1]["points"] == 1
    assert view["seats"][1]["last_revealed"] == ["rose"]


def test_own_skull_bidder_chooses_the_lost_card() -> None:
    state = start()
    place_first(state, roses(4, s2="skull"))
    state.apply(0, "place:rose")
    state.apply(1, "place:rose")
    state.apply(2, "bid:2")
    for s in (3, 0, 1):
        state.apply(s, "pass")
    view = seat_view(state, None)
    assert view["phase"] == "lose" and view["seats"][2]["revealed"] == ["skull"]
    assert state.to_act() == (2,)
    assert state.legal_actions(2) == ("lose:rose", "lose:skull")
    other = state.clone()
    state.apply(2, "lose:skull")
    other.apply(2, "lose:rose")
    for seat in (None, 0, 1, 3):
        assert seat_view(state, seat) == seat_view(other, seat), "the lost card must stay secret"
    mine = seat_view(state, 2)
    assert mine["lost"] == ["skull"] and mine["hand"] == ["rose", "rose", "rose"]
    assert seat_view(other, 2)["lost"] == ["rose"]
    assert seat_view(state, 0)["lost"] == []
    view = seat_view(state, None)
    assert view["seats"][2]["cards"] == 3
    assert view["last_success"] is False and view["last_skull_owner"] == 2
    assert view["first_player"] == 2, "the skull's owner (the bidder) starts"
    assert state.to_act() == (1, 2, 3) or state.to_act() == (0, 1, 2, 3)
    assert state.legal_actions(2) == ("place:rose",)
    with pytest.raises(IllegalAction, match="no skull"):
        state.apply(2, "place:skull")


def test_other_skull_random_discard_is_a_chance_node() -> None:
    state = start()
    place_first(state, roses(4, s3="skull"))
    state.apply(0, "bid:3")
    for s in (1, 2, 3):
        state.apply(s, "pass")
    state.apply(0, "flip:1")
    state.apply(0, "flip:3")
    assert state.to_act() == (CHANCE,)
    assert seat_view(state, None)["phase"] == "discard"
    with pytest.raises(NotYourTurn, match="chance"):
        state.apply(0, "lose:rose")
    with pytest.raises(InvalidChance, match="bidder"):
        state.apply_chance({"seat": 3, "card": "rose"})
    with pytest.raises(InvalidChance):
        state.apply_chance({"seat": 0, "card": "ace"})
    # The server RNG draws among the bidder's 4 cards: a skull one time in four.
    draws = [state.sample_chance(MatchRng(seed))["card"] for seed in range(400)]
    assert 60 < draws.count("skull") < 140 and set(draws) == {"rose", "skull"}
    twin = state.clone()
    state.apply_chance({"seat": 0, "card": "skull"})
    twin.apply_chance({"seat": 0, "card": "rose"})
    for seat in (None, 1, 2, 3):
        assert seat_view(state, seat) == seat_view(twin, seat)
    assert seat_view(state, 0)["lost"] == ["skull"]
    assert seat_view(twin, 0)["lost"] == ["rose"]
    record = state.deal_records()[0].actions
    assert record[-1] == (CHANCE, json.dumps({"card": "skull", "seat": 0}, sort_keys=True))
    view = seat_view(state, None)
    assert view["first_player"] == 3, "the skull's owner starts the next round"
    assert view["seats"][0]["cards"] == 3


def test_discard_of_a_card_not_owned_is_rejected() -> None:
    state = start()
    place_first(state, roses(4, s1="skull"))
    state.apply(0, "bid:2")
    for s in (1, 2, 3):
        state.apply(s, "pass")
    state.apply(0, "flip:1")
    state.apply_chance({"seat": 0, "card": "skull"})
    # Next failure of seat 0 on someone else's skull: it has no skull to lose any more.
    place_first(state, roses(4, s2="skull"))
    assert state.to_act() == (1,)
    state.apply(1, "place:rose")
    state.apply(2, "place:rose")  # seat 2: skull covered by a rose
    state.apply(3, "place:rose")
    state.apply(0, "bid:3")
    for s in (1, 2, 3):
        state.apply(s, "pass")
    state.apply(0, "flip:2")
    assert state.to_act() == (0,)
    state.apply(0, "flip:2")
    assert state.to_act() == (CHANCE,)
    with pytest.raises(InvalidChance, match="no skull"):
        state.apply_chance({"seat": 0, "card": "skull"})
    assert all(state.sample_chance(MatchRng(seed))["card"] == "rose" for seed in range(30))


def lose_own_round(state: State, bidder: int) -> None:
    """A round in which ``bidder`` (the first player) shows its own skull at once."""
    n = state.players
    alive = [s for s in range(n) if seat_view(state, None)["seats"][s]["cards"] > 0]
    for s in alive:
        hand = seat_view(state, s)["hand"]
        state.apply(s, "place:skull" if s == bidder and "skull" in hand else "place:rose")
    assert state.to_act() == (bidder,)
    state.apply(bidder, "bid:1")
    for s in alive[alive.index(bidder) + 1 :] + alive[: alive.index(bidder)]:
        state.apply(s, "pass")


def test_next_starter_when_the_skull_owner_is_out() -> None:
    state = start(4, first=1)
    for _ in range(3):
        lose_own_round(state, 1)
        assert state.legal_actions(1) == ("lose:rose", "lose:skull")
        state.apply(1, "lose:rose")
        assert seat_view(state, None)["first_player"] == 1
    assert seat_view(state, 1)["hand"] == ["skull"]
    lose_own_round(state, 1)
    # Only the skull is left: it is lost without asking, and seat 1 is out.
    view = seat_view(state, None)
    assert view["seats"][1]["out"] is True and view["seats"][1]["cards"] == 0
    assert seat_view(state, 1)["lost"] == ["rose", "rose", "rose", "skull"]
    assert view["first_player"] == 2, "the skull's owner is out: the next player clockwise starts"
    assert state.to_act() == (0, 2, 3)
    with pytest.raises(NotYourTurn, match="no cards left"):
        state.apply(1, "place:rose")


def test_next_starter_skips_several_players_who_are_out() -> None:
    state = start(4, first=2)
    for seat in (2, 3):
        for _ in range(3):
            lose_own_round(state, seat)
            state.apply(seat, "lose:rose")
        lose_own_round(state, seat)
        assert seat_view(state, None)["seats"][seat]["out"] is True
    # Seat 3 went out as the skull's owner; seat 0 is next clockwise.
    assert seat_view(state, None)["first_player"] == 0


def test_last_player_with_cards_wins() -> None:
    state = start(3, first=1)
    for seat in (1, 2):
        for _ in range(3):
            lose_own_round(state, seat)
            state.apply(seat, "lose:rose")
        lose_own_round(state, seat)
    assert state.is_terminal()
    result = state.result()
    assert result.scores == (1.0, 0.0, 0.0) and result.ranks == (1, 2, 2)
    assert seat_view(state, None)["winner"] == 0
    assert state.deal_records()[0].scores == [1.0, 0.0, 0.0]


def test_two_points_win() -> None:
    state = start(4, first=3)
    for round_number in (1, 2):
        place_first(state, roses(4))
        assert state.to_act() == (3,)
        state.apply(3, "bid:1")
        for s in (0, 1, 2):
            state.apply(s, "pass")
        assert seat_view(state, None)["seats"][3]["points"] == round_number
    assert state.is_terminal()
    assert state.result().ranks == (2, 2, 2, 1)
    with pytest.raises(NotYourTurn, match="over"):
        state.apply(0, "place:rose")
    with pytest.raises(IllegalAction):
        start().result()


def test_errors_have_reasons_and_change_nothing() -> None:
    state = start()
    place_first(state, roses(4))
    before = json.dumps(state.view_json(None), sort_keys=True)
    with pytest.raises(UnknownAction, match="expected"):
        state.apply(0, "play:QH")
    with pytest.raises(NotYourTurn, match="waiting for seat 0"):
        state.apply(1, "bid:1")
    with pytest.raises(IllegalAction, match="only the bidder"):
        state.apply(0, "flip:1")
    with pytest.raises(IllegalAction, match="only after revealing your own skull"):
        state.apply(0, "lose:rose")
    assert json.dumps(state.view_json(None), sort_keys=True) == before
    assert state.check(0, "bid:9") is not None


def test_describe_gives_typed_payloads() -> None:
    game = get_game("skull")
    assert game.describe("place:skull").choice == "skull"
    assert game.describe("bid:3").amount == 3
    assert game.describe("flip:2").target == 2
    assert game.describe("lose:rose").kind == "lose"
    assert game.describe("pass").kind == "pass"


# ------------------------------------------------------------------ views and wire
def random_match(players: int, seed: int) -> State:
    bots = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(players)]
    return play_match("skull", players, bots, seed=seed)


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 6), st.integers(0, 2**32))
def test_random_matches_keep_the_rules(players: int, seed: int) -> None:
    state = random_match(players, seed)
    view = state.view_json(None)
    winner = view["winner"]
    alive = [s["seat"] for s in view["seats"] if s["cards"] > 0]
    assert winner in alive
    assert view["seats"][winner]["points"] == 2 or alive == [winner]
    assert all(s["points"] < 2 for s in view["seats"] if s["seat"] != winner)
    assert state.invariants() == []
    for seat in range(players):
        mine = state.view_json(seat)
        assert len(mine["lost"]) + mine["seats"][seat]["cards"] == 4
        assert sorted(mine["lost"] + mine["hand"] + mine["pile"]).count("skull") == 1
    replay = json.loads(json.dumps(build_replay(state, seed=seed, seats=["x"] * players)))
    assert rerun(replay).view_json(None) == view


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**16))
def test_hidden_cards_never_reach_other_views(seed: int, pick: int) -> None:
    """Two matches that differ only in one seat's first card look the same to everyone else."""
    a, b = start(4, first=seed % 4), start(4, first=seed % 4)
    picker = random.Random(pick)
    secret_seat = seed % 4
    for seat in range(4):
        if seat == secret_seat:
            a.apply(seat, "place:skull")
            b.apply(seat, "place:rose")
        else:
            card = picker.choice(["rose", "skull"])
            a.apply(seat, f"place:{card}")
            b.apply(seat, f"place:{card}")
        for viewer in [None, *range(4)]:
            if viewer != secret_seat:
                assert a.view_json(viewer) == b.view_json(viewer)


# ------------------------------------------------------------------ heuristic bot
def load_strategy() -> Callable[[dict[str, Any], Sequence[str], random.Random], str]:
    path = ROOT / "clients/python/cardarena_sdk/strategies/skull.py"
    spec = importlib.util.spec_from_file_location("skull_strategy", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    choose: Callable[[dict[str, Any], Sequence[str], random.Random], str] = module.choose
    return choose


@pytest.mark.parametrize("players", [3, 4, 6])
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
        wins += play_match("skull", players, bots, seed=seed).result().ranks[hero] == 1
    baseline = 1 / players
    assert wins / matches > baseline + 0.2, f"{wins}/{matches} wins vs baseline {baseline:.2f}"
