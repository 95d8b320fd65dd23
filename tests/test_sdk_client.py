"""The SDK's session loop over real gRPC on loopback with a real service and Redis: illegal
answers are retried in-band (``Bot.on_rejected``) until the server records ``illegal``, and a
``choose`` that raises is logged with its traceback."""

from __future__ import annotations

import asyncio
import gc
import logging
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from cardarena.store.bots import BotStore
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl
from cardarena_sdk import Bot, LegalAction
from cardarena_sdk.client import run_async

from .server_harness import ScriptedBot, ServiceProcess

SLOW_CLOCK = TimeControl(move_ms=120_000, bank_ms=0)
"""A clock no test waits out: a match that ends in time had no time-out."""


@pytest.fixture
def service(redis_url: str, key_prefix: str) -> Iterator[ServiceProcess]:
    svc = ServiceProcess(redis_url, "--grace", "0")
    yield svc
    svc.stop()


class InProcess:
    """An SDK bot run by ``run_async`` on its own event loop in a thread."""

    def __init__(self, bot: Bot, address: str, token: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.stop = asyncio.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(bot, address, token), daemon=True)
        self.thread.start()

    def _run(self, bot: Bot, address: str, token: str) -> None:
        try:
            self.loop.run_until_complete(run_async(bot, address, token, stop=self.stop))
            gc.collect()  # a task whose exception nobody retrieved is reported when collected
            self.loop.run_until_complete(asyncio.sleep(0))
        except BaseException as exc:
            self.error = exc
        finally:
            self.loop.close()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(30)
        assert not self.thread.is_alive()
        assert self.error is None, self.error


def _play(
    service: ServiceProcess,
    stores: tuple[MatchStore, BotStore],
    bot: Bot,
    mid: str,
    *,
    clock: TimeControl = SLOW_CLOCK,
    policy: FaultPolicy | None = None,
    timeout: float = 60.0,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Play german_whist with ``bot`` (in process) in seat 0 against a scripted bot answering
    its first legal action; the recorded result and replay."""
    matches, bots = stores
    mine = InProcess(bot, service.address, bots.register("sdk-bot"))
    other = ScriptedBot(service.address, bots.register("other"), "other")
    other.autoplay()
    try:
        matches.enqueue(
            MatchSpec(
                match_id=mid,
                game="german_whist",
                players=2,
                seats=("sdk-bot", "other"),
                seed=3,
                time_control=clock,
                fault_policy=policy or FaultPolicy(max_strikes=1, max_rejections=3),
            )
        )
        deadline = time.monotonic() + timeout
        while matches.status(mid) != "done":
            assert time.monotonic() < deadline, f"{mid} not done: {matches.info(mid)}"
            time.sleep(0.05)
    finally:
        other.close()
        mine.close()
    result, replay = matches.result(mid), matches.replay(mid)
    assert result is not None and replay is not None
    return result, replay


def test_an_illegal_answer_is_retried_until_the_fault_is_illegal_not_timeout(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore], caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []

    class Stubborn(Bot):
        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            calls.append("choose")
            return "play:ZZ"

    caplog.set_level(logging.INFO, logger="cardarena_sdk")
    # The match ends long before the two-minute clock could run out: the server got the three
    # illegal answers its policy allows (the first and two retries), not a silence.
    result, replay = _play(service, stores, Stubborn(), "sdk-illegal")
    assert [(f["seat"], f["fault"]) for f in replay["faults"]] == [(0, "illegal")]
    assert result["forfeited"] == [0]
    # the third rejection was the last (no time left): nothing more was sent, so nothing stale
    assert calls == ["choose"] * 3
    assert "no time left to answer again" in caplog.text
    assert "is not pending" not in caplog.text
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 3
    assert re.fullmatch(
        r"choose returned .play:ZZ. in sdk-illegal \(seq \d+\), not a legal id; legal ids: .play:.*", errors[0]
    )


def test_on_rejected_gets_the_rejected_answer_and_the_reason(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    seen: list[tuple[str, str, int]] = []

    class Learner(Bot):
        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            return "play:ZZ" if not seen else legal[0].id

        def on_rejected(self, view: dict[str, Any], legal: list[LegalAction], rejected: str, reason: str) -> str:
            seen.append((rejected, reason, len(legal)))
            return legal[0].id

    result, replay = _play(service, stores, Learner(), "sdk-rejected")
    assert replay["faults"] == [] and result["forfeited"] == []
    assert len(seen) == 1
    rejected, reason, legal = seen[0]
    assert rejected == "play:ZZ" and "play:ZZ" in reason and legal > 0


def test_a_raising_choose_in_a_worker_thread_is_logged_with_its_traceback(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore], caplog: pytest.LogCaptureFixture
) -> None:
    class Raises(Bot):
        def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
            raise RuntimeError("boom")

    caplog.set_level(logging.INFO)
    clock = TimeControl(move_ms=1000, bank_ms=0)
    _, replay = _play(service, stores, Raises(), "sdk-raises", clock=clock)
    assert [f["fault"] for f in replay["faults"]] == ["timeout"]
    failed = [r for r in caplog.records if re.fullmatch(r"choose failed in sdk-raises \(seq \d+\)", r.getMessage())]
    assert len(failed) == 1 and failed[0].exc_info is not None
    assert "RuntimeError: boom" in caplog.text
    assert "never retrieved" not in caplog.text
