"""The Node.js example bot plays a whole match against the real service."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from cardarena.engine import rerun
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchSpec, MatchStore, TimeControl

from .server_harness import ScriptedBot, ServiceProcess

NODE_DIR = Path(__file__).resolve().parents[1] / "clients" / "node"


def test_node_bot_plays_a_whole_match(redis_url: str, key_prefix: str) -> None:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is required under CI")
        pytest.skip("node is not installed")
    if not (NODE_DIR / "node_modules").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True, timeout=300)
    client = client_for(redis_url)
    matches, bots = MatchStore(client), BotStore(client)
    service = ServiceProcess(redis_url)
    token = bots.register("node-1")
    env = {**service.env, "CARDARENA_TOKEN": token, "CARDARENA_EXIT_AFTER_MATCHES": "1"}
    proc = subprocess.Popen([node, "random_bot.js", service.address, "node-1"], cwd=NODE_DIR, env=env)
    other = ScriptedBot(service.address, bots.register("python-2"), "python-2")
    other.autoplay()
    try:
        spec = MatchSpec("node", "glaves", 2, ("node-1", "python-2"), seed=3, time_control=TimeControl(5000, 0))
        matches.enqueue(spec)
        deadline = time.monotonic() + 120
        while matches.status("node") != "done":
            assert time.monotonic() < deadline, matches.info("node")
            time.sleep(0.1)
        result = matches.result("node")
        assert result is not None and result["strikes"] == [0, 0]
        replay = matches.replay("node")
        assert replay is not None
        rerun(replay)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        other.close()
        service.stop()
