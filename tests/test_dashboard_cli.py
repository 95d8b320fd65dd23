"""``cardarena dashboard`` as a real subprocess on a free port against the test Redis."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from .dashboard_data import seed


@contextlib.contextmanager
def _dashboard(env: dict[str, str], *extra: str) -> Iterator[tuple[str, list[str], subprocess.Popen[str]]]:
    """``cardarena dashboard --port 0`` running: its base URL, the stderr lines before the URL
    line, the process (stopped afterwards with SIGTERM: exit status 0)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardarena.cli", "dashboard", "--port", "0", *extra],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        before: list[str] = []
        while "http://127.0.0.1:" not in (line := proc.stderr.readline()):
            assert line, before
            before.append(line)
        yield line.split()[-1].rstrip("/"), before, proc
        proc.terminate()
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()


def test_cli_serves_the_dashboard(redis_url: str, key_prefix: str) -> None:
    seed(redis_url, finished=1)
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    with _dashboard(env) as (base, _, _):
        with urllib.request.urlopen(f"{base}/api/v1/tournaments", timeout=10) as response:
            assert [t["id"] for t in json.load(response)["items"]] == ["cup"]
        with urllib.request.urlopen(f"{base}/tournaments/cup", timeout=10) as response:
            assert "Content-Security-Policy" in response.headers


def test_cli_logs_its_info_lines_as_json(redis_url: str, key_prefix: str) -> None:
    """The start-up index line (matches stored before the match indexes: here every match, the
    flag that they were indexed being gone) and each request, as the service logs: JSON lines."""
    from cardarena.store.connection import client_for
    from cardarena.store.matches import MatchStore

    seed(redis_url, finished=1)
    store = MatchStore(client_for(redis_url))
    store.r.delete(store.INDEXED)
    every = len(store.recent(0, 100))
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    with _dashboard(env) as (base, before, proc):
        records = [json.loads(line) for line in before]
        assert {"level": "info", "logger": "cardarena_dashboard.app"}.items() <= records[-1].items()
        assert records[-1]["event"] == f"indexed {every} matches stored before the match indexes"
        urllib.request.urlopen(f"{base}/api/v1/tournaments", timeout=10).close()
        assert proc.stderr is not None
        request = json.loads(proc.stderr.readline())
        assert request["logger"] == "werkzeug" and '"GET /api/v1/tournaments HTTP/1.1" 200' in request["event"]
    store.r.delete(store.INDEXED)
    with _dashboard(env, "--loglevel", "warning") as (_, before, _):
        assert before == []


def test_a_busy_port_is_one_line_and_starts_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env |= {"HOME": str(home), "XDG_DATA_HOME": str(home / "share")}
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        argv = [sys.executable, "-m", "cardarena.cli", "dashboard", "--port", str(port)]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"cardarena: error: port {port} ({'--port'}) is already in use on 127.0.0.1; "
        "stop what uses it or pick another port (0 picks a free one)"
    ]
    assert not home.exists()  # no embedded Redis was started


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
