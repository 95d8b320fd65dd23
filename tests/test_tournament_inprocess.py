"""`cardarena tournament run --in-process`: the real run's schedule, seeds, fault policy and
standings, every match played in this process (or `--jobs` worker processes) by the SDK's
local match runner, with no Redis, service or bot processes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cardarena.engine import MatchRng, get_game
from cardarena_tournament import lifecycle
from cardarena_tournament.inprocess import tournament_id
from cardarena_tournament.run import bot_names

from .test_formats import check_balance, check_deal_sets

RAISES = """from cardarena_sdk import Bot


class Raises(Bot):
    def choose(self, view, legal):
        raise RuntimeError("no idea what to play")
"""


def _cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "tournament", "run", "--in-process", *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _json(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = _cli(*args, "--json", env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _first_hands(game: str, players: int, seed: int) -> list[list[str]]:
    """Each seat's hand when the first deal has been dealt from the match seed (as the service
    and the local runner deal it: chance from ``MatchRng(seed)``)."""
    g = get_game(game)
    state, rng = g.new_state(players, g.options(players, None)), MatchRng(seed)
    while state.is_chance():
        state.apply_chance(state.sample_chance(rng))
    return [list(state.view_json(s)["hand"]) for s in range(players)]


def test_the_schedule_and_deals_are_the_real_runs(tmp_path: Path) -> None:
    """The matches are `tournament run`'s schedule for the seed: every match of the format in
    play order, balanced as the format's tests require, each deal set dealt the same first
    deal in every seating; and a real run with the same seed (another tournament id) plays the
    same deals in the same seatings."""
    bots = "heuristic,random,random,heuristic"
    out = _json("--game", "glaves", "--players", "3", "--bots", bots, "--deal-sets", "2", "--seed", "sched")
    names = [n for _, n in bot_names(bots)]
    t = lifecycle.new_tournament(
        game="glaves", players=3, entrants=names, deal_sets=2, seed="sched", tid=tournament_id("sched")
    )
    expected = lifecycle.expand(t)
    assert out["tournament"] == t.id and out["in_process"] is True
    assert [(m["match_id"], tuple(m["seats"]), m["seed"], m["deal_set"]) for m in out["matches"]] == [
        (m.match_id, m.seats, m.seed, m.deal_set) for m in expected
    ]
    played = [SimpleNamespace(seats=tuple(m["seats"]), seed=m["seed"], deal_set=m["deal_set"]) for m in out["matches"]]
    assert len(played) == 4 * 6 * 2  # 4 tables of 3, every seating, 2 deal sets
    check_deal_sets(played, 3)
    check_balance(played, names, 3)
    hands: dict[str, set[str]] = {}
    for m in out["matches"]:
        hands.setdefault(m["deal_set"], set()).add(json.dumps(_first_hands("glaves", 3, m["seed"])))
        assert m["deal_scores"] and [sum(d[s] for d in m["deal_scores"]) for s in range(3)] == m["scores"]
    assert len(hands) == 8 and all(len(h) == 1 for h in hands.values())
    assert len({next(iter(h)) for h in hands.values()}) == 8  # and the deal sets' deals differ
    real_run = lifecycle.new_tournament(game="glaves", players=3, entrants=names, deal_sets=2, seed="sched")
    real = lifecycle.expand(real_run)
    assert {(m.match_id.split(":")[1], m.seats, m.seed) for m in real} == {
        (m["match_id"].split(":")[1], tuple(m["seats"]), m["seed"]) for m in out["matches"]
    }


def test_runs_without_redis_a_service_or_bot_processes(tmp_path: Path) -> None:
    """REDIS_URL at a closed port and a fresh data directory: the run needs neither (no
    embedded Redis is made there, no log directory of a platform), and the same command
    gives the same JSON twice, and with --jobs 2 as with --jobs 1; no progress bar with --json."""
    env = {"REDIS_URL": f"redis://127.0.0.1:{_closed_port()}/0", "XDG_DATA_HOME": str(tmp_path / "data")}
    args = ["--game", "glaves", "--players", "2", "--bots", "heuristic,random,random", "--deal-sets", "3"]
    done = _cli(*args, "--seed", "7", "--json", env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr == ""
    assert not (tmp_path / "data").exists()  # no embedded Redis, no logs: nothing was started or written
    again = _cli(*args, "--seed", "7", "--json", env=env)
    two = _cli(*args, "--seed", "7", "--json", "--jobs", "2", env=env)
    assert done.stdout == again.stdout == two.stdout
    out = json.loads(done.stdout)
    assert len(out["matches"]) == 3 * 2 * 3 and {m["match_id"].split(":")[0] for m in out["matches"]} == {
        out["tournament"]
    }
    other = json.loads(_cli(*args, "--seed", "8", "--json", env=env).stdout)
    assert [m["seed"] for m in other["matches"]] != [m["seed"] for m in out["matches"]]


def test_heuristic_beats_random_with_separated_intervals() -> None:
    """The standings are the real ones: 40 duplicate deal sets of Glaves separate the heuristic
    from random, in a few seconds."""
    out = _json(
        "--game", "glaves", "--players", "2", "--bots", "random,heuristic", "--deal-sets", "40",
        "--seed", "ab", "--jobs", "2",
    )  # fmt: skip
    assert out["metric"] == "deal_margin" and len(out["matches"]) == 80
    top, bottom = out["standings"]
    assert (top["bot"], bottom["bot"]) == ("heuristic-1", "random-1")
    assert top["separated_from_next"] is True and top["ci_low"] > bottom["ci_high"]
    assert top["deal_sets"] == 40 and top["wins"] + top["draws"] + top["losses"] == 80
    assert top["rating"]["ordinal"] > bottom["rating"]["ordinal"] and top["rating"]["matches"] == 80
    unrated = _json("--game", "glaves", "--players", "2", "--bots", "random,heuristic", "--seed", "ab", "--unrated")
    assert unrated["rated"] is False and {r["rating"] for r in unrated["standings"]} == {None}


def test_a_run_of_one_match_says_one_match(tmp_path: Path) -> None:
    """Regression: "in-process: 1 matches played" and "(1 matches counted)"."""
    done = _cli("--game", "loot_the_loop", "--players", "1", "--bots", "heuristic", "--seed", "1",
                env={"XDG_DATA_HOME": str(tmp_path)})  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("in-process: 1 match played in this process") and "(1 match counted)" in done.stdout


def test_a_raising_bot_gets_strikes_and_forfeits_listed_with_the_log(tmp_path: Path) -> None:
    """A `choose` that raises is handed back as over the wire: the default action, a strike,
    `max_strikes` forfeit; the summary lists the bot's faults and where its output went (the
    traceback); the table says the run was in-process."""
    bot = tmp_path / "raises.py"
    bot.write_text(RAISES)
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    args = ["--game", "glaves", "--players", "2", "--bots", f"random,{bot}", "--deal-sets", "2", "--seed", "f"]
    done = _cli(*args, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("in-process: 4 matches played in this process") and "no clocks" in lines[0]
    [log] = (tmp_path / "data" / "cardarena" / "logs").glob("tournament-run-in-process-*/bots.log")
    assert lines[-2:] == [
        "faults (a bot's own log says why):",
        f"  raises-1: 12 strikes, forfeited 4 of 4 matches; log: {log}",
    ]
    text = log.read_text()
    assert text.count("choose raised RuntimeError in t") == 12 and 'raise RuntimeError("no idea' in text
    assert text.startswith("== match t") and "seats " in text.splitlines()[0]
    out = _json(*args, "--fault-policy", '{"max_strikes": 0, "default_action": "random"}', env=env)
    raised = [m["strikes"][m["seats"].index("raises-1")] for m in out["matches"]]
    assert all(s > 3 for s in raised) and all(m["forfeited"] == [] for m in out["matches"])


def test_a_file_bot_is_one_object_per_process_as_over_the_wire(tmp_path: Path) -> None:
    """As one `cardarena bot run` process: the file's bot is loaded once and plays every match
    (here, in order), its `on_result` called after each; what it prints goes to the log."""
    bot = tmp_path / "counting.py"
    bot.write_text(
        "from cardarena_sdk import RandomBot\n\n\nclass Counting(RandomBot):\n    played = 0\n\n"
        "    def on_result(self, result):\n        self.played += 1\n"
        "        print('counting bot: match', self.played)\n"
    )
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    done = _cli("--game", "glaves", "--players", "2", "--bots", f"heuristic,{bot}", "--deal-sets", "3", env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "counting bot" not in done.stdout
    [log] = (tmp_path / "data" / "cardarena" / "logs").glob("tournament-run-in-process-*/bots.log")
    assert [line for line in log.read_text().splitlines() if line.startswith("counting bot")] == [
        f"counting bot: match {n}" for n in range(1, 7)
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "random,nope.py"], "--bots: nope.py: no such file"),
        (["--bots", "random,random", "--keep-data"], "--in-process uses no Redis"),
        (["--bots", "random,random", "--redis-url", "redis://127.0.0.1:1/0"], "--in-process uses no Redis"),
        (["--bots", "random,random", "--fault-policy", '{"max_rejections": 0}'], "max_rejections 0"),
        (["--bots", "random", "--deal-sets", "1"], "at least 2 entrants"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    done = _cli("--game", "glaves", "--players", "2", *args, timeout=60)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_jobs_needs_in_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "tournament", "run", "--game", "glaves", "--players", "2"]
        + ["--bots", "random,random", "--jobs", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--jobs is for --in-process runs" in done.stderr


@pytest.mark.parametrize(("jobs", "message"), [("1", "a bot ended its process (SystemExit 4)"), ("2", "exited with 3")])
def test_a_bot_that_ends_its_process_ends_the_run(tmp_path: Path, jobs: str, message: str) -> None:
    """As over the wire, where the run ends when a bot's process dies: `sys.exit` in `choose`
    (in this process), or a worker process that a bot ended (`os._exit`)."""
    bot = tmp_path / "quits.py"
    end = "sys.exit(4)" if jobs == "1" else "os._exit(3)"
    bot.write_text(
        f"import os, sys\nfrom cardarena_sdk import Bot\n\n\nclass Quits(Bot):\n"
        f"    def choose(self, view, legal):\n        {end}\n"
    )
    done = _cli("--game", "glaves", "--players", "2", "--bots", f"random,{bot}", "--jobs", jobs, timeout=120)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_starts_no_process_and_sends_redis_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In this process, with every way to start a process or reach Redis made to fail: the
    run (one job) needs none of them."""
    import redis
    from cardarena.cli import main

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"started or connected: {args[:2]}")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    monkeypatch.setattr(os, "fork", refuse)
    monkeypatch.setattr(redis.Redis, "execute_command", refuse)
    args = ["--game", "glaves", "--players", "2", "--bots", "heuristic,random", "--seed", "1", "--json"]
    assert main(["tournament", "run", "--in-process", *args]) == 0
    assert [r["bot"] for r in json.loads(capsys.readouterr().out)["standings"]] == ["heuristic-1", "random-1"]


def test_sigterm_stops_the_run_and_its_worker_processes() -> None:
    """SIGTERM (as Ctrl-C) ends the run with status 130 and one line, its workers with it."""
    import signal
    import time

    args = ["--game", "glaves", "--players", "2", "--bots", "heuristic,random", "--deal-sets", "500", "--jobs", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardarena.cli", "tournament", "run", "--in-process", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    children: set[int] = set()
    deadline = time.monotonic() + 60
    while len(children) < 2 and time.monotonic() < deadline:
        children = _children(proc.pid)
        time.sleep(0.1)
    assert len(children) >= 2, "no worker processes started"
    time.sleep(1.5)  # the workers are playing
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted: in-process run stopped after" in err and out == ""
    assert "Traceback" not in err
    # the workers are gone (multiprocessing's resource tracker follows its parent a moment later)
    deadline = time.monotonic() + 10
    while [c for c in children if Path(f"/proc/{c}").exists()] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [c for c in children if Path(f"/proc/{c}").exists()]


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from ``/proc``)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def test_interrupted_while_workers_start_stops_the_started_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C or SIGTERM that lands while the worker processes are still being started (a
    loaded machine: spawning takes a while) ends the run with that interruption: the workers
    already started are stopped and joined, those never started are left alone (joining one
    raised ``AssertionError: can only join a started process``, a traceback instead of the
    one-line "interrupted")."""
    import multiprocessing.context

    from cardarena_tournament import inprocess

    t = lifecycle.new_tournament(
        game="glaves",
        players=2,
        entrants=["heuristic-1", "random-2"],
        deal_sets=4,
        seed=5,
        tid=tournament_id(5),
        name="interrupted",
    )
    rules = inprocess.Rules.of(t, [("heuristic", "heuristic-1"), ("random", "random-2")])
    started: list[Any] = []
    real_start = multiprocessing.context.SpawnProcess.start

    def start(self: Any) -> None:
        if started:  # the signal arrives as the second worker is being started
            raise KeyboardInterrupt
        real_start(self)
        started.append(self)

    monkeypatch.setattr(multiprocessing.context.SpawnProcess, "start", start)
    with pytest.raises(KeyboardInterrupt):
        inprocess.play(rules, lifecycle.expand(t), jobs=3)
    assert len(started) == 1 and started[0].exitcode is not None  # stopped and joined, not left running
