"""Property-based fuzzing of the bot protocol over real gRPC on loopback with real Redis.

One service process for the module; each example seats two fuzzed bots in a live match (and
two well-behaved bots in another), throws a generated sequence of messages at the service
through raw-bytes streams (valid and misdirected actions, stale/future/huge ``seq``, odd action
ids, resigns, pongs, batches nested or empty, a second Hello, an empty oneof, unknown fields,
undecodable bytes, oversized messages, disconnects and reconnects), then lets both bots play
well to the end and checks what docs/protocol.md ("Outcomes of bad input") promises:

* each stream ends only as documented (``INVALID_ARGUMENT`` "malformed message" after
  undecodable bytes, ``RESOURCE_EXHAUSTED`` for an oversized message or after exactly
  ``limit + 1`` counted bad messages, otherwise not at all);
* every in-band rejection has a reason, and deterministic ones have the documented code;
* every match is recorded exactly once, its result consistent with its replay, and a seat
  forfeits by resignation only if its bot resigned;
* the service stays healthy (health check ``SERVING``, two fresh bots play a whole match) and
  logs no error or traceback.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from cardarena.engine import rerun
from cardarena.server.commands import start_service, stop_process
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl
from cardarena.wire import codec
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, example, given, note, settings
from hypothesis import strategies as st

pb = codec.arena_pb2

BAD_LIMIT = 6
"""``--bad-messages-per-minute`` of the fuzzed service."""
MAX_MESSAGE = 65536
"""The service's default ``--max-message-bytes``."""
CLOCK = TimeControl(move_ms=4000, bank_ms=0)
"""Long enough that the fuzzed bots rarely time out, short enough that one that does costs
little; time-outs are legitimate outcomes here, never failures."""
GAME = "german_whist"
UNKNOWN_MATCH = "fz-no-such-match"

counted = itertools.count(1)


# ---------------------------------------------------------------------------- the service
@dataclass
class Fuzzed:
    """The module's service and stores."""

    address: str
    matches: MatchStore
    bots: BotStore
    tokens: dict[str, str]
    log: Path
    prefix: str
    log_offset: int = 0


@pytest.fixture(scope="module")
def fuzzed(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    prefix = f"test-fuzz-{uuid.uuid4().hex[:10]}:"
    log_path = tmp_path_factory.mktemp("fuzz") / "service.log"
    with pytest.MonkeyPatch.context() as mp, log_path.open("wb") as log:
        mp.setenv("CARDARENA_PREFIX", prefix)
        env = {**os.environ, "REDIS_URL": redis_url}
        extra = ["--bad-messages-per-minute", str(BAD_LIMIT), "--sessions-per-bot", "8", "--grace", "0"]
        proc, port = start_service(env, extra=extra, log=log)
        try:
            client = client_for(redis_url)
            bots = BotStore(client)
            tokens = {name: bots.register(name) for name in ("fz-a", "fz-b", "fz-c", "fz-d")}
            yield Fuzzed(f"127.0.0.1:{port}", MatchStore(client), bots, tokens, log_path, prefix)
        finally:
            stop_process(proc)


# ---------------------------------------------------------------------------- a raw bot
@dataclass
class Stream:
    """One ``Arena.Play`` stream as the fuzzer saw it."""

    bad_received: int = 0
    """In-band rejections that count as bad messages (all but ``REJECT_ILLEGAL_ACTION``)."""
    undecodable: bool = False
    """An undecodable frame was sent on it (the server must end it ``INVALID_ARGUMENT``)."""
    oversized: bool = False
    """A frame over the size limit was sent on it."""
    terminal: bool = False
    """A frame that ends the stream was sent: nothing more is sent on it."""
    status: Any = None
    """``(code, details)`` once the stream ended."""
    cancelled: bool = False
    """Ended by the fuzzer (a disconnect)."""


@dataclass
class RawBot:
    """A bot speaking raw bytes (a fake at the IO boundary): it sends whatever frame the test
    gives it, records every message and the stream's end, and (``auto``) answers every request
    with its first legal action, again after an illegal-action rejection of it."""

    address: str
    token: str
    name: str
    batching: bool = False
    auto: bool = False
    streams: list[Stream] = field(default_factory=list)
    rejections: list[Any] = field(default_factory=list)
    requests: dict[tuple[str, int], Any] = field(default_factory=dict)
    """Every ActionRequest received, by (match id, seq)."""
    latest: dict[str, Any] = field(default_factory=dict)
    """The last ActionRequest received per match (until its MatchEnd)."""
    started: set[str] = field(default_factory=set)
    ended: set[str] = field(default_factory=set)
    resigned: set[str] = field(default_factory=set)
    """Matches this bot sent a well-formed Resign for (it may not have arrived: messages still
    queued in the client when it disconnects are lost)."""

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.channel: Any = None
        self.out: queue.Queue[bytes | None] = queue.Queue()
        self.welcomed = threading.Event()
        self.done = threading.Event()

    # ------------------------------------------------------------ connection
    def connect(self) -> None:
        """Open a stream and say Hello; waits for the Welcome (retries a refusal for too
        many sessions: the previous stream's slot is given back when the server notices
        its end)."""
        for _ in range(100):
            self._open()
            if self.welcomed.wait(10):
                return
            assert self.done.wait(10)
            code, details = self.stream.status
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "sessions per bot" in details, self.stream.status
            self.streams.pop()
            time.sleep(0.05)
        raise AssertionError("could not connect")

    def _open(self) -> None:
        self.close()
        self.channel = grpc.insecure_channel(self.address)
        play = self.channel.stream_stream("/cardarena.v1.Arena/Play")  # raw bytes both ways
        self.out = queue.Queue()
        self.welcomed = threading.Event()
        self.done = threading.Event()
        self.stream = Stream()
        self.streams.append(self.stream)
        hello = pb.BotMessage(hello=pb.Hello(bot=self.name, max_matches=1, batching=self.batching))
        self.out.put(hello.SerializeToString())
        call = play(iter(self.out.get, None), metadata=(("authorization", f"Bearer {self.token}"),))
        self.call = call
        reader = threading.Thread(
            target=self._read, args=(call, self.stream, self.out, self.welcomed, self.done), daemon=True
        )
        reader.start()

    def _read(self, call: Any, stream: Stream, out: Any, welcomed: Any, done: Any) -> None:
        try:
            for raw in call:
                message = pb.ServerMessage.FromString(raw)
                items = message.batch.messages if message.WhichOneof("kind") == "batch" else [message]
                for item in items:
                    self._received(item, stream, out, welcomed)
            stream.status = (grpc.StatusCode.OK, "")
        except grpc.RpcError as exc:
            stream.status = (exc.code(), exc.details() or "")
        done.set()

    def _received(self, message: Any, stream: Stream, out: Any, welcomed: Any) -> None:
        kind = message.WhichOneof("kind")
        with self.lock:
            if kind == "welcome":
                welcomed.set()
            elif kind == "match_start":
                self.started.add(message.match_start.match_id)
            elif kind == "action_request":
                req = message.action_request
                self.requests[(req.match_id, req.seq)] = req
                self.latest[req.match_id] = req
                if self.auto:  # also after a Resign: it may have been lost in a disconnect
                    self._answer(out, req)
            elif kind == "action_rejected":
                rej = message.action_rejected
                self.rejections.append(rej)
                if rej.code != pb.REJECT_ILLEGAL_ACTION:
                    stream.bad_received += 1
                req = self.requests.get((rej.match_id, rej.seq))
                if self.auto and rej.code == pb.REJECT_ILLEGAL_ACTION and req is not None and rej.move_ms_left:
                    self._answer(out, req)
            elif kind == "match_end":
                self.ended.add(message.match_end.match_id)
                self.latest.pop(message.match_end.match_id, None)

    @staticmethod
    def _answer(out: Any, req: Any) -> None:
        action = pb.Action(match_id=req.match_id, seq=req.seq, action_id=req.legal[0].id)
        out.put(pb.BotMessage(action=action).SerializeToString())

    def send(self, frame: bytes, *, undecodable: bool = False) -> None:
        """Send one frame on the open stream (reconnecting first if it ended)."""
        if self.stream.terminal or self.done.is_set():
            self.wait_end()
            self.connect()
        self.stream.undecodable |= undecodable
        self.stream.oversized |= len(frame) > MAX_MESSAGE
        self.stream.terminal |= undecodable or len(frame) > MAX_MESSAGE
        self.out.put(frame)

    def wait_end(self, timeout: float = 15.0) -> None:
        assert self.done.wait(timeout), f"{self.name}: the stream did not end"

    def disconnect(self) -> None:
        if not self.done.is_set():
            self.stream.cancelled = True
        self.close()

    def close(self) -> None:
        if self.channel is not None:
            self.out.put(None)
            self.call.cancel()
            self.channel.close()
            self.channel = None
            self.done.wait(10)

    def play_well(self) -> None:
        """From now on answer every request (those already received too)."""
        with self.lock:
            self.auto = True
            if self.done.is_set():
                return
            for req in self.latest.values():
                self._answer(self.out, req)


# ---------------------------------------------------------------------------- strategies
ODD_IDS = ["", " ", "\x00", "\x00resign", "resign", "pass", "play:ZZ", "play:", "\u202e", "é" * 3, "🂡", "\ud7ff"]
action_ids = st.one_of(
    st.sampled_from(ODD_IDS),
    st.text(max_size=12),
    # ("long", n): an id of n characters, built when sent (a short repr for hypothesis);
    # the last one makes the message larger than the service's limit.
    st.tuples(st.just("long"), st.sampled_from([300, 3000, MAX_MESSAGE + 10])),
)
CRAFTED = [
    b"\x12\x09\x0a\x01m\x10\x01\x1a\x02\xff\xfe",  # an Action whose action id is not UTF-8
    b"\x22\x03\x0a\x01\xc3",  # a Resign whose match id is a truncated UTF-8 sequence
    b"\x12\x05\x10\xff\xff\xff\xff",  # an Action with a truncated varint
    b"\x2a\x04\x0a\x02\x0a\x00",  # a BotBatch holding a Hello (decodes: rejected in-band)
    b"\x0a\xff\xff\xff\xff\x0f",  # a Hello longer than the frame
]
match_kinds = st.sampled_from(["own", "own", "own", "other", "unknown", "empty", "long"])
seq_kinds = st.one_of(
    st.sampled_from(["pending", "pending", "stale", "future", "zero"]),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
)


def action_step() -> st.SearchStrategy[tuple[Any, ...]]:
    legal = st.tuples(st.just("legal"), st.integers(0, 40))
    return st.tuples(st.just("action"), match_kinds, seq_kinds, st.one_of(legal, action_ids))


def inner_item() -> st.SearchStrategy[tuple[Any, ...]]:
    return st.one_of(
        action_step(),
        st.tuples(st.just("resign"), match_kinds),
        st.tuples(st.just("pong"), st.integers(-(2**63), 2**63 - 1)),
        st.just(("hello",)),
        st.just(("empty",)),
        st.just(("batch", ())),
    )


step = st.one_of(
    # An answer to the bot's latest request (right match and seq) with any action id.
    st.tuples(
        st.just("action"),
        st.just("own"),
        st.just("pending"),
        st.one_of(st.tuples(st.just("legal"), st.integers(0, 40)), st.sampled_from(ODD_IDS)),
    ),
    action_step(),
    action_step(),
    st.tuples(st.just("resign"), match_kinds),
    st.tuples(st.just("pong"), st.integers(-(2**63), 2**63 - 1)),
    st.tuples(st.just("batch"), st.lists(inner_item(), max_size=6).map(tuple)),
    st.just(("hello",)),
    st.just(("empty",)),
    st.tuples(st.just("unknown_fields"), inner_item()),
    st.tuples(st.just("raw"), st.one_of(st.binary(min_size=1, max_size=40), st.sampled_from(CRAFTED))),
    st.just(("reconnect",)),
    st.tuples(st.just("wait"), st.integers(1, 60)),
)
scripts = st.lists(st.tuples(st.integers(0, 1), step), min_size=3, max_size=30)


# ---------------------------------------------------------------------------- one example
@dataclass
class Example:
    """The matches of one example: ``mine`` (the fuzzed bots'), ``other`` (two others')."""

    mine: str
    other: str


def match_id_for(kind: str, ex: Example) -> str:
    return {
        "own": ex.mine,
        "other": ex.other,
        "unknown": UNKNOWN_MATCH,
        "empty": "",
        "long": "m" * 5000,
    }[kind]


def seq_for(kind: Any, req: Any) -> int:
    if isinstance(kind, int):
        return kind
    pending = req.seq if req is not None else 1
    return {"pending": pending, "stale": pending - 1, "future": pending + 7, "zero": 0}[kind]


def build(item: tuple[Any, ...], bot: RawBot, ex: Example) -> Any:
    """The ``BotMessage`` of a generated message step."""
    kind = item[0]
    if kind == "action":
        _, mkind, skind, aid = item
        mid = match_id_for(mkind, ex)
        with bot.lock:
            req = bot.latest.get(ex.mine)
        if isinstance(aid, tuple) and aid[0] == "long":
            aid = "x" * aid[1]
        elif isinstance(aid, tuple):  # a legal index of the current request (or a guess)
            aid = req.legal[aid[1] % len(req.legal)].id if req is not None else "pass"
        return pb.BotMessage(action=pb.Action(match_id=mid, seq=seq_for(skind, req), action_id=aid))
    if kind == "resign":
        mid = match_id_for(item[1], ex)
        if mid == ex.mine:
            bot.resigned.add(mid)
        return pb.BotMessage(resign=pb.Resign(match_id=mid))
    if kind == "pong":
        return pb.BotMessage(pong=pb.Pong(nonce=item[1]))
    if kind == "hello":
        return pb.BotMessage(hello=pb.Hello(bot=bot.name, max_matches=1))
    if kind == "empty":
        return pb.BotMessage()
    if kind == "batch":
        return pb.BotMessage(batch=pb.BotBatch(messages=[build(i, bot, ex) for i in item[1]]))
    raise AssertionError(kind)


def run_step(bot: RawBot, item: tuple[Any, ...], ex: Example) -> None:
    kind = item[0]
    if kind == "wait":
        time.sleep(item[1] / 1000)
    elif kind == "reconnect":
        if bot.stream.terminal:  # the server ends that stream: see how, then reconnect
            bot.wait_end()
        bot.disconnect()
        bot.connect()
    elif kind == "raw":
        frame = bytes(item[1])
        try:
            decoded = pb.BotMessage.FromString(frame)
        except Exception:
            bot.send(frame, undecodable=True)
            return
        if ex.mine in resigns_in(decoded):
            bot.resigned.add(ex.mine)
        bot.send(frame)
    elif kind == "unknown_fields":
        # Unknown field 99 (varint) and 100 (bytes): a BotMessage must ignore them.
        frame = build(item[1], bot, ex).SerializeToString() + b"\x98\x06\x01" + b"\xa2\x06\x03abc"
        bot.send(frame)
    else:
        bot.send(build(item, bot, ex).SerializeToString())


def resigns_in(message: Any) -> set[str]:
    """The match ids a (decoded) ``BotMessage`` resigns, batches included."""
    kind = message.WhichOneof("kind")
    if kind == "resign":
        return {message.resign.match_id}
    if kind == "batch":
        return set().union(*(resigns_in(m) for m in message.batch.messages))
    return set()


def enqueue(fz: Fuzzed, mid: str, seats: tuple[str, str], seed: int) -> None:
    spec = MatchSpec(
        match_id=mid,
        game=GAME,
        players=2,
        seats=seats,
        seed=seed,
        time_control=CLOCK,
        fault_policy=FaultPolicy(join_timeout_ms=10000, max_strikes=0),
    )
    assert fz.matches.enqueue(spec)


def wait_recorded(fz: Fuzzed, mid: str, bots: list[RawBot], timeout: float = 15.0) -> dict[str, Any]:
    """The result of ``mid`` once it is done; reconnects a bot whose stream ended meanwhile
    (a voided match is played again, a bot must be there)."""
    deadline = time.monotonic() + timeout
    while fz.matches.status(mid) != "done":
        assert time.monotonic() < deadline, f"{mid} not done: {fz.matches.info(mid)}"
        for bot in bots:
            if bot.done.is_set():
                bot.connect()
                bot.play_well()
        time.sleep(0.05)
    result = fz.matches.result(mid)
    assert result is not None
    return result


def check_recorded(fz: Fuzzed, mid: str, resigned: dict[str, bool]) -> None:
    """Recorded exactly once, whole, and consistent with its replay."""
    info = fz.matches.info(mid)
    assert info["status"] == "done"
    result, replay = fz.matches.result(mid), fz.matches.replay(mid)
    assert result is not None and replay is not None, info
    stream = fz.matches.STREAM
    entries = [e for _, e in fz.matches.r.xrange(stream) if e[b"match_id"].decode() == mid]
    assert len(entries) == 1, f"{mid} recorded {len(entries)} times"
    rerun_result = rerun(replay).result().to_json()
    assert rerun_result["scores"] == result["scores"]
    assert rerun_result["ranks"] == result["engine_ranks"]
    assert replay["final_ranks"] == result["ranks"] and replay["forfeited"] == result["forfeited"]
    for seat, name in enumerate(result["seats"]):
        resigns = [f for f in replay["faults"] if f["seat"] == seat and f["fault"] == "resign"]
        if resigns:
            assert resigned.get(name), f"{name} forfeited by resignation without a Resign: {replay['faults']}"


def check_streams(bot: RawBot, ex: Example) -> None:
    """Each stream ended as documented, and every rejection is documented."""
    for stream in bot.streams:
        code, details = stream.status
        reasons = [
            code == grpc.StatusCode.CANCELLED and stream.cancelled,
            code == grpc.StatusCode.INVALID_ARGUMENT and stream.undecodable and "malformed message" in details,
            code == grpc.StatusCode.RESOURCE_EXHAUSTED and stream.oversized,
            code == grpc.StatusCode.RESOURCE_EXHAUSTED
            and details == f"more than {BAD_LIMIT} bad messages per minute"
            and stream.bad_received == BAD_LIMIT + 1,
        ]
        assert any(reasons), (bot.name, stream)
        if stream.bad_received > BAD_LIMIT:
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "bad messages" in details, (bot.name, stream)
        if stream.undecodable and not (stream.oversized or stream.cancelled) and stream.bad_received <= BAD_LIMIT:
            assert code == grpc.StatusCode.INVALID_ARGUMENT, (bot.name, stream)
    for rej in bot.rejections:
        assert rej.reason and rej.code != pb.REJECT_CODE_UNSPECIFIED, rej
        if rej.match_id in (ex.other, UNKNOWN_MATCH) or rej.match_id.startswith("mmmm"):
            # (an Action with an empty action id is malformed before its match is looked up)
            assert rej.code in (pb.REJECT_UNKNOWN_MATCH, pb.REJECT_MALFORMED), rej
        if rej.code == pb.REJECT_ILLEGAL_ACTION:
            assert rej.match_id == ex.mine, rej


def check_log(fz: Fuzzed) -> None:
    """No error, traceback or exception logged since the last check."""
    with fz.log.open("rb") as f:
        f.seek(fz.log_offset)
        data = f.read()
    # The service may be mid-way through writing a line: read whole lines only and leave the rest
    # for the next check (a cut line is not JSON and would be taken for a stray print).
    whole = data[: data.rfind(b"\n") + 1]
    fz.log_offset += len(whole)
    text = whole.decode(errors="replace")
    assert '"session_opened"' in text  # the log is the service's, read from where it stopped
    bad = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            bad.append(line)  # not a structured line: a traceback or a library's print
            continue
        if record.get("level") in ("error", "critical") or "Traceback" in line or "Exception" in line:
            bad.append(line)
    assert not bad, "\n".join(bad[:20])


def healthy(fz: Fuzzed) -> None:
    """Health ``SERVING`` and two fresh well-behaved bots play a whole match."""
    with grpc.insecure_channel(fz.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", "cardarena.v1.Arena"):
            got = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
            assert got.status == health_pb2.HealthCheckResponse.SERVING
    mid = f"fz-canary-{next(counted)}"
    c, d = (RawBot(fz.address, fz.tokens[n], n, auto=True) for n in ("fz-c", "fz-d"))
    for bot in (c, d):
        bot.connect()
    enqueue(fz, mid, ("fz-c", "fz-d"), 1)
    wait_recorded(fz, mid, [c, d])
    check_recorded(fz, mid, {})
    for bot in (c, d):
        bot.close()
        assert not [r for r in bot.rejections if r.code != pb.REJECT_ILLEGAL_ACTION], bot.rejections


@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")),
    deadline=None,
    derandomize=os.environ.get("FUZZ_RANDOM") is None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(script=scripts, batching=st.booleans(), seed=st.integers(0, 2**16))
# Found by this test: an answer "\0resign" (the hub's resign sentinel then) resigned the seat.
@example(
    script=[(0, ("action", "own", "pending", "\0resign")), (1, ("action", "own", "pending", "\0resign"))],
    batching=False,
    seed=1,
)
# Strings that are not UTF-8 make a frame undecodable: INVALID_ARGUMENT, not an in-band rejection.
@example(script=[(0, ("raw", CRAFTED[0])), (1, ("raw", CRAFTED[1])), (0, ("raw", CRAFTED[3]))], batching=True, seed=2)
def test_any_message_sequence_gets_its_documented_outcome(
    fuzzed: Fuzzed, script: list[tuple[int, tuple[Any, ...]]], batching: bool, seed: int
) -> None:
    note(f"script={script!r} batching={batching} seed={seed}")
    run_example(fuzzed, script, batching, seed)


def run_example(fz: Fuzzed, script: list[tuple[int, tuple[Any, ...]]], batching: bool, seed: int) -> None:
    """One fuzzed sequence, then every invariant."""
    n = next(counted)
    ex = Example(mine=f"fz-{n}-ab", other=f"fz-{n}-cd")
    a = RawBot(fz.address, fz.tokens["fz-a"], "fz-a", batching=batching)
    b = RawBot(fz.address, fz.tokens["fz-b"], "fz-b")
    c = RawBot(fz.address, fz.tokens["fz-c"], "fz-c", auto=True)
    d = RawBot(fz.address, fz.tokens["fz-d"], "fz-d", auto=True)
    bots = [a, b, c, d]
    try:
        for bot in bots:
            bot.connect()
        enqueue(fz, ex.other, ("fz-c", "fz-d"), seed + 1)
        enqueue(fz, ex.mine, ("fz-a", "fz-b"), seed)
        deadline = time.monotonic() + 20
        while not all(ex.mine in bot.started for bot in (a, b)):  # the match is on
            assert time.monotonic() < deadline, "the fuzzed match did not start"
            time.sleep(0.01)
        for who, item in script:
            run_step((a, b)[who], item, ex)
        for bot in (a, b):
            if bot.stream.terminal:
                bot.wait_end()
            if bot.done.is_set():
                bot.connect()
            bot.play_well()
        wait_recorded(fz, ex.mine, [a, b])
        wait_recorded(fz, ex.other, [c, d])
        for bot in bots:
            bot.disconnect()
        check_recorded(fz, ex.mine, {bot.name: ex.mine in bot.resigned for bot in (a, b)})
        check_recorded(fz, ex.other, {})
        for bot in bots:
            check_streams(bot, ex)
        healthy(fz)
        check_log(fz)
    finally:
        for bot in bots:
            bot.close()
