"""The match service over real gRPC on loopback with real Redis: whole matches of every game
with bots in their own processes, and every fault case with its documented outcome."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from cardarena.engine import games, rerun
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl
from cardarena.wire import codec

from .server_harness import ScriptedBot, ServiceProcess, pb

FAST = TimeControl(move_ms=1000, bank_ms=0)
"""The default clock: short enough that a bot that stays silent times out quickly, long enough
that a scripted bot answering at once never does, even on a loaded machine."""
CALM = TimeControl(move_ms=10000, bank_ms=0)
"""For tests about something else than the clock, which assert that nobody timed out."""


@pytest.fixture
def service(redis_url: str, key_prefix: str) -> Iterator[ServiceProcess]:
    svc = ServiceProcess(redis_url, "--sessions-per-bot", "2", "--bad-messages-per-minute", "5", "--grace", "0")
    yield svc
    svc.stop()


def wait_done(store: MatchStore, mid: str, timeout: float = 60.0) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while store.status(mid) != "done":
        assert time.monotonic() < deadline, f"{mid} not done: {store.info(mid)}"
        time.sleep(0.05)
    result = store.result(mid)
    assert result is not None
    return result


def spec(mid: str, game: str, seats: list[str], **kw: object) -> MatchSpec:
    return MatchSpec(
        match_id=mid,
        game=game,
        players=len(seats),
        seats=tuple(seats),
        seed=kw.pop("seed", 1),  # type: ignore[arg-type]
        time_control=kw.pop("time_control", FAST),  # type: ignore[arg-type]
        fault_policy=kw.pop("fault_policy", FaultPolicy(join_timeout_ms=5000)),  # type: ignore[arg-type]
        options=kw.pop("options", {}),  # type: ignore[arg-type]
    )


def test_whole_match_of_every_game(service: ServiceProcess, stores: tuple[MatchStore, BotStore]) -> None:
    matches, bots = stores
    need = max(g.min_players for g in games().values())
    procs = []
    try:
        for i in range(need):
            name = f"random-{i + 1}"
            procs.append(service.bot_process("random", name, bots.register(name), "--max-matches", "20"))
        tc = TimeControl(move_ms=5000, bank_ms=0)
        ids = []
        for game in games().values():
            seats = [f"random-{i + 1}" for i in range(game.min_players)]
            mid = f"all-{game.id}"
            matches.enqueue(spec(mid, game.id, seats, time_control=tc))
            ids.append(mid)
        # One bot in both seats plays one match (its statistics count it once).
        matches.enqueue(spec("both-seats", "german_whist", ["random-1", "random-1"], time_control=tc))
        ids.append("both-seats")
        for mid in ids:
            result = wait_done(matches, mid, timeout=120)
            replay = matches.replay(mid)
            assert replay is not None and replay["match_id"] == mid
            assert rerun(replay).result().to_json()["scores"] == result["scores"]
            assert result["forfeited"] == []
        # Each bot's ``matches`` statistic: the matches it played, once each.
        expected = {f"random-{i + 1}": sum(g.min_players > i for g in games().values()) + (i == 0) for i in range(need)}
        deadline = time.monotonic() + 10
        while True:
            counted = {name: bots.get(name).stats["matches"] for name in expected}  # type: ignore[union-attr]
            if counted == expected or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert counted == expected
    finally:
        for p in procs:
            from cardarena.server.commands import stop_process

            stop_process(p)


def _two_bots(bots: BotStore, service: ServiceProcess) -> tuple[ScriptedBot, ScriptedBot]:
    a = ScriptedBot(service.address, bots.register("alice"), "alice")
    b = ScriptedBot(service.address, bots.register("bob"), "bob")
    a.expect("welcome")
    b.expect("welcome")
    return a, b


def _first_request(a: ScriptedBot, b: ScriptedBot) -> tuple[ScriptedBot, ScriptedBot, object]:
    """Whichever bot is asked first, its request, and the other bot."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        for me, other in ((a, b), (b, a)):
            try:
                message = me.inbox.get(timeout=0.05)
            except Exception:
                continue
            if message is not None and message.WhichOneof("kind") == "action_request":
                return me, other, message.action_request
    raise AssertionError("no request")


def test_illegal_action_is_rejected_with_reason_then_retried(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    matches, bots = stores
    a, b = _two_bots(bots, service)
    matches.enqueue(spec("illegal", "german_whist", ["alice", "bob"], time_control=TimeControl(30000, 0)))
    me, other, req = _first_request(a, b)
    other.autoplay()
    legal = {x.id for x in req.legal}
    hand = codec.decode_view(req.view)["hand"]
    wrong = next((f"play:{c}" for c in hand if f"play:{c}" not in legal), "play:ZZ")
    me.act(req.match_id, req.seq, wrong)
    rejected = me.expect("action_rejected")
    assert rejected.code == pb.REJECT_ILLEGAL_ACTION and rejected.seq == req.seq and rejected.reason
    me.act(req.match_id, req.seq, req.legal[0].id)
    event = me.expect("event")
    assert event.action == req.legal[0].id and not event.is_default
    me.autoplay()
    result = wait_done(matches, "illegal")
    assert result["strikes"] == [0, 0]
    # Not a fault, but the replay says where it happened and what the bot was told, so the
    # match page can show it (the bot's statistics alone could not say which match).
    replay = matches.replay("illegal")
    assert replay is not None and replay["faults"] == []
    (refused,) = replay["refused"]
    assert refused == {
        "seat": req.seat,
        "action_index": refused["action_index"],
        "seq": req.seq,
        "count": 1,
        "reason": rejected.reason,
    }
    assert replay["deals"][0]["actions"][refused["action_index"]]["action"] == req.legal[0].id
    a.close()
    b.close()


def test_time_spent_on_illegal_answers_beyond_the_move_clock_comes_out_of_the_bank(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """A request that ends in the ``illegal`` fault (``max_rejections`` illegal answers) took
    time like any answer: what went beyond the move clock comes out of the bank.  Before, only
    a legal answer, a hand-back or a time-out charged the clock, so a bot could think past its
    move clock for free and then fail the request on purpose."""
    matches, bots = stores
    a, b = _two_bots(bots, service)
    policy = FaultPolicy(max_rejections=2, max_strikes=3, join_timeout_ms=5000)
    clock = TimeControl(100, 5000)
    matches.enqueue(spec("illegal-clock", "german_whist", ["alice", "bob"], time_control=clock, fault_policy=policy))
    me, other, req = _first_request(a, b)
    other.autoplay()
    time.sleep(0.5)  # 0.4 s beyond the move clock
    me.act(req.match_id, req.seq, "play:ZZ")
    first = me.expect("action_rejected")
    assert first.move_ms_left == 0 and 0 < first.bank_ms_left < 4700, first
    me.act(req.match_id, req.seq, "play:ZZ")
    last = me.expect("action_rejected")
    assert last.bank_ms_left == 0  # no answer is taken after the last rejection
    event = me.expect("event")
    assert event.is_default and event.fault == "illegal"
    me.autoplay()
    wait_done(matches, "illegal-clock")
    replay = matches.replay("illegal-clock")
    assert replay is not None
    index = next(i for i, f in enumerate(replay["faults"]) if f["fault"] == "illegal")
    action_index = replay["faults"][index]["action_index"]
    think, bank = replay["think_ms"][action_index], replay["bank_ms_left"][action_index]
    # was 5000: the bank pays for the time beyond the 100 ms move clock, however long that was
    assert think >= 500 and abs(bank - (5000 - (think - 100))) <= 50, (think, bank)
    a.close()
    b.close()


def test_a_flood_of_answers_to_one_request_ends_the_stream_not_the_server(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """Answering a request again before the first answer's outcome is a stale answer (a bad
    message).  A bot that sent thousands of illegal answers to one request in a batch used to
    have each judged and rejected (with ``max_rejections`` 0 there is no end to them): the
    service queued one rejection and one Redis write per answer, its memory grew by hundreds of
    MB and every match's Redis work waited behind the writes.  Now the first is judged, the
    others are stale, and the stream ends RESOURCE_EXHAUSTED; the match goes on."""
    matches, bots = stores
    a, b = _two_bots(bots, service)
    policy = FaultPolicy(max_rejections=0, join_timeout_ms=5000)
    matches.enqueue(
        spec("flood", "german_whist", ["alice", "bob"], time_control=TimeControl(30000, 0), fault_policy=policy)
    )
    me, other, req = _first_request(a, b)
    other.autoplay()
    answer = pb.BotMessage(action=pb.Action(match_id=req.match_id, seq=req.seq, action_id="play:ZZ"))
    me.send(pb.BotMessage(batch=pb.BotBatch(messages=[answer] * 2000)))
    codes = [m.action_rejected.code for m in me.messages() if m.WhichOneof("kind") == "action_rejected"]
    assert me.error is not None and me.error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    # The stale ones end the stream (at the limit, 5 here), perhaps before the first one's
    # rejection is sent: it was judged all the same (the statistics below).
    assert codes.count(pb.REJECT_STALE_SEQ) == 6 and codes.count(pb.REJECT_ILLEGAL_ACTION) <= 1, codes
    name = "alice" if me is a else "bob"
    token = bots.rotate(name)
    again = ScriptedBot(service.address, token, name)
    resent = again.expect("action_request")
    assert resent.seq == req.seq  # nothing was lost: the request is still open
    again.autoplay()
    again.act(resent.match_id, resent.seq, resent.legal[0].id)
    assert wait_done(matches, "flood")["strikes"] == [0, 0]
    assert bots.get(name).stats["illegal_actions"] == 1  # type: ignore[union-attr]
    again.close()
    other.close()


def test_slow_bot_gets_default_action_and_strike(service: ServiceProcess, stores: tuple[MatchStore, BotStore]) -> None:
    matches, bots = stores
    a, b = _two_bots(bots, service)
    matches.enqueue(spec("slow", "german_whist", ["alice", "bob"]))
    me, other, req = _first_request(a, b)
    other.autoplay()
    event = me.expect("event")
    assert event.is_default and event.fault == "timeout" and event.action == req.legal[0].id
    me.autoplay()
    result = wait_done(matches, "slow")
    assert sorted(result["strikes"]) == [0, 1]  # type: ignore[arg-type]
    replay = matches.replay("slow")
    assert replay is not None
    first = replay["deals"][0]["actions"][0]
    assert first["fault"] == "timeout" and first["default"] is True
    rerun(replay)
    assert bots.get((me is a and "alice") or "bob").stats["timeouts"] == 1  # type: ignore[union-attr]
    a.close()
    b.close()


def test_each_answer_is_recorded_with_the_time_its_seat_took_and_the_bank_left(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """A bot slow on its 3rd answer (150 ms), over its move clock on its 5th (1.3 s: 300 ms
    out of its 2 s bank) and silent on its 7th (a time-out: the rest of the bank) gets those
    times in the replay, server-measured, beside its bank left; the other answers are quick,
    and the result summarises them per seat.  The times change nothing of the match."""
    matches, bots = stores
    a, b = _two_bots(bots, service)
    a.autoplay(delays={3: 0.15, 5: 1.3}, silent={7})
    b.autoplay()
    clock = TimeControl(move_ms=1000, bank_ms=2000)
    matches.enqueue(spec("think", "german_whist", ["alice", "bob"], time_control=clock))
    result = wait_done(matches, "think")
    replay = matches.replay("think")
    assert replay is not None
    rerun(replay)
    actions = [e for d in replay["deals"] for e in d["actions"] if "chance" not in e]
    assert len(replay["think_ms"]) == len(replay["bank_ms_left"]) == len(actions) == 52
    mine = [i for i, e in enumerate(actions) if e["seat"] == 0]  # alice's actions, in order
    think = [replay["think_ms"][i] for i in mine]
    bank = [replay["bank_ms_left"][i] for i in mine]
    assert 150 <= think[2] < 1000 and bank[2] == 2000
    assert 1300 <= think[4] < 2000 and abs(bank[4] - (2000 - (think[4] - 1000))) <= 2
    assert actions[mine[6]]["fault"] == "timeout" and bank[6] == 0
    assert 1000 + bank[5] <= think[6] < 1000 + bank[5] + 500  # the move clock, then the bank
    quick = [t for n, t in enumerate(think) if n not in (2, 4, 6)]
    assert sorted(quick)[len(quick) // 2] < 100 and max(quick) < 1000  # the other answers
    assert bank[:4] == [2000] * 4 and bank[5] == bank[4] and bank[7:] == [0] * (len(bank) - 7)
    theirs = [replay["think_ms"][i] for i, e in enumerate(actions) if e["seat"] == 1]
    assert max(theirs) < 1000 and all(replay["bank_ms_left"][i] == 2000 for i, e in enumerate(actions) if e["seat"])
    think_summary = result["think"]
    assert isinstance(think_summary, list)
    assert think_summary[0] == {
        "asked": 26,
        "median_ms": sorted(think)[12],
        "max_ms": think[6],
        "slowest": mine[6],
        "timeouts": 1,
        "bank_ms_left": 0,
    }
    assert think_summary[1]["asked"] == 26 and think_summary[1]["timeouts"] == 0
    assert think_summary[1]["bank_ms_left"] == 2000 and think_summary[1]["max_ms"] == max(theirs)
    a.close()
    b.close()


def test_stale_seq_other_seat_and_unknown_match_are_rejected_in_band(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    matches, bots = stores
    a, b = _two_bots(bots, service)
    matches.enqueue(spec("misc", "german_whist", ["alice", "bob"], time_control=TimeControl(30000, 0)))
    me, other, req = _first_request(a, b)
    me.act(req.match_id, req.seq + 100, req.legal[0].id)
    assert me.expect("action_rejected").code == pb.REJECT_STALE_SEQ
    other.act(req.match_id, req.seq, req.legal[0].id)  # the other bot answers for my seat
    assert other.expect("action_rejected").code == pb.REJECT_NOT_YOUR_SEAT
    other.act("no-such-match", 1, "pass")
    assert other.expect("action_rejected").code == pb.REJECT_UNKNOWN_MATCH
    outsider = ScriptedBot(service.address, bots.register("outsider"), "outsider")
    outsider.expect("welcome")
    outsider.act(req.match_id, req.seq, req.legal[0].id)  # a live match it has no seat in
    rejected = outsider.expect("action_rejected")
    assert rejected.code == pb.REJECT_UNKNOWN_MATCH  # as unknown: nothing learnt of others' matches
    outsider.close()
    me.act(req.match_id, req.seq, "")
    assert me.expect("action_rejected").code == pb.REJECT_MALFORMED
    me.act(req.match_id, req.seq, req.legal[0].id)  # nothing was lost: the real answer counts
    event = me.expect("event")
    assert not event.is_default
    me.autoplay()
    other.autoplay()
    assert wait_done(matches, "misc")["strikes"] == [0, 0]
    a.close()
    b.close()


def test_probing_another_seats_simultaneous_request_tells_nothing_of_its_answer(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """Skull's first placement asks every seat at once.  An answer to another seat's request was
    told ``NOT_YOUR_SEAT`` while that request was pending and ``STALE_SEQ`` once it had been
    answered, so a bot could learn by probing whether an opponent had placed yet (found by a
    pentest).  It is ``NOT_YOUR_SEAT`` either way now."""
    matches, bots = stores
    names = ["alice", "bob", "carol"]
    players = [ScriptedBot(service.address, bots.register(n), n) for n in names]
    for p in players:
        p.expect("welcome")
    matches.enqueue(spec("probe", "skull", names, time_control=TimeControl(30000, 0)))
    requests = [p.expect("action_request") for p in players]
    alice, bob, carol = players
    mine, bobs, carols = requests
    alice.act(bobs.match_id, bobs.seq, bobs.legal[0].id)  # bob's request, pending
    before = alice.expect("action_rejected")
    bob.act(bobs.match_id, bobs.seq, bobs.legal[0].id)  # bob places
    bob.act(bobs.match_id, bobs.seq, bobs.legal[0].id)  # its rejection shows the first was taken
    assert bob.expect("action_rejected").code == pb.REJECT_STALE_SEQ
    alice.act(bobs.match_id, bobs.seq, bobs.legal[0].id)  # bob's request, answered
    after = alice.expect("action_rejected")
    assert before.code == after.code == pb.REJECT_NOT_YOUR_SEAT
    assert before.reason == after.reason == f"seq {bobs.seq} asks seat 1, not yours"
    alice.act(mine.match_id, mine.seq, mine.legal[0].id)  # alice's own answer still counts
    carol.act(carols.match_id, carols.seq, carols.legal[0].id)
    for p in players:
        p.autoplay()
    assert wait_done(matches, "probe")["strikes"] == [0, 0, 0]
    for p in players:
        p.close()


def test_auth_and_hello_errors(service: ServiceProcess, stores: tuple[MatchStore, BotStore]) -> None:
    _, bots = stores
    token = bots.register("carol")
    assert ScriptedBot(service.address, "wrong.token", "carol").status() == grpc.StatusCode.UNAUTHENTICATED
    assert ScriptedBot(service.address, token, "mallory").status() == grpc.StatusCode.PERMISSION_DENIED
    not_hello = pb.BotMessage(pong=pb.Pong(nonce=1))
    assert ScriptedBot(service.address, token, hello=not_hello).status() == grpc.StatusCode.INVALID_ARGUMENT
    bad_game = pb.BotMessage(hello=pb.Hello(bot="carol", games=["no_such_game"]))
    assert ScriptedBot(service.address, token, hello=bad_game).status() == grpc.StatusCode.INVALID_ARGUMENT


def test_hello_errors_keep_their_code_whatever_the_size_of_the_hello(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """A status's details travel in a header, which a client refuses past 16 KiB (and then
    reports RESOURCE_EXHAUSTED, which the SDK retries for ever): what the details quote of a
    Hello is shortened, so a huge wrong name or a long list of unknown games gets its own code."""
    _, bots = stores
    token = bots.register("olga")
    huge_name = ScriptedBot(service.address, token, hello=pb.BotMessage(hello=pb.Hello(bot="m" * 40000)))
    assert huge_name.status() == grpc.StatusCode.PERMISSION_DENIED, huge_name.error
    assert "'olga'" in (huge_name.error.details() or "")  # type: ignore[union-attr]
    games = [f"no_such_game_{i}" for i in range(3000)]
    many_games = ScriptedBot(service.address, token, hello=pb.BotMessage(hello=pb.Hello(games=games)))
    assert many_games.status() == grpc.StatusCode.INVALID_ARGUMENT, many_games.error
    details = many_games.error.details() or ""  # type: ignore[union-attr]
    assert "no_such_game_0" in details and "3000" in details and len(details) < 1000
    for bot in (huge_name, many_games):
        bot.close()


def test_a_stream_that_never_says_hello_ends_deadline_exceeded_and_frees_its_slot(
    redis_url: str, key_prefix: str, stores: tuple[MatchStore, BotStore]
) -> None:
    """A stream that authenticates and then sends nothing (a slow-loris) ends with
    DEADLINE_EXCEEDED after the hello timeout, and the session slot it held is free again.
    An instance in this process (on loopback) with a short hello timeout and one session per bot."""
    import asyncio
    import threading

    from cardarena.server.service import Instance, Limits

    _, bots = stores
    token = bots.register("sloth")
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    inst = Instance(redis_url, limits=Limits(hello_timeout_s=0.5, sessions_per_bot=1))
    port = asyncio.run_coroutine_threadsafe(inst.start(), loop).result(30)
    try:
        address = f"127.0.0.1:{port}"
        silent = ScriptedBot(address, token, "sloth", send_hello=False)
        started = time.monotonic()
        assert silent.status() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert time.monotonic() - started < 5
        silent.close()
        again = ScriptedBot(address, token, "sloth")
        assert again.expect("welcome").bot == "sloth"  # the silent stream's slot was given back
        again.close()
    finally:
        asyncio.run_coroutine_threadsafe(inst.stop(0), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
        inst.bots.r.close()  # the instance's Redis client (its stores share it)


def test_limits_sessions_oversized_and_bad_messages(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    _, bots = stores
    token = bots.register("dave")
    one, two = ScriptedBot(service.address, token, "dave"), ScriptedBot(service.address, token, "dave")
    one.expect("welcome")
    two.expect("welcome")
    assert ScriptedBot(service.address, token, "dave").status() == grpc.StatusCode.RESOURCE_EXHAUSTED
    one.act("m", 1, "x" * (200 * 1024))
    assert one.status() == grpc.StatusCode.RESOURCE_EXHAUSTED
    for i in range(10):
        two.act("nothing", i, "pass")
    assert two.status() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_streams_opened_at_once_cannot_exceed_the_sessions_per_bot(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """The limit counts streams still waiting for their Hello: a bot that opens several
    streams before saying Hello on any gets no more sessions than allowed (2 here)."""
    _, bots = stores
    token = bots.register("dora")
    streams = [ScriptedBot(service.address, token, "dora", send_hello=False) for _ in range(4)]
    time.sleep(1.0)  # every stream is open and past authentication, none has said Hello
    for bot in streams:
        bot.send(bot.hello)
    outcomes = []
    for bot in streams:
        first = next(bot.messages(), None)
        outcomes.append(first.WhichOneof("kind") if first is not None else bot.error.code())  # type: ignore[union-attr]
    refused = [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
    assert sorted(map(str, outcomes)) == sorted(map(str, ["welcome", "welcome", *refused]))
    assert ScriptedBot(service.address, token, "dora").status() == grpc.StatusCode.RESOURCE_EXHAUSTED
    for bot in streams:
        bot.close()
    deadline = time.monotonic() + 10
    while True:  # the closed and the refused streams hold no slot: a new session is welcome
        again = ScriptedBot(service.address, token, "dora")
        first = next(again.messages(), None)
        again.close()
        if first is not None or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert first is not None and first.WhichOneof("kind") == "welcome", again.error


def test_disconnect_and_reconnect_resumes_the_pending_request(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    matches, bots = stores
    ta, tb = bots.register("erin"), bots.register("frank")
    a, b = ScriptedBot(service.address, ta, "erin"), ScriptedBot(service.address, tb, "frank")
    a.expect("welcome")
    b.expect("welcome")
    matches.enqueue(spec("resume", "german_whist", ["erin", "frank"], time_control=TimeControl(5000, 0)))
    me, other, req = _first_request(a, b)
    other.autoplay()
    token = ta if me is a else tb
    name = "erin" if me is a else "frank"
    me.close()
    time.sleep(0.3)
    again = ScriptedBot(service.address, token, name)
    welcome = again.expect("welcome")
    assert list(welcome.resumed) == ["resume"]
    start = again.expect("match_start")
    assert start.resumed and start.match_id == "resume"
    resent = again.expect("action_request")
    assert resent.seq == req.seq and [x.id for x in resent.legal] == [x.id for x in req.legal]
    again.act(resent.match_id, resent.seq, resent.legal[0].id)
    assert not again.expect("event").is_default
    again.autoplay()
    result = wait_done(matches, "resume")
    assert result["strikes"] == [0, 0]
    again.close()
    other.close()


def test_a_resumed_request_holds_the_cards_played_before_the_bot_left(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """The events of the time away are not sent again and a reconnecting bot process may have
    lost whatever it tracked: the view of the re-sent request lists the deal's completed tricks
    (``played_cards``), the cards the events had shown the bot before it left."""
    matches, bots = stores
    ta, tb = bots.register("kira"), bots.register("lev")
    a, b = ScriptedBot(service.address, ta, "kira"), ScriptedBot(service.address, tb, "lev")
    a.expect("welcome")
    b.expect("welcome")
    matches.enqueue(spec("played", "german_whist", ["kira", "lev"], time_control=CALM))
    me, other, req = _first_request(a, b)  # the leader: no play before its first request
    other.autoplay()
    plays: list[str] = []
    for _ in range(4):
        me.act(req.match_id, req.seq, req.legal[0].id)
        for message in me.messages():
            kind = message.WhichOneof("kind")
            if kind == "event":
                plays.append(message.event.action.removeprefix("play:"))
            elif kind == "action_request":
                req = message.action_request
                break
    token, name = (ta, "kira") if me is a else (tb, "lev")
    me.close()
    time.sleep(0.3)
    again = ScriptedBot(service.address, token, name)
    assert list(again.expect("welcome").resumed) == ["played"]
    resent = again.expect("action_request")
    assert resent.seq == req.seq
    view = codec.decode_view(resent.view)
    in_trick = [c["card"] for c in view["trick"]]
    assert len(plays) >= 7 and plays[len(plays) - len(in_trick) :] == in_trick
    assert sorted(view["played_cards"]) == sorted(plays[: len(plays) - len(in_trick)])
    again.act(resent.match_id, resent.seq, resent.legal[0].id)
    again.autoplay()
    assert wait_done(matches, "played")["strikes"] == [0, 0]
    again.close()
    other.close()


def test_a_bot_with_another_session_open_keeps_its_seat_when_one_closes(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """A bot reconnecting before its old stream is noticed gone, or running several sessions:
    the seats of the session that closes move to another open one at once, with the pending
    request re-sent, not after the clock has run down."""
    matches, bots = stores
    ta, tb = bots.register("gina"), bots.register("hal")
    a, b = ScriptedBot(service.address, ta, "gina"), ScriptedBot(service.address, tb, "hal")
    a.expect("welcome")
    b.expect("welcome")
    matches.enqueue(spec("moved", "german_whist", ["gina", "hal"], time_control=TimeControl(5000, 0)))
    me, other, req = _first_request(a, b)
    other.autoplay()
    token, name = (ta, "gina") if me is a else (tb, "hal")
    spare = ScriptedBot(service.address, token, name)
    assert list(spare.expect("welcome").resumed) == []  # the seat is still held by the first
    me.close()
    start = spare.expect("match_start")
    assert start.resumed and start.match_id == "moved"
    resent = spare.expect("action_request")
    assert resent.seq == req.seq and resent.move_ms_left > 1000  # the clock has not run down
    spare.act(resent.match_id, resent.seq, resent.legal[0].id)
    assert not spare.expect("event").is_default
    spare.autoplay()
    result = wait_done(matches, "moved")
    assert result["strikes"] == [0, 0]
    assert bots.get(name).stats["disconnects"] == 0  # type: ignore[union-attr]
    spare.close()
    other.close()


def test_malformed_bytes_end_the_stream_with_invalid_argument(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    _, bots = stores
    token = bots.register("ivy")
    hello = pb.BotMessage(hello=pb.Hello(max_matches=1)).SerializeToString()
    for messages in ([b"\xff\xff\xff\xff\x0f"], [hello, b"\xff\xff\xff\xff\x0f"]):
        channel = grpc.insecure_channel(service.address)
        play = channel.stream_stream("/cardarena.v1.Arena/Play")  # raw bytes both ways
        call = play(iter(messages), metadata=(("authorization", f"Bearer {token}"),))
        with pytest.raises(grpc.RpcError) as failed:
            for _ in call:
                pass
        assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT, failed.value
        assert "malformed message" in (failed.value.details() or "")
        channel.close()


def test_crashed_bot_forfeits_and_ranks_last(service: ServiceProcess, stores: tuple[MatchStore, BotStore]) -> None:
    matches, bots = stores
    a, b = _two_bots(bots, service)
    policy = FaultPolicy(max_strikes=2, join_timeout_ms=5000)
    matches.enqueue(spec("crash", "german_whist", ["alice", "bob"], fault_policy=policy))
    me, other, _ = _first_request(a, b)
    other.autoplay()
    me.close()
    result = wait_done(matches, "crash")
    gone = 0 if me is a else 1
    assert result["forfeited"] == [gone]
    assert result["ranks"][gone] == 2 and result["ranks"][1 - gone] == 1  # type: ignore[index]
    replay = matches.replay("crash")
    assert replay is not None
    faults = [e for d in replay["deals"] for e in d["actions"] if e.get("fault")]
    assert [f["fault"] for f in faults[:2]] == ["disconnect", "disconnect"] and faults[1].get("forfeit")
    assert all(f["default"] for f in faults)
    rerun(replay)
    other.close()


def test_server_stopped_mid_match_voids_then_a_restart_completes(
    redis_url: str, key_prefix: str, stores: tuple[MatchStore, BotStore]
) -> None:
    matches, bots = stores
    first = ServiceProcess(redis_url, "--grace", "0")
    token = bots.register("gina")
    bot = ScriptedBot(first.address, token, "gina")
    bot.expect("welcome")
    matches.enqueue(spec("stopped", "glaves", ["gina", "gina"], time_control=TimeControl(5000, 0)))
    bot.expect("action_request")  # the match is live; the bot never answers
    assert matches.status("stopped") == "running"
    first.stop()
    assert matches.status("stopped") == "queued"
    assert matches.result("stopped") is None and matches.replay("stopped") is None
    assert "server stopped" in matches.info("stopped")["last_void"]
    bot.close()
    second = ServiceProcess(redis_url)
    try:
        again = ScriptedBot(second.address, token, "gina")
        again.autoplay()
        result = wait_done(matches, "stopped")
        replay = matches.replay("stopped")
        assert replay is not None and rerun(replay).result().to_json()["scores"] == result["scores"]
        assert matches.info("stopped")["attempts"] == "2"
        again.close()
    finally:
        second.stop()


def test_a_busy_bot_is_waited_for_not_a_no_show(service: ServiceProcess, stores: tuple[MatchStore, BotStore]) -> None:
    """A claimed match whose bot is connected but busy elsewhere waits for it past the join
    timeout, and holds none of its other bots meanwhile (seats bind all at once)."""
    matches, bots = stores
    alice, bob, carol = (
        ScriptedBot(service.address, bots.register(n), n, max_matches=1) for n in ("alice", "bob", "carol")
    )
    for bot in (alice, bob, carol):
        bot.expect("welcome")
    quick_join = FaultPolicy(join_timeout_ms=1000)
    slow = TimeControl(move_ms=30000, bank_ms=0)
    matches.enqueue(spec("busy-1", "german_whist", ["alice", "bob"], time_control=slow, fault_policy=quick_join))
    alice.expect("match_start")
    matches.enqueue(spec("busy-2", "german_whist", ["alice", "carol"], time_control=slow, fault_policy=quick_join))
    deadline = time.monotonic() + 15
    while matches.status("busy-2") != "running":  # claimed: carol had room
        assert time.monotonic() < deadline, matches.info("busy-2")
        time.sleep(0.05)
    time.sleep(2.0)  # twice busy-2's join timeout, while alice still plays busy-1
    seen = [None if message is None else message.WhichOneof("kind") for message in carol.received()]
    assert "match_start" not in seen and None not in seen  # carol is not held by busy-2
    for bot in (alice, bob, carol):
        bot.autoplay()
    first, second = wait_done(matches, "busy-1"), wait_done(matches, "busy-2")
    assert first["forfeited"] == [] and second["forfeited"] == []
    replay = matches.replay("busy-2")
    assert replay is not None and replay["faults"] == []
    for bot in (alice, bob, carol):
        bot.close()


def test_a_bot_that_never_connects_is_a_no_show(service: ServiceProcess, stores: tuple[MatchStore, BotStore]) -> None:
    """After the join timeout the absent bot's seat forfeits from the start (fault ``no-show``),
    default actions play it to the end, and it ranks last."""
    matches, bots = stores
    bots.register("ghost")  # registered, never connected
    alice = ScriptedBot(service.address, bots.register("alice"), "alice")
    alice.expect("welcome")
    alice.autoplay()
    matches.enqueue(
        spec(
            "absent",
            "german_whist",
            ["ghost", "alice"],
            time_control=CALM,
            fault_policy=FaultPolicy(join_timeout_ms=1000),
        )
    )
    result = wait_done(matches, "absent")
    assert result["forfeited"] == [0] and result["ranks"] == [2, 1] and result["no_show"] == [0]
    replay = matches.replay("absent")
    assert replay is not None
    assert replay["faults"] == [{"seat": 0, "fault": "no-show", "forfeit": True}]
    ghost_moves = [a for d in replay["deals"] for a in d["actions"] if a.get("seat") == 0]
    assert ghost_moves and all(a.get("default") and a.get("fault") == "forfeited" for a in ghost_moves)
    rerun(replay)
    assert bots.get("ghost").stats["forfeits"] == 1  # type: ignore[union-attr]
    alice.close()


def test_a_match_no_instance_can_set_up_is_withdrawn_not_claimed_for_ever(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """Options the engine refuses when it builds the match (queued by a client that did not
    check them): the match goes back to the queue a few times, in case an instance of another
    version can play it, then it is withdrawn with the reason, instead of a claim loop that
    spins for ever."""
    from cardarena.server.service import INVALID_SPEC_ATTEMPTS

    matches, bots = stores
    carol = ScriptedBot(service.address, bots.register("carol"), "carol")  # keeps the claim loop claiming
    carol.expect("welcome")
    matches.enqueue(spec("bad-options", "schnapsen", ["carol", "carol"], options={"target": 0}))
    deadline = time.monotonic() + 30
    while matches.status("bad-options") != "withdrawn":
        assert time.monotonic() < deadline, matches.info("bad-options")
        time.sleep(0.05)
    info = matches.info("bad-options")
    assert int(info["attempts"]) == INVALID_SPEC_ATTEMPTS
    assert "invalid spec" in info["withdrawn_reason"] and "target" in info["withdrawn_reason"]
    time.sleep(0.5)
    assert matches.attempts("bad-options") == INVALID_SPEC_ATTEMPTS and matches.result("bad-options") is None
    carol.close()


def test_a_match_whose_bots_never_come_is_played_out_by_forfeit_at_its_last_attempt(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """Registered bots that never connect must not hold a tournament forever: the match is
    voided twice, and at its third claim (``no_show_attempts``) every seat forfeits from the
    start and default actions play it out."""
    matches, bots = stores
    for name in ("ghost1", "ghost2"):
        bots.register(name)
    carol = ScriptedBot(service.address, bots.register("carol"), "carol")  # keeps the claim loop claiming
    carol.expect("welcome")
    policy = FaultPolicy(join_timeout_ms=300, no_show_attempts=3)
    matches.enqueue(spec("never", "german_whist", ["ghost1", "ghost2"], time_control=CALM, fault_policy=policy))
    result = wait_done(matches, "never")
    assert matches.attempts("never") == 3
    # a no contest: the default actions' scores tell nobody apart, so the seats share the place
    assert result["forfeited"] == result["no_show"] == [0, 1] and result["ranks"] == [1, 1]
    replay = matches.replay("never")
    assert replay is not None and replay["fault_policy"]["no_show_attempts"] == 3
    assert replay["faults"] == [{"seat": s, "fault": "no-show", "forfeit": True} for s in (0, 1)]
    assert rerun(replay).result().to_json()["scores"] == result["scores"]
    assert [bots.get(n).stats["forfeits"] for n in ("ghost1", "ghost2")] == [1, 1]  # type: ignore[union-attr]
    carol.close()


def test_a_match_whose_bots_all_stay_away_is_voided_then_played_when_they_come(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """No seated bot connected by the join timeout: the match is voided (nothing recorded) and
    requeued; once its bots connect it is played in full, with no fault."""
    matches, bots = stores
    tokens = {name: bots.register(name) for name in ("ghost1", "ghost2")}
    carol = ScriptedBot(service.address, bots.register("carol"), "carol")  # keeps the claim loop claiming
    carol.expect("welcome")
    matches.enqueue(
        spec(
            "away",
            "german_whist",
            ["ghost1", "ghost2"],
            time_control=CALM,
            fault_policy=FaultPolicy(join_timeout_ms=500, no_show_attempts=0),
        )
    )
    deadline = time.monotonic() + 30
    while int(matches.info("away").get("attempts", "0")) < 2:  # claimed, voided, claimed again
        assert time.monotonic() < deadline, matches.info("away")
        time.sleep(0.05)
    assert matches.result("away") is None and matches.replay("away") is None
    # Stop the claiming (carol leaves) and let the last claim void, so that the ghosts' first
    # connection starts a fresh join window (500 ms) for the other: connecting while a window
    # is closing would make the later one a no-show, which is another test.
    carol.close()
    before = matches.info("away")
    while True:
        time.sleep(0.7)
        now = matches.info("away")
        if now["status"] == "queued" and now.get("attempts") == before.get("attempts"):
            break  # queued, and not claimed for 0.7 s: nobody is claiming
        assert time.monotonic() < deadline, now
        before = now
    g1, g2 = (ScriptedBot(service.address, tokens[n], n) for n in ("ghost1", "ghost2"))
    for bot in (g1, g2):
        bot.expect("welcome")
        bot.autoplay()
    result = wait_done(matches, "away")
    assert result["forfeited"] == [] and result["strikes"] == [0, 0]
    replay = matches.replay("away")
    assert replay is not None and replay["faults"] == []
    for bot in (g1, g2):
        bot.close()


class RestartableRedis:
    """A private Redis with its AOF in a test's directory, on a port it can come back on."""

    def __init__(self, where: Path) -> None:
        from .redis_server import port_for_restarts

        self.where, self.port = where, port_for_restarts()
        self.server = self._server().start()
        self.url = self.server.url

    def _server(self) -> Any:
        from cardarena.store.connection import EmbeddedRedis

        return EmbeddedRedis(self.where, port=self.port, persist=True)

    def stop(self) -> None:
        self.server.stop()

    def start(self) -> None:
        self.server = self._server().start()


@pytest.fixture
def restartable(tmp_path: Path, key_prefix: str) -> Iterator[RestartableRedis]:
    redis_server = RestartableRedis(tmp_path / "redis")
    yield redis_server
    redis_server.stop()


def test_the_service_claims_again_after_redis_restarts(restartable: RestartableRedis) -> None:
    """Found by an operator review: after a Redis restart every instance stayed up and healthy
    but never claimed again (its claim loop had died on the connection error)."""
    client = client_for(restartable.url)
    matches, bots = MatchStore(client), BotStore(client)
    service = ServiceProcess(restartable.url, "--grace", "0")
    bot: ScriptedBot | None = None
    try:
        bot = ScriptedBot(service.address, bots.register("kim"), "kim")
        bot.expect("welcome")
        bot.autoplay()
        matches.enqueue(spec("before", "german_whist", ["kim", "kim"], time_control=CALM))
        assert wait_done(matches, "before")["forfeited"] == []
        restartable.stop()  # Redis goes away (AOF on disk) and comes back on the same port
        time.sleep(1.5)
        restartable.start()
        matches.enqueue(spec("after", "german_whist", ["kim", "kim"], time_control=CALM))
        assert wait_done(matches, "after", timeout=60)["forfeited"] == []
        client.close()
    finally:
        if bot is not None:
            bot.close()
        service.stop()


def test_service_configuration_errors_are_one_line(redis_url: str, key_prefix: str) -> None:
    """An operator's mistakes: an unreachable Redis, a port in use (gRPC or metrics: no two
    servers silently sharing a port), out-of-range flags. One line, exit 2, nothing left running."""
    import os
    import socket
    import subprocess
    import sys

    def service(*args: str, url: str = redis_url) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "cardarena.server", "service", *args]
        env = {**os.environ, "REDIS_URL": url}
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)

    done = service("--port", "0", url="redis://127.0.0.1:1/0")
    assert done.returncode == 2 and "cannot reach Redis at redis://127.0.0.1:1/0" in done.stderr
    for flags, message in (
        (["--port", "70000"], "a port is 0 to 65535"),
        (["--max-message-bytes", "10"], "must be at least 1024"),
        (["--grace", "-5"], "must be at least 0"),
        (["--sessions-per-bot", "0"], "must be at least 1"),
    ):
        done = service(*flags)
        assert done.returncode == 2 and message in done.stderr, (flags, done.stderr)
    done = service("--port", "5555", "--metrics-port", "5555")
    assert done.returncode == 2 and "--port and --metrics-port are both 5555" in done.stderr, done.stderr
    # a port in use, by another service or by a socket held open: named in one line (gRPC's
    # "Failed to bind ... set GRPC_VERBOSITY" said neither which port nor why)
    running = ServiceProcess(redis_url, "--grace", "0")
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    held = holder.getsockname()[1]
    try:
        for flags, port, option in (
            (["--port", str(running.port)], running.port, "--port"),
            (["--port", str(held)], held, "--port"),
            (["--port", "0", "--metrics-port", str(held)], held, "--metrics-port"),
        ):
            done = service(*flags)
            assert done.returncode == 2, (flags, done.stderr[-1500:])
            assert done.stderr.splitlines() == [
                f"cardarena: error: port {port} ({option}) is already in use on 127.0.0.1; "
                "stop what uses it or pick another port (0 picks a free one)"
            ], flags
    finally:
        holder.close()
        running.stop()


def test_a_match_recorded_meanwhile_by_another_run_tells_its_bots_the_recorded_result(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """Redis out of reach for longer than a match's lease (a restart loading a large AOF): the
    lease lapses, the reconciler requeues the match and another instance plays and records it
    while this one still plays it.  This run's end writes nothing (the result is recorded once)
    and its bots are told the recorded result, not the one this run's moves would have given."""
    from cardarena.store.keys import key

    from .tournament_fixtures import play_spec

    matches, bots = stores
    bot = ScriptedBot(service.address, bots.register("gina"), "gina")
    bot.expect("welcome")
    first = spec("twice", "glaves", ["gina", "gina"], time_control=CALM)
    matches.enqueue(first)
    bot.expect("action_request")  # live here; the bot waits
    # What the other instance did: its claim found the lease gone, and it recorded its own play.
    matches.r.delete(key("match", "twice", "lease"))
    result, replay = play_spec(first)
    recorded = {**result, "forfeited": [], "strikes": [0, 0], "scores": [s + 1000 for s in result["scores"]]}
    assert matches.complete("twice", "inst-b", recorded, replay)
    bot.autoplay()
    end = bot.expect("match_end", timeout=60)
    assert end.status == "completed" and list(end.scores) == recorded["scores"]
    assert "recorded by another run" in end.reason
    info = matches.info("twice")
    assert info["finished_by"] == "inst-b" and json.loads(info["result"]) == recorded
    assert bots.get("gina").stats["matches"] == 0  # type: ignore[union-attr]  # counted by the recording run
    bot.close()


def test_a_bot_connecting_while_redis_is_away_is_told_unavailable_then_plays(restartable: RestartableRedis) -> None:
    """A stream opened while the service cannot reach Redis (its token and session lease live
    there) ends ``UNAVAILABLE`` saying so, a status every client retries, not ``UNKNOWN`` with
    the Redis client's exception; once Redis is back the bot connects and plays."""
    client = client_for(restartable.url)
    matches, bots = MatchStore(client), BotStore(client)
    token = bots.register("lou")
    service = ServiceProcess(restartable.url, "--grace", "0")
    bot: ScriptedBot | None = None
    try:
        restartable.stop()
        away = ScriptedBot(service.address, token, "lou")
        assert away.status(timeout=60) == grpc.StatusCode.UNAVAILABLE
        assert away.error is not None and "cannot reach its Redis" in (away.error.details() or "")
        away.close()
        restartable.start()
        bot = ScriptedBot(service.address, token, "lou")
        bot.expect("welcome", timeout=60)
        bot.autoplay()
        matches.enqueue(spec("back", "german_whist", ["lou", "lou"], time_control=CALM))
        assert wait_done(matches, "back", timeout=60)["forfeited"] == []
        client.close()
    finally:
        if bot is not None:
            bot.close()
        service.stop()


def _logged(path: Path, event: str, match_id: str, timeout: float = 30.0) -> list[dict[str, Any]]:
    """The service's log lines (JSON) of ``event`` for ``match_id``, waiting for the first."""
    deadline = time.monotonic() + timeout
    while True:
        lines = [json.loads(x) for x in path.read_text().splitlines() if x.startswith("{")]
        found = [x for x in lines if x.get("event") == event and x.get("match_id") == match_id]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


@pytest.mark.parametrize("taker", ["inst-b", "svc"], ids=["another-instance", "a-new-life-of-this-instance"])
def test_a_run_whose_lease_another_claim_took_stops_at_once_and_records_nothing(
    redis_url: str, key_prefix: str, tmp_path: Path, taker: str
) -> None:
    """Redis out of reach for longer than a match's lease: the reconciler requeued the match and
    another instance claimed it while this one still plays it.  At its next renewal this run
    finds the lease taken: it stops at once (the bot never answered, and its move clock is two
    minutes), tells its bots ``voided`` with the reason, writes nothing, frees the seats, and
    counts and logs ``superseded``; the other run records the match, once.  The same when the
    claim is this instance's own next life (restarted under its name while this one stalled):
    a lease holds its claim's run id beside the name, so the name alone renews nothing."""
    from cardarena.store.keys import key

    from .server_harness import SLOW_CLOCK
    from .test_server_metrics import free_port, scrape, value
    from .tournament_fixtures import play_spec

    metrics, log = free_port(), tmp_path / "service.log"
    service = ServiceProcess(
        redis_url,
        "--lease-ms",
        "1500",
        "--grace",
        "0",
        "--metrics-port",
        str(metrics),
        "--instance-name",
        "svc",
        log=log,
    )
    matches, bots = MatchStore(client_for(redis_url)), BotStore(client_for(redis_url))
    bot = ScriptedBot(service.address, bots.register("gina"), "gina", max_matches=2)
    try:
        bot.expect("welcome")
        taken = spec("taken", "glaves", ["gina", "gina"], time_control=SLOW_CLOCK)
        matches.enqueue(taken)
        bot.expect("action_request")  # live here; the bot never answers it
        if taker == "svc":  # its lease lapsed, and the next life requeued and claimed it (no room here)
            matches.r.delete(key("match", "taken", "lease"))
            matches.requeue_lost()
            assert matches.claim("svc", wait_s=5) == taken
        else:
            # What the reconciler's requeue and inst-b's claim leave in Redis, written in one
            # step (this instance's claim loop would otherwise race the test for the match).
            takeover = matches.r.pipeline(transaction=True)
            takeover.set(key("match", "taken", "lease"), "inst-b", px=60_000)
            takeover.hset(key("match", "taken"), "instance", "inst-b")
            takeover.hincrby(key("match", "taken"), "attempts", 1)
            takeover.execute()
        end = bot.expect("match_end", timeout=30)
        assert end.match_id == "taken" and end.status == "voided", end
        assert "lost its lease" in end.reason and not end.scores
        info = matches.info("taken")
        assert info["status"] == "running" and "result" not in info and matches.replay("taken") is None
        assert info["instance"] == taker and info["attempts"] == "2"
        assert _logged(log, "match_superseded", "taken")
        samples = scrape(metrics)
        assert value(samples, "cardarena_matches_total", status="superseded") == 1
        assert value(samples, "cardarena_matches_total", status="voided") == 0
        # the taker records its run: the only result, the first run having written nothing
        result, replay = play_spec(taken)
        assert matches.complete("taken", taker, result, replay)
        assert matches.info("taken")["finished_by"] == taker
        assert bots.get("gina").stats["matches"] == 0  # type: ignore[union-attr]
        # both of the bot's seats are free again: the next match seats it twice and completes
        bot.autoplay()
        matches.enqueue(spec("after", "glaves", ["gina", "gina"], time_control=CALM))
        assert wait_done(matches, "after")["forfeited"] == []
        assert matches.info("after")["finished_by"] == "svc"
    finally:
        bot.close()
        service.stop()


def test_a_short_redis_outage_keeps_the_match_and_a_lapsed_lease_stops_it(
    restartable: RestartableRedis, tmp_path: Path
) -> None:
    """A renewal that fails while the lease is still valid (Redis restarting) is retried and
    the match plays on; when no renewal succeeds for a whole lease (Redis away longer), the run
    stops at once while Redis is still away (its bots told ``voided``), and once Redis is back
    the reconciler requeues the match and it is played again and recorded once."""
    from cardarena.store.keys import key

    from .server_harness import SLOW_CLOCK

    log = tmp_path / "service.log"
    client = client_for(restartable.url)
    matches, bots = MatchStore(client), BotStore(client)
    service = ServiceProcess(restartable.url, "--lease-ms", "6000", "--grace", "0", log=log)
    bot = ScriptedBot(service.address, bots.register("ola"), "ola", max_matches=2)
    try:
        bot.expect("welcome")
        matches.enqueue(spec("outage", "glaves", ["ola", "ola"], time_control=SLOW_CLOCK))
        bot.expect("action_request")
        restartable.stop()  # a restart: down until one renewal failed
        assert _logged(log, "renew_failed", "outage")
        restartable.start()
        lease = key("match", "outage", "lease")
        deadline = time.monotonic() + 30
        while (left := client.pttl(lease)) < 5000:  # renewed again (it counts down from 6000 otherwise)
            assert left > 0 and time.monotonic() < deadline, left
            time.sleep(0.1)
        assert not _logged(log, "lease_lost", "outage", timeout=0)
        assert all(m is None or m.WhichOneof("kind") != "match_end" for m in bot.received())
        assert matches.info("outage")["attempts"] == "1"

        restartable.stop()  # away for longer than the lease
        end = bot.expect("match_end", timeout=30)
        assert end.status == "voided" and "lost its lease" in end.reason, end
        assert _logged(log, "match_superseded", "outage")
        restartable.start()
        bot.autoplay()  # the reconciler requeues it; played again from its seed, recorded once
        assert wait_done(matches, "outage", timeout=60)["forfeited"] == []
        assert matches.info("outage")["attempts"] == "2"
    finally:
        bot.close()
        service.stop()
        client.close()


def test_a_match_this_instance_claims_again_ends_its_older_run_first(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """The lease lapsed and the reconciler requeued the match while this instance still plays
    it; this instance claims it again (its bot has room) before a renewal noticed.  The older
    run ends first (``voided`` to the bot, nothing written), then the new run starts the match
    again from its seed and records it, once."""
    from cardarena.store.keys import key

    from .server_harness import SLOW_CLOCK

    log = tmp_path / "service.log"
    service = ServiceProcess(redis_url, "--grace", "0", log=log)  # renewals every 10 s
    matches, bots = MatchStore(client_for(redis_url)), BotStore(client_for(redis_url))
    bot = ScriptedBot(service.address, bots.register("ike"), "ike", max_matches=3)
    try:
        bot.expect("welcome")
        matches.enqueue(spec("again", "glaves", ["ike", "ike"], time_control=SLOW_CLOCK))
        bot.expect("action_request")
        matches.r.delete(key("match", "again", "lease"))  # lapsed
        matches.requeue_lost()
        end = bot.expect("match_end")
        assert end.match_id == "again" and end.status == "voided" and "lost its lease" in end.reason
        start = bot.expect("match_start")
        assert start.match_id == "again" and not start.resumed
        bot.autoplay()
        assert wait_done(matches, "again")["forfeited"] == []
        assert matches.info("again")["attempts"] == "2"
        assert len(_logged(log, "lease_lost", "again")) == len(_logged(log, "match_superseded", "again")) == 1
        assert len(_logged(log, "match_completed", "again")) == 1
    finally:
        bot.close()
        service.stop()
