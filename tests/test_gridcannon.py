"""Gridcannon: setup, royal placement, attacks, armour, ploys, cycling, scoring, views, bot."""

from __future__ import annotations

import importlib
import importlib.util
import json
import random
import statistics
from typing import Any

import pytest
from cardarena.engine import IllegalAction, InvalidChance, MatchRng, get_game, play_match, random_policy
from cardarena.games.gridcannon import DECK, GridcannonState
from hypothesis import given, settings
from hypothesis import strategies as st


def deal(prefix: list[str]) -> GridcannonState:
    """A game whose deck starts with ``prefix`` (the rest in a fixed order)."""
    rest = [c for c in DECK if c not in prefix]
    state = get_game("gridcannon").new_state(1)
    assert isinstance(state, GridcannonState)
    state.apply_chance({"dealer": 0, "deck": prefix + rest})
    return state


GRID = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "2D"]


def test_setup_sets_royals_and_ploys_aside() -> None:
    state = deal(["AS", "2C", "KH", "3C", "RJ", "4C", "5C", "6C", "7C", "8C", "9C", "2D"])
    view = state.view_json(0)
    assert [g["top"] for g in view["grid"]] == GRID
    assert view["ploys"] == ["AS", "RJ"]
    # KH: no heart, no red card but 2D (position 8, a corner): choice of R2 or B2.
    assert view["phase"] == "royal" and view["royal_to_place"] == "KH"
    # The two spots, then the ploys drawn in setup ("Ploys you can play whenever you like").
    assert state.legal_actions(0)[:3] == ("royal:R2", "royal:B2", "extract:0")
    state.apply(0, "royal:B2")
    assert state.view_json(0)["phase"] == "replace"
    assert state.legal_actions(0)[0] == "keep"


def test_royal_goes_beside_highest_same_suit_then_colour() -> None:
    state = deal([*GRID, "JC"])
    state.apply(0, "keep")
    # JC is drawn: the highest club on an edge with a free slot is 9C at position 7 (B1).
    assert {r["slot"]: r["card"] for r in state.view_json(0)["royals"]}["B1"] == "JC"
    state = deal([*GRID, "QH"])
    state.apply(0, "keep")
    # No heart: the highest red card is 2D at the corner 8: a choice.
    assert state.legal_actions(0) == ("royal:R2", "royal:B2")


def test_place_only_on_same_or_lower_value() -> None:
    state = deal([*GRID, "JC", "5S"])
    state.apply(0, "keep")
    view = state.view_json(0)
    assert view["pending"] == "5S"
    legal = state.legal_actions(0)
    assert legal == ("place:0", "place:1", "place:2", "place:3", "place:8")
    with pytest.raises(IllegalAction, match="same or lower"):
        state.apply(0, "place:5")


def test_jack_attack_any_suit_kills() -> None:
    # JC goes to B1 (beside 9C at 7); a card on 1 attacks it through 4 (6C) and 7 (9C): 15 >= 11.
    state = deal([*GRID, "JC", "5S"])
    state.apply(0, "keep")
    state.apply(0, "place:1")
    royals = {r["slot"]: r for r in state.view_json(0)["royals"]}
    assert royals["B1"]["dead"] and not royals["B1"]["alive"]
    assert state.view_json(0)["killed"] == 1


def test_jack_attack_too_weak_leaves_it_alive() -> None:
    grid = ["2C", "3C", "4C", "5C", "2H", "7C", "8C", "6C", "9D"]
    # JC: highest club on an edge: 8C at corner 6 (L2 or B0); choose B0, attacked from 0 via 3 (5C) and 6 (8C).
    state = deal([*grid, "JC", "9S"])
    state.apply(0, "keep")
    state.apply(0, "royal:L2")
    # L2 is attacked from 8 via 7 (6C) and 6 (8C): 14 >= 11 kills; from 2 nothing.
    state.apply(0, "place:2")
    assert {r["slot"]: r["alive"] for r in state.view_json(0)["royals"]}["L2"]


def test_queen_counts_only_her_colour_and_king_only_his_suit() -> None:
    # QH beside the highest heart; attack through a red and a black card counts only the red.
    grid = ["2C", "8H", "4C", "5C", "9S", "7C", "8C", "TH", "3D"]
    state = deal([*grid, "QH", "6S"])
    state.apply(0, "keep")
    # The highest heart on an edge is TH at 7 -> B1; attack from 1 via 4 (9S, black) and 7 (TH): 10 < 12.
    royals = {r["slot"]: r for r in state.view_json(0)["royals"]}
    assert royals["B1"]["card"] == "QH"
    state.apply(0, "place:1") if "place:1" in state.legal_actions(0) else None
    assert {r["slot"]: r["alive"] for r in state.view_json(0)["royals"]}["B1"]
    grid = ["2C", "8H", "4C", "5C", "3H", "7C", "8C", "TH", "3D"]
    state = deal([*grid, "QH", "9S"])
    state.apply(0, "keep")
    state.apply(0, "place:1")  # 3H + TH = 13 >= 12
    assert {r["slot"]: r["dead"] for r in state.view_json(0)["royals"]}["B1"]
    grid = ["2C", "8H", "4C", "5C", "4D", "7C", "8C", "9D", "3C"]
    state = deal([*grid, "KD", "9S"])
    state.apply(0, "keep")
    # KD beside 9D at 7 (B1); 4D + 9D = 13 >= 13 kills.
    state.apply(0, "place:1")
    assert {r["slot"]: r["dead"] for r in state.view_json(0)["royals"]}["B1"]
    grid = ["2C", "8H", "4C", "5C", "4H", "7C", "8C", "9D", "3C"]
    state = deal([*grid, "KD", "9S"])
    state.apply(0, "keep")
    state.apply(0, "place:1")  # 4H is not a diamond: 9 < 13
    assert {r["slot"]: r["alive"] for r in state.view_json(0)["royals"]}["B1"]


def test_corner_attacks_row_and_column() -> None:
    state = deal([*GRID, "JC"])
    state.apply(0, "keep")
    state._royal["R0"] = "JS"
    state._royal["B0"] = "JH"
    state._pending = "9H"
    # Placing on 0 attacks R0 via 1 (3C) + 2 (4C) = 7 and B0 via 3 (5C) + 6 (8C) = 13.
    state.apply(0, "place:0")
    royals = {r["slot"]: r for r in state.view_json(0)["royals"]}
    assert royals["B0"]["dead"] and royals["R0"]["alive"]


def test_armour_goes_to_most_similar_lowest_royal_and_natural_loss() -> None:
    grid = ["TC", "TD", "TH", "TS", "9C", "9D", "9H", "9S", "8C"]
    state = deal([*grid, "JC", "KC", "QS", "7H"])
    state.apply(0, "keep")
    while state.view_json(0)["phase"] == "royal":
        state.apply(0, state.legal_actions(0)[0])
    # 7H fits nowhere; no heart or red royal: the lowest royal overall is JC.
    view = state.view_json(0)
    assert view["pending"] == "7H"
    slots = {r["card"]: r["slot"] for r in view["royals"] if r["card"]}
    assert state.legal_actions(0) == (f"armour:{slots['JC']}",)
    state.apply(0, f"armour:{slots['JC']}")
    royal = {r["card"]: r for r in state.view_json(0)["royals"] if r["card"]}["JC"]
    assert royal["health"] == 18 and royal["armour"] == ["7H"]
    assert state.view_json(0)["outcome"] == "playing"


def test_natural_loss_threshold() -> None:
    grid = ["TC", "TD", "TH", "TS", "9C", "9D", "9H", "9S", "8C"]
    state = deal([*grid, "KC", "7D", "5C"])
    state.apply(0, "keep")
    state.apply(0, "royal:L0")  # TC at the corner 0: T0 or L0
    assert state.legal_actions(0) == ("armour:L0",)
    state.apply(0, "armour:L0")  # 7D: 13 + 7 = 20 >= 19
    view = state.view_json(0)
    assert view["outcome"] == "lost" and state.is_terminal()
    assert state.result().scores == (-12.0,)
    assert "cannot be killed" in view["end_reason"]


def test_extraction_puts_stack_at_bottom_bottom_card_first() -> None:
    state = deal([*GRID, "JC", "AS", "5S"])
    state.apply(0, "keep")
    state.apply(0, "place:8")  # attacks nothing; the next card is drawn
    assert state.view_json(0)["phase"] == "place"
    before = state.view_json(0)["deck_size"]
    state._grid[0] = ["2C", "3H"]
    state._deck.remove("3H")
    state._unknown -= 1
    before -= 1
    state.apply(0, "extract:0")
    view = state.view_json(0)
    assert view["deck_known_bottom"] == ["2C", "3H"]
    assert view["deck_size"] == before + 2
    assert view["grid"][0]["cards"] == [] and view["spent_ploys"] == ["AS"] and view["ploys"] == []


def test_reassign_moves_top_and_attacks() -> None:
    state = deal([*GRID, "JC", "RJ", "4S"])
    state.apply(0, "keep")
    # JC at B1; move 8C (pos 6) onto 1 (3C): attack B1 via 4 (6C) and 7 (9C) kills.
    assert "reassign:6:1" in state.legal_actions(0)
    assert "reassign:1:6" not in state.legal_actions(0)
    state.apply(0, "reassign:6:1")
    view = state.view_json(0)
    assert view["grid"][6]["cards"] == [] and view["grid"][1]["top"] == "8C"
    assert view["killed"] == 1 and view["spent_ploys"] == ["RJ"]


def test_cycling_without_living_royals() -> None:
    state = deal([*GRID, "5S", "6S", "AH", "JC", "7S"])
    state.apply(0, "keep")
    view = state.view_json(0)
    # 5S, 6S, AH cycle to the bottom once JC is found and placed; 7S is then drawn to place.
    assert view["pending"] == "7S"
    assert view["deck_known_bottom"] == ["5S", "6S", "AH"]
    assert view["ploys"] == []


def kill_all_royals_but_b1(state: GridcannonState) -> None:
    """Put the eleven other royals, dead, in every slot but B1 (taken from the deck)."""
    for slot, card in zip(
        ["T0", "T1", "T2", "R0", "R1", "R2", "L0", "L1", "L2", "B0", "B2"],
        ["QC", "KC", "QD", "KD", "JD", "QH", "KH", "JH", "QS", "KS", "JS"],
        strict=True,
    ):
        state._royal[slot] = card
        state._deck.remove(card)
        state._dead.add(slot)


def test_win_scores_unspent_ploys() -> None:
    state = deal([*GRID, "JC", "AS", "RJ", "5S"])
    state.apply(0, "keep")
    kill_all_royals_but_b1(state)
    state.apply(0, "place:1")
    assert state.is_terminal() and state.view_json(0)["outcome"] == "won"
    assert state.result().scores == (2.0,)


def test_out_of_cards_with_ploys_can_concede() -> None:
    state = deal([*GRID, "JC", "AS", "5S"])
    state.apply(0, "keep")
    state._deck.clear()
    state._unknown = 0
    state._pending = None
    state._advance()
    assert state.view_json(0)["phase"] == "out_of_cards"
    assert "concede" in state.legal_actions(0)
    state.apply(0, "concede")
    assert state.result().scores == (-12.0,)


def test_win_through_a_ploy_after_the_draw_pile_ran_out() -> None:
    """Seed: "If the draw pile runs out ... use any ploys you have left to fix the situation if
    you can": the last royal killed by a joker with the pile empty is a win, scored by the
    ploys left (docs/games/gridcannon.md)."""
    state = deal([*GRID, "JC", "AS", "RJ", "5S"])
    state.apply(0, "keep")  # JC goes beside 9C (B1); AS and RJ are ploys; 5S waits
    kill_all_royals_but_b1(state)
    state._deck.clear()
    state._unknown = 0
    state.apply(0, "place:8")  # 5S on 2D: the corner attacks only dead royals
    assert state.view_json(0)["phase"] == "out_of_cards" and not state.is_terminal()
    state.apply(0, "reassign:2:1")  # 4C onto 3C: 6C + 9C (15) kill JC at B1
    view = state.view_json(0)
    assert state.is_terminal() and view["outcome"] == "won" and view["killed"] == 12
    assert state.result().scores == (1.0,), "the unspent ace"


def test_bad_chance_is_rejected_and_changes_nothing() -> None:
    state = get_game("gridcannon").new_state(1)
    with pytest.raises(InvalidChance):
        state.apply_chance({"dealer": 0, "deck": list(DECK[:-1])})
    with pytest.raises(InvalidChance):
        state.apply_chance({"dealer": 0, "deck": [*DECK[:-1], "AS"]})
    assert state.is_chance() and not state.deal_records()


def test_deck_order_never_in_view() -> None:
    state = deal([*GRID, "JC", "5S"])
    text = json.dumps(state.view_json(0))
    for card in state._deck:
        assert f'"{card}"' not in text
    assert state.view_json(0)["deck_size"] == len(state._deck)


def random_game(seed: int) -> Any:
    return play_match("gridcannon", 1, [random_policy(MatchRng(f"r{seed}"))], seed=seed)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_games_end_with_a_consistent_score(seed: int) -> None:
    state = random_game(seed)
    view = state.view_json(0)
    score = state.result().scores[0]
    assert not state.invariants()
    if view["outcome"] == "won":
        assert 0 <= score <= 6 and score == len(view["ploys"]) and view["killed"] == 12
    else:
        assert score == view["killed"] - 12 and -12 <= score <= -1


def test_heuristic_beats_random() -> None:
    bot = importlib.import_module("cardarena_sdk.strategies.gridcannon")
    heuristic, rand = [], []
    for seed in range(60):
        rng = random.Random(seed)

        def policy(v: Any, legal: Any, s: int, rng: random.Random = rng) -> str:
            return str(bot.choose(v.to_json(), legal, rng))

        state = play_match("gridcannon", 1, [policy], seed=seed)
        heuristic.append(state.result().scores[0])
        rand.append(random_game(seed).result().scores[0])
    assert statistics.mean(heuristic) > statistics.mean(rand) + 2


def test_ploys_can_be_used_after_drawing_a_royal_before_placing_it() -> None:
    """Seed: "Aces are Extractions: at any time you can use up one of the aces [...] You can do
    this even after drawing a card and before placing it." A drawn royal is such a card: with a
    ploy in hand it is not placed automatically, even with a single legal spot."""
    state = deal(["AS", *GRID, "JC", "5S"])
    state.apply(0, "keep")
    # JC's only spot is B1 (beside 9C at 7), but the ace may be used first.
    assert state.view_json(0)["phase"] == "royal"
    legal = state.legal_actions(0)
    assert "royal:B1" in legal and "extract:7" in legal
    state.apply(0, "extract:7")
    # 9C is gone: the highest club on an edge with a free slot is now 8C at the corner 6.
    assert state.legal_actions(0) == ("royal:B0", "royal:L2")
    state.apply(0, "royal:L2")
    view = state.view_json(0)
    assert view["pending"] == "5S" and view["spent_ploys"] == ["AS"]
    assert {r["slot"]: r["card"] for r in view["royals"] if r["card"]} == {"L2": "JC"}


def test_royal_with_one_spot_and_no_ploy_is_placed_automatically() -> None:
    state = deal([*GRID, "JC", "5S"])
    state.apply(0, "keep")
    view = state.view_json(0)
    assert view["phase"] == "place" and {r["slot"]: r["card"] for r in view["royals"] if r["card"]} == {"B1": "JC"}


def test_ploys_drawn_in_setup_can_be_used_during_setup() -> None:
    """Seed: "Any aces and jokers you drew during set up [...] are Ploys you can play whenever
    you like": while the set-up royals are placed and at the replacement choice."""
    state = deal(["RJ", "JC", *GRID, "5S"])
    # The set-up royal JC would go to B1 (beside 9C); the joker may move 9C first.
    legal = state.legal_actions(0)
    assert state.view_json(0)["phase"] == "royal"
    assert "royal:B1" in legal and "reassign:7:8" in legal and "reassign:4:7" not in legal
    state.apply(0, "reassign:7:8")  # 9C onto 2D at the corner 8 (no royal on the table yet)
    assert state.legal_actions(0) == ("royal:R2", "royal:B2")
    state.apply(0, "royal:B2")
    state = deal(["AS", *GRID, "5S"])
    legal = state.legal_actions(0)
    assert state.view_json(0)["phase"] == "replace"
    assert legal[0] == "keep" and "extract:0" in legal
    state.apply(0, "extract:0")
    # An emptied spot cannot be replaced; the set-up choice is still open.
    assert state.view_json(0)["phase"] == "replace"
    assert "replace:0" not in state.legal_actions(0) and "replace:1" in state.legal_actions(0)
