"""Re-running replays: both re-runs check what docs/replay-format.md says, and an error of the
rules while re-running says where it happened."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from cardarena.engine import (
    CHANCE,
    GameError,
    IllegalAction,
    MatchRng,
    NotYourTurn,
    ReplayMismatch,
    State,
    build_replay,
    get_game,
    play_match,
    random_policy,
    rerun,
    rerun_from_seed,
)
from cardarena.engine import Rerun as RerunByTurn

Rerun = Callable[[dict[str, Any]], State]
BOTH: list[Rerun] = [rerun, rerun_from_seed]


def _replay(game_id: str = "glaves", players: int = 3, options: dict[str, Any] | None = None) -> dict[str, Any]:
    bots = [random_policy(MatchRng(f"bot/{s}")) for s in range(players)]
    state = play_match(game_id, players, bots, seed=7, options={"deals": 2} if options is None else options)
    replay = build_replay(state, seed=7, seats=[f"random-{s + 1}" for s in range(players)])
    data: dict[str, Any] = json.loads(json.dumps(replay))
    return data


@pytest.mark.parametrize("run", BOTH)
def test_an_intact_replay_re_runs(run: Rerun) -> None:
    replay = _replay()
    assert run(replay).result().to_json() == replay["result"]


@pytest.mark.parametrize("run", BOTH)
def test_altered_deal_scores_are_refused(run: Rerun) -> None:
    replay = _replay()
    replay["deals"][0]["scores"][0] += 1
    with pytest.raises(ReplayMismatch, match=r"deal 1: scores .* != recorded"):
        run(replay)


@pytest.mark.parametrize("run", BOTH)
def test_an_action_after_the_end_is_refused(run: Rerun) -> None:
    replay = _replay()
    last = replay["deals"][-1]["actions"]
    last.append({"seat": 0, "action": last[-1]["action"]})
    with pytest.raises(GameError, match=rf"deal 2, action {len(last)} \(seat 0 "):
        run(replay)


def test_rerun_from_seed_refuses_swapped_hands() -> None:
    replay = _replay()
    hands = replay["deals"][1]["hands"]
    hands[0], hands[1] = hands[1], hands[0]
    with pytest.raises(ReplayMismatch, match=r"deal 2: recorded hands .* is not what the seed deals"):
        rerun_from_seed(replay)
    with pytest.raises(IllegalAction, match=r"^deal 2, action \d+ \(seat \d 'play:\w\w'\): "):
        rerun(replay)  # the recorded hands are dealt, and a play is then not in its hand


def test_rerun_from_seed_refuses_a_different_dealer_and_inline_chance() -> None:
    replay = _replay()
    replay["deals"][0]["dealer"] = (replay["deals"][0]["dealer"] + 1) % 3
    with pytest.raises(ReplayMismatch, match="deal 1: recorded dealer"):
        rerun_from_seed(replay)
    # Coup draws inside a deal (exchanges, replacing a proved card): a recorded draw must be the seed's
    replay = _replay("coup", 2, {})
    number, entry = next((n, e) for n, d in enumerate(replay["deals"]) for e in d["actions"] if "chance" in e)
    entry["chance"] = {"draw": "not what the seed draws"}
    with pytest.raises(ReplayMismatch, match=rf"deal {number + 1}, action \d+: recorded"):
        rerun_from_seed(replay)


def test_a_chance_outcome_missing_inside_a_deal_says_so() -> None:
    """A game that forgot to record a draw in its deal record wrote replays without it, and
    re-running one failed with the next action's "seat 1 is not to act", which says nothing of
    the cause: the re-run says the game waits for a chance outcome there, and how to record it."""
    replay = _replay("coup", 2, {})
    number, deal = next((n, d) for n, d in enumerate(replay["deals"]) if any("chance" in e for e in d["actions"]))
    index = next(i for i, e in enumerate(deal["actions"]) if "chance" in e)
    del deal["actions"][index]
    entry = deal["actions"][index]
    where = f"deal {number + 1}, action {index + 1} (seat {entry['seat']} {entry['action']!r})"
    with pytest.raises(ReplayMismatch) as info:
        rerun(replay)
    assert str(info.value).startswith(f"{where}: the game waits for a chance outcome here, but the replay records")
    assert "(CHANCE, json.dumps(outcome))" in str(info.value)


def test_an_illegal_action_says_where_and_keeps_its_type() -> None:
    replay = _replay()
    deal = replay["deals"][1]
    index = next(i for i, e in enumerate(deal["actions"]) if "action" in e and i > 3)
    seat = deal["actions"][index]["seat"]
    not_in_hand = next(c for h in deal["hands"] for c in h if c not in deal["hands"][seat])
    deal["actions"][index]["action"] = f"play:{not_in_hand}"
    for run in BOTH:
        with pytest.raises(IllegalAction) as info:
            run(replay)
        prefix = f"deal 2, action {index + 1} (seat {seat} 'play:{not_in_hand}'): "
        assert str(info.value).startswith(prefix) and info.value.reason.startswith(prefix)
        assert isinstance(info.value.__cause__, IllegalAction)
        assert str(info.value) == prefix + str(info.value.__cause__)


def test_an_out_of_turn_action_keeps_its_type() -> None:
    replay = _replay()
    entry = replay["deals"][0]["actions"][0]
    entry["seat"] = (entry["seat"] + 1) % 3
    with pytest.raises(NotYourTurn, match=r"^deal 1, action 1 \(seat "):
        rerun(replay)


def test_a_corrupt_opening_outcome_says_which_deal() -> None:
    replay = _replay()
    replay["deals"][1]["hands"][0] = replay["deals"][1]["hands"][1]
    with pytest.raises(GameError, match=r"^deal 2, opening chance outcome: "):
        rerun(replay)


@pytest.mark.parametrize("stop", [5, 51, 60])
def test_an_unfinished_replay_re_runs_from_both(stop: int) -> None:
    game = get_game("glaves")
    state = game.new_state(3, {"deals": 2})
    rng, picker = MatchRng(3), MatchRng("pick")
    steps = 0
    while steps < stop:
        if state.to_act() == (CHANCE,):
            state.apply_chance(state.sample_chance(rng))
            continue
        seat = state.to_act()[0]
        state.apply(seat, picker.choice(state.legal_actions(seat)))
        steps += 1
    replay = json.loads(json.dumps(build_replay(state, seed=3, seats=["a", "b", "c"])))
    assert replay["result"] is None
    for run in BOTH:
        again = run(copy.deepcopy(replay))
        assert again.view_json(None) == state.view_json(None)


@pytest.mark.parametrize("game_id", ["skull", "nine_card_golf", "glaves"])
def test_a_reruns_turns_are_the_seats_asked_at_once_in_their_order(game_id: str) -> None:
    replay = _replay(game_id, 3 if game_id != "nine_card_golf" else 2, options={})
    run = RerunByTurn(replay)
    played = []
    for turn in run.turns():
        assert tuple(a.seat for a in turn) == run.state.to_act()  # all asked before any is applied
        played += turn
    recorded = [(d, e) for d, deal in enumerate(replay["deals"]) for e in deal["actions"] if "chance" not in e]
    assert [(a.deal, a.seat, a.action) for a in played] == [(d, e["seat"], e["action"]) for d, e in recorded]
    assert [a.action_index for a in played] == list(range(len(played)))
    assert run.state.result().to_json() == replay["result"]


@pytest.mark.parametrize("run", BOTH)
def test_think_times_are_metadata_summarised_per_seat_and_absent_from_older_replays(run: Rerun) -> None:
    """A replay's ``think_ms`` and ``bank_ms_left`` change nothing of re-running it; the
    result's per-seat summary (``cardarena.think.summary``) counts what each seat was asked
    (a forfeited seat's actions have no time), the first slowest action, the time-outs and
    the bank at the end; a replay without times (older, local) has no summary."""
    from cardarena.think import action_seats, summary

    replay = _replay(players=2)
    assert summary(replay) is None
    seats = action_seats(replay)
    mine = [i for i, s in enumerate(seats) if s == 0]
    think: list[Any] = [None if s == 1 else 5 for s in seats]  # seat 1 never asked
    think[mine[1]] = think[mine[3]] = 1500  # tied slowest (the first counts); 500 ms of bank each
    bank: list[Any] = [None if s == 1 else 3000 - 500 * sum(i >= m for m in mine[1:4:2]) for i, s in enumerate(seats)]
    think[mine[4]] = "soon"  # malformed: as if not recorded
    replay.update(
        {
            "think_ms": think,
            "bank_ms_left": bank,
            "time_control": {"move_ms": 1000, "bank_ms": 3000},
            "faults": [{"seat": 0, "fault": "timeout"}, {"seat": 0, "fault": "illegal"}, {"seat": 1, "fault": "x"}],
        }
    )
    run(replay)
    asked = len(mine) - 1
    assert summary(replay) == [
        {"asked": asked, "median_ms": 5, "max_ms": 1500, "slowest": mine[1], "timeouts": 1, "bank_ms_left": 2000},
        {"asked": 0, "median_ms": None, "max_ms": None, "slowest": None, "timeouts": 0, "bank_ms_left": 3000},
    ]


def test_a_time_below_a_second_is_never_shown_as_none() -> None:
    """``cardarena match --move-ms 30`` said "move clock 0 s", and a bank with 40 ms left was
    "bank left 0 s": below a second the tenths rounded the time away."""
    from cardarena.think import clock_text, seconds_text

    assert [seconds_text(ms) for ms in (0, 30, 999, 1000, 1049, 4800, 30000)] == [
        "0 s",
        "30 ms",
        "999 ms",
        "1 s",
        "1 s",
        "4.8 s",
        "30 s",
    ]
    assert clock_text(12, 40, answered=True, banked=True) == "answered in 12 ms (bank left 40 ms)"
