"""``HandBack`` over real gRPC on loopback with real Redis: a bot that cannot answer a request
hands it back and the server plays the match's default action for it at once (fault ``error``,
a strike), with no wait for the clock; ``max_strikes`` still forfeits; a hand-back that fits no
pending request is rejected in-band exactly as an ``Action`` would be."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from cardarena.engine import MatchRng, rerun
from cardarena.store.bots import BotStore
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore

from .server_harness import SLOW_CLOCK, ScriptedBot, ServiceProcess, pb
from .test_server_metrics import first_request


@pytest.fixture
def service(redis_url: str, key_prefix: str) -> Iterator[ServiceProcess]:
    svc = ServiceProcess(redis_url, "--grace", "0")
    yield svc
    svc.stop()


def _hand_back(match_id: str, seq: int) -> Any:
    return pb.BotMessage(hand_back=pb.HandBack(match_id=match_id, seq=seq))


def _start(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore], mid: str, policy: FaultPolicy, *, seed: int = 5
) -> tuple[ScriptedBot, ScriptedBot]:
    """A German Whist match of ``failing`` (seat 0, scripted by the test) against ``other``
    (answering its first legal action); both connected, the match queued."""
    matches, bots = stores
    failing = ScriptedBot(service.address, bots.register("failing"), "failing")
    welcome = failing.expect("welcome")
    assert welcome.hand_back  # the server says it takes HandBack
    other = ScriptedBot(service.address, bots.register("other"), "other")
    other.expect("welcome")
    other.autoplay()
    matches.enqueue(
        MatchSpec(mid, "german_whist", 2, ("failing", "other"), seed=seed, time_control=SLOW_CLOCK, fault_policy=policy)
    )
    return failing, other


def _hand_back_everything(bot: ScriptedBot, mid: str) -> tuple[list[Any], Any]:
    """Hand back every request of ``mid`` until its end: (the requests, the ``MatchEnd``)."""
    requests = []
    for message in bot.messages(timeout=30):
        kind = message.WhichOneof("kind")
        if kind == "action_request":
            requests.append(message.action_request)
            bot.send(_hand_back(mid, message.action_request.seq))
        elif kind == "action_rejected":
            raise AssertionError(f"hand-back rejected: {message.action_rejected}")
        elif kind == "match_end" and message.match_end.match_id == mid:
            return requests, message.match_end
    raise AssertionError(f"stream ended: {bot.error!r}")


def _seat_actions(replay: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    return [a for deal in replay["deals"] for a in deal["actions"] if a.get("seat") == seat]


@pytest.mark.parametrize("default_action", ["first", "random"])
def test_every_request_handed_back_is_played_by_default_at_once(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore], default_action: str
) -> None:
    matches, bots = stores
    mid = f"hand-back-{default_action}"
    policy = FaultPolicy(max_strikes=0, default_action=default_action)
    failing, other = _start(service, stores, mid, policy)
    try:
        requests, end = _hand_back_everything(failing, mid)
    finally:
        failing.close()
        other.close()
    assert end.status == "completed" and list(end.forfeited) == []
    replay = matches.replay(mid)
    result = matches.result(mid)
    assert replay is not None and result is not None
    # Every decision of seat 0 was a default action with the fault "error"; not one timed out
    # (the clock is two minutes a move).
    mine = _seat_actions(replay, 0)
    assert len(mine) == len(requests) > 10
    assert all(a["fault"] == "error" and a["default"] is True for a in mine)
    assert {f["fault"] for f in replay["faults"]} == {"error"} and len(replay["faults"]) == len(requests)
    assert all(f["seat"] == 0 for f in replay["faults"])
    assert result["strikes"] == [len(requests), 0]
    # The match's default policy chose each action: the first legal one, or the seeded random one.
    rng = MatchRng("5/default")
    expected = [r.legal[0].id if default_action == "first" else r.legal[rng.below(len(r.legal))].id for r in requests]
    assert [a["action"] for a in mine] == expected
    rerun(replay)
    # The bot's statistics count each hand-back, written with the result.
    record = bots.get("failing")
    assert record is not None and record.stats["errors"] == len(requests) and record.stats["timeouts"] == 0


def test_strikes_from_hand_backs_forfeit_the_seat(service: ServiceProcess, stores: tuple[MatchStore, BotStore]) -> None:
    matches, _ = stores
    mid = "hand-back-forfeit"
    failing, other = _start(service, stores, mid, FaultPolicy(max_strikes=2))
    try:
        requests, end = _hand_back_everything(failing, mid)
    finally:
        failing.close()
        other.close()
    assert len(requests) == 2  # a forfeited seat is not asked again
    assert list(end.forfeited) == [0] and end.ranks[0] == 2
    replay = matches.replay(mid)
    assert replay is not None
    faults = [(f["seat"], f["fault"], f.get("forfeit", False)) for f in replay["faults"]]
    assert faults == [(0, "error", False), (0, "error", True)]
    later = _seat_actions(replay, 0)[2:]
    assert later and all(a["fault"] == "forfeited" for a in later)
    rerun(replay)


def test_a_hand_back_that_fits_no_pending_request_is_rejected_in_band(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    matches, bots = stores
    mid = "hand-back-stale"
    failing = ScriptedBot(service.address, bots.register("failing"), "failing")
    failing.expect("welcome")
    other = ScriptedBot(service.address, bots.register("other"), "other")
    other.expect("welcome")
    try:
        spec = MatchSpec(mid, "german_whist", 2, ("failing", "other"), seed=5, time_control=SLOW_CLOCK)
        matches.enqueue(spec)
        # German Whist: exactly one seat acts at a time; find whose turn it is first.
        mover, waiter, request = first_request(failing, other)

        def rejection(bot: ScriptedBot, message: Any) -> Any:
            bot.send(message)
            return _next(bot, "action_rejected")

        stale = rejection(mover, _hand_back(mid, request.seq + 1000))
        assert (stale.code, stale.seq) == (pb.REJECT_STALE_SEQ, request.seq + 1000)
        assert f"pending: seq {request.seq}" in stale.reason
        assert rejection(mover, _hand_back("no-such-match", request.seq)).code == pb.REJECT_UNKNOWN_MATCH
        assert rejection(mover, _hand_back("", request.seq)).code == pb.REJECT_MALFORMED
        assert rejection(waiter, _hand_back(mid, request.seq)).code == pb.REJECT_NOT_YOUR_SEAT
        # The rejections changed nothing: the request is still pending, and handing it back
        # once works; a second hand-back of it is stale.
        mover.send(_hand_back(mid, request.seq))
        event = _next(mover, "event")
        assert (event.seat, event.is_default, event.fault) == (request.seat, True, "error")
        again = rejection(mover, _hand_back(mid, request.seq))
        assert again.code == pb.REJECT_STALE_SEQ and "is not pending" in again.reason
        failing.autoplay()
        other.autoplay()
        deadline = time.monotonic() + 30
        while matches.status(mid) != "done":
            assert time.monotonic() < deadline, matches.info(mid)
            time.sleep(0.05)
    finally:
        failing.close()
        other.close()
    replay = matches.replay(mid)
    assert replay is not None
    assert [(f["seat"], f["fault"]) for f in replay["faults"]] == [(request.seat, "error")]
    rerun(replay)


def _next(bot: ScriptedBot, kind: str) -> Any:
    """The next message of ``kind``; the ones before it are kept for later (``autoplay``)."""
    kept = []
    for message in bot.messages():
        if message.WhichOneof("kind") == kind:
            for other in kept:
                bot.inbox.put(other)
            return getattr(message, kind)
        kept.append(message)
    raise AssertionError(f"stream ended before {kind}: {bot.error!r}")
