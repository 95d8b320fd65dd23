"""The network client: one stream per service instance, reconnect with back-off, many matches
at once.

The bot connects to one address.  When several service instances share a Redis, a match may be
hosted by another instance; the bot's instance then relays a ``MatchInvite`` carrying the
hosting instance's address, and the client opens a second session there (same token, same
Hello) that it keeps, with its own reconnects, until that address has been unreachable for a
while (``run_async(give_up_after=...)``, 60 s); a later invite there follows it again.  The
bot's own address is reconnected to for as long as the client runs.

TLS (``run_async(tls=True, ca_cert=...)``, ``cardarena bot run --tls [--ca-cert FILE]``): every
session of the client, to its own address, after a reconnect, or to an invited address, uses the
same files, read again for each connection attempt: a client certificate (or CA file) renewed on
disk is presented from the next reconnect on, and one that cannot be used then (a rotation half
done) is logged as an error and that attempt skipped, with the usual back-off.  A failed TLS
handshake (a certificate the client does not trust or that names another host, a port that does
not speak TLS) is a setting a retry cannot fix: at an address that has not yet welcomed the
client it ends the run (:class:`SessionEnded`, saying which it is); at an address that has (a
server redeployed with another certificate) it is logged as an error each time and retried with
back-off like any lost connection.

Mutual TLS (``client_cert=..., client_key=...``, ``cardarena bot run --client-cert FILE
--client-key FILE``): the client presents that certificate in every handshake, for a service
started with ``--tls-client-ca``.  Such a service refuses a client without a certificate, or with
one its CA did not sign, by closing the connection right after the handshake, which gRPC reports
as "Socket closed" only; the client then asks the server once more with a bare TLS connection to
tell that refusal from a server going away, and treats it as a failed handshake (above).

A ``choose`` or ``on_rejected`` that raises (inline or in a worker thread) is logged with the
traceback from the bot's own code, and the request is handed back (``HandBack``, to a server
whose ``Welcome.hand_back`` says it takes it): the server plays its default action at once
(fault ``error``, a strike) instead of waiting for the move clock and the time bank.

A plaintext client of a port that serves TLS sees the same "Socket closed": before the address
has ever welcomed it, the client opens one bare TLS connection there, and a completed handshake
ends the run (:class:`SessionEnded`: connect with ``--tls``) instead of retrying for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import grpc
from cardarena.pem import Pathish
from cardarena.wire import codec

from .bot import Bot, IllegalAnswers, LegalAction, MatchResult, check_bot, not_an_id
from .channel import channel_credentials as channel_credentials
from .channel import check_address as check_address

log = logging.getLogger("cardarena_sdk")
pb = codec.arena_pb2

FATAL = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.INVALID_ARGUMENT)
"""Status codes after which reconnecting cannot help."""


class SessionEnded(Exception):
    """The server refused the session for good (bad token, wrong bot, bad Hello)."""


@dataclass(frozen=True)
class _Credentials:
    """How every session of one client connects: the files, read again for each connection."""

    tls: bool = False
    """Whether it connects with TLS."""
    ca_cert: str | None = None
    """The CA certificate file the server's certificate is checked against (``None``: the
    system's root certificates)."""
    client_pair: tuple[str, str] | None = None
    """The client certificate and key files it presents (mutual TLS)."""

    def channel(self) -> Any:
        """The channel credentials from the files as they are now (``None``: plaintext), so a
        certificate rotated on disk is presented from the next connection on; ``ValueError``
        (:func:`channel_credentials`) when one of them cannot be used just now."""
        cert, key = self.client_pair or (None, None)
        return channel_credentials(self.tls, self.ca_cert, cert, key) if self.tls else None


def _dropped_after_handshake(server: str, client_pair: tuple[str, str] | None) -> bool:
    """Whether the server at ``server`` (``host:port``) completes a TLS handshake with this
    client's certificate (or with none) and then closes the connection before its first byte.

    That is how a gRPC server that requires client certificates refuses one under TLS 1.3: it
    sends no alert, so gRPC's own error says only "Socket closed".  A server that accepts the
    certificate starts HTTP/2 at once; one that is going away refuses the connection or fails
    the handshake.  The server's own certificate is not checked here: only its verdict matters.
    """
    return _tls_probe(server, client_pair) == b""


def _serves_tls(server: str) -> bool:
    """Whether the server at ``server`` completes a TLS handshake: a port that closes plaintext
    connections with "Socket closed" serves TLS, not a server going away (see
    :func:`_tls_probe`)."""
    return _tls_probe(server, None) is not None


def _tls_probe(server: str, client_pair: tuple[str, str] | None) -> bytes | None:
    """A bare TLS connection to ``server`` (ALPN ``h2``, presenting ``client_pair`` if given,
    the server's certificate not checked): the first byte the server sends after the handshake
    (``b""``: it closed the connection first), or ``None`` when no handshake completed."""
    host, _, port = server.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    try:
        if client_pair is not None:
            context.load_cert_chain(*client_pair)
        with (
            socket.create_connection((host, int(port)), timeout=5) as raw,
            context.wrap_socket(raw, server_hostname=host) as conn,
        ):
            try:
                return conn.recv(1)
            except OSError:  # reset, or silent for 5 s, after a completed handshake
                return b"?"
    except (OSError, ValueError):  # not answered, not TLS, or files changed: no verdict
        return None


async def _certificate_problem(server: str, credentials: _Credentials) -> str | None:
    """What a TLS connect that failed with "Socket closed" says about the client certificate
    (``None``: nothing; see :func:`_dropped_after_handshake`)."""
    if not await asyncio.to_thread(_dropped_after_handshake, server, credentials.client_pair):
        return None
    if credentials.client_pair is None:
        return (
            "TLS handshake failed: the server requires a client certificate (mutual TLS: pass one, "
            "--client-cert FILE --client-key FILE, client_cert=..., client_key=...)"
        )
    return (
        "TLS handshake failed: the server did not accept the client certificate (it must be signed "
        "by the CA the service trusts, its --tls-client-ca, and be valid now)"
    )


def _tls_problem(details: str, tls: bool) -> str | None:
    """What a failed connect's details say about TLS, in words for the bot author (``None``:
    nothing about TLS)."""
    if not tls:
        return None
    if "CERTIFICATE_VERIFY_FAILED" in details:
        return (
            "TLS handshake failed: the server's certificate is not trusted (pass the CA that signed it: "
            "--ca-cert FILE, ca_cert=...; without one the system's root certificates are used)"
        )
    if "Hostname Verification" in details or "peer certificate" in details.lower():
        return "TLS handshake failed: the server's certificate is not for this host name (check the address)"
    if "WRONG_VERSION_NUMBER" in details:
        return (
            "TLS handshake failed: the server does not speak TLS on this port "
            "(connect without --tls, or check the port)"
        )
    if "handshake failed" in details.lower():
        return "TLS handshake failed"
    return None


def _refused_hint(code: grpc.StatusCode, details: str) -> str:
    """What to do about a session the server refused for good (``code`` is in :data:`FATAL`)."""
    if code == grpc.StatusCode.UNAUTHENTICATED and "replaced" not in details and "deleted" not in details:
        return (
            "; check the token: the one `cardarena bot register NAME` printed, for the service at this "
            "address (`cardarena bot token NAME` issues a new one)"
        )
    if code == grpc.StatusCode.PERMISSION_DENIED and "belongs to" in details:
        return "; leave Bot.name empty (and --name out) to play as the token's bot"
    if code == grpc.StatusCode.INVALID_ARGUMENT and "unknown game" in details:
        return "; Bot.games lists game ids this service plays (docs/games/)"
    return ""


def _status_lost(exc: grpc.aio.AioRpcError) -> bool:
    """Whether ``exc`` is grpc.aio's stand-in for a status it lost, not the server's: a write of
    the client's failed because the server had just ended the stream, and grpc.aio reports that
    failure (``INTERNAL`` "Internal error from Core", a failed ``SendMessageOperation``) instead
    of the status the server sent (grpc/grpc#36066).  The service reads the Hello of a stream it
    refuses before ending it, so a refusal at connect reaches the client; a stream ended later
    (a token replaced, too many bad messages) can still lose its status this way while an
    answer is being sent: reconnecting learns it."""
    return (
        exc.code() == grpc.StatusCode.INTERNAL
        and exc.details() == "Internal error from Core"
        and "SendMessageOperation" in (exc.debug_error_string() or "")
    )


_STATUS_LOST = "the server ended the stream as the bot was sending, and gRPC lost its status (grpc/grpc#36066)"
"""How a session end whose status grpc.aio lost (:func:`_status_lost`) is logged."""


def _unreachable_hint(details: str) -> str:
    """A hint for an address that never answered as a cardarena service."""
    if "Connection refused" in details:
        return "; nothing listens there: is the service running (cardarena up), and is this its address and port?"
    if "HTTP/2" in details or "SETTINGS frame" in details:
        return (
            "; this port does not speak gRPC (a web server, e.g. the dashboard?): give the service's "
            "address (cardarena up prints it as `service`)"
        )
    return ""


def _plaintext_hint(details: str, tls: bool) -> str:
    """A hint for a plaintext client whose connection the server closed before HTTP/2 began,
    as a port that serves TLS does."""
    if tls or "Socket closed" not in details:
        return ""
    return "; a service that serves TLS closes plaintext connections like this: connect with --tls (tls=True)"


@dataclass
class _Link:
    """What one session to an address got to (for the reconnect log and the back-off)."""

    welcomed: bool = False
    welcomed_at: float = 0.0
    """When (``time.monotonic()``) the welcome came."""

    def steady(self, least_s: float) -> bool:
        """Whether the session was welcomed and then lasted ``least_s`` seconds at least."""
        return self.welcomed and time.monotonic() - self.welcomed_at >= least_s


async def _session(
    bot: Bot,
    server: str,
    token: str,
    stop: asyncio.Event,
    on_invite: Callable[[str], None] | None = None,
    link: _Link | None = None,
    credentials: Any = None,
) -> None:
    options = [("grpc.keepalive_time_ms", 20000), ("grpc.keepalive_timeout_ms", 10000)]
    if credentials is None:
        opened = grpc.aio.insecure_channel(server, options=options)
    else:
        opened = grpc.aio.secure_channel(server, credentials, options=options)
    async with opened as channel:
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
                    version=bot.version,
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
        illegal = IllegalAnswers(log)  # the first few of each match in full, then a summary
        seated: dict[str, list[int]] = {}  # this session's seats of each live match (for its end line)
        struck: dict[str, dict[int, dict[str, int]]] = {}  # its seats' strikes this session saw, by fault
        hand_back = False  # the server takes HandBack (Welcome.hand_back)

        def send(question: _Asked, action: object) -> None:
            request = question.request
            question.loud = None
            if not isinstance(action, str) or not any(a.id == action for a in question.legal):
                question.loud = illegal.note(request.match_id)
                if question.loud:  # the hint is worked out for a logged illegal answer only
                    where = f"{request.match_id} (seq {request.seq})"
                    log.error("%s", not_an_id(question.step, action, question.legal, where))
                action = str(action)
            question.answer = action
            late = time.monotonic() - question.deadline
            if question.budget_s > 0 and late > 0:
                log.error(
                    "%s answered %s (seq %s) %s late: it had %g s (the move clock, then the time bank); "
                    "the server played a default action (a timeout fault; enough faults forfeit the seat): "
                    "answer within the move clock (%s)",
                    question.step,
                    request.match_id,
                    request.seq,
                    _duration(late),
                    question.budget_s,
                    _clock(request),
                )
            if request.match_id not in asked:  # it ended while the bot was choosing: nobody to answer
                log.info("answer to %s (seq %s) not sent: the match has ended", request.match_id, request.seq)
                return
            outbox.put_nowait(
                pb.BotMessage(action=pb.Action(match_id=request.match_id, seq=request.seq, action_id=action))
            )

        def failed(question: _Asked, exc: Exception) -> None:
            """The bot raised instead of answering: log it, and hand the request back so that
            the server plays its default action now (a server that cannot take that waits for
            the clock to run out)."""
            _raised(question, exc, hand_back)
            if hand_back and question.request.match_id in asked:
                request = question.request
                outbox.put_nowait(pb.BotMessage(hand_back=pb.HandBack(match_id=request.match_id, seq=request.seq)))

        async def answer(question: _Asked, choice: Callable[[], str]) -> None:
            try:
                action = await asyncio.to_thread(chooser.timed, choice)
            except Exception as exc:  # the author sees why; the server plays a default action
                failed(question, exc)
                return
            send(question, action)

        def decide(question: _Asked, choice: Callable[[], str]) -> None:
            """Answer ``question`` with ``choice()``: inline for a fast bot, else in a worker thread."""
            if chooser.fast:  # a bot that answers in well under a millisecond: no thread
                try:
                    action = chooser.timed(choice)
                except Exception as exc:  # as in a worker thread
                    failed(question, exc)
                    return
                finally:
                    if chooser.stalled:
                        log.warning(
                            "%s took %s in %s (seq %s) on the SDK's event loop (its earlier calls were "
                            "fast): every other match of this bot waited, and may have timed out; its "
                            "calls run in a worker thread from now on",
                            question.step,
                            _duration(chooser.last),
                            question.request.match_id,
                            question.request.seq,
                        )
                send(question, action)
                return
            task = asyncio.create_task(answer(question, choice))
            pending.add(task)
            task.add_done_callback(pending.discard)

        def rejected(r: Any) -> None:
            question = next((q for q in asked.get(r.match_id, {}).values() if q.request.seq == r.seq), None)
            if r.code == pb.REJECT_STALE_SEQ and "is not pending" in r.reason:
                log.warning(
                    "answer to %s (seq %s) rejected: %s (the server had moved on: a late answer's move "
                    "was already played by default)",
                    r.match_id,
                    r.seq,
                    r.reason,
                )
                return
            if question is None or r.code != pb.REJECT_ILLEGAL_ACTION:
                log.warning("action rejected in %s (seq %s): %s", r.match_id, r.seq, r.reason)
                return
            # Logged as the SDK's check of the same answer was (or counted now, if it passed).
            loud = illegal.note(r.match_id) if question.loud is None else question.loud
            final = r.move_ms_left <= 0 and r.bank_ms_left <= 0  # no time left: the server plays a default
            illegal.rejected(r.match_id, question.answer, r.reason, final=final)
            if loud:
                log.warning(
                    "action %r rejected in %s (seq %s): %s; %s",
                    question.answer,
                    r.match_id,
                    r.seq,
                    r.reason,
                    "no time left to answer again" if final else "asking the bot again",
                )
            if final:
                return
            question.restart(r.move_ms_left, r.bank_ms_left)
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
            nonlocal hand_back
            kind = message.WhichOneof("kind")
            if kind == "welcome":
                w = message.welcome
                hand_back = w.hand_back
                if link is not None:
                    link.welcomed, link.welcomed_at = True, time.monotonic()
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
                legal = codec.decode_legal(request.legal)
                unknown: codec.UnknownView | None = None
                try:
                    view = codec.decode_view(request.view)
                except codec.UnknownView as exc:  # handed back (logged as a failed choose)
                    view, unknown = {}, exc
                question = _Asked(request, view, legal)
                question.restart(request.move_ms_left, request.bank_ms_left)
                asked.setdefault(request.match_id, {})[request.seat] = question
                decide(question, _raiser(unknown) if unknown else lambda: bot.choose(view, legal))
            elif kind == "batch":
                for item in message.batch.messages:
                    handle(item)
            elif kind == "ping":
                outbox.put_nowait(pb.BotMessage(pong=pb.Pong(nonce=message.ping.nonce)))
            elif kind == "event":
                e = message.event
                if e.is_default and e.fault in STRIKES and e.seat in seated.get(e.match_id, ()):
                    faults = struck.setdefault(e.match_id, {}).setdefault(e.seat, {})
                    faults[e.fault] = faults.get(e.fault, 0) + 1
                hook("on_event", e.match_id, lambda: bot.on_event(e.match_id, e.seat, e.action))
            elif kind == "match_start":
                start = message.match_start
                seats = seated.setdefault(start.match_id, [])
                if start.seat not in seats:
                    seats.append(start.seat)
            elif kind == "match_end":
                e = message.match_end
                asked.pop(e.match_id, None)
                illegal.end(e.match_id)
                seats = seated.pop(e.match_id, [])
                log.info("%s", _match_end_line(e, seats, struck.pop(e.match_id, {})))
                hook(
                    "on_match_end",
                    e.match_id,
                    lambda: bot.on_match_end(e.match_id, e.status, list(e.scores), list(e.ranks)),
                )
                result = MatchResult(
                    e.match_id,
                    e.status,
                    tuple(sorted(seats)),
                    tuple(e.scores),
                    tuple(e.ranks),
                    tuple(e.forfeited),
                    e.reason,
                )
                hook("on_result", e.match_id, lambda: bot.on_result(result))
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
            illegal.end_all()


_PLUMBING = (Path(asyncio.__file__).resolve().parent, Path(contextlib.__file__).resolve().parent / "concurrent")


def _raiser(exc: Exception) -> Callable[[], str]:
    """A ``choose`` stand-in that raises ``exc`` (a request the SDK cannot give the bot)."""

    def fail() -> str:
        raise exc

    return fail


def _raised(question: _Asked, exc: Exception, handed_back: bool) -> None:
    """Log a ``choose``/``on_rejected`` that raised: what happens now, and the traceback from
    the bot's own code (the SDK's and asyncio's frames above it left out).  ``handed_back``:
    the request is handed back (``HandBack``), else the server waits for the clock."""
    request = question.request
    exc_info = (type(exc), exc, _bot_traceback(exc.__traceback__))
    where = (question.step, type(exc).__name__, request.match_id, request.seq)
    if handed_back:
        log.error(
            "%s raised %s in %s (seq %s): handed back; the server plays a default action now "
            "(an error fault; enough faults forfeit the seat)",
            *where,
            exc_info=exc_info,
        )
        return
    # A server that does not take HandBack waits for the move clock and then the whole time
    # bank: say how long that is (a match that stalls for 30 s after a traceback looks hung).
    left = max(0.0, question.deadline - time.monotonic())
    log.error(
        "%s raised %s in %s (seq %s): no answer sent; the server plays a default action when the "
        "move clock and then the time bank run out, in %.1f s (a timeout fault; enough faults forfeit the seat)",
        *where,
        left,
        exc_info=exc_info,
    )


def _bot_traceback(tb: TracebackType | None) -> TracebackType | None:
    """``tb`` from the first frame outside the SDK's client and the thread plumbing (all of it
    if every frame is theirs)."""
    first = tb
    while first is not None:
        where = Path(first.tb_frame.f_code.co_filename).resolve()
        if where != Path(__file__).resolve() and not any(where.is_relative_to(d) for d in _PLUMBING):
            return first
        first = first.tb_next
    return tb


@dataclass
class _Asked:
    """An open request of one seat and the bot's last answer to it."""

    request: Any
    view: dict[str, Any]
    legal: list[LegalAction]
    answer: str = ""
    step: str = "choose"
    """The Bot method that gives the next answer (``choose``, then ``on_rejected``)."""
    loud: bool | None = None
    """Whether the lines about the last answer are logged (:class:`IllegalAnswers`); ``None``
    while the SDK's own check found it legal."""
    deadline: float = 0.0
    """When (``time.monotonic()``) the seat's clock runs out for the next answer."""
    budget_s: float = 0.0
    """The time it had for it, in seconds (0: no clock given)."""

    def restart(self, move_ms_left: int, bank_ms_left: int) -> None:
        """The clock as given with a request (or a rejection): the next answer is due by then."""
        self.budget_s = max(0, move_ms_left + bank_ms_left) / 1000
        self.deadline = time.monotonic() + self.budget_s


STRIKES = {"timeout": "time-out", "disconnect": "disconnected", "illegal": "illegal answers", "error": "handed back"}
"""The faults that count as strikes (``Event.fault`` of a default action), as the end line
names them; ``resign`` and ``forfeited`` are not strikes."""


def _match_end_line(end: Any, seats: list[int], struck: dict[int, dict[str, int]] | None = None) -> str:
    """How a match ended for this bot, for the log: ``match M completed: seat 1, place 2 of 3
    (scores 20, 11, 4)``, or that it was voided or aborted.  A seat that forfeited says after which
    strikes, as far as this session saw them (``struck``: seat -> fault -> count, from the
    events of its default actions): ``(forfeited after 3 strikes: 2 time-outs, 1 handed back)``."""
    if end.status == "aborted":  # stopped at its action limit: a no contest, never played again
        return f"match {end.match_id} aborted: {end.reason or 'a no contest, which counts for nobody'}"
    if end.status != "completed":
        reason = f" ({end.reason})" if end.reason else ""
        return f"match {end.match_id} {end.status}{reason}: it does not count and is played again"
    places = []
    for seat in seats:
        if 0 <= seat < len(end.ranks):
            forfeited = " (forfeited)" if seat in end.forfeited else ""
            faults = (struck or {}).get(seat, {})
            if forfeited and faults:
                total = sum(faults.values())
                kinds = ", ".join(_counted(n, STRIKES[f]) for f, n in faults.items())
                forfeited = f" (forfeited after {_counted(total, 'strike')}: {kinds})"
            places.append(f"seat {seat}, place {end.ranks[seat]} of {len(end.ranks)}{forfeited}")
    scores = ", ".join(f"{x:g}" for x in end.scores)
    return f"match {end.match_id} {end.status}: {'; '.join(places) or 'no seat of this session'} (scores {scores})"


def _counted(n: int, what: str) -> str:
    """``1 time-out``, ``2 time-outs``; ``3 illegal answers``, ``2 handed back`` (no plural)."""
    plural = n != 1 and what in ("strike", "time-out")
    return f"{n} {what}{'s' if plural else ''}"


def _duration(seconds: float) -> str:
    """A duration for a log line: ``12 ms`` below a second (at least ``1 ms``), else ``1.3 s``."""
    if seconds < 0.9995:
        return f"{max(1, round(seconds * 1000))} ms"
    return f"{seconds:.1f} s"


def _clock(request: Any) -> str:
    """A request's clock in words."""
    return f"{request.move_ms_left / 1000:g} s for this move, {request.bank_ms_left / 1000:g} s of bank left"


class _Chooser:
    """Calls the bot and keeps a moving average of its duration: a bot that answers in
    well under a millisecond is called inline (a worker thread would cost more than the choice);
    a slower one runs in a worker thread so the stream keeps flowing."""

    FAST_S = 0.0005
    STALL_S = 0.05
    """A call this long made inline held up every other match of the session: the bot is
    never called inline again (a bot that is fast but now and then slow would stall its other
    matches each time its average fell back under :attr:`FAST_S`)."""

    def __init__(self) -> None:
        self.average = float("inf")
        self.calls = 0
        self.last = 0.0
        """How long the latest call took (s)."""
        self.stalled = False
        """A call took :attr:`STALL_S` or more: threads only from now on."""

    @property
    def fast(self) -> bool:
        """Whether the recent choices were fast enough to make inline."""
        return not self.stalled and self.calls >= 3 and self.average < self.FAST_S

    def timed(self, choice: Callable[[], str]) -> str:
        """``choice()`` (a call of the bot), timed."""
        start = time.perf_counter()
        try:
            return choice()
        finally:
            took = self.last = time.perf_counter() - start
            self.calls += 1
            self.average = took if self.calls == 1 else 0.8 * self.average + 0.2 * took
            self.stalled = self.stalled or took >= self.STALL_S


async def run_async(
    bot: Bot,
    server: str,
    token: str,
    *,
    stop: asyncio.Event | None = None,
    max_backoff: float = 5.0,
    give_up_after: float = 60.0,
    tls: bool = False,
    ca_cert: Pathish | None = None,
    client_cert: Pathish | None = None,
    client_key: Pathish | None = None,
) -> None:
    """Play on ``server`` until ``stop`` is set, reconnecting with exponential back-off.

    ``tls``: connect with TLS, checking the server's certificate against the system's root
    certificates, or against ``ca_cert`` (a PEM file; implies ``tls``) when given.
    ``client_cert`` and ``client_key`` (PEM files, both or neither; imply ``tls``): the client
    certificate for a service that requires one (mutual TLS).  Every session (reconnects,
    invited addresses) uses the same credentials, read from the files again for each connection
    attempt: a certificate rotated on disk is presented from the next reconnect on.
    ``ValueError`` at once when a file cannot be used (see :func:`channel_credentials`); later,
    at a reconnect, such a file is logged as an error and tried again after the back-off.

    ``server`` is reconnected to for as long as this runs.  An address the bot is invited to
    (another instance hosting one of its matches) is followed with its own reconnects until it
    has been unreachable for ``give_up_after`` seconds (no welcome since its last session, or
    since the invite): it is then given up, with one log line, and a later invite follows it
    again.  A followed address that fails otherwise (e.g. refuses the token) is logged and given
    up too; the session to ``server`` goes on.

    Raises :class:`SessionEnded` when ``server`` refuses the session for good (saying what to
    check), or when the TLS handshake with it fails before it ever welcomed the client (see the
    module's docstring).  ``ValueError`` at once for a bot that cannot be played
    (:func:`~cardarena_sdk.bot.check_bot`: no ``choose``, a method that does not take the
    arguments it is given, unknown ``games``) or a ``server`` that is a URL (``http://...``:
    give ``host:port``).
    """
    check_bot(bot)
    check_address(server)
    secure = channel_credentials(tls, ca_cert, client_cert, client_key) is not None  # the files checked now
    pair = (os.fspath(client_cert), os.fspath(client_key)) if client_cert and client_key else None
    credentials = _Credentials(secure, None if ca_cert is None else os.fspath(ca_cert), pair)
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
        task = asyncio.create_task(_keep(bot, address, token, stop, max_backoff, None, give_up_after, credentials))
        task.add_done_callback(lambda t: ended(address, t))
        followed[address] = task

    try:
        await _keep(bot, server, token, stop, max_backoff, follow, None, credentials)
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
    credentials: _Credentials,
) -> None:
    """One address: sessions with reconnects until ``stop``, or until it has had no welcome for
    ``give_up_after`` seconds since its last session (since the start, before the first one);
    ``None``: never given up.  The back-off (from 0.05 s, doubled per attempt up to
    ``max_backoff``; each wait is drawn between half and one and a half times it) starts again
    after a session that lasted ``max_backoff`` seconds (at least one) after its welcome; a
    shorter one counts as a failed attempt.  A TLS handshake failure
    (a refused client certificate included), or a plaintext client at a port that serves TLS,
    ends it (:class:`SessionEnded`) while the address has never welcomed the client; later it
    is logged as an error and retried.  The TLS files are read again for each attempt; one that
    cannot be used then (a rotation half done) is logged as an error and the attempt is skipped,
    with the back-off of a failed one."""
    delay = 0.05
    reached = time.monotonic()
    welcomed_once = False
    while not stop.is_set():
        link = _Link()
        try:
            channel = credentials.channel()
        except ValueError as exc:  # a rotation half done, or a broken file: tried again after the back-off
            what, tls_failed = f"{server}: not connecting: a TLS file cannot be used ({exc})", True
        else:
            what, tls_failed = await _attempt(
                bot, server, token, stop, on_invite, link, credentials, channel, welcomed_once
            )
        if stop.is_set():
            break
        welcomed_once = welcomed_once or link.welcomed
        if link.welcomed:
            # Only a session that lasted resets the back-off: a server that ends every session
            # right after its welcome (broken, or hostile) is retried as one that never answers,
            # not ~20 times a second for ever.
            if link.steady(max(max_backoff, 1.0)):
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
        (log.error if tls_failed else log.warning)("%s: retrying in %.2f s", what, wait)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), wait)
        delay = min(max_backoff, delay * 2)
    log.info("stopped: no more sessions to %s", server)


async def _attempt(
    bot: Bot,
    server: str,
    token: str,
    stop: asyncio.Event,
    on_invite: Callable[[str], None] | None,
    link: _Link,
    credentials: _Credentials,
    channel: Any,
    welcomed_once: bool,
) -> tuple[str, bool]:
    """One session to ``server`` with the channel credentials ``channel`` until it ends: how it
    ended, for the log, and whether that was a failed TLS handshake (logged as an error).
    :class:`SessionEnded` when a retry cannot help (see :func:`_keep`)."""
    tls = credentials.tls
    try:
        await _session(bot, server, token, stop, on_invite, link, channel)
    except grpc.aio.AioRpcError as exc:
        if exc.code() in FATAL:
            details = exc.details() or ""
            hint = _refused_hint(exc.code(), details)
            raise SessionEnded(f"{server}: {exc.code().name}: {details}{hint}") from None
        details = exc.details() or ""
        if _status_lost(exc):  # INTERNAL "Internal error from Core" says nothing to the bot's author
            return f"session to {server} ended: {_STATUS_LOST}; reconnecting learns why", False
        why = f"{exc.code().name}: {details}"
        problem = _tls_problem(details, tls) if not link.welcomed else None
        if problem is None and tls and not link.welcomed and "Socket closed" in details:
            problem = await _certificate_problem(server, credentials)
        plain_at_tls = not tls and not welcomed_once and "Socket closed" in details
        if plain_at_tls and await asyncio.to_thread(_serves_tls, server):
            raise SessionEnded(
                f"{server}: the service serves TLS on this port: connect with --tls (add --ca-cert FILE for a "
                f"private CA or a self-signed certificate; tls=True, ca_cert=...) ({why})"
            ) from None
        if problem is not None:
            if not welcomed_once:
                raise SessionEnded(f"{server}: {problem} ({why})") from None
            return f"{server}: {problem} ({why})", True
        if link.welcomed:
            return f"session to {server} lost ({why})", False
        if exc.code() == grpc.StatusCode.UNAVAILABLE:
            hint = _plaintext_hint(details, tls) or ("" if welcomed_once else _unreachable_hint(details))
            return f"cannot reach {server} ({why}{hint})", False
        return f"session to {server} failed ({why})", False
    return f"the server at {server} ended the session", False


def run(
    bot: Bot,
    server: str,
    token: str,
    *,
    tls: bool = False,
    ca_cert: Pathish | None = None,
    client_cert: Pathish | None = None,
    client_key: Pathish | None = None,
) -> None:
    """Blocking form of :func:`run_async` (until interrupted); ``tls``, ``ca_cert``,
    ``client_cert`` and ``client_key`` as there."""
    asyncio.run(run_async(bot, server, token, tls=tls, ca_cert=ca_cert, client_cert=client_cert, client_key=client_key))
