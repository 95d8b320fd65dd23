"""The benchmark scripts the README names run and report well-formed figures (tiny sizes; no
timing assertions: speed is measured by the benchmarks, never asserted in tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(tmp_path: Path, *argv: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CARDARENA_PREFIX")}
    env["HOME"] = str(tmp_path)  # never the user's data directory
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    proc = subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_tournament_bench(tmp_path: Path) -> None:
    figure = json.loads(_run(tmp_path, "bench/tournament_bench.py", "--bots", "4", "--deal-sets", "1").splitlines()[-1])
    assert figure["matches"] == 12  # 4 bots, 6 pairs, both seatings, one deal set
    assert figure["dispatch_per_s"] > 0 and figure["record_per_s"] > 0 and figure["orchestration_per_s"] > 0


def test_dashboard_bench(tmp_path: Path) -> None:
    figures = json.loads(_run(tmp_path, "bench/dashboard_bench.py", "--matches", "30", "--requests", "10", "--json"))
    assert figures
    text = json.dumps(figures)
    assert "p95" in text and "p50" in text


def test_dashboard_bench_stores_the_standings_the_workers_store(redis_url: str, key_prefix: str) -> None:
    """The bench hand-built its standings snapshot without the fault totals (``faults``) the
    workers store with it, so each standings API request it timed read every counted result (the
    path of a snapshot an earlier version stored), and its figure no longer matched a real
    deployment.  It now seeds through the workers' code: the snapshot it stores is the one
    ``lifecycle.refresh_standings`` stores (rows with ratings, the fault totals), with the
    crosstable, so a standings request reads the snapshot alone."""
    from cardarena.store.connection import client_for
    from cardarena.store.tournaments import TournamentStore
    from cardarena_tournament import lifecycle
    from cardarena_tournament.standings import fault_totals

    from .bench_modules import load_bench

    tid = load_bench("dashboard_bench")._seed(redis_url, 40, 4)
    r = client_for(redis_url)
    ts = TournamentStore(r)
    stored = ts.standings(tid)
    assert stored is not None and stored["counted"] == 40
    faults = fault_totals(ts.results(tid).values())
    assert stored[lifecycle.FAULTS] == faults and sum(f["strikes"] for f in faults.values()) > 0
    assert all(row["rating"] for row in stored["rows"])
    crosstable = ts.crosstable(tid)
    assert stored == json.loads(json.dumps(lifecycle.refresh_standings(ts, tid)))  # what the workers store
    assert crosstable is not None and ts.crosstable(tid) == crosstable
    r.close()


def test_replay_bench(tmp_path: Path) -> None:
    figures = json.loads(_run(tmp_path, "bench/replay_bench.py", "--deals", "1", "--json"))
    steps = figures["steps"]
    assert steps > 20
    assert figures["uncached"]["transitions"] == steps * (steps + 1) // 2  # each step re-run from 0
    assert figures["cached"]["transitions"] == steps  # each transition once
    assert all(figures[k]["p50_ms"] > 0 for k in ("uncached", "cached"))


def test_round_robin_bench(tmp_path: Path) -> None:
    figure = json.loads(_run(tmp_path, "bench/round_robin_16.py", "--per-kind", "1", "--json").splitlines()[-1])
    assert figure["bots"] == 2 and figure["matches"] == 2  # one pair, both seatings
    assert figure["matches_per_s"] > 0 and figure["heuristic_in_top_half"] in (0, 1)


def test_term_bench(tmp_path: Path) -> None:
    small = ("--bots", "5", "--deal-sets", "1", "--repeats", "1")
    live = json.loads(
        _run(tmp_path, "bench/term_bench.py", "--part", "standings", *small, "--workers", "2", "--seconds", "2")
    )
    assert live["matches"] == 20 and live["counted"] == 18 and live["refreshes"] >= 1
    assert live["refresh_cpu_s"] >= 0 and live["refresh_cpu_per_s"] >= 0
    term = json.loads(_run(tmp_path, "bench/term_bench.py", "--part", "dashboard", *small, "--nights", "2"))
    assert term["matches"] == 40 and term["history_points_per_bot"] == 16
    assert term["requests"]["/api/v1/tournaments/night000/matches"]["items"] == 20
    assert all(r["median_ms"] > 0 for r in term["requests"].values())
    kept = json.loads(
        _run(tmp_path, "bench/term_bench.py", "--part", "retention", *small, "--nights", "3", "--days", "1")
    )
    assert kept["matches"] == 60 and kept["pruned"]["replays"] == 40
    assert kept["second_run"] == {"replays": 0, "examined": 0}  # it reads nothing the first one read
    assert kept["before"]["keys_mb"]["replays"]["keys"] == 60 and kept["after"]["keys_mb"]["replays"]["keys"] == 20
    assert kept["pruned"]["stream_trimmed"] == 59
    live = ("--live-bots", "4", "--live-deal-sets", "1", "--registered", "30")
    reads = json.loads(_run(tmp_path, "bench/term_bench.py", "--part", "reads", *small, "--nights", "2", *live))
    assert reads["matches"] == 40 + 12 and reads["live_counted"] == 11
    got = reads["requests"]
    assert got["bot page, seen before"]["n_hgetall"] < got["bot page, first view"]["n_hgetall"]
    assert got["standings API, live (4 bots, 11 results)"]["n_hgetall"] == 2  # the tournament twice, no results
    assert got["metrics, 30 bots"]["n_eval"] == 1 and got["metrics, 30 bots"]["n_hmget"] >= 30  # in the script
    assert all(r["median_ms"] > 0 and r["commands"] > 0 and r["bytes"] > 0 for r in got.values())


def test_crosstable_bench(tmp_path: Path) -> None:
    compute = json.loads(_run(tmp_path, "bench/crosstable_bench.py", "--part", "compute", "--fields", "4:2:1,4:3:6"))
    assert [(r["counted"], r["pairs_met"]) for r in compute["rows"]] == [(12, 6), (144, 6)]
    assert all(r["standings_cpu_s"] >= 0 and r["crosstable_kb"] > 0 for r in compute["rows"])
    reads = json.loads(_run(tmp_path, "bench/crosstable_bench.py", "--part", "reads", "--bots", "3", "--repeats", "2"))
    assert [(r["request"], r["status"]) for r in reads["rows"]] == [
        ("page", 200),
        ("fragment, first render", 200),
        ("fragment", 200),
        ("fragment, 304", 304),
        ("api", 200),
        ("api, one bot", 200),
    ]


def test_cli_startup_bench(tmp_path: Path) -> None:
    """Every command it times runs with the exit status it expects, this version against itself
    (``--against``: the alternating runs)."""
    figures = json.loads(_run(tmp_path, "bench/cli_startup.py", "--runs", "1", "--against", str(ROOT), "--json"))
    assert [f["command"] for f in figures][1:3] == ["cardarena --help", "cardarena bot --help"]
    for f in figures:
        assert f["runs"] == 1 and f["wall_s"] > 0 and f["cpu_s"] >= 0
        assert f["against"]["wall_s"] > 0
