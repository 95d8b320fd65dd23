"""The platform metrics (``cardarena.store.health`` and the dashboard's ``GET /metrics``) on a
real, private Redis: a known state is reported exactly, the reading stays within its command
budget however many matches there are, and an unreachable Redis is reported, not raised."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from cardarena.store.bots import STATS, BotStore
from cardarena.store.connection import client_for, free_port
from cardarena.store.health import BEAT_LEADER_KEY, FIXED_COMMANDS, read_health
from cardarena.store.keys import key
from cardarena.store.matches import RESULTS_GROUP, MatchSpec, MatchStore
from cardarena.store.presence import PresenceStore
from cardarena.store.tournaments import Schedule, Tournament, TournamentStore
from cardarena_dashboard import connections, create_app
from prometheus_client.parser import text_string_to_metric_families

from .redis_server import embedded_redis
from .test_monitoring import platform_names

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture(scope="module")
def private_url() -> Iterator[str]:
    """A Redis of this module's own, so that its command statistics count only this test."""
    with embedded_redis() as url:
        yield url


@pytest.fixture
def r(private_url: str, key_prefix: str) -> redis.Redis:
    return client_for(private_url)


def spec(i: int) -> MatchSpec:
    return MatchSpec(match_id=f"t:{i}", game="glaves", players=2, seats=("alpha", "beta"), seed=i, tournament="t")


def finish(ms: MatchStore, mid: str) -> None:
    assert ms.complete(mid, "inst-a", {"ranks": [0, 1]}, {"events": []}, tournament="t")


def known_state(r: redis.Redis) -> float:
    """Put the platform in a known state; returns the time the setup finished."""
    ms, ts, bots = MatchStore(r), TournamentStore(r), BotStore(r)
    for name in ("alpha", "beta"):
        bots.register(name)
    bots.register("random-1", local=True)  # a local run's bot: not reported
    bots.count("alpha", "timeouts", 3)
    bots.count("beta", "errors", 2)
    assert all(ms.enqueue_many([spec(i) for i in range(8)]))
    claimed = [ms.claim("inst-a", wait_s=0) for _ in range(5)]
    mids = [s.match_id for s in claimed if s is not None]
    assert mids == [f"t:{i}" for i in range(5)]
    finish(ms, mids[0])
    finish(ms, mids[1])
    finish(ms, mids[2])
    ts.ensure_group(ms.STREAM, RESULTS_GROUP)
    ts.read_group(ms.STREAM, RESULTS_GROUP, "w1", count=1)  # delivered, never acknowledged
    assert ms.void(mids[3], "inst-a", "stopping")  # back to the head of the queue
    r.delete(MatchStore.record_key(mids[4]) + ":lease")  # its instance died: the lease is gone
    r.lrem(ms.jobs(""), 0, "t:7")  # queued but lost from the job list
    assert sorted(ms.requeue_lost()) == ["t:4", "t:7"]
    ts.create(Tournament(id="cup", game="glaves", players=2, entrants=("alpha", "beta"), deal_sets=1))
    now = time.time()
    ts.create_schedule(Schedule(id="nightly", template={}, every=3600.0), first_run=now - 120)
    ts.create_schedule(Schedule(id="later", template={}, every=3600.0), first_run=now + 3600)
    r.set(key(*BEAT_LEADER_KEY), "host:1:abc", px=10_000)
    ts.beat("worker:w1")
    ts.beat("worker:w2")
    r.rpush(key("celery", "celery"), "m1", "m2", "m3")
    PresenceStore(r).publish("inst-a", "127.0.0.1:1", {}, ttl_ms=60_000)
    return time.time()


def test_read_health_reports_a_known_state(r: redis.Redis) -> None:
    done = known_state(r)
    h = read_health(r, done + 1000)
    # 8 queued, 5 claimed, 3 finished, 1 voided, 1 lost lease requeued: 5 queued, none running
    assert (h.queued_matches, h.running_matches) == (5, 0)
    assert h.requeued == {"lease_expired": 1, "voided": 1, "relisted": 1}
    assert 1000 <= h.queue_wait_s < 1060  # t:7, relisted last, waits since it was first queued
    assert (h.results_entries, h.results_pending) == (3, 1)
    assert 1000 <= h.results_unrecorded_s < 1000 + 60
    assert h.tournaments == {"upcoming": 1, "running": 0, "finished": 0, "cancelled": 0}
    assert h.schedules_due == 1 and 1120 <= h.schedule_late_s < 1120 + 60
    assert h.beat_leader and h.celery_backlog == 3
    assert h.workers_alive == 0  # a thousand seconds on, nobody has beaten
    assert h.service_instances == 0  # and the instance's presence has expired
    assert h.bot_stats["alpha"]["timeouts"] == 3 and h.bot_stats["beta"]["errors"] == 2
    assert sorted(h.bot_stats) == ["alpha", "beta"]

    now = read_health(r, done)
    assert now.workers_alive == 2 and now.service_instances == 1
    assert 0 <= now.queue_wait_s < 60 and now.schedule_late_s >= 120


def test_unrecorded_age_counts_undelivered_results_and_clears_when_recorded(r: redis.Redis) -> None:
    ms, ts = MatchStore(r), TournamentStore(r)
    ms.enqueue_many([spec(i) for i in range(2)])
    for _ in range(2):
        claimed = ms.claim("inst-a", wait_s=0)
        assert claimed is not None
        finish(ms, claimed.match_id)
    later = time.time() + 500
    assert 500 <= read_health(r, later).results_unrecorded_s < 560  # no group yet: every entry waits
    ts.ensure_group(ms.STREAM, RESULTS_GROUP)
    got = ts.read_group(ms.STREAM, RESULTS_GROUP, "w1")
    ts.ack(ms.STREAM, RESULTS_GROUP, [eid for eid, _ in got[:1]])
    assert read_health(r, later).results_pending == 1
    ts.ack(ms.STREAM, RESULTS_GROUP, [eid for eid, _ in got])
    h = read_health(r, later)
    assert (h.results_entries, h.results_pending, h.results_unrecorded_s) == (2, 0, 0.0)
    assert h.queue_wait_s == 0.0 and h.schedule_late_s == 0.0 and not h.beat_leader


def sent_by_clients(r: redis.Redis, work: Any) -> list[str]:
    """The commands Redis received from its clients while ``work()`` ran (``MONITOR``, read in a
    thread until a marker sent at the end comes through), those its scripts ran left out."""
    marker = f"end-of-watch-{time.time_ns()}"
    sent: list[str] = []
    with r.monitor() as monitor:

        def read() -> None:
            for entry in monitor.listen():
                if marker in entry["command"]:
                    return
                if entry["client_type"] != "lua":
                    sent.append(entry["command"].split(" ", 1)[0])

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            work()
        finally:
            r.echo(marker)
            reader.join(30)
    assert not reader.is_alive()
    return sent


@pytest.mark.parametrize(("matches", "bots"), [(3, 0), (300, 0), (3, 400)])
def test_reading_stays_within_its_command_budget(r: redis.Redis, private_url: str, matches: int, bots: int) -> None:
    """Nothing per match, and nothing per bot: the bots' statistics are read by one script (it
    was one ``HMGET`` per bot: 1,000 commands a scrape with 1,000 bots)."""
    known_state(r)
    ms, store = MatchStore(r), BotStore(r)
    ms.enqueue_many([spec(100 + i) for i in range(matches)])
    for n in range(bots):
        store.register(f"b{n:03d}")
        store.count(f"b{n:03d}", "timeouts", n % 5)
    reader = client_for(private_url)
    reader.ping()  # the connection's own setup is not the reading's
    sent = sent_by_clients(r, lambda: read_health(reader, time.time()))
    assert FIXED_COMMANDS // 2 < len(sent) <= FIXED_COMMANDS, sent
    stats = read_health(reader, time.time()).bot_stats
    assert len(stats) == 2 + bots and stats["alpha"] == {**dict.fromkeys(STATS, 0), "timeouts": 3}
    assert all(stats[f"b{n:03d}"] == {**dict.fromkeys(STATS, 0), "timeouts": n % 5} for n in range(bots))


def scrape(text: str) -> Samples:
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def test_dashboard_metrics_endpoint_reports_the_platform(r: redis.Redis, private_url: str) -> None:
    known_state(r)
    app = create_app({"REDIS_URL": private_url, "TESTING": True})
    # what `cardarena dashboard`'s server leaves for the page (test_dashboard_cli.py serves it)
    app.extensions[connections.STATS_EXTENSION] = connections.ConnectionStats(
        limit=7, open=2, refused={"total": 5, "per_client": 3}
    )
    response = app.test_client().get("/metrics")
    assert response.status_code == 200
    assert response.content_type.startswith("text/plain; version=")
    got = scrape(response.get_data(as_text=True))
    assert got[("cardarena_redis_up", ())] == 1
    assert got[("cardarena_queued_matches", ())] == 5
    assert got[("cardarena_running_matches", ())] == 0
    assert got[("cardarena_results_pending", ())] == 1
    assert got[("cardarena_results_stream_entries", ())] == 3
    assert got[("cardarena_requeued_matches_total", (("reason", "lease_expired"),))] == 1
    assert got[("cardarena_requeued_matches_total", (("reason", "relisted"),))] == 1
    assert got[("cardarena_tournaments", (("status", "upcoming"),))] == 1
    assert got[("cardarena_schedules_due", ())] == 1
    assert got[("cardarena_schedule_late_seconds", ())] >= 120
    assert got[("cardarena_beat_leader", ())] == 1
    assert got[("cardarena_workers_alive", ())] == 2
    assert got[("cardarena_celery_backlog", ())] == 3
    assert got[("cardarena_service_instances", ())] == 1
    assert got[("cardarena_bot_stats_total", (("bot", "alpha"), ("stat", "timeouts")))] == 3
    assert not any(labels and dict(labels).get("bot") == "random-1" for _, labels in got)
    assert got[("cardarena_dashboard_connections", ())] == 2
    assert got[("cardarena_dashboard_max_connections", ())] == 7
    assert got[("cardarena_dashboard_refused_connections_total", (("cap", "total"),))] == 5
    assert got[("cardarena_dashboard_refused_connections_total", (("cap", "per_client"),))] == 3
    assert {name for name, _ in got} == platform_names()  # what the alert rules and Grafana may name


def test_dashboard_metrics_report_redis_down_instead_of_failing() -> None:
    app = create_app({"REDIS_URL": f"redis://127.0.0.1:{free_port()}/0", "TESTING": True})
    response = app.test_client().get("/metrics")
    assert response.status_code == 200
    assert scrape(response.get_data(as_text=True)) == {
        ("cardarena_redis_up", ()): 0.0,
        # the process's own, Redis or not
        ("cardarena_dashboard_admin_auth_failures_total", (("kind", "admin"),)): 0.0,
        ("cardarena_dashboard_admin_auth_refused_total", (("kind", "admin"),)): 0.0,
    }
