"""``cardarena simulate`` plays local matches and writes replays that re-run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cardarena.cli import main
from cardarena.engine import ReplayMismatch, rerun


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


def test_the_summary_counts_one_match_and_one_player_in_the_singular(capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: "1 matches" (and "1 players ..., random bots" for a solitaire)."""
    assert main(["simulate", "glaves", "--seed", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Glaves, 2 players, 1 match (seed 3), random bots"
    assert main(["simulate", "loot_the_loop", "--matches", "2", "--seed", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Loot the Loop, 1 player, 2 matches (seed 3), a random bot"


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cardarena.cli", *argv], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--options", "{bad"], "cardarena: error: --options is not JSON: "),
        (["--options", "[1]"], "cardarena: error: --options must be a JSON object, got list\n"),
        (["--options", '{"deals": -3}'], "cardarena: error: option deals must be from 0 to 1000"),
        (["--options", '{"nope": 1}'], "cardarena: error: unknown option(s) for glaves: nope"),
        (["--matches", "0"], "argument --matches: must be at least 1, got 0"),
        (["--matches", "-2"], "argument --matches: must be at least 1, got -2"),
        (["--players", "-1"], "argument --players: must be at least 0, got -1"),
        (["--players", "9"], "cardarena: error: Glaves is played by 2 to 4 players, not 9"),
    ],
)
def test_simulate_argument_errors_are_one_line_and_exit_2(argv: list[str], message: str) -> None:
    done = _cli("simulate", "glaves", *argv)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_simulate_replays_must_be_a_directory(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    done = _cli("simulate", "glaves", "--replays", str(tmp_path / "afile"))
    assert (done.returncode, done.stderr) == (
        2,
        f"cardarena: error: --replays {tmp_path / 'afile'}: exists and is not a directory\n",
    )


def test_bench_engine_refuses_an_unknown_game() -> None:
    done = _cli("bench", "engine", "--game", "nosuch", "--repeats", "1", "--actions", "10")
    assert done.returncode == 2
    assert done.stderr.startswith("cardarena: error: unknown game 'nosuch'; known: ") and done.stdout == ""
    assert done.stderr.count("\n") == 1
    for bad in (["--repeats", "0"], ["--actions", "-1"]):
        done = _cli("bench", "engine", "--game", "glaves", *bad)
        assert done.returncode == 2 and "must be at least 1" in done.stderr


def test_help_texts_give_the_defaults() -> None:
    sim = _cli("simulate", "--help").stdout
    assert "0 (the default): the game's minimum" in sim and "(default: 1)" in sim and "(default: 0)" in sim
    bench = _cli("bench", "engine", "--help").stdout
    assert "default: 5" in bench and "(default: 20000)" in bench


def test_simulate_refuses_to_write_a_replay_that_does_not_re_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cardarena import engine

    def broken(replay: dict[str, object]) -> None:
        raise ReplayMismatch("deal 1: scores [1] != recorded [2]")

    monkeypatch.setattr(engine, "rerun", broken)  # what ``simulate`` imports when it runs
    assert main(["simulate", "glaves", "--replays", str(tmp_path)]) == 2
    assert not list(tmp_path.glob("*.json"))


def test_a_reader_that_leaves_early_gets_no_traceback() -> None:
    """``cardarena ... | head``: the pipe closes before the output is written; the command ends
    with status 1 and nothing on stderr (no BrokenPipeError traceback)."""
    import subprocess
    import sys

    with subprocess.Popen(
        [sys.executable, "-m", "cardarena.cli", "simulate", "glaves", "--players", "2", "--matches", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=120) == 1
    assert err == ""
