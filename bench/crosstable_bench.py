"""What a tournament's crosstable costs: computing it beside the standings, and reading it.

``--part compute`` (pure, no Redis): for each field (``BOTS:PLAYERS:DEAL_SETS``, e.g. ``24:2:1``
a nightly run), the formats' own schedule with random one-deal results carrying per-deal scores
(so the metric is ``deal_margin``), then ``standings.compute`` and ``standings.crosstable`` on
the same outcomes, alternating: CPU, median of ``--repeats``, and the stored JSON's size.

``--part reads``: a finished two-player round robin of each ``--bots`` size (random fixed
results, counted by ``lifecycle.reconcile`` as the workers count them, so its standings and
crosstable are stored) in a private embedded Redis, then the tournament page, the crosstable's
fragment (rendered anew, as for a new snapshot; kept; a poll of it with its ETag), the API and
its one-bot form on the Flask test client:
CPU of this process, median of ``--repeats`` after a warm-up, and the answer's size.

    python bench/crosstable_bench.py --part compute --fields 24:2:1,40:2:3,24:3:2,40:3:3,3:2:500
    python bench/crosstable_bench.py --part reads --bots 24,40 --repeats 15
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import uuid
from functools import partial
from typing import Any


def _outcomes(bots: list[str], players: int, deal_sets: int) -> list[Any]:
    from cardarena_tournament.formats import schedule
    from cardarena_tournament.standings import Outcome

    rng = random.Random(1)
    out = []
    for m in schedule("t", bots, players, deal_sets, seed=1):
        deals = tuple(tuple(float(rng.randint(0, 13)) for _ in m.seats) for _ in range(4))
        scores = tuple(sum(d[s] for d in deals) for s in range(players))
        ranks = tuple(1 + sum(o > x for o in scores) for x in scores)
        out.append(Outcome(m.match_id, m.seats, scores, ranks, m.deal_set, deal_scores=deals))
    return out


def _cpu(work: Any, repeats: int) -> float:
    spent = []
    for _ in range(repeats):
        start = time.process_time()
        work()
        spent.append(time.process_time() - start)
    return statistics.median(spent)


def compute_part(args: argparse.Namespace) -> list[dict[str, Any]]:
    from cardarena_tournament.standings import compute, crosstable

    rows = []
    for field in args.fields.split(","):
        n, players, deal_sets = (int(x) for x in field.split(":"))
        bots = [f"b{i:02d}" for i in range(n)]
        outcomes = _outcomes(bots, players, deal_sets)
        snapshot = compute(outcomes, bots, deals_fixed_by_seed=True)
        order = [r.bot for r in snapshot.rows]
        table = crosstable(outcomes, order, deals_fixed_by_seed=True)
        works = {
            "standings": partial(compute, outcomes, bots, deals_fixed_by_seed=True),
            "crosstable": partial(crosstable, outcomes, order, deals_fixed_by_seed=True),
        }
        spent: dict[str, list[float]] = {"standings": [], "crosstable": []}
        for _ in range(args.repeats):  # alternating
            for name, work in works.items():
                spent[name].append(_cpu(work, 1))
        standings_s, crosstable_s = (statistics.median(spent[k]) for k in ("standings", "crosstable"))
        rows.append(
            {
                "bots": n,
                "players": players,
                "deal_sets": deal_sets,
                "counted": len(outcomes),
                "pairs_met": len(table.pairs),
                "standings_cpu_s": round(standings_s, 3),
                "crosstable_cpu_s": round(crosstable_s, 3),
                "snapshot_kb": round(len(json.dumps(snapshot.to_json())) / 1000, 1),
                "crosstable_kb": round(len(json.dumps(table.to_json(), separators=(",", ":"))) / 1000, 1),
            }
        )
    return rows


def _round_robin(url: str, tid: str, bots: list[str]) -> None:
    from cardarena.store.connection import client_for
    from cardarena.store.matches import MatchStore
    from cardarena.store.tournaments import TournamentStore
    from cardarena_tournament import lifecycle

    client = client_for(url)
    ts, ms = TournamentStore(client), MatchStore(client)
    t = lifecycle.new_tournament(
        game="glaves", players=2, entrants=bots, deal_sets=1, options={"deals": 1}, tid=tid, seed=tid
    )
    ts.create(t)
    total = lifecycle.start_tournament(ts, ms, tid)
    rng = random.Random(1)
    while (spec := ms.claim("bench", wait_s=0)) is not None:
        scores = [float(rng.randint(0, 9)) for _ in spec.seats]
        ranks = [1 + sum(o > x for o in scores) for x in scores]
        ms.complete(spec.match_id, "bench", {"scores": scores, "ranks": ranks, "deal_scores": [scores]}, {})
    assert lifecycle.reconcile(ts, ms)["counted"] == total
    client.close()


def _cold(client: Any, path: str, headers: dict[str, str]) -> Any:
    """``client.get`` with the app's cache of rendered crosstables emptied first (a new snapshot)."""
    from cardarena_dashboard.crosstable_cache import CrosstableCache

    client.application.extensions["cardarena_crosstable_cache"] = CrosstableCache()
    return client.get(path, headers=headers)


def reads_part(args: argparse.Namespace) -> list[dict[str, Any]]:
    from cardarena.store.connection import throwaway_redis
    from cardarena_dashboard import create_app

    rows = []
    with throwaway_redis() as url:
        for n in (int(x) for x in args.bots.split(",")):
            tid = f"rr{n}"
            bots = [f"student-{i:02d}" for i in range(n)]
            _round_robin(url, tid, bots)
            client = create_app({"REDIS_URL": url}).test_client()
            etag = client.get(f"/tournaments/{tid}/crosstable.part").headers["ETag"]
            for label, path, headers in (
                ("page", f"/tournaments/{tid}", {}),
                ("fragment, first render", f"/tournaments/{tid}/crosstable.part", {"X-Cold": "1"}),
                ("fragment", f"/tournaments/{tid}/crosstable.part", {}),
                ("fragment, 304", f"/tournaments/{tid}/crosstable.part", {"If-None-Match": etag}),
                ("api", f"/api/v1/tournaments/{tid}/crosstable", {}),
                ("api, one bot", f"/api/v1/tournaments/{tid}/crosstable?bot={bots[0]}", {}),
            ):
                get = partial(_cold, client) if headers.pop("X-Cold", None) else client.get
                answer = get(path, headers=headers)
                assert answer.status_code in (200, 304), (path, answer.status_code)
                rows.append(
                    {
                        "bots": n,
                        "request": label,
                        "path": path,
                        "status": answer.status_code,
                        "cpu_ms": round(1000 * _cpu(partial(get, path, headers=headers), args.repeats), 1),
                        "answer_kb": round(len(answer.data) / 1000, 1),
                    }
                )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--part", choices=["compute", "reads"], required=True)
    parser.add_argument("--fields", default="24:2:1,40:2:3,24:3:2,40:3:3,3:2:500", help="BOTS:PLAYERS:DEAL_SETS,...")
    parser.add_argument("--bots", default="24,40", help="round robin sizes (reads)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    os.environ["CARDARENA_PREFIX"] = f"bench-{uuid.uuid4().hex[:8]}:"
    rows = compute_part(args) if args.part == "compute" else reads_part(args)
    print(json.dumps({"part": args.part, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
