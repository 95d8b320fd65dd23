"""Ranking quality: how much duplicate deals (each deal in both seatings) help to tell two
bots of known strength apart, against plain random deals.

**Bots.** A bot of strength ``p`` plays the SDK's Glaves heuristic
(:func:`cardarena_sdk.strategies.glaves.choose`) with probability ``p`` and a random legal
action otherwise.  Like a real bot it is a *deterministic function of what it sees*: the
mixing coin, the random action and the heuristic's own ``rng`` all come from a hash of (bot
name, the seat's view JSON, the legal actions).  The same deal in the same seat against the
same opponent therefore gives the same game; nothing but the deal (and the seating) varies.

**Play.** Glaves, 2 players, the engine's :func:`cardarena.engine.play_match` directly (no
service, no Redis).  Two match lengths: one deal (option ``deals=1``) and full matches (to
46).  A pool of ``--deals`` deals is played in both seatings (``strong`` in seat 0, then in
seat 1).

**Measures** (``strong`` minus ``weak`` in the standings metric, the score margin: in a
two-player match each seat's margin is half the score difference; the final scores come from
the engine's ``Result.scores`` as the service stores them):

* *variance*: the per-deal-set difference of a duplicate pair (one deal, both seatings)
  against two matches on independent deals with random seats (each match of the pool is
  used once); ``variance_ratio = var(independent) / var(duplicate)``; ``points_variance_ratio``
  is the same in the former metric (win/draw/loss 1/0/-1), for comparison.
* *matches to separation*: a trial adds units in a random order (duplicate: a deal in both
  seatings = one deal set; plain: one match on a fresh deal with a random seating = one deal
  set) and stops at the first check where ``strong`` ranks first and is separated from
  ``weak`` by :func:`cardarena_tournament.standings.compute` (the paired bootstrap of the
  standings, 400 resamples), with at least ``--min-matches`` matches and the standings' own
  minimum of deal sets.  Checks after every unit up to 40 matches, then every ~5 %.  Each trial
  uses a deal at most once per arm; trials draw from the shared pool (a deal's games are fixed
  because the bots are deterministic, so replaying it would give the same result).  Reported:
  the median (and quartiles) over ``--trials``; a trial that does not separate within the pool counts as the
  pool size (a lower bound, flagged by ``capped``).

Run: ``python bench/ranking_quality.py [--deals 1000] [--trials 40] [--pairs 0.3:0,0.6:0.3]
[--lengths one,full]``; prints one JSON line per (pair, length) and a summary line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from typing import Any

from cardarena.engine import get_game, play_match
from cardarena_sdk.strategies import glaves as heuristic
from cardarena_tournament.formats import derive_seed
from cardarena_tournament.standings import Outcome, compute

LENGTHS: dict[str, dict[str, Any]] = {"one": {"deals": 1}, "full": {}}
HIGHER_IS_BETTER = get_game("glaves").higher_is_better
"""Match lengths: one deal, or the full game to 46."""

Policy = Callable[[Any, Sequence[str], int], str]


def deterministic_bot(name: str, p: float) -> Policy:
    """A bot of strength ``p``: a pure function of (name, view, legal actions)."""

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


Match = tuple[tuple[float, float], tuple[int, int]]
"""One match seen from ``strong``: (strong's score, weak's score), (strong's rank, weak's rank)."""


def play_one(p_strong: float, p_weak: float, seed: int, strong_seat: int, options: dict[str, Any]) -> Match:
    """Final scores and ranks of ``strong`` and ``weak`` in one match on deal ``seed``."""
    bots = [deterministic_bot("strong", p_strong), deterministic_bot("weak", p_weak)]
    policies = bots if strong_seat == 0 else bots[::-1]
    res = play_match("glaves", 2, policies, seed=seed, options=options).result()
    me, other = strong_seat, 1 - strong_seat
    return (float(res.scores[me]), float(res.scores[other])), (int(res.ranks[me]), int(res.ranks[other]))


def strong_points(p_strong: float, p_weak: float, seed: int, strong_seat: int, options: dict[str, Any]) -> float:
    """``strong``'s points (1 win, 0.5 draw, 0 loss) in one match on deal ``seed``."""
    _, (mine, other) = play_one(p_strong, p_weak, seed, strong_seat, options)
    return 1.0 if mine < other else 0.5 if mine == other else 0.0


def play_pool(p_strong: float, p_weak: float, deals: int, options: dict[str, Any]) -> list[tuple[Match, Match]]:
    """Each deal with ``strong`` in seat 0 and in seat 1."""
    pool = []
    for d in range(deals):
        seed = derive_seed("rq-deal", d)
        pool.append((play_one(p_strong, p_weak, seed, 0, options), play_one(p_strong, p_weak, seed, 1, options)))
    return pool


def _outcome(m: Match, match_id: str, deal_set: str, strong_seat: int) -> Outcome:
    (s_strong, s_weak), (r_strong, r_weak) = m
    if strong_seat == 0:
        return Outcome(match_id, ("strong", "weak"), (s_strong, s_weak), (r_strong, r_weak), deal_set)
    return Outcome(match_id, ("weak", "strong"), (s_weak, s_strong), (r_weak, r_strong), deal_set)


def diff(m: Match, metric: str) -> float:
    """``strong`` minus ``weak`` in one match: in the standings metric (``margin``: the score
    difference, both margins being half of it) or in points (``points``: 2 * points - 1)."""
    (s_strong, s_weak), (r_strong, r_weak) = m
    if metric == "margin":
        return (s_strong - s_weak) * (1.0 if HIGHER_IS_BETTER else -1.0)
    return 1.0 if r_strong < r_weak else 0.0 if r_strong == r_weak else -1.0


def variance_ratio(pool: Sequence[tuple[Match, Match]], seed: int = 0, metric: str = "margin") -> dict[str, float]:
    """Variance of the per-deal-set difference ``strong - weak``: duplicate pairs vs independent deals."""
    dup = [(diff(a, metric) + diff(b, metric)) / 2 for a, b in pool]
    rng = random.Random(seed)
    singles = [diff(pair[rng.randrange(2)], metric) for pair in pool]  # one random seating per deal
    indep = [(singles[i] + singles[i + 1]) / 2 for i in range(0, len(singles) - 1, 2)]
    v_dup, v_ind = statistics.pvariance(dup), statistics.pvariance(indep)
    return {
        "mean_diff_duplicate": round(statistics.fmean(dup), 4),
        "mean_diff_independent": round(statistics.fmean(indep), 4),
        "var_duplicate": round(v_dup, 4),
        "var_independent": round(v_ind, 4),
        "variance_ratio": round(v_ind / v_dup, 2) if v_dup > 0 else float("inf"),
    }


def _separated(outcomes: list[Outcome], seed: int) -> bool:
    st = compute(outcomes, ["strong", "weak"], higher_is_better=HIGHER_IS_BETTER, resamples=400, seed=seed)
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
    pool: Sequence[tuple[Match, Match]], duplicate: bool, trial: int, min_matches: int
) -> tuple[int, bool]:
    """Matches until ``strong`` is first and separated (and whether the pool ran out first)."""
    rng = random.Random(derive_seed("rq-trial", trial, duplicate))
    order = rng.sample(range(len(pool)), len(pool))
    outcomes: list[Outcome] = []

    def match(d: int, strong_seat: int) -> Outcome:
        return _outcome(
            pool[d][strong_seat], f"{d}:{strong_seat}", f"{d}" if duplicate else f"{d}:{strong_seat}", strong_seat
        )

    limit = 2 * len(pool) if duplicate else len(pool)
    it = iter(order)
    for n in _checkpoints(limit):
        while len(outcomes) < n:
            d = next(it)
            if duplicate:
                outcomes += [match(d, 0), match(d, 1)]
            else:
                outcomes.append(match(d, rng.randrange(2)))
        if n >= min_matches and _separated(outcomes, trial):
            return n, False
    return limit, True


def measure(p_strong: float, p_weak: float, length: str, deals: int, trials: int, min_matches: int) -> dict[str, Any]:
    """All figures for one pair of strengths and one match length."""
    pool = play_pool(p_strong, p_weak, deals, LENGTHS[length])
    out: dict[str, Any] = {"p_strong": p_strong, "p_weak": p_weak, "length": length, "deals": deals}
    out.update(variance_ratio(pool))
    out["points_variance_ratio"] = variance_ratio(pool, metric="points")["variance_ratio"]
    for arm, dup in (("duplicate", True), ("plain", False)):
        runs = [matches_to_separation(pool, dup, t, min_matches) for t in range(trials)]
        counts = sorted(n for n, _ in runs)
        out[f"{arm}_median"] = statistics.median(counts)
        out[f"{arm}_quartiles"] = [counts[len(counts) // 4], counts[(3 * len(counts)) // 4]]
        out[f"{arm}_capped"] = sum(c for _, c in runs)
    out["matches_ratio"] = round(out["plain_median"] / out["duplicate_median"], 2)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    """Run the comparison and print one JSON line per configuration."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", default="0.3:0,0.6:0.3", help="strong:weak strengths, comma-separated")
    ap.add_argument("--lengths", default="one,full", help="one (one deal) and/or full (to 46)")
    ap.add_argument("--deals", type=int, default=1000, help="deals in the pool (each played in both seatings)")
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--min-matches", type=int, default=20, help="no separation call below this many matches")
    a = ap.parse_args(argv)
    for pair in a.pairs.split(","):
        hi, lo = (float(x) for x in pair.split(":"))
        for length in a.lengths.split(","):
            print(json.dumps(measure(hi, lo, length, a.deals, a.trials, a.min_matches)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
