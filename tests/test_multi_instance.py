"""Two service instances (separate processes, different ports) on one Redis, bot processes
connected to one instance each: matches between bots on different instances run wholly on
one instance (the other relays a MatchInvite) and complete exactly once."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from cardarena.engine import rerun
from cardarena.server.commands import stop_process
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl
from cardarena.store.presence import PresenceStore

from .server_harness import ServiceProcess


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
