"""Upgrades keep a deployment's data: data written by older versions (``tests/upgrade/``, made
by ``tests/upgrade/make_fixture.py`` with that version's code) is read by this one.

Each fixture is loaded into the test's own key prefix; then the dashboard and the API show
every stored bot, tournament, match and schedule, every finished match's replay re-runs to
its recorded result, the bots' tokens still work, and the tournament left running finishes
with a real service, real bots, a real Celery worker and beat, counting each match once."""

from __future__ import annotations

import csv
import io
import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cardarena.engine import rerun, rerun_from_seed
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchStore
from cardarena.store.tournaments import TournamentStore
from cardarena_dashboard import create_app
from flask.testing import FlaskClient

from .server_harness import ScriptedBot, ServiceProcess
from .tournament_fixtures import WorkerProcess, tournament_report, wait_for
from .upgrade_fixture import (
    FIXTURES,
    load_fixture,
    read_fixture,
    stored_json,
    stored_json_hash,
    stored_names,
    stored_text,
)


@pytest.fixture(params=FIXTURES, ids=lambda p: p.name.removeprefix("fixture-").removesuffix(".json.gz"))
def fixture_data(request: pytest.FixtureRequest) -> dict[str, Any]:
    """One older version's data (its metadata and keys)."""
    path: Path = request.param
    return read_fixture(path)


@pytest.fixture
def upgraded(redis_url: str, key_prefix: str, fixture_data: dict[str, Any]) -> Iterator[Any]:
    """A Redis client on the test's prefix, holding the older version's data."""
    client = client_for(redis_url)
    load_fixture(client, fixture_data, key_prefix)
    yield client
    client.close()


def _get(client: FlaskClient, url: str, *statuses: int) -> Any:
    response = client.get(url)
    assert response.status_code in (statuses or (200,)), (
        url,
        response.status_code,
        response.get_data(as_text=True)[:300],
    )
    return response


def _api(client: FlaskClient, url: str) -> Any:
    response = _get(client, "/api/v1" + url)
    assert response.is_json, url
    return response.get_json()


def _all_match_ids(data: dict[str, Any]) -> list[str]:
    return stored_names(data, "matches:all")


def _tournaments(data: dict[str, Any]) -> list[str]:
    return [*data["finished"], data["running"]]


def test_fixtures_are_there_and_small() -> None:
    """One fixture written before opaque match ids (readable ``t:round:table:seating:deal``),
    one after; each well under a megabyte."""
    assert {p.name for p in FIXTURES} >= {"fixture-ad56bcb.json.gz", "fixture-49c59d0.json.gz"}
    assert all(p.stat().st_size < 200_000 for p in FIXTURES)
    readable = read_fixture(next(p for p in FIXTURES if "49c59d0" in p.name))
    assert any(mid.count(":") == 4 for mid in _all_match_ids(readable))


def test_every_page_and_endpoint_shows_the_stored_data(
    upgraded: Any, redis_url: str, fixture_data: dict[str, Any]
) -> None:
    data = fixture_data
    client = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()
    bots = sorted(data["tokens"])
    match_ids = _all_match_ids(data)
    assert len(match_ids) == 12 + 6 + 4 + 4  # glaves2, knaves3, standalone, the running one's (2 played)

    for url in ("/", "/games", "/matches", "/tournaments", "/bots", "/api", "/api/v1/health", "/api/v1/games"):
        _get(client, url)
    home = _get(client, "/").get_data(as_text=True)
    assert "Glaves duplicate" in home

    # bots: every one listed, its page, its ratings as stored, its matches (from the indexes)
    listed = {row["name"] for row in _api(client, "/bots?limit=100")["items"]}
    assert listed == set(bots)
    for name in bots:
        page = _get(client, f"/bots/{name}").get_data(as_text=True)
        assert name in page
        row = _api(client, f"/bots/{name}")
        assert row["name"] == name and not any("token" in k for k in row)
        for stat, amount in row["stats"].items():  # counted by the older version
            assert amount == int(stored_text(data, f"bot:{name.encode().hex()}", f"stat:{stat}") or 0), (name, stat)
        for game in ("glaves", "knaves"):
            stored = f"ratings:{game}"
            if stored_text(data, stored, name) is not None:
                assert row["ratings"][game]["ordinal"] == pytest.approx(stored_json(data, stored, name)["ordinal"])
                assert "<svg" in _get(client, f"/bots/{name}/ratings/{game}.svg").get_data(as_text=True)
            else:
                assert game not in row["ratings"]
        mine = set(stored_names(data, f"matches:bot:{name}")) if f"matches:bot:{name}" in data["keys"] else set()
        assert {m["id"] for m in _api(client, f"/matches?bot={name}&limit=100")["items"]} == mine
        _get(client, f"/matches?bot={name}")
    assert set(BotStore(upgraded).entrants()) == set(bots) - {data["retired"]}  # still retired

    # leaderboards: stored before their index existed, ranked by the stored ordinals
    for game in ("glaves", "knaves"):
        stored = stored_json_hash(data, f"ratings:{game}")
        best_first = sorted(stored, key=lambda b: (-stored[b]["ordinal"], b))
        every = _api(client, f"/games/{game}/leaderboard?retired=1&limit=200")
        assert [r["bot"] for r in every["items"]] == best_first and every["total"] == len(stored)
        assert [r["ordinal"] for r in every["items"]] == pytest.approx([stored[b]["ordinal"] for b in best_first])
        assert [r["retired"] for r in every["items"]] == [b == data["retired"] for b in best_first]
        active = _api(client, f"/games/{game}/leaderboard?limit=200")["items"]
        assert [r["bot"] for r in active] == [b for b in best_first if b != data["retired"]]
        page = _get(client, f"/games/{game}").get_data(as_text=True)
        assert all(f'href="/bots/{b}"' in page for b in best_first if b != data["retired"])

    # tournaments: listed by status, each page and API record, standings as stored, match lists
    by_status = {row["id"]: row["status"] for row in _api(client, "/tournaments?limit=100")["items"]}
    assert by_status == {**{t: "finished" for t in data["finished"]}, data["running"]: "running"}
    tournaments_page = _get(client, "/tournaments").get_data(as_text=True)
    for tid in _tournaments(data):
        record = _api(client, f"/tournaments/{tid}")
        assert record["id"] == tid and record["rated"] is True  # stored without ``rated``: rated
        for url in (f"/tournaments/{tid}", f"/tournaments/{tid}/standings.part", f"/tournaments/{tid}/ratings.svg"):
            _get(client, url)
        assert tid in tournaments_page
        snapshot = stored_json(data, f"tournament:{tid}:standings")
        rows = _api(client, f"/tournaments/{tid}/standings")["items"]
        assert [(r["bot"], r["rank"]) for r in rows] == [(r["bot"], r["rank"]) for r in snapshot["rows"]]
        text = _get(client, f"/api/v1/tournaments/{tid}/standings?format=csv").get_data(as_text=True)
        assert [r["bot"] for r in csv.DictReader(io.StringIO(text))] == [r["bot"] for r in snapshot["rows"]]
        page = _get(client, f"/tournaments/{tid}").get_data(as_text=True)
        assert all(r["bot"] in page for r in snapshot["rows"])
        # stored without a crosstable: a finished one's is computed from its results (once), a
        # running one's comes with its next standings update
        cross = _api(client, f"/tournaments/{tid}/crosstable")
        if tid in data["finished"]:
            assert cross["available"] and cross["bots"] == [r["bot"] for r in snapshot["rows"]]
            assert cross["counted"] == snapshot["counted"] and cross["items"]
            assert 'id="crosstable-table"' in _get(client, f"/tournaments/{tid}").get_data(as_text=True)
        else:
            assert not cross["available"] and "comes with the next standings update" in cross["reason"]
        scheduled = [json.loads(m)["match_id"] for m in stored_names(data, f"tournament:{tid}:schedule")]
        found = _api(client, f"/tournaments/{tid}/matches?limit=100")["items"]
        if tid in data["finished"]:
            assert sorted(m["id"] for m in found) == sorted(scheduled)
        assert set(stored_names(data, f"tournament:{tid}:counted")) <= {m["id"] for m in found}
        _get(client, f"/matches?tournament={tid}")
    glaves = _api(client, f"/tournaments/{data['finished'][0]}/standings")["items"]
    assert all(r["rating"] is not None for r in glaves)

    # every match: its page, its move list and its replay (a running tournament's replay may
    # be withheld while its deal set is still being played: 409, documented)
    standalone = set(data["standalone"])
    assert standalone <= {m["id"] for m in _api(client, "/matches?game=glaves&limit=100")["items"]}
    for mid in match_ids:
        running = mid.startswith(data["running"] + ":")
        done = stored_text(data, f"match:{mid}", "status") == "done"
        assert mid in _get(client, f"/matches/{mid}").get_data(as_text=True)
        assert _api(client, f"/matches/{mid}")["status"] == ("done" if done else "queued")
        expected = (200, 409) if running else (200,)
        _get(client, f"/matches/{mid}/moves", *(expected if done else (409,)))
        replay = _get(client, f"/api/v1/matches/{mid}/replay", *(expected if done else (409,)))
        if replay.status_code == 409:
            assert ("withheld" if done else "queued") in replay.get_json()["error"]["message"]
        else:
            assert replay.get_json()["seats"] == stored_json(data, f"match:{mid}", "spec")["seats"]

    no_show = _api(client, f"/matches/{data['standalone'][-1]}")
    assert no_show["result"]["forfeited"] == [1] and no_show["result"]["ranks"] == [1, 2]
    assert _api(client, f"/bots/{data['retired']}")["stats"]["forfeits"] == 1

    # schedules: both listed; the one that ran links its run and is due
    schedules = {row["id"]: row for row in _api(client, "/schedules")["items"]}
    assert set(schedules) == {data["schedule"], data["cron_schedule"]}
    nightly = _api(client, f"/schedules/{data['schedule']}")
    assert nightly["next_run"] <= time.time()
    assert data["schedule"] in TournamentStore(upgraded).due(time.time())

    # `dashboard --reindex` (what it runs) finds the older matches indexed already and changes nothing
    before = {name: _api(client, f"/matches?bot={name}&limit=100")["items"] for name in bots}
    MatchStore(upgraded).index_older(force=True)
    assert before == {name: _api(client, f"/matches?bot={name}&limit=100")["items"] for name in bots}


def test_every_finished_replay_reruns_to_its_recorded_result(upgraded: Any, fixture_data: dict[str, Any]) -> None:
    ms = MatchStore(upgraded)
    done = [mid for mid in _all_match_ids(fixture_data) if ms.status(mid) == "done"]
    assert len(done) == len(_all_match_ids(fixture_data)) - 2  # the running tournament's queued two
    for mid in done:
        replay, result = ms.replay(mid), ms.result(mid)
        assert replay is not None and result is not None, mid
        for state in (rerun(replay), rerun_from_seed(replay)):
            outcome = state.result()
            assert list(outcome.scores) == result["scores"], mid
            assert list(outcome.ranks) == result.get("engine_ranks", result["ranks"]), mid


def test_the_old_tokens_still_authenticate(upgraded: Any, fixture_data: dict[str, Any]) -> None:
    store = BotStore(upgraded)
    for name, token in fixture_data["tokens"].items():
        assert store.authenticate(token) == name
        assert store.authenticate(token[:-1] + ("A" if token[-1] != "A" else "B")) is None


def test_a_look_alike_of_a_stored_bot_is_refused_and_the_tokens_stay(
    upgraded: Any, fixture_data: dict[str, Any]
) -> None:
    """The older versions kept no look index: registering indexes the stored bots first, so a
    name that looks like one of them is refused, alone or in a roster; a new one is not."""
    from cardarena.store.bots import LookAlikeName, RosterRefused

    store = BotStore(upgraded)
    for name in fixture_data["tokens"]:
        with pytest.raises(LookAlikeName, match=f"looks like the registered bot {name!r}"):
            store.register(name.upper())
        with pytest.raises(RosterRefused, match=f"looks like the registered bot {name!r}"):
            store.register_roster(["newcomer", name.capitalize()])
    assert store.authenticate(store.register("newcomer")) == "newcomer"
    assert sorted(store.names()) == sorted([*fixture_data["tokens"], "newcomer"])
    for name, token in fixture_data["tokens"].items():
        assert store.authenticate(token) == name


def test_a_stored_bot_is_not_deleted_and_one_registered_since_is(upgraded: Any, fixture_data: dict[str, Any]) -> None:
    """The older versions kept no index of tournament entrants (the oldest none of matches per
    bot): ``bot delete`` indexes them first, so every stored bot is refused with its history,
    the stored tournaments' entrants as such; a bot registered since and never entered is
    deleted."""
    from cardarena.engine import games
    from cardarena.store.bots import BotHasHistory

    store = BotStore(upgraded)
    entered = {bot for t in TournamentStore(upgraded).list(limit=1000) for bot in t.entrants}
    assert entered
    for name, token in fixture_data["tokens"].items():
        with pytest.raises(BotHasHistory) as refused:
            store.delete(name, games=list(games()))
        assert ("an entrant of " in str(refused.value)) == (name in entered), refused.value
        assert store.authenticate(token) == name
    store.register("newcomer")
    store.delete("newcomer", games=list(games()))
    assert sorted(store.names()) == sorted(fixture_data["tokens"])


def test_a_match_an_older_version_leased_lapses_and_is_claimed_again(
    upgraded: Any, redis_url: str, fixture_data: dict[str, Any]
) -> None:
    """A rolling upgrade: an instance of the older version claimed a match, its lease holding the
    bare instance name (``svc-0``), and was then restarted with this version under the same
    name.  This version neither renews nor gives back that lease (it holds ``svc-0:<run id>``
    leases only), the pages show the match running meanwhile, and once the lease lapses the
    reconciler requeues the match and a claim of this version takes it."""
    from cardarena.store.keys import key

    ms = MatchStore(upgraded)
    mid = min(m for m in _all_match_ids(fixture_data) if ms.status(m) == "queued")
    lease, record = key("match", mid, "lease"), ms.record_key(mid)
    # what the older version's claim left: the job popped, the lease, the record, the sets
    older = upgraded.pipeline(transaction=True)
    older.lrem(ms.jobs(ms.info(mid).get("queue", "")), 0, mid)
    older.set(lease, "svc-0", px=60_000)
    older.hset(record, mapping={"status": "running", "instance": "svc-0", "claimed_at": time.time()})
    older.hincrby(record, "attempts", 1)
    older.sadd(ms.RUNNING, mid)
    older.srem(ms.QUEUED, mid)
    older.execute()
    assert not ms.renew(mid, "svc-0") and not ms.void(mid, "svc-0", "server stopping")
    assert ms.requeue_lost() == [] and upgraded.get(lease) == b"svc-0"
    client = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()
    assert _api(client, f"/matches/{mid}")["status"] == "running"
    _get(client, f"/matches/{mid}")
    upgraded.pexpire(lease, 1)  # nobody renews it: it lapses
    deadline = time.monotonic() + 5
    while upgraded.exists(lease):
        assert time.monotonic() < deadline, "the lease did not lapse"
        time.sleep(0.005)
    assert ms.requeue_lost() == [mid] and ms.status(mid) == "queued"
    claimed = ms.claim("svc-0", wait_s=1.0)
    assert claimed is not None and claimed.match_id == mid
    assert upgraded.get(lease) == f"svc-0:{ms.run_id}".encode() and ms.renew(mid, "svc-0")
    assert ms.info(mid)["instance"] == "svc-0" and ms.info(mid)["attempts"] == "2"


def test_the_running_tournament_finishes_after_the_upgrade_counting_each_match_once(
    upgraded: Any, redis_url: str, key_prefix: str, fixture_data: dict[str, Any], tmp_path: Path
) -> None:
    data, tid = fixture_data, fixture_data["running"]
    ts, ms = TournamentStore(upgraded), MatchStore(upgraded)
    before = ts.require(tid)
    assert before.status == "running" and before.counted == data["played_of_running"] < before.total_matches
    due = ts.next_run(data["schedule"])
    assert due is not None and due <= time.time()
    history_before = {b: len(ts.rating_history(b, "glaves")) for b in before.entrants}

    service = ServiceProcess(redis_url)
    workers = [
        WorkerProcess(
            redis_url, key_prefix, "worker", "--pool", "threads", "--concurrency", "2", "--loglevel", "WARNING"
        ),
        WorkerProcess(redis_url, key_prefix, "beat", "--loglevel", "WARNING", "--state", str(tmp_path / "beat")),
    ]
    bots = []
    try:
        # the retired bot's old token opens a session (gRPC Hello over loopback)
        retired = ScriptedBot(service.address, data["tokens"][data["retired"]], data["retired"])
        try:
            assert retired.expect("welcome") is not None
        finally:
            retired.close()
        bots = [service.bot_process("random", b, data["tokens"][b]) for b in before.entrants]
        for w in workers:
            w.start()
        wait_for(
            lambda: ts.require(tid).status == "finished",
            120,
            "the running tournament to finish",
            report=lambda: tournament_report(ts, ms, tid, workers=workers),
        )
        # beat took the schedule's due run: started it, or (documented) skipped it because the
        # previous run was still playing; either way the schedule moved on to its next time
        wait_for(lambda: (ts.next_run(data["schedule"]) or 0) > due, 60, "beat to take the due run")
    finally:
        for w in workers:
            w.kill()
        for proc in bots:
            proc.terminate()
            proc.wait(30)
        service.stop()

    t = ts.require(tid)
    assert t.counted == t.total_matches == 4
    mids = [m["match_id"] for m in ts.schedule_of(tid)]
    assert sorted(ts.results(tid)) == sorted(mids)
    order = [x.decode() for x in upgraded.lrange(f"{key_prefix}tournament:{tid}:counted_order", 0, -1)]
    assert sorted(order) == sorted(mids)  # each once
    assert all(info.get("status") == "done" for info in ms.infos(mids))
    for bot in t.entrants:
        points = Counter(p.get("match_id") for p in ts.rating_history(bot, "glaves"))
        assert all(points[mid] == 1 for mid in mids), bot  # rated once each
        assert len(ts.rating_history(bot, "glaves")) >= history_before[bot] + t.total_matches - before.counted
    snap = ts.standings(tid)
    assert snap is not None and snap["status"] == "finished" and snap["counted"] == 4
    # the leaderboard (its index built from the older ratings, then kept by this version's writes)
    ratings = ts.ratings("glaves")
    board, total = ts.leaderboard("glaves", 0, 100)
    assert total == len(ratings)
    assert [r["bot"] for r in board] == sorted(ratings, key=lambda b: (-ratings[b]["ordinal"], b))
    info = ts.schedule_info(data["schedule"])
    assert info is not None
    assert ts.get(f"{data['schedule']}-{int(due)}") is not None or "still playing" in info["last_error"]
