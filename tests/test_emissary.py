"""The Emissary: setup, debates, kingdoms, advisors' and rulers' abilities, reshuffles, scoring, bot."""

from __future__ import annotations

import importlib
import importlib.util
import json
import random
import statistics
from typing import Any

import pytest
from cardarena.engine import IllegalAction, InvalidChance, MatchRng, get_game, play_match, random_policy
from cardarena.games.emissary import DEBATE_CARDS, RULERS, EmissaryState
from hypothesis import given, settings
from hypothesis import strategies as st

RULER_ROW = ["KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS"]


def deal(prefix: list[str], rulers: list[str] | None = None) -> EmissaryState:
    """A game whose deck starts with ``prefix`` (hand = first eight), rest in a fixed order."""
    state = get_game("emissary").new_state(1)
    assert isinstance(state, EmissaryState)
    rest = [c for c in DEBATE_CARDS if c not in prefix]
    state.apply_chance({"dealer": 0, "rulers": rulers or RULER_ROW, "deck": prefix + rest})
    return state


HAND = ["AC", "5C", "8D", "2H", "3H", "4S", "6S", "7S"]


def test_setup() -> None:
    state = deal(HAND)
    view = state.view_json(0)
    assert view["phase"] == "visit" and sorted(view["hand"]) == sorted(HAND)
    assert [k["ruler"] for k in view["kingdoms"]] == RULER_ROW
    assert [k["target"] for k in view["kingdoms"]] == list(range(1, 9))
    assert view["deck_size"] == 24
    assert state.legal_actions(0) == tuple(f"visit:{k}" for k in range(1, 9))
    text = json.dumps(view)
    assert not any(f'"{c}"' in text for c in ("9C", "TC", "9H", "TS"))
    assert not any(f'"{c}"' in text for c in state._deck)


def test_visit_then_abilities_or_debate() -> None:
    state = deal([*HAND, "4D"])
    state.apply(0, "visit:2")
    view = state.view_json(0)
    assert view["current"] == 2 and view["target"] == 2 and view["trump"] == "D"
    legal = state.legal_actions(0)
    assert legal[-1] == "debate" and "ability:JH" in legal and "ability:JS:1" in legal and "ability:JS:2" not in legal
    state.apply(0, "debate")
    assert state.view_json(0)["debate_card"] == "4D"
    assert state.legal_actions(0) == ("play:8D",)
    with pytest.raises(IllegalAction, match="must follow diamonds"):
        state.apply(0, "play:AC")
    with pytest.raises(IllegalAction, match="no abilities in response"):
        state.apply(0, "ability:JH")
    state.apply(0, "play:8D")
    view = state.view_json(0)
    assert view["wins"] == 1 and view["scoring_pile"] == ["8D"] and view["discard_pile"] == ["4D"]
    with pytest.raises(IllegalAction, match="visit"):
        deal(HAND).apply(0, "debate")


@pytest.mark.parametrize(
    ("debate", "card", "trump", "wins"),
    [
        ("4S", "6S", "D", True),  # higher of the same suit
        ("6S", "4S", "D", False),  # lower of the same suit
        ("4S", "2D", "D", True),  # trump against a non-trump
        ("4S", "AC", "D", False),  # off-suit, not trump
        ("5D", "3D", "D", False),  # lower trump against a trump
        ("5D", "7D", "D", True),
        ("AS", "2S", "D", True),  # aces are low
    ],
)
def test_debate_outcomes(debate: str, card: str, trump: str, wins: bool) -> None:
    hand = [card, *[c for c in ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "AH"] if c != card]][:8]
    if debate[1] != card[1]:
        # Nothing else of the debate suit in hand, so any card may answer.
        hand = [c for c in hand if c[1] != debate[1] or c == card]
        hand += [c for c in ["2H", "3H", "4H", "5H", "6H"] if c not in hand][: 8 - len(hand)]
    rulers = ["KD", "KC", "KH", "KS", "QC", "QD", "QH", "QS"] if trump == "D" else RULER_ROW
    state = deal([*hand, debate], rulers)
    state.apply(0, "visit:1")
    state.apply(0, "debate")
    assert state.view_json(0)["debate_card"] == debate
    state.apply(0, f"play:{card}")
    assert (state.view_json(0)["wins"] == 1) is wins


def play_kingdom_out(state: EmissaryState, win: bool) -> None:
    """Answer every debate choosing a winning (or losing) card when possible."""
    while state.view_json(0)["phase"] in {"between", "respond"}:
        if state.view_json(0)["phase"] == "between":
            state.apply(0, "debate")
            continue
        view = state.view_json(0)
        legal = state.legal_actions(0)
        before = view["wins"]
        for action in legal:
            trial = state.clone()
            trial.apply(0, action)
            won = trial.view_json(0)["wins"] > before if trial.view_json(0)["current"] else None
            if won is None or won == win:
                state.apply(0, action)
                break
        else:
            state.apply(0, legal[0])


def test_failing_a_kingdom_loses_and_scores() -> None:
    state = deal(HAND)
    state.apply(0, "visit:8")
    play_kingdom_out(state, win=False)
    view = state.view_json(0)
    assert view["outcome"] == "lost" and "needed exactly 8" in view["end_reason"]
    assert state.result().scores == (0.0,)


def test_winning_a_kingdom_adds_a_supporter_and_reshuffles() -> None:
    # Hand all spades and trump clubs (kingdom 1: KC); debate cards: hearts and diamonds.
    hand = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8C"]
    debates = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H"]
    state = deal([*hand, *debates])
    state.apply(0, "visit:1")
    state.apply(0, "ability:JC")  # draw one card per club: 1 (AD)
    assert len(state.view_json(0)["hand"]) == 9
    for _ in range(9):
        if state.view_json(0)["phase"] == "between":
            state.apply(0, "debate")
        legal = state.legal_actions(0)
        # Win only with the club (a trump against hearts); lose otherwise.
        state.apply(0, "play:8C" if "play:8C" in legal else next(a for a in legal if a != "play:8C"))
    assert state.is_chance()
    assert state.view_json(0)["score"] == 2  # one kingdom + one unused supporter
    outcome = state.sample_chance(MatchRng(1))
    assert sorted(outcome["deck"]) == sorted(DEBATE_CARDS)
    state.apply_chance(outcome)
    view = state.view_json(0)
    assert view["kingdoms"][0]["won"] and view["supporters"] == [{"card": "KC", "used": False}]
    assert all(not a["used"] for a in view["advisors"])
    assert len(view["hand"]) == 8 and view["scoring_pile"] == [] and view["discard_pile"] == []
    assert state.legal_actions(0) == tuple(f"visit:{k}" for k in range(2, 9))
    # A supporting ruler is a one-time ability and costs its point.
    state.apply(0, "visit:2")
    assert "ability:KC" in state.legal_actions(0)
    state.apply(0, "ability:KC")
    assert "ability:KC" not in state.legal_actions(0)
    assert state.view_json(0)["supporters"] == [{"card": "KC", "used": True}]
    assert state.view_json(0)["score"] == 1


def test_hearts_discards_trumps() -> None:
    state = deal(HAND)
    state.apply(0, "visit:1")  # clubs trump
    state.apply(0, "ability:JH")
    view = state.view_json(0)
    assert sorted(view["discard_pile"]) == ["5C", "AC"] and len(view["hand"]) == 6
    assert "ability:JH" not in state.legal_actions(0)


def test_clubs_draws_per_club() -> None:
    state = deal([*HAND, "2D", "3D"])
    state.apply(0, "visit:3")
    state.apply(0, "ability:JC")
    assert "2D" in state.view_json(0)["hand"] and "3D" in state.view_json(0)["hand"]
    assert len(state.view_json(0)["hand"]) == 10


def test_spades_swaps_rulers() -> None:
    state = deal(HAND)
    state.apply(0, "visit:1")
    state.apply(0, "ability:JS:4")
    view = state.view_json(0)
    assert view["trump"] == "S" and view["kingdoms"][0]["ruler"] == "KS" and view["kingdoms"][3]["ruler"] == "KC"
    assert view["target"] == 1


def test_diamonds_draws_two_and_discards_two() -> None:
    state = deal([*HAND, "2D", "3D"])
    state.apply(0, "visit:3")
    state.apply(0, "ability:JD")
    view = state.view_json(0)
    assert view["phase"] == "discard" and view["discards_left"] == 2 and len(view["hand"]) == 10
    with pytest.raises(IllegalAction, match="discard"):
        state.apply(0, "debate")
    state.apply(0, "discard:AC")
    state.apply(0, "discard:2D")
    view = state.view_json(0)
    assert view["phase"] == "between" and len(view["hand"]) == 8 and view["discard_pile"] == ["AC", "2D"]


def test_empty_deck_reshuffles_the_discard_pile() -> None:
    state = deal(HAND)
    state.apply(0, "visit:3")
    state._discard = state._deck[:]
    state._deck = []
    state.apply(0, "debate")
    assert state.is_chance()
    outcome = state.sample_chance(MatchRng(2))
    assert sorted(outcome["deck"]) == sorted(state._discard)
    with pytest.raises(InvalidChance):
        state.apply_chance({"deck": outcome["deck"][:-1]})
    state.apply_chance(outcome)
    view = state.view_json(0)
    assert view["debate_card"] == outcome["deck"][0] and view["discard_pile"] == [] and view["deck_size"] == 23
    record = state.deal_records()[0]
    assert json.loads(record.actions[-1][1]) == outcome


def test_bad_opening_chance() -> None:
    state = get_game("emissary").new_state(1)
    with pytest.raises(InvalidChance):
        state.apply_chance({"dealer": 0, "rulers": list(RULERS[:-1]) + ["JH"], "deck": list(DEBATE_CARDS)})
    with pytest.raises(InvalidChance):
        state.apply_chance({"dealer": 0, "rulers": list(RULERS), "deck": list(DEBATE_CARDS[1:])})
    assert state.is_chance()


def random_game(seed: int) -> Any:
    return play_match("emissary", 1, [random_policy(MatchRng(f"r{seed}"))], seed=seed)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_games_score_consistently(seed: int) -> None:
    state = random_game(seed)
    view = state.view_json(0)
    assert not state.invariants()
    unused = sum(1 for s in view["supporters"] if not s["used"])
    assert state.result().scores == (float(view["kingdoms_won"] + unused),)
    assert 0 <= state.result().scores[0] <= 16
    assert (view["outcome"] == "won") == (view["kingdoms_won"] == 8)


def test_heuristic_beats_random() -> None:
    bot = importlib.import_module("cardarena_sdk.strategies.emissary")
    heuristic, rand = [], []
    for seed in range(60):
        rng = random.Random(seed)

        def policy(v: Any, legal: Any, s: int, rng: random.Random = rng) -> str:
            return str(bot.choose(v.to_json(), legal, rng))

        heuristic.append(play_match("emissary", 1, [policy], seed=seed).result().scores[0])
        rand.append(random_game(seed).result().scores[0])
    assert statistics.mean(heuristic) > statistics.mean(rand) + 0.7
