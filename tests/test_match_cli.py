"""``cardarena match``: real service, bots as separate processes, replays that re-run; what a
bot author sees of faults, errors and output; argument errors; an interrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cardarena.engine import rerun
from cardarena.server.commands import spawn
from cardarena.store.connection import client_for

from .redis_server import only_neighbours_left, plant_neighbours


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


BOTS = {
    "raises.py": "class Raises(Bot):\n    def choose(self, view, legal):\n        raise RuntimeError('boom')\n",
    "illegal.py": "class Illegal(Bot):\n    def choose(self, view, legal):\n        return 'no-such-action'\n",
    # 10 KB per decision: far more than a pipe holds over a match
    "printer.py": "class Printer(Bot):\n    def choose(self, view, legal):\n        print('x' * 10000)\n"
    "        return legal[0].id\n",
    "slow.py": "import time\nclass Slow(Bot):\n    def choose(self, view, legal):\n        time.sleep(0.3)\n"
    "        return legal[0].id\n",
}


def _bots(where: Path) -> dict[str, str]:
    where.mkdir(exist_ok=True)
    for name, body in BOTS.items():
        (where / name).write_text("from cardarena_sdk import Bot\n" + body)
    return {name.removesuffix(".py"): str(where / name) for name in BOTS}


def _private_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """No REDIS_URL unless given, and a private data directory: nothing of the user's."""
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    return {**env, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share"), **extra}


def _match(argv: list[str], env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardarena.server", "match", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_match_reports_each_seats_faults_and_logs_its_output(tmp_path: Path, redis_url: str, key_prefix: str) -> None:
    bots = _bots(tmp_path / "bots")
    out = tmp_path / "replays"
    argv = ["glaves", "--players", "3", "--bots", f"{bots['raises']},{bots['illegal']},{bots['printer']}"]
    argv += ["--move-ms", "1000", "--bank-ms", "0", "--replays", str(out)]
    done = _match(argv, {**os.environ, "REDIS_URL": redis_url})
    assert done.returncode == 0, done.stderr
    logs = out / "logs"
    assert (
        f"raises-1: 3 handed-back moves, forfeited 1 of 1 match; 3 errors logged; see {logs / 'raises-1.log'}"
        in done.stdout
    )
    assert "illegal-2: 3 illegal-action faults, forfeited 1 of 1 match; " in done.stdout
    assert done.stdout.startswith("Glaves, 3 players, 1 match (seed ")  # it said "1 matches"
    assert "printer-3: " not in done.stdout.split("faults and errors:")[1]  # printing freely is no fault
    assert f"bot logs in {logs}/" in done.stdout
    replay = json.loads(next(out.glob("*.json")).read_text())
    assert sorted({(f["seat"], f["fault"]) for f in replay["faults"]}) == [(0, "error"), (1, "illegal")]
    raised = (logs / "raises-1.log").read_text()
    assert "choose raised RuntimeError in match-" in raised and "RuntimeError: boom" in raised
    said = "handed back; the server plays a default action now (an error fault; enough faults forfeit the seat)"
    assert said in raised
    assert "cardarena_sdk/client.py" not in raised  # the traceback is the bot's own code
    assert "choose returned 'no-such-action'" in (logs / "illegal-2.log").read_text()
    assert (logs / "printer-3.log").stat().st_size > 100_000


def test_without_replays_the_logs_go_under_the_data_directory(tmp_path: Path, redis_url: str, key_prefix: str) -> None:
    done = _match(
        ["glaves", "--players", "3", "--bots", "random,random,heuristic"], _private_env(tmp_path, REDIS_URL=redis_url)
    )
    assert done.returncode == 0, done.stderr
    logs = Path(done.stdout.split("bot logs in ")[1].split()[0].rstrip("/"))
    assert logs.parent == tmp_path / "home" / ".local" / "share" / "cardarena" / "logs"
    assert sorted(p.name for p in logs.iterdir()) == ["heuristic-3.log", "random-1.log", "random-2.log"]
    assert "connected to 127.0.0.1:" in (logs / "random-1.log").read_text()
    assert "cardarena dashboard" not in done.stdout  # with REDIS_URL the run's data is deleted


def test_on_the_embedded_default_the_summary_points_to_the_dashboards_replays(tmp_path: Path) -> None:
    """The replay files are raw JSON; the dashboard (same embedded Redis) steps through each
    match: the summary says so when the run's data stays there, not with REDIS_URL."""
    done = _match(["glaves", "--players", "2", "--bots", "random,random"], _private_env(tmp_path))
    assert done.returncode == 0, done.stderr
    said = "step through each match (every move, each seat's view, the faults): cardarena dashboard, page Matches"
    assert done.stdout.splitlines()[-1] == said


def test_a_solitaire_reports_the_engines_won(tmp_path: Path, redis_url: str, key_prefix: str) -> None:
    out = tmp_path / "out"
    argv = ["loot_the_loop", "--players", "1", "--bots", "heuristic", "--matches", "2", "--replays", str(out)]
    done = _match(argv, {**os.environ, "REDIS_URL": redis_url})
    assert done.returncode == 0, done.stderr
    won = sum(bool(json.loads(f.read_text())["result"]["won"][0]) for f in out.glob("*.json"))
    assert f"heuristic-1: won {won} of 2 ({50 * won:.1f}%)  mean score" in done.stdout
    assert done.stdout.startswith("Loot the Loop, 1 player, 2 matches (seed ")  # it said "1 players"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("class B(Bot)\n    pass\n", "SyntaxError: expected ':' (line 2)"),
        ("x = 1\n", "defines no cardarena_sdk.Bot subclass"),
        (None, "neither a built-in bot (random, heuristic) nor a .py file"),
    ],
)
def test_a_bad_bot_spec_is_a_one_line_error_before_anything_starts(
    tmp_path: Path, body: str | None, reason: str
) -> None:
    spec = "randm"
    if body is not None:
        path = tmp_path / "bad.py"
        path.write_text("from cardarena_sdk import Bot\n" + body)
        spec = str(path)
    env = _private_env(tmp_path)
    done = _match(["glaves", "--players", "3", "--bots", f"random,{spec},random"], env, timeout=60)
    assert (done.returncode, done.stderr) == (2, f"cardarena: error: {spec}: {reason}\n")
    assert not (tmp_path / "home").exists()  # no Redis was started, nothing written
    run = [sys.executable, "-m", "cardarena.server", "bot", "run", spec, "--token", "t"]
    done = subprocess.run(run, env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (2, f"cardarena: error: {spec}: {reason}\n")


@pytest.mark.parametrize(("stem", "reason"), [("my:bot", "must not contain ':'"), ("b" * 70, "at most 64 characters")])
def test_a_bot_file_whose_name_cannot_name_a_bot_is_refused_before_anything_starts(
    tmp_path: Path, stem: str, reason: str
) -> None:
    """Seats are named after the bot file (``my:bot.py`` plays as ``my:bot-2``): a file name that
    makes no valid bot name is an argument error naming the file, not a bot-name error from
    deep inside the run once Redis and the service have started."""
    path = tmp_path / f"{stem}.py"
    path.write_text("from cardarena_sdk import RandomBot\n\n\nclass Mine(RandomBot):\n    pass\n")
    env = _private_env(tmp_path)
    done = _match(["glaves", "--players", "2", "--bots", f"random,{path}"], env, timeout=60)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"cardarena: error: {path}: its bot would be named '{stem}-2': ") and reason in line, line
    assert not (tmp_path / "home").exists()  # no Redis was started, nothing written


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--options", "{bad"], "cardarena: error: --options is not JSON: "),
        (["--options", "[1]"], "cardarena: error: --options must be a JSON object, got list"),
        (["--replays", "afile"], "cardarena: error: --replays afile: exists and is not a directory"),
        (["--matches", "0"], "argument --matches: must be at least 1, got 0"),
        (["--matches", "-1"], "argument --matches: must be at least 1, got -1"),
        (["--bots", "random,random"], "cardarena: error: --bots needs 3 entries, got 2"),
        (["--players", "9"], "cardarena: error: "),
        (["--move-ms", "3000000000"], "argument --move-ms: must be at most 2147483647, got 3000000000"),
        (["--bank-ms", "2147483648"], "argument --bank-ms: must be at most 2147483647, got 2147483648"),
    ],
)
def test_argument_errors_exit_2_without_a_traceback(tmp_path: Path, extra: list[str], message: str) -> None:
    (tmp_path / "afile").write_text("")
    argv = ["glaves", "--players", "3", "--bots", "random,random,random", *extra]
    done = subprocess.run(
        [sys.executable, "-m", "cardarena.server", "match", *argv],
        env=_private_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_options_a_game_refuses_only_when_it_builds_a_match_are_refused_first(tmp_path: Path) -> None:
    """Schnapsen checks its target's range when it builds a state: `match` builds one before
    anything starts (before, the service claimed and voided the match for ever)."""
    argv = ["schnapsen", "--bots", "random,random", "--options", '{"target": 0}']
    done = subprocess.run(
        [sys.executable, "-m", "cardarena.server", "match", *argv],
        env=_private_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "target" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "home").exists()  # nothing was started


def _interrupted_match(
    tmp_path: Path, redis_url: str, key_prefix: str, sig: signal.Signals, extra: list[str]
) -> tuple[int, str, str]:
    """A ``match`` on ``redis_url`` sent ``sig`` while a match is being played: its exit status,
    its stderr and the run's key prefix."""
    bots = _bots(tmp_path / "bots")
    argv = [sys.executable, "-m", "cardarena.server", "match", "glaves", "--players", "3", *extra]
    argv += ["--bots", f"{bots['slow']},random,random", "--matches", "6", "--concurrency", "1"]
    proc = subprocess.Popen(
        argv, env={**os.environ, "REDIS_URL": redis_url}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    client = client_for(redis_url)
    try:
        # wait until a match is being played (the run's keys are under a prefix of its own)
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.communicate()
            running = [k.decode() for k in client.scan_iter(f"{key_prefix}match-*:matches:running")]
            if running and client.scard(running[0]):
                break
            assert time.monotonic() < deadline, "no match started"
            time.sleep(0.1)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        client.close()
    return proc.returncode, err, running[0].removesuffix("matches:running")


def test_an_interrupted_match_withdraws_its_unfinished_matches(tmp_path: Path, redis_url: str, key_prefix: str) -> None:
    """Ctrl-C with ``--keep-data``: the data stays (where is said), nothing of it left to claim."""
    status, err, run_prefix = _interrupted_match(tmp_path, redis_url, key_prefix, signal.SIGINT, ["--keep-data"])
    assert status == 130, err
    kept, interrupted = err.splitlines()
    assert kept == (
        f"cardarena: the run's data stays in Redis under the key prefix {run_prefix} "
        f"(CARDARENA_PREFIX={run_prefix} cardarena dashboard shows it)"
    )
    assert interrupted.startswith("cardarena: interrupted; ") and "withdrawn" in interrupted, err
    client = client_for(redis_url)
    statuses = [
        client.hget(f"{run_prefix}match:{mid.decode()}", "status")
        for mid in client.zrange(f"{run_prefix}matches:all", 0, -1)
    ]
    assert len(statuses) == 6
    assert set(statuses) <= {b"done", b"withdrawn"} and b"withdrawn" in statuses
    # nothing of the run is left to claim
    assert client.scard(f"{run_prefix}matches:queued") == 0 and client.scard(f"{run_prefix}matches:running") == 0
    client.close()


def test_a_match_run_on_an_external_redis_deletes_its_keys(tmp_path: Path, redis_url: str, key_prefix: str) -> None:
    """With REDIS_URL the run's keys (all under its own prefix) are gone when it ends, and
    every other key is as it was."""
    client = client_for(redis_url)
    planted = plant_neighbours(client, key_prefix)
    argv = ["glaves", "--players", "2", "--bots", "random,random", "--matches", "2"]
    done = _match(argv, _private_env(tmp_path, REDIS_URL=redis_url))
    assert done.returncode == 0, done.stderr
    assert "wins" in done.stdout and done.stderr == ""
    only_neighbours_left(client, key_prefix, planted)
    client.close()


def test_a_match_run_stopped_by_sigterm_deletes_its_keys(tmp_path: Path, redis_url: str, key_prefix: str) -> None:
    client = client_for(redis_url)
    planted = plant_neighbours(client, key_prefix)
    status, err, run_prefix = _interrupted_match(tmp_path, redis_url, key_prefix, signal.SIGTERM, [])
    assert status == 130 and err.startswith("cardarena: interrupted; ") and err.count("\n") == 1, err
    assert run_prefix.startswith(f"{key_prefix}match-")
    only_neighbours_left(client, key_prefix, planted)
    client.close()


def test_spawned_children_never_block_on_their_output(tmp_path: Path) -> None:
    talk = [
        sys.executable,
        "-c",
        "import sys\nfor _ in range(100): print('x' * 10000); print('y' * 10000, file=sys.stderr)",
    ]
    quiet = spawn(talk, dict(os.environ))
    with (tmp_path / "child.log").open("wb") as log:
        logged = spawn(talk, dict(os.environ), log=log)
        # far more than a pipe holds: a child whose output nobody reads would block for good
        assert quiet.wait(timeout=60) == 0 and logged.wait(timeout=60) == 0
    assert (tmp_path / "child.log").stat().st_size == 200 * 10001
