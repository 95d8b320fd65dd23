"""A bot built from ``proto/`` and ``docs/protocol.md`` alone (``tests/protocol_only_bot.py``:
stubs generated here with grpcio-tools, no SDK) registers through ``Admin.RegisterBot``, plays
Glaves and Coup matches at once against the real service, is told in-band why its illegal
answer was refused and answers again, and resumes the request it left pending when it killed
its connection; a wrong token ends its stream ``UNAUTHENTICATED``."""

from __future__ import annotations

import glob
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cardarena.engine import rerun
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchSpec, MatchStore

from .server_harness import SLOW_CLOCK, ScriptedBot, ServiceProcess

ROOT = Path(__file__).resolve().parents[1]
BOT = Path(__file__).with_name("protocol_only_bot.py")
ADMIN_TOKEN = "protocol-only-admin"


def generated_stubs(out: Path) -> Path:
    """``proto/`` compiled with the command docs/protocol.md ("Other languages") gives a Python
    author, run as written (``OUT`` the output directory, the shell's glob expanded)."""
    out.mkdir()
    doc = (ROOT / "docs" / "protocol.md").read_text()
    (command,) = [line for line in doc.splitlines() if line.startswith("python -m grpc_tools.protoc ")]
    argv: list[str] = []
    for word in shlex.split(command.replace("OUT", str(out))):
        argv += sorted(glob.glob(word, root_dir=ROOT)) if "*" in word else [word]
    assert argv[0] == "python"
    subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, check=True)
    for package in (out / "cardarena", out / "cardarena" / "v1"):  # ahead of an installed cardarena
        (package / "__init__.py").touch()
    return out


def trace_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_bot_from_the_proto_alone_plays_resumes_and_recovers(
    redis_url: str, key_prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARDARENA_ADMIN_TOKEN", ADMIN_TOKEN)
    stubs = generated_stubs(tmp_path / "stubs")
    client = client_for(redis_url)
    matches = MatchStore(client)
    service = ServiceProcess(redis_url)
    bot_argv = [sys.executable, str(BOT), "--stubs", str(stubs), "--server", service.address]
    rival: ScriptedBot | None = None
    proc: subprocess.Popen[bytes] | None = None

    def register(name: str) -> str:
        """The bot's token from ``Admin.RegisterBot``, called through the generated stubs."""
        argv = [*bot_argv, "register", "--admin-token", ADMIN_TOKEN, name]
        return subprocess.run(argv, capture_output=True, text=True, check=True, timeout=30).stdout.strip()

    try:
        token = register("proto-bot")
        rival = ScriptedBot(service.address, register("rival"), "rival", max_matches=8)
        rival.autoplay()
        trace = tmp_path / "trace.jsonl"
        play = ["play", "--token", token, "--name", "proto-bot", "--games", "glaves,coup", "--max-matches", "4"]
        flags = ["--matches", "4", "--illegal-once", "--drop-at-seq", "6", "--trace", str(trace)]
        proc = subprocess.Popen([*bot_argv, *play, *flags])
        specs = [
            MatchSpec(f"proto-{game}-{n}", game, 2, seats, seed=n, options=options, time_control=SLOW_CLOCK)
            for n, (game, options, seats) in enumerate(
                [
                    ("glaves", {"deals": 1}, ("proto-bot", "rival")),
                    ("coup", {}, ("rival", "proto-bot")),
                    ("glaves", {"deals": 1}, ("rival", "proto-bot")),
                    ("coup", {}, ("proto-bot", "rival")),
                ]
            )
        ]
        matches.enqueue_many(specs)
        assert proc.wait(timeout=60) == 0
        results = {spec.match_id: matches.result(spec.match_id) for spec in specs}
        # A wrong token: the stream ends UNAUTHENTICATED, a code it does not retry (exit 1).
        refused = tmp_path / "refused.jsonl"
        wrong = ["play", "--token", "0123456789abcdef.wrong", "--trace", str(refused)]
        assert subprocess.run([*bot_argv, *wrong], timeout=30).returncode == 1
        assert [(r["t"], r["code"]) for r in trace_of(refused)] == [("stream_end", "UNAUTHENTICATED")]
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        if rival is not None:
            rival.close()
        service.stop()
        client.close()

    seen = trace_of(trace)
    kinds = [row["t"] for row in seen]
    welcome = next(row for row in seen if row["t"] == "welcome")
    assert welcome["batching"] and welcome["max_matches"] == 4
    # Capacity 4: every match started before the first one ended, Glaves and Coup together.
    starts = [i for i, row in enumerate(seen) if row["t"] == "match_start" and not row["resumed"]]
    assert {seen[i]["game"] for i in starts} == {"glaves", "coup"}
    assert len(starts) == 4 and max(starts) < kinds.index("match_end")

    # Every match completed, told to the bot as recorded, its seat's place among the ranks.
    ends = {row["match_id"]: row for row in seen if row["t"] == "match_end"}
    assert set(ends) == set(results)
    for match_id, result in results.items():
        assert result is not None and ends[match_id]["status"] == "completed"
        assert ends[match_id]["ranks"] == result["ranks"] and ends[match_id]["scores"] == result["scores"]
        (seat,) = ends[match_id]["seats"]
        assert result["seats"][seat] == "proto-bot" and ends[match_id]["places"] == [result["ranks"][seat]]
        assert result["strikes"] == [0, 0], result  # no time-out, no default action
        replay = matches.replay(match_id)
        assert replay is not None
        rerun(replay)
    assert not any(row["t"] in ("default_action", "stream_end") for row in seen), seen

    # The illegal answer: rejected in-band with the engine's reason, answered again (same seq).
    illegal = next(row for row in seen if row["t"] == "illegal")
    key = (illegal["match_id"], illegal["seq"])
    rejected = [row for row in seen if row["t"] == "rejected"]
    assert [(r["match_id"], r["seq"], r["code"]) for r in rejected] == [(*key, "REJECT_ILLEGAL_ACTION")]
    assert f"unknown action {illegal['answer']!r}" in rejected[0]["reason"], rejected  # the engine's reason
    again = next(row for row in seen if row["t"] == "answered_again")
    assert (again["match_id"], again["seq"]) == key
    assert kinds.index("illegal") < kinds.index("rejected") < kinds.index("answered_again")

    # The connection killed with a Glaves request pending: a new session, the match resumed
    # (MatchStart resumed) and the same request (same seq) sent again, then answered.
    drop = kinds.index("drop")
    dropped = seen[drop]
    after = seen[drop + 1 :]
    assert after[0]["t"] == "welcome" and kinds.count("welcome") == 2
    assert any(r["t"] == "match_start" and r["resumed"] and r["match_id"] == dropped["match_id"] for r in after)
    resent = next(r for r in after if r["t"] == "request" and r["match_id"] == dropped["match_id"])
    assert resent["seq"] == dropped["seq"] and resent["again"]
