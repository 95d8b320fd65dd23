"""Whole tournaments with a real Redis, real Celery worker and beat subprocesses, and the
local match player standing in for the service."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cardarena.engine import games, rerun
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchStore
from cardarena.store.tournaments import TournamentStore
from cardarena_tournament import lifecycle

from .tournament_fixtures import LocalMatchPlayer, WorkerProcess, tournament_report, wait_for


@pytest.fixture
def stores(redis_url: str, key_prefix: str) -> Iterator[tuple[TournamentStore, MatchStore]]:
    client = client_for(redis_url)
    yield TournamentStore(client), MatchStore(client)
    client.close()


def _spawn(processes: list[WorkerProcess], redis_url: str, prefix: str, *args: str) -> WorkerProcess:
    p = WorkerProcess(redis_url, prefix, *args).start()
    processes.append(p)
    return p


def _worker_args(name: str) -> tuple[str, ...]:
    return ("worker", "--pool", "threads", "--concurrency", "2", "--hostname", f"{name}@%h", "--loglevel", "WARNING")


def _create(ts: TournamentStore, bots: list[str], players: int, deal_sets: int) -> str:
    # a fixed seed: the stand-in players are deterministic too, so the outcome is reproducible
    t = lifecycle.new_tournament(
        game="glaves", players=players, entrants=bots, deal_sets=deal_sets, options={"deals": 1}, seed="s0", tid="t"
    )
    ts.create(t)
    return t.id


def test_whole_tournament_heuristic_beats_random(
    stores: tuple[TournamentStore, MatchStore], redis_url: str, key_prefix: str, processes: list[WorkerProcess]
) -> None:
    ts, ms = stores
    bots = ["random-1", "random-2", "heuristic-1", "heuristic-2"]
    tid = _create(ts, bots, 3, 2)
    _spawn(processes, redis_url, key_prefix, *_worker_args("w1"))
    _spawn(processes, redis_url, key_prefix, "beat", "--loglevel", "WARNING", "--state", f"/tmp/{key_prefix}beat")
    from cardarena_tournament.celery_app import make_app

    with LocalMatchPlayer(redis_url, key_prefix, threads=2) as player:
        app = make_app(redis_url)
        app.send_task("cardarena_tournament.tasks.start_tournament", args=[tid])
        wait_for(
            lambda: ts.require(tid).status == "finished",
            120,
            "the tournament to finish",
            report=lambda: tournament_report(ts, ms, tid, workers=processes, players=[player]),
        )
    t = ts.require(tid)
    assert t.counted == t.total_matches == 4 * 6 * 2
    matches = ts.matches(tid)
    assert all(m["counted"] for m in matches)
    pairs = Counter(frozenset((a, b)) for m in matches for a in m["seats"] for b in m["seats"] if a < b)
    assert len(set(pairs.values())) == 1 and len(pairs) == 6
    seats = Counter((bot, s) for m in matches for s, bot in enumerate(m["seats"]))
    assert len(set(seats.values())) == 1
    wait_for(lambda: (ts.standings(tid) or {}).get("status") == "finished", 10, "the final standings")
    snap = ts.standings(tid)
    assert snap is not None
    rows = snap["rows"]
    assert {r["bot"] for r in rows[:2]} == {"heuristic-1", "heuristic-2"}
    assert rows[1]["separated_from_next"] is True
    assert all(r["rating"] is not None for r in rows)
    assert len(ts.rating_history("random-1", "glaves")) == 36
    # results carry per-deal scores through to the standings, which compare deal by deal
    assert snap["metric"] == "deal_margin"
    assert all(m["result"]["deal_scores"] == [m["result"]["scores"]] for m in matches)  # one-deal matches


def test_worker_killed_mid_tournament_loses_nothing(
    stores: tuple[TournamentStore, MatchStore], redis_url: str, key_prefix: str, processes: list[WorkerProcess]
) -> None:
    ts, ms = stores
    bots = ["random-1", "random-2", "random-3", "heuristic-1"]
    tid = _create(ts, bots, 2, 6)
    worker = _spawn(processes, redis_url, key_prefix, *_worker_args("w1"))
    _spawn(processes, redis_url, key_prefix, "beat", "--loglevel", "WARNING", "--state", f"/tmp/{key_prefix}beat")
    from cardarena_tournament.celery_app import make_app

    make_app(redis_url).send_task("cardarena_tournament.tasks.start_tournament", args=[tid])
    with LocalMatchPlayer(redis_url, key_prefix) as player:
        wait_for(lambda: ts.require(tid).counted >= 10, 60, "some matches counted")
        worker.kill(signal.SIGKILL)  # kill -9 of the worker (its whole process group)
        time.sleep(1.0)  # matches keep completing while no worker counts them
        _spawn(processes, redis_url, key_prefix, *_worker_args("w2"))
        wait_for(
            lambda: ts.require(tid).status == "finished",
            120,
            "the tournament to finish",
            report=lambda: tournament_report(ts, ms, tid, workers=processes, players=[player]),
        )
    t = ts.require(tid)
    assert t.counted == t.total_matches == len(ts.results(tid)) == 6 * 2 * 6
    assert sorted(player.played) == sorted(m["match_id"] for m in ts.matches(tid))
    history = [p["match_id"] for b in bots for p in ts.rating_history(b, "glaves")]
    assert len(history) == 2 * t.total_matches  # every match rated once per seat, none twice


FAIL_ONCE = """
import os

if os.environ.get("CARDARENA_TEST_FAIL_ONCE"):
    from celery import bootsteps
    from cardarena_tournament.celery_app import app

    class FailOnce(bootsteps.StartStopStep):
        # Stands in for kombu's crash on a lost broker: the first worker fails as it starts.
        def start(self, parent):
            marker = os.environ["CARDARENA_TEST_FAIL_ONCE"]
            if not os.path.exists(marker):
                open(marker, "w").close()
                raise RuntimeError("simulated unrecoverable broker error")

    app.steps["worker"].add(FailOnce)
"""


def test_a_worker_that_celery_stops_with_an_error_is_restarted(
    stores: tuple[TournamentStore, MatchStore], redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """Celery stops a worker whose bootstep raises with an "Unrecoverable error" and status 1,
    as it does when kombu fails on a lost Redis.  ``cardarena worker`` must pass that status to
    its supervisor, which starts a fresh worker; before, the child exited 0 and the
    supervisor, taking it for a requested stop, ended with no worker left."""
    ts, _ = stores
    from cardarena_tournament.celery_app import make_app

    (tmp_path / "sitecustomize.py").write_text(FAIL_ONCE)
    marker = tmp_path / "failed-once"
    log = tmp_path / "worker.log"
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "CARDARENA_PREFIX": key_prefix,
        "CARDARENA_TEST_FAIL_ONCE": str(marker),
        "PYTHONPATH": os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH", "")) if p),
    }
    argv = [sys.executable, "-m", "cardarena.cli", *_worker_args("phoenix")]
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=out, start_new_session=True)
    try:
        app = make_app(redis_url)
        host = f"worker:phoenix@{socket.gethostname()}"

        def consumed() -> bool:
            app.send_task("cardarena_tournament.tasks.heartbeat")
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                if ts.last_beat(host) is not None:
                    return True
                time.sleep(0.1)
            return proc.poll() is not None  # a supervisor that gave up: stop waiting

        wait_for(consumed, 90, "a worker to consume a task")
        text = log.read_text()
        assert marker.exists() and "Unrecoverable error" in text, text[-2000:]
        assert proc.poll() is None, f"the supervisor ended (status {proc.returncode}): {text[-2000:]}"
        assert "celery worker exited with status 1; restarting" in text
        assert ts.last_beat(host) is not None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_scheduled_tournament_starts_on_its_own_across_beat_restart(
    stores: tuple[TournamentStore, MatchStore], redis_url: str, key_prefix: str, processes: list[WorkerProcess]
) -> None:
    ts, _ = stores
    template = {
        "game": "glaves",
        "players": 2,
        "entrants": ["random-1", "random-2"],
        "deal_sets": 1,
        "options": {"deals": 1},
    }
    s = lifecycle.create_schedule(ts, "every 3s", template, now=time.time())
    _spawn(processes, redis_url, key_prefix, *_worker_args("w1"))
    beat = _spawn(
        processes, redis_url, key_prefix, "beat", "--loglevel", "WARNING", "--state", f"/tmp/{key_prefix}beat"
    )
    with LocalMatchPlayer(redis_url, key_prefix):
        wait_for(lambda: len(ts.list("finished")) >= 1, 60, "the first scheduled run to finish")
        beat.kill(signal.SIGKILL)
        first = {t.id for t in ts.list()}
        _spawn(processes, redis_url, key_prefix, "beat", "--loglevel", "WARNING", "--state", f"/tmp/{key_prefix}beat")
        wait_for(lambda: len({t.id for t in ts.list("finished")} - first) >= 1, 60, "a run after the beat restart")
    runs = ts.list()
    assert all(t.schedule_id == s.id and t.id.startswith(f"{s.id}-") for t in runs)
    assert len({t.id for t in runs}) == len(runs)
    next_run = ts.next_run(s.id)
    assert next_run is not None and next_run > time.time() - 3.5


def test_solitaire_tournament_same_seeds_mean_ci_and_win_rate(
    stores: tuple[TournamentStore, MatchStore], redis_url: str, key_prefix: str, processes: list[WorkerProcess]
) -> None:
    ts, ms = stores
    game = next(g for g in games().values() if g.solitaire)  # any solitaire, through the registry
    bots = ["random-1", "heuristic-1", "heuristic-2"]
    deal_sets = 6
    t = lifecycle.new_tournament(game=game.id, players=1, entrants=bots, deal_sets=deal_sets, seed="s0", tid="sol")
    ts.create(t)
    _spawn(processes, redis_url, key_prefix, *_worker_args("w1"))
    _spawn(processes, redis_url, key_prefix, "beat", "--loglevel", "WARNING", "--state", f"/tmp/{key_prefix}beat")
    from cardarena_tournament.celery_app import make_app

    with LocalMatchPlayer(redis_url, key_prefix, threads=2) as player:
        make_app(redis_url).send_task("cardarena_tournament.tasks.start_tournament", args=[t.id])
        wait_for(
            lambda: ts.require(t.id).status == "finished",
            120,
            "the solitaire tournament to finish",
            report=lambda: tournament_report(ts, ms, t.id, workers=processes, players=[player]),
        )
    wait_for(lambda: (ts.standings(t.id) or {}).get("status") == "finished", 10, "the final standings")
    matches = ts.matches(t.id)
    assert len(matches) == ts.require(t.id).counted == len(bots) * deal_sets
    # every entrant played the same seeds: one per deal set, all bots on each
    seeds: dict[str, set[int]] = {b: set() for b in bots}
    by_deal: dict[str, set[int]] = {}
    for m in matches:
        assert len(m["seats"]) == 1 and m["counted"]
        seeds[m["seats"][0]].add(m["seed"])
        by_deal.setdefault(m["deal_set"], set()).add(m["seed"])
    assert all(len(s) == 1 for s in by_deal.values()) and len(by_deal) == deal_sets
    assert seeds["random-1"] == seeds["heuristic-1"] == seeds["heuristic-2"] and len(seeds["random-1"]) == deal_sets
    # the recorded results carry the engine's ``won``, the same as re-running the stored replay
    results = ts.results(t.id)
    for m in matches:
        stored = ms.result(m["match_id"])
        assert stored is not None and stored["won"] == results[m["match_id"]]["won"]
        replay = ms.replay(m["match_id"])
        assert replay is not None and replay["result"]["won"] == stored["won"]
        assert rerun(replay).result().won == tuple(stored["won"])
    snap = ts.standings(t.id)
    assert snap is not None and snap["metric"] == "score"
    for row in snap["rows"]:
        mine = [results[m["match_id"]] for m in matches if m["seats"] == [row["bot"]]]
        scores = [r["scores"][0] for r in mine]
        wins = sum(bool(r["won"][0]) for r in mine)
        assert row["matches"] == len(mine) == deal_sets
        assert row["mean"] == pytest.approx(sum(scores) / len(scores))  # one match per deal set
        assert row["ci_low"] <= row["mean"] <= row["ci_high"]
        assert row["win_rate"] == pytest.approx(wins / len(mine))
        assert (row["wins"], row["losses"]) == (wins, len(mine) - wins)


def test_beat_sends_its_sweeps_with_an_expiry(redis_url: str, key_prefix: str, tmp_path: Path) -> None:
    """With no worker up, beat's periodic sweeps (two a second) would pile up in the broker and
    all run when a worker comes back: they carry an expiry instead (the heartbeat does not: the
    watchdog reads it)."""
    import json

    from cardarena.store.connection import client_for

    beat = WorkerProcess(redis_url, key_prefix, "beat", "--state", str(tmp_path / "beat"), "--loglevel", "WARNING")
    beat.start()
    client = client_for(redis_url)
    try:
        queue = f"{key_prefix}celery:celery"
        wait_for(lambda: client.llen(queue) >= 8, 60, "beat to queue a few sweeps")
    finally:
        beat.kill()
    sent = [json.loads(raw) for raw in client.lrange(queue, 0, -1)]
    expiring = {m["headers"]["task"].rsplit(".", 1)[1]: m["headers"].get("expires") for m in sent}
    assert {"consume_results", "start_due_schedules"} <= set(expiring), expiring
    for task in ("consume_results", "start_due_schedules", "reconcile"):
        if task in expiring:
            assert expiring[task], task
    assert expiring.get("heartbeat") is None
    client.close()


def _beat_origins(client: Any, queue: str, since: int = 0) -> set[str]:
    """The pids of the processes that sent the messages pushed to ``queue`` after it held
    ``since`` (kombu pushes at the head; Celery stamps each message's ``origin`` as
    ``gen<pid>@<host>``)."""
    import json

    new = client.lrange(queue, 0, client.llen(queue) - since - 1)
    return {json.loads(raw)["headers"]["origin"].split("@")[0].removeprefix("gen") for raw in new}


def test_a_second_beat_stands_by_and_takes_over(redis_url: str, key_prefix: str, tmp_path: Path) -> None:
    """Two beats on one deployment: only the one holding the beat lease sends; the other says
    in its log that it stands by, and sends once the leader is killed (the lease lapses);
    a leader stopped cleanly gives the lease up at once."""
    client = client_for(redis_url)
    queue, lease = f"{key_prefix}celery:celery", f"{key_prefix}beat:leader"
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix, "CARDARENA_TICK_S": "0.3"}
    env["CARDARENA_BEAT_LEASE_S"] = "2"
    beats: list[subprocess.Popen[bytes]] = []

    def start(name: str) -> tuple[subprocess.Popen[bytes], Path]:
        log = tmp_path / f"{name}.log"
        with log.open("wb") as out:
            argv = [sys.executable, "-m", "cardarena.cli", "beat", "--no-supervise", "--state", str(tmp_path / name)]
            beats.append(subprocess.Popen(argv, env=env, stdout=out, stderr=out, start_new_session=True))
        return beats[-1], log

    try:
        first, _ = start("first")
        wait_for(lambda: client.llen(queue) >= 3, 60, "the first beat to send")
        assert (client.get(lease) or b"").decode().split(":")[1] == str(first.pid)
        second, second_log = start("second")
        wait_for(lambda: "stands by" in second_log.read_text(), 60, "the second beat to say it stands by")
        assert str(first.pid) in second_log.read_text()  # it names the leader
        mark = client.llen(queue)
        time.sleep(2.0)
        assert client.llen(queue) > mark
        assert _beat_origins(client, queue, mark) == {str(first.pid)}

        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
        taken = lambda: str(second.pid) in (client.get(lease) or b"").decode()  # noqa: E731
        wait_for(taken, 30, "the second beat to take the lease")
        mark = client.llen(queue)
        wait_for(lambda: client.llen(queue) >= mark + 3, 30, "the second beat to send")
        assert _beat_origins(client, queue, mark) == {str(second.pid)}

        second.send_signal(signal.SIGTERM)
        second.wait(30)
        assert client.get(lease) is None  # given up on a clean stop, not left to lapse
    finally:
        for p in beats:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        client.close()


def test_the_info_log_is_about_the_work_not_the_sweeps(
    stores: tuple[TournamentStore, MatchStore], redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """At INFO, beat's sweeps (several a second) leave no "sent / received / succeeded" lines
    when they did nothing; a sweep that counted results still logs what it did, and other
    tasks are logged as before."""
    ts, _ = stores
    tid = _create(ts, ["random-1", "random-2"], 2, 1)
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix, "CARDARENA_TICK_S": "0.2"}
    env["CARDARENA_RECONCILE_S"] = "0.5"
    logs = {name: tmp_path / f"{name}.log" for name in ("worker", "beat")}
    cli = [sys.executable, "-m", "cardarena.cli"]
    argvs = {
        "worker": [*cli, "worker", "--no-supervise", "--pool", "threads", "--concurrency", "2", "--loglevel", "INFO"],
        "beat": [*cli, "beat", "--no-supervise", "--state", str(tmp_path / "beat"), "--loglevel", "INFO"],
    }
    procs = []
    try:
        for name, argv in argvs.items():
            with logs[name].open("wb") as out:
                procs.append(subprocess.Popen(argv, env=env, stdout=out, stderr=out, start_new_session=True))
        from cardarena_tournament.celery_app import make_app

        with LocalMatchPlayer(redis_url, key_prefix, threads=2):
            make_app(redis_url).send_task("cardarena_tournament.tasks.start_tournament", args=[tid])
            wait_for(lambda: ts.require(tid).status == "finished", 120, "the tournament to finish")
        time.sleep(3)  # a few more idle ticks (15 sweeps) after the work is done
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
            p.wait(30)
    # log records only (the worker's banner lists every registered task)
    worker, beat = ("\n".join(ln for ln in logs[n].read_text().splitlines() if ln.startswith("[")) for n in logs)
    assert "start_tournament" in worker and "received" in worker  # other tasks: as before
    sweeps = ("consume_results", "start_due_schedules", "reconcile", "heartbeat")
    lines = [line for line in worker.splitlines() if any(f"tasks.{sweep}[" in line for sweep in sweeps)]
    assert any("consume_results" in line for line in lines), worker  # it counted the results
    for line in lines:  # each one says what its sweep did
        assert "succeeded" in line, line
        done = line.rsplit("s: ", 1)[1]
        assert done not in ("0", "[]", "None") and set(re.findall(r": (\d+)", done)) != {"0"}, line
    assert len(lines) < 10  # of over 60 sweeps run
    assert not any(sweep in beat for sweep in sweeps)
    assert "Sending due task" not in beat and "beat: leading" in beat


@pytest.mark.parametrize(
    ("role", "setting", "value"),
    [
        ("beat", "CARDARENA_PRUNE_S", "1h"),
        ("beat", "CARDARENA_TICK_S", "0"),
        ("beat", "CARDARENA_BEAT_LEASE_S", "ten"),
        ("worker", "CARDARENA_WATCHDOG_STALE_S", "-5"),
        ("worker", "CARDARENA_REPLAY_RETENTION_DAYS", "28d"),
        ("worker", "CARDARENA_NOTIFY_BACKOFF_S", "1m"),
        ("worker", "CARDARENA_PUBLIC_URL", "arena.example.org"),
        ("worker", "CARDARENA_NOTIFY_DEADLINE_S", "600"),
        ("worker", "CARDARENA_NOTIFY_ALLOW_INTERNAL", "http://10.0.0.5"),
    ],
)
def test_worker_and_beat_refuse_a_bad_setting_in_one_line(role: str, setting: str, value: str) -> None:
    """A period that is not a number of seconds (``1h``) used to end beat with a traceback, 0
    made it send without pause, and a bad retention let the worker start, then log an error
    once an hour and never drop a replay: each is now refused before anything starts (and so
    are the notifications' settings, which the worker reads when a tournament ends)."""
    env = {**os.environ, "REDIS_URL": "redis://127.0.0.1:1/0", setting: value}
    env.pop("CARDARENA_PREFIX", None)
    out = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", role, "--no-supervise"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 2, out.stderr
    wanted = {
        "CARDARENA_PUBLIC_URL": "must be the dashboard's address",
        "CARDARENA_NOTIFY_ALLOW_INTERNAL": "must list networks",
    }.get(setting, "must be a number of ")
    assert out.stderr.startswith(f"cardarena: error: {setting} {wanted}") and "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and repr(value) in out.stderr
