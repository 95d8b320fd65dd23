"""The network client: one stream per service instance, reconnect with back-off, many matches
at once.

The bot connects to one address.  When several service instances share a Redis, a match may be
hosted by another instance; the bot's instance then relays a ``MatchInvite`` carrying the
hosting instance's address, and the client opens a second session there (same token, same
Hello) that it keeps, with its own reconnects, for as long as the client runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable
from typing import Any

import grpc
from cardarena.wire import codec

from .bot import Bot

log = logging.getLogger("cardarena_sdk")
pb = codec.arena_pb2

FATAL = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.INVALID_ARGUMENT)
"""Status codes after which reconnecting cannot help."""


class SessionEnded(Exception):
    """The server refused the session for good (bad token, wrong bot, bad Hello)."""


async def _session(
    bot: Bot, server: str, token: str, stop: asyncio.Event, on_invite: Callable[[str], None] | None = None
) -> None:
    async with grpc.aio.insecure_channel(
        server, options=[("grpc.keepalive_time_ms", 20000), ("grpc.keepalive_timeout_ms", 10000)]
    ) as channel:
        stub = codec.arena_pb2_grpc.ArenaStub(channel)
        outbox: asyncio.Queue[Any] = asyncio.Queue()
        outbox.put_nowait(
            pb.BotMessage(
                hello=pb.Hello(
                    bot=bot.name,
                    games=list(bot.games),
                    max_matches=bot.max_matches,
                    client="cardarena_sdk/0.1",
                    batching=True,
                )
            )
        )

        async def requests() -> Any:
            # Answers queued together (several matches' requests arrived in one batch) leave
            # as one BotBatch: one stream message instead of one each.
            while True:
                message = await outbox.get()
                if message is None:
                    return
                message, ended = codec.coalesce(message, outbox)
                yield message
                if ended:
                    return

        call = stub.Play(requests(), metadata=(("authorization", f"Bearer {token}"),))
        pending: set[asyncio.Task[None]] = set()
        chooser = _Chooser(bot)

        def reply(request: Any, action: str) -> None:
            outbox.put_nowait(
                pb.BotMessage(action=pb.Action(match_id=request.match_id, seq=request.seq, action_id=action))
            )

        async def answer(request: Any, view: dict[str, Any], legal: list[Any]) -> None:
            reply(request, await asyncio.to_thread(chooser.timed, view, legal))

        async def stopper() -> None:
            await stop.wait()
            call.cancel()

        def handle(message: Any) -> None:
            kind = message.WhichOneof("kind")
            if kind == "action_request":
                request = message.action_request
                view = codec.decode_view(request.view)
                legal = codec.decode_legal(request.legal)
                if chooser.fast:  # a bot that answers in well under a millisecond: no thread
                    try:
                        reply(request, chooser.timed(view, legal))
                    except Exception:  # as in a worker thread: the request runs out of time
                        log.exception("choose failed in %s (seq %s)", request.match_id, request.seq)
                    return
                task = asyncio.create_task(answer(request, view, legal))
                pending.add(task)
                task.add_done_callback(pending.discard)
            elif kind == "batch":
                for item in message.batch.messages:
                    handle(item)
            elif kind == "ping":
                outbox.put_nowait(pb.BotMessage(pong=pb.Pong(nonce=message.ping.nonce)))
            elif kind == "event":
                e = message.event
                bot.on_event(e.match_id, e.seat, e.action)
            elif kind == "match_end":
                e = message.match_end
                bot.on_match_end(e.match_id, e.status, list(e.scores), list(e.ranks))
            elif kind == "match_invite":
                inv = message.match_invite
                log.info("invited to %s on %s (%s)", inv.match_id, inv.address, inv.instance)
                if on_invite is not None and inv.address:
                    on_invite(inv.address)
            elif kind == "action_rejected":
                r = message.action_rejected
                log.warning("action rejected in %s (seq %s): %s", r.match_id, r.seq, r.reason)

        watcher = asyncio.create_task(stopper())
        try:
            async for message in call:
                handle(message)
        except asyncio.CancelledError:
            me = asyncio.current_task()
            if not stop.is_set() or (me is not None and me.cancelling()):
                raise
        except grpc.aio.AioRpcError as exc:
            if not (stop.is_set() and exc.code() == grpc.StatusCode.CANCELLED):
                raise
        finally:
            watcher.cancel()
            for task in pending:
                task.cancel()
            outbox.put_nowait(None)


class _Chooser:
    """Calls ``bot.choose`` and keeps a moving average of its duration: a bot that answers in
    well under a millisecond is called inline (a worker thread would cost more than the choice);
    a slower one runs in a worker thread so the stream keeps flowing."""

    FAST_S = 0.0005

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.average = float("inf")
        self.calls = 0

    @property
    def fast(self) -> bool:
        """Whether the recent choices were fast enough to make inline."""
        return self.calls >= 3 and self.average < self.FAST_S

    def timed(self, view: dict[str, Any], legal: list[Any]) -> str:
        """``bot.choose(view, legal)``, timed."""
        start = time.perf_counter()
        try:
            return self.bot.choose(view, legal)
        finally:
            took = time.perf_counter() - start
            self.calls += 1
            self.average = took if self.calls == 1 else 0.8 * self.average + 0.2 * took


async def run_async(
    bot: Bot,
    server: str,
    token: str,
    *,
    stop: asyncio.Event | None = None,
    max_backoff: float = 5.0,
) -> None:
    """Play on ``server`` until ``stop`` is set, reconnecting with exponential back-off.

    Raises :class:`SessionEnded` when the server refuses the session for good.
    """
    stop = stop or asyncio.Event()
    followed: dict[str, asyncio.Task[None]] = {}

    def follow(address: str) -> None:
        if address == server or address in followed:
            return
        task = asyncio.create_task(_keep(bot, address, token, stop, max_backoff, None))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        followed[address] = task

    try:
        await _keep(bot, server, token, stop, max_backoff, follow)
    finally:
        for task in followed.values():
            task.cancel()
        if followed:
            await asyncio.gather(*followed.values(), return_exceptions=True)


async def _keep(
    bot: Bot,
    server: str,
    token: str,
    stop: asyncio.Event,
    max_backoff: float,
    on_invite: Callable[[str], None] | None,
) -> None:
    """One address: sessions with reconnects until ``stop``."""
    delay = 0.05
    while not stop.is_set():
        try:
            await _session(bot, server, token, stop, on_invite)
            delay = 0.05
        except grpc.aio.AioRpcError as exc:
            if exc.code() in FATAL:
                raise SessionEnded(f"{exc.code().name}: {exc.details()}") from None
            log.info("session to %s lost (%s); reconnecting in %.2fs", server, exc.code().name, delay)
        if stop.is_set():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay * (0.5 + random.random()))
        delay = min(max_backoff, delay * 2)


def run(bot: Bot, server: str, token: str) -> None:
    """Blocking form of :func:`run_async` (until interrupted)."""
    asyncio.run(run_async(bot, server, token))
