"""Batched delivery (``Hello.batching`` / ``ServerBatch``) and batched answers (``BotBatch``)
over real gRPC on loopback with a real Redis."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from cardarena.engine import rerun
from cardarena.store.bots import BotStore
from cardarena.store.matches import MatchStore, TimeControl

from .server_harness import ScriptedBot, ServiceProcess, pb
from .test_server import spec, wait_done


@pytest.fixture
def service(redis_url: str, key_prefix: str) -> Iterator[ServiceProcess]:
    svc = ServiceProcess(redis_url, "--grace", "0")
    yield svc
    svc.stop()


def _hello(batching: bool, max_matches: int = 2) -> Any:
    return pb.BotMessage(hello=pb.Hello(max_matches=max_matches, batching=batching))


def _play_out(bot: ScriptedBot, *, batch_answers: bool, matches: int = 1) -> tuple[list[str], list[list[str]]]:
    """Answer every request with its first legal action until ``matches`` matches ended;
    returns the stream messages' kinds and, per ServerBatch, the kinds of its items."""
    kinds: list[str] = []
    batches: list[list[str]] = []
    ended: set[str] = set()  # a MatchEnd comes once per seat
    for message in bot.messages():
        kind = message.WhichOneof("kind")
        kinds.append(kind)
        items = list(message.batch.messages) if kind == "batch" else [message]
        if kind == "batch":
            batches.append([m.WhichOneof("kind") for m in items])
        answers = []
        for item in items:
            k = item.WhichOneof("kind")
            if k == "match_end":
                ended.add(item.match_end.match_id)
            elif k == "action_request":
                req = item.action_request
                action = pb.Action(match_id=req.match_id, seq=req.seq, action_id=req.legal[0].id)
                answers.append(pb.BotMessage(action=action))
        if batch_answers and len(answers) > 1:
            bot.send(pb.BotMessage(batch=pb.BotBatch(messages=answers)))
        else:
            for answer in answers:
                bot.send(answer)
        if len(ended) == matches:
            break
    return kinds, batches


def test_batching_bot_gets_event_and_next_request_in_one_message(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    matches, bots = stores
    bot = ScriptedBot(service.address, bots.register("solo"), hello=_hello(True))
    welcome = bot.expect("welcome")
    assert welcome.batching is True
    matches.enqueue(spec("b1", "german_whist", ["solo", "solo"], time_control=TimeControl(10000, 0)))
    kinds, batches = _play_out(bot, batch_answers=False)
    # The bot holds both seats: after every move its Event and the next ActionRequest were
    # queued together, so (nearly) every move arrives as one ServerBatch [event, action_request].
    assert ["event", "action_request"] in batches
    assert kinds.count("batch") > 20  # of the 52 moves (timing may split a few)
    assert all(b and "batch" not in b for b in batches)  # never nested, never empty
    result = wait_done(matches, "b1")
    replay = matches.replay("b1")
    assert replay is not None
    assert rerun(replay).result().to_json()["scores"] == result["scores"]
    bot.close()


def test_bot_without_batching_never_gets_a_batch(service: ServiceProcess, stores: tuple[MatchStore, BotStore]) -> None:
    matches, bots = stores
    bot = ScriptedBot(service.address, bots.register("plain"), hello=_hello(False))
    assert bot.expect("welcome").batching is False
    matches.enqueue(spec("p1", "german_whist", ["plain", "plain"], time_control=TimeControl(10000, 0)))
    kinds, batches = _play_out(bot, batch_answers=False)
    assert batches == [] and "batch" not in kinds
    assert kinds.count("action_request") >= 26  # every move of German Whist on its own
    wait_done(matches, "p1")
    bot.close()


def test_bot_batch_answers_several_matches_and_bad_items_are_rejected_in_band(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    matches, bots = stores
    bot = ScriptedBot(service.address, bots.register("multi"), hello=_hello(True, max_matches=6))
    bot.expect("welcome")
    # A batch with a Hello, a nested batch and an empty Action: each item is rejected on its
    # own, in order, and the stream stays open.
    bad = pb.BotMessage(
        batch=pb.BotBatch(
            messages=[
                pb.BotMessage(hello=pb.Hello()),
                pb.BotMessage(batch=pb.BotBatch()),
                pb.BotMessage(action=pb.Action(match_id="", seq=1, action_id="")),
            ]
        )
    )
    bot.send(bad)
    rejected = []
    for message in bot.messages():
        items = list(message.batch.messages) if message.WhichOneof("kind") == "batch" else [message]
        rejected += [m.action_rejected for m in items if m.WhichOneof("kind") == "action_rejected"]
        if len(rejected) == 3:
            break
    assert [r.code for r in rejected] == [pb.REJECT_MALFORMED] * 3
    assert "'hello' in a batch" in rejected[0].reason and "'batch' in a batch" in rejected[1].reason
    # Three matches at once, answered with BotBatch messages whenever requests arrive together.
    for i in range(3):
        matches.enqueue(spec(f"m{i}", "german_whist", ["multi", "multi"], seed=i, time_control=TimeControl(10000, 0)))
    _play_out(bot, batch_answers=True, matches=3)
    for i in range(3):
        result = wait_done(matches, f"m{i}")
        replay = matches.replay(f"m{i}")
        assert replay is not None
        assert rerun(replay).result().to_json()["scores"] == result["scores"]
        assert result["strikes"] == [0, 0]
    bot.close()


def test_coalesce_keeps_order_caps_the_batch_and_stops_at_the_end_marker() -> None:
    import asyncio

    from cardarena.wire.codec import MAX_BATCH, coalesce

    queue: asyncio.Queue[Any] = asyncio.Queue()
    pings = [pb.ServerMessage(ping=pb.Ping(nonce=i)) for i in range(MAX_BATCH + 5)]
    for p in pings[1:]:
        queue.put_nowait(p)
    batch, ended = coalesce(pings[0], queue)
    assert not ended and [m.ping.nonce for m in batch.batch.messages] == list(range(MAX_BATCH))
    assert queue.qsize() == 5  # the rest waits for the next write
    first = queue.get_nowait()
    queue.put_nowait(None)  # the stream ends behind the rest
    batch, ended = coalesce(first, queue)
    assert ended and [m.ping.nonce for m in batch.batch.messages] == [MAX_BATCH + i for i in range(5)]
    queue.put_nowait(None)
    single, ended = coalesce(pings[0], queue)
    assert ended and single is pings[0]  # nothing to batch: the message itself, then the end
    assert coalesce(pings[0], queue) == (pings[0], False)  # nothing queued at all
    answers = [pb.BotMessage(pong=pb.Pong(nonce=i)) for i in range(3)]  # the bot side alike
    for a in answers[1:]:
        queue.put_nowait(a)
    batch, ended = coalesce(answers[0], queue)
    assert not ended and batch.WhichOneof("kind") == "batch" and list(batch.batch.messages) == answers
