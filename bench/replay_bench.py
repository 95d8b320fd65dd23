"""Replay viewer benchmark: stepping through a long match, with and without the replay cache.

Stores one finished three-player Glaves match (``--deals`` deals, random play) in a private
embedded Redis through ``MatchStore``, then requests every step of its replay viewer in order
(``GET /matches/<id>?step=N&pov=P``, as a reader pressing →) with the Flask test client, once
with the cache off (``REPLAY_CACHE_MATCHES=0``: each request re-runs the replay from step 0)
and once with it on (a fresh app: the first request starts the cache).  Prints, for each, the
total time, p50/p95 per request, the median request of the first and of the last tenth of
the steps (the cost of a step late in the match) and the engine transitions made (the viewer's
``replay_steps._transition`` calls).

    python bench/replay_bench.py --deals 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from typing import Any


def _store(url: str, deals: int) -> tuple[str, int]:
    from cardarena.engine import MatchRng, build_replay, play_match, random_policy
    from cardarena.store.connection import client_for
    from cardarena.store.matches import MatchSpec, MatchStore

    store = MatchStore(client_for(url))
    seats = ("bot-a", "bot-b", "bot-c")
    spec = MatchSpec("bench-replay", "glaves", 3, seats, 1, {"deals": deals})
    assert store.enqueue(spec) and store.claim("bench", wait_s=1.0) == spec
    state = play_match("glaves", 3, [random_policy(MatchRng(f"1/{s}")) for s in range(3)], seed=1, options=spec.options)
    replay = build_replay(state, seed=1, seats=list(seats))
    assert store.complete(spec.match_id, "bench", state.result().to_json(), replay)
    steps = sum(1 + len(d["actions"]) for d in replay["deals"])  # the deal, then each entry
    return spec.match_id, steps


def _step_through(url: str, mid: str, steps: int, pov: str, config: dict[str, Any]) -> dict[str, Any]:
    from cardarena_dashboard import create_app, replay_steps

    client = create_app({"REDIS_URL": url, **config}).test_client()
    made = [0]
    real = replay_steps._transition

    def counted(state: Any, change: Any, index: int) -> None:
        made[0] += 1
        real(state, change, index)

    replay_steps._transition = counted  # type: ignore[assignment]
    samples = []
    try:
        start = time.perf_counter()
        for step in range(steps):
            began = time.perf_counter()
            response = client.get(f"/matches/{mid}?step={step}&pov={pov}")
            samples.append((time.perf_counter() - began) * 1000)
            assert response.status_code == 200
        total = time.perf_counter() - start
    finally:
        replay_steps._transition = real  # type: ignore[assignment]
    tenth = max(1, len(samples) // 10)
    first, last = statistics.median(samples[:tenth]), statistics.median(samples[-tenth:])
    samples.sort()
    return {
        "total_s": round(total, 2),
        "p50_ms": round(statistics.median(samples), 2),
        "p95_ms": round(samples[int(0.95 * (len(samples) - 1))], 2),
        "first_tenth_ms": round(first, 2),
        "last_tenth_ms": round(last, 2),
        "transitions": made[0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5, help="deals of the three-player Glaves match (default 5)")
    parser.add_argument("--pov", default="all", help="point of view (default all: every seat's view)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    os.environ["CARDARENA_PREFIX"] = f"bench-{uuid.uuid4().hex[:8]}:"
    from cardarena.store.connection import throwaway_redis

    with throwaway_redis() as url:
        mid, steps = _store(url, args.deals)
        figures = {
            "steps": steps,
            "pov": args.pov,
            "uncached": _step_through(url, mid, steps, args.pov, {"REPLAY_CACHE_MATCHES": 0}),
            "cached": _step_through(url, mid, steps, args.pov, {}),
        }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"every step of a {steps}-step three-player Glaves match, forward, pov={args.pov}")
        for name in ("uncached", "cached"):
            f: dict[str, Any] = figures[name]  # type: ignore[assignment]
            print(
                f"  {name:9s} total {f['total_s']:6.2f} s   p50 {f['p50_ms']:6.2f} ms   p95 {f['p95_ms']:6.2f} ms"
                f"   first/last tenth {f['first_tenth_ms']:6.2f} / {f['last_tenth_ms']:6.2f} ms"
                f"   transitions {f['transitions']:,}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
