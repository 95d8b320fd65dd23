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

**Measures** (``strong`` minus ``weak`` in the standings metric: points 1/0.5/0 per match):

* *variance*: the per-deal-set difference of a duplicate pair (one deal, both seatings)
  against two matches on independent deals with random seats (each match of the pool is
  used once); ``variance_ratio = var(independent) / var(duplicate)``.
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

from cardarena.engine import play_match
from cardarena_sdk.strategies import glaves as heuristic
from cardarena_tournament.formats import derive_seed
from cardarena_tournament.standings import Outcome, compute

LENGTHS: dict[str, dict[str, Any]] = {"one": {"deals": 1}, "full": {}}
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


def strong_points(p_strong: float, p_weak: float, seed: int, strong_seat: int, options: dict[str, Any]) -> float:
    """``strong``'s points (1 win, 0.5 draw, 0 loss) in one match on deal ``seed``."""
    bots = [deterministic_bot("strong", p_strong), deterministic_bot("weak", p_weak)]
    policies = bots if strong_seat == 0 else bots[::-1]
    ranks = play_match("glaves", 2, policies, seed=seed, options=options).result().ranks
    mine, other = ranks[strong_seat], ranks[1 - strong_seat]
    return 1.0 if mine < other else 0.5 if mine == other else 0.0


def play_pool(p_strong: float, p_weak: float, deals: int, options: dict[str, Any]) -> list[tuple[float, float]]:
    """``strong``'s points on each deal with ``strong`` in seat 0 and in seat 1."""
    pool = []
    for d in range(deals):
        seed = derive_seed("rq-deal", d)
        pool.append(
            (strong_points(p_strong, p_weak, seed, 0, options), strong_points(p_strong, p_weak, seed, 1, options))
        )
    return pool


def variance_ratio(pool: Sequence[tuple[float, float]], seed: int = 0) -> dict[str, float]:
    """Variance of the per-deal-set difference: duplicate pairs vs independent deals."""
    # strong - weak in a 2-player match is 2 * points - 1; a unit's difference is the mean of two.
    dup = [(a + b) - 1.0 for a, b in pool]
    rng = random.Random(seed)
    singles = [pair[rng.randrange(2)] for pair in pool]  # one random seating per deal
    indep = [(singles[i] + singles[i + 1]) - 1.0 for i in range(0, len(singles) - 1, 2)]
    v_dup, v_ind = statistics.pvariance(dup), statistics.pvariance(indep)
    return {
        "mean_diff_duplicate": round(statistics.fmean(dup), 4),
        "mean_diff_independent": round(statistics.fmean(indep), 4),
        "var_duplicate": round(v_dup, 4),
        "var_independent": round(v_ind, 4),
        "variance_ratio": round(v_ind / v_dup, 2) if v_dup > 0 else float("inf"),
    }


def _separated(outcomes: list[Outcome], seed: int) -> bool:
    st = compute(outcomes, ["strong", "weak"], resamples=400, seed=seed)
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
    pool: Sequence[tuple[float, float]], duplicate: bool, trial: int, min_matches: int
) -> tuple[int, bool]:
    """Matches until ``strong`` is first and separated (and whether the pool ran out first)."""
    rng = random.Random(derive_seed("rq-trial", trial, duplicate))
    order = rng.sample(range(len(pool)), len(pool))
    outcomes: list[Outcome] = []

    def match(d: int, strong_seat: int) -> Outcome:
        pts = pool[d][strong_seat]
        ranks = (1, 1) if pts == 0.5 else ((1, 2) if pts == 1.0 else (2, 1))
        seats = ("strong", "weak")
        if strong_seat == 1:
            seats, ranks = ("weak", "strong"), (ranks[1], ranks[0])
        return Outcome(f"{d}:{strong_seat}", seats, (0.0, 0.0), ranks, f"{d}" if duplicate else f"{d}:{strong_seat}")

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
