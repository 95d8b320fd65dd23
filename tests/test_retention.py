"""Retention (``cardarena.store.retention``, ``cardarena prune``, the ``prune`` task) on a real
Redis: tournaments played with the engine, completed through ``MatchStore`` and counted by
``lifecycle.consume_results`` (the results stream's real consumer group)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import redis
from cardarena.store import retention
from cardarena.store.connection import client_for
from cardarena.store.keys import key
from cardarena.store.matches import MatchStore
from cardarena.store.tournaments import TournamentStore
from cardarena_dashboard import create_app
from cardarena_tournament import lifecycle
from flask.testing import FlaskClient

from .tournament_fixtures import play_spec

DAY = 86400.0
BOTS = ["ann", "bob", "cy"]


@pytest.fixture
def client(redis_url: str, key_prefix: str) -> Iterator[redis.Redis]:
    c = client_for(redis_url)
    yield c
    c.close()


def _stores(client: redis.Redis) -> tuple[TournamentStore, MatchStore]:
    return TournamentStore(client), MatchStore(client)


def _play(client: redis.Redis, tid: str, *, leave: int = 0) -> list[str]:
    """Create and start a 3-bot, 2-player Glaves round robin (one deal per match: 6 matches),
    play all but ``leave`` of them with the engine, and count them through the stream."""
    ts, ms = _stores(client)
    ts.create(
        lifecycle.new_tournament(game="glaves", players=2, entrants=BOTS, deal_sets=1, tid=tid, options={"deals": 1})
    )
    lifecycle.start_tournament(ts, ms, tid)
    ids = [m["match_id"] for m in ts.schedule_of(tid)]
    for _ in range(len(ids) - leave):
        spec = ms.claim("test", wait_s=0.5)
        assert spec is not None and spec.tournament == tid
        result, replay = play_spec(spec)
        assert ms.complete(spec.match_id, "test", result, replay, tournament=tid)
    lifecycle.consume_results(ts, ms, "test-consumer")
    return ids


def _durable(client: redis.Redis) -> dict[Any, Any]:
    """Every key of the deployment that does not lapse by itself, with its value: the keys
    with a TTL (the standings turn the count just held, a few seconds) may expire between two
    reads whatever prune does, and a key that prune gave a TTL drops out of this."""
    return {k: client.dump(k) for k in sorted(client.scan_iter(match=key("*"))) if client.pttl(k) == -1}


def _age(client: redis.Redis, tid: str, days: float) -> None:
    """Move a tournament and its matches ``days`` into the past (their stored times: created,
    finished, and the match index's scores), as if it had run then."""
    ts, ms = _stores(client)
    shift = days * DAY
    h = key("tournament", tid)
    for name in ("created_at", "started_at", "finished_at"):
        raw = client.hget(h, name)
        if raw:
            client.hset(h, name, float(raw) - shift)
    for m in ts.schedule_of(tid):
        mh = key("match", m["match_id"])
        for name in ("created_at", "finished_at"):
            raw = client.hget(mh, name)
            if raw:
                client.hset(mh, name, float(raw) - shift)
        score = client.zscore(ms.ALL, m["match_id"])
        assert score is not None
        client.zadd(ms.ALL, {m["match_id"]: score - shift})


def _replays(client: redis.Redis, ids: list[str]) -> list[bool]:
    return [bool(client.exists(key("match", mid, "replay"))) for mid in ids]


def _keep_everything_else(client: redis.Redis, tid: str) -> dict[str, Any]:
    """What standings, ratings, result history and the match lists read about ``tid``."""
    ts, ms = _stores(client)
    t = ts.require(tid)
    return {
        "tournament": t.to_json(),
        "standings": ts.standings(tid),
        "results": ts.results(tid),
        "match_ids": ts.match_ids(tid, 0, 100),
        "matches": [
            {k: v for k, v in info.items() if not k.startswith("replay_")}
            for info in ms.infos(ts.match_ids(tid, 0, 100))
        ],
        "history": {b: ts.rating_history(b, "glaves") for b in BOTS},
    }


def test_old_finished_tournament_loses_its_replays_only(client: redis.Redis) -> None:
    old = _play(client, "old")
    _age(client, "old", 40)
    recent = _play(client, "recent")
    _age(client, "recent", 5)
    live = _play(client, "live", leave=2)
    _age(client, "live", 40)  # started long ago and still running: never touched
    ts, _ = _stores(client)
    assert ts.require("old").status == "finished" and ts.require("live").status == "running"
    before = _keep_everything_else(client, "old")
    assert _replays(client, old) == [True] * 6

    report = retention.prune(client, older_than_days=30)

    assert _replays(client, old) == [False] * 6
    assert _replays(client, recent) == [True] * 6
    assert _replays(client, live) == [True] * 4 + [False] * 2  # the 2 unplayed never had one
    assert report.replays == 6 and report.replay_bytes > 6 * 500
    # "live" holds back its 4 replays and its 2 unplayed matches; "recent" was created after the cutoff.
    assert report.kept_live == 6 and report.kept_recent == 0
    after = _keep_everything_else(client, "old")
    assert after == before
    assert len(after["match_ids"]) == 6 and all(m["status"] == "done" and m["result"] for m in after["matches"])
    info = MatchStore(client).info(old[0])
    at, days = info["replay_pruned"].split()
    assert abs(float(at) - time.time()) < 600 and days == "30"


def test_the_period_counts_from_the_end_of_the_tournament(client: redis.Redis) -> None:
    """A long tournament that ended recently keeps even the replays of its early matches."""
    ids = _play(client, "long")
    _, ms = _stores(client)
    for mid in ids:  # its matches were all created and played 60 days ago ...
        client.zadd(ms.ALL, {mid: time.time() - 60 * DAY})
        client.hset(key("match", mid), "finished_at", time.time() - 60 * DAY)
    client.hset(key("tournament", "long"), "finished_at", time.time() - 10 * DAY)  # ... it ended 10 days ago
    report = retention.prune(client, older_than_days=30)
    assert report.replays == 0 and report.kept_recent == 6
    assert _replays(client, ids) == [True] * 6
    assert retention.prune(client, older_than_days=7).replays == 6


def test_dry_run_changes_nothing_and_prune_twice_is_idempotent(client: redis.Redis) -> None:
    ids = _play(client, "old")
    _age(client, "old", 40)
    for m in range(4):  # results the group has not read yet: the stream keeps them
        client.xadd(MatchStore(client).STREAM, {"match_id": f"late-{m}", "tournament": ""})
    dump = _durable(client)

    dry = retention.prune(client, older_than_days=30, dry_run=True)

    assert _durable(client) == dump
    assert dry.dry_run and dry.replays == 6 and dry.replay_bytes > 0
    assert dry.stream.length == 10 and dry.stream.trimmed > 0
    first = retention.prune(client, older_than_days=30)
    assert (first.replays, first.replay_bytes, first.stream.trimmed) == (
        dry.replays,
        dry.replay_bytes,
        dry.stream.trimmed,
    )
    again = retention.prune(client, older_than_days=30)
    assert again.replays == 0 and again.stream.trimmed == 0
    assert again.examined == 0 and again.resumed_after is not None  # the first run's matches are not read again
    assert _replays(client, ids) == [False] * 6
    assert int(client.xlen(MatchStore(client).STREAM)) == 10 - first.stream.trimmed


def test_two_prunes_at_once_drop_each_replay_once(client: redis.Redis, redis_url: str) -> None:
    _play(client, "old")
    _age(client, "old", 40)
    from concurrent.futures import ThreadPoolExecutor

    def one(_: int) -> int:
        c = client_for(redis_url)
        try:
            return retention.prune(c, older_than_days=30, batch=1).replays
        finally:
            c.close()

    live = _play(client, "live", leave=2)
    _age(client, "live", 40)
    with ThreadPoolExecutor(4) as pool:
        assert sum(pool.map(one, range(4))) == 6
    # What they held back is held once, and the next run reads nothing of what they examined.
    assert sorted(client.zrange(retention.held_key("live"), 0, -1)) == sorted(m.encode() for m in live)
    assert _prune_touching(client, 30)[1] == set()
    assert TournamentStore(client).cancel("live")
    client.hset(key("tournament", "live"), "finished_at", time.time() - 31 * DAY)
    with ThreadPoolExecutor(4) as pool:
        assert sum(pool.map(one, range(4))) == 4
    assert _replays(client, live) == [False] * 6 and not client.exists(retention.held_key("live"))


@contextmanager
def _matches_touched(client: redis.Redis) -> Iterator[set[str]]:
    """The match ids whose keys (``match:<id>``, ``match:<id>:replay``) any command named
    while inside, scripts' commands included: Redis ``MONITOR``, read in a thread until a
    marker sent at the end comes through."""
    head, marker = key("match", ""), f"end-of-watch-{uuid.uuid4().hex}"
    touched: set[str] = set()
    with client.monitor() as monitor:

        def read() -> None:
            for command in monitor.listen():
                words = command["command"].split(" ")
                if marker in words:
                    return
                touched.update(w[len(head) :].removesuffix(":replay") for w in words if w.startswith(head))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            yield touched
        finally:
            client.echo(marker)
            reader.join(30)
    assert not reader.is_alive()


def _prune_touching(client: redis.Redis, days: float, **kw: Any) -> tuple[retention.PruneReport, set[str]]:
    with _matches_touched(client) as touched:
        report = retention.prune(client, older_than_days=days, **kw)
    return report, set(touched)


def test_a_run_reads_only_matches_new_since_the_last_and_those_now_due(client: redis.Redis) -> None:
    """Each run reads the matches created since the previous run's cutoff, and matches held
    back earlier only once their tournament may have become due; never again a match whose
    replay is gone.  Counted by the keys each run names (Redis MONITOR), not by time."""
    old = _play(client, "old")
    _age(client, "old", 41)
    new = _play(client, "new")
    _age(client, "new", 35)  # created after the first run's cutoff (40.5 days ago)
    recent = _play(client, "recent")
    _age(client, "recent", 5)
    live = _play(client, "live", leave=2)  # last: its 2 unplayed matches stay queued
    _age(client, "live", 40.6)

    first, seen = _prune_touching(client, 40.5)
    assert seen == set(old) | set(live) and first.replays == 6 and first.kept_live == 6

    again, seen = _prune_touching(client, 40.5)
    assert seen == set() and again.examined == 0 and again.kept_live == 6  # live: 1 read of its record

    third, seen = _prune_touching(client, 30)  # a shorter period: "new" is due now
    assert seen == set(new) and third.replays == 6 and third.examined == 6
    assert _replays(client, new) == [False] * 6

    ts, _ = _stores(client)
    assert ts.cancel("live")  # its 2 unplayed matches are withdrawn
    client.hset(key("tournament", "live"), "finished_at", time.time() - 31 * DAY)
    fourth, seen = _prune_touching(client, 30)
    assert seen == set(live) and fourth.replays == 4 and fourth.kept_live == 0
    # the examined matches all accounted for (found in a course's prune report, which left them out)
    assert fourth.examined == 6 and fourth.never_played == 2
    assert _replays(client, live) == [False] * 6
    assert not client.exists(retention.held_key("live")) and not client.smembers(key(*retention.HELD))

    quiet, seen = _prune_touching(client, 30)
    assert seen == set() and quiet.examined == 0 and quiet.replays == 0
    longer, seen = _prune_touching(client, 90)  # a longer period finds nothing due: nothing read
    assert seen == set() and longer.replays == 0
    shorter, seen = _prune_touching(client, 3)
    assert seen == set(recent) and shorter.replays == 6
    assert _replays(client, old + live + new + recent) == [False] * 24


def test_a_run_that_stops_midway_is_resumed_where_it_stopped(client: redis.Redis) -> None:
    ids = _play(client, "old") + _play(client, "older")
    _age(client, "old", 40)
    _age(client, "older", 40)

    class Stop(Exception):
        pass

    def stop_after_two_batches(report: retention.PruneReport) -> None:
        if report.examined >= 4:
            raise Stop

    with pytest.raises(Stop):
        retention.prune(client, older_than_days=30, batch=2, progress=stop_after_two_batches)
    assert sorted(_replays(client, ids)) == [False] * 4 + [True] * 8
    done = [mid for mid, kept in zip(ids, _replays(client, ids), strict=True) if not kept]

    rest, seen = _prune_touching(client, 30, batch=2)
    assert rest.replays == 8 and rest.examined == 8 and seen == set(ids) - set(done)
    assert _replays(client, ids) == [False] * 12
    assert _prune_touching(client, 30)[1] == set()


def test_a_match_outside_tournaments_is_held_until_it_ended_long_enough_ago(client: redis.Redis) -> None:
    from cardarena.store.matches import MatchSpec

    _, ms = _stores(client)
    spec = MatchSpec(match_id="solo-1", game="glaves", players=2, seats=("ann", "bob"), seed=7)
    assert ms.enqueue(spec)
    got = ms.claim("test", wait_s=0.5)
    assert got is not None and got.match_id == "solo-1"
    result, replay = play_spec(got)
    assert ms.complete("solo-1", "test", result, replay, tournament="")
    client.zadd(ms.ALL, {"solo-1": time.time() - 40 * DAY})  # created 40 days ago, ended 10 days ago
    client.hset(key("match", "solo-1"), "finished_at", time.time() - 10 * DAY)

    kept, seen = _prune_touching(client, 30)
    assert kept.replays == 0 and kept.kept_recent == 1 and seen == {"solo-1"}
    assert client.zrange(key(*retention.OWN), 0, -1) == [b"solo-1"]
    dropped, seen = _prune_touching(client, 7)
    assert dropped.replays == 1 and seen == {"solo-1"} and _replays(client, ["solo-1"]) == [False]
    assert not client.exists(key(*retention.OWN)) and _prune_touching(client, 7)[1] == set()


def test_dry_runs_read_what_a_run_would_and_record_nothing(client: redis.Redis) -> None:
    old = _play(client, "old")
    _age(client, "old", 40)
    retention.prune(client, older_than_days=30)
    new = _play(client, "new")
    _age(client, "new", 35)
    for _ in range(2):  # a dry run leaves the next one the same work
        dry, seen = _prune_touching(client, 30, dry_run=True)
        assert dry.replays == 6 and seen == set(new)
    assert _replays(client, old + new) == [False] * 6 + [True] * 6


def test_stream_trimming_keeps_what_is_not_acknowledged(client: redis.Redis) -> None:
    ts, ms = _stores(client)
    stream = ms.STREAM
    for n in range(5):
        client.xadd(stream, {"match_id": f"m{n}", "tournament": ""})
    assert retention.trim_results(client).trimmed == 0  # no consumer group yet: it would read them all
    ts.ensure_group(stream, lifecycle.RESULTS_GROUP)
    got = ts.read_group(stream, lifecycle.RESULTS_GROUP, "w1", count=3)  # delivered, not acknowledged
    ts.ack(stream, lifecycle.RESULTS_GROUP, [got[1][0], got[2][0]])  # the first stays pending
    report = retention.trim_results(client)
    assert report.trimmed == 0 and report.kept_from == got[0][0]
    ts.ack(stream, lifecycle.RESULTS_GROUP, [got[0][0]])
    # A second group (another consumer) that has read nothing yet holds every entry.
    client.xgroup_create(stream, "audit", id="0")
    assert retention.trim_results(client).trimmed == 0
    client.xgroup_destroy(stream, "audit")
    report = retention.trim_results(client)
    assert report.trimmed == 2  # m0, m1; m2 (the last delivered) and m3, m4 (not delivered) stay
    left = [fields[b"match_id"] for _, fields in client.xrange(stream)]
    assert left == [b"m2", b"m3", b"m4"]
    rest = ts.read_group(stream, lifecycle.RESULTS_GROUP, "w1")
    assert [f["match_id"] for _, f in rest] == ["m3", "m4"]


def test_bad_retention_setting_is_a_clear_error() -> None:
    assert retention.retention_days({}) is None
    assert retention.retention_days({retention.RETENTION_ENV: " "}) is None
    assert retention.retention_days({retention.RETENTION_ENV: "30"}) == 30.0
    for bad in ("thirty", "0", "-3", "inf", "nan"):
        with pytest.raises(ValueError, match=retention.RETENTION_ENV):
            retention.retention_days({retention.RETENTION_ENV: bad})


@pytest.fixture
def web(redis_url: str, key_prefix: str) -> FlaskClient:
    return create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()


def test_api_and_page_of_a_pruned_replay(client: redis.Redis, web: FlaskClient) -> None:
    ids = _play(client, "old")
    _age(client, "old", 40)
    kept = _play(client, "recent")
    retention.prune(client, older_than_days=30)
    mid = ids[0]

    gone = web.get(f"/api/v1/matches/{mid}/replay")
    assert gone.status_code == 410 and gone.is_json
    message = gone.get_json()["error"]["message"]
    assert "replay pruned after 30 days" in message and "result is kept" in message
    assert web.get(f"/api/v1/matches/{kept[0]}/replay").status_code == 200
    detail = web.get(f"/api/v1/matches/{mid}").get_json()
    assert detail["status"] == "done" and detail["result"]["ranks"]
    assert "replay pruned after 30 days" in detail["replay_pruned"]  # said before the replay is asked for
    assert web.get(f"/api/v1/matches/{kept[0]}").get_json()["replay_pruned"] is None
    listed = web.get("/api/v1/tournaments/old/matches?limit=100").get_json()["items"]
    assert sorted(m["id"] for m in listed) == sorted(ids) and all(m["result"] for m in listed)
    assert all(m["replay_pruned"] for m in listed)
    assert [r["bot"] for r in web.get("/api/v1/tournaments/old/standings").get_json()["items"]]

    page = web.get(f"/matches/{mid}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "This match is finished: replay pruned after 30 days" in html and 'id="replay-pruned"' in html
    result = detail["result"]
    assert f"<td>{result['scores'][0]}</td><td>{result['ranks'][0]}</td>" in html
    assert web.get("/api/v1/matches/nope/replay").status_code == 404


def test_the_move_list_of_a_pruned_replay_is_410(client: redis.Redis, web: FlaskClient) -> None:
    """The move list re-runs the replay: once the retention policy dropped it, the list answers
    410 with the match page's notice (seats and result kept), never a list of moves."""
    ids = _play(client, "old")
    _age(client, "old", 40)
    mid = ids[0]
    before = web.get(f"/matches/{mid}/moves?pov=all")
    assert before.status_code == 200 and 'id="step-1"' in before.get_data(as_text=True)
    retention.prune(client, older_than_days=30)
    for pov in ("", "?pov=0", "?pov=all"):
        gone = web.get(f"/matches/{mid}/moves{pov}")
        assert gone.status_code == 410
        html = gone.get_data(as_text=True)
        assert "replay pruned after 30 days" in html and 'id="replay-pruned"' in html
        assert 'id="step-' not in html and "play:" not in html


def test_openapi_names_the_410() -> None:
    from cardarena_dashboard.openapi import openapi_document

    responses = openapi_document()["paths"]["/matches/{match_id}/replay"]["get"]["responses"]
    assert "410" in responses


def _cli(
    redis_url: str, prefix: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "prune", *args],
        env={**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": prefix, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_prune_command(client: redis.Redis, redis_url: str, key_prefix: str) -> None:
    ids = _play(client, "old")
    _age(client, "old", 40)
    off = _cli(redis_url, key_prefix, "--dry-run", env={retention.RETENTION_ENV: ""})
    assert off.returncode == 0, off.stderr
    assert "kept for ever" in off.stdout and "dry run" in off.stdout
    dry = _cli(redis_url, key_prefix, "--older-than", "30", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["replays"] == 6 and _replays(client, ids) == [True] * 6
    done = _cli(redis_url, key_prefix, env={retention.RETENTION_ENV: "30"})
    assert done.returncode == 0, done.stderr
    assert "dropped 6" in done.stdout and _replays(client, ids) == [False] * 6
    for bad in (["--older-than", "0"], ["--older-than", "soon"]):
        failed = _cli(redis_url, key_prefix, *bad)
        assert failed.returncode == 2 and "--older-than must be a number of days > 0" in failed.stderr
    failed = _cli(redis_url, key_prefix, env={retention.RETENTION_ENV: "a month"})
    assert failed.returncode == 2 and retention.RETENTION_ENV in failed.stderr


def test_a_killed_pruners_turn_lapses_soon_and_the_next_prune_runs(client: redis.Redis, redis_url: str) -> None:
    """A pruner killed mid-run (``kill -9``: its ``finally`` never runs) leaves its turn; the
    turn lapses within its short TTL (not a quarter of an hour) and the next prune (e.g. the
    redelivered task) runs, resuming after the killed run's last batch."""
    import os
    import signal

    assert retention.TURN_S <= 60  # the default: a killed worker's turn blocks the next prune a minute at most
    ids = _play(client, "old")
    _age(client, "old", 40)
    turn = key("prune", "turn")
    code = (
        "import time\n"
        "from cardarena.store import retention\n"
        "from cardarena.store.connection import client_for\n"
        "def stall(report):\n"
        "    print('batch', flush=True)\n"
        "    time.sleep(600)\n"
        f"retention.prune_in_turn(client_for({redis_url!r}), older_than_days=30, turn_s=3.0, batch=1, progress=stall)\n"
    )
    with subprocess.Popen([sys.executable, "-c", code], env=os.environ, stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None and proc.stdout.readline() == "batch\n"  # one batch done, then stuck
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    assert 0 < int(client.pttl(turn)) <= 3000  # held by the dead pruner, for its short TTL only
    assert retention.prune_in_turn(client, older_than_days=30) is None  # meanwhile another one skips
    deadline = time.monotonic() + 30
    while client.exists(turn):
        assert time.monotonic() < deadline, "the dead pruner's turn never lapsed"
        time.sleep(0.1)
    report = retention.prune_in_turn(client, older_than_days=30)
    assert report is not None and report.replays == 5  # the killed run dropped and recorded the first
    assert _replays(client, ids) == [False] * 6 and not client.exists(turn)


def test_a_live_prune_keeps_its_turn_across_batches_longer_than_the_turn(client: redis.Redis) -> None:
    """The running prune renews its turn after every batch: batches taking longer in all than
    the turn's TTL keep it, and a prune started meanwhile skips throughout."""
    ids = _play(client, "old")
    _age(client, "old", 40)
    turn = key("prune", "turn")
    seen: list[tuple[bytes | None, bool]] = []

    def slow(report: retention.PruneReport) -> None:
        time.sleep(0.5)  # six batches: 3 s in all, longer than the 2 s turn
        other = retention.prune_in_turn(client, older_than_days=30, turn_s=2.0)
        seen.append((client.get(turn), other is None))

    report = retention.prune_in_turn(client, older_than_days=30, turn_s=2.0, batch=1, progress=slow)
    assert report is not None and report.replays == 6 and len(seen) == 6
    holders = {holder for holder, _ in seen}
    assert len(holders) == 1 and None not in holders  # the same holder throughout
    assert all(skipped for _, skipped in seen)
    assert _replays(client, ids) == [False] * 6 and not client.exists(turn)  # released at the end


def test_beat_schedules_prune() -> None:
    """Beat sends ``prune`` every ``CARDARENA_PRUNE_S`` (read when the app is configured, as
    beat does, so in a fresh process)."""
    import os

    code = (
        "from cardarena_tournament.celery_app import make_app; import json; "
        "e = make_app('redis://127.0.0.1:1/0').conf.beat_schedule['prune']; "
        "print(json.dumps([e['task'], e['schedule']]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "CARDARENA_PRUNE_S": "120"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["cardarena_tournament.tasks.prune", 120.0]


def test_prune_task_drops_replays_only_when_configured(
    client: redis.Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cardarena_tournament import tasks

    ids = _play(client, "old")
    _age(client, "old", 40)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setattr(tasks, "_stores", {})
    monkeypatch.delenv(retention.RETENTION_ENV, raising=False)
    off = tasks.prune()
    assert off["replays"] == 0 and off["stream_trimmed"] == 5 and off["skipped"] == 0  # 6 acked: all but the last
    assert _replays(client, ids) == [True] * 6
    monkeypatch.setenv(retention.RETENTION_ENV, "30")
    client.set(key("prune", "turn"), "someone else")  # another prune is running: this one skips
    skipped = tasks.prune()  # told apart from a run that found nothing to drop
    assert skipped == {"replays": 0, "replay_bytes": 0, "stream_trimmed": 0, "skipped": 1}
    assert _replays(client, ids) == [True] * 6
    client.delete(key("prune", "turn"))
    assert tasks.prune()["replays"] == 6 and _replays(client, ids) == [False] * 6
    assert not client.exists(key("prune", "turn"))


def test_a_real_worker_and_beat_prune_on_their_own(
    client: redis.Redis, redis_url: str, key_prefix: str, tmp_path: Any
) -> None:
    """Beat sends ``prune`` every ``CARDARENA_PRUNE_S``; a real worker with the retention set
    drops the old tournament's replays and keeps the recent one's."""
    import os
    import signal

    from .tournament_fixtures import wait_for

    old = _play(client, "old")
    _age(client, "old", 40)
    recent = _play(client, "recent")
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "CARDARENA_PREFIX": key_prefix,
        "CARDARENA_PRUNE_S": "1",
        retention.RETENTION_ENV: "30",
    }
    cli = [sys.executable, "-m", "cardarena.cli"]
    argvs = [
        [*cli, "worker", "--no-supervise", "--pool", "solo", "--loglevel", "WARNING"],
        [*cli, "beat", "--no-supervise", "--state", str(tmp_path / "beat"), "--loglevel", "WARNING"],
    ]
    procs = [
        subprocess.Popen(a, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        for a in argvs
    ]
    try:
        wait_for(lambda: not any(_replays(client, old)), 90, "the prune task to drop the old replays")
    finally:
        for p in procs:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(30)
    assert _replays(client, recent) == [True] * 6
    assert int(client.xlen(MatchStore(client).STREAM)) == 1  # every entry acknowledged but the last delivered


def test_drop_namespace_deletes_only_the_keys_under_its_prefix(client: redis.Redis, key_prefix: str) -> None:
    """Batched over more keys than one batch; a prefix with glob characters matches itself only."""
    run = f"{key_prefix}run-[x]*?:"
    mine = [f"{run}k{i}" for i in range(23)]
    others = [f"{key_prefix}run-x-:k", f"{key_prefix}run-[x]*?", f"{key_prefix}run-[x]ab:k", f"{key_prefix}other"]
    for name in mine + others:
        client.set(name, "1")
    assert retention.drop_namespace(client, run, batch=5) == len(mine)
    assert client.exists(*mine) == 0 and client.exists(*others) == len(others)
    assert retention.drop_namespace(client, run) == 0
    with pytest.raises(ValueError, match="empty key prefix"):
        retention.drop_namespace(client, "")
    client.delete(*others)
