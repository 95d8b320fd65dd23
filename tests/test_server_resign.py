"""``Resign`` over real gRPC on loopback with real Redis: the resigning seat forfeits at once
(on its turn, out of turn, or after its last action), the match plays out with default
actions, the result ranks it last, the replay records it, and resigning a match that is not
yours (or not live) is rejected in-band."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from typing import Any

import pytest
from cardarena.engine import rerun
from cardarena.store.bots import BotStore
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl
from cardarena.wire import codec

from .server_harness import ScriptedBot, ServiceProcess, pb

SLOW_CLOCK = TimeControl(move_ms=30000, bank_ms=0)
"""Nobody times out: every default action in these tests comes from the resignation."""


@pytest.fixture
def service(redis_url: str, key_prefix: str) -> Iterator[ServiceProcess]:
    svc = ServiceProcess(redis_url, "--grace", "0")
    yield svc
    svc.stop()


def enqueue(matches: MatchStore, mid: str, seats: tuple[str, str]) -> None:
    spec = MatchSpec(
        match_id=mid,
        game="german_whist",
        players=2,
        seats=seats,
        seed=7,
        time_control=SLOW_CLOCK,
        fault_policy=FaultPolicy(join_timeout_ms=5000),
    )
    matches.enqueue(spec)


def wait_done(store: MatchStore, mid: str, timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while store.status(mid) != "done":
        assert time.monotonic() < deadline, f"{mid} not done: {store.info(mid)}"
        time.sleep(0.05)
    result = store.result(mid)
    assert result is not None
    return result


def connect(service: ServiceProcess, bots: BotStore, *names: str) -> list[ScriptedBot]:
    out = []
    for name in names:
        bot = ScriptedBot(service.address, bots.register(name), name)
        bot.expect("welcome")
        out.append(bot)
    return out


def next_request(*bots: ScriptedBot, timeout: float = 15.0) -> tuple[ScriptedBot, Any]:
    """The next ``ActionRequest`` any of ``bots`` gets (other messages are dropped)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for bot in bots:
            try:
                message = bot.inbox.get(timeout=0.02)
            except queue.Empty:
                continue
            assert message is not None, f"stream ended: {bot.error!r}"
            if message.WhichOneof("kind") == "action_request":
                return bot, message.action_request
    raise AssertionError("no ActionRequest")


def until_end(bot: ScriptedBot, mid: str) -> tuple[list[Any], Any]:
    """Every message ``bot`` gets until the ``MatchEnd`` of ``mid``: (messages, MatchEnd)."""
    seen: list[Any] = []
    for message in bot.messages():
        kind = message.WhichOneof("kind")
        if kind == "match_end" and message.match_end.match_id == mid:
            return seen, message.match_end
        seen.append(message)
    raise AssertionError(f"stream ended before MatchEnd: {bot.error!r}")


def resign_and_sync(bot: ScriptedBot, mid: str) -> None:
    """Resign ``mid``, then use an in-band rejection as a barrier: the server reads a stream's
    messages in order, so once the rejection of a resign for an unknown match arrives the real
    resign has been handled (and it drew no rejection of its own)."""
    bot.send(pb.BotMessage(resign=pb.Resign(match_id=mid)))
    bot.send(pb.BotMessage(resign=pb.Resign(match_id="no-such-match")))
    rejected = bot.expect("action_rejected")
    assert rejected.match_id == "no-such-match" and rejected.code == pb.REJECT_UNKNOWN_MATCH


def seat_actions(replay: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    return [a for deal in replay["deals"] for a in deal["actions"] if a.get("seat") == seat]


def check_recorded(
    matches: MatchStore, bots: BotStore, mid: str, seat: int, name: str, *, before: int
) -> dict[str, Any]:
    """The documented record of a resignation by ``seat`` (``before`` of its actions were its own)."""
    result = wait_done(matches, mid)
    assert result["forfeited"] == [seat]
    assert result["ranks"][seat] == 2 and result["ranks"][1 - seat] == 1
    assert sorted(result["engine_ranks"]) in ([1, 2], [1, 1])
    assert result["strikes"] == [0, 0]  # a resignation is no strike
    replay = matches.replay(mid)
    assert replay is not None
    assert replay["forfeited"] == [seat] and replay["final_ranks"] == result["ranks"]
    faults = [f for f in replay["faults"] if f["seat"] == seat]
    assert len(faults) == 1 and faults[0]["fault"] == "resign" and faults[0]["forfeit"] is True
    mine = seat_actions(replay, seat)
    assert all(not a.get("default") for a in mine[:before])
    after = mine[before:]
    if after:
        assert after[0]["fault"] == "resign" and after[0]["default"] is True and after[0]["forfeit"] is True
        assert all(a["default"] is True and a["fault"] in ("resign", "forfeited") for a in after)
        assert sum(1 for a in after if a.get("forfeit")) == 1
    assert rerun(replay).result().to_json()["scores"] == result["scores"]
    deadline = time.monotonic() + 5
    while True:  # bot statistics are counted in the service's worker threads
        record = bots.get(name)
        assert record is not None
        if (record.stats["forfeits"] == 1 and record.stats["matches"] == 1) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert record.stats["forfeits"] == 1 and record.stats["matches"] == 1
    return result


def test_resign_on_own_turn_forfeits_at_once(service: ServiceProcess, stores: tuple[MatchStore, BotStore]) -> None:
    matches, bots = stores
    alice, bob = connect(service, bots, "alice", "bob")
    enqueue(matches, "on-turn", ("alice", "bob"))
    me, req = next_request(alice, bob)
    other = bob if me is alice else alice
    other.autoplay()
    me.send(pb.BotMessage(resign=pb.Resign(match_id=req.match_id)))
    seen, end = until_end(me, "on-turn")
    kinds = [m.WhichOneof("kind") for m in seen]
    assert "action_request" not in kinds and "action_rejected" not in kinds  # never asked again
    mine = [m.event for m in seen if m.WhichOneof("kind") == "event" and m.event.seat == req.seat]
    assert mine and mine[0].is_default and mine[0].fault == "resign" and mine[0].action == req.legal[0].id
    assert all(e.is_default for e in mine)
    assert end.status == "completed" and list(end.forfeited) == [req.seat]
    assert end.ranks[req.seat] == 2 and end.ranks[1 - req.seat] == 1
    check_recorded(matches, bots, "on-turn", req.seat, "alice" if me is alice else "bob", before=0)
    # The match is over: resigning it again is rejected in-band and the stream lives on.
    me.send(pb.BotMessage(resign=pb.Resign(match_id="on-turn")))
    rejected = me.expect("action_rejected")
    assert rejected.code == pb.REJECT_UNKNOWN_MATCH and rejected.match_id == "on-turn"
    me.send(pb.BotMessage(pong=pb.Pong(nonce=1)))
    assert me.error is None
    alice.close()
    bob.close()


def test_resign_out_of_turn_forfeits_before_the_next_request(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    matches, bots = stores
    alice, bob = connect(service, bots, "alice", "bob")
    enqueue(matches, "off-turn", ("alice", "bob"))
    asked, req = next_request(alice, bob)
    quitter = bob if asked is alice else alice
    seat = 1 - req.seat
    resign_and_sync(quitter, "off-turn")
    asked.act(req.match_id, req.seq, req.legal[0].id)
    asked.autoplay()
    seen, end = until_end(quitter, "off-turn")
    assert not [m for m in seen if m.WhichOneof("kind") == "action_request"]
    mine = [m.event for m in seen if m.WhichOneof("kind") == "event" and m.event.seat == seat]
    assert mine and mine[0].fault == "resign" and all(e.is_default for e in mine)
    assert end.status == "completed" and list(end.forfeited) == [seat] and end.ranks[seat] == 2
    check_recorded(matches, bots, "off-turn", seat, "alice" if quitter is alice else "bob", before=0)
    alice.close()
    bob.close()


def test_resign_after_the_last_own_action_still_forfeits(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """The leader of the last trick plays its last card, then resigns before the opponent's
    final card: it never acts again, yet the resignation is recorded."""
    matches, bots = stores
    alice, bob = connect(service, bots, "alice", "bob")
    enqueue(matches, "last", ("alice", "bob"))
    played = {0: 0, 1: 0}
    quitter: tuple[ScriptedBot, int] | None = None
    while quitter is None:
        bot, req = next_request(alice, bob)
        view = codec.decode_view(req.view)
        bot.act(req.match_id, req.seq, req.legal[0].id)
        played[req.seat] += 1
        if len(view["hand"]) == 1 and not view["trick"]:
            quitter = (bot, req.seat)
    bot, seat = quitter
    resign_and_sync(bot, "last")
    other, final = next_request(alice, bob)
    assert other is not bot and final.seat == 1 - seat
    other.act(final.match_id, final.seq, final.legal[0].id)
    _, end = until_end(bot, "last")
    assert end.status == "completed" and list(end.forfeited) == [seat] and end.ranks[seat] == 2
    check_recorded(matches, bots, "last", seat, "alice" if bot is alice else "bob", before=played[seat])
    alice.close()
    bob.close()


def test_resigning_a_match_that_is_not_yours_is_rejected_in_band(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    matches, bots = stores
    alice, bob, carol = connect(service, bots, "alice", "bob", "carol")
    enqueue(matches, "theirs", ("alice", "bob"))
    asked, req = next_request(alice, bob)
    for mid in ("theirs", "no-such-match", ""):
        carol.send(pb.BotMessage(resign=pb.Resign(match_id=mid)))
        rejected = carol.expect("action_rejected")
        assert rejected.code == pb.REJECT_UNKNOWN_MATCH and rejected.match_id == mid and rejected.reason
    # Nothing changed: the pending request is still the bot's to answer.
    asked.act(req.match_id, req.seq, req.legal[0].id)
    event = asked.expect("event")
    assert event.seat == req.seat and not event.is_default
    alice.autoplay()
    bob.autoplay()
    result = wait_done(matches, "theirs")
    assert result["forfeited"] == [] and result["strikes"] == [0, 0]
    replay = matches.replay("theirs")
    assert replay is not None and replay["faults"] == []
    assert carol.error is None
    for bot in (alice, bob, carol):
        bot.close()


def test_an_action_whose_id_looks_like_the_resign_sentinel_is_just_illegal(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """Found by tests/test_server_fuzz.py: the hub marked a resignation by queueing the string
    ``"\\0resign"`` as the pending request's answer, so an ``Action`` with that action id (any
    bot can send any string) forfeited the seat as a resignation (fault ``resign``) instead of
    being rejected as illegal."""
    matches, bots = stores
    alice, bob = connect(service, bots, "alice", "bob")
    enqueue(matches, "sentinel", ("alice", "bob"))
    me, req = next_request(alice, bob)
    other = bob if me is alice else alice
    other.autoplay()
    me.act(req.match_id, req.seq, "\0resign")
    rejected = me.expect("action_rejected")
    assert rejected.code == pb.REJECT_ILLEGAL_ACTION and rejected.seq == req.seq and rejected.reason
    assert rejected.move_ms_left > 0  # the request is still open: answer again
    me.autoplay()
    me.act(req.match_id, req.seq, req.legal[0].id)
    result = wait_done(matches, "sentinel")
    assert result["forfeited"] == [] and result["strikes"] == [0, 0]
    replay = matches.replay("sentinel")
    assert replay is not None and replay["faults"] == []
    alice.close()
    bob.close()


def test_a_resign_after_play_ended_is_refused() -> None:
    """Between the end of play (``Hub.release``) and the recorded result (``Hub.finish``) the
    match is still known, but a ``Resign`` of it has nothing left to act on: refused (the
    servicer answers ``REJECT_UNKNOWN_MATCH``) and no seat is marked resigned."""
    from cardarena.server.hub import Hub, LiveMatch
    from cardarena.store.matches import MatchSpec
    from cardarena.wire.codec import arena_pb2 as pb

    hub = Hub(instance="i", sessions_per_bot=4, bad_per_minute=1000)
    session = hub.open("b", pb.Hello(max_matches=2))
    live = LiveMatch(MatchSpec("m1", "glaves", 2, ("b", "c"), 1), pb.MatchStart(match_id="m1"))
    hub.matches["m1"] = live
    hub.bind(live, 0, session)
    assert hub.resign(session, "m1") and live.resigned == {0}
    live.resigned.clear()
    hub.release("m1")
    assert not hub.resign(session, "m1") and live.resigned == set()
