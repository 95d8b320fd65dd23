"""A class over a term: what grows with a term of nightly tournaments, measured on a real Redis
filled through the stores' own APIs (a private embedded Redis, or ``REDIS_URL`` under a fresh
key prefix).

``--part standings``: one running tournament of ``--bots`` bots (two players, ``--deal-sets``
deal sets; 40 and 3 give 4,680 matches) with all but a tenth of its matches played and counted
(``MatchStore.complete`` with a fixed-shape random result with per-deal scores, then
``lifecycle.count_matches``).  Reports the cost of one live standings refresh
(``lifecycle.refresh_standings``: reads, bootstrap, save; CPU and wall, median of
``--repeats``), then runs ``--workers`` processes that each call ``lifecycle.settle`` on it once
a second for ``--seconds`` (as the results consumer does while results arrive, one per worker
process of a prefork pool) and counts the refreshes and the CPU they took, all processes
together.

``--part dashboard``: ``--nights`` finished nightly tournaments of ``--bots`` bots (two players,
``--deal-sets``), played and counted as above, then the dashboard's pages and API on the Flask
test client (app + Redis; no network stack): median of ``--repeats`` requests each.

``--part reads``: the read paths of the bot review, the match page's faults, ``/metrics``, the
standings' fault totals, the tournament page and the crosstable (where the version has one)
over a term: ``--nights`` finished nightly tournaments of ``--bots`` bots (two players,
``--deal-sets``; results with strikes and forfeits, the last night's matches with real Glaves
replays that list faults) and one running tournament of ``--live-bots`` bots and
``--live-deal-sets`` with all but a tenth counted.  Each request on the Flask test client
(``/matches/<id>`` with the replay cache off and warm), median of ``--repeats``, with the Redis
commands (``INFO commandstats``) and bytes of one more; ``tournament standings --json``/``--csv``
(and ``--crosstable --json``) in-process the same way; then ``/metrics`` again with
``--registered`` bots registered.

``--part retention``: ``--nights`` finished nightly tournaments of ``--bots`` bots (two players,
``--deal-sets``), each match completed with a real Glaves replay (a pool of engine-played
matches, random bots, the service's compression) and counted through the results stream
(``lifecycle.consume_results``, the workers' consumer group).  Reports Redis memory
(``INFO memory``; ``MEMORY USAGE`` summed per kind of key) before and after
``retention.prune`` with ``--days``: the term is played in minutes, so the prune's clock is set
so that its cutoff falls ``--days`` nights before the last one (one night per day).

    python bench/term_bench.py --part standings --bots 40 --deal-sets 3 --workers 2 --seconds 30
    python bench/term_bench.py --part dashboard --bots 24 --nights 98 --deal-sets 1
    python bench/term_bench.py --part retention --bots 40 --nights 7 --deal-sets 3 --days 3
    python bench/term_bench.py --part reads --bots 24 --nights 98 --deal-sets 1 --repeats 7
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
import uuid
from functools import partial
from typing import Any


def _play(
    ts: Any,
    ms: Any,
    tid: str,
    rng: random.Random,
    *,
    leave: int = 0,
    deals: int = 4,
    replays: list[dict[str, Any]] | None = None,
    faults: bool = False,
    stream: bool | None = None,
) -> int:
    """Complete every queued match of ``tid`` but ``leave`` with a random result (and a replay
    from ``replays``, else a stub); count them (through the results stream with ``stream``,
    by default when there are ``replays``).  ``faults``: each seat has a strike in about one
    match in ten and forfeits about one in a hundred (``strikes``, ``forfeited``)."""
    from cardarena_tournament import lifecycle

    t = ts.require(tid)
    todo = t.total_matches - leave
    done = []
    while len(done) < todo and (spec := ms.claim("bench", wait_s=0)) is not None:
        by_deal = [[float(rng.randint(0, 13)) for _ in spec.seats] for _ in range(deals)]
        scores = [sum(d[s] for d in by_deal) for s in range(len(spec.seats))]
        ranks = [sorted(scores, reverse=True).index(x) + 1 for x in scores]
        result: dict[str, Any] = {"scores": scores, "ranks": ranks, "deal_scores": by_deal}
        if faults:
            result["strikes"] = [int(rng.random() < 0.1) + int(rng.random() < 0.01) for _ in spec.seats]
            result["forfeited"] = [s for s, n in enumerate(result["strikes"]) if n > 1]
        replay = {**replays[len(done) % len(replays)], "seats": list(spec.seats)} if replays else {}
        ms.complete(spec.match_id, "bench", result, replay or {"seats": list(spec.seats)}, tournament=tid)
        done.append(spec.match_id)
    if stream if stream is not None else bool(replays):
        while lifecycle.consume_results(ts, ms, "bench", batch=1000):
            pass
        return len(done)
    for start in range(0, len(done), 1000):
        lifecycle.count_matches(ts, ms, done[start : start + 1000])
    return len(done)


def _stores(url: str) -> tuple[Any, Any, Any]:
    from cardarena.store.bots import BotStore
    from cardarena.store.connection import client_for
    from cardarena.store.matches import MatchStore
    from cardarena.store.tournaments import TournamentStore

    client = client_for(url)
    return TournamentStore(client), MatchStore(client), BotStore(client)


def _replay_pool(size: int) -> list[dict[str, Any]]:
    """``size`` engine-played two-player Glaves replays (random bots)."""
    from cardarena.engine import MatchRng, build_replay, play_match, random_policy

    pool = []
    for n in range(size):
        state = play_match("glaves", 2, [random_policy(MatchRng(f"{n}/{s}")) for s in range(2)], seed=n)
        pool.append(build_replay(state, seed=n, seats=["a", "b"]))
    return pool


def _night(ts: Any, ms: Any, night: int, bots: list[str], deal_sets: int, play: Any) -> str:
    """Create and start the night's tournament ``nightNNN`` of ``bots``, ``play(tid)`` its
    matches, and settle it (its final standings); its id."""
    from cardarena_tournament import lifecycle

    tid = f"night{night:03d}"
    ts.create(lifecycle.new_tournament(game="glaves", players=2, entrants=bots, deal_sets=deal_sets, tid=tid))
    lifecycle.start_tournament(ts, ms, tid)
    play(tid)
    lifecycle.settle(ts, tid, force=True)
    return tid


def _worker(url: str, prefix: str, tid: str, seconds: float, out: Any) -> None:
    """One worker process: settle ``tid`` once a second; report refreshes and their CPU."""
    os.environ["CARDARENA_PREFIX"] = prefix
    from cardarena_tournament import lifecycle

    ts, _, _ = _stores(url)
    real = lifecycle.refresh_standings
    spent = {"refreshes": 0, "cpu_s": 0.0}

    def counted(ts_: Any, tid_: str) -> dict[str, Any]:
        start = time.process_time()
        try:
            return real(ts_, tid_)
        finally:
            spent["refreshes"] += 1
            spent["cpu_s"] += time.process_time() - start

    lifecycle.refresh_standings = counted  # type: ignore[assignment]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        tick = time.monotonic()
        lifecycle.settle(ts, tid)
        time.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
    out.put(spent)


def standings_part(url: str, args: argparse.Namespace) -> dict[str, Any]:
    from cardarena_tournament import lifecycle

    ts, ms, _ = _stores(url)
    bots = [f"student-{i:02d}" for i in range(args.bots)]
    tid = "live"
    ts.create(lifecycle.new_tournament(game="glaves", players=2, entrants=bots, deal_sets=args.deal_sets, tid=tid))
    lifecycle.start_tournament(ts, ms, tid)
    total = ts.require(tid).total_matches
    counted = _play(ts, ms, tid, random.Random(1), leave=max(1, total // 10))
    cpu, wall = [], []
    for _ in range(args.repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        lifecycle.refresh_standings(ts, tid)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(url, os.environ["CARDARENA_PREFIX"], tid, args.seconds, queue))
        for _ in range(args.workers)
    ]
    for p in procs:
        p.start()
    spent = [queue.get(timeout=args.seconds + 300) for _ in procs]
    for p in procs:
        p.join()
    refreshes = sum(s["refreshes"] for s in spent)
    refresh_cpu = sum(s["cpu_s"] for s in spent)
    return {
        "part": "standings",
        "bots": args.bots,
        "deal_sets": args.deal_sets,
        "matches": total,
        "counted": counted,
        "refresh_cpu_s": round(statistics.median(cpu), 3),
        "refresh_wall_s": round(statistics.median(wall), 3),
        "workers": args.workers,
        "seconds": args.seconds,
        "refreshes": refreshes,
        "refresh_cpu_per_s": round(refresh_cpu / args.seconds, 3),
    }


def dashboard_part(url: str, args: argparse.Namespace) -> dict[str, Any]:
    from cardarena_dashboard import create_app

    ts, ms, bs = _stores(url)
    bots = [f"student-{i:02d}" for i in range(args.bots)]
    for b in bots:
        bs.register(b)
    rng = random.Random(1)
    seed_start = time.perf_counter()
    for night in range(args.nights):
        _night(ts, ms, night, bots, args.deal_sets, partial(_play, ts, ms, rng=rng))
    seeded_s = time.perf_counter() - seed_start
    first, last = "night000", f"night{args.nights - 1:03d}"
    client = create_app({"REDIS_URL": url}).test_client()
    urls = [
        "/",
        "/tournaments",
        f"/tournaments/{first}",
        f"/tournaments/{last}",
        f"/api/v1/tournaments/{first}/standings",
        f"/tournaments/{first}/ratings.svg",
        f"/api/v1/tournaments/{first}/matches",
        f"/bots/{bots[0]}",
        f"/bots/{bots[0]}/ratings/glaves.svg",
        f"/api/v1/matches?bot={bots[0]}",
        f"/api/v1/matches?bot={bots[0]}&offset=2000",
        "/api/v1/matches?game=glaves&offset=20000",
    ]
    timings: dict[str, Any] = {}
    for u in urls:
        samples = []
        items = None
        for _ in range(args.repeats):
            start = time.perf_counter()
            response = client.get(u)
            samples.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, u
            if response.is_json and isinstance(response.get_json(), dict):
                items = len(response.get_json().get("items") or [])
        timings[u] = {"median_ms": round(statistics.median(samples), 1), "items": items}
    history = len(ts.rating_history(bots[0], "glaves"))
    return {
        "part": "dashboard",
        "bots": args.bots,
        "nights": args.nights,
        "deal_sets": args.deal_sets,
        "matches": int(ms.r.zcard(ms.ALL)),
        "history_points_per_bot": history,
        "seed_s": round(seeded_s, 1),
        "requests": timings,
    }


def _redis_cost(client: Any, call: Any) -> dict[str, int]:
    """The Redis commands run (``INFO commandstats``: those a script runs count too) and the bytes
    Redis sent and received (``total_net_output_bytes``, ``total_net_input_bytes``) while
    ``call()`` runs, after ``CONFIG RESETSTAT`` (the bench's own Redis: nobody else uses it);
    the ``CONFIG`` and ``INFO`` of the measurement itself are left out."""
    client.config_resetstat()
    call()
    stats = client.info("commandstats")
    net = client.info("stats")
    sent, received = int(net["total_net_output_bytes"]), int(net["total_net_input_bytes"])
    calls = {
        name.removeprefix("cmdstat_"): int(v["calls"])
        for name, v in stats.items()
        if not name.startswith(("cmdstat_config", "cmdstat_info"))
    }
    counts = {f"n_{k}": n for k, n in sorted(calls.items())}
    return {"commands": sum(calls.values()), "bytes": sent, "bytes_in": received, **counts}


def _fault_replays(pool: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pool's replays, each with two strikes and a request with refused answers (as the
    service records them), so that a match page lists faults."""
    out = []
    for replay in pool:
        faults = [
            {"seat": 0, "action_index": 10, "seq": 11, "fault": "timeout", "default": True},
            {"seat": 1, "action_index": 30, "seq": 31, "fault": "illegal", "default": True},
        ]
        refused = [{"seat": 1, "action_index": 20, "seq": 21, "count": 2, "reason": "not a legal action id"}]
        out.append({**replay, "faults": faults, "refused": refused})
    return out


class _Forgetful:
    """A test client of ``app`` whose every request finds the bot pages' cache of match
    places empty (``result_cache``: a first view), whatever the version measured."""

    def __init__(self, app: Any) -> None:
        self.app, self.client = app, app.test_client()

    def get(self, url: str) -> Any:
        try:
            from cardarena_dashboard.result_cache import ResultCache
        except ImportError:  # a version without it
            return self.client.get(url)
        self.app.extensions["cardarena_result_cache"] = ResultCache()
        return self.client.get(url)


def _timed(client: Any, url: str, repeats: int) -> tuple[float, int, bytes]:
    """Median milliseconds of ``repeats`` requests (each must answer 200), the last status, body."""
    samples = []
    response = None
    for _ in range(repeats):
        start = time.perf_counter()
        response = client.get(url)
        samples.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    assert response is not None
    return round(statistics.median(samples), 1), response.status_code, response.data


def _cli(argv: list[str]) -> bytes:
    """``cardarena`` in this process; what it printed."""
    import contextlib
    import io

    from cardarena.cli import main as cli_main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(argv) == 0, argv
    return out.getvalue().encode()


def _has_crosstable() -> bool:
    """Whether the version measured has tournament crosstables (the reads part asks for them then)."""
    from cardarena_tournament import standings

    return hasattr(standings, "crosstable")


def reads_part(url: str, args: argparse.Namespace) -> dict[str, Any]:
    """The read paths of the bot review, match faults, metrics and standings fault totals."""
    from cardarena_dashboard import create_app
    from cardarena_dashboard.replay_steps import transitions
    from cardarena_tournament import lifecycle

    ts, ms, bs = _stores(url)
    live_bots = [f"student-{i:02d}" for i in range(args.live_bots)]
    bots = live_bots[: args.bots] if args.bots <= len(live_bots) else [f"student-{i:02d}" for i in range(args.bots)]
    for b in sorted(set(bots) | set(live_bots)):
        bs.register(b)
    pool = _fault_replays(_replay_pool(20))
    rng = random.Random(1)
    seed_start = time.perf_counter()
    for night in range(args.nights):
        kept = pool if night == args.nights - 1 else None
        _night(
            ts,
            ms,
            night,
            bots,
            args.deal_sets,
            partial(_play, ts, ms, rng=rng, faults=True, replays=kept, stream=False),
        )
    live = "live"
    ts.create(
        lifecycle.new_tournament(game="glaves", players=2, entrants=live_bots, deal_sets=args.live_deal_sets, tid=live)
    )
    lifecycle.start_tournament(ts, ms, live)
    total = ts.require(live).total_matches
    live_counted = _play(ts, ms, live, rng, leave=max(1, total // 10), faults=True)
    lifecycle.settle(ts, live, force=True)
    seeded_s = time.perf_counter() - seed_start
    last_night = f"night{args.nights - 1:03d}"
    shown = ts.match_ids(last_night, 0, 1)[0]
    app = create_app({"REDIS_URL": url})
    warm = app.test_client()
    cold_app = create_app({"REDIS_URL": url, "REPLAY_CACHE_MATCHES": 0})
    cold = cold_app.test_client()
    replay = ms.replay(shown)
    assert replay is not None and replay.get("faults"), shown
    steps = len(transitions(replay))
    step = steps // 2
    urls: list[tuple[str, Any, str]] = [
        (
            f"standings API, live ({len(live_bots)} bots, {live_counted} results)",
            warm,
            f"/api/v1/tournaments/{live}/standings",
        ),
        ("standings CSV, live", warm, f"/api/v1/tournaments/{live}/standings?format=csv"),
        ("standings fragment, live (polled)", warm, f"/tournaments/{live}/standings.part"),
        ("standings API, last night", warm, f"/api/v1/tournaments/{last_night}/standings"),
        ("standings CSV, last night", warm, f"/api/v1/tournaments/{last_night}/standings?format=csv"),
        ("tournament page, live", warm, f"/tournaments/{live}"),
        ("tournament page, last night", warm, f"/tournaments/{last_night}"),
        ("bot page, first view", _Forgetful(cold_app), f"/bots/{bots[0]}"),
        ("bot page, seen before", warm, f"/bots/{bots[0]}"),
        ("match page, cold replay cache", cold, f"/matches/{shown}?step={step}"),
        ("match page, warm replay cache", warm, f"/matches/{shown}?step={step}"),
        ("metrics", warm, "/metrics"),
    ]
    if _has_crosstable():
        urls += [
            ("crosstable API, live", warm, f"/api/v1/tournaments/{live}/crosstable"),
            ("crosstable fragment, live (polled)", warm, f"/tournaments/{live}/crosstable.part"),
            ("crosstable API, last night", warm, f"/api/v1/tournaments/{last_night}/crosstable"),
        ]
    client = ms.r
    warm.get(f"/bots/{bots[0]}")  # the dashboard's one-time index check, and a warm replay cache
    warm.get(f"/matches/{shown}?step={step}")
    timings: dict[str, Any] = {}
    for label, tc, u in urls:
        median_ms, _, body = _timed(tc, u, args.repeats)
        assert b"time-out" in body or not u.startswith("/matches/"), "the match page lists its faults"
        cost = _redis_cost(client, lambda tc=tc, u=u: tc.get(u))
        timings[label] = {"url": u, "median_ms": median_ms, "response_bytes": len(body), **cost}
    for label, argv in (
        ("tournament standings --json, live", ["tournament", "standings", live, "--json"]),
        ("tournament standings --csv, live", ["tournament", "standings", live, "--csv"]),
        *(
            [
                (
                    "tournament standings --crosstable --json, live",
                    ["tournament", "standings", live, "--crosstable", "--json"],
                )
            ]
            if _has_crosstable()
            else []
        ),
    ):
        argv = [*argv, "--redis-url", url]
        samples = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            body = _cli(argv)
            samples.append((time.perf_counter() - start) * 1000)
        cost = _redis_cost(client, lambda argv=argv: _cli(argv))
        timings[label] = {"median_ms": round(statistics.median(samples), 1), "response_bytes": len(body), **cost}
    for n in range(len(set(bots) | set(live_bots)), args.registered):
        bs.register(f"extra-{n:04d}")
    median_ms, _, body = _timed(warm, "/metrics", args.repeats)
    cost = _redis_cost(client, lambda: warm.get("/metrics"))
    timings[f"metrics, {args.registered} bots"] = {
        "url": "/metrics",
        "median_ms": median_ms,
        "response_bytes": len(body),
        **cost,
    }
    return {
        "part": "reads",
        "bots": args.bots,
        "nights": args.nights,
        "deal_sets": args.deal_sets,
        "live_bots": args.live_bots,
        "live_deal_sets": args.live_deal_sets,
        "live_counted": live_counted,
        "matches": int(client.zcard(ms.ALL)),
        "shown_match_steps": steps,
        "shown_step": step,
        "seed_s": round(seeded_s, 1),
        "requests": timings,
    }


_KINDS = (
    ("replays", lambda k: k.startswith("match:") and k.endswith(":replay")),
    ("match records", lambda k: k.startswith("match:")),
    ("match index", lambda k: k.startswith("matches:")),
    ("results stream", lambda k: k == "events:results"),
    ("rating histories", lambda k: k.startswith("ratings:") and ":history:" in k),
    ("ratings (applied sets, tables)", lambda k: k.startswith("ratings:")),
    ("tournament results", lambda k: k.startswith("tournament:") and k.endswith((":results", ":counted"))),
    ("tournament schedules", lambda k: k.startswith("tournament:") and k.endswith(":schedule")),
    ("tournaments (other)", lambda k: k.startswith("tournament")),
)


def _memory(client: Any) -> dict[str, Any]:
    """``INFO memory`` and ``MEMORY USAGE`` (exact: ``SAMPLES 0``) summed per kind of key (every key of the prefix)."""
    from cardarena.store.keys import prefix

    pre = prefix()
    by_kind: dict[str, list[int]] = {}
    names = [k.decode() for k in client.scan_iter(match=pre + "*", count=1000)]
    for start in range(0, len(names), 1000):
        chunk = names[start : start + 1000]
        pipe = client.pipeline(transaction=False)
        for name in chunk:
            pipe.memory_usage(name, samples=0)
        for name, size in zip(chunk, pipe.execute(), strict=True):
            short = name[len(pre) :]
            kind = next((k for k, test in _KINDS if test(short)), "other")
            entry = by_kind.setdefault(kind, [0, 0])
            entry[0] += 1
            entry[1] += int(size or 0)
    info = client.info("memory")
    return {
        "used_memory_mb": round(info["used_memory"] / 1e6, 1),
        "used_memory_dataset_mb": round(info["used_memory_dataset"] / 1e6, 1),
        "keys_mb": {k: {"keys": n, "mb": round(b / 1e6, 2)} for k, (n, b) in sorted(by_kind.items())},
    }


def retention_part(url: str, args: argparse.Namespace) -> dict[str, Any]:
    from cardarena.store import retention

    ts, ms, bs = _stores(url)
    bots = [f"student-{i:02d}" for i in range(args.bots)]
    for b in bots:
        bs.register(b)
    pool = _replay_pool(40)
    rng = random.Random(1)
    ends = []
    seed_start = time.perf_counter()
    for night in range(args.nights):
        tid = _night(ts, ms, night, bots, args.deal_sets, partial(_play, ts, ms, rng=rng, replays=pool))
        assert ts.require(tid).status == "finished", tid
        ends.append(time.time())
        time.sleep(0.01)
    seeded_s = time.perf_counter() - seed_start
    client = ms.r
    before = _memory(client)
    # The prune's clock: the last --days nights ended after its cutoff, the others before it.
    kept = min(args.days, args.nights)
    cutoff = (ends[-kept - 1] + ends[-kept]) / 2 if kept < args.nights else ends[0] - 1
    dry = retention.prune(client, older_than_days=args.days, dry_run=True, now=cutoff + args.days * 86400)
    start = time.perf_counter()
    report = retention.prune(client, older_than_days=args.days, now=cutoff + args.days * 86400)
    prune_s = time.perf_counter() - start
    client.memory_purge()
    after = _memory(client)
    again = retention.prune(client, older_than_days=args.days, now=cutoff + args.days * 86400)
    return {
        "part": "retention",
        "bots": args.bots,
        "nights": args.nights,
        "deal_sets": args.deal_sets,
        "days": args.days,
        "matches": int(client.zcard(ms.ALL)),
        "seed_s": round(seeded_s, 1),
        "before": before,
        "dry_run": {"replays": dry.replays, "replay_mb": round(dry.replay_bytes / 1e6, 2)},
        "pruned": {
            "replays": report.replays,
            "replay_mb": round(report.replay_bytes / 1e6, 2),
            "kept_recent": report.kept_recent,
            "stream_trimmed": report.stream.trimmed,
            "stream_length": report.stream.length,
            "seconds": round(prune_s, 2),
        },
        "after": after,
        "second_run": {"replays": again.replays, "examined": again.examined},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--part", choices=["standings", "dashboard", "retention", "reads"], required=True)
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--deal-sets", type=int, default=3)
    parser.add_argument("--nights", type=int, default=98)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--days", type=int, default=3, help="retention period (retention part)")
    parser.add_argument("--live-bots", type=int, default=40, help="the running tournament's bots (reads part)")
    parser.add_argument("--live-deal-sets", type=int, default=3, help="its deal sets (reads part)")
    parser.add_argument(
        "--registered", type=int, default=1000, help="bots registered for the last /metrics (reads part)"
    )
    args = parser.parse_args(argv)
    os.environ["CARDARENA_PREFIX"] = f"bench-{uuid.uuid4().hex[:8]}:"
    from cardarena.store.connection import throwaway_redis

    with throwaway_redis() as url:
        part = {
            "standings": standings_part,
            "dashboard": dashboard_part,
            "retention": retention_part,
            "reads": reads_part,
        }[args.part]
        report = part(url, args)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
