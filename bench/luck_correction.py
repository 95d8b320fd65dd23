"""Luck correction (a research prototype): does an AIVAT-style control variate for the cards'
luck make duplicate deals need >= 3x fewer matches than plain deals (Glaves, 2 players)?

**Estimator.**  For a value function ``V`` of the full state (both hands, the face-up stock
card, who leads), fixed before measuring, the corrected per-deal margin is

    margin - sum over chance events c of [V(state after c) - E_c V(state after c)]

where ``E_c`` is the expectation over ``c`` given everything before it.  Each term has mean zero
given the history, whatever ``V`` is, so the corrected margin has the raw margin's expectation
(a control variate; unbiased by construction, checked empirically in the output).  Chance events
of 2-player Glaves: the deal (dealer, hands, the trump turn-up) and, after each of the 13
drawing tricks, the loser's private draw and the next face-up card.  Given the history the
undrawn stock is a uniformly random permutation of its cards (the bots see none of it), so the
draw and the next turn-up are each uniform over the stock cards not yet drawn (the referee
knows them: the deal record's stock), and ``E_c`` of a function linear in the cards is the mean
over them.

**V** is linear: ``V = w . phi(state)``, seat 0's point of view.  Cards fall into 32 classes
(12 ranks other than the jack x trump or not, and the four jacks x trump or not).  Features:
seat 0's minus seat 1's class counts in hand; the face-up card's class times the sign of the
seat to lead next (+1 seat 0, -1 seat 1: roughly, who is placed to win it); the leader's sign.
The deal event and the draw events have separate weights, the draw ones with a linear trend in
the trick number (so a card drawn late may be worth less or more than one drawn early).  The
deal term of a one-deal (or first) deal: ``E`` of every feature is 0 (the seats' hands are
exchangeable and the first dealer is drawn independently of the cards); a later deal's dealer is
fixed, so its leader term is not chance and its face-up term subtracts the mean over a random
trump card.  With duplicate deals the deal term cancels exactly between the two seatings (the
same cards, the seats swapped); the draw terms do not once play diverges, and that is where a
gain would come from.

**Fitting.**  The weights are fitted before measuring, on a separate set of deals (seeds
``derive_seed("rq-deal", 10**6 + d)``; the evaluation pool is ``ranking_quality``'s,
``derive_seed("rq-deal", d)``) played in both seatings by the same bots: least squares (a small
ridge) of the per-deal margin on the sum over the deal's chance events of the centred features
(the chance innovations), with an intercept and the strong bot's seat as nuisance terms.  As the
innovations of distinct events are uncorrelated, that is the control variate of least variance
for single matches.  Then the weights are frozen and applied to the evaluation pool.
``--fit duplicate`` fits the draw weights on the duplicate pairs' sums instead (the least
variance for duplicate pairs, where the deal terms cancel) and then the deal weights on single
matches (see :func:`fit`); both arms always use the same frozen ``V``.

**Measures** (per pair and match length): ``ranking_quality.variance_ratio`` (the standings' own
``deal_margin``, duplicate pair vs two independent matches) on the raw pool and on the same
pool with every deal's scores corrected (``strong - corr / 2``, ``weak + corr / 2``), the
variance reductions that the correction brings to each arm, the cross figure plain raw over
duplicate corrected, the unbiasedness check (mean correction per deal set with its standard
error), and optionally (``--trials``) ``ranking_quality.matches_to_separation`` on the
corrected pool.  With full matches the deal margin is a mean over a common prefix whose length
depends on the scores, so there the correction is unbiased per deal but not exactly for the
mean (measured: see ``bias``).

Run: ``python bench/luck_correction.py [--family noisy|deterministic] [--pairs 1.0:0.9,...]
[--lengths one,full] [--deals 1000] [--train-deals 2000] [--trials 0]``; one JSON line per
(pair, length).
"""

from __future__ import annotations

import argparse
import json
import math
import operator
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any, NamedTuple, cast

from cardarena.engine import play_match
from cardarena.engine.cards import INDEX
from cardarena.engine.core import State
from cardarena_tournament.formats import derive_seed
from ranking_quality import (
    BOTS,
    GAME,
    LENGTHS,
    Match,
    diff,
    matches_to_separation,
    outcome,
    ratio_interval,
    variance_ratio,
)

DEFAULT_PAIRS = {"noisy": "1.0:0.9,1.0:0.8,0.6:0.3", "deterministic": "1:0.5,0.5:0,1:0"}
TRAIN_OFFSET = 10**6
"""Training deals are ``derive_seed("rq-deal", TRAIN_OFFSET + d)``: disjoint from the pool."""
JACK = 9
"""Rank index of the jack (ranks 2..A are 0..12)."""
K = 32
"""Card classes: ``2 * rank' + trump`` for the 12 non-jack ranks, ``24 + 2 * suit + trump`` for jacks."""
STOCK = 26
"""Stock size with 2 players (the face-up trump card included)."""
LEAD, DEAL_HAND, DEAL_FACE = 0, 1, 1 + K
DRAW_HAND, DRAW_HAND_T, DRAW_FACE, DRAW_FACE_T = 1 + 2 * K, 1 + 3 * K, 1 + 4 * K, 1 + 5 * K
P = 1 + 6 * K
"""Feature layout: the leader's sign at the deal; the deal's hand and face-up classes; the
draws' hand and face-up classes, each also times ``trick / 13``."""
RANK_NAMES = "23456789TJQKA"
SUIT_NAMES = "CDHS"


def card_class(card: int, trump: int) -> int:
    """The class of ``card`` (index 0..51) when ``trump`` is the trump suit."""
    suit, rank = divmod(card, 13)
    t = int(suit == trump)
    if rank == JACK:
        return 24 + 2 * suit + t
    return 2 * (rank if rank < JACK else rank - 1) + t


def class_name(c: int) -> str:
    """A readable name: ``A`` / ``A*`` (trump), ``JH`` / ``JH*``."""
    if c >= 24:
        return "J" + SUIT_NAMES[(c - 24) // 2] + ("*" if c % 2 else "")
    r = c // 2
    return RANK_NAMES[r if r < JACK else r + 1] + ("*" if c % 2 else "")


TRUMP_CARD_MEAN = [sum(card_class(x, x // 13) == c for x in range(52)) / 52 for c in range(K)]
"""Mean class one-hot of the trump turn-up over a random deal (it is a trump by definition)."""


class Traced(NamedTuple):
    """One match from ``strong``'s side, with each deal's chance innovation (seat 0's view)."""

    match: Match
    strong_seat: int
    innovations: tuple[tuple[float, ...], ...]
    """Per deal, the sum over its chance events of ``phi(after) - E phi(after)`` (length ``P``)."""


def _sign(seat: int) -> float:
    return 1.0 if seat == 0 else -1.0


def deal_innovation(state: State, options: dict[str, Any]) -> list[tuple[float, ...]]:
    """Replay ``state``'s deal records on a fresh state and sum each deal's chance innovations."""
    replay = GAME.new_state(2, options)
    out: list[tuple[float, ...]] = []
    for number, rec in enumerate(state.deal_records()):
        x = [0.0] * P
        chance = rec.chance
        trump_card = INDEX[str(chance["trump_card"])]
        trump = trump_card // 13
        stock: list[int] = [INDEX[str(c)] for c in cast("list[str]", chance["stock"])]
        assert len(stock) == STOCK and stock[0] == trump_card
        hands = cast("list[list[str]]", chance["hands"])
        for seat, hand in enumerate(hands):
            for code in hand:
                x[DEAL_HAND + card_class(INDEX[code], trump)] += _sign(seat)
        lead = _sign((rec.dealer + 1) % 2)
        face = card_class(trump_card, trump)
        if number == 0:  # the first dealer is drawn at random, independently of the cards
            x[LEAD] += lead
            x[DEAL_FACE + face] += lead
        else:  # a later dealer is fixed: only the turn-up is chance
            for c in range(K):
                x[DEAL_FACE + c] += lead * ((c == face) - TRUMP_CARD_MEAN[c])
        replay.apply_chance(chance)
        for seat, action in rec.actions:
            before = replay.view(None).stock_size
            replay.apply(seat, action)
            view = replay.view(None)
            if view.stock_size == before:
                continue
            winner = view.last_winner
            assert winner is not None and view.stock_size == before - 2
            pos = STOCK - before
            rest = stock[pos + 1 :]
            mean = [0.0] * K
            for card in rest:
                mean[card_class(card, trump)] += 1.0 / len(rest)
            t = (pos // 2 + 1) / 13
            loser = _sign(1 - winner)
            drawn = card_class(stock[pos + 1], trump)
            for c in range(K):
                v = loser * ((c == drawn) - mean[c])
                x[DRAW_HAND + c] += v
                x[DRAW_HAND_T + c] += v * t
            if pos + 2 < STOCK:
                turned = card_class(stock[pos + 2], trump)
                for c in range(K):
                    v = _sign(winner) * ((c == turned) - mean[c])
                    x[DRAW_FACE + c] += v
                    x[DRAW_FACE_T + c] += v * t
        out.append(tuple(x))
    return out


def play_traced(
    p_strong: float, p_weak: float, seed: int, strong_seat: int, options: dict[str, Any], family: str
) -> Traced:
    """``ranking_quality.play_one``'s match (the same bots, deal and seating), traced."""
    bot = BOTS[family]
    bots = [bot("strong", p_strong), bot("weak", p_weak)]
    state = play_match("glaves", 2, bots if strong_seat == 0 else bots[::-1], seed=seed, options=options)
    res, by_deal = state.result(), state.scores_by_deal()
    assert by_deal is not None
    me, other = strong_seat, 1 - strong_seat
    match = Match(
        (float(res.scores[me]), float(res.scores[other])),
        (int(res.ranks[me]), int(res.ranks[other])),
        tuple((d[me], d[other]) for d in by_deal),
    )
    return Traced(match, strong_seat, tuple(deal_innovation(state, options)))


def traced_pool(
    p_strong: float, p_weak: float, deals: int, options: dict[str, Any], family: str, offset: int = 0
) -> list[tuple[Traced, Traced]]:
    """Deals ``offset .. offset + deals - 1`` of ``ranking_quality``'s seeds, in both seatings."""
    pool = []
    for d in range(offset, offset + deals):
        seed = derive_seed("rq-deal", d)
        pool.append(tuple(play_traced(p_strong, p_weak, seed, s, options, family) for s in (0, 1)))
    return pool  # type: ignore[return-value]


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a x = b`` by Gaussian elimination with partial pivoting (``a`` symmetric positive definite here)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        head = m[col]
        for r in range(col + 1, n):
            f = m[r][col] / head[col]
            if f:
                row = m[r]
                for j in range(col, n + 1):
                    row[j] -= f * head[j]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (m[i][n] - sum(m[i][j] * x[j] for j in range(i + 1, n))) / m[i][i]
    return x


def least_squares(rows: Sequence[Sequence[float]], ys: Sequence[float], nuisance: int, ridge: float) -> list[float]:
    """Coefficients of ``ys`` on ``rows`` (the first ``nuisance`` columns unpenalised, a ridge on
    the others): normal equations, column by column."""
    cols = [list(col) for col in zip(*rows, strict=True)]
    n = len(cols)
    gram = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            gram[i][j] = gram[j][i] = math.fsum(map(operator.mul, cols[i], cols[j]))
        if i >= nuisance:
            gram[i][i] += ridge
    return solve(gram, [math.fsum(map(operator.mul, col, ys)) for col in cols])


def _deal_rows(pool: Sequence[tuple[Traced, Traced]]) -> tuple[list[float], list[float], list[tuple[float, ...]]]:
    """Per match and deal: the margin (seat 0 - seat 1), the strong seat's sign, the innovations."""
    ys, signs, xs = [], [], []
    for pair in pool:
        for tr in pair:
            sign = _sign(tr.strong_seat)
            for (s_strong, s_weak), x in zip(tr.match.deals, tr.innovations, strict=True):
                ys.append(sign * (s_strong - s_weak))
                signs.append(sign)
                xs.append(x)
    return ys, signs, xs


def fit(
    pool: Sequence[tuple[Traced, Traced]], ridge: float = 1.0, target: str = "single"
) -> tuple[list[float], dict[str, float]]:
    """The weights of ``V``, fitted on ``pool`` (training deals, both seatings).

    ``single``: least squares of each match's deal margin (seat 0 - seat 1) on its innovations,
    with an intercept and the strong seat's sign as nuisance terms: the least-variance control
    variate for single matches.  ``duplicate``: first the draw weights, by least squares of the
    duplicate pair's ``strong - weak`` per deal of the common prefix (the sum of the two
    seatings) on the difference of the two seatings' innovations (the deal terms cancel there),
    with an intercept: the least-variance control variate for duplicate pairs; then the deal
    weights, by least squares of single matches' margins less the draw terms.  A ridge on all
    weights.  Returns the weights and the in-sample variances of single matches."""
    ys, signs, xs = _deal_rows(pool)
    if target == "single":
        beta = least_squares([(1.0, s, *x) for s, x in zip(signs, xs, strict=True)], ys, 2, ridge)
        w = beta[2:]
    elif target == "duplicate":
        dy: list[float] = []
        dx: list[tuple[float, ...]] = []
        for a, b in pool:
            for k in range(min(len(a.match.deals), len(b.match.deals))):
                (sa, wa), (sb, wb) = a.match.deals[k], b.match.deals[k]
                dy.append(sa - wa + sb - wb)
                xa, xb = a.innovations[k], b.innovations[k]
                sign_a, sign_b = _sign(a.strong_seat), _sign(b.strong_seat)
                dx.append(tuple(sign_a * u + sign_b * v for u, v in zip(xa[DRAW_HAND:], xb[DRAW_HAND:], strict=True)))
        draw = least_squares([(1.0, *x) for x in dx], dy, 1, ridge)[1:]
        rest = [y - sum(map(operator.mul, draw, x[DRAW_HAND:])) for y, x in zip(ys, xs, strict=True)]
        deal = least_squares([(1.0, s, *x[:DRAW_HAND]) for s, x in zip(signs, xs, strict=True)], rest, 2, ridge)
        w = deal[2:] + draw
    else:
        raise ValueError(f"unknown fit target {target!r}")
    assert len(w) == P
    resid = [y - sum(map(operator.mul, w, x)) for y, x in zip(ys, xs, strict=True)]
    return w, {
        "train_rows": len(ys),
        "train_var_raw": round(statistics.pvariance(ys), 4),
        "train_var_corrected": round(statistics.pvariance(resid), 4),
    }


def corrected(tr: Traced, w: Sequence[float]) -> Match:
    """``tr``'s match with each deal's scores corrected (strong's view); final scores follow."""
    sign = _sign(tr.strong_seat)  # seat 0's margin correction, seen from strong
    deals = []
    for (s, o), x in zip(tr.match.deals, tr.innovations, strict=True):
        corr = sign * sum(map(operator.mul, w, x))
        deals.append((s - corr / 2, o + corr / 2))
    scores = (sum(d[0] for d in deals), sum(d[1] for d in deals))
    return Match(scores, tr.match.ranks, tuple(deals))


def named_weights(w: Sequence[float]) -> dict[str, Any]:
    """The weights by block and class name (rounded)."""
    blocks = {
        "deal_hand": DEAL_HAND,
        "deal_face_x_leader": DEAL_FACE,
        "draw_hand": DRAW_HAND,
        "draw_hand_x_t": DRAW_HAND_T,
        "draw_face_x_leader": DRAW_FACE,
        "draw_face_x_leader_x_t": DRAW_FACE_T,
    }
    out: dict[str, Any] = {"leader": round(w[LEAD], 3)}
    for name, start in blocks.items():
        out[name] = {class_name(c): round(w[start + c], 3) for c in range(K)}
    return out


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    return statistics.fmean(values), statistics.pstdev(values) / math.sqrt(len(values))


def compare(raw: Sequence[tuple[Match, Match]], corr: Sequence[tuple[Match, Match]]) -> dict[str, Any]:
    """Raw vs corrected: both arms' variance ratios, the reductions, the cross ratio, the bias check."""
    r, c = variance_ratio(raw), variance_ratio(corr)
    out: dict[str, Any] = {"raw": r, "corrected": c}
    out["var_reduction_duplicate"] = round(r["var_duplicate"] / c["var_duplicate"], 2)
    out["var_reduction_plain"] = round(r["var_independent"] / c["var_independent"], 2)
    out["cross_variance_ratio_plain_raw_over_dup_corrected"] = round(r["var_independent"] / c["var_duplicate"], 2)
    out["cross_efficiency_ratio_plain_raw_over_dup_corrected"] = round(
        (r["var_independent"] / r["mean_diff_independent"] ** 2) / (c["var_duplicate"] / c["mean_diff_duplicate"] ** 2),
        2,
    )

    def units(pool: Sequence[tuple[Match, Match]]) -> tuple[list[float], list[float]]:
        dup = [diff([outcome(a, "a", "d", 0), outcome(b, "b", "d", 1)], "deal_margin") for a, b in pool]
        single = [diff([outcome(m, "m", "p", s)], "deal_margin") for pair in pool for s, m in enumerate(pair)]
        return dup, single

    (dr, sr), (dc, sc) = units(raw), units(corr)
    bias: dict[str, Any] = {}
    for arm, xs, ys in (("duplicate", dr, dc), ("plain", sr, sc)):
        m, se = _mean_se([y - x for x, y in zip(xs, ys, strict=True)])
        bias[arm] = {"raw": round(statistics.fmean(xs), 4), "corrected": round(statistics.fmean(ys), 4)}
        bias[arm].update({"corrected_minus_raw": round(m, 4), "se": round(se, 4), "z": round(m / se, 2) if se else 0.0})
    out["bias"] = bias
    return out


def measure(
    family: str,
    p_strong: float,
    p_weak: float,
    length: str,
    deals: int,
    train_deals: int,
    trials: int,
    ridge: float,
    target: str = "single",
) -> dict[str, Any]:
    """All figures for one pair and one match length."""
    options = LENGTHS[length]
    t0 = time.perf_counter()
    train = traced_pool(p_strong, p_weak, train_deals, options, family, offset=TRAIN_OFFSET)
    w, fit_info = fit(train, ridge, target)
    t1 = time.perf_counter()
    pool = traced_pool(p_strong, p_weak, deals, options, family)
    raw = [(a.match, b.match) for a, b in pool]
    corr = [(corrected(a, w), corrected(b, w)) for a, b in pool]
    out: dict[str, Any] = {"family": family, "p_strong": p_strong, "p_weak": p_weak, "length": length}
    out.update({"deals": deals, "train_deals": train_deals, "fit": target, "ridge": ridge, **fit_info})
    out.update(compare(raw, corr))
    if trials:
        for name, p in (("raw", raw), ("corrected", corr)):
            counts = {}
            for arm, dup in (("duplicate", True), ("plain", False)):
                runs = [matches_to_separation(p, dup, t, 20) for t in range(trials)]
                counts[arm] = sorted(n for n, _ in runs)
                out[f"{name}_{arm}_median"] = statistics.median(counts[arm])
                out[f"{name}_{arm}_capped"] = sum(capped for _, capped in runs)
            out[f"{name}_matches_ratio"] = round(out[f"{name}_plain_median"] / out[f"{name}_duplicate_median"], 2)
            out[f"{name}_matches_ratio_ci"] = ratio_interval(counts["plain"], counts["duplicate"])
    out["seconds_fit"] = round(t1 - t0, 1)
    out["seconds_total"] = round(time.perf_counter() - t0, 1)
    out["weights"] = named_weights(w)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    """Fit, correct and compare; one JSON line per (pair, length)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", choices=tuple(BOTS), default="noisy")
    ap.add_argument("--pairs", help="strong:weak strengths, comma-separated (default: by family)")
    ap.add_argument("--lengths", default="one", help="one (one deal) and/or full (to 46)")
    ap.add_argument("--deals", type=int, default=1000, help="evaluation deals (ranking_quality's pool)")
    ap.add_argument("--train-deals", type=int, default=2000, help="separate deals to fit V on")
    ap.add_argument("--trials", type=int, default=0, help="separation trials per arm and metric (0: none)")
    ap.add_argument("--ridge", type=float, default=1.0, help="ridge penalty on the weights")
    ap.add_argument("--fit", choices=("single", "duplicate"), default="single", help="the variance V minimises")
    a = ap.parse_args(argv)
    for pair in (a.pairs or DEFAULT_PAIRS[a.family]).split(","):
        hi, lo = (float(x) for x in pair.split(":"))
        for length in a.lengths.split(","):
            print(
                json.dumps(measure(a.family, hi, lo, length, a.deals, a.train_deals, a.trials, a.ridge, a.fit)),
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
