"""Every command in README.md is exercised: run here, or by a named test, or by CI."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from cardarena.engine import rerun

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()

# command prefix -> where it is exercised (a test file that runs it, or .ci/run)
COVERED_BY = {
    "python3 -m venv": ".ci/run",
    "cardarena demo": "tests/test_platform.py",
    "cardarena up": "tests/test_platform.py",
    "ruff check": ".ci/run",
    "mypy": ".ci/run",
    "python -m pytest": ".ci/run",
    "cardarena match": "tests/test_readme.py",
    "cardarena replay": "tests/test_readme.py",
    "cardarena play": "tests/test_play.py",
    "cardarena bot register": "tests/test_readme.py",
    "cardarena bot run": "tests/server_harness.py",
    "cardarena tournament run --in-process": "tests/test_readme.py",
    "cardarena tournament run": "tests/test_tournament_cli.py",
    "cardarena tournament create": "tests/test_tournament_cli.py",
    "cardarena tournament list": "tests/test_tournament_cli.py",
    "cardarena tournament status": "tests/test_tournament_cli.py",
    "cardarena tournament standings": "tests/test_tournament_cli.py",
    "cardarena tournament schedules": "tests/test_tournament_cli.py",
    "cardarena tournament cancel": "tests/test_tournament_cli.py",
    "cardarena prune": "tests/test_retention.py",
    "cardarena data export": "tests/test_data_export.py",
    "cardarena data import": "tests/test_data_export.py",
    "cardarena bench engine": "tests/test_cli_simulate.py",
    "cardarena bench service": "tests/test_service_bench.py",
    "python bench/tournament_bench.py": "tests/test_bench_scripts.py",
    "python bench/round_robin_16.py": "tests/test_bench_scripts.py",
    "python bench/ranking_quality.py": "tests/test_ranking_quality.py",
    "python bench/dashboard_bench.py": "tests/test_bench_scripts.py",
    "python bench/replay_bench.py": "tests/test_bench_scripts.py",
    "python bench/cli_startup.py": "tests/test_bench_scripts.py",
}


def readme_commands() -> list[str]:
    """Commands in bash blocks, and inline-code commands in the performance table."""
    commands = [c for c in re.findall(r"^\| [^|]+ \| `([^`]+)` \|", README, re.M)]
    for block in re.findall(r"```bash\n(.*?)```", README, re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def test_every_readme_command_is_exercised() -> None:
    commands = readme_commands()
    assert len(commands) >= 8
    for command in commands:
        for part in command.split("&&"):
            part = re.sub(r"^(?:[A-Z_]+=\S+\s+)+", "", part.strip())  # its environment (CARDARENA_TOKEN=...)
            if part.startswith((". .venv", "pip install")):
                continue
            prefix = next((p for p in COVERED_BY if part.startswith(p)), None)
            assert prefix, f"README command not exercised anywhere: {part}"
            owner = COVERED_BY[prefix]
            text = (ROOT / owner).read_text()
            if prefix.startswith("cardarena"):
                words = prefix.split()[1:]
                assert all(f'"{w}"' in text or f" {w}" in text for w in words), f"{owner} does not run {part!r}"
            elif prefix.startswith("python bench/"):
                assert Path(prefix.split()[1]).name in text, f"{owner} does not run {part!r}"
            else:
                assert prefix in text, f"{owner} does not run {part!r}"


def test_ci_installs_exactly_as_the_readme_says() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python3 -m venv .venv" in ci and ". .venv/bin/activate" in ci
    assert "pip install -q -e '.[dev]'" in ci
    assert "ruff check service tournament clients tests bench docs/examples" in ci and "\nmypy\n" in ci
    assert "\npython -m pytest" in ci


def test_readme_first_bot_is_the_example_file() -> None:
    snippet = re.search(r"```python\n# clients/python/examples/low_card.py\n(.*?)```", README, re.S)
    assert snippet
    example = (ROOT / "clients/python/examples/low_card.py").read_text()
    body = example.split('"""', 2)[2].lstrip("\n")
    assert snippet.group(1) == body
    assert len([line for line in body.splitlines() if line.strip()]) <= 12


def test_readme_local_mode_snippet_runs_below_the_example(capsys: object) -> None:
    snippet = re.search(
        r"```python\n(if __name__ == \"__main__\":\n    from cardarena_sdk.local import play\n.*?)```", README, re.S
    )
    assert snippet and len(snippet.group(1).splitlines()) == 4
    example = (ROOT / "clients/python/examples/low_card.py").read_text()
    code = compile(example + "\n\n" + snippet.group(1), "low_card.py", "exec")
    exec(code, {"__name__": "__main__"})  # python low_card.py
    printed = capsys.readouterr().out  # type: ignore[attr-defined]
    assert re.fullmatch(r"\d+ first places in 20 matches\n", printed)
    exec(code, {"__name__": "cardarena_user_bot"})  # imported (cardarena match, bot run): nothing runs
    assert capsys.readouterr().out == ""  # type: ignore[attr-defined]


def test_readme_on_result_snippet_counts_the_bots_first_places() -> None:
    snippet = re.search(r"```python\n(from cardarena_sdk import MatchResult\n.*?)```", README, re.S)
    assert snippet
    example = (ROOT / "clients/python/examples/low_card.py").read_text()
    scope: dict[str, object] = {"__name__": "cardarena_user_bot"}
    exec(compile(example + "\n\n" + snippet.group(1), "low_card.py", "exec"), scope)
    from cardarena_sdk.local import play

    bot: Any = scope["CountingLowCard"]()
    results = play(bot, "glaves", 3, matches=6, seed=1)
    assert bot.firsts == sum(r.ranks[0] == 1 for r in results) > 0


def test_readme_match_command_runs(tmp_path: Path) -> None:
    command = next(c for c in readme_commands() if c.startswith("cardarena match"))
    argv = shlex.split(command)
    argv[argv.index("--bots") + 1] = argv[argv.index("--bots") + 1].replace(
        "clients/python/examples", str(ROOT / "clients/python/examples")
    )
    # without REDIS_URL the command uses the embedded default under the user's data directory:
    # a private HOME keeps the real user's data out of it
    home = tmp_path / "home"
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")}
    proc = _cardarena(argv[1:], tmp_path, env)
    replays = sorted((tmp_path / "out").glob("*.json"))
    assert len(replays) == 5
    for path in replays:
        replay = json.loads(path.read_text())
        assert replay["seats"] == ["low_card-1", "random-2", "heuristic-3"]
        assert rerun(replay).result().to_json()["ranks"] == replay["result"]["ranks"]
    # "Why did my bot do that?": the example asked again at its decisions answers as it played
    command = next(c for c in readme_commands() if c.startswith("cardarena replay"))
    argv = [a.replace("clients/python/examples", str(ROOT / "clients/python/examples")) for a in shlex.split(command)]
    proc = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", *argv[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert re.fullmatch(r"0 of \d+ decisions differ", proc.stdout.splitlines()[-1])


def test_readme_in_process_tournament_command_runs(tmp_path: Path) -> None:
    """The README's answer to "is my change better?": an in-process tournament of two versions
    of a bot file and the heuristic (here with fewer deal sets), with nothing started."""
    command = next(c for c in readme_commands() if c.startswith("cardarena tournament run --in-process") and "v4" in c)
    argv = shlex.split(command)
    example = (ROOT / "clients/python/examples/low_card.py").read_text()
    for version in ("v3", "v4"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "low_card.py").write_text(example)
    argv[argv.index("--deal-sets") + 1] = "10"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "REDIS_URL": "redis://127.0.0.1:1/0"}
    out = json.loads(_cardarena([*argv[1:], "--seed", "1", "--json"], tmp_path, env).stdout)
    assert out["in_process"] is True and len(out["matches"]) == 3 * 2 * 10
    assert sorted(r["bot"] for r in out["standings"]) == ["heuristic-1", "low_card-1", "low_card-2"]
    assert out["standings"][0]["bot"] == "heuristic-1"


def _cardarena(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``cardarena ARGS`` run in ``cwd``; it must succeed."""
    proc = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def test_readme_bot_register_prints_a_working_token(redis_url: str, key_prefix: str) -> None:
    from cardarena.store.bots import BotStore
    from cardarena.store.connection import client_for

    command = next(c for c in readme_commands() if c.startswith("cardarena bot register"))
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    proc = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", *shlex.split(command)[1:]],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    token = proc.stdout.strip()
    assert BotStore(client_for(redis_url)).authenticate(token) is not None
