"""``cardarena simulate`` plays local matches and writes replays that re-run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cardarena.cli import main
from cardarena.engine import rerun


def test_simulate_writes_replays(tmp_path: Path, capsys: object) -> None:
    out = tmp_path / "out"
    assert main(["simulate", "glaves", "--players", "3", "--matches", "5", "--seed", "1", "--replays", str(out)]) == 0
    files = sorted(out.glob("*.json"))
    assert len(files) == 5
    for f in files:
        replay = json.loads(f.read_text())
        assert replay["format"] == "cardarena-replay/1"
        assert replay["game"] == "glaves" and replay["seats"] == ["random-1", "random-2", "random-3"]
        deal = replay["deals"][0]
        assert {"dealer", "hands", "stock", "trump_card", "actions", "scores"} <= set(deal)
        assert len(deal["stock"]) == 24 and all(len(h) == 9 for h in deal["hands"])
        assert rerun(replay).result().to_json() == replay["result"]


def test_simulate_is_deterministic(tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert main(["simulate", "knaves", "--matches", "2", "--seed", "9", "--replays", str(tmp_path / name)]) == 0
    for f in (tmp_path / "a").glob("*.json"):
        assert f.read_text() == (tmp_path / "b" / f.name).read_text()


def test_console_command_reports_bad_game() -> None:
    proc = subprocess.run([sys.executable, "-m", "cardarena.cli", "simulate", "chess"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "unknown game 'chess'" in proc.stderr and "glaves" in proc.stderr


def test_bench_engine_json_lines(capsys: object) -> None:
    assert main(["bench", "engine", "--json", "--repeats", "1", "--actions", "200", "--game", "glaves"]) == 0
    out = capsys.readouterr().out.strip().splitlines()  # type: ignore[attr-defined]
    rows = [json.loads(line) for line in out]
    ours = [r for r in rows if r["game"] == "glaves"]
    assert [r["players"] for r in ours] == [2, 3, 4]
    assert all(r["us_per_action"] > 0 for r in rows)


def test_simulate_reports_a_solitaire_by_the_engines_won(tmp_path: Path, capsys: object) -> None:
    out = tmp_path / "out"
    assert main(["simulate", "loot_the_loop", "--matches", "4", "--seed", "2", "--replays", str(out)]) == 0
    won = sum(bool(json.loads(f.read_text())["result"]["won"][0]) for f in out.glob("*.json"))
    text = capsys.readouterr().out  # type: ignore[attr-defined]
    # a lone seat always ranks first: its "wins" would be every match
    assert f"seat 0: won {won} of 4 ({100 * won / 4:.1f}%)  mean score" in text
