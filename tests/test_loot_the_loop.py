"""Loot the Loop: setup, the four actions, traps, the exit, stuck and turn-limit endings, views, bot."""

from __future__ import annotations

import importlib
import importlib.util
import json
import random
import statistics
from typing import Any

import pytest
from cardarena.engine import IllegalAction, InvalidChance, MatchRng, get_game, play_match, random_policy
from cardarena.games.loot_the_loop import DECK, LootTheLoopState
from hypothesis import given, settings
from hypothesis import strategies as st


def fresh(options: dict[str, Any] | None = None) -> LootTheLoopState:
    state = get_game("loot_the_loop").new_state(1, options)
    assert isinstance(state, LootTheLoopState)
    return state


def situation(
    top: list[tuple[str, bool]], notes: list[str] | None = None, pile: list[str] | None = None, **options: Any
) -> LootTheLoopState:
    """A game in play whose deck starts with ``top`` (the rest face down), with notes and score pile."""
    state = fresh(options or None)
    state.apply_chance({"dealer": 0, "deck": list(DECK)})
    state.apply(0, "stack:012")
    notes, pile = notes or [], pile or []
    named = [c for c, _ in top] + notes + pile
    rest = [c for c in DECK if c not in named]
    state._deck = [c for c, _ in top] + rest
    state._up = [u for _, u in top] + [False] * len(rest)
    state._notes = list(notes)
    state._pile = list(pile)
    assert not state.invariants()
    return state


def test_setup_cuts_three_piles_and_stacks_in_chosen_order() -> None:
    deck = list(DECK)
    state = fresh()
    state.apply_chance({"dealer": 0, "deck": deck})
    view = state.view_json(0)
    assert [p["size"] for p in view["piles"]] == [18, 18, 17]
    assert [p["face_up"] for p in view["piles"]] == [deck[0:2], deck[18:20], deck[36:38]]
    assert state.legal_actions(0) == tuple(f"stack:{o}" for o in ("012", "021", "102", "120", "201", "210"))
    text = json.dumps(view)
    assert f'"{deck[2]}"' not in text and f'"{deck[40]}"' not in text
    state.apply(0, "stack:201")
    view = state.view_json(0)
    assert [e["card"] for e in view["deck"][:3]] == [deck[36], deck[37], None]
    assert [e["card"] for e in view["deck"][17:20]] == [deck[0], deck[1], None]
    assert [e["card"] for e in view["deck"][35:38]] == [deck[18], deck[19], None]
    assert view["deck_size"] == 53 and view["piles"] == []


def test_look_turns_two_or_one() -> None:
    state = situation([("5C", False), ("6C", False)])
    assert state.legal_actions(0) == ("look",)
    state.apply(0, "look")
    assert [e["card"] for e in state.view_json(0)["deck"][:3]] == ["5C", "6C", None]
    state = situation([("5C", False), ("6C", True), ("7C", False)])
    state.apply(0, "look")
    assert [e["face_up"] for e in state.view_json(0)["deck"][:3]] == [True, True, False]
    with pytest.raises(IllegalAction, match="face down"):
        state.apply(0, "look")


def test_explore_values_come_from_face_up_trinkets_on_top_two() -> None:
    state = situation([("KC", True), ("3D", True)])
    assert "explore:3" in state.legal_actions(0) and not any(a.startswith("explore:1") for a in state.legal_actions(0))
    state = situation([("3C", True), ("3D", True)])
    assert [a for a in state.legal_actions(0) if a.startswith("explore")] == ["explore:3"]
    state = situation([("AC", True), ("4D", False)])
    assert not [a for a in state.legal_actions(0) if a.startswith("explore")]
    with pytest.raises(IllegalAction, match="explore needs"):
        state.apply(0, "explore:4")


def test_explore_nabs_trinkets_and_jewels() -> None:
    state = situation([("3C", True), ("4D", True), ("9C", False), ("7H", True), ("AS", True)])
    state.apply(0, "explore:3")  # 3C 4D 9C to the bottom: land on 7H
    view = state.view_json(0)
    assert view["score_pile"] == ["7H"] and view["score"] == 1 and view["deck"][0]["card"] == "AS"
    assert view["deck_size"] == 52
    state = situation([("3C", True), ("4D", True), ("9C", False), ("AS", True)])
    state.apply(0, "explore:3")
    assert state.view_json(0)["jewels"] == 1


def test_explore_onto_face_down_does_nothing() -> None:
    state = situation([("2C", True), ("4D", True), ("9C", False)])
    state.apply(0, "explore:2")
    view = state.view_json(0)
    assert view["score_pile"] == [] and view["deck"][0] == {"pos": 0, "face_up": False, "card": None}
    assert view["deck"][-2:] == [
        {"pos": 51, "face_up": True, "card": "2C"},
        {"pos": 52, "face_up": True, "card": "4D"},
    ]


def test_trap_loses_but_score_pile_counts() -> None:
    state = situation([("2C", True), ("5D", True), ("QH", True), ("3S", False)], pile=["7C", "AH"])
    state.apply(0, "explore:2")
    view = state.view_json(0)
    assert view["outcome"] == "lost" and "trap" in view["end_reason"] and not view["escaped"]
    assert state.result().scores == (2.0,)


def test_exit_needs_four_jewels() -> None:
    state = situation([("2C", True), ("5D", True), ("JK", True), ("3S", False)], ["4C"], ["AC", "AD", "AH"])
    state.apply(0, "explore:2")
    assert state.view_json(0)["outcome"] == "playing"
    assert state.legal_actions(0) == ("return:4C",)
    state = situation([("2C", True), ("5D", True), ("JK", True), ("3S", False)], pile=["AC", "AD", "AH", "AS", "9D"])
    state.apply(0, "explore:2")
    view = state.view_json(0)
    assert view["outcome"] == "won" and view["escaped"] and state.result().scores == (5.0,)


def test_explore_wraps_around_a_short_deck() -> None:
    state = situation([("9C", True), ("2D", True)])
    state._deck = ["9C", "2D", "KC", "JK"]
    state._up = [True, True, True, False]
    state._pile = [c for c in DECK if c not in state._deck]
    state.apply(0, "explore:9")  # 9 % 4 == 1: land on 2D
    assert state.view_json(0)["score_pile"][-1] == "2D"


def test_mark_and_return() -> None:
    state = situation([("5C", True), ("6C", True)], notes=["2H", "3H"])
    assert "mark" in state.legal_actions(0)
    state.apply(0, "mark")
    view = state.view_json(0)
    assert view["notes"] == ["2H", "3H", "5C"] and view["deck"][0]["card"] == "6C"
    assert "mark" not in state.legal_actions(0)
    with pytest.raises(IllegalAction, match="full"):
        state.apply(0, "mark")
    state.apply(0, "return:3H")
    view = state.view_json(0)
    assert view["notes"] == ["2H", "5C"] and view["deck"][0] == {"pos": 0, "face_up": True, "card": "3H"}
    with pytest.raises(IllegalAction, match="not in your notes"):
        state.apply(0, "return:9S")
    state = situation([("AC", True), ("6C", True)])
    assert "mark" not in state.legal_actions(0)


def test_stuck_when_every_move_lands_on_a_trap() -> None:
    state = situation([("AC", True), ("2C", True), ("KS", True)])
    assert state.legal_actions(0) == ("explore:2",)
    # The only action explores 2 onto KS: the game ends at once.
    state._check_end()
    assert state.is_terminal() and "stuck" in state.view_json(0)["end_reason"]


def test_turn_limit_ends_the_game() -> None:
    state = situation([("5C", True), ("6C", True)], max_turns=3)  # the setup choice is the first action
    state.apply(0, "mark")
    state.apply(0, "return:5C")
    assert state.is_terminal()
    view = state.view_json(0)
    assert view["outcome"] == "lost" and "turn limit" in view["end_reason"]


def test_options_and_bad_chance() -> None:
    with pytest.raises(ValueError, match="max_turns"):
        fresh({"max_turns": 0})
    state = fresh()
    with pytest.raises(InvalidChance):
        state.apply_chance({"dealer": 0, "deck": list(DECK[:-1])})
    assert state.is_chance()


def test_face_down_cards_never_in_view() -> None:
    state = situation([("5C", True), ("6C", False)])
    text = json.dumps(state.view_json(None))
    assert '"6C"' not in text and '"5C"' in text
    assert "6C" in state.secrets(0)


def random_game(seed: int) -> Any:
    return play_match("loot_the_loop", 1, [random_policy(MatchRng(f"r{seed}"))], seed=seed)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_games_keep_the_rules(seed: int) -> None:
    state = random_game(seed)
    view = state.view_json(0)
    assert not state.invariants()
    assert state.result().scores == (float(len(view["score_pile"])),)
    assert view["turns"] <= view["max_turns"]
    if view["outcome"] == "won":
        assert view["jewels"] == 4
    assert len(view["notes"]) + view["deck_size"] + len(view["score_pile"]) == 53


def test_heuristic_beats_random() -> None:
    bot = importlib.import_module("cardarena_sdk.strategies.loot_the_loop")
    heuristic, rand = [], []
    for seed in range(30):
        rng = random.Random(seed)

        def policy(v: Any, legal: Any, s: int, rng: random.Random = rng) -> str:
            return str(bot.choose(v.to_json(), legal, rng))

        heuristic.append(play_match("loot_the_loop", 1, [policy], seed=seed).result().scores[0])
        rand.append(random_game(seed).result().scores[0])
    assert statistics.mean(heuristic) > statistics.mean(rand) + 3
