"""No match runs for ever: the action limit (``FaultPolicy.max_actions``).

Found in Gleek: two bots that always raised the ruff never finished a match, and nothing in
the platform stopped it (every move is quick, so the clocks never do): the match, and its
tournament, ran for ever.  Here a game whose raises have no cap (``tests/plugin/
cardarena_test_raises.py``) is played by bots that always raise: over real gRPC on loopback
with real Redis, the service stops the match at its limit, records it once as a no contest
(``aborted: action_limit``) with its replay, tells the bots, logs an ERROR line, counts it, and
never plays it again; a tournament with such matches (real service, Celery worker and beat,
bot processes) finishes with them in nobody's standing; the SDK's local mode, ``simulate`` and
``match`` stop too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cardarena.cli import main
from cardarena.engine import ActionLimitReached, MatchRng, play_match, random_policy, rerun, rerun_from_seed
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore
from cardarena.store.tournaments import TournamentStore
from cardarena_sdk import Bot
from cardarena_sdk.bot import LegalAction, MatchResult, builtin_bot

from .conftest import RAISES_GAME
from .server_harness import SLOW_CLOCK, ScriptedBot, ServiceProcess
from .test_server_metrics import free_port, scrape, value
from .tournament_fixtures import WorkerProcess, tournament_report, wait_for

RAISE = "raise"


def test_a_match_that_loops_is_stopped_at_its_action_limit_and_recorded_once_as_a_no_contest(
    raises_site: Path, redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    port = free_port()
    log = tmp_path / "service.log"
    service = ServiceProcess(redis_url, "--metrics-port", str(port), "--grace", "0", log=log)
    client = client_for(redis_url)
    matches, bots = MatchStore(client), BotStore(client)
    alice = ScriptedBot(service.address, bots.register("alice"), "alice")
    bob = ScriptedBot(service.address, bots.register("bob"), "bob")
    try:
        for bot in (alice, bob):
            bot.expect("welcome")
            bot.autoplay(choose=lambda request: RAISE)  # the stubborn bots: raise whenever asked
        policy = FaultPolicy(join_timeout_ms=5000, max_actions=40)
        spec = MatchSpec("loop", RAISES_GAME, 2, ("alice", "bob"), seed=7, time_control=SLOW_CLOCK, fault_policy=policy)
        matches.enqueue(spec)

        for bot in (alice, bob):  # every bot is told how it ended: no scores, no places
            end = bot.expect("match_end", timeout=60)
            assert (end.match_id, end.status, list(end.scores), list(end.ranks)) == ("loop", "aborted", [], [])
            assert end.reason.startswith("action_limit: the match did not end within its 40 actions")
        info = matches.info("loop")
        assert (info["status"], info["attempts"]) == ("done", "1")
        result = matches.result("loop")
        assert result is not None
        assert (result["aborted"], result["actions"], result["scores"], result["ranks"]) == (
            "action_limit",
            40,
            [0.0, 0.0],
            [1, 1],
        )
        assert (result["forfeited"], result["no_show"], result["strikes"]) == ([], [], [0, 0])

        # The replay is kept, so the designer sees the loop: the match as far as it went.
        replay = matches.replay("loop")
        assert replay is not None and replay["result"] is None and replay["aborted"] == "action_limit"
        assert replay["fault_policy"]["max_actions"] == 40
        (deal,) = replay["deals"]
        assert [a["action"] for a in deal["actions"]] == [RAISE] * 40
        assert not rerun(replay).is_terminal() and not rerun_from_seed(replay).is_terminal()

        # Recorded once, never played again: one result event, nothing queued or running, a
        # second later still claimed once.
        time.sleep(1.0)
        assert matches.attempts("loop") == 1 and matches.status("loop") == "done"
        assert client.xlen(matches.STREAM) == 1
        assert client.llen(matches.QUEUE) == 0 and not client.sismember(matches.RUNNING, "loop")
        assert [bots.get(n).stats["matches"] for n in ("alice", "bob")] == [1, 1]  # type: ignore[union-attr]

        samples = scrape(port)
        assert value(samples, "cardarena_matches_total", status="aborted") == 1
        assert value(samples, "cardarena_matches_total", status="completed") == 0
        assert value(samples, "cardarena_matches_total", status="voided") == 0
    finally:
        alice.close()
        bob.close()
        service.stop()
        client.close()
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    (aborted,) = [line for line in lines if line.get("event") == "match_aborted"]
    assert aborted["level"] == "error"
    assert (aborted["match_id"], aborted["game"], aborted["actions"]) == ("loop", RAISES_GAME, 40)


class Raiser(Bot):
    """Raises whenever it may; remembers how its matches ended."""

    def __init__(self) -> None:
        self.ends: list[tuple[str, list[float], list[int]]] = []
        self.results: list[MatchResult] = []

    def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
        return next((a.id for a in legal if a.id == RAISE), legal[0].id)

    def on_match_end(self, match_id: str, status: str, scores: list[float], ranks: list[int]) -> None:
        self.ends.append((status, scores, ranks))

    def on_result(self, result: MatchResult) -> None:
        self.results.append(result)


def test_local_play_stops_a_looping_match_as_the_service_does(
    raises_site: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The SDK's local mode (``local.play``, ``play_match``: ``tournament run --in-process``)
    used to play such a match for ever."""
    from cardarena_sdk import local

    bot = Raiser()
    table = local.play_match(RAISES_GAME, [bot, bot], 3, match_id="m", max_actions=30)
    assert (table.aborted, table.scores, table.ranks, table.won) == ("action_limit", (0.0, 0.0), (1, 1), None)
    assert bot.ends == [("aborted", [], [])]
    (result,) = bot.results
    assert (result.status, result.seats, result.place) == ("aborted", (0, 1), None)
    assert result.reason.startswith("action_limit: the match did not end within its 30 actions")
    assert "match m (test_raises, seed 3) aborted: action_limit" in caplog.text

    (mine,) = local.play(Raiser(), RAISES_GAME, 2, opponents=[Raiser()], max_actions=30, replays=tmp_path)
    assert mine.aborted == "action_limit" and mine.ranks == (1, 1)
    replay = json.loads(Path(mine.replay).read_text())
    assert replay["result"] is None and replay["aborted"] == "action_limit"
    assert len(replay["deals"][0]["actions"]) == 30
    with pytest.raises(ValueError, match="max_actions must be at least 1"):
        local.play_match(RAISES_GAME, [bot, bot], 3, max_actions=0)

    ended = local.play_match(RAISES_GAME, [builtin_bot("random", "r")] * 2, 3, max_actions=30)
    assert ended.aborted == ""  # random play calls or folds soon enough


def test_simulate_and_the_engine_driver_stop_at_the_action_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cardarena simulate`` plays random bots with the engine's driver (``play_match``): a
    game that loops under them hung it.  It stops with an error naming the match, and keeps
    the replay so far."""
    bots = [random_policy(MatchRng(s)) for s in range(2)]
    with pytest.raises(ActionLimitReached, match=r"has not ended after 5 actions") as stopped:
        play_match("glaves", 2, bots, seed=1, max_actions=5)
    assert not stopped.value.state.is_terminal()

    assert main(["simulate", "glaves", "--max-actions", "12", "--replays", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("cardarena: error: match 1: Glaves: the match (seed ")
    assert "has not ended after 12 actions (--max-actions): the game may loop" in err
    replay = json.loads((tmp_path / "glaves-00001.json").read_text())
    assert replay["result"] is None and sum(len(d["actions"]) for d in replay["deals"]) == 12
    assert main(["simulate", "glaves", "--matches", "2"]) == 0  # the default limit: real matches end


RAISER = """
from cardarena_sdk import Bot


class Raiser(Bot):
    def choose(self, view, legal):
        return next((a.id for a in legal if a.id == "raise"), legal[0].id)
"""
CALLER = """
from cardarena_sdk import Bot


class Caller(Bot):
    def choose(self, view, legal):
        return next((a.id for a in legal if a.id == "call"), legal[0].id)
"""


def test_a_tournament_with_looping_matches_finishes_with_them_in_nobodys_standing(
    raises_site: Path, redis_url: str, key_prefix: str, tmp_path: Path, processes: list[WorkerProcess]
) -> None:
    """Two bots that always raise, and one that calls, in a round robin of a game with no cap
    on raises: the raisers' matches against each other loop (the tournament never finished),
    now they are stopped at the tournament's ``max_actions``, counted as no contests, rated for
    nobody, and the tournament finishes; ``tournament status`` and the dashboard say why."""
    from cardarena.server.commands import stop_process
    from cardarena_dashboard.app import create_app

    from .test_tournament_cli import _cli

    env = {"REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    (tmp_path / "raiser.py").write_text(RAISER)
    (tmp_path / "caller.py").write_text(CALLER)
    client = client_for(redis_url)
    bots, ts, ms = BotStore(client), TournamentStore(client), MatchStore(client)
    kinds = {"raiser-a": "raiser.py", "raiser-b": "raiser.py", "caller": "caller.py"}
    tokens = {name: bots.register(name) for name in kinds}
    service = ServiceProcess(redis_url, "--grace", "0")
    players = [service.bot_process(str(tmp_path / kind), name, tokens[name]) for name, kind in kinds.items()]
    try:
        for args in (("worker", "--pool", "threads", "--concurrency", "2"), ("beat", "--state", f"/tmp/{key_prefix}b")):
            processes.append(WorkerProcess(redis_url, key_prefix, *args, "--loglevel", "WARNING").start())
        done = _cli(
            "tournament", "create", "--game", RAISES_GAME, "--players", "2", "--bots", ",".join(kinds),
            "--fault-policy", '{"max_actions": 60}', "--name", "Raises", env=env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        (t,) = ts.list()
        wait_for(
            lambda: ts.require(t.id).status == "finished",
            180,
            "the tournament to finish",
            report=lambda: tournament_report(ts, ms, t.id, workers=processes),
        )
    finally:
        for proc in players:
            stop_process(proc)
        service.stop()
    t = ts.require(t.id)
    assert t.counted == t.total_matches == 6
    results = ts.results(t.id)
    looped = sorted(mid for mid, r in results.items() if r.get("aborted"))
    assert len(looped) == 2  # raiser-a v raiser-b, in both seatings
    for mid in looped:
        assert set(results[mid]["seats"]) == {"raiser-a", "raiser-b"} and results[mid]["aborted"] == "action_limit"
        assert ms.attempts(mid) == 1
    # Out of the standings: each raiser counts its two matches against the caller only.
    rows = {row["bot"]: row for row in (ts.standings(t.id) or {})["rows"]}
    assert {bot: rows[bot]["matches"] for bot in kinds} == {"raiser-a": 2, "raiser-b": 2, "caller": 4}
    assert not any(rows[bot].get("absent") for bot in kinds)  # they came: not absent
    ratings = ts.ratings(RAISES_GAME)
    assert {bot: ratings[bot]["matches"] for bot in kinds} == {"raiser-a": 2, "raiser-b": 2, "caller": 4}

    status = _cli("tournament", "status", t.id, env=env)
    lines = status.stdout.splitlines()
    assert "aborted: 2 matches stopped at the action limit (fault policy max_actions): no contests" in status.stdout
    assert all(f"  {mid}: action_limit" in lines for mid in looped)
    as_json = json.loads(_cli("tournament", "status", t.id, "--json", env=env).stdout)
    assert as_json["aborted"] == dict.fromkeys(looped, "action_limit")

    web = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()
    page = web.get(f"/tournaments/{t.id}").get_data(as_text=True)
    note = page.split('id="aborted-matches"', 1)[1].split("</p>", 1)[0]
    assert "2 matches stopped at the action limit" in note and all(mid in note for mid in looped)
    match = web.get(f"/matches/{looped[0]}").get_data(as_text=True)
    assert 'id="aborted"' in match and "did not end within its 60 actions" in match
    bot_page = web.get("/bots/raiser-a").get_data(as_text=True)
    assert bot_page.count(">aborted: no contest</span>") == 2
    client.close()


def test_the_match_command_leaves_aborted_matches_out_of_its_summary(redis_url: str, key_prefix: str) -> None:
    """``cardarena match`` over the real service: a limit below any Glaves match stops each one;
    the summary says so instead of counting them as draws."""
    argv = [sys.executable, "-m", "cardarena.server", "match", "glaves", "--bots", "random,random"]
    argv += ["--matches", "2", "--max-actions", "6"]
    done = subprocess.run(argv, env={**os.environ, "REDIS_URL": redis_url}, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    aborted = [line for line in done.stdout.splitlines() if line.startswith("aborted: ")]
    assert len(aborted) == 1 and aborted[0].startswith("aborted: 2 matches stopped at the action limit (6 actions")


def test_the_limit_is_checked_and_a_spec_with_the_default_one_is_stored_as_before() -> None:
    """A service instance of the release before (a rolling upgrade) builds ``FaultPolicy``
    from the stored spec and refuses fields it does not know: a match with the default limit
    is stored without ``max_actions``, so it still plays it."""
    spec = MatchSpec("m", "glaves", 2, ("a", "b"), seed=1)
    stored = spec.to_json()
    assert set(stored["fault_policy"]) == {
        "default_action",
        "max_strikes",
        "max_rejections",
        "join_timeout_ms",
        "no_show_attempts",
    }
    assert MatchSpec.from_json(stored) == spec and spec.fault_policy.max_actions == 100_000
    limited = MatchSpec("m", "glaves", 2, ("a", "b"), seed=1, fault_policy=FaultPolicy(max_actions=50))
    assert MatchSpec.from_json(json.loads(json.dumps(limited.to_json()))) == limited
    assert FaultPolicy.checked({"max_actions": 7}).max_actions == 7
    for bad in (0, -1, 1.5, "9"):
        with pytest.raises(ValueError, match="max_actions"):
            FaultPolicy.checked({"max_actions": bad})
