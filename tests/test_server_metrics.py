"""The Prometheus endpoint (``cardarena service --metrics-port P``) over real HTTP, with a match
played over real gRPC on loopback with real Redis: one illegal action and one time-out must
move exactly the documented counters, the latency histogram counts the accepted answers, and
the gauges follow the streams and matches."""

from __future__ import annotations

import itertools
import queue
import socket
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl
from cardarena.wire import codec
from prometheus_client.parser import text_string_to_metric_families

from .server_harness import ScriptedBot, ServiceProcess, pb

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def scrape(port: int) -> Samples:
    """Every sample of ``/metrics``, parsed from the Prometheus text format."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def eventually(port: int, check: Callable[[Samples], bool], timeout: float = 10.0) -> Samples:
    """Scrape until ``check`` holds (gauges and the final counter move just after Redis does)."""
    deadline = time.monotonic() + timeout
    while True:
        samples = scrape(port)
        if check(samples) or time.monotonic() > deadline:
            return samples
        time.sleep(0.05)


@pytest.fixture
def metrics_service(redis_url: str, key_prefix: str) -> Iterator[tuple[ServiceProcess, int]]:
    port = free_port()
    svc = ServiceProcess(redis_url, "--metrics-port", str(port), "--grace", "0")
    yield svc, port
    svc.stop()


def test_metrics_count_a_match_with_one_illegal_action_and_one_timeout(
    metrics_service: tuple[ServiceProcess, int], redis_url: str, key_prefix: str
) -> None:
    service, port = metrics_service
    client = client_for(redis_url)
    matches, bots = MatchStore(client), BotStore(client)

    before = scrape(port)
    for name in ("cardarena_timeouts_total", "cardarena_illegal_actions_total", "cardarena_bad_messages_total"):
        assert (name, ()) in before and value(before, name) == 0
    assert value(before, "cardarena_move_latency_seconds_count") == 0
    assert value(before, "cardarena_live_streams") == 0 and value(before, "cardarena_live_matches") == 0

    alice, bob = _connect(service, bots)
    assert value(eventually(port, lambda s: value(s, "cardarena_live_streams") == 2), "cardarena_live_streams") == 2

    # One clock for the match (the API has per-match clocks): long enough that the quick
    # answers never run out, short enough that the one deliberate time-out costs a second.
    me, other, req = _start(matches, "metered", TimeControl(move_ms=1000, bank_ms=0), alice, bob)
    other.autoplay()
    assert value(scrape(port), "cardarena_live_matches") == 1

    hand = codec.decode_view(req.view)["hand"]
    legal = {x.id for x in req.legal}
    wrong = next((f"play:{c}" for c in hand if f"play:{c}" not in legal), "play:ZZ")
    me.act(req.match_id, req.seq, wrong)  # one illegal action ...
    rejected = me.expect("action_rejected")
    assert rejected.code == pb.REJECT_ILLEGAL_ACTION
    event = me.expect("event")  # ... then silence until the clock runs out
    assert event.is_default and event.fault == "timeout"
    me.autoplay()

    actions = _actions_when_done(matches, "metered")
    defaults = [a for a in actions if a.get("default")]
    assert [a["fault"] for a in defaults] == ["timeout"]  # the only server-chosen move
    answered = len(actions) - len(defaults)

    after = eventually(port, lambda s: value(s, "cardarena_matches_total", status="completed") == 1)
    assert value(after, "cardarena_matches_total", status="completed") == 1
    assert value(after, "cardarena_matches_total", status="voided") == 0
    assert value(after, "cardarena_timeouts_total") == 1
    assert value(after, "cardarena_illegal_actions_total") == 1
    assert value(after, "cardarena_bad_messages_total") == 0  # an illegal action is not a bad message
    assert value(after, "cardarena_live_matches") == 0

    # The histogram observed each accepted answer once (not the illegal one, not the time-out).
    count = value(after, "cardarena_move_latency_seconds_count")
    assert count == answered
    total = value(after, "cardarena_move_latency_seconds_sum")
    assert 0 < total < count * 1.0  # every accepted answer came within the 1 s move clock
    buckets = sorted(
        (float(dict(labels)["le"]), v)
        for (name, labels), v in after.items()
        if name == "cardarena_move_latency_seconds_bucket"
    )
    assert buckets[-1] == (float("inf"), count)
    assert all(a[1] <= b[1] for a, b in itertools.pairwise(buckets))  # cumulative
    assert value(after, "cardarena_move_latency_seconds_bucket", le="1.0") == count

    # A stale answer is a bad message; closing the streams brings the gauge back to zero.
    me.act("metered", 1, "play:2C")
    assert me.expect("action_rejected").code == pb.REJECT_UNKNOWN_MATCH
    assert (
        value(eventually(port, lambda s: value(s, "cardarena_bad_messages_total") == 1), "cardarena_bad_messages_total")
        == 1
    )
    alice.close()
    bob.close()
    final = eventually(port, lambda s: value(s, "cardarena_live_streams") == 0)
    assert value(final, "cardarena_live_streams") == 0
    assert value(final, "cardarena_timeouts_total") == 1 and value(final, "cardarena_illegal_actions_total") == 1


def test_metrics_count_a_hand_back_as_a_bot_error_not_a_timeout(
    metrics_service: tuple[ServiceProcess, int], redis_url: str, key_prefix: str
) -> None:
    service, port = metrics_service
    client = client_for(redis_url)
    matches, bots = MatchStore(client), BotStore(client)
    assert value(scrape(port), "cardarena_bot_errors_total") == 0
    alice, bob = _connect(service, bots)
    me, other, req = _start(matches, "handed", TimeControl(move_ms=120_000, bank_ms=0), alice, bob)
    other.autoplay()
    me.send(pb.BotMessage(hand_back=pb.HandBack(match_id=req.match_id, seq=req.seq)))
    event = me.expect("event")
    assert event.is_default and event.fault == "error"
    me.autoplay()
    actions = _actions_when_done(matches, "handed")
    after = eventually(port, lambda s: value(s, "cardarena_matches_total", status="completed") == 1)
    assert value(after, "cardarena_bot_errors_total") == 1
    assert value(after, "cardarena_timeouts_total") == 0 and value(after, "cardarena_bad_messages_total") == 0
    assert value(after, "cardarena_move_latency_seconds_count") == len(actions) - 1  # not the handed-back one
    alice.close()
    bob.close()


def _actions_when_done(matches: MatchStore, mid: str) -> list[dict[str, Any]]:
    """The players' actions in the replay of ``mid``, once it is recorded."""
    deadline = time.monotonic() + 20
    while matches.status(mid) != "done":
        assert time.monotonic() < deadline, matches.info(mid)
        time.sleep(0.05)
    replay = matches.replay(mid)
    assert replay is not None
    return [a for deal in replay["deals"] for a in deal["actions"] if "seat" in a]


def _connect(service: ServiceProcess, bots: BotStore) -> tuple[ScriptedBot, ScriptedBot]:
    """Bots ``alice`` and ``bob``, connected and welcomed."""
    alice = ScriptedBot(service.address, bots.register("alice"), "alice")
    bob = ScriptedBot(service.address, bots.register("bob"), "bob")
    alice.expect("welcome")
    bob.expect("welcome")
    return alice, bob


def _start(
    matches: MatchStore, mid: str, clock: TimeControl, alice: ScriptedBot, bob: ScriptedBot
) -> tuple[ScriptedBot, ScriptedBot, Any]:
    """Queue a German Whist match of ``alice`` and ``bob`` (no forfeits); its first request
    as :func:`first_request` gives it."""
    spec = MatchSpec(
        match_id=mid,
        game="german_whist",
        players=2,
        seats=("alice", "bob"),
        seed=3,
        time_control=clock,
        fault_policy=FaultPolicy(join_timeout_ms=5000, max_strikes=0),
    )
    matches.enqueue(spec)
    return first_request(alice, bob)


def first_request(a: ScriptedBot, b: ScriptedBot) -> tuple[ScriptedBot, ScriptedBot, Any]:
    """Whichever bot is asked first, the other bot, and the request."""

    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        for me, other in ((a, b), (b, a)):
            try:
                message = me.inbox.get(timeout=0.02)
            except queue.Empty:
                continue
            assert message is not None, f"stream ended: {me.error!r}"
            if message.WhichOneof("kind") == "action_request":
                return me, other, message.action_request
    raise AssertionError("no ActionRequest")
