"""Ranking quality: how much duplicate deals (each deal in both seatings) help to tell two
bots of known strength apart, against plain random deals, measured with the standings' own
metric.

**Bots** (``--family``), two families, each a *deterministic function of what it sees*, so the
same deal in the same seat against the same opponent gives the same game and nothing but the
deal (and the seating) varies:

* ``noisy`` (the default): a bot of strength ``p`` plays the SDK's Glaves heuristic
  (:func:`cardarena_sdk.strategies.glaves.choose`) with probability ``p`` and a random legal
  action otherwise; the mixing coin, the random action and the heuristic's own ``rng`` come
  from a hash of (bot name, the seat's view JSON, the legal actions).  Bots differ in skill
  *and* carry play noise: a renamed bot plays the same deal differently.
* ``deterministic``: no randomness at all.  A bot of strength ``w`` (0..1) is the same SDK
  heuristic with its moon rule weighted by ``w``: the 2-player evaluator charges a card
  ``MOON * risk`` (risk by the opponent's jacks taken, while I have none) for leaving the
  opponent on course to shoot the moon, and this bot charges ``w * MOON * risk`` (see
  :func:`handicapped_bot`).  ``w = 1`` is the SDK heuristic itself, ``w = 0`` removes the rule
  (the SDK's notes credit the 2-player evaluator that added it with 32 % -> 97.8 % against
  random bots); the heuristic's ``rng`` is a fixed seed, so a bot's name plays no part and the
  play-noise share is zero by construction (``--noise`` measures it: 0).  Strength is known
  by construction: a smaller ``w`` underweights a real risk by a known factor.

**Play.** Glaves, 2 players, the engine's :func:`cardarena.engine.play_match` directly (no
service, no Redis).  Two match lengths: one deal (option ``deals=1``) and full matches (to
46).  A pool of ``--deals`` deals is played in both seatings (``strong`` in seat 0, then in
seat 1); each match keeps its final scores, ranks and per-deal scores
(``State.scores_by_deal``, as the service stores them).

**Metric** (``--metric``): ``deal_margin``, the standings' primary metric for Glaves (see
:mod:`cardarena_tournament.standings`: the mean per-deal score margin over the deals that every
match of a deal set played), computed by the standings' own code
(:func:`~cardarena_tournament.standings.seat_metrics`, :func:`~cardarena_tournament.standings.compute`).
A duplicate deal set (one deal, both seatings) compares the common prefix of its two matches; a
plain deal set (one match) uses all of that match's deals, so both arms use the same metric
family and the ratio measures duplicate deals, not a change of metric.  ``margin`` is the
former metric (final-score margin), for comparison.  ``strong - weak`` in a two-player match
is twice ``strong``'s margin (score points per deal for ``deal_margin``).

**Measures.**

* *variance*: the per-deal-set difference ``strong - weak`` of a duplicate pair (one deal, both
  seatings) against the mean of two matches on independent deals with random seats (the
  expectation over the pool: half the variance of one match drawn from all of the pool's
  matches); ``variance_ratio = var(independent) / var(duplicate)`` (same number of matches in
  both), and ``efficiency_ratio``, the same ratio of ``var / mean**2`` (the arms' means differ
  slightly with ``deal_margin``, as a duplicate set counts only its common prefix): the ratio of
  matches a fixed-size test needs, free of the stopping rule.  ``final_margin_variance_ratio``
  is ``variance_ratio`` in the former metric.  ``duplicate_zero_share``: the share of duplicate
  pairs whose ``strong - weak`` is exactly 0 (the deal's two seatings cancel exactly).
* *play noise* (``--noise``): each deal replayed in seating 0 by the same bots with fresh
  randomness; ``noise_share`` is the share of a match's variance that changes with the bots'
  own randomness alone, and ``variance_ratio_bound = 1 / noise_share`` bounds what any
  duplicate scheme can reach (see :func:`play_noise`).
* *matches to separation*: a trial adds units in a random order (duplicate: a deal in both
  seatings = one deal set; plain: one match on a fresh deal with a random seating = one deal
  set) and stops at the first check where ``strong`` ranks first and is separated from
  ``weak`` by :func:`cardarena_tournament.standings.compute` (the paired bootstrap of the
  standings, 400 resamples), with at least ``--min-matches`` matches and the standings' own
  minimum of deal sets.  Checks after every unit up to 40 matches, then every ~5 %.  Each trial
  uses a deal at most once per arm; trials draw from the shared pool (a deal's games are fixed
  because the bots are deterministic, so replaying it would give the same result).  Reported:
  the median and quartiles over ``--trials``, ``matches_ratio`` (plain median / duplicate
  median) with a 95 % bootstrap interval over trials, and ``capped``, the trials that did not
  separate within the pool (counted as the pool size: a lower bound).

Run: ``python bench/ranking_quality.py [--family noisy|deterministic] [--deals 1000]
[--trials 40] [--pairs 0.3:0,0.6:0.3] [--lengths one,full] [--metric deal_margin|margin]
[--noise]``; ``--pairs`` are ``strong:weak`` strengths (``p`` or ``w``; default ``0.3:0,0.6:0.3``
for ``noisy``, ``1:0.5,0.5:0`` for ``deterministic``); prints one JSON line per (pair, length).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from cardarena.engine import get_game, play_match
from cardarena_sdk.strategies import glaves as heuristic
from cardarena_sdk.strategies import jacks_and_tricks
from cardarena_tournament.formats import derive_seed
from cardarena_tournament.standings import Outcome, compute, seat_metrics

LENGTHS: dict[str, dict[str, Any]] = {"one": {"deals": 1}, "full": {}}
"""Match lengths: one deal, or the full game to 46."""
GAME = get_game("glaves")
HIGHER_IS_BETTER = GAME.higher_is_better
METRICS = ("deal_margin", "margin")
FAMILIES = ("noisy", "deterministic")
DEFAULT_PAIRS = {"noisy": "0.3:0,0.6:0.3", "deterministic": "1:0.5,0.5:0"}
MOON = jacks_and_tricks.MOON
"""The SDK heuristic's moon swing, which the ``deterministic`` family scales."""

Policy = Callable[[Any, Sequence[str], int], str]


def noisy_bot(name: str, p: float) -> Policy:
    """A ``noisy`` bot of strength ``p``: a pure function of (name, view, legal actions)."""

    def choose(view: Any, legal: Sequence[str], seat: int) -> str:
        data = view.to_json() if hasattr(view, "to_json") else view
        text = json.dumps([name, data, list(legal)], sort_keys=True, separators=(",", ":"))
        digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
        coin = int.from_bytes(digest[:8], "big") / 2.0**64
        rng = random.Random(int.from_bytes(digest[8:], "big"))
        if coin < p:
            return str(heuristic.choose(data, list(legal), rng))
        return legal[rng.randrange(len(legal))]

    return choose


def handicapped_bot(name: str, w: float) -> Policy:
    """A ``deterministic`` bot of strength ``w``: the SDK heuristic with its moon rule weighted by
    ``w`` (``choose(..., moon=w * MOON)``; ``w = 1`` is the SDK heuristic unchanged) and a fixed
    ``rng`` seed; ``name`` is ignored: a pure function of (view, legal actions), with no
    randomness to refresh."""
    del name

    def choose(view: Any, legal: Sequence[str], seat: int) -> str:
        data = view.to_json() if hasattr(view, "to_json") else view
        return str(heuristic.choose(data, list(legal), random.Random(0), moon=w * MOON))

    return choose


BOTS: dict[str, Callable[[str, float], Policy]] = {"noisy": noisy_bot, "deterministic": handicapped_bot}


class Match(NamedTuple):
    """One match seen from ``strong``: every pair is (strong's, weak's)."""

    scores: tuple[float, float]
    ranks: tuple[int, int]
    deals: tuple[tuple[float, float], ...]
    """Each deal's scores."""


def play_one(
    p_strong: float,
    p_weak: float,
    seed: int,
    strong_seat: int,
    options: dict[str, Any],
    salt: str = "",
    family: str = "noisy",
) -> Match:
    """Scores, ranks and per-deal scores of ``strong`` and ``weak`` in one match on deal ``seed``
    (``salt`` renames both bots: the same strengths with fresh randomness, if they have any)."""
    bot = BOTS[family]
    bots = [bot("strong" + salt, p_strong), bot("weak" + salt, p_weak)]
    policies = bots if strong_seat == 0 else bots[::-1]
    state = play_match("glaves", 2, policies, seed=seed, options=options)
    res, by_deal = state.result(), state.scores_by_deal()
    assert by_deal is not None
    me, other = strong_seat, 1 - strong_seat
    return Match(
        (float(res.scores[me]), float(res.scores[other])),
        (int(res.ranks[me]), int(res.ranks[other])),
        tuple((d[me], d[other]) for d in by_deal),
    )


def strong_points(
    p_strong: float, p_weak: float, seed: int, strong_seat: int, options: dict[str, Any], family: str = "noisy"
) -> float:
    """``strong``'s points (1 win, 0.5 draw, 0 loss) in one match on deal ``seed``."""
    mine, other = play_one(p_strong, p_weak, seed, strong_seat, options, family=family).ranks
    return 1.0 if mine < other else 0.5 if mine == other else 0.0


def play_pool(
    p_strong: float, p_weak: float, deals: int, options: dict[str, Any], family: str = "noisy"
) -> list[tuple[Match, Match]]:
    """Each deal with ``strong`` in seat 0 and in seat 1."""
    pool = []
    for d in range(deals):
        seed = derive_seed("rq-deal", d)
        pool.append(
            (
                play_one(p_strong, p_weak, seed, 0, options, family=family),
                play_one(p_strong, p_weak, seed, 1, options, family=family),
            )
        )
    return pool


def outcome(m: Match, match_id: str, deal_set: str, strong_seat: int) -> Outcome:
    """The match as the standings see it (seats in table order, per-deal scores included)."""

    def order(pair: tuple[Any, Any]) -> tuple[Any, Any]:
        return pair if strong_seat == 0 else (pair[1], pair[0])

    seats = order(("strong", "weak"))
    return Outcome(match_id, seats, order(m.scores), order(m.ranks), deal_set, deal_scores=tuple(map(order, m.deals)))


def diff(group: Sequence[Outcome], metric: str) -> float:
    """``strong - weak`` in one deal set (``group``: its matches) by the standings' metric."""
    values = seat_metrics(group, metric=metric, higher_is_better=HIGHER_IS_BETTER)
    strong = [v[o.seats.index("strong")] for o, v in zip(group, values, strict=True)]
    weak = [v[o.seats.index("weak")] for o, v in zip(group, values, strict=True)]
    return statistics.fmean(strong) - statistics.fmean(weak)


def variance_ratio(pool: Sequence[tuple[Match, Match]], seed: int = 0, metric: str = "deal_margin") -> dict[str, float]:
    """Variance of the per-deal-set difference ``strong - weak``: duplicate pairs vs independent deals."""
    dup = [diff([outcome(a, "a", "d", 0), outcome(b, "b", "d", 1)], metric) for a, b in pool]
    # A plain deal set is one match on a random deal in a random seating: every match of the pool
    # is equally likely, and two independent ones average to half its variance.
    singles = [diff([outcome(m, "m", "p", s)], metric) for pair in pool for s, m in enumerate(pair)]
    m_dup, m_ind = statistics.fmean(dup), statistics.fmean(singles)
    v_dup, v_ind = statistics.pvariance(dup), statistics.pvariance(singles) / 2
    eff = (v_ind / m_ind**2) / (v_dup / m_dup**2) if v_dup > 0 and m_ind != 0 else float("inf")
    return {
        "mean_diff_duplicate": round(m_dup, 4),
        "mean_diff_independent": round(m_ind, 4),
        "var_duplicate": round(v_dup, 4),
        "var_independent": round(v_ind, 4),
        "variance_ratio": round(v_ind / v_dup, 2) if v_dup > 0 else float("inf"),
        "efficiency_ratio": round(eff, 2),
        "duplicate_zero_share": round(sum(d == 0 for d in dup) / len(dup), 2),
    }


def play_noise(
    pool: Sequence[tuple[Match, Match]],
    p_strong: float,
    p_weak: float,
    options: dict[str, Any],
    metric: str,
    family: str = "noisy",
) -> dict[str, float]:
    """The share of a match's variance that is the bots' own play (not the deal): each deal is
    replayed in seating 0 by the same bots with fresh randomness; ``var(x - x') / 2`` over
    ``var(x)``.  A seating swap cannot cancel that part (every view differs, so the bots'
    choices are as independent as on another deal), so ``1 / noise_share`` bounds the
    variance ratio that any duplicate scheme can reach with these bots.  For the
    ``deterministic`` family the replay is the same game (zero by construction; measured)."""
    firsts, replays = [], []
    for d, (first, _) in enumerate(pool):
        again = play_one(p_strong, p_weak, derive_seed("rq-deal", d), 0, options, salt="'", family=family)
        firsts.append(diff([outcome(first, "x", "p", 0)], metric))
        replays.append(diff([outcome(again, "y", "p", 0)], metric))
    noise = statistics.pvariance([a - b for a, b in zip(firsts, replays, strict=True)]) / 2
    share = noise / statistics.pvariance(firsts)
    return {"noise_share": round(share, 2), "variance_ratio_bound": round(1 / share, 2) if share else float("inf")}


def _separated(outcomes: list[Outcome], seed: int, metric: str) -> bool:
    st = compute(
        outcomes,
        ["strong", "weak"],
        higher_is_better=HIGHER_IS_BETTER,
        deals_fixed_by_seed=GAME.deals_fixed_by_seed and metric == "deal_margin",
        resamples=400,
        seed=seed,
    )
    assert st.metric == metric, (st.metric, metric)  # the standings really use the metric measured
    return st.rows[0].bot == "strong" and bool(st.rows[0].separated_from_next)


def _checkpoints(limit: int) -> list[int]:
    """Match counts at which separation is checked (every 2 up to 40, then ~5 % steps)."""
    out = list(range(2, min(limit, 40) + 1, 2))
    n = 40
    while n < limit:
        n = min(limit, n + max(2, (n // 20) // 2 * 2))
        out.append(n)
    return out


def matches_to_separation(
    pool: Sequence[tuple[Match, Match]], duplicate: bool, trial: int, min_matches: int, metric: str = "deal_margin"
) -> tuple[int, bool]:
    """Matches until ``strong`` is first and separated (and whether the pool ran out first)."""
    rng = random.Random(derive_seed("rq-trial", trial, duplicate))
    order = rng.sample(range(len(pool)), len(pool))
    outcomes: list[Outcome] = []

    def match(d: int, strong_seat: int) -> Outcome:
        unit = f"{d}" if duplicate else f"{d}:{strong_seat}"
        return outcome(pool[d][strong_seat], f"{d}:{strong_seat}", unit, strong_seat)

    limit = 2 * len(pool) if duplicate else len(pool)
    it = iter(order)
    for n in _checkpoints(limit):
        while len(outcomes) < n:
            d = next(it)
            if duplicate:
                outcomes += [match(d, 0), match(d, 1)]
            else:
                outcomes.append(match(d, rng.randrange(2)))
        if n >= min_matches and _separated(outcomes, trial, metric):
            return n, False
    return limit, True


def ratio_interval(plain: Sequence[int], dup: Sequence[int], resamples: int = 2000) -> list[float]:
    """95 % percentile bootstrap interval (over trials) of median(plain) / median(dup)."""
    rng = random.Random(0)
    ratios = sorted(
        statistics.median(rng.choices(plain, k=len(plain))) / statistics.median(rng.choices(dup, k=len(dup)))
        for _ in range(resamples)
    )
    return [round(ratios[int(0.025 * resamples)], 2), round(ratios[int(0.975 * resamples) - 1], 2)]


def measure(
    p_strong: float,
    p_weak: float,
    length: str,
    deals: int,
    trials: int,
    min_matches: int,
    metric: str = "deal_margin",
    noise: bool = False,
    family: str = "noisy",
) -> dict[str, Any]:
    """All figures for one pair of strengths and one match length."""
    pool = play_pool(p_strong, p_weak, deals, LENGTHS[length], family)
    out: dict[str, Any] = {"family": family, "p_strong": p_strong, "p_weak": p_weak, "length": length}
    out.update({"deals": deals, "metric": metric})
    out["deals_per_match"] = round(statistics.fmean(len(m.deals) for pair in pool for m in pair), 2)
    out["common_prefix"] = round(statistics.fmean(min(len(a.deals), len(b.deals)) for a, b in pool), 2)
    out.update(variance_ratio(pool, metric=metric))
    out["final_margin_variance_ratio"] = variance_ratio(pool, metric="margin")["variance_ratio"]
    if noise:
        out.update(play_noise(pool, p_strong, p_weak, LENGTHS[length], metric, family))
    if not trials:
        return out
    counts: dict[str, list[int]] = {}
    for arm, dup in (("duplicate", True), ("plain", False)):
        runs = [matches_to_separation(pool, dup, t, min_matches, metric) for t in range(trials)]
        counts[arm] = sorted(n for n, _ in runs)
        out[f"{arm}_median"] = statistics.median(counts[arm])
        out[f"{arm}_quartiles"] = [counts[arm][len(runs) // 4], counts[arm][(3 * len(runs)) // 4]]
        out[f"{arm}_capped"] = sum(c for _, c in runs)
    out["matches_ratio"] = round(out["plain_median"] / out["duplicate_median"], 2)
    out["matches_ratio_ci"] = ratio_interval(counts["plain"], counts["duplicate"])
    return out


def main(argv: Sequence[str] | None = None) -> None:
    """Run the comparison and print one JSON line per configuration."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", choices=FAMILIES, default="noisy", help="the simulated bots (module docstring)")
    ap.add_argument("--pairs", help="strong:weak strengths, comma-separated (default: by family)")
    ap.add_argument("--lengths", default="one,full", help="one (one deal) and/or full (to 46)")
    ap.add_argument("--deals", type=int, default=1000, help="deals in the pool (each played in both seatings)")
    ap.add_argument("--trials", type=int, default=40, help="separation trials per arm (0: variance only)")
    ap.add_argument("--min-matches", type=int, default=20, help="no separation call below this many matches")
    ap.add_argument("--metric", choices=METRICS, default="deal_margin", help="the standings metric to separate by")
    ap.add_argument(
        "--noise", action="store_true", help="also measure the bots' own play noise (one more match per deal)"
    )
    a = ap.parse_args(argv)
    for pair in (a.pairs or DEFAULT_PAIRS[a.family]).split(","):
        hi, lo = (float(x) for x in pair.split(":"))
        for length in a.lengths.split(","):
            figures = measure(hi, lo, length, a.deals, a.trials, a.min_matches, a.metric, a.noise, a.family)
            print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
