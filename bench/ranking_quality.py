"""Ranking quality: matches needed to separate two bots of known strength at 95 %, with
duplicate deals (each deal in both seatings) versus plain random deals.

Glaves, 2 players, one deal per match (option ``deals=1``).  Bot ``weak`` plays uniformly at
random; bot ``strong`` plays the SDK's Glaves heuristic with probability ``p`` and a random
legal action otherwise.  Both formats are scored by :func:`cardarena_tournament.standings.compute`
(points per deal set, paired bootstrap of the difference); we add matches in steps and record
the first count at which ``strong`` ranks first and is separated.  Engine only, no IO.

Run: ``python bench/ranking_quality.py [--p 0.5] [--trials 20] [--max-matches 2000]``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections.abc import Sequence
from typing import Any

from cardarena.engine import play_match
from cardarena_sdk.strategies import glaves as heuristic
from cardarena_tournament.formats import derive_seed
from cardarena_tournament.standings import Outcome, compute

OPTIONS = {"deals": 1}


def _policy(bot: str, p: float, rng: random.Random) -> Any:
    def choose(view: Any, legal: Sequence[str], seat: int) -> str:
        if bot == "strong" and rng.random() < p:
            return str(heuristic.choose(view.to_json() if hasattr(view, "to_json") else view, list(legal), rng))
        return legal[rng.randrange(len(legal))]

    return choose


def _play(seats: tuple[str, str], seed: int, p: float, rng: random.Random) -> Outcome:
    policies = [_policy(b, p, rng) for b in seats]
    state = play_match("glaves", 2, policies, seed=seed, options=OPTIONS)
    r = state.result()
    return Outcome("", seats, tuple(float(s) for s in r.scores), r.ranks, "")


def _needed(duplicate: bool, p: float, trial: int, step: int, limit: int) -> int:
    rng = random.Random(derive_seed("rq", trial, duplicate))
    outcomes: list[Outcome] = []
    n = 0
    while n < limit:
        for _ in range(step // 2):
            seed = derive_seed("deal", trial, duplicate, n)
            if duplicate:
                for seats in (("strong", "weak"), ("weak", "strong")):
                    o = _play(seats, seed, p, rng)
                    outcomes.append(Outcome(str(n), o.seats, o.scores, o.ranks, f"d{n}"))
            else:
                for k in range(2):
                    seats = ("strong", "weak") if rng.random() < 0.5 else ("weak", "strong")
                    o = _play(seats, derive_seed(seed, k), p, rng)
                    outcomes.append(Outcome(str(n), o.seats, o.scores, o.ranks, f"m{n}-{k}"))
            n += 2
        st = compute(outcomes, ["strong", "weak"], resamples=400, seed=trial)
        if st.rows[0].bot == "strong" and st.rows[0].separated_from_next:
            return n
    return limit


def main() -> None:
    """Run the comparison and print one JSON line."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--p", type=float, default=0.3)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--step", type=int, default=8)
    ap.add_argument("--max-matches", type=int, default=2000)
    a = ap.parse_args()
    dup = [_needed(True, a.p, t, a.step, a.max_matches) for t in range(a.trials)]
    plain = [_needed(False, a.p, t, a.step, a.max_matches) for t in range(a.trials)]
    print(
        json.dumps(
            {
                "p": a.p,
                "trials": a.trials,
                "duplicate_median": statistics.median(dup),
                "plain_median": statistics.median(plain),
                "ratio": round(statistics.median(plain) / statistics.median(dup), 2),
                "duplicate": dup,
                "plain": plain,
            }
        )
    )


if __name__ == "__main__":
    main()
