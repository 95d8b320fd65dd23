"""A fast smoke test of ``bench/luck_correction.py`` (the method, not its figures)."""

from __future__ import annotations

import sys
from types import ModuleType

from .bench_modules import load_bench


def _bench() -> ModuleType:
    return load_bench("luck_correction")


def test_card_classes_partition_the_deck() -> None:
    lc = _bench()
    seen: set[int] = set()
    for trump in range(4):
        classes = {lc.card_class(card, trump) for card in range(52)}
        assert len(classes) == 24 + 4  # 12 ranks x trump or not; each jack, trump or not
        assert sum(lc.card_class(card, trump) % 2 for card in range(52)) == 13  # the trumps
        seen |= classes
    assert seen == set(range(lc.K))
    assert abs(sum(lc.TRUMP_CARD_MEAN) - 1) < 1e-12


def test_traced_matches_are_ranking_quality_matches_and_deal_terms_cancel() -> None:
    lc = _bench()
    rq = sys.modules["ranking_quality"]
    seed = lc.derive_seed("rq-deal", 0)
    a, b = (lc.play_traced(1.0, 0.5, seed, s, {"deals": 1}, "noisy") for s in (0, 1))
    assert a.match == rq.play_one(1.0, 0.5, seed, 0, {"deals": 1})
    assert b.match == rq.play_one(1.0, 0.5, seed, 1, {"deals": 1})
    # the same cards in both seatings: the deal's features are equal (seat 0's view), so its
    # correction, seen from the strong bot, cancels in the duplicate pair
    assert a.innovations[0][: lc.DRAW_HAND] == b.innovations[0][: lc.DRAW_HAND]
    weights = [0.0] * lc.DRAW_HAND + [0.0] * (lc.P - lc.DRAW_HAND)
    weights[lc.DEAL_HAND : lc.DEAL_FACE] = [1.0] * lc.K
    ca, cb = lc.corrected(a, weights), lc.corrected(b, weights)
    raw = (a.match.deals[0][0] - a.match.deals[0][1]) + (b.match.deals[0][0] - b.match.deals[0][1])
    assert abs((ca.deals[0][0] - ca.deals[0][1]) + (cb.deals[0][0] - cb.deals[0][1]) - raw) < 1e-9


def test_fit_recovers_a_planted_control_variate() -> None:
    lc = _bench()
    rows = [(1.0, float(i % 3), float((i * 7) % 5)) for i in range(50)]
    ys = [2.0 + 0.5 * r[1] - 1.5 * r[2] for r in rows]
    beta = lc.least_squares(rows, ys, 1, 0.0)
    assert [round(b, 9) for b in beta] == [2.0, 0.5, -1.5]
