"""A fast smoke test of ``bench/ranking_quality.py`` (the method, not its figures)."""

from __future__ import annotations

import json
import random
from types import ModuleType

import pytest
from cardarena.engine import get_game

from .bench_modules import load_bench


def _bench() -> ModuleType:
    return load_bench("ranking_quality")


def test_bots_are_deterministic_functions_of_what_they_see() -> None:
    rq = _bench()
    state = get_game("glaves").new_state(2, {"deals": 1})
    from cardarena.engine import MatchRng

    state.apply_chance(state.sample_chance(MatchRng(7)))
    seat = state.to_act()[0]
    legal = state.legal_actions(seat)
    for p in (0.0, 0.5, 1.0):
        first = rq.noisy_bot("x", p)(state.view(seat), legal, seat)
        assert first in legal
        assert all(rq.noisy_bot("x", p)(state.view(seat), legal, seat) == first for _ in range(3))
    # a whole match is a function of the deal and the seating
    assert rq.strong_points(0.5, 0.0, 11, 0, {"deals": 1}) == rq.strong_points(0.5, 0.0, 11, 0, {"deals": 1})


def test_the_deterministic_family_has_no_randomness_at_all() -> None:
    from cardarena.engine import MatchRng
    from cardarena_sdk.strategies import glaves

    rq = _bench()
    for seed in range(2):
        state, rng = get_game("glaves").new_state(2, {"deals": 1}), MatchRng(seed)
        while not state.is_terminal():
            if state.is_chance():
                state.apply_chance(state.sample_chance(rng))
                continue
            seat = state.to_act()[0]
            legal, view = state.legal_actions(seat), state.view(seat)
            for w in (0.0, 0.5):
                # same view, same action: whatever the bot's name, however often it is asked
                first = rq.handicapped_bot("a", w)(view, legal, seat)
                assert first in legal
                assert all(rq.handicapped_bot(n, w)(view, legal, seat) == first for n in ("a", "b", "a'"))
            # strength 1 is the SDK heuristic itself (any rng)
            full = rq.handicapped_bot("a", 1.0)(view, legal, seat)
            assert full == glaves.choose(view.to_json(), list(legal), random.Random(seed + 99))
            state.apply(seat, full)
        # a whole match is a function of the deal and the seating; renamed bots play the same game
        again = rq.play_one(1.0, 0.0, seed, 1, {"deals": 1}, salt="'", family="deterministic")
        assert rq.play_one(1.0, 0.0, seed, 1, {"deals": 1}, family="deterministic") == again


def test_measure_reports_every_figure() -> None:
    rq = _bench()
    out = rq.measure(1.0, 0.0, "one", deals=12, trials=2, min_matches=4, noise=True)
    assert out["length"] == "one" and out["deals"] == 12 and out["metric"] == "deal_margin"
    for name in ("variance_ratio", "var_duplicate", "var_independent", "duplicate_median", "plain_median"):
        assert out[name] >= 0
    assert 4 <= out["duplicate_median"] <= 24 and 4 <= out["plain_median"] <= 12
    assert out["deals_per_match"] == out["common_prefix"] == 1.0
    for name in ("final_margin_variance_ratio", "efficiency_ratio", "matches_ratio"):
        assert name in out
    assert out["noise_share"] >= 0 and out["variance_ratio_bound"] > 0
    low, high = out["matches_ratio_ci"]
    assert low <= high


def test_the_family_option_runs_with_tiny_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    rq = _bench()
    rq.main(["--family", "deterministic", "--pairs", "1:0", "--lengths", "one", "--deals", "8", "--trials", "1"])
    (line,) = capsys.readouterr().out.splitlines()
    out = json.loads(line)
    assert out["family"] == "deterministic" and out["p_strong"] == 1.0 and out["p_weak"] == 0.0
    assert out["duplicate_median"] > 0 and out["plain_median"] > 0
    # no play noise by construction: a replay with renamed bots is the same game
    noise = rq.measure(1.0, 0.0, "one", deals=6, trials=0, min_matches=4, noise=True, family="deterministic")
    assert noise["noise_share"] == 0.0


def test_the_metric_is_the_standings_deal_margin_over_the_common_prefix() -> None:
    rq = _bench()
    # strong wins the first deal 10-6 in both seatings; the seat-0 match also has a second deal
    long = rq.Match((14.0, 18.0), (2, 1), ((10.0, 6.0), (4.0, 12.0)))
    short = rq.Match((10.0, 6.0), (1, 2), ((10.0, 6.0),))
    assert rq.diff([rq.outcome(long, "a", "d", 0), rq.outcome(short, "b", "d", 1)], "deal_margin") == 4.0
    assert rq.diff([rq.outcome(long, "a", "p", 0)], "deal_margin") == (4.0 - 8.0) / 2  # plain: every deal
    assert rq.diff([rq.outcome(long, "a", "p", 1)], "margin") == -4.0  # the final scores
    figures = rq.variance_ratio([(short, short)] * 6)
    assert figures["var_duplicate"] == 0.0 and figures["mean_diff_duplicate"] == 4.0  # the deal decides
    # the separation check runs the standings with the metric measured (it asserts so)
    pool = [(short, short)] * 12
    for metric in rq.METRICS:
        assert rq.matches_to_separation(pool, True, 0, 4, metric) == (10, False)
