"""The match job contract on a real Redis: queue, leases, write-once results, reconciler."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import replace
from urllib.parse import urlsplit, urlunsplit

import redis
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.keys import key
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl


def spec(mid: str = "t1:r0:t0:s0:d0") -> MatchSpec:
    return MatchSpec(
        match_id=mid,
        game="glaves",
        players=3,
        seats=("a", "b", "c"),
        seed=42,
        options={"deals": 1},
        time_control=TimeControl(500, 1000),
        fault_policy=FaultPolicy(max_strikes=2),
        tournament="t1",
    )


def store(url: str) -> MatchStore:
    return MatchStore(client_for(url))


def test_spec_round_trip() -> None:
    s = spec()
    assert MatchSpec.from_json(s.to_json()) == s


def test_enqueue_is_idempotent_and_claim_leases(redis_url: str, key_prefix: str) -> None:
    st = store(redis_url)
    assert st.enqueue(spec())
    assert not st.enqueue(spec())
    assert st.status("t1:r0:t0:s0:d0") == "queued"
    got = st.claim("inst-a", wait_s=0.5)
    assert got == spec()
    assert st.status(got.match_id) == "running"
    assert st.claim("inst-b", wait_s=0.1) is None
    assert st.renew(got.match_id, "inst-a")
    assert not st.renew(got.match_id, "inst-b")


def test_complete_writes_once_and_emits_one_event(redis_url: str, key_prefix: str) -> None:
    st = store(redis_url)
    st.enqueue(spec())
    got = st.claim("inst-a", wait_s=0.5)
    assert got is not None
    replay = {"format": "cardarena-replay/1", "deals": [], "result": {"scores": [1, 2, 3], "ranks": [3, 2, 1]}}
    assert st.complete(got.match_id, "inst-a", {"scores": [1, 2, 3], "ranks": [3, 2, 1]}, replay)
    assert not st.complete(got.match_id, "inst-a", {"scores": [9, 9, 9], "ranks": [1, 1, 1]}, {})
    assert st.result(got.match_id) == {"scores": [1, 2, 3], "ranks": [3, 2, 1]}
    assert st.replay(got.match_id) == replay
    events = st.r.xrange(st.STREAM)
    assert len(events) == 1 and events[0][1][b"match_id"] == got.match_id.encode()
    assert events[0][1][b"tournament"] == b"t1"


def test_a_matchs_statistics_count_once_with_its_result(redis_url: str, key_prefix: str) -> None:
    """The bot statistics go with the result: a second completion (another run of the match)
    writes nothing and counts nothing."""
    st = store(redis_url)
    bots = BotStore(st.r)
    for name in ("a", "b", "c"):
        bots.register(name)
    st.enqueue(spec())
    got = st.claim("inst-a", wait_s=0.5)
    assert got is not None
    stats = {"a": {"matches": 1, "timeouts": 2}, "b": {"matches": 1, "illegal_actions": 0}, "c": {"forfeits": 1}}
    assert st.complete(got.match_id, "inst-a", {"scores": [1, 2, 3]}, {}, stats=stats)
    assert not st.complete(got.match_id, "inst-b", {"scores": [3, 2, 1]}, {}, stats=stats)
    counted = {n: {k: v for k, v in bots.get(n).stats.items() if v} for n in "abc"}  # type: ignore[union-attr]
    assert counted == {"a": {"matches": 1, "timeouts": 2}, "b": {"matches": 1}, "c": {"forfeits": 1}}


class _LostReply:
    """A TCP proxy in front of Redis (the network, an IO boundary) that loses one reply: the
    first command holding ``marker`` reaches Redis, and the connection is then closed instead of
    passing Redis's reply on, as when a link fails after the server acted.  The client's retry
    sends the command again on a new connection."""

    def __init__(self, url: str, marker: bytes) -> None:
        parts = urlsplit(url)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 6379)
        self.marker = marker
        self.lost = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        host = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
        self.url = urlunsplit(parts._replace(netloc=f"{host}127.0.0.1:{self.listener.getsockname()[1]}"))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                near, _ = self.listener.accept()
            except OSError:
                return
            far = socket.create_connection(self.upstream)
            armed = threading.Event()  # the next reply on this connection is to be lost
            threading.Thread(target=self._pump, args=(near, far, armed, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(far, near, armed, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, armed: threading.Event, to_redis: bool) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                if to_redis and not self.lost and self.marker in data:
                    armed.set()
                elif not to_redis and armed.is_set():
                    self.lost += 1
                    break
                dst.sendall(data)
        for end in (src, dst):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def close(self) -> None:
        self.listener.close()


def test_a_completion_whose_reply_was_lost_is_sent_again_and_counts_once(redis_url: str, key_prefix: str) -> None:
    """redis-py sends a command again when its reply is lost (the connection dropped after
    Redis ran it).  The repeated completion is the same call: it reports the match as written
    by this run, and the statistics are counted once, not twice."""
    st = store(redis_url)
    BotStore(st.r).register("a")
    first, second = spec("m-warm"), spec("m-lost")
    for s in (first, second):
        st.enqueue(s)
    assert st.claim("inst-a", wait_s=0.5) is not None and st.claim("inst-a", wait_s=0.5) is not None
    proxy = _LostReply(redis_url, second.match_id.encode())
    try:
        through = MatchStore(client_for(proxy.url))
        stats = {"a": {"matches": 1, "errors": 1}}
        # The first completion loads the script (a first EVALSHA is refused: NOSCRIPT, then EVAL).
        assert through.complete(first.match_id, "inst-a", {"scores": [1]}, {}, tournament="t1", stats=stats)
        assert through.complete(second.match_id, "inst-a", {"scores": [2]}, {}, tournament="t1", stats=stats)
        assert proxy.lost == 1  # the reply to the second one was lost, and the command sent again
        through.r.close()
    finally:
        proxy.close()
    record = BotStore(st.r).get("a")
    assert record is not None and (record.stats["matches"], record.stats["errors"]) == (2, 2)
    assert st.info(second.match_id)["finished_by"] == "inst-a" and len(st.r.xrange(st.STREAM)) == 2


def test_void_requeues_and_lost_lease_is_reconciled(redis_url: str, key_prefix: str) -> None:
    st = store(redis_url)
    st.enqueue(spec("m1"))
    st.enqueue(spec("m2"))
    a = st.claim("inst-a", wait_s=0.5)
    assert a is not None and a.match_id == "m1"
    assert not st.void("m1", "inst-b", "not mine")
    assert st.void("m1", "inst-a", "server stopping")
    assert st.status("m1") == "queued" and st.result("m1") is None
    again = st.claim("inst-b", wait_s=0.5)
    assert again is not None and again.match_id == "m1"  # voided matches go first
    b = st.claim("inst-c", lease_ms=50, wait_s=0.5)
    assert b is not None and b.match_id == "m2"
    time.sleep(0.1)
    assert st.requeue_lost() == ["m2"]
    assert st.status("m2") == "queued"
    assert st.info("m2")["attempts"] == "1"
    c = st.claim("inst-d", wait_s=0.5)
    assert c is not None and c.match_id == "m2"
    assert st.info("m2")["attempts"] == "2"


def test_a_lease_is_its_claims_own_and_a_new_life_under_the_same_name_holds_none_of_it(
    redis_url: str, key_prefix: str
) -> None:
    """A service instance restarted under the same name (``--instance-name``, a pod's name) is
    a second store with that name: it cannot renew or give back the leases of its previous
    life, which lapse and are requeued by the reconciler; and once it claims such a match
    again, the previous life (still running, stalled for longer than the lease) cannot renew or
    give back the new claim's lease either.  The record names the instance, the lease which
    life of it holds the match."""
    life1, life2 = store(redis_url), store(redis_url)
    assert life1.run_id != life2.run_id
    for mid in ("n1", "n2"):
        life1.enqueue(spec(mid))
    normal = life1.claim("svc", wait_s=0.5)
    assert normal is not None and normal.match_id == "n1"
    assert life1.r.get(key("match", "n1", "lease")) == f"svc:{life1.run_id}".encode()
    assert life1.info("n1")["instance"] == "svc"
    assert life1.renew("n1", "svc")
    assert life1.complete("n1", "svc", {"scores": [1, 2, 3]}, {})
    assert life1.info("n1")["finished_by"] == "svc" and life1.r.exists(key("match", "n1", "lease")) == 0

    lost = life1.claim("svc", lease_ms=60_000, wait_s=0.5)  # then life 1 stalls, or dies
    assert lost is not None and lost.match_id == "n2"
    assert not life2.renew("n2", "svc")
    assert not life2.void("n2", "svc", "server stopping")
    assert life2.status("n2") == "running" and life2.requeue_lost() == []  # its lease still lives
    assert life1.r.get(key("match", "n2", "lease")) == f"svc:{life1.run_id}".encode()  # untouched
    _lapse(life1.r, key("match", "n2", "lease"))  # nobody renewed it
    assert life2.requeue_lost() == ["n2"]
    again = life2.claim("svc", wait_s=0.5)
    assert again is not None and again.match_id == "n2"
    assert life2.r.get(key("match", "n2", "lease")) == f"svc:{life2.run_id}".encode()
    assert not life1.renew("n2", "svc")  # the stalled life learns it lost the match
    assert not life1.void("n2", "svc", "server stopping")  # and cannot requeue it under life 2
    assert life2.status("n2") == "running" and life2.info("n2")["attempts"] == "2"
    assert life2.renew("n2", "svc")
    assert life2.void("n2", "svc", "server stopping") and life2.status("n2") == "queued"


def test_withdrawn_matches_are_never_claimed_and_a_voided_one_stays_out(redis_url: str, key_prefix: str) -> None:
    st = store(redis_url)
    for mid in ("w:0", "w:1", "w:2", "w:3"):
        st.enqueue(spec(mid))
    running = st.claim("inst-a", wait_s=0.5)
    finishing = st.claim("inst-a", wait_s=0.5)
    assert running is not None and finishing is not None
    assert st.complete(finishing.match_id, "inst-a", {"scores": [1, 2, 3], "ranks": [3, 2, 1]}, {})
    # two queued, one running, one done, one unknown
    assert st.withdraw(["w:0", "w:1", "w:2", "w:3", "nope"], "cancelled") == 3
    queued = sorted({"w:0", "w:1", "w:2", "w:3"} - {running.match_id, finishing.match_id})
    assert [st.status(m) for m in queued] == ["withdrawn", "withdrawn"]
    assert st.status(finishing.match_id) == "done"
    assert st.status(running.match_id) == "running"  # plays on
    assert st.claim("inst-b", wait_s=0.2) is None  # nothing queued is handed out
    assert st.void(running.match_id, "inst-a", "server stopped")
    assert st.status(running.match_id) == "withdrawn"  # not back in the queue
    assert st.requeue_lost() == []
    assert st.claim("inst-b", wait_s=0.2) is None
    assert st.withdraw(queued, "again") == 0


def test_embedded_redis_leaves_nothing_running(tmp_path: object) -> None:
    from pathlib import Path

    from cardarena.store.connection import EmbeddedRedis

    server = EmbeddedRedis(Path(str(tmp_path)), persist=True).start()
    pid = server.process.pid if server.process else 0
    client = redis.Redis.from_url(server.url)
    client.set("x", "1")
    client.close()
    server.stop()
    import os

    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive
    data = Path(str(tmp_path))
    assert (data / "appendonly.aof").exists() or (data / "appendonlydir").exists()  # Redis 6 / 7


def test_lanes_keep_their_matches_apart(redis_url: str, key_prefix: str) -> None:
    """A local run's service claims its own lane only, and a platform's only the default lane;
    a voided or lost match goes back to its own lane."""
    client = client_for(redis_url)
    platform, run = MatchStore(client), MatchStore(client, lane="run-1")
    platform.enqueue(spec("p:0"))
    run.enqueue_many([replace(spec("r:0"), queue="run-1"), replace(spec("r:1"), queue="run-1")])
    got = platform.claim("platform", wait_s=0.2)
    assert got is not None and got.match_id == "p:0"
    assert platform.claim("platform", wait_s=0.2) is None  # not the run's
    first = run.claim("run", wait_s=0.2)
    assert first is not None and first.match_id == "r:0" and first.queue == "run-1"
    assert run.void("r:0", "run", "server stopped")
    assert platform.claim("platform", wait_s=0.2) is None  # back in the run's lane, not the default one
    assert {run.claim("run", wait_s=0.2).match_id for _ in range(2)} == {"r:0", "r:1"}  # type: ignore[union-attr]
    # queued but missing from its list (a crash between the two): re-pushed to its own lane
    run.enqueue(replace(spec("r:2"), queue="run-1"))
    client.lrem(run.QUEUE, 0, "r:2")
    assert run.requeue_lost() == ["r:2"]
    assert client.lrange(run.QUEUE, 0, -1) == [b"r:2"] and client.llen(platform.QUEUE) == 0
    client.close()


def test_an_id_naming_a_matchs_sub_key_is_no_match(redis_url: str, key_prefix: str) -> None:
    """``match:<id>:replay`` and ``match:<id>:lease`` belong to match ``<id>``: an id ending in
    ``:replay`` or ``:lease`` would share a key with them, so it is refused on enqueue and is
    unknown to every read (no WRONGTYPE error from Redis)."""
    st = store(redis_url)
    assert st.enqueue(spec())
    got = st.claim("inst-a", wait_s=0.5)
    assert got is not None
    assert st.complete(got.match_id, "inst-a", {"scores": [1, 2, 3]}, {"format": "x"})
    assert st.enqueue(spec("t1:r0:t0:s0:d1"))
    assert st.claim("inst-a", wait_s=0.5) is not None  # running: it has a lease key
    for mid in ("t1:r0:t0:s0:d0:replay", "t1:r0:t0:s0:d1:lease"):
        assert st.spec(mid) is None and st.status(mid) is None and st.result(mid) is None
        assert st.info(mid) == {} and st.infos([mid, "t1:r0:t0:s0:d0"])[0] == {}
        assert st.attempts(mid) == 0 and st.replay(mid) is None
        for enqueue in (st.enqueue, lambda s: st.enqueue_many([s])):
            try:
                enqueue(spec(mid))
            except ValueError as exc:
                assert "match id" in str(exc)
            else:
                raise AssertionError(f"{mid} was enqueued")
    assert st.replay("t1:r0:t0:s0:d0") == {"format": "x"}  # nothing of the real match changed


def _lapse(client: redis.Redis, lease: str) -> None:
    """Let ``lease`` lapse now, as if its time to live had run out (a test that waits for a
    short one to lapse can see it lapse too early on a loaded machine)."""
    client.pexpire(lease, 1)
    deadline = time.monotonic() + 5
    while client.exists(lease):
        assert time.monotonic() < deadline, f"{lease} did not lapse"
        time.sleep(0.005)


def _seated(mid: str, game: str, seats: tuple[str, ...]) -> MatchSpec:
    return MatchSpec(match_id=mid, game=game, players=len(seats), seats=seats, seed=1, tournament="t")


def test_each_match_is_listed_by_its_game_its_bots_and_each_bot_in_its_game(redis_url: str, key_prefix: str) -> None:
    """Both ways of storing a match (``enqueue``, ``enqueue_many``) list it, once, newest first,
    in the index of its game, of each bot and of each bot in its game; storing it again adds
    nothing."""
    st = store(redis_url)
    assert st.enqueue(_seated("m1", "glaves", ("a", "b")))
    assert st.enqueue_many([_seated("m2", "knaves", ("a", "c")), _seated("m3", "glaves", ("c", "c"))]) == [True] * 2
    assert not st.enqueue(_seated("m1", "glaves", ("a", "b")))
    assert st.enqueue_many([_seated("m2", "knaves", ("a", "c"))]) == [False]
    assert st.listed(bot="a") == ["m2", "m1"]
    assert st.listed(bot="c") == ["m3", "m2"]
    assert st.listed(game="glaves") == ["m3", "m1"]
    assert st.listed(bot="a", game="glaves") == ["m1"]
    assert st.listed(bot="c", game="glaves") == ["m3"]
    assert st.listed(bot="b", game="knaves") == []
    assert st.listed(1, 1, bot="c") == ["m2"] and st.listed(0, 0, bot="c") == []
    assert st.listed(bot="a", game="glaves:bot") == [] and st.listed(game="nope") == []
    assert st.listed() == st.recent() == ["m3", "m2", "m1"]


def test_matches_stored_before_the_indexes_are_indexed_once(redis_url: str, key_prefix: str) -> None:
    """Matches stored by an earlier version (a hash and ``matches:all``, no index) become listed
    by ``index_older``, with their place in ``matches:all``; it runs once (a marker), and again
    on demand without listing anything twice; an id whose record is gone is skipped."""
    st = store(redis_url)
    st.enqueue_many([_seated(f"old{n}", "glaves" if n % 2 else "knaves", ("a", f"b{n % 3}")) for n in range(2500)])
    st.r.zadd(st.ALL, {"gone": 1.0})
    indexes = [k for k in st.r.scan_iter(match=f"{key_prefix}matches:*") if b":game" in k or b":bot:" in k]
    assert len(indexes) == 2 + 4 + 2 * 4  # games, bots, bots in games
    st.r.delete(*indexes)  # as an earlier version left them
    assert st.listed(bot="a") == []
    assert st.index_older(chunk=1000) == 2500
    every = [m for m in st.recent(0, 3000) if m != "gone"]  # newest first
    assert st.listed(0, 3000, bot="a") == every
    assert st.listed(0, 3000, game="glaves") == [m for m in every if int(m[3:]) % 2]
    assert st.listed(0, 3000, bot="b1", game="knaves") == [m for m in every if int(m[3:]) % 6 == 4]
    assert st.index_older() is None
    assert st.enqueue(_seated("new", "glaves", ("a", "b0")))
    assert st.index_older(force=True) == 0  # indexed as it was stored: nothing was missing
    assert st.listed(0, 3000, bot="a") == ["new", *every]


def test_matches_this_version_stored_count_as_none_missing_from_the_indexes(redis_url: str, key_prefix: str) -> None:
    """A new deployment's first dashboard checks the indexes once: matches played before it
    started were indexed as they were stored, so it reports none indexed (it reported every
    match as "stored before the match indexes")."""
    st = store(redis_url)
    st.enqueue_many([_seated(f"m{n}", "glaves", ("a", "b")) for n in range(5)])
    assert st.index_older() == 0
    st.r.zrem(st.index_key(bot="b"), "m3")  # one left out of one of its indexes
    assert st.index_older(force=True) == 1


def test_the_reconciler_reads_ids_not_records(redis_url: str, key_prefix: str) -> None:
    """Every instance runs ``requeue_lost`` every few seconds beside its matches: with a
    tournament's queue of 2,000 matches all listed, it reads the list (ids), not 2,000 match
    records (the old way sent ~1 MB per sweep and held the GIL parsing it, a latency spike in
    the service's loop); one missing from its list is still found and re-pushed."""
    client = client_for(redis_url)
    st = MatchStore(client)
    st.enqueue_many([spec(f"big:{n}") for n in range(2000)])
    served = lambda: int(client.info("stats")["total_net_output_bytes"])  # noqa: E731
    before = served()
    assert st.requeue_lost() == []
    cost = served() - before
    assert cost < 80_000, cost  # 2,000 ids of ~10 bytes; the records alone are ~1 MB
    client.lrem(st.QUEUE, 0, "big:7")
    assert st.requeue_lost() == ["big:7"]
    assert client.lrange(st.QUEUE, 0, -1).count(b"big:7") == 1
    client.close()
