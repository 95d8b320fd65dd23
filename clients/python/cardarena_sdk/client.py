"""The network client: one stream per service instance, reconnect with back-off, many matches
at once.

The bot connects to one address.  When several service instances share a Redis, a match may be
hosted by another instance; the bot's instance then relays a ``MatchInvite`` carrying the
hosting instance's address, and the client opens a second session there (same token, same
Hello) that it keeps, with its own reconnects, until that address has been unreachable for a
while (``run_async(give_up_after=...)``, 60 s); a later invite there follows it again.  The
bot's own address is reconnected to for as long as the client runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
from cardarena.wire import codec

from .bot import Bot, LegalAction

log = logging.getLogger("cardarena_sdk")
pb = codec.arena_pb2

FATAL = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.INVALID_ARGUMENT)
"""Status codes after which reconnecting cannot help."""


class SessionEnded(Exception):
    """The server refused the session for good (bad token, wrong bot, bad Hello)."""


@dataclass
class _Link:
    """What one session to an address got to (for the reconnect log)."""

    welcomed: bool = False


async def _session(
    bot: Bot,
    server: str,
    token: str,
    stop: asyncio.Event,
    on_invite: Callable[[str], None] | None = None,
    link: _Link | None = None,
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
        chooser = _Chooser()
        # The open request of each seat this session plays, per match: a rejection of its
        # answer is met by asking the bot again (Bot.on_rejected) while the clock runs.
        asked: dict[str, dict[int, _Asked]] = {}

        def send(question: _Asked, action: object) -> None:
            request = question.request
            if not isinstance(action, str):
                log.error(
                    "%s returned %r (a %s, not an action id) in %s (seq %s); legal ids: %s",
                    question.step,
                    action,
                    type(action).__name__,
                    request.match_id,
                    request.seq,
                    _ids(question.legal),
                )
                action = str(action)
            elif not any(a.id == action for a in question.legal):
                log.error(
                    "%s returned %r in %s (seq %s), not a legal id; legal ids: %s",
                    question.step,
                    action,
                    request.match_id,
                    request.seq,
                    _ids(question.legal),
                )
            question.answer = action
            outbox.put_nowait(
                pb.BotMessage(action=pb.Action(match_id=request.match_id, seq=request.seq, action_id=action))
            )

        async def answer(question: _Asked, choice: Callable[[], str]) -> None:
            try:
                action = await asyncio.to_thread(chooser.timed, choice)
            except Exception:  # the request runs out of time; the author sees why
                request = question.request
                log.exception("%s failed in %s (seq %s)", question.step, request.match_id, request.seq)
                return
            send(question, action)

        def decide(question: _Asked, choice: Callable[[], str]) -> None:
            """Answer ``question`` with ``choice()``: inline for a fast bot, else in a worker thread."""
            if chooser.fast:  # a bot that answers in well under a millisecond: no thread
                try:
                    action = chooser.timed(choice)
                except Exception:  # as in a worker thread: the request runs out of time
                    log.exception(
                        "%s failed in %s (seq %s)", question.step, question.request.match_id, question.request.seq
                    )
                    return
                send(question, action)
                return
            task = asyncio.create_task(answer(question, choice))
            pending.add(task)
            task.add_done_callback(pending.discard)

        def rejected(r: Any) -> None:
            question = next((q for q in asked.get(r.match_id, {}).values() if q.request.seq == r.seq), None)
            if question is None or r.code != pb.REJECT_ILLEGAL_ACTION:
                log.warning("action rejected in %s (seq %s): %s", r.match_id, r.seq, r.reason)
                return
            if r.move_ms_left <= 0 and r.bank_ms_left <= 0:  # no time left: the server plays a default
                log.warning(
                    "action %r rejected in %s (seq %s): %s; no time left to answer again",
                    question.answer,
                    r.match_id,
                    r.seq,
                    r.reason,
                )
                return
            log.warning(
                "action %r rejected in %s (seq %s): %s; asking the bot again",
                question.answer,
                r.match_id,
                r.seq,
                r.reason,
            )
            view, legal, answer_was, reason = question.view, question.legal, question.answer, r.reason
            if type(bot).on_rejected is not Bot.on_rejected:
                question.step = "on_rejected"
            decide(question, lambda: bot.on_rejected(view, legal, answer_was, reason))

        async def stopper() -> None:
            await stop.wait()
            call.cancel()

        def hook(name: str, match_id: str, call: Callable[[], None]) -> None:
            """Call one of the bot's notification hooks: an error in it is the bot's, like one in
            ``choose`` (logged with its traceback), and never ends the session."""
            try:
                call()
            except Exception:
                log.exception("%s failed in %s", name, match_id)

        def handle(message: Any) -> None:
            kind = message.WhichOneof("kind")
            if kind == "welcome":
                w = message.welcome
                if link is not None:
                    link.welcomed = True
                # The games go into Hello; a bot whose games exclude a tournament's game is never
                # seated there, and this line is where its log says so.
                log.info(
                    "connected to %s as %s (instance %s, session %s); playing: %s",
                    server,
                    w.bot,
                    w.instance,
                    w.session_id,
                    ", ".join(bot.games) if bot.games else "every game",
                )
                if w.resumed:
                    log.info("resuming %s", ", ".join(w.resumed))
            elif kind == "action_request":
                request = message.action_request
                view = codec.decode_view(request.view)
                legal = codec.decode_legal(request.legal)
                question = _Asked(request, view, legal)
                asked.setdefault(request.match_id, {})[request.seat] = question
                decide(question, lambda: bot.choose(view, legal))
            elif kind == "batch":
                for item in message.batch.messages:
                    handle(item)
            elif kind == "ping":
                outbox.put_nowait(pb.BotMessage(pong=pb.Pong(nonce=message.ping.nonce)))
            elif kind == "event":
                e = message.event
                hook("on_event", e.match_id, lambda: bot.on_event(e.match_id, e.seat, e.action))
            elif kind == "match_end":
                e = message.match_end
                asked.pop(e.match_id, None)
                hook(
                    "on_match_end",
                    e.match_id,
                    lambda: bot.on_match_end(e.match_id, e.status, list(e.scores), list(e.ranks)),
                )
            elif kind == "match_invite":
                inv = message.match_invite
                log.info("invited to %s on %s (%s)", inv.match_id, inv.address, inv.instance)
                if on_invite is not None and inv.address:
                    on_invite(inv.address)
            elif kind == "action_rejected":
                rejected(message.action_rejected)

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


@dataclass
class _Asked:
    """An open request of one seat and the bot's last answer to it."""

    request: Any
    view: dict[str, Any]
    legal: list[LegalAction]
    answer: str = ""
    step: str = "choose"
    """The Bot method that gives the next answer (``choose``, then ``on_rejected``)."""


def _ids(legal: list[LegalAction], limit: int = 20) -> str:
    """The legal ids for a log line (the first ``limit`` of them)."""
    ids = ", ".join(repr(a.id) for a in legal[:limit])
    return ids if len(legal) <= limit else f"{ids} ... ({len(legal)} in all)"


class _Chooser:
    """Calls the bot and keeps a moving average of its duration: a bot that answers in
    well under a millisecond is called inline (a worker thread would cost more than the choice);
    a slower one runs in a worker thread so the stream keeps flowing."""

    FAST_S = 0.0005

    def __init__(self) -> None:
        self.average = float("inf")
        self.calls = 0

    @property
    def fast(self) -> bool:
        """Whether the recent choices were fast enough to make inline."""
        return self.calls >= 3 and self.average < self.FAST_S

    def timed(self, choice: Callable[[], str]) -> str:
        """``choice()`` (a call of the bot), timed."""
        start = time.perf_counter()
        try:
            return choice()
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
    give_up_after: float = 60.0,
) -> None:
    """Play on ``server`` until ``stop`` is set, reconnecting with exponential back-off.

    ``server`` is reconnected to for as long as this runs.  An address the bot is invited to
    (another instance hosting one of its matches) is followed with its own reconnects until it
    has been unreachable for ``give_up_after`` seconds (no welcome since its last session, or
    since the invite): it is then given up, with one log line, and a later invite follows it
    again.  A followed address that fails otherwise (e.g. refuses the token) is logged and given
    up too; the session to ``server`` goes on.

    Raises :class:`SessionEnded` when ``server`` refuses the session for good.
    """
    stop = stop or asyncio.Event()
    followed: dict[str, asyncio.Task[None]] = {}

    def ended(address: str, task: asyncio.Task[None]) -> None:
        if followed.get(address) is task:
            del followed[address]
        if task.cancelled():
            return
        exc = task.exception()
        if isinstance(exc, SessionEnded):
            log.error("following %s failed: %s; given up until the next invite there", address, exc)
        elif exc is not None:
            log.error(
                "following %s failed; given up until the next invite there",
                address,
                exc_info=(type(exc), exc, exc.__traceback__),
            )

    def follow(address: str) -> None:
        if address == server or address in followed:
            return
        task = asyncio.create_task(_keep(bot, address, token, stop, max_backoff, None, give_up_after))
        task.add_done_callback(lambda t: ended(address, t))
        followed[address] = task

    try:
        await _keep(bot, server, token, stop, max_backoff, follow, None)
    finally:
        tasks = list(followed.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


async def _keep(
    bot: Bot,
    server: str,
    token: str,
    stop: asyncio.Event,
    max_backoff: float,
    on_invite: Callable[[str], None] | None,
    give_up_after: float | None,
) -> None:
    """One address: sessions with reconnects until ``stop``, or until it has had no welcome for
    ``give_up_after`` seconds since its last session (since the start, before the first one);
    ``None``: never given up."""
    delay = 0.05
    reached = time.monotonic()
    while not stop.is_set():
        link = _Link()
        try:
            await _session(bot, server, token, stop, on_invite, link)
            what = f"the server at {server} ended the session"
        except grpc.aio.AioRpcError as exc:
            if exc.code() in FATAL:
                raise SessionEnded(f"{server}: {exc.code().name}: {exc.details()}") from None
            why = f"{exc.code().name}: {exc.details()}"
            if link.welcomed:
                what = f"session to {server} lost ({why})"
            elif exc.code() == grpc.StatusCode.UNAVAILABLE:
                what = f"cannot reach {server} ({why})"
            else:
                what = f"session to {server} failed ({why})"
        if stop.is_set():
            break
        if link.welcomed:
            delay = 0.05
            reached = time.monotonic()
        elif give_up_after is not None and time.monotonic() - reached >= give_up_after:
            log.warning(
                "%s: giving up on it (no session there for %.0f s; a new invite there follows it again)",
                what,
                time.monotonic() - reached,
            )
            return
        wait = delay * (0.5 + random.random())
        log.warning("%s: retrying in %.2f s", what, wait)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), wait)
        delay = min(max_backoff, delay * 2)
    log.info("stopped: no more sessions to %s", server)


def run(bot: Bot, server: str, token: str) -> None:
    """Blocking form of :func:`run_async` (until interrupted)."""
    asyncio.run(run_async(bot, server, token))
