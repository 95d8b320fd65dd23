"""A bot that stops reading its stream (``Limits.max_queued_messages`` / ``max_queued_bytes``):
over real gRPC on loopback with a real Redis, the service ends its session with
``RESOURCE_EXHAUSTED`` once more is queued for it than allowed, its matches go on under the
disconnect policy and are recorded once, and the bot resumes them with its token.  A bot that
reads, under a burst, never trips the default bound.  The accounting of the outbox itself is
checked on the hub directly."""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from cardarena.server.hub import MAX_QUEUED_MESSAGES, Hub
from cardarena.server.service import Instance, Limits
from cardarena.store.bots import BotStore
from cardarena.store.matches import FaultPolicy, MatchStore, TimeControl
from cardarena.wire import codec

from .server_harness import ScriptedBot, ServiceProcess, pb
from .test_server import spec, wait_done
from .test_server_metrics import eventually, free_port, value

SMALL_WINDOW = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]
"""Channel options of the bot that does not read: HTTP/2 flow control stalls the server's
writes after about a KiB instead of the megabytes a default window (and the loopback socket
buffers) take first; a bot with a default window stalls the same way, later."""


class UnreadBot:
    """A raw ``Arena.Play`` client (the fake at the IO boundary) that says Hello, reads the
    Welcome, and then reads nothing until :meth:`read_to_end`."""

    def __init__(self, address: str, token: str, *, max_matches: int) -> None:
        self.channel = grpc.insecure_channel(address, options=SMALL_WINDOW)
        stub = codec.arena_pb2_grpc.ArenaStub(self.channel)
        self.out: queue.Queue[Any] = queue.Queue()
        self.out.put(pb.BotMessage(hello=pb.Hello(max_matches=max_matches)))
        self.call = stub.Play(iter(self.out.get, None), metadata=(("authorization", f"Bearer {token}"),))
        self.welcome = next(self.call).welcome

    def read_to_end(self) -> tuple[list[Any], grpc.RpcError]:
        """Every message still coming, and the error status the stream ended with."""
        got = []
        try:
            for message in self.call:
                got.append(message)
        except grpc.RpcError as exc:
            return got, exc
        raise AssertionError(f"the stream ended with OK after {len(got)} messages")

    def close(self) -> None:
        self.out.put(None)
        self.call.cancel()
        self.channel.close()


@pytest.fixture
def metrics_port() -> int:
    return free_port()


@pytest.fixture
def small_outbox(redis_url: str, key_prefix: str, metrics_port: int) -> Iterator[ServiceProcess]:
    svc = ServiceProcess(
        redis_url,
        "--max-queued-messages",
        "64",
        "--sessions-per-bot",
        "2",
        "--grace",
        "0",
        "--metrics-port",
        str(metrics_port),
    )
    yield svc
    svc.stop()


@pytest.fixture
def default_service(redis_url: str, key_prefix: str) -> Iterator[ServiceProcess]:
    svc = ServiceProcess(redis_url, "--grace", "0")
    yield svc
    svc.stop()


def _stat(bots: BotStore, name: str, stat: str) -> int:
    record = bots.get(name)
    assert record is not None
    return record.stats[stat]


def _eventually(check: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _opens(address: str, token: str) -> bool:
    """Whether a new stream of the token's bot gets a session (closed again at once)."""
    probe = ScriptedBot(address, token, max_matches=1)
    try:
        first = next(probe.messages(), None)
        return first is not None and first.WhichOneof("kind") == "welcome"
    finally:
        probe.close()


def test_a_bot_that_stops_reading_is_ended_resource_exhausted_and_resumes(
    small_outbox: ServiceProcess, stores: tuple[MatchStore, BotStore], metrics_port: int
) -> None:
    """``lazy`` (capacity 4) says Hello and stops reading while it plays three matches against
    a bot that answers at once.  Its clock runs out move after move (default actions), every
    event and request is queued for it, and past 64 queued messages the service drops them and
    ends the session: the seats are released as on a disconnect (a disconnect counted per
    live match).  lazy reconnects with its token and resumes the matches still live; the old
    stream keeps its session slot until lazy reads it, and then gets what was already in
    flight and RESOURCE_EXHAUSTED "stream not read: ...".  Every match is recorded once."""
    matches, bots = stores
    busy = ScriptedBot(small_outbox.address, bots.register("busy"), "busy", max_matches=4)
    busy.expect("welcome")
    busy.autoplay()
    lazy_token = bots.register("lazy")
    lazy = UnreadBot(small_outbox.address, lazy_token, max_matches=4)
    assert lazy.welcome.bot == "lazy"
    # Never forfeit (max_strikes 0): lazy's seats wait out their clock on every move, so the
    # matches are still being played when it comes back (German Whist: 26 moves of lazy's).
    clock = TimeControl(move_ms=500, bank_ms=0)
    policy = FaultPolicy(max_strikes=0, join_timeout_ms=10000)
    ids = [f"unread-{i}" for i in range(3)]
    for i, mid in enumerate(ids):
        seats = ["lazy", "busy"] if i % 2 == 0 else ["busy", "lazy"]
        matches.enqueue(spec(mid, "german_whist", seats, seed=i + 1, time_control=clock, fault_policy=policy))

    # The session ends while lazy still reads nothing (counted, and a disconnect per live match).
    samples = eventually(metrics_port, lambda s: value(s, "cardarena_unread_streams_total") == 1, timeout=60)
    assert value(samples, "cardarena_unread_streams_total") == 1
    _eventually(lambda: _stat(bots, "lazy", "disconnects") >= len(ids))
    # It comes back with its token while the old stream still waits for it to read: the live
    # matches are resumed, each with its MatchStart(resumed).
    live = {mid for mid in ids if matches.status(mid) != "done"}
    back = ScriptedBot(small_outbox.address, lazy_token, "lazy", max_matches=4)
    welcome = back.expect("welcome")
    resumed = set(welcome.resumed)
    assert resumed, "every match ended before lazy came back"
    assert resumed <= live
    starts = [back.expect("match_start") for _ in resumed]
    assert {s.match_id for s in starts} == resumed and all(s.resumed for s in starts)
    back.autoplay()
    # The unread stream keeps its slot until its status is delivered: 2 sessions per bot.
    third = ScriptedBot(small_outbox.address, lazy_token, "lazy")
    assert third.status() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert third.error is not None and (third.error.details() or "").startswith("at most 2 sessions per bot")
    third.close()

    got, error = lazy.read_to_end()
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    details = error.details() or ""
    assert details.startswith("stream not read: 65 messages / "), details
    assert details.endswith(" bytes queued"), details
    assert len(got) < 64  # only what gRPC had taken before the writes stalled: the rest was dropped
    lazy.close()
    # The status delivered, the slot is free again.
    _eventually(lambda: _opens(small_outbox.address, lazy_token))

    for mid in ids:
        result = wait_done(matches, mid, timeout=120)
        assert result["forfeited"] == []  # max_strikes 0: faults, never a forfeit
        replay = matches.replay(mid)
        assert replay is not None
        lazy_seat = list(replay["seats"]).index("lazy")
        faults = [f for f in replay["faults"] if f["seat"] == lazy_seat]
        assert faults and all(f["default"] for f in faults)
        assert {f["fault"] for f in faults} <= {"timeout", "disconnect"}
        assert matches.attempts(mid) == 1  # claimed once, never voided and replayed
    assert _stat(bots, "lazy", "matches") == len(ids)  # recorded once each
    assert _stat(bots, "busy", "matches") == len(ids)
    assert busy.error is None and back.error is None  # their streams are alive
    back.close()
    busy.close()


def test_a_bot_that_reads_does_not_trip_the_default_bound_under_a_burst(
    default_service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """A batching bot holds both seats of 30 matches and resigns each on its first request:
    every one of them is then played out by default actions at once, a burst of thousands of
    events queued for the one session faster than it reads them.  Under the default bound the
    session survives it (a bound of a few hundred messages would end it)."""
    matches, bots = stores
    count = 30
    bot = ScriptedBot(
        default_service.address,
        bots.register("quitter"),
        hello=pb.BotMessage(hello=pb.Hello(max_matches=2 * count, batching=True)),
    )
    bot.expect("welcome")
    ids = [f"burst-{i}" for i in range(count)]
    for i, mid in enumerate(ids):
        matches.enqueue(
            spec(mid, "german_whist", ["quitter", "quitter"], seed=i + 1, time_control=TimeControl(60000, 0))
        )
    # Resign every match at once, when each has sent its first request: the burst.
    asked: set[str] = set()
    ended: set[str] = set()
    events = 0
    resigned = False
    for message in bot.messages(timeout=60):
        items = list(message.batch.messages) if message.WhichOneof("kind") == "batch" else [message]
        for item in items:
            kind = item.WhichOneof("kind")
            if kind == "action_request":
                asked.add(item.action_request.match_id)
            elif kind == "event":
                events += 1
            elif kind == "match_end":
                ended.add(item.match_end.match_id)
        if len(asked) == count and not resigned:
            resigned = True
            resigns = [pb.BotMessage(resign=pb.Resign(match_id=mid)) for mid in ids]
            bot.send(pb.BotMessage(batch=pb.BotBatch(messages=resigns)))
        if len(ended) == count:
            break
    assert ended == set(ids), bot.error
    assert events > 1000  # the burst: every match played out by default actions
    for mid in ids:
        result = wait_done(matches, mid)
        assert result["forfeited"] == [0, 1]
    # The stream is still open: a request for nothing is answered in-band.
    bot.send(pb.BotMessage(resign=pb.Resign(match_id="nothing")))
    assert bot.expect("action_rejected").code == pb.REJECT_UNKNOWN_MATCH
    assert bot.error is None
    bot.close()


def test_the_outbox_counts_what_it_holds_and_drops_it_past_its_bound() -> None:
    """The hub's side, without gRPC: the bytes queued are counted as messages and serialized
    requests go in and out (also through batching), and past the bound the queue is emptied,
    the session closed with the details and the stream's end asked for once."""
    hub = Hub(instance="i", sessions_per_bot=4, bad_per_minute=1000, max_queued_messages=10, max_queued_bytes=10_000)
    session = hub.open("b", pb.Hello(max_matches=2, batching=True))
    ended: list[str] = []
    session.on_overflow = lambda: ended.append(session.unread)
    outbox = session.outbox
    welcome = outbox.get_nowait()
    assert outbox.qsize() == 0 and outbox.bytes == 0
    event = pb.ServerMessage(event=pb.Event(match_id="m", seat=1, action="x"))
    raw = pb.ServerMessage(ping=pb.Ping(nonce=7)).SerializeToString()
    for _ in range(3):
        session.send(event)
        session.send(raw)
    assert outbox.bytes == 3 * (event.ByteSize() + len(raw))
    first = outbox.get_nowait()
    _, done = codec.coalesce_wire(first, outbox)
    assert not done and outbox.qsize() == 0 and outbox.bytes == 0
    assert outbox.peak_messages == 6 and outbox.peak_bytes >= len(welcome)

    for _ in range(10):
        session.send(event)
    assert not ended and not session.closed
    session.send(event)  # the 11th
    assert ended == [f"stream not read: 11 messages / {11 * event.ByteSize()} bytes queued"]
    assert session.closed
    assert outbox.qsize() == 1 and outbox.get_nowait() is None  # only the end of the stream
    assert outbox.bytes == 0
    session.send(event)  # closed: dropped
    assert outbox.qsize() == 0 and ended == [ended[0]]

    big = hub.open("b", pb.Hello(max_matches=2))
    big.on_overflow = lambda: None
    big.outbox.get_nowait()  # the Welcome
    big.send(b"\0" * 10_001)  # one message over the byte bound
    assert big.closed and big.unread == "stream not read: 1 messages / 10001 bytes queued"
    assert MAX_QUEUED_MESSAGES >= 10_000  # the default leaves room for a thousand busy matches


class _Counted:
    """A ``ServerMessage`` that counts how often it is serialized (or measured, which the
    protobuf runtime does by serializing it)."""

    def __init__(self, message: Any) -> None:
        self.message = message
        self.serialized = 0

    def SerializeToString(self) -> bytes:
        self.serialized += 1
        return bytes(self.message.SerializeToString())

    def ByteSize(self) -> int:
        self.serialized += 1
        return int(self.message.ByteSize())


def test_a_message_is_serialized_once_between_send_and_the_wire() -> None:
    """The per-move path: each event goes to every session of the match, and counting its
    bytes against the bound must not serialize it a second time (once to measure it, once to
    write it)."""
    hub = Hub(instance="i", sessions_per_bot=4, bad_per_minute=1000)
    for batching in (False, True):
        session = hub.open("b", pb.Hello(max_matches=2, batching=batching))
        session.outbox.get_nowait()  # the Welcome
        event = pb.ServerMessage(event=pb.Event(match_id="m", seat=1, action="x"))
        counted = [_Counted(event), _Counted(event)]
        for message in counted:
            session.send(message)
        assert session.outbox.bytes == 2 * event.ByteSize()
        first = session.outbox.get_nowait()
        item, _ = codec.coalesce_wire(first, session.outbox) if batching else (first, False)
        wire = pb.ServerMessage.FromString(codec.serialize_server_message(item))
        got = list(wire.batch.messages) if batching else [wire]
        assert got[0] == event and [m.serialized for m in counted] == [1, 1]


def test_a_stream_over_its_bound_before_its_session_is_set_up_gives_its_lease_back(
    redis_url: str, stores: tuple[MatchStore, BotStore]
) -> None:
    """The outbox can overflow inside ``Hub.open`` (the Welcome and the resumed seats' messages
    are queued there, before the handler watches for an overflow; a bound of 0 makes the
    Welcome do it): the stream ends ``RESOURCE_EXHAUSTED`` and its session lease is given
    back, not kept (and renewed) for as long as the instance runs, a session slot the bot
    never gets back."""
    _, bots = stores
    token = bots.register("eager")
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    inst = Instance(redis_url, limits=Limits(max_queued_messages=0, sessions_per_bot=1, presence_interval_s=0.2))
    port = asyncio.run_coroutine_threadsafe(inst.start(), loop).result(30)
    try:
        bot = ScriptedBot(f"127.0.0.1:{port}", token, "eager")
        assert bot.status() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert bot.error is not None and "stream not read" in str(bot.error.details())
        bot.close()
        _eventually(lambda: not inst.held_leases, timeout=10)
        _eventually(lambda: inst.leases.held("eager") == 0, timeout=10)
    finally:
        asyncio.run_coroutine_threadsafe(inst.stop(0), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
        inst.bots.r.close()
