"""Orchestration overhead per match: dispatch (expand + enqueue) and record (count once,
rate, standings) with instant bots, on a real Redis, no Celery scheduling latency.

Run: ``python bench/tournament_bench.py [--bots 8] [--deal-sets 20]``.  Prints matches/s for
dispatch, for recording, and end to end.  Instant bots: each claimed match is completed at
once with a fixed result, so only the tournament machinery is measured.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import uuid
from pathlib import Path

from cardarena.store.connection import EmbeddedRedis, client_for
from cardarena.store.matches import MatchStore
from cardarena.store.tournaments import TournamentStore
from cardarena_tournament import lifecycle


def main() -> None:
    """Run the benchmark and print one JSON line."""
    p = argparse.ArgumentParser()
    p.add_argument("--bots", type=int, default=8)
    p.add_argument("--deal-sets", type=int, default=20)
    args = p.parse_args()
    os.environ["CARDARENA_PREFIX"] = f"bench-{uuid.uuid4().hex[:6]}:"
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp), persist=False) as server:
        url = os.environ.get("REDIS_URL") or server.url
        client = client_for(url)
        ts, ms = TournamentStore(client), MatchStore(client)
        bots = [f"bot-{i}" for i in range(args.bots)]
        t = lifecycle.new_tournament(game="glaves", players=2, entrants=bots, deal_sets=args.deal_sets)
        ts.create(t)
        t0 = time.perf_counter()
        queued = lifecycle.start_tournament(ts, ms, t.id)
        t1 = time.perf_counter()
        while (spec := ms.claim("bench", wait_s=0)) is not None:
            ms.complete(spec.match_id, "bench", {"scores": [1, 0], "ranks": [1, 2]}, {"format": "bench"})
        t2 = time.perf_counter()
        while lifecycle.consume_results(ts, ms, "bench"):
            pass
        t3 = time.perf_counter()
        assert ts.require(t.id).status == "finished"
        print(
            json.dumps(
                {
                    "matches": queued,
                    "dispatch_per_s": round(queued / (t1 - t0)),
                    "record_per_s": round(queued / (t3 - t2)),
                    "orchestration_per_s": round(queued / ((t1 - t0) + (t3 - t2))),
                    "instant_play_per_s": round(queued / (t2 - t1)),
                }
            )
        )
        client.close()


if __name__ == "__main__":
    main()
