"""Two service instances (separate processes, different ports) on one Redis, bot processes
connected to one instance each: matches between bots on different instances run wholly on
one instance (the other relays a MatchInvite) and complete exactly once."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cardarena.engine import rerun
from cardarena.server.commands import stop_process
from cardarena.server.service import too_many_sessions
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl
from cardarena.store.presence import PresenceStore

from .server_harness import SLOW_CLOCK, ScriptedBot, ServiceProcess


@pytest.fixture
def instances(redis_url: str, key_prefix: str) -> Iterator[tuple[ServiceProcess, ServiceProcess]]:
    one = ServiceProcess(redis_url, "--instance-name", "inst-a", "--grace", "0")
    try:
        two = ServiceProcess(redis_url, "--instance-name", "inst-b", "--grace", "0")
    except Exception:
        one.stop()
        raise
    yield one, two
    two.stop()
    one.stop()


def test_matches_across_two_instances(instances: tuple[ServiceProcess, ServiceProcess], redis_url: str) -> None:
    one, two = instances
    client = client_for(redis_url)
    matches, bots, presence = MatchStore(client), BotStore(client), PresenceStore(client)
    home = {"a1": one, "a2": one, "b1": two, "b2": two}
    procs = []
    try:
        for name, svc in home.items():
            procs.append(svc.bot_process("random", name, bots.register(name), "--max-matches", "3"))
        deadline = time.monotonic() + 60  # four bot processes start on a loaded 2-core machine
        while True:  # both instances advertise their two bots
            snap = presence.snapshot()
            if {b for _, bs in snap.values() for b in bs} == set(home) and len(snap) == 2:
                break
            exited = [p.args for p in procs if p.poll() is not None]
            assert time.monotonic() < deadline and not exited, (snap, exited)
            time.sleep(0.1)
        assert snap["inst-a"][0] == one.address and snap["inst-b"][0] == two.address
        pairs = [("a1", "b1"), ("a2", "b2"), ("b1", "a2"), ("a1", "b2"), ("a1", "a2"), ("b1", "b2"), ("b2", "a1")]
        ids = []
        for i, seats in enumerate(pairs * 2):
            mid = f"multi-{i}"
            matches.enqueue(
                MatchSpec(
                    match_id=mid,
                    game="german_whist",
                    players=2,
                    seats=seats,
                    seed=i,
                    time_control=TimeControl(move_ms=5000, bank_ms=0),
                    fault_policy=FaultPolicy(join_timeout_ms=15000),
                )
            )
            ids.append(mid)
        deadline = time.monotonic() + 120
        while any(matches.status(m) != "done" for m in ids):
            assert time.monotonic() < deadline, {m: matches.info(m).get("status") for m in ids}
            for proc in procs:
                assert proc.poll() is None
            time.sleep(0.1)
        hosts = set()
        for mid in ids:
            info = matches.info(mid)
            result = matches.result(mid)
            replay = matches.replay(mid)
            assert result is not None and replay is not None
            assert result["instance"] in ("inst-a", "inst-b")
            # wholly on one instance: claimed once, played and recorded there, nobody defaulted
            assert info["attempts"] == "1", info
            assert info["instance"] == info["finished_by"] == result["instance"] == replay["instance"]
            assert result["forfeited"] == [] and result["strikes"] == [0, 0]
            assert not [a for d in replay["deals"] for a in d["actions"] if a.get("default")]
            assert rerun(replay).result().to_json()["scores"] == result["scores"]
            hosts.add(result["instance"])
        events = [fields[b"match_id"].decode() for _, fields in client.xrange(matches.STREAM)]
        assert sorted(events) == sorted(ids)  # each completed exactly once
    finally:
        for proc in procs:
            stop_process(proc)


def test_invites_reach_a_bot_busy_on_another_instance(redis_url: str, key_prefix: str) -> None:
    """A bot with no free slot on the instance it is connected to is invited all the same (once
    it has a session on the hosting instance it is waited for, not a no-show); a bot that does
    not play the game is not."""
    import asyncio

    from cardarena.server.service import Instance
    from cardarena.store.presence import BotPresence

    inst = Instance(redis_url, name="host")
    inst.remote = {
        "other": (
            "10.0.0.2:50051",
            {"busy": BotPresence(capacity=1, load=1), "picky": BotPresence(capacity=2, load=0, games=("skull",))},
        )
    }
    asyncio.run(inst.invite("m-busy", "busy", "glaves"))
    asyncio.run(inst.invite("m-picky", "picky", "glaves"))
    presence = PresenceStore(client_for(redis_url))
    got = presence.next_invite("other", 0.5)
    assert got is not None and (got.bot, got.match_id, got.instance) == ("busy", "m-busy", "host")
    assert presence.next_invite("other", 0.2) is None


@contextlib.contextmanager
def _limited_pair(
    redis_url: str, limit: int, log: Path | None = None
) -> Iterator[tuple[ServiceProcess, ServiceProcess, list[ScriptedBot]]]:
    """Instances ``lim-a`` and ``lim-b`` with ``--sessions-per-bot limit`` (``lim-b`` logging to
    ``log``), and a list for the test's streams, all closed and stopped at the end."""
    flags = ("--sessions-per-bot", str(limit), "--grace", "0")
    one = ServiceProcess(redis_url, "--instance-name", "lim-a", *flags)
    streams: list[ScriptedBot] = []
    try:
        two = ServiceProcess(redis_url, "--instance-name", "lim-b", *flags, log=log)
        try:
            yield one, two, streams
        finally:
            for stream in streams:
                stream.close()
            two.stop()
    finally:
        one.stop()


def test_sessions_per_bot_count_on_every_instance_and_lapse_with_a_dead_one(redis_url: str, key_prefix: str) -> None:
    """``--sessions-per-bot 2`` on two instances on one Redis: a bot with a session on each
    gets no third on either (each stream holds a lease in Redis, taken before its Hello);
    a stream that ends gives its lease back; the leases of an instance that is killed lapse
    (their TTL, 10 presence intervals) and the other instance admits the bot again."""
    import grpc

    from .test_server_outbox import _opens

    bots = BotStore(client_for(redis_url))
    token = bots.register("spread")
    with _limited_pair(redis_url, 2) as (one, two, streams):
        a, b = ScriptedBot(one.address, token, "spread"), ScriptedBot(two.address, token, "spread")
        streams += [a, b]
        assert a.expect("welcome").instance == "lim-a"
        assert b.expect("welcome").instance == "lim-b"
        for svc in (one, two):
            extra = ScriptedBot(svc.address, token, "spread")
            streams.append(extra)
            assert extra.status() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert extra.error is not None and extra.error.details() == too_many_sessions(2)
        a.close()  # its lease is given back: the bot may open a session on the other instance
        deadline = time.monotonic() + 30
        while not _opens(two.address, token):
            assert time.monotonic() < deadline, "the closed stream's lease was not given back"
            time.sleep(0.1)
        # The probe that just opened on `two` gives its lease back once its end reaches the
        # service: until then it still counts, so the new session may be refused a while.
        deadline = time.monotonic() + 30
        while True:
            c = ScriptedBot(one.address, token, "spread")
            streams.append(c)
            first = next(c.messages(), None)
            if first is not None and first.WhichOneof("kind") == "welcome":
                break
            assert first is None and c.error is not None, first  # refused: the stream ended
            assert c.error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, c.error
            assert time.monotonic() < deadline, "the probe's lease was not given back"
            time.sleep(0.1)
        assert first.welcome.instance == "lim-a"
        one.proc.kill()  # no shutdown: its lease stays in Redis until it lapses
        one.proc.wait(10)
        assert not _opens(two.address, token)  # well within the 10 s lease
        deadline = time.monotonic() + 60
        while not _opens(two.address, token):
            assert time.monotonic() < deadline, "the dead instance's lease did not lapse"
            time.sleep(0.25)


def test_a_refused_session_says_the_limit_spans_the_instances(redis_url: str, key_prefix: str, tmp_path: Path) -> None:
    """More instances than ``--sessions-per-bot``: a bot process connected to one instance and
    invited to the other is refused there.  The bot is told that the limit counts every
    instance and what to do, and the refusing instance logs it (it logged nothing before, and
    the bot read only "at most 1 sessions per bot")."""
    import grpc

    token = BotStore(client_for(redis_url)).register("spread")
    with _limited_pair(redis_url, 1, log=tmp_path / "lim-b.log") as (one, two, streams):
        home = ScriptedBot(one.address, token, "spread")
        streams.append(home)
        assert home.expect("welcome").instance == "lim-a"
        invited = ScriptedBot(two.address, token, "spread")
        streams.append(invited)
        assert invited.status() == grpc.StatusCode.RESOURCE_EXHAUSTED
        details = invited.error.details() if invited.error is not None else ""
        assert details.startswith("at most 1 sessions per bot, on all service instances together"), details
        assert "--sessions-per-bot" in details
        deadline = time.monotonic() + 30
        while True:
            logged = [json.loads(line) for line in (tmp_path / "lim-b.log").read_text().splitlines() if "{" in line]
            refused = [e for e in logged if e.get("event") == "session_refused"]
            if refused:
                break
            assert time.monotonic() < deadline, "the refusal was not logged"
            time.sleep(0.1)
        assert refused[0]["bot"] == "spread" and refused[0]["limit"] == 1
        assert refused[0]["where"] == "all instances"


def test_session_leases_in_redis(redis_url: str, key_prefix: str) -> None:
    """The lease store alone: the limit is atomic per bot, a lease given back or lapsed frees
    its place, renewing reports the leases that lapsed (and they can be taken again)."""
    from cardarena.store.presence import SessionLeases

    leases = SessionLeases(client_for(redis_url))
    assert leases.acquire("x", "l1", limit=2, ttl_ms=60000)
    assert leases.acquire("x", "l2", limit=2, ttl_ms=60000)
    assert not leases.acquire("x", "l3", limit=2, ttl_ms=60000)
    assert leases.acquire("x", "l2", limit=2, ttl_ms=60000)  # held already: extended
    assert leases.acquire("y", "l3", limit=2, ttl_ms=60000)  # per bot
    assert leases.held("x") == 2
    leases.release("x", "l1")
    assert leases.acquire("x", "l3", limit=2, ttl_ms=100)
    time.sleep(0.3)  # l3 lapses
    assert leases.held("x") == 1
    assert leases.renew({"l2": "x", "l3": "x"}, ttl_ms=60000) == ["l3"]
    assert leases.held("x") == 1
    assert leases.acquire("x", "l4", limit=2, ttl_ms=60000)
    assert not leases.acquire("x", "l3", limit=2, ttl_ms=60000)  # its place was taken


def test_a_lapsed_lease_whose_stream_ends_while_it_is_taken_again_is_given_back(
    redis_url: str, key_prefix: str
) -> None:
    """A lease that lapsed (Redis out of reach for a whole TTL) is taken again by the next
    renewal; if its stream ends meanwhile (its handler gives the lease back while the renewal
    is in Redis), the lease taken again is given back too, not left to hold one of the bot's
    session slots, on every instance, for a whole TTL with no stream behind it."""
    import asyncio

    from cardarena.server.service import Instance, Limits

    async def main() -> int:
        inst = Instance(redis_url, limits=Limits(sessions_per_bot=1, presence_interval_s=6.0))  # TTL 60 s
        try:
            loop = asyncio.get_running_loop()
            assert inst.leases.acquire("quick", "lease-1", limit=1, ttl_ms=1)
            inst.held_leases["lease-1"] = "quick"
            await asyncio.sleep(0.05)  # the lease lapses
            acquire = inst.leases.acquire

            def stream_ends_meanwhile(*args: object, **kwargs: object) -> bool:
                # The stream's handler runs on the loop while the renewal waits for Redis.
                asyncio.run_coroutine_threadsafe(inst.drop_lease("lease-1"), loop).result(10)
                return acquire(*args, **kwargs)  # type: ignore[arg-type]

            inst.leases.acquire = stream_ends_meanwhile  # type: ignore[method-assign]
            await inst._renew_leases()
            assert not inst.held_leases
            return inst.leases.held("quick")
        finally:
            inst.bots.r.close()

    assert asyncio.run(main()) == 0


def test_a_stream_that_goes_away_while_its_lease_is_taken_gives_it_back(redis_url: str, key_prefix: str) -> None:
    """The handler of a stream whose bot goes away is cancelled, also while its lease is being
    taken in Redis (a worker thread the cancel does not stop): the lease the thread takes is
    given back, not left to hold one of the bot's session slots, on every instance, for a
    whole TTL."""
    import asyncio

    from cardarena.server.service import Instance, Limits

    async def main() -> int:
        inst = Instance(redis_url, limits=Limits(sessions_per_bot=1, presence_interval_s=6.0))  # TTL 60 s
        try:
            loop = asyncio.get_running_loop()
            acquire = inst.leases.acquire
            taking: list[asyncio.Task[bool]] = []

            def cancelled_meanwhile(*args: object, **kwargs: object) -> bool:
                loop.call_soon_threadsafe(taking[0].cancel)  # the bot goes away now
                time.sleep(0.2)  # the cancel lands while Redis is asked
                return acquire(*args, **kwargs)  # type: ignore[arg-type]

            inst.leases.acquire = cancelled_meanwhile  # type: ignore[method-assign]
            taking.append(asyncio.create_task(inst.take_lease("quick", "lease-1")))
            with pytest.raises(asyncio.CancelledError):
                await taking[0]
            await asyncio.sleep(0.3)  # the thread has answered by now
            assert not inst.held_leases
            return inst.leases.held("quick")
        finally:
            inst.bots.r.close()

    assert asyncio.run(main()) == 0


def _entry(client: Any, name: str) -> dict[str, Any]:
    """The raw ``presence:instances`` entry of ``name`` ({}: none)."""
    raw = client.hget(PresenceStore(client).INSTANCES, name)
    return dict(json.loads(raw)) if raw else {}


def test_a_second_process_under_a_live_instance_name_refuses_to_start(redis_url: str, key_prefix: str) -> None:
    """Two processes under one ``--instance-name`` would share its presence, invites and
    session leases, each taking the other's: the second one says so and exits 2, naming the
    first; once the first was killed (its presence lives on for a TTL) a restart starts at
    once, and after a graceful stop too."""
    client = client_for(redis_url)
    first = ServiceProcess(redis_url, "--instance-name", "dup", "--grace", "0")
    try:
        started = time.monotonic()
        with pytest.raises(RuntimeError) as refused:
            ServiceProcess(redis_url, "--instance-name", "dup", "--grace", "0")
        assert time.monotonic() - started < 10  # first refreshes every second: seen to be live
        said = str(refused.value)
        assert "exit status 2" in said
        assert (
            f"cardarena: error: another service process runs as instance 'dup' (at {first.address}, on host " in said
        ), said
        assert "give this one another --instance-name, or stop that one first" in said
        assert _entry(client, "dup")["address"] == first.address  # untouched
        other = ServiceProcess(redis_url, "--instance-name", "dup-2", "--grace", "0")  # another name: fine
        other.stop()
    finally:
        first.proc.kill()  # a crash: its presence stays until its TTL (10 s) passes
        stop_process(first.proc)  # reaped, its pipe closed
    assert _entry(client, "dup")["address"] == first.address
    started = time.monotonic()
    second = ServiceProcess(redis_url, "--instance-name", "dup", "--grace", "0")  # the restart
    try:
        assert time.monotonic() - started < 8  # the dead process was recognised, not waited out
        assert _entry(client, "dup")["address"] == second.address
    finally:
        second.stop()
    assert _entry(client, "dup") == {}  # withdrawn
    ServiceProcess(redis_url, "--instance-name", "dup", "--grace", "0").stop()


def test_an_entry_from_elsewhere_that_stops_being_refreshed_is_waited_out(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """A crashed process on another machine (or in another container) cannot be looked at:
    its entry is waited for until it expires, then the name is taken."""
    client = client_for(redis_url)
    held = {"address": "10.9.9.9:50051", "expires": time.time() + 3, "run": "r-elsewhere", "host": "far"}
    held["process"] = "another-boot/pid:[1]/1/100"
    client.hset(PresenceStore(client).INSTANCES, "far-one", json.dumps(held))
    log = tmp_path / "service.log"
    started = time.monotonic()
    service = ServiceProcess(redis_url, "--instance-name", "far-one", "--grace", "0", log=log)
    try:
        assert time.monotonic() - started >= 2
        assert _entry(client, "far-one")["address"] == service.address
    finally:
        service.stop()
    waiting = [json.loads(line) for line in log.read_text().splitlines() if "instance_name_waiting" in line]
    assert len(waiting) == 1 and waiting[0]["address"] == "10.9.9.9:50051" and waiting[0]["host"] == "far"


def test_presence_is_written_only_by_the_process_holding_the_name(redis_url: str, key_prefix: str) -> None:
    """The store alone: a publish under a name whose unexpired entry is another run's writes
    nothing (neither the entry nor the bots) and answers that entry; the holder's own refresh,
    a lapsed entry, ``take_over`` and a publish without a run write; a withdraw by a run that
    does not hold the name leaves the holder's presence alone."""
    from cardarena.store.presence import BotPresence, InstanceRun

    client = client_for(redis_url)
    presence = PresenceStore(client)
    one, two = InstanceRun("run-1", "host-1", "p-1"), InstanceRun("run-2", "host-2", "p-2")
    mine, theirs = {"a": BotPresence(2, 1)}, {"b": BotPresence(3, 0, ("skull",))}
    assert presence.publish("twin", "10.0.0.1:1", mine, ttl_ms=60_000, by=one) is None
    assert presence.publish("twin", "10.0.0.1:1", mine, ttl_ms=60_000, by=one) is None  # its own refresh
    held = presence.publish("twin", "10.0.0.2:1", theirs, ttl_ms=60_000, by=two)
    assert held is not None and (held["run"], held["host"], held["address"]) == ("run-1", "host-1", "10.0.0.1:1")
    assert _entry(client, "twin")["run"] == "run-1" and presence.bots_of("twin") == mine  # nothing written
    assert not presence.withdraw("twin", by=two)  # not its name: left alone
    assert _entry(client, "twin")["run"] == "run-1" and presence.bots_of("twin") == mine
    assert presence.publish("twin", "10.0.0.2:1", theirs, ttl_ms=60_000, by=two, take_over=True) is None
    assert _entry(client, "twin")["run"] == "run-2" and presence.bots_of("twin") == theirs
    assert presence.publish("twin", "10.0.0.1:1", {}, ttl_ms=100, by=one) is not None
    assert presence.publish("twin", "10.0.0.2:1", {}, ttl_ms=100, by=two) is None  # no bots: none listed
    assert presence.bots_of("twin") == {}
    time.sleep(0.3)  # run-2's entry lapses (it stopped refreshing it): run-1 takes the name back
    assert presence.publish("twin", "10.0.0.1:1", mine, ttl_ms=60_000, by=one) is None
    assert presence.instances() == {"twin": "10.0.0.1:1"} and presence.bots_of("twin") == mine
    assert presence.publish("twin", "10.0.0.9:1", {}) is None  # no run (a fixture, a tool): written
    assert not presence.withdraw("twin", by=one)  # not run-1's (an older version's entry has no run)
    assert presence.withdraw("twin")  # without a run: whoever holds it
    assert _entry(client, "twin") == {} and presence.bots_of("twin") == {}


def _health(address: str) -> str:
    """What ``address`` answers a health check of the server as a whole (``SERVING``, ...)."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def _until(check: Any, what: str, timeout: float = 30.0) -> Any:
    """Poll ``check`` until it returns something true (which is returned)."""
    deadline = time.monotonic() + timeout
    while not (got := check()):
        assert time.monotonic() < deadline, what
        time.sleep(0.1)
    return got


def test_a_process_whose_name_was_taken_while_it_stalled_stands_by_until_the_name_is_free(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """Process 1 of instance ``twin`` stalls (SIGSTOP) while its presence entry goes (Redis
    restarted without its data: the key is deleted), and process 2 starts under the same name
    meanwhile.  Once resumed, process 1 does not overwrite process 2's presence: it logs one
    error naming both runs, reports ``cardarena_instance_name_conflict 1`` and health
    ``NOT_SERVING``, claims no match, and plays its live match to the end.  When process 2
    stops, process 1 takes the name back and serves again: it claims the match that waited."""
    import os
    import signal

    from .test_server_metrics import free_port, scrape, value

    client = client_for(redis_url)
    matches, bots, presence = MatchStore(client), BotStore(client), PresenceStore(client)

    def queue(match_id: str) -> None:
        spec = MatchSpec(match_id, "loot_the_loop", 1, ("solo",), seed=7, time_control=SLOW_CLOCK)
        matches.enqueue(spec)

    def conflict() -> float:
        return value(scrape(port), "cardarena_instance_name_conflict")

    port, log = free_port(), tmp_path / "first.log"
    first = ServiceProcess(redis_url, "--instance-name", "twin", "--metrics-port", str(port), "--grace", "0", log=log)
    second: ServiceProcess | None = None
    bot = ScriptedBot(first.address, bots.register("solo"), "solo")
    try:
        assert bot.expect("welcome").instance == "twin"
        queue("live")
        request = bot.expect("action_request")  # the match is live on process 1, waiting for the bot
        assert request.match_id == "live" and conflict() == 0 and _health(first.address) == "SERVING"
        os.kill(first.proc.pid, signal.SIGSTOP)
        try:
            client.delete(presence.INSTANCES)  # the lapse
            second = ServiceProcess(redis_url, "--instance-name", "twin", "--grace", "0")  # takes the free name
        finally:
            os.kill(first.proc.pid, signal.SIGCONT)
        run = _entry(client, "twin")["run"]

        _until(lambda: conflict() == 1, "process 1 did not notice that process 2 holds its name")
        assert _health(first.address) == "NOT_SERVING" and _health(second.address) == "SERVING"
        lost = [e for e in map(json.loads, log.read_text().splitlines()) if e["event"] == "instance_name_lost"]
        assert len(lost) == 1 and lost[0]["level"] == "error", lost
        assert lost[0]["held_by_run"] == run != lost[0]["run"] and lost[0]["held_by_address"] == second.address
        assert lost[0]["address"] == first.address and lost[0]["live_matches"] == 1
        assert _entry(client, "twin")["address"] == second.address  # not overwritten
        assert presence.bots_of("twin") == {}  # process 2 has no bot; process 1 publishes none

        bot.autoplay()  # the live match plays on to its end, on process 1
        bot.act(request.match_id, request.seq, request.legal[0].id)
        _until(lambda: matches.status("live") == "done", "the live match did not finish")
        queue("waiting")  # no instance claims it: process 1 stands by, process 2 has no bot
        time.sleep(3)
        assert matches.status("waiting") == "queued" and conflict() == 1
        assert len([line for line in log.read_text().splitlines() if "instance_name_lost" in line]) == 1  # once

        second.stop()  # withdraws its entry: the name is free
        _until(lambda: conflict() == 0, "process 1 did not take its name back")
        assert _health(first.address) == "SERVING" and _entry(client, "twin")["address"] == first.address
        _until(lambda: matches.status("waiting") == "done", "process 1 did not claim the waiting match")
        assert "instance_name_regained" in log.read_text()
    finally:
        bot.close()
        if second is not None:
            second.stop()
        first.stop()


def test_sigterm_during_the_start_stops_gracefully_and_withdraws_the_presence(redis_url: str, key_prefix: str) -> None:
    """A SIGTERM that arrives while the service starts (its name already taken in Redis, before
    it says "listening"), as an orchestrator stopping a pod right after it was scheduled does,
    stops it gracefully: exit status 0 and its presence withdrawn.  The signal handlers were
    installed only after "listening", so such a SIGTERM killed the process outright and its
    entry held the instance name for a presence TTL."""
    import os
    import subprocess
    import sys

    client = client_for(redis_url)
    argv = [sys.executable, "-m", "cardarena.server", "service", "--port", "0", "--instance-name", "early"]
    argv += ["--grace", "0"]
    proc = subprocess.Popen(
        argv, env={**os.environ, "REDIS_URL": redis_url}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while not _entry(client, "early") and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        assert _entry(client, "early"), "the service never took its name"
        proc.terminate()
        assert proc.wait(30) == 0
    finally:
        stop_process(proc)
    assert _entry(client, "early") == {}
