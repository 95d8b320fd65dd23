"""``cardarena dashboard`` as a real subprocess on a free port against the test Redis."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

from .dashboard_data import seed


def test_cli_serves_the_dashboard(redis_url: str, key_prefix: str) -> None:
    seed(redis_url, finished=1)
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardarena.cli", "dashboard", "--port", "0"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert "http://127.0.0.1:" in line, line
        base = line.split()[-1].rstrip("/")
        with urllib.request.urlopen(f"{base}/api/v1/tournaments", timeout=10) as response:
            assert [t["id"] for t in json.load(response)["items"]] == ["cup"]
        with urllib.request.urlopen(f"{base}/tournaments/cup", timeout=10) as response:
            assert "Content-Security-Policy" in response.headers
    finally:
        proc.terminate()
        try:
            assert proc.wait(10) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if proc.stderr:
                proc.stderr.close()


def test_reindex_indexes_every_match_again_and_exits(redis_url: str, key_prefix: str) -> None:
    """``cardarena dashboard --reindex``: the matches lose their game and bot indexes (as an
    earlier version stored them, or a worker of one that still ran); the command lists them again
    and exits."""
    from cardarena.store.connection import client_for
    from cardarena.store.matches import MatchStore

    seed(redis_url, finished=1)
    store = MatchStore(client_for(redis_url))
    every = store.recent(0, 100)
    store.r.delete(store.index_key(bot="alpha"), store.index_key(game="glaves"))
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    done = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "dashboard", "--reindex"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert f"{len(every)} matches indexed" in done.stdout
    assert store.listed(0, 100, game="glaves") == every
    specs = [store.spec(m) for m in every]
    assert store.listed(0, 100, bot="alpha") == [s.match_id for s in specs if s is not None and "alpha" in s.seats]


def test_a_bad_replay_cache_setting_stops_the_start_in_one_line(redis_url: str, key_prefix: str) -> None:
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix, "CARDARENA_REPLAY_CACHE_MB": "64MB"}
    proc = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "dashboard", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "cardarena: error: CARDARENA_REPLAY_CACHE_MB must be a whole number >= 0, not '64MB'"
    )
