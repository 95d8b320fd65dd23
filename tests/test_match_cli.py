"""``cardarena match``: real service, bots as separate processes, replays that re-run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cardarena.engine import rerun


def test_match_command_plays_over_grpc_and_writes_replays(tmp_path: Path, redis_url: str, key_prefix: str) -> None:
    env = {**os.environ, "REDIS_URL": redis_url}
    out = tmp_path / "replays"
    argv = [sys.executable, "-m", "cardarena.server", "match", "glaves", "--players", "3"]
    argv += ["--bots", "random,heuristic,random", "--matches", "3", "--seed", "5", "--replays", str(out)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "heuristic-2" in done.stdout
    files = sorted(out.glob("*.json"))
    assert len(files) == 3
    for path in files:
        replay = json.loads(path.read_text())
        assert replay["seats"] == ["random-1", "heuristic-2", "random-3"]
        rerun(replay)
