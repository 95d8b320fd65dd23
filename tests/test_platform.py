"""``cardarena up`` and ``cardarena demo --once``: everything starts, works and stops, leaving no process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest


def _descendants_and_strays(home: Path) -> list[str]:
    """Processes whose command line or environment mention the test's HOME (our children)."""
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "environ"]):
        try:
            env = proc.info["environ"] or {}
            cmd = " ".join(proc.info["cmdline"] or [])
        except (psutil.AccessDenied, psutil.NoSuchProcess):
            continue
        if env.get("HOME") == str(home) or str(home) in cmd:
            found.append(f"{proc.info['pid']}: {cmd}")
    return found


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CARDARENA_PREFIX")}
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / ".local" / "share")
    return env


def test_demo_once_prints_standings_and_leaves_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "demo", "--once", "--http-port", "0", "--deal-sets", "1"],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "dashboard  http://127.0.0.1:" in out
    for bot in ("heuristic-1", "heuristic-2", "random-1", "random-2"):
        assert bot[:8] in out
    assert "standings" in out
    time.sleep(0.5)
    assert _descendants_and_strays(home) == []
    # the embedded Redis kept its data under the user's data directory
    assert (home / ".local" / "share" / "cardarena" / "redis").is_dir()


def test_up_serves_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with subprocess.Popen(
        [sys.executable, "-m", "cardarena.cli", "up", "--grpc-port", "0", "--http-port", "0"],
        env=_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        _check_up(proc)
    time.sleep(0.5)
    assert _descendants_and_strays(home) == []


def _check_up(proc: subprocess.Popen[str]) -> None:
    try:
        assert proc.stdout is not None
        lines: dict[str, str] = {}
        deadline = time.monotonic() + 120
        while "dashboard" not in lines:
            line = proc.stdout.readline()
            if not line:
                pytest.fail(f"up exited: {proc.stderr.read() if proc.stderr else ''}")
            name, _, rest = line.partition(" ")
            lines[name] = rest.strip()
            assert time.monotonic() < deadline
        url = lines["dashboard"]
        with urllib.request.urlopen(url + "api/v1/games", timeout=10) as reply:
            games = json.loads(reply.read())
        assert "glaves" in json.dumps(games)
        assert lines["service"].startswith("127.0.0.1:")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
