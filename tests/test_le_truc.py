"""Le Truc: tied tricks, the early end, doubles (accepted, declined, who may double), re-deals,
team play with public talk, the race to 16, replays, proto views and the example bot."""

from __future__ import annotations

import importlib.util
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
    build_replay,
    get_game,
    play_match,
    random_policy,
    rerun,
)
from cardarena.games.le_truc import CODES, PHRASES
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent


def deal(dealer: int, hands: list[list[str]], **options: int) -> State:
    state = get_game("le_truc").new_state(len(hands), options or {"deals": 1})
    used = {c for h in hands for c in h}
    state.apply_chance({"dealer": dealer, "hands": hands, "undealt": [c for c in CODES if c not in used]})
    return state


def run(state: State, *steps: tuple[int, str]) -> None:
    for seat, action in steps:
        assert state.to_act() == (seat,), (seat, action, state.to_act())
        assert action in state.legal_actions(seat), (seat, action, state.legal_actions(seat))
        state.apply(seat, action)


def scores(state: State) -> list[float] | None:
    return state.deal_records()[-1].scores


# ------------------------------------------------------------------ deal and tricks
def test_deal_teams_and_first_leader() -> None:
    game = get_game("le_truc")
    assert game.teams(4, game.options(4)) == (0, 1, 0, 1)
    assert game.teams(2, game.options(2)) is None
    for players in (2, 4):
        for seed in range(5):
            state = game.new_state(players)
            outcome = state.sample_chance(MatchRng(seed))
            state.apply_chance(outcome)
            assert state.to_act() == ((outcome["dealer"] + 1) % players,)
            assert all(len(h) == 3 for h in outcome["hands"])
            assert len(outcome["undealt"]) == 32 - 3 * players
            assert sorted([c for h in outcome["hands"] for c in h] + outcome["undealt"]) == sorted(CODES)
            for seat in range(players):
                assert state.view_json(seat)["hand"] == outcome["hands"][seat]


def test_suitless_highest_rank_wins_and_winner_leads() -> None:
    state = deal(1, [["7C", "QH", "AS"], ["8S", "KC", "9D"]])
    run(state, (0, "play:QH"), (1, "play:9D"))
    assert state.view_json(None)["tricks"][0]["winner"] == 0
    run(state, (0, "play:7C"), (1, "play:8S"))  # the 8 beats the 7 whatever the suits
    view = state.view_json(None)
    assert view["tricks"][1]["winner"] == 1 and view["leader"] == 1 and state.to_act() == (1,)


def test_tied_trick_nobody_wins_and_leader_leads_again() -> None:
    state = deal(1, [["KC", "7D", "AS"], ["KH", "9D", "8S"]])
    run(state, (0, "play:KC"), (1, "play:KH"))
    view = state.view_json(None)
    assert view["tricks"][0]["winner"] is None and view["tricks"][0]["winner_team"] is None
    assert [t["tricks_won"] for t in view["teams"]] == [0, 0]
    assert state.to_act() == (0,) and view["leader"] == 0
    run(state, (0, "play:7D"), (1, "play:9D"))  # seat 1 wins trick 2
    run(state, (1, "play:8S"), (0, "play:AS"))  # seat 0 wins trick 3: 1-1 with a tie: no points
    assert scores(state) == [0.0, 0.0]


def test_tie_then_one_win_then_tie_wins_the_round() -> None:
    state = deal(1, [["KC", "AD", "8S"], ["KH", "9D", "8H"]])
    run(state, (0, "play:KC"), (1, "play:KH"))
    run(state, (0, "play:AD"), (1, "play:9D"))
    run(state, (0, "play:8S"), (1, "play:8H"))
    assert scores(state) == [1.0, 0.0]


def test_all_tricks_tied_scores_nothing() -> None:
    state = deal(1, [["KC", "AD", "8S"], ["KH", "AH", "8H"]])
    run(state, (0, "play:KC"), (1, "play:KH"), (0, "play:AD"), (1, "play:AH"), (0, "play:8S"), (1, "play:8H"))
    assert scores(state) == [0.0, 0.0]


def test_early_end_after_two_tricks() -> None:
    state = deal(1, [["KC", "AD", "7S"], ["QH", "9D", "AH"]])
    run(state, (0, "play:AD"), (1, "play:9D"))
    run(state, (0, "play:KC"), (1, "play:QH"))
    assert state.is_terminal()
    assert scores(state) == [1.0, 0.0]
    assert state.result().scores == (1.0, 0.0)
    # The unplayed cards go back unseen: no view shows them.
    for viewer in (None, 0, 1):
        text = json.dumps(state.view_json(viewer))
        assert '"7S"' not in text and '"AH"' not in text
    assert not state.invariants()


def test_three_tricks_majority_wins() -> None:
    state = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]])
    run(state, (0, "play:KC"), (1, "play:QH"))
    run(state, (0, "play:7D"), (1, "play:9D"))
    run(state, (1, "play:8S"), (0, "play:AS"))
    assert scores(state) == [1.0, 0.0]


# ------------------------------------------------------------------ doubles
def test_declined_double_scores_the_current_value() -> None:
    state = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]])
    run(state, (0, "double"))
    view = state.view_json(1)
    assert view["phase"] == "double_offered" and view["offered_by"] == 0 and view["offered_value"] == 2
    assert state.legal_actions(1) == ("accept", "decline")
    with pytest.raises(IllegalAction, match="accept or decline"):
        state.apply(1, "play:QH")
    run(state, (1, "decline"))
    assert scores(state) == [1.0, 0.0]


def test_accepted_double_then_only_acceptor_may_double() -> None:
    state = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]])
    run(state, (0, "double"), (1, "accept"))
    view = state.view_json(None)
    assert view["value"] == 2 and view["double_holder_team"] == 1
    assert state.to_act() == (0,)  # the offerer now plays
    assert "double" not in state.legal_actions(0)
    with pytest.raises(IllegalAction, match="only the side that accepted"):
        state.apply(0, "double")
    run(state, (0, "play:7D"))
    assert "double" in state.legal_actions(1)
    run(state, (1, "double"), (0, "accept"))
    assert state.view_json(None)["value"] == 4
    assert state.view_json(None)["double_holder_team"] == 0
    run(state, (1, "play:9D"))
    # Seat 0 holds the cube now; a decline scores the value before the offer (4).
    run(state, (1, "play:8S"))
    assert state.to_act() == (0,)
    state2 = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]])
    run(state2, (0, "double"), (1, "accept"), (0, "play:7D"), (1, "double"), (0, "accept"))
    run(state2, (1, "play:9D"), (1, "play:8S"), (0, "double"), (1, "decline"))
    assert scores(state2) == [4.0, 0.0]


def test_accepted_double_value_scored_in_full() -> None:
    state = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]], target=16, deals=0)
    run(state, (0, "double"), (1, "accept"), (0, "play:AS"), (1, "play:8S"))
    run(state, (0, "play:KC"), (1, "play:QH"))
    assert scores(state) == [2.0, 0.0]
    assert state.view_json(None)["teams"][0]["score"] == 2


def test_value_stops_at_sixteen() -> None:
    state = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]])
    run(state, (0, "double"), (1, "accept"), (0, "play:7D"))  # 2, team 1 holds
    run(state, (1, "double"), (0, "accept"), (1, "play:9D"))  # 4, team 0 holds
    run(state, (1, "play:8S"), (0, "double"), (1, "accept"), (0, "play:AS"))  # 8, team 1 holds
    run(state, (0, "play:KC"), (1, "double"), (0, "accept"))  # 16
    assert state.view_json(None)["value"] == 16
    assert state.legal_actions(1) == ("play:QH",)
    with pytest.raises(IllegalAction, match="already worth 16"):
        state.apply(1, "double")
    run(state, (1, "play:QH"))
    assert scores(state) == [16.0, 0.0]


def test_value_cap_holds_with_a_higher_target() -> None:
    """The seed's values are "2, 4, 8, 16": a higher ``target`` does not raise the cap, and a
    round worth 16 then does not end the match."""
    state = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]], target=40, deals=0)
    run(state, (0, "double"), (1, "accept"), (0, "play:7D"))
    run(state, (1, "double"), (0, "accept"), (1, "play:9D"))
    run(state, (1, "play:8S"), (0, "double"), (1, "accept"), (0, "play:AS"))
    run(state, (0, "play:KC"), (1, "double"), (0, "accept"))
    assert state.legal_actions(1) == ("play:QH",)
    run(state, (1, "play:QH"))
    assert scores(state) == [16.0, 0.0]
    assert state.is_chance(), "16 of 40: the match goes on"


def test_level_totals_after_fixed_deals_share_first_place() -> None:
    """Only one side scores in a round, so the race to 16 never ends level; a fixed number of
    deals can, and equal totals share the place (docs/games/le_truc.md)."""
    state = deal(1, [["KC", "AD", "8S"], ["KH", "AH", "8H"]], deals=1)
    run(state, (0, "play:KC"), (1, "play:KH"), (0, "play:AD"), (1, "play:AH"), (0, "play:8S"), (1, "play:8H"))
    assert state.is_terminal()
    assert state.result().scores == (0.0, 0.0) and state.result().ranks == (1, 1)


def test_team_double_answered_by_next_opponent() -> None:
    hands = [["KC", "7D", "AS"], ["QH", "9D", "8S"], ["JC", "TD", "7S"], ["8C", "QD", "KS"]]
    state = deal(3, hands)
    run(state, (0, "double"))
    assert state.to_act() == (1,)
    run(state, (1, "accept"))
    assert state.view_json(None)["double_holder_team"] == 1
    run(state, (0, "play:7D"))
    assert "double" not in state.legal_actions(2)  # partner of the offerer
    assert "double" in state.legal_actions(1)
    run(state, (1, "play:9D"))
    assert "double" not in state.legal_actions(2)
    run(state, (2, "play:TD"))
    assert "double" in state.legal_actions(3)  # partner of the acceptor
    run(state, (3, "double"), (0, "decline"))
    assert scores(state) == [0.0, 2.0, 0.0, 2.0]


# ------------------------------------------------------------------ re-deal
def test_redeal_accepted_deals_new_hands_once() -> None:
    state = get_game("le_truc").new_state(2, {"deals": 1})
    rng = MatchRng(9)
    state.apply_chance(state.sample_chance(rng))
    leader = state.to_act()[0]
    dealer = 1 - leader
    assert "redeal" in state.legal_actions(leader)
    run(state, (leader, "redeal"))
    assert state.view_json(None)["phase"] == "redeal_offered"
    assert state.legal_actions(dealer) == ("accept", "refuse")
    with pytest.raises(InvalidChance):
        state.apply_chance({"dealer": dealer, "hands": [], "undealt": []})
    run(state, (dealer, "accept"))
    assert state.to_act() == (CHANCE,)
    outcome = state.sample_chance(rng)
    assert outcome["redeal"] is True and outcome["dealer"] == dealer
    state.apply_chance(outcome)
    assert state.to_act() == (leader,)
    assert state.view_json(leader)["hand"] == outcome["hands"][leader]
    assert state.view_json(None)["redealt"] is True
    assert "redeal" not in state.legal_actions(leader)
    with pytest.raises(IllegalAction, match="only one re-deal per round"):
        state.apply(leader, "redeal")
    chance = [a for s, a in state.deal_records()[0].actions if s == CHANCE]
    assert len(chance) == 1 and json.loads(chance[0])["hands"] == outcome["hands"]


def test_redeal_refused_and_not_after_the_first_card() -> None:
    state = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]])
    run(state, (0, "redeal"), (1, "refuse"))
    # One proposal per round (a refused one too): otherwise propose/refuse could loop forever.
    assert state.to_act() == (0,) and "redeal" not in state.legal_actions(0)
    with pytest.raises(IllegalAction, match="one re-deal proposal per round"):
        state.apply(0, "redeal")
    assert state.view_json(0)["hand"] == ["KC", "7D", "AS"]
    assert "double" in state.legal_actions(0)  # the refused proposal does not stop a double
    state = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]])
    run(state, (0, "play:KC"))
    assert "redeal" not in state.legal_actions(1)
    with pytest.raises(IllegalAction, match="first leader, before the first card"):
        state.apply(1, "redeal")


def test_redeal_still_open_after_a_double_before_the_first_card() -> None:
    """Ruling: "Re-deal: before the first card the first leader may propose it, the dealer
    accepts or refuses."  A double is not a card: after an accepted double the first leader,
    still before the first card, may propose the re-deal; the round keeps its doubled value and
    the cube stays with the side that accepted."""
    for players, hands in (
        (2, [["KC", "7D", "AS"], ["QH", "9D", "8S"]]),
        (4, [["KC", "7D", "AS"], ["QH", "9D", "8S"], ["JC", "TD", "7S"], ["8C", "QD", "KS"]]),
    ):
        dealer = players - 1
        state = deal(dealer, hands)
        run(state, (0, "double"), (1, "accept"))
        assert state.to_act() == (0,) and "redeal" in state.legal_actions(0)
        run(state, (0, "redeal"), (dealer, "accept"))
        assert state.to_act() == (CHANCE,)
        outcome = state.sample_chance(MatchRng(4))
        assert outcome["redeal"] is True and outcome["dealer"] == dealer
        state.apply_chance(outcome)
        view = state.view_json(0)
        assert state.to_act() == (0,) and view["value"] == 2 and view["double_holder_team"] == 1
        assert view["hand"] == outcome["hands"][0] and view["redealt"]
        assert "redeal" not in state.legal_actions(0) and "double" not in state.legal_actions(0)


def test_the_view_says_whether_a_redeal_may_still_be_proposed() -> None:
    """``redeal_open``: every seat (not only the first leader, whose legal actions show it)
    can tell a refused proposal, after which no re-deal can come, from none made yet."""
    hands = [["KC", "7D", "AS"], ["QH", "9D", "8S"], ["JC", "TD", "7S"], ["8C", "QD", "KS"]]

    def is_open(state: State) -> list[bool]:
        return [bool(state.view_json(s)["redeal_open"]) for s in (None, 0, 1, 2, 3)]

    state = deal(3, hands)
    assert is_open(state) == [True] * 5
    run(state, (0, "double"), (1, "accept"))  # a double is not a card: still open
    assert is_open(state) == [True] * 5
    run(state, (0, "redeal"), (3, "refuse"))
    view = state.view_json(2)
    assert not view["redeal_proposed"] and not view["redealt"]  # as before any proposal
    assert is_open(state) == [False] * 5  # but the window is closed
    state = deal(3, hands)
    run(state, (0, "play:KC"))
    assert is_open(state) == [False] * 5
    state = deal(3, hands)
    run(state, (0, "redeal"), (3, "accept"))
    state.apply_chance(state.sample_chance(MatchRng(4)))
    assert state.view_json(1)["redealt"] and is_open(state) == [False] * 5
    state = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]])
    run(state, (0, "double"), (1, "decline"))  # the round ends before any card
    assert state.view_json(0)["phase"] == "over" and not state.view_json(0)["redeal_open"]


# ------------------------------------------------------------------ team talk
def test_say_is_public_keeps_the_turn_and_is_capped() -> None:
    hands = [["KC", "7D", "AS"], ["QH", "9D", "8S"], ["JC", "TD", "7S"], ["8C", "QD", "KS"]]
    state = deal(3, hands)
    legal_before = [a for a in state.legal_actions(0) if not a.startswith("say:")]
    assert {"say:" + p for p in PHRASES} <= set(state.legal_actions(0))
    with pytest.raises(NotYourTurn):
        state.apply(2, "say:strong")
    run(state, (0, "say:strong"))
    assert state.to_act() == (0,)
    assert state.legal_actions(0) == tuple(legal_before)  # the real decision is still due
    with pytest.raises(IllegalAction, match="already spoke"):
        state.apply(0, "say:weak")
    for viewer in (None, 0, 1, 2, 3):
        assert state.view_json(viewer)["talk"] == [{"seat": 0, "phrase": "strong", "trick": 1}]
    assert state.public_action(1, 0, "say:strong") == "say:strong"
    run(state, (0, "play:AS"), (1, "say:weak"), (1, "play:8S"), (2, "play:7S"), (3, "play:KS"))
    assert any(a.startswith("say:") for a in state.legal_actions(0))  # a new trick: may speak again
    info = get_game("le_truc").describe("say:have_ace")
    assert info.kind == "say" and info.choice == "have_ace"
    with pytest.raises(UnknownAction):
        state.apply(0, "say:hello")


def test_no_talk_with_two_players() -> None:
    state = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]])
    assert not any(a.startswith("say:") for a in state.legal_actions(0))
    with pytest.raises(IllegalAction, match="team play"):
        state.apply(0, "say:strong")


# ------------------------------------------------------------------ match
def test_race_to_sixteen_and_team_ranks() -> None:
    for players in (2, 4):
        for seed in range(8):
            bots = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(players)]
            state = play_match("le_truc", players, bots, seed=seed)
            records = state.deal_records()
            totals = [0.0] * players
            for i, record in enumerate(records):
                assert record.scores is not None
                assert sum(1 for s in record.scores[:2] if s) <= 1
                totals = [t + s for t, s in zip(totals, record.scores, strict=True)]
                assert (max(totals) >= 16) == (i == len(records) - 1)
            result = state.result()
            assert list(result.scores) == totals
            if players == 4:
                assert result.ranks[0] == result.ranks[2] and result.ranks[1] == result.ranks[3]
                assert result.scores[0] == result.scores[2]
    state = play_match("le_truc", 2, [random_policy(MatchRng(s)) for s in range(2)], seed=4, options={"deals": 5})
    assert len(state.deal_records()) == 5


def test_errors_and_replay_with_redeal() -> None:
    state = deal(1, [["KC", "7D", "AS"], ["QH", "9D", "8S"]])
    with pytest.raises(NotYourTurn, match="waiting for seat 0"):
        state.apply(1, "play:QH")
    with pytest.raises(UnknownAction):
        state.apply(0, "bid:3")
    with pytest.raises(IllegalAction, match="not in your hand"):
        state.apply(0, "play:QH")
    with pytest.raises(IllegalAction, match="nothing to accept"):
        state.apply(0, "accept")
    # A replay holding a re-deal re-runs from its chance outcomes alone.
    for seed in range(60):
        bots = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(2)]
        state = play_match("le_truc", 2, bots, seed=seed, options={"deals": 3})
        if any(s == CHANCE for r in state.deal_records() for s, _ in r.actions):
            replay = json.loads(json.dumps(build_replay(state, seed=seed, seats=["a", "b"])))
            assert rerun(replay).view_json(None) == state.view_json(None)
            break
    else:
        pytest.fail("no re-deal in 60 random matches")


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(0, 2**16), st.sampled_from([2, 4]))
def test_round_properties(seed: int, bot_seed: int, players: int) -> None:
    bots = [random_policy(MatchRng(bot_seed + s)) for s in range(players)]
    state = play_match("le_truc", players, bots, seed=seed, options={"deals": 2})
    assert not state.invariants()
    for record in state.deal_records():
        assert record.scores is not None
        team = record.scores[:2]
        assert min(team) == 0 and max(team) in (0, 1, 2, 4, 8, 16)
        if players == 4:
            assert record.scores[2:] == team
        redeals = sum(1 for s, _ in record.actions if s == CHANCE)
        assert redeals <= 1
        says: dict[tuple[int, int], int] = {}
        plays = 0
        for seat, action in record.actions:
            if action.startswith("play:"):
                plays += 1
            if action.startswith("say:"):
                key = (seat, plays // players)
                says[key] = says.get(key, 0) + 1
        assert all(v == 1 for v in says.values())


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.sampled_from([2, 4]))
def test_views_hide_other_hands(seed: int, players: int) -> None:
    state = get_game("le_truc").new_state(players, {"deals": 1})
    rng, picker = MatchRng(seed), MatchRng(seed + 1)
    while not state.is_terminal():
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        for viewer in range(players):
            text = json.dumps(state.view_json(viewer))
            for other in range(players):
                if other != viewer:
                    hand = state.view_json(other)["hand"]
                    assert not [c for c in hand if f'"{c}"' in text]
        seat = state.to_act()[0]
        state.apply(seat, picker.choice(state.legal_actions(seat)))


# ------------------------------------------------------------------ proto and bot
def load_bot() -> ModuleType:
    path = ROOT / "clients/python/cardarena_sdk/strategies/le_truc.py"
    spec = importlib.util.spec_from_file_location("le_truc_strategy", path)
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


@pytest.mark.parametrize(("players", "matches", "need"), [(2, 20, 17), (4, 10, 8)])
def test_heuristic_beats_random(players: int, matches: int, need: int) -> None:
    bot = load_bot()
    wins = 0
    for seed in range(matches):
        me = seed % 2
        policy = bot_policy(bot, seed)
        policies = [policy if s % 2 == me else random_policy(MatchRng(f"r{seed}/{s}")) for s in range(players)]
        state = play_match("le_truc", players, policies, seed=seed)
        wins += state.result().ranks[me] == 1
    assert wins >= need, f"heuristic won only {wins}/{matches} against random"


def test_three_players_are_not_a_le_truc_table() -> None:
    game = get_game("le_truc")
    assert game.player_counts == (2, 4)
    with pytest.raises(ValueError, match="2 or 4 players"):
        game.new_state(3)
