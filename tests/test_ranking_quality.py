"""A fast smoke test of ``bench/ranking_quality.py`` (the method, not its figures)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from cardarena.engine import get_game

BENCH = Path(__file__).resolve().parent.parent / "bench" / "ranking_quality.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ranking_quality_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_bots_are_deterministic_functions_of_what_they_see() -> None:
    rq = _bench()
    state = get_game("glaves").new_state(2, {"deals": 1})
    from cardarena.engine import MatchRng

    state.apply_chance(state.sample_chance(MatchRng(7)))
    seat = state.to_act()[0]
    legal = state.legal_actions(seat)
    for p in (0.0, 0.5, 1.0):
        first = rq.deterministic_bot("x", p)(state.view(seat), legal, seat)
        assert first in legal
        assert all(rq.deterministic_bot("x", p)(state.view(seat), legal, seat) == first for _ in range(3))
    # a whole match is a function of the deal and the seating
    assert rq.strong_points(0.5, 0.0, 11, 0, {"deals": 1}) == rq.strong_points(0.5, 0.0, 11, 0, {"deals": 1})


def test_measure_reports_every_figure() -> None:
    rq = _bench()
    out = rq.measure(1.0, 0.0, "one", deals=12, trials=2, min_matches=4)
    assert out["length"] == "one" and out["deals"] == 12
    for name in ("variance_ratio", "var_duplicate", "var_independent", "duplicate_median", "plain_median"):
        assert out[name] >= 0
    assert 4 <= out["duplicate_median"] <= 24 and 4 <= out["plain_median"] <= 12
    won = ((10.0, 4.0), (1, 2))  # strong's and weak's scores, then ranks
    assert rq.variance_ratio([(won, won)] * 6)["var_duplicate"] == 0.0  # the deal decides: no noise left
    assert rq.variance_ratio([(won, won)] * 6)["mean_diff_duplicate"] == 6.0  # in the score margin
    for name in ("points_variance_ratio", "matches_ratio"):
        assert name in out
