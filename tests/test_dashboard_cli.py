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
