"""Benchmark: a 16-bot Glaves 2-player round robin with duplicate deals, end to end.

Runs the real ``cardarena tournament run`` (embedded Redis, the gRPC service, a Celery worker
and beat, sixteen bot processes: 8 heuristic, 8 random) and reports the wall time, matches per
second and the standings' separation, after checking the match list is balanced (every pair
meets equally often, every bot sits in both seats equally often).

    python bench/round_robin_16.py [--deal-sets 1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from itertools import combinations


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deal-sets", type=int, default=1)
    parser.add_argument("--per-kind", type=int, default=8, help="bots of each kind (default 8: 16 bots)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    bots = ",".join(["heuristic"] * args.per_kind + ["random"] * args.per_kind)
    argv = [
        sys.executable,
        "-m",
        "cardarena.cli",
        "tournament",
        "run",
        "--game",
        "glaves",
        "--players",
        "2",
        "--bots",
        bots,
        "--deal-sets",
        str(args.deal_sets),
        "--json",
    ]
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    out = json.loads(proc.stdout)
    matches = out["matches"]
    names = [row["bot"] for row in out["standings"]]
    pairs = Counter(frozenset(m["seats"]) for m in matches)
    seats = Counter((m["seats"][0], "first") for m in matches) + Counter((m["seats"][1], "second") for m in matches)
    assert set(pairs) == {frozenset(p) for p in combinations(names, 2)}, "not every pair met"
    assert len(set(pairs.values())) == 1, "pairs met unequally often"
    assert len(set(seats.values())) == 1, "seats are unbalanced"
    top = {row["bot"] for row in out["standings"][: args.per_kind]}
    figure = {
        "bots": 2 * args.per_kind,
        "deal_sets": args.deal_sets,
        "matches": len(matches),
        "wall_s": round(wall, 1),
        "matches_per_s": round(len(matches) / wall, 2),
        "heuristic_in_top_half": sum(1 for b in top if b.startswith("heuristic")),
    }
    print(json.dumps(figure) if args.json else "\n".join(f"{k:>20}: {v}" for k, v in figure.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
