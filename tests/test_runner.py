"""The match runner and the hub in one process (no gRPC, no Redis): what a match's task sends
in what order, how illegal answers, the clock and engine errors are handled, and claiming a
a match waiting for busy bots.

The end-to-end behaviour over real gRPC and Redis is in ``test_server*.py``; these tests pin the
ordering and scheduling rules that those can only observe indirectly."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from cardarena.engine import build_replay, rerun
from cardarena.engine.core import GameError
from cardarena.server.hub import Hub, Session
from cardarena.server.observability import Metrics
from cardarena.server.runner import MatchRunner
from cardarena.store.matches import FaultPolicy, MatchSpec, TimeControl
from cardarena.think import action_seats
from cardarena.wire import codec

pb = codec.arena_pb2


def _spec(
    match_id: str = "m1", *, move_ms: int = 60000, seed: int = 7, game: str = "german_whist", max_rejections: int = 10
) -> MatchSpec:
    return MatchSpec(
        match_id=match_id,
        game=game,
        players=2,
        seats=("b", "b"),
        seed=seed,
        time_control=TimeControl(move_ms=move_ms, bank_ms=0),
        fault_policy=FaultPolicy(max_strikes=0, max_rejections=max_rejections),
    )


class _Results:
    """The match store's ``complete`` (an IO boundary): whether this call writes the result."""

    def __init__(self, writes: bool) -> None:
        self.writes = writes
        self.completed: list[tuple[str, dict[str, dict[str, int]]]] = []
        """Each call: the match id and the statistics it would count."""

    def complete(
        self, mid: str, instance: str, result: Any, replay: Any, *, tournament: str, stats: dict[str, dict[str, int]]
    ) -> bool:
        self.completed.append((mid, stats))
        return self.writes

    # Not written here: another run of the match recorded it first, with this result.
    RECORDED: ClassVar[dict[str, Any]] = {"scores": [1, 2], "ranks": [2, 1], "forfeited": []}

    def status(self, mid: str) -> str:
        return "done"

    def result(self, mid: str) -> dict[str, Any]:
        return self.RECORDED


def _runner(hub: Hub, spec: MatchSpec) -> MatchRunner:
    return MatchRunner(
        spec,
        hub=hub,
        matches=None,  # type: ignore[arg-type]
        metrics=Metrics(),
        instance="i",
        lease_ms=1000,
    )


def _seated(hub: Hub, session: Session, spec: MatchSpec) -> MatchRunner:
    """A runner with both seats bound to ``session`` (what ``join`` does once the bot is free)."""
    runner = _runner(hub, spec)
    hub.matches[spec.match_id] = runner.live
    for seat in range(spec.players):
        hub.bind(runner.live, seat, session)
        hub.reserve("b", -1)
    return runner


def _drain(session: Session) -> list[Any]:
    """The session's queued messages (requests are queued as their bytes: parsed here)."""
    out = []
    while not session.outbox.empty():
        item = session.outbox.get_nowait()
        out.append(pb.ServerMessage.FromString(item) if isinstance(item, bytes) else item)
    return out


def _requests(messages: list[Any]) -> list[Any]:
    return [m.action_request for m in messages if m.WhichOneof("kind") == "action_request"]


@pytest.fixture
def hub() -> Iterator[Hub]:
    yield Hub(instance="i", sessions_per_bot=4, bad_per_minute=1000)


def _open(hub: Hub, *, batching: bool = False, max_matches: int = 2) -> Session:
    session = hub.open("b", pb.Hello(max_matches=max_matches, batching=batching))
    assert _drain(session)[0].WhichOneof("kind") == "welcome"
    return session


def _answer(hub: Hub, session: Session, request: Any, action_id: str | None = None) -> Any:
    return hub.route_action(
        session, pb.Action(match_id=request.match_id, seq=request.seq, action_id=action_id or request.legal[0].id)
    )


async def _start(runner: MatchRunner, session: Session) -> tuple[asyncio.Task[None], Any]:
    """Start the match's task; returns it and the first ``ActionRequest``."""
    task = asyncio.create_task(runner.play())
    await asyncio.sleep(0)
    (request,) = _requests(_drain(session))
    return task, request


async def _play_first_legal(hub: Hub, session: Session, request: Any) -> Any:
    """Answer ``request`` with its first legal action; the next request (one loop turn later)."""
    assert _answer(hub, session, request) is None
    await asyncio.sleep(0)
    (following,) = _requests(_drain(session))
    return following


def test_each_answer_is_played_by_the_match_task_event_before_the_next_request(hub: Hub) -> None:
    async def main() -> None:
        session = _open(hub)
        runner = _seated(hub, session, _spec())
        task, request = await _start(runner, session)
        moves = 0
        while True:
            assert _answer(hub, session, request) is None
            moves += 1
            assert not _drain(session)  # routing only wakes the match's task ...
            await asyncio.sleep(0)  # ... which plays the move in its next step
            out = _drain(session)
            assert out[0].WhichOneof("kind") == "event" and out[0].event.action == request.legal[0].id
            following = _requests(out)
            if not following:
                break
            assert [m.WhichOneof("kind") for m in out][-1] == "action_request"
            assert following[-1].seq == request.seq + 1
            request = following[-1]
        await asyncio.wait_for(task, 5)
        assert moves == runner.actions == 52  # German Whist: 26 tricks of 2 cards
        assert not runner.annotations and not runner.faults
        _, replay = runner.outcome()
        assert rerun(replay).result().to_json()["scores"] == list(runner.state.result().scores)

    asyncio.run(main())


def test_an_illegal_answer_is_rejected_and_the_request_stays_open(hub: Hub) -> None:
    async def main() -> None:
        session = _open(hub)
        runner = _seated(hub, session, _spec())
        task, request = await _start(runner, session)
        request = await _play_first_legal(hub, session, request)
        illegal = next(c for c in ("c:2C", "c:AS", "c:KD") if c not in {a.id for a in request.legal})
        assert _answer(hub, session, request, illegal) is None
        await asyncio.sleep(0)
        (rejected,) = _drain(session)
        assert rejected.action_rejected.seq == request.seq
        assert rejected.action_rejected.code == pb.REJECT_ILLEGAL_ACTION
        request = await _play_first_legal(hub, session, request)  # the same request, answered legally
        assert runner.actions == 2 and not runner.faults
        assert runner.stats == {"b": {"illegal_actions": 1}}  # counted with the result
        task.cancel()

    asyncio.run(main())


def test_one_answer_per_request_is_judged_at_a_time_and_its_rejections_are_one_write(hub: Hub) -> None:
    """An answer to a request whose previous answer is not judged yet is stale (a bad message,
    answered at once by the hub): a batch of answers to one request gets one judged.  Illegal
    answers are each counted, once per request (not once per answer)."""

    async def main() -> None:
        session = _open(hub)
        runner = _seated(hub, session, _spec(max_rejections=0))
        task, request = await _start(runner, session)
        legal = {a.id for a in request.legal}
        illegal = [c for c in ("c:2C", "c:AS", "c:KD", "c:QH", "c:3D", "c:4S") if c not in legal][:3]
        for n, action in enumerate(illegal):
            assert _answer(hub, session, request, action) is None  # the first of this batch
            for _ in range(100):
                stale = _answer(hub, session, request, action)
                assert stale is not None and stale.action_rejected.code == pb.REJECT_STALE_SEQ
                assert "outcome" in stale.action_rejected.reason
            await asyncio.sleep(0)
            (rejected,) = _drain(session)  # one judged answer, one rejection
            assert rejected.action_rejected.code == pb.REJECT_ILLEGAL_ACTION, n
        await _play_first_legal(hub, session, request)  # the request was still open: answered now
        assert runner.stats == {"b": {"illegal_actions": len(illegal)}}
        assert runner.actions == 1 and not runner.faults
        task.cancel()

    asyncio.run(main())


def test_the_clock_runs_out_and_a_late_answer_is_stale(hub: Hub) -> None:
    async def main() -> None:
        session = _open(hub)
        runner = _seated(hub, session, _spec(move_ms=250))  # answered at once, or not at all
        task, request = await _start(runner, session)
        for _ in range(3):
            request = await _play_first_legal(hub, session, request)
        await asyncio.sleep(0.6)  # no answer: the move clock runs out
        assert runner.actions >= 4
        assert runner.faults[0] == {
            "seat": request.seat,
            "action_index": 3,
            "seq": request.seq,
            "fault": "timeout",
            "default": True,
        }
        assert runner.annotations[3] == {"fault": "timeout", "default": True}
        late = _answer(hub, session, request)  # its request is gone: stale
        assert late is not None and late.action_rejected.code == pb.REJECT_STALE_SEQ
        task.cancel()

    asyncio.run(main())


def test_simultaneous_decisions_record_each_seats_own_time(hub: Hub) -> None:
    """Nine Card Golf asks both seats at once; seat 1 answers at once, seat 0 after 200 ms:
    each action's time is its own seat's (not the turn's), and the actions its seat was not
    asked for (a forfeited seat's, played by the server) have none."""

    async def main() -> None:
        session = _open(hub)
        runner = _seated(hub, session, _spec(game="nine_card_golf"))
        task = asyncio.create_task(runner.play())
        asked: list[Any] = []
        while len(asked) < 2:
            await asyncio.sleep(0)
            asked += _requests(_drain(session))
        first, second = sorted(asked, key=lambda r: r.seat)
        runner.forfeited.add(0)  # after this turn the server plays seat 0: not asked, no time
        assert _answer(hub, session, second) is None
        await asyncio.sleep(0.2)
        assert _answer(hub, session, first) is None
        while runner.actions < 2:
            await asyncio.sleep(0.01)
        slow, quick = runner.think_ms[:2]
        assert 200 <= slow < 1000 and quick < 100  # in to_act order: seat 0, then seat 1
        assert runner.bank_ms_left[:2] == [0, 0]  # no bank in this time control
        for _ in range(100):
            await asyncio.sleep(0)
            for request in _requests(_drain(session)):
                _answer(hub, session, request)
        task.cancel()
        seats = action_seats(build_replay(runner.state, seed=7, seats=("b", "b")))
        assert len(seats) == len(runner.think_ms) > 10
        assert all(t is None for s, t in zip(seats[2:], runner.think_ms[2:], strict=True) if s == 0)
        assert all(t is not None for s, t in zip(seats, runner.think_ms, strict=True) if s == 1)

    asyncio.run(main())


def test_an_engine_error_fails_the_match_task(hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    async def main() -> None:
        session = _open(hub)
        runner = _seated(hub, session, _spec())
        calls = {"n": 0}
        apply = type(runner.state).apply

        def broken(state: Any, seat: int, action: str) -> None:
            calls["n"] += 1
            if calls["n"] == 2:
                raise GameError("broken rule")
            apply(state, seat, action)

        monkeypatch.setattr(type(runner.state), "apply", broken)
        task, request = await _start(runner, session)
        request = await _play_first_legal(hub, session, request)
        assert _answer(hub, session, request) is None  # routing the answer is fine ...
        with pytest.raises(GameError, match="broken rule"):
            await asyncio.wait_for(task, 5)  # ... the match's task fails (run() voids the match)

    asyncio.run(main())


def test_a_joining_match_binds_a_busy_bot_as_soon_as_it_is_released(hub: Hub) -> None:
    async def main() -> None:
        session = _open(hub, max_matches=2)
        _seated(hub, session, _spec("m1"))
        assert hub.free_slots("b") == 0 and not hub.has_room()
        waiting = _runner(hub, _spec("m2"))
        joined = asyncio.create_task(waiting.join())
        await asyncio.sleep(0.05)
        assert not joined.done()  # the bot is busy, and connected: waited for, not a no-show
        hub.release("m1")
        await asyncio.wait_for(joined, 0.2)  # woken by the release, not by a 0.25 s poll
        assert waiting.live.present == {0, 1} and not hub.reserved

    asyncio.run(main())


def test_wait_change_wakes_on_a_change_and_times_out_otherwise(hub: Hub) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        await hub.wait_change(0.05)
        assert loop.time() - start >= 0.04
        waiter = asyncio.create_task(hub.wait_change(10))
        await asyncio.sleep(0)
        _open(hub)  # a session opens: a change
        await asyncio.wait_for(waiter, 1)

    asyncio.run(main())


@pytest.mark.parametrize("writes", [True, False])
def test_a_recorded_match_counts_once_per_bot_with_its_result(hub: Hub, writes: bool) -> None:
    """The run's statistics and one match per bot (however many seats it held) go with the
    result, in one write that counts them only if it records the match."""
    runner = _seated(hub, _open(hub), _spec())  # one bot in both seats
    results = _Results(writes)
    runner.store = results  # type: ignore[assignment]
    runner._stat(0, "timeouts")
    runner._stat(1, "timeouts")
    runner._stat(1, "illegal_actions", 3)
    recorded = runner._record({}, {})
    assert recorded == (None if writes else _Results.RECORDED)  # not written: the other run's result
    assert results.completed == [("m1", {"b": {"timeouts": 2, "illegal_actions": 3, "matches": 1}})]


def test_a_match_of_forfeited_seats_lets_the_loop_run_meanwhile(hub: Hub) -> None:
    """Forfeited seats are played without waiting for anyone: the match's task still yields the
    event loop every few actions, so the other matches and the streams keep going."""

    async def main() -> None:
        runner = _runner(hub, _spec(game="glaves"))
        runner.forfeited.update({0, 1})
        ticks = 0
        stop = False

        async def ticker() -> None:
            nonlocal ticks
            while not stop:
                ticks += 1
                await asyncio.sleep(0)

        side = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        before = ticks
        await runner.play()
        during = ticks - before
        stop = True
        await side
        assert runner.actions > 200 and during >= runner.actions // 64 - 1

    asyncio.run(main())


@pytest.mark.parametrize(
    ("ranks", "scores", "forfeited", "higher", "expected", "no_show"),
    [
        ((1, 2, 3), (9.0, 5.0, 1.0), {0}, True, (3, 1, 2), set()),
        ((1, 1, 3), (5.0, 5.0, 1.0), {0, 1}, True, (2, 2, 1), set()),
        ((2, 1, 3, 4), (3.0, 1.0, 7.0, 9.0), {1, 2}, False, (1, 3, 4, 2), set()),
        ((1, 2), (1.0, 0.0), set(), True, (1, 2), set()),
        # no-shows share the last place, behind a seat that played and then forfeited
        ((1, 2, 3, 4), (9.0, 5.0, 1.0, 0.0), {0, 1, 3}, True, (3, 2, 1, 3), {0, 3}),
        # nobody came: nothing tells the seats apart (the default actions' luck does not)
        ((1, 2), (50.0, 46.0), {0, 1}, True, (1, 1), {0, 1}),
    ],
)
def test_forfeiting_seats_rank_last(
    ranks: tuple[int, ...],
    scores: tuple[float, ...],
    forfeited: set[int],
    higher: bool,
    expected: tuple[int, ...],
    no_show: set[int],
) -> None:
    """The rule the service records and the SDK's local mode reports (``engine.forfeit_ranks``)."""
    from cardarena.engine import forfeit_ranks

    assert forfeit_ranks(ranks, scores, forfeited, higher, no_show) == expected


def test_a_run_that_lost_its_lease_before_it_started_plays_nothing(hub: Hub) -> None:
    """The claim loop may stop an older run of a match (``lose``) before that run's task has
    reached ``run``; the run then stops at its first step, tells its seats ``voided`` and
    records nothing, instead of playing the whole match."""

    class _NotRecorded(_Results):
        def status(self, mid: str) -> str:
            return "running"

    async def main() -> None:
        session = _open(hub)
        runner = _seated(hub, session, _spec())
        results = _NotRecorded(writes=True)
        runner.store = results  # type: ignore[assignment]
        runner.lose("this instance claimed the match again")
        task = asyncio.create_task(runner.run())
        done, _ = await asyncio.wait({task}, timeout=30)  # a guard against a hang, not a timing
        if not done:  # it waits for a move nobody will answer (the old behaviour)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        assert done, "the run did not stop"
        assert task.result() == "voided" and runner.actions == 0
        assert results.completed == []  # nothing written or counted
        sent = _drain(session)
        ends = [m.match_end for m in sent if m.WhichOneof("kind") == "match_end"]
        assert [e.status for e in ends] == ["voided", "voided"] and "lost its lease" in ends[0].reason
        assert not _requests(sent)  # no move was asked for

    asyncio.run(main())
