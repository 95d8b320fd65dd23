"""Nine Card Golf: scoring, the simultaneous opening, turns, the ender penalty, refills."""

from __future__ import annotations

import collections
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
from cardarena.games.nine_card_golf import FACES, GolfState, score_grid
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
FIRST_OPEN = "open:0:1:2"


def full_deck(decks: int) -> list[str]:
    return list(FACES) * decks


def new_match(players: int, **options: Any) -> GolfState:
    state = get_game("nine_card_golf").new_state(players, options or None)
    assert isinstance(state, GolfState)
    return state


def deal(
    state: GolfState, grids: list[list[str]], *, dealer: int = 0, discard: str | None = None, top: Sequence[str] = ()
) -> None:
    """Apply a hand-made deal: the given grids, discard and first draw-pile cards, the rest after."""
    rest = collections.Counter(full_deck(state._decks))
    for g in grids:
        rest.subtract(g)
    rest.subtract(top)
    if discard is None:
        discard = next(c for c in FACES if rest[c] > 0)
    rest.subtract([discard])
    assert all(v >= 0 for v in rest.values())
    pile = list(top) + [c for c in FACES for _ in range(rest[c])]
    state.apply_chance({"dealer": dealer, "grids": grids, "discard": discard, "draw_pile": pile})


def open_all(state: GolfState, action: str = FIRST_OPEN) -> None:
    for seat in range(state.players):
        state.apply(seat, action)


def grid_of(state: GolfState, viewer: int | None, seat: int) -> list[str | None]:
    return [cell["card"] for cell in state.view_json(viewer)["seats"][seat]["grid"]]


def idle_turn(state: GolfState, seat: int, flip: int | None = None) -> None:
    """draw, discard, then flip ``flip`` (or keep)."""
    state.apply(seat, "draw")
    state.apply(seat, "discard")
    state.apply(seat, f"flip:{flip}" if flip is not None else "keep")


# ---------------------------------------------------------------------- scoring
def test_card_values() -> None:
    # No two equal ranks adjacent: plain sums.
    assert score_grid(["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"]) == 45
    assert score_grid(["TC", "JC", "QC", "KC", "XR", "AD", "2D", "3D", "4D"]) == 10 + 10 + 10 + 0 - 2 + 1 + 2 + 3 + 4
    assert score_grid(["KC", "KD", "KH", "KS", "QC", "QD", "AC", "AD", "AH"]) == 0


def test_adjacent_equal_rank_scores_zero_but_not_diagonal() -> None:
    base = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"]
    pair = list(base)
    pair[1] = "AD"  # A A 3 / ...: the two aces touch
    assert score_grid(pair) == 45 - 1 - 2  # both aces score 0 instead of 1 + 2
    diag = list(base)
    diag[4] = "AD"  # the ace at 0 and the ace at 4 are diagonal: no match
    assert score_grid(diag) == 45 - 5 + 1
    far = list(base)
    far[2] = "AD"  # positions 0 and 2 do not touch
    assert score_grid(far) == 45 - 3 + 1


def test_same_value_is_same_rank() -> None:
    # Ruling: a ten, a jack and a queen are all worth 10 but do not match each other.
    assert score_grid(["TC", "JC", "QC", "AC", "2C", "3C", "4C", "5C", "6C"]) == 30 + 1 + 2 + 3 + 4 + 5 + 6
    # Two jokers touching score 0 each (they are one rank).
    assert score_grid(["XR", "XB", "3C", "4C", "5C", "6C", "7C", "8C", "9C"]) == 42


def test_two_by_two_block_scores_minus_ten_once() -> None:
    grid = ["5C", "5D", "2C", "5H", "5S", "3C", "4C", "6C", "7C"]
    # Block 0 1 3 4 of fives: -10 for the four, not 0 each; the rest 2+3+4+6+7.
    assert score_grid(grid) == -10 + 2 + 3 + 4 + 6 + 7
    # The same four fives in an L shape are only adjacent pairs: 0 each.
    l_shape = ["5C", "5D", "5H", "2C", "5S", "3C", "4C", "6C", "7C"]
    assert score_grid(l_shape) == 2 + 3 + 4 + 6 + 7


def test_overlapping_blocks_score_one_block() -> None:
    # Two decks: six fives in a 2x3 hold two overlapping blocks; one scores -10, the others 0.
    grid = ["5C", "5D", "5H", "5S", "5C", "5D", "AC", "2C", "3C"]
    assert score_grid(grid) == -10 + 1 + 2 + 3
    four_jokers = ["XR", "XB", "KC", "XR", "XB", "2C", "3C", "4C", "6C"]
    assert score_grid(four_jokers) == -10 + 0 + 2 + 3 + 4 + 6


def test_block_neighbour_of_same_rank_scores_zero() -> None:
    grid = ["5C", "5D", "5H", "5S", "5C", "2C", "AC", "3C", "4C"]
    assert score_grid(grid) == -10 + 0 + 2 + 1 + 3 + 4


# ------------------------------------------------------------------- the deal
@pytest.mark.parametrize(("players", "decks"), [(2, 1), (3, 1), (4, 2), (5, 2), (6, 2)])
def test_deck_per_player_count(players: int, decks: int) -> None:
    state = new_match(players)
    outcome = state.sample_chance(MatchRng(5))
    cards = [c for g in outcome["grids"] for c in g] + [outcome["discard"], *outcome["draw_pile"]]
    assert collections.Counter(cards) == collections.Counter(full_deck(decks))
    assert "XR" in cards and "XB" in cards
    state.apply_chance(outcome)
    view = state.view_json(None)
    assert view["decks"] == decks
    assert view["draw_pile_size"] == 54 * decks - 9 * players - 1
    assert view["discard_pile"] == [outcome["discard"]]
    assert state.to_act() == tuple(range(players))


def test_bad_deals_are_rejected() -> None:
    state = new_match(2)
    outcome = state.sample_chance(MatchRng(1))
    twice = json.loads(json.dumps(outcome))
    twice["grids"][0][0] = twice["grids"][0][1]
    with pytest.raises(InvalidChance):
        state.apply_chance(twice)
    short = json.loads(json.dumps(outcome))
    short["draw_pile"].pop()
    with pytest.raises(InvalidChance):
        state.apply_chance(short)
    unknown = json.loads(json.dumps(outcome))
    unknown["discard"] = "ZZ"
    with pytest.raises(InvalidChance):
        state.apply_chance(unknown)
    assert state.to_act() == (CHANCE,)
    state.apply_chance(outcome)
    assert not state.invariants()


def test_two_decks_accept_each_face_twice_only() -> None:
    state = new_match(4)
    outcome = state.sample_chance(MatchRng(2))
    bad = json.loads(json.dumps(outcome))
    # Three copies of one face (and one face missing) do not fit two decks.
    face = bad["grids"][0][0]
    others = [i for i, c in enumerate(bad["draw_pile"]) if c != face]
    count = sum(1 for g in bad["grids"] for c in g if c == face) + bad["draw_pile"].count(face)
    count += bad["discard"] == face
    assert count == 2
    bad["draw_pile"][others[0]] = face
    with pytest.raises(InvalidChance):
        state.apply_chance(bad)
    state.apply_chance(outcome)
    assert not state.invariants()


# ---------------------------------------------------------------- the opening
def test_opening_is_simultaneous_and_secret() -> None:
    state = new_match(3)
    grids = [
        ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"],
        ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D"],
        ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H"],
    ]
    deal(state, grids, dealer=2)
    assert state.to_act() == (0, 1, 2)
    assert len(state.legal_actions(1)) == 84
    state.apply(1, "open:0:4:8")
    assert state.to_act() == (0, 2)
    assert state.legal_actions(1) == ()
    with pytest.raises(NotYourTurn):
        state.apply(1, "open:1:2:3")
    for viewer in [None, 0, 1, 2]:
        view = state.view_json(viewer)
        assert all(cell["card"] is None for s in view["seats"] for cell in s["grid"])
        assert view["seats"][1]["opened"] and not view["seats"][0]["opened"]
        assert view["my_opening"] == ([0, 4, 8] if viewer == 1 else [])
        assert "AD" not in json.dumps(view)
    assert state.public_action(0, 1, "open:0:4:8") == "open"
    assert state.public_action(1, 1, "open:0:4:8") == "open:0:4:8"
    assert "AD" in state.secrets(1)
    state.apply(0, "open:6:7:8")
    state.apply(2, FIRST_OPEN)
    assert state.to_act() == (0,)  # dealer 2: seat 0 starts round 1
    assert grid_of(state, 2, 1) == ["AD", None, None, None, "5D", None, None, None, "9D"]
    assert grid_of(state, None, 0) == [None] * 6 + ["7C", "8C", "9C"]
    assert "AD" not in state.secrets(0)


def test_opening_rejects_bad_choices_with_reasons() -> None:
    state = new_match(2)
    state.apply_chance(state.sample_chance(MatchRng(3)))
    for bad in ("open:0:0:1", "open:2:1:0", "open:0:1:9", "open:0:1"):
        with pytest.raises(IllegalAction) as info:
            state.apply(0, bad)
        assert "three different positions" in info.value.reason
    with pytest.raises(UnknownAction):
        state.apply(0, "draw")
    assert state.to_act() == (0, 1)


# ------------------------------------------------------------------ the turns
def setup_two(**options: Any) -> GolfState:
    state = new_match(2, **options)
    grids = [
        ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"],
        ["KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS", "JC"],
    ]
    deal(state, grids, dealer=1, discard="XR", top=["TC", "TD", "TH", "TS", "JD", "JH", "JS", "2D"])
    open_all(state)
    return state


def test_draw_is_seen_by_the_drawer_only_then_swap() -> None:
    state = setup_two()
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == ("draw", *(f"take:{p}" for p in range(9)))
    state.apply(0, "draw")
    assert state.view_json(0)["drawn_card"] == "TC"
    assert state.view_json(1)["drawn_card"] is None
    assert state.view_json(None)["drawn_card"] is None
    assert "TC" in state.secrets(1) and "TC" not in state.secrets(0)
    with pytest.raises(IllegalAction) as info:
        state.apply(0, "take:3")
    assert "drawn card" in info.value.reason
    state.apply(0, "swap:4")
    assert grid_of(state, 1, 0)[4] == "TC"
    assert state.view_json(None)["discard_pile"] == ["XR", "5C"]
    assert state.to_act() == (1,)


def test_take_replaces_a_face_down_card_face_up() -> None:
    state = setup_two()
    state.apply(0, "take:8")
    assert grid_of(state, None, 0)[8] == "XR"
    assert state.view_json(None)["discard_top"] == "9C"
    assert state.view_json(None)["seats"][0]["face_down"] == 5
    assert not state.invariants()


def test_discard_then_flip_or_keep() -> None:
    state = setup_two()
    state.apply(0, "draw")
    state.apply(0, "discard")
    legal = state.legal_actions(0)
    assert legal == (*(f"flip:{p}" for p in range(3, 9)), "keep")
    with pytest.raises(IllegalAction) as info:
        state.apply(0, "flip:1")
    assert "already face up" in info.value.reason
    state.apply(0, "flip:5")
    assert grid_of(state, 1, 0)[5] == "6C"
    assert state.view_json(None)["discard_top"] == "TC"
    state.apply(1, "draw")
    state.apply(1, "discard")
    state.apply(1, "keep")
    assert state.view_json(None)["seats"][1]["face_down"] == 6
    assert state.to_act() == (0,)


def test_wrong_seat_and_unknown_actions() -> None:
    state = setup_two()
    with pytest.raises(NotYourTurn):
        state.apply(1, "draw")
    with pytest.raises(UnknownAction):
        state.apply(0, "play:AC")
    with pytest.raises(IllegalAction):
        state.apply(0, "keep")
    assert state.to_act() == (0,)


# ------------------------------------------------------- ending and the penalty
def end_round_by(state: GolfState, ender: int) -> None:
    """``ender`` flips its six face-down cards on its turns; the others keep."""
    n = state.players
    flips = [3, 4, 5, 6, 7, 8]
    while flips:
        seat = state.to_act()[0]
        if state.is_chance():
            raise AssertionError("unexpected refill")
        idle_turn(state, seat, flips.pop(0) if seat == ender else None)
    # Every other seat gets exactly one more turn.
    for i in range(1, n):
        seat = (ender + i) % n
        assert state.to_act() == (seat,)
        assert state.view_json(None)["ender"] == ender
        assert state.view_json(None)["final_turns_left"] == n - i
        idle_turn(state, seat)
    assert state.to_act() == (CHANCE,)


def test_ender_penalty_when_not_lowest() -> None:
    state = setup_two()
    end_round_by(state, 0)
    # Seat 0: 1+2+...+9 = 45 > seat 1's 0 (kings and queens pair up; the jack is 10): penalty.
    record = state.deal_records()[0]
    assert record.scores == [55.0, 10.0]
    view = state.view_json(None)
    assert view["seats"][0]["round_scores"] == [55]
    assert view["seats"][0]["grid_score"] == 45
    assert all(cell["face_up"] for s in view["seats"] for cell in s["grid"])


def test_no_penalty_when_ender_is_lowest() -> None:
    state = new_match(2)
    grids = [
        ["KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS", "JC"],
        ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"],
    ]
    deal(state, grids, dealer=1, discard="XR")
    open_all(state)
    end_round_by(state, 0)
    assert state.deal_records()[0].scores == [10.0, 45.0]


def test_no_penalty_when_ender_ties_the_lowest() -> None:
    # "Did not get the lowest score" means strictly higher than the round's lowest.
    state = new_match(3)
    grids = [
        ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"],  # 45
        ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D"],  # 45
        ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "TH"],  # 46
    ]
    deal(state, grids, dealer=0, discard="XR")
    open_all(state)
    end_round_by(state, 1)
    assert state.deal_records()[0].scores == [45.0, 45.0, 46.0]


def test_penalty_when_ender_second_of_three() -> None:
    state = new_match(3)
    grids = [
        ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"],  # 45
        ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "TD"],  # 46
        ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H"],  # 45
    ]
    deal(state, grids, dealer=2, discard="XR")
    open_all(state)
    end_round_by(state, 1)
    assert state.deal_records()[0].scores == [45.0, 56.0, 45.0]
    # Next round: seat 1 scored the most and starts; the deal passed left.
    state.apply_chance(state.sample_chance(MatchRng(9)))
    view = state.view_json(None)
    assert view["dealer"] == 0 and view["starter"] == 1
    open_all(state)
    assert state.to_act() == (1,)


def test_starter_tie_goes_to_first_clockwise_from_dealers_left() -> None:
    state = new_match(3)
    grids = [
        ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"],  # 45
        ["KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS", "JC"],  # 10
        ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D"],  # 45
    ]
    deal(state, grids, dealer=0, discard="XR")
    open_all(state)
    end_round_by(state, 1)
    assert state.deal_records()[0].scores == [45.0, 10.0, 45.0]
    state.apply_chance(state.sample_chance(MatchRng(4)))
    # New dealer 1; from its left (2, 0, 1) the first of the tied 45s is seat 2.
    assert state.view_json(None)["starter"] == 2


def test_ending_by_swapping_the_last_face_down_card() -> None:
    state = setup_two()
    for p in (3, 4, 5, 6, 7):
        state.apply(0, "take:" + str(p))
        idle_turn(state, 1)
    assert state.view_json(None)["seats"][0]["face_down"] == 1
    state.apply(0, "draw")
    state.apply(0, "swap:8")
    assert state.view_json(None)["ender"] == 0
    idle_turn(state, 1)
    assert state.to_act() == (CHANCE,)
    assert state.deal_records()[0].scores is not None


def test_match_is_four_rounds_and_lowest_wins() -> None:
    bots = [random_policy(MatchRng(f"b{s}")) for s in range(3)]
    state = play_match("nine_card_golf", 3, bots, seed=11)
    records = state.deal_records()
    assert len(records) == 4
    totals = [sum(r.scores[s] for r in records if r.scores) for s in range(3)]
    result = state.result()
    assert list(result.scores) == totals
    best = min(totals)
    assert all((result.ranks[s] == 1) == (totals[s] == best) for s in range(3))
    assert get_game("nine_card_golf").higher_is_better is False
    short = play_match("nine_card_golf", 2, bots[:2], seed=11, options={"deals": 2})
    assert len(short.deal_records()) == 2


def test_options_validated() -> None:
    with pytest.raises(InvalidOptions):
        new_match(2, deals=0)
    with pytest.raises(InvalidOptions):
        new_match(2, turn_limit=0)
    with pytest.raises(InvalidOptions):
        new_match(7)
    with pytest.raises(InvalidOptions):
        new_match(1)


# ---------------------------------------------------- refill and turn limit
def test_draw_pile_refilled_from_discards_but_top() -> None:
    state = setup_two()
    size = state.view_json(None)["draw_pile_size"]
    assert size == 54 - 18 - 1
    for i in range(size):
        idle_turn(state, i % 2)
    assert state.to_act() == (CHANCE,)
    view = state.view_json(None)
    assert view["draw_pile_size"] == 0 and view["turn"] == size % 2
    pile = view["discard_pile"]
    assert len(pile) == size + 1
    bad = {"reshuffle": pile[:-2] + ["XR"]}  # the top card must stay
    with pytest.raises(InvalidChance):
        state.apply_chance(bad)
    with pytest.raises(InvalidChance):
        state.apply_chance({"reshuffle": pile[:-2]})
    outcome = state.sample_chance(MatchRng(8))
    assert sorted(outcome["reshuffle"]) == sorted(pile[:-1])
    state.apply_chance(outcome)
    view = state.view_json(None)
    assert view["discard_pile"] == [pile[-1]]
    assert view["draw_pile_size"] == size
    state.apply(size % 2, "draw")
    assert state.view_json(size % 2)["drawn_card"] == outcome["reshuffle"][0]
    assert not state.invariants()
    record = state.deal_records()[0]
    assert (CHANCE, json.dumps(outcome, sort_keys=True)) in record.actions


def test_turn_limit_scores_without_ender() -> None:
    state = setup_two(turn_limit=3)
    for i in range(5):
        idle_turn(state, i % 2)
    assert state.to_act() == (1,)
    idle_turn(state, 1)
    assert state.to_act() == (CHANCE,)
    # No ender, no penalty: seat 0's 45 stands.
    assert state.deal_records()[0].scores == [45.0, 10.0]


# ------------------------------------------------------------ hidden cards
def test_two_decks_duplicates_stay_hidden() -> None:
    state = new_match(4)
    state.apply_chance(state.sample_chance(MatchRng(21)))
    open_all(state, "open:0:4:8")
    state.apply(state.to_act()[0], "draw")
    for viewer in [None, 0, 1, 2, 3]:
        text = json.dumps(state.view_json(viewer))
        shown = collections.Counter(json.loads(text)["discard_pile"])
        for s in json.loads(text)["seats"]:
            shown.update(c["card"] for c in s["grid"] if c["card"] is not None)
        drawn = json.loads(text)["drawn_card"]
        if drawn:
            shown[drawn] += 1
        top = json.loads(text)["discard_top"]
        # Every code in the view appears exactly as many times as visible copies exist.
        visible = collections.Counter(FACES[c % 54] for c in set(range(108)) - set(state.hidden_cards(viewer)))
        assert shown == visible
        for face in FACES:
            assert text.count(f'"{face}"') == shown[face] + (face == top)


# ------------------------------------------------------------------ properties
SYMMETRIES = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8],
    [2, 5, 8, 1, 4, 7, 0, 3, 6],
    [8, 7, 6, 5, 4, 3, 2, 1, 0],
    [6, 3, 0, 7, 4, 1, 8, 5, 2],
    [2, 1, 0, 5, 4, 3, 8, 7, 6],
    [6, 7, 8, 3, 4, 5, 0, 1, 2],
    [0, 3, 6, 1, 4, 7, 2, 5, 8],
    [8, 5, 2, 7, 4, 1, 6, 3, 0],
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["AC", "2C", "5H", "5D", "KS", "QC", "JH", "TD", "XR", "XB"]), min_size=9, max_size=9))
def test_score_is_symmetric_and_bounded(grid: list[str]) -> None:
    score = score_grid(grid)
    for sym in SYMMETRIES:
        assert score_grid([grid[i] for i in sym]) == score
    plain = sum({"A": 1, "2": 2, "5": 5, "K": 0, "Q": 10, "J": 10, "T": 10, "X": -2}[c[0]] for c in grid)
    assert -10 - 2 * 5 <= score <= max(plain, 0) + 18


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**32), st.integers(0, 2**16))
def test_random_matches_keep_rules(players: int, seed: int, bot_seed: int) -> None:
    bots = [random_policy(MatchRng(bot_seed + s)) for s in range(players)]
    state = play_match("nine_card_golf", players, bots, seed=seed, options={"deals": 2})
    assert not state.invariants()
    for record in state.deal_records():
        assert record.scores is not None
        # Each round score is a grid score (at least -10 - 5*2) plus maybe the penalty.
        assert all(-20 <= s <= 90 + 10 for s in record.scores)
    replay = json.loads(json.dumps(build_replay(state, seed=seed, seats=["x"] * players)))
    assert rerun(replay).view_json(None) == state.view_json(None)


# ---------------------------------------------------------------- the heuristic
def load_strategy() -> ModuleType:
    path = ROOT / "clients/python/cardarena_sdk/strategies/nine_card_golf.py"
    spec = importlib.util.spec_from_file_location("golf_strategy", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_heuristic_beats_random() -> None:
    choose = load_strategy().choose
    wins = 0
    mine = theirs = 0.0
    for seed in range(40):
        rng = random.Random(seed)
        me = seed % 2

        def bot(view: Any, legal: Any, seat: int, rng: random.Random = rng) -> str:
            return str(choose(view.to_json(), legal, rng))

        policies = [bot if s == me else random_policy(MatchRng(f"r{seed}/{s}")) for s in range(2)]
        result = play_match("nine_card_golf", 2, policies, seed=seed).result()
        wins += result.scores[me] < result.scores[1 - me]
        mine += result.scores[me]
        theirs += result.scores[1 - me]
    assert wins >= 36
    assert mine + 40 * 80 < theirs


def test_heuristic_plays_every_seat_count() -> None:
    choose = load_strategy().choose
    for players in (3, 6):
        rng = random.Random(players)

        def bot(view: Any, legal: Any, seat: int, rng: random.Random = rng) -> str:
            return str(choose(view.to_json(), legal, rng))

        policies = [bot] * players
        state = play_match("nine_card_golf", players, policies, seed=players)
        assert state.is_terminal()


# ------------------------------------------------------------------ proto
