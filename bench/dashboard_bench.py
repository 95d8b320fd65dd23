"""Dashboard latency benchmark: the standings page and the standings API with many stored matches.

Seeds a private embedded Redis (or ``REDIS_URL``, under a fresh key prefix) through the store
modules: one tournament of ``--matches`` completed two-player matches among ``--bots`` bots
(replays played by the engine; a pool of distinct replays is reused), counted results,
OpenSkill ratings and a standings snapshot (with its fault totals and crosstable) stored by the
workers' own code (``lifecycle.count_matches``, ``lifecycle.refresh_standings``).  Then it times
``GET /tournaments/<id>`` and ``GET /api/v1/tournaments/<id>/standings`` in-process with the
Flask test client (app + Redis round trips; no network stack) and prints p50/p95/max.

    python bench/dashboard_bench.py --matches 10000 --requests 300
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time
import uuid


def _seed(url: str, matches: int, bots: int) -> str:
    """Store one tournament of ``matches`` completed matches among ``bots`` bots, counted, rated
    and with its standings snapshot, as the workers store them (``lifecycle.count_matches`` then
    ``lifecycle.refresh_standings``: rows with ratings, fault totals, crosstable); its id."""
    from cardarena.engine import MatchRng, build_replay, play_match, random_policy
    from cardarena.store.connection import client_for
    from cardarena.store.matches import MatchSpec, MatchStore
    from cardarena.store.tournaments import Tournament, TournamentStore
    from cardarena_tournament import lifecycle

    client = client_for(url)
    store, tournaments = MatchStore(client), TournamentStore(client)
    names = tuple(f"bot-{i:02d}" for i in range(bots))
    tid = "bench"
    tournaments.create(Tournament(id=tid, game="glaves", players=2, entrants=names, deal_sets=1, options={"deals": 1}))
    pairs = list(itertools.permutations(names, 2))
    schedule = [
        {
            "match_id": f"{tid}:0:{n % len(pairs)}:{n}",
            "seats": list(pairs[n % len(pairs)]),
            "deal_set": str(n // len(pairs)),
        }
        for n in range(matches)
    ]
    tournaments.start(tid, schedule)
    pool = []
    for n in range(50):
        state = play_match(
            "glaves", 2, [random_policy(MatchRng(f"{n}/{s}")) for s in range(2)], seed=n, options={"deals": 1}
        )
        pool.append((state.result().to_json(), build_replay(state, seed=n, seats=["a", "b"])))
    done = []
    for n, entry in enumerate(schedule):
        result, replay = pool[n % len(pool)]
        store.enqueue(
            MatchSpec(
                entry["match_id"], "glaves", 2, tuple(entry["seats"]), n % len(pool), {"deals": 1}, tournament=tid
            )
        )
        got = store.claim("bench", wait_s=0)
        assert got is not None
        served = {**result, "seats": list(got.seats), "strikes": [int(n % 7 == 0), 0], "forfeited": [], "no_show": []}
        store.complete(got.match_id, "bench", served, {**replay, "seats": list(got.seats)})
        done.append(got.match_id)
    for at in range(0, len(done), 500):  # counted and rated as the workers count a batch of results
        lifecycle.count_matches(tournaments, store, done[at : at + 500])
    lifecycle.refresh_standings(tournaments, tid)
    client.close()
    return tid


def _time(client: object, url: str, requests: int) -> dict[str, float]:
    get = client.get  # type: ignore[attr-defined]
    for _ in range(10):
        assert get(url).status_code == 200
    samples = []
    for _ in range(requests):
        start = time.perf_counter()
        response = get(url)
        samples.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200
    samples.sort()
    return {
        "p50_ms": round(statistics.median(samples), 2),
        "p95_ms": round(samples[int(0.95 * (len(samples) - 1))], 2),
        "max_ms": round(samples[-1], 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    os.environ["CARDARENA_PREFIX"] = f"bench-{uuid.uuid4().hex[:8]}:"
    from cardarena.store.connection import throwaway_redis
    from cardarena_dashboard import create_app

    with throwaway_redis() as url:
        start = time.perf_counter()
        tid = _seed(url, args.matches, args.bots)
        seeded_s = time.perf_counter() - start
        client = create_app({"REDIS_URL": url}).test_client()
        figures = {
            "matches": args.matches,
            "bots": args.bots,
            "requests": args.requests,
            "seed_s": round(seeded_s, 1),
            "standings_page": _time(client, f"/tournaments/{tid}", args.requests),
            "standings_api": _time(client, f"/api/v1/tournaments/{tid}/standings", args.requests),
        }
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"{args.matches} stored matches, {args.bots} bots, {args.requests} requests each "
            f"(seeded in {figures['seed_s']} s)"
        )
        for name in ("standings_page", "standings_api"):
            f = figures[name]
            print(f"  {name:15s} p50 {f['p50_ms']:7.2f} ms   p95 {f['p95_ms']:7.2f} ms   max {f['max_ms']:7.2f} ms")  # type: ignore[index]
    return 0


if __name__ == "__main__":
    sys.exit(main())
