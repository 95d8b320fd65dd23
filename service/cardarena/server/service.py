"""The gRPC servicers (thin adapters), the claim loop, start-up and graceful shutdown.

Status codes a stream may end with (docs/protocol.md):

* ``UNAUTHENTICATED`` — no ``authorization: Bearer <token>`` metadata, or a wrong token.
* ``PERMISSION_DENIED`` — ``Hello.bot`` names another bot than the token's.
* ``INVALID_ARGUMENT`` — the first message is not a Hello, or Hello is malformed (``max_matches``
  out of range, an unknown game, a ``version`` label too long or not printable).
* ``RESOURCE_EXHAUSTED`` — too many sessions for the token, a message over the size limit
  (gRPC itself), more bad messages per minute than allowed, a stream the bot does not read
  (more messages or bytes queued for it than allowed: "stream not read: ..."), or a stream from
  an address with too many failed authentications in the last minute (its token is not looked
  at: :mod:`.authlimit`).
* ``DEADLINE_EXCEEDED`` — no Hello within the hello timeout.

A stream refused before its Hello is read ends once its first message is in (at most
:data:`REFUSAL_READ_S` later): ended sooner, a grpc.aio client could report its failed write of
the Hello (``INTERNAL``) instead of the status (:meth:`ArenaServicer._refuse`).

Everything else about an Action or a HandBack (illegal, stale seq, not your seat, unknown
match, malformed) is answered in-band with ``ActionRejected`` so the stream and the bot's other matches survive.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, NoReturn

import grpc
import redis
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from ..processes import process_gone, process_identity
from ..store.bots import BotError, BotExists, BotHasHistory, BotStore, UnknownBot
from ..store.connection import client_for
from ..store.matches import MatchStore
from ..store.presence import BotPresence, InstanceRun, Invite, PresenceStore, SessionLeases
from ..wire import codec
from .authlimit import FailedAuthLimit, peer_address, too_many_failures
from .hub import MAX_QUEUED_BYTES, MAX_QUEUED_MESSAGES, Hub, Session
from .observability import Metrics
from .runner import MatchRunner
from .tls import ServerTls

log = logging.getLogger("cardarena.server")
pb = codec.arena_pb2
pb_grpc = codec.arena_pb2_grpc


HEALTH_SERVICES = ("", "cardarena.v1.Arena")
"""The names the health service answers for (``""``: the server as a whole)."""

INVALID_SPEC_ATTEMPTS = 5
"""Claims of a match that no instance can set up before it is withdrawn (see ``_invalid``)."""

REFUSAL_READ_S = 2.0
"""How long a stream refused before its Hello is kept open for its first message (the Hello
a bot sends at once), so that its end does not race the client's write of it
(:meth:`ArenaServicer._refuse`)."""


@dataclass(frozen=True)
class Limits:
    """Limits and timings of one instance."""

    max_message_bytes: int = 64 * 1024
    """Largest message a bot may send (larger: ``RESOURCE_EXHAUSTED``)."""
    sessions_per_bot: int = 4
    """Open streams per bot, on every instance sharing the Redis together (session leases)."""
    bad_messages_per_minute: int = 30
    """Malformed, stale or misdirected messages per minute before the stream is closed."""
    hello_timeout_s: float = 10.0
    """Time a new stream has to send Hello."""
    ping_interval_s: float = 20.0
    """How often the server pings each session."""
    lease_ms: int = 30000
    """Match lease; renewed every third of it."""
    max_matches: int = 1000
    """Largest ``Hello.max_matches`` accepted."""
    presence_interval_s: float = 1.0
    """How often the instance refreshes its presence (TTL: ten times that)."""
    max_queued_messages: int = MAX_QUEUED_MESSAGES
    """Messages queued for one session (its bot not reading them) before the stream is ended."""
    max_queued_bytes: int = MAX_QUEUED_BYTES
    """Bytes queued for one session (its bot not reading them) before the stream is ended."""
    failed_auths_per_minute: int = 30
    """Failed authentications from one address in a sliding minute before its new streams are
    refused for ``auth_cooldown_s`` (0: no limit; see :mod:`.authlimit`)."""
    auth_cooldown_s: float = 60.0
    """How long an address over ``failed_auths_per_minute`` is refused."""


def bearer(context: Any) -> str | None:
    """The bearer token in the call's metadata."""
    for k, v in context.invocation_metadata() or ():
        if k.lower() == "authorization" and isinstance(v, str) and v[:7].lower() == "bearer ":
            return v[7:].strip()
    return None


STORE_AWAY = "the service cannot reach its Redis just now (bots and session leases live there); retry shortly"
"""Why a stream opened while Redis is out of reach ends ``UNAVAILABLE`` (a status clients retry)."""


def too_many_sessions(limit: int) -> str:
    """Why a bot's new stream is refused (``RESOURCE_EXHAUSTED``): the limit counts the bot's
    sessions on every instance sharing the Redis, and a bot process holds one to each instance
    it is invited to, so a deployment with more instances than ``--sessions-per-bot`` refuses
    even a single bot process somewhere."""
    return (
        f"at most {limit} sessions per bot, on all service instances together (a bot process keeps "
        "one to each instance it plays on): end another session of this bot, or ask the operator "
        "to raise --sessions-per-bot"
    )


class NameInUse(Exception):
    """Another live process runs a service instance under this one's name (``--instance-name``):
    its presence, invites and session leases would be mixed up with this one's."""

    def __init__(self, name: str, held: dict[str, Any]) -> None:
        where = ", ".join(
            f"{what} {held[field]}" for what, field in (("at", "address"), ("on host", "host")) if held.get(field)
        )
        super().__init__(
            f"another service process runs as instance {name!r}{f' ({where})' if where else ''}: give this one "
            "another --instance-name, or stop that one first"
        )


class ArenaServicer:
    """``Arena.Play``: authenticate, read Hello, then pump the session both ways."""

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self._ending: set[asyncio.Task[None]] = set()
        """Streams being ended because their bot does not read them (:meth:`_end_unread`)."""

    async def Play(self, request_iterator: Any, context: Any) -> AsyncIterator[Any]:
        # A response generator, not context.write: one await per message fewer, and measurably
        # faster when a move sends two messages (Event, then the next ActionRequest).
        inst = self.instance
        messages = request_iterator.__aiter__()
        token = bearer(context)
        token_id = token.partition(".")[0] if token else ""
        address = peer_address(context.peer() or "")
        limited = inst.refused_for_failures(address, token_id)  # first, and cheap: no thread, no Redis, no hash
        if limited is not None:
            await self._refuse(context, messages, grpc.StatusCode.RESOURCE_EXHAUSTED, limited)
        try:
            bot = await asyncio.to_thread(inst.bots.authenticate, token) if token else None
        except redis.RedisError as exc:
            await self._store_away(context, messages, exc)
        if bot is None:
            inst.auth_failed(address, admin=False)
            await self._refuse(context, messages, grpc.StatusCode.UNAUTHENTICATED, "missing or invalid bearer token")
        assert bot is not None and token is not None
        inst.failed_auths.succeeded(address, token_id)
        # The slot is taken now, before Hello: streams opened at once count against the limit,
        # here and (a lease in Redis) on every instance.
        limit = inst.limits.sessions_per_bot
        if not inst.hub.admit(bot):
            log.warning("session_refused", extra={"fields": {"bot": bot, "limit": limit, "where": "this instance"}})
            await self._refuse(context, messages, grpc.StatusCode.RESOURCE_EXHAUSTED, too_many_sessions(limit))
        lease = uuid.uuid4().hex
        try:
            leased = await inst.take_lease(bot, lease)
        except BaseException as exc:
            inst.hub.unadmit(bot)
            if isinstance(exc, redis.RedisError):
                await self._store_away(context, messages, exc)
            raise
        if not leased:
            inst.hub.unadmit(bot)
            log.warning("session_refused", extra={"fields": {"bot": bot, "limit": limit, "where": "all instances"}})
            await self._refuse(context, messages, grpc.StatusCode.RESOURCE_EXHAUSTED, too_many_sessions(limit))
        opened = False
        try:
            try:
                first = await asyncio.wait_for(messages.__anext__(), inst.limits.hello_timeout_s)
            except TimeoutError:
                await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "no Hello in time")
            except StopAsyncIteration:
                return
            except DecodeError as exc:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"malformed message (not a BotMessage): {exc}")
            problem = hello_problem(first, bot, inst.limits.max_matches)
            if problem:
                code, detail = problem
                await context.abort(code, detail)
            session = inst.hub.open(bot, first.hello)
            session.token_id = token_id
            session.lease = lease
            opened = True
        finally:
            if not opened:
                inst.hub.unadmit(bot)
                await inst.drop_lease(lease)
        inst.metrics.live_streams.inc()
        fields = {"bot": bot, "session": session.id, "version": session.version}
        log.info("session_opened", extra={"fields": fields})
        helpers = (asyncio.create_task(self._read(session, messages)), asyncio.create_task(self._ping(session)))
        stream = asyncio.current_task()  # the task gRPC runs this handler in
        ending: list[asyncio.Task[None]] = []

        def overflow() -> None:
            task = asyncio.create_task(self._end_unread(session, context, stream, helpers))
            ending.append(task)
            self._ending.add(task)
            task.add_done_callback(self._ending.discard)

        session.on_overflow = overflow
        outbox = session.outbox
        try:
            while True:
                message = await outbox.get()
                if message is None:
                    break
                ended = False
                if session.batching:
                    message, ended = codec.coalesce_wire(message, outbox)
                yield message
                if ended:
                    break
        finally:
            await self._release(session, helpers)
        if ending:  # _end_unread sends the status and cancels this stream
            await asyncio.get_running_loop().create_future()
        if session.unread:  # the outbox overflowed before on_overflow was set (in hub.open):
            await inst.drop_lease(session.lease)  # no _end_unread gives the lease back
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, session.unread)
        if session.abort:
            await context.abort(*session.abort)

    async def _store_away(self, context: Any, messages: Any, exc: Exception) -> NoReturn:
        """End a stream that could not be set up because Redis is out of reach."""
        log.warning("session_refused", extra={"fields": {"where": "redis", "error": repr(exc)}})
        await self._refuse(context, messages, grpc.StatusCode.UNAVAILABLE, STORE_AWAY)

    async def _refuse(self, context: Any, messages: Any, code: Any, details: str) -> NoReturn:
        """End a stream refused before its Hello was read (``code``, ``details``), once its
        first message has come in, or after :data:`REFUSAL_READ_S` (at most the hello
        timeout) without one.

        Ended at once, the stream's end raced the client's write of its Hello, and a grpc.aio
        client (the SDK's) whose write failed because the stream was gone reported that
        failure, ``INTERNAL`` "Internal error from Core", instead of the status sent: about one
        wrong-token connect in a hundred (grpc/grpc#36066).  Once the Hello is read its write is
        done, and a bot sends nothing more before its ``Welcome``: the status reaches it."""
        with contextlib.suppress(Exception):  # none in time, the stream half-closed, bytes no BotMessage
            await asyncio.wait_for(messages.__anext__(), min(REFUSAL_READ_S, self.instance.limits.hello_timeout_s))
        await context.abort(code, details)
        raise AssertionError("context.abort returned")

    async def _release(self, session: Session, helpers: tuple[asyncio.Task[None], ...]) -> None:
        """Forget a session that ended (once, however many ways it ends): its seats are
        unbound (the disconnect policy applies to them), a disconnect is counted per match."""
        if session.released:
            return
        session.released = True
        inst = self.instance
        for task in helpers:
            task.cancel()
        left = inst.hub.closed(session)
        inst.metrics.live_streams.dec()
        outbox = session.outbox
        reason = session.unread or (session.abort[1] if session.abort else "")
        fields = {
            "bot": session.bot,
            "session": session.id,
            "version": session.version,
            "live_matches": left,
            "reason": reason,
            "peak_queued_messages": outbox.peak_messages,
            "peak_queued_bytes": outbox.peak_bytes,
        }
        log.info("session_closed", extra={"fields": fields})
        if not session.unread:  # else the stream keeps its lease until it ends (_end_unread)
            await inst.drop_lease(session.lease)
        for _ in left:
            await asyncio.to_thread(inst.bots.count, session.bot, "disconnects")

    async def _end_unread(
        self, session: Session, context: Any, stream: asyncio.Task[Any] | None, helpers: tuple[asyncio.Task[None], ...]
    ) -> None:
        """End the stream of a session whose outbox overflowed (its queued messages are
        already dropped): ``RESOURCE_EXHAUSTED`` with the details, also when the handler is
        suspended in a write that flow control never completes.

        ``context.abort`` from this task queues the status on the call (it reaches the bot
        after the messages already handed to gRPC, once the bot reads them), then the
        handler's task is cancelled, which ends the response generator and lets go of the
        message it was writing.  Until the status is delivered (or the connection closes) the
        stream keeps a session slot of its bot (:meth:`Hub.linger`): a bot that opens stream
        after stream without reading holds no more of them than its sessions per bot."""
        inst = self.instance
        inst.hub.linger(session.bot)
        inst.metrics.unread_streams.inc()
        log.warning(
            "session_unread",
            extra={"fields": {"bot": session.bot, "session": session.id, "reason": session.unread}},
        )
        try:
            aborting = asyncio.ensure_future(context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, session.unread))
            await asyncio.sleep(0)  # the abort's first step starts sending the status
            if stream is not None:
                stream.cancel()
            await self._release(session, helpers)
            with contextlib.suppress(Exception, grpc.aio.AbortError):  # AbortError: the status was sent
                await aborting
        finally:
            inst.hub.unadmit(session.bot)
            await inst.drop_lease(session.lease)

    async def _read(self, session: Session, messages: Any) -> None:
        try:
            async for message in messages:
                if message.WhichOneof("kind") == "batch":
                    for item in message.batch.messages:
                        if not self._handle(session, item, nested=True):
                            return
                elif not self._handle(session, message):
                    return
        except asyncio.CancelledError:
            raise
        except DecodeError as exc:  # bytes that are no BotMessage: the stream cannot go on
            log.info("session_malformed", extra={"fields": {"bot": session.bot, "error": repr(exc)}})
            session.close(abort=(grpc.StatusCode.INVALID_ARGUMENT, f"malformed message (not a BotMessage): {exc}"))
            return
        except Exception as exc:  # the stream broke (client gone, message too large ...)
            log.info("session_read_ended", extra={"fields": {"bot": session.bot, "error": repr(exc)}})
        session.close()

    def _handle(self, session: Session, message: Any, *, nested: bool = False) -> bool:
        """Handle one message after Hello (``nested``: an item of a ``BotBatch``); ``False``
        once the session is closed for too many bad messages."""
        inst = self.instance
        kind = message.WhichOneof("kind")
        reply = None
        if kind == "action":
            reply = inst.hub.route_action(session, message.action)
        elif kind == "hand_back":
            reply = inst.hub.hand_back(session, message.hand_back)
        elif kind == "pong":
            return True
        elif kind == "resign":
            if not inst.hub.resign(session, message.resign.match_id):
                reply = pb.ServerMessage(
                    action_rejected=pb.ActionRejected(
                        match_id=message.resign.match_id,
                        code=pb.REJECT_UNKNOWN_MATCH,
                        reason="no live match of yours with that id",
                    )
                )
        else:
            where = "in a batch" if nested else "after Hello"
            reply = pb.ServerMessage(
                action_rejected=pb.ActionRejected(
                    code=pb.REJECT_MALFORMED, reason=f"unexpected message {kind or 'empty'!r} {where}"
                )
            )
        if reply is None:
            return True
        inst.metrics.bad_messages.inc()
        session.send(reply)
        if session.count_bad():
            session.close(
                (
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"more than {inst.limits.bad_messages_per_minute} bad messages per minute",
                )
            )
            return False
        return True

    async def _ping(self, session: Session) -> None:
        nonce = 0
        while not session.closed:
            await asyncio.sleep(self.instance.limits.ping_interval_s)
            nonce += 1
            session.send(pb.ServerMessage(ping=pb.Ping(nonce=nonce)))


def quoted(text: str, limit: int = 64) -> str:
    """``repr(text)``, shortened to about ``limit`` characters (with ``...``).

    A status's details travel in a header, which clients refuse past 16 KiB (they then report
    ``RESOURCE_EXHAUSTED`` instead of the status sent): details quote what a bot sent this way.
    """
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def hello_problem(first: Any, bot: str, max_matches: int) -> tuple[Any, str] | None:
    """Why a first message is not an acceptable Hello (status code, details), or ``None``."""
    if first.WhichOneof("kind") != "hello":
        return grpc.StatusCode.INVALID_ARGUMENT, "the first message must be a Hello"
    hello = first.hello
    if hello.bot and hello.bot != bot:
        return grpc.StatusCode.PERMISSION_DENIED, f"the token belongs to {bot!r}, not {quoted(hello.bot)}"
    if not 0 <= hello.max_matches <= max_matches:
        return grpc.StatusCode.INVALID_ARGUMENT, f"max_matches must be between 0 and {max_matches}"
    bad_version = codec.version_problem(hello.version)
    if bad_version:
        return grpc.StatusCode.INVALID_ARGUMENT, f"{bad_version}: {quoted(hello.version)}"
    from ..engine import games

    unknown = sorted(set(hello.games) - set(games()))
    if unknown:
        shown = ", ".join(quoted(g, 32) for g in unknown[:5])
        more = f" ({len(unknown)} in all)" if len(unknown) > 5 else ""
        return grpc.StatusCode.INVALID_ARGUMENT, f"unknown game(s): {shown}{more}"
    return None


class AdminServicer:
    """``Admin``: register, list and delete bots; needs ``CARDARENA_ADMIN_TOKEN`` in the metadata."""

    def __init__(self, instance: Instance) -> None:
        self.instance = instance

    async def _check(self, context: Any) -> None:
        inst = self.instance
        expected = inst.admin_token
        given = bearer(context)
        if not expected:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "the admin service is disabled on this server")
            return
        # The limit on failed authentications, shared with Arena.Play: an address over it is
        # refused before the token is compared, the right admin token too (there is no "known
        # token" to let through: the flood would know it as well).
        address = peer_address(context.peer() or "")
        limited = inst.refused_for_failures(address, "", admin=True)
        if limited is not None:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, limited)
        if not given or not hmac.compare_digest(given.encode(), expected.encode()):
            inst.auth_failed(address, admin=True)
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or invalid admin token")

    async def RegisterBot(self, request: Any, context: Any) -> Any:
        await self._check(context)
        try:
            token = await asyncio.to_thread(self.instance.bots.register, request.name)
        except BotExists as exc:
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, str(exc))
        except BotError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        return pb.RegisterBotResponse(name=request.name, token=token)

    async def DeleteBot(self, request: Any, context: Any) -> Any:
        await self._check(context)
        from ..engine import games

        try:
            await asyncio.to_thread(self.instance.bots.delete, request.name, games=list(games()))
        except UnknownBot as exc:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(exc))
        except BotHasHistory as exc:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        except BotError as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, str(exc))
        log.info("bot_deleted", extra={"fields": {"bot": request.name}})
        return pb.DeleteBotResponse(name=request.name)

    async def ListBots(self, request: Any, context: Any) -> Any:
        await self._check(context)
        records = await asyncio.to_thread(self.instance.bots.list)
        return pb.ListBotsResponse(bots=[pb.BotInfo(name=b.name, created_at=b.created_at, **b.stats) for b in records])


class Instance:
    """One service instance: gRPC server, sessions, claim loop, metrics."""

    def __init__(
        self,
        redis_url: str,
        *,
        port: int = 0,
        host: str = "127.0.0.1",
        name: str | None = None,
        metrics_port: int = 0,
        limits: Limits | None = None,
        admin_token: str | None = None,
        advertise: str | None = None,
        lane: str = "",
        tls: ServerTls | None = None,
    ) -> None:
        self.name = name or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.limits = limits or Limits()
        client = client_for(redis_url)
        self.matches = MatchStore(client, lane=lane)
        """Claims from the lane ``lane`` only (see ``MatchSpec.queue``)."""
        self.run = InstanceRun(self.matches.run_id, socket.gethostname(), process_identity())
        """This process, as its presence says (the run id is the one its match leases hold)."""
        self.bots = BotStore(client)
        self.presence = PresenceStore(client)
        self.leases = SessionLeases(client)
        self.held_leases: dict[str, str] = {}
        """The session leases of this instance's streams (lease id -> bot), renewed with presence."""
        self.advertise = advertise or os.environ.get("CARDARENA_SERVICE_ADDR") or ""
        """The address other instances send this instance's bots to (default ``host:port``)."""
        self.remote: dict[str, tuple[str, dict[str, BotPresence]]] = {}
        """Other live instances: name -> (address, their bots), refreshed by the presence loop."""
        self.metrics = Metrics()
        self.metrics_port = metrics_port
        self.admin_token = admin_token if admin_token is not None else os.environ.get("CARDARENA_ADMIN_TOKEN")
        self.host, self.port = host, port
        self.tls = tls
        """With it the port serves TLS only (``cardarena service --tls-cert --tls-key``), and
        requires client certificates too with ``--tls-client-ca``; the files are watched for
        replacement (:class:`~cardarena.server.tls.CertificateWatch`)."""
        self.hub = Hub(
            instance=self.name,
            sessions_per_bot=self.limits.sessions_per_bot,
            bad_per_minute=self.limits.bad_messages_per_minute,
            max_queued_messages=self.limits.max_queued_messages,
            max_queued_bytes=self.limits.max_queued_bytes,
        )
        self.failed_auths = FailedAuthLimit(self.limits.failed_auths_per_minute, cooldown_s=self.limits.auth_cooldown_s)
        """Failed authentications (``Arena.Play`` and ``Admin``) per peer address
        (``Limits.failed_auths_per_minute``)."""
        self.tasks: set[asyncio.Task[str]] = set()
        self.runs: dict[str, tuple[MatchRunner, asyncio.Task[str]]] = {}
        """The matches being run here, by id (with their tasks)."""
        self.stopping = False
        self.name_held_by: dict[str, Any] | None = None
        """While another live process holds this instance's name, its presence entry
        (``address``, ``run``, ``host``, ``process``): this process then stands by
        (:meth:`_check_name`)."""
        self._presence_lock = threading.Lock()
        """Held while presence is written or withdrawn (from threads): a publish still under
        way when the instance stops does not write its entry again after the withdrawal."""
        self._withdrawn = False
        self.server: Any = None
        self.health = health.aio.HealthServicer() if hasattr(health, "aio") else health.HealthServicer()
        self._claimer: asyncio.Task[None] | None = None
        self._background: list[asyncio.Task[None]] = []

    def refused_for_failures(self, address: str, token_id: str, *, admin: bool = False) -> str | None:
        """Why a call from ``address`` (``admin``: an ``Admin`` call, else a bot's stream) is
        refused ``RESOURCE_EXHAUSTED`` (counted in ``cardarena_auth_refused_total{kind}``), or
        ``None``: refused while the address cools down after too many failed authentications,
        unless ``token_id`` authenticated from it before (``""``: none did)."""
        left = self.failed_auths.refused_for(address, token_id)
        if left is None:
            return None
        self.metrics.auth_refused.labels(kind=_auth_kind(admin)).inc()
        return too_many_failures(address, self.limits.failed_auths_per_minute, left, admin=admin)

    def auth_failed(self, address: str, *, admin: bool) -> None:
        """Count a failed authentication from ``address`` (``admin``: a wrong admin token, else a
        wrong bot token; ``cardarena_auth_failures_total{kind}``); the one that starts its
        cool-down is logged (``auth_failures_refused``, with the ``kind`` of that one)."""
        kind = _auth_kind(admin)
        self.metrics.auth_failures.labels(kind=kind).inc()
        if self.failed_auths.failed(address):
            fields = {"peer": address, "kind": kind, "limit": self.limits.failed_auths_per_minute}
            log.warning("auth_failures_refused", extra={"fields": {**fields, "for_s": self.limits.auth_cooldown_s}})

    async def start(self) -> int:
        """Start serving; returns the bound port."""
        from ..engine import games

        games()  # import every game module now, not on the first Hello
        size = self.limits.max_message_bytes
        self.server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", size),
                ("grpc.max_send_message_length", 4 * 1024 * 1024),
                ("grpc.keepalive_time_ms", 20000),
                ("grpc.keepalive_timeout_ms", 10000),
                ("grpc.http2.min_ping_interval_without_data_ms", 5000),
                ("grpc.keepalive_permit_without_calls", 1),
                ("grpc.so_reuseport", 0),  # a port in use is an error, not two servers sharing it
            ]
        )
        # The generated registration, with a response serializer that also takes the bytes the
        # runner builds requests as (codec.serialize_server_message).
        play = grpc.stream_stream_rpc_method_handler(
            ArenaServicer(self).Play,
            request_deserializer=pb.BotMessage.FromString,
            response_serializer=codec.serialize_server_message,
        )
        handlers = {"Play": play}
        self.server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("cardarena.v1.Arena", handlers),))
        self.server.add_registered_method_handlers("cardarena.v1.Arena", handlers)
        pb_grpc.add_AdminServicer_to_server(AdminServicer(self), self.server)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        names = (
            pb.DESCRIPTOR.services_by_name["Arena"].full_name,
            pb.DESCRIPTOR.services_by_name["Admin"].full_name,
            reflection.SERVICE_NAME,
            health.SERVICE_NAME,
        )
        reflection.enable_server_reflection(names, self.server)
        self.metrics.serve(self.metrics_port, self.host)  # first: a port in use fails before gRPC listens
        address = f"{self.host}:{self.port}"
        if self.tls is not None:
            self.port = self.server.add_secure_port(address, self.tls.credentials())
        else:
            self.port = self.server.add_insecure_port(address)
        if not self.advertise:
            host = self.host if self.host not in ("0.0.0.0", "::", "[::]", "") else socket.gethostname()
            self.advertise = f"{host}:{self.port}"
        try:
            await self._take_name()
        except NameInUse:
            await self.server.stop(None)
            raise
        await self.server.start()
        await self._set_health(health_pb2.HealthCheckResponse.SERVING)
        await self._publish_presence()
        self._background = [asyncio.create_task(self._presence_loop()), asyncio.create_task(self._relay_loop())]
        self._claimer = asyncio.create_task(self._claim_loop())
        log.info(
            "service_started",
            extra={
                "fields": {
                    "instance": self.name,
                    "port": self.port,
                    "advertise": self.advertise,
                    "tls": "on" if self.tls is not None else "off",
                    "mtls": "on" if self.tls is not None and self.tls.mutual else "off",
                }
            },
        )
        return int(self.port)

    # ------------------------------------------------------------ presence
    async def _take_name(self) -> None:
        """Advertise this instance's name before serving, unless another live process holds it
        (:class:`NameInUse`).  Another process's entry that has not expired is

        * from a process on this machine (and pid namespace) that has ended (a crash, ``kill
          -9``): stale, taken over at once;
        * refreshed while this one waits (its instance publishes every presence interval): live,
          :class:`NameInUse`;
        * else (a crash elsewhere, another container) waited for until it expires (at most a
          presence TTL, 10 s), then taken."""
        first: dict[str, Any] | None = None
        while True:
            held = await asyncio.to_thread(self._advertise, {})
            if held is None:
                return
            if first is None:
                first = held
                log.info("instance_name_waiting", extra={"fields": {"instance": self.name, **held}})
            elif held != first:
                raise NameInUse(self.name, held)
            await asyncio.sleep(0.1)

    def _advertise(self, bots: dict[str, BotPresence]) -> dict[str, Any] | None:
        """Publish this instance's presence with ``bots`` unless another live process holds its
        name: then that process's entry, and nothing is written.  The entry of a process on
        this machine that has ended is taken over at once (logged ``instance_name_taken_over``).
        Nothing is written once the instance withdrew (stopping).  Blocking: call it in a thread."""
        ttl_ms = self._lease_ttl_ms
        with self._presence_lock:
            if self._withdrawn:
                return None
            held = self.presence.publish(self.name, self.advertise, bots, ttl_ms=ttl_ms, by=self.run)
            if held is None or not process_gone(str(held.get("process", ""))):
                return held
            log.info("instance_name_taken_over", extra={"fields": {"instance": self.name, **held}})
            self.presence.publish(self.name, self.advertise, bots, ttl_ms=ttl_ms, by=self.run, take_over=True)
            return None

    def _withdraw(self) -> None:
        """Remove this instance's presence, if its entry is this process's (blocking)."""
        with self._presence_lock:
            self._withdrawn = True
            self.presence.withdraw(self.name, by=self.run)

    async def _publish_presence(self) -> None:
        hub = self.hub
        bots = {b: BotPresence(hub.capacity(b), hub.load(b), hub.games_of(b)) for b in hub.sessions}

        def exchange() -> tuple[dict[str, Any] | None, dict[str, tuple[str, dict[str, BotPresence]]]]:
            held = self._advertise(bots)
            return held, {k: v for k, v in self.presence.snapshot().items() if k != self.name}

        held, self.remote = await asyncio.to_thread(exchange)
        await self._check_name(held)
        load: dict[str, int] = {}
        for _, remote_bots in self.remote.values():
            for bot, p in remote_bots.items():
                load[bot] = load.get(bot, 0) + p.load
        hub.remote_load = load

    async def _check_name(self, held: dict[str, Any] | None) -> None:
        """Stand by while another live process holds this instance's name (``held``: its
        entry), serve again once this one holds it.

        The name is checked only at start (:meth:`_take_name`) unless its entry lapses: Redis
        out of reach for a whole presence TTL, or restarted without its data, and another
        process started under the name meanwhile.  Two processes publishing under one name
        would overwrite each other's presence, take each other's invites and share one place
        in the routing of bots, so the one that finds the other's entry (which is refreshed,
        so live) writes no presence and, until the name is its own again (the other stopped,
        or its entry lapsed): logs ``instance_name_lost`` (an error, once per other process,
        with both runs), sets ``cardarena_instance_name_conflict`` to 1 and its health to
        ``NOT_SERVING`` (a load balancer sends its bots elsewhere), claims no match and relays
        no invite.  Its live matches play on (their leases are this run's), and its sessions
        stay open (their bots may resume those matches)."""
        before, self.name_held_by = self.name_held_by, held
        if held is not None:
            if before is None or before.get("run") != held.get("run"):
                fields = {"instance": self.name, "run": self.run.run, "host": self.run.host, "address": self.advertise}
                theirs = {f"held_by_{k}": held.get(k, "") for k in ("run", "host", "address", "process")}
                log.error("instance_name_lost", extra={"fields": {**fields, **theirs, "live_matches": len(self.runs)}})
            if before is None:
                self.metrics.name_conflict.set(1)
                await self._set_health(health_pb2.HealthCheckResponse.NOT_SERVING)
        elif before is not None:
            log.info("instance_name_regained", extra={"fields": {"instance": self.name, "run": self.run.run}})
            self.metrics.name_conflict.set(0)
            await self._set_health(health_pb2.HealthCheckResponse.SERVING)

    async def _set_health(self, status: Any) -> None:
        """Answer health checks with ``status`` (not once stopping: shutdown has set it)."""
        if self.stopping:
            return
        for service in HEALTH_SERVICES:
            await _maybe_await(self.health.set(service, status))

    @property
    def _lease_ttl_ms(self) -> int:
        return int(self.limits.presence_interval_s * 10000)

    async def take_lease(self, bot: str, lease: str) -> bool:
        """Take a session lease for a new stream of ``bot`` (``False``: the bot has
        ``sessions_per_bot`` streams on the instances sharing this Redis already)."""
        asking = asyncio.ensure_future(
            asyncio.to_thread(
                self.leases.acquire, bot, lease, limit=self.limits.sessions_per_bot, ttl_ms=self._lease_ttl_ms
            )
        )
        try:
            taken = await asyncio.shield(asking)
        except asyncio.CancelledError:  # the stream went away; the thread takes the lease anyway
            with contextlib.suppress(Exception):
                if await asking:
                    await asyncio.to_thread(self.leases.release, bot, lease)
            raise
        if taken:  # renewed from now on (a lease being taken is not: it is taken for a whole TTL)
            self.held_leases[lease] = bot
        return bool(taken)

    async def drop_lease(self, lease: str) -> None:
        """Give back a stream's lease (once; a Redis error leaves it to lapse)."""
        bot = self.held_leases.pop(lease, None)
        if bot is None:
            return
        try:
            await asyncio.to_thread(self.leases.release, bot, lease)
        except Exception as exc:
            log.warning("lease_release_failed", extra={"fields": {"bot": bot, "error": repr(exc)}})

    async def _renew_leases(self) -> None:
        """Extend this instance's session leases; a lease that lapsed meanwhile (Redis was
        out of reach for a whole TTL) is taken again, and if the bot's other streams took its
        place, its session ends as if it had been refused."""
        ttl = self._lease_ttl_ms
        lost = await asyncio.to_thread(self.leases.renew, dict(self.held_leases), ttl_ms=ttl)
        for lease in lost:
            bot = self.held_leases.get(lease)
            if bot is None:
                continue
            limit = self.limits.sessions_per_bot
            if await asyncio.to_thread(self.leases.acquire, bot, lease, limit=limit, ttl_ms=ttl):
                if lease not in self.held_leases:  # its stream ended meanwhile (drop_lease ran)
                    await asyncio.to_thread(self.leases.release, bot, lease)
                continue
            for session in self.hub.sessions.get(bot, []):
                if session.lease == lease:
                    log.info("session_lease_lost", extra={"fields": {"bot": bot, "session": session.id}})
                    session.close(abort=(grpc.StatusCode.RESOURCE_EXHAUSTED, too_many_sessions(limit)))

    async def _presence_loop(self) -> None:
        """Advertise this instance's bots (with a TTL) and read the other instances'."""
        loop = asyncio.get_running_loop()
        last = loop.time()
        while not self.stopping:
            await self.hub.wait_sessions_changed(max(0.0, self.limits.presence_interval_s - (loop.time() - last)))
            await asyncio.sleep(0.05)  # coalesce bursts of session changes
            last = loop.time()
            try:
                await self._publish_presence()
                await self._renew_leases()
                await self._end_replaced_tokens()
            except Exception as exc:  # Redis hiccup: try again next round
                log.warning("presence_failed", extra={"fields": {"error": repr(exc)}})

    async def _end_replaced_tokens(self) -> None:
        """End the sessions opened with a token that was since replaced (``cardarena bot
        token``, the admin API) or whose bot was deleted (``cardarena bot delete``): a leaked
        token stops playing within a presence interval, not only at its next connect.  The
        bot's seats move to its other sessions, or wait for it to reconnect with the new token,
        as after any disconnect."""
        live = {b: [s for s in ss if not s.closed] for b, ss in self.hub.sessions.items()}
        if not any(live.values()):
            return
        current = await asyncio.to_thread(self.bots.token_ids, [b for b, ss in live.items() if ss])
        for bot, sessions in live.items():
            for session in sessions:
                if current.get(bot) != session.token_id:
                    log.info("session_revoked", extra={"fields": {"bot": bot, "session": session.id}})
                    why = (
                        "this bot's token was replaced; connect with the new one"
                        if current.get(bot) is not None
                        else "this bot was deleted (cardarena bot delete); register it again for a new token"
                    )
                    session.close(abort=(grpc.StatusCode.UNAUTHENTICATED, why))

    async def _relay_loop(self) -> None:
        """Relay invites other instances queued for bots connected here."""
        while not self.stopping:
            if self.name_held_by is not None:  # the invites to this name are the other process's
                await asyncio.sleep(self.limits.presence_interval_s)
                continue
            try:
                invite = await asyncio.to_thread(self.presence.next_invite, self.name, 1.0)
            except Exception as exc:
                log.warning("relay_failed", extra={"fields": {"error": repr(exc)}})
                await asyncio.sleep(1.0)
                continue
            if invite is None:
                continue
            message = pb.ServerMessage(
                match_invite=pb.MatchInvite(
                    match_id=invite.match_id, game=invite.game, address=invite.address, instance=invite.instance
                )
            )
            sent = self.hub.relay(invite.bot, message)
            log.info(
                "invite_relayed",
                extra={"fields": {"match_id": invite.match_id, "bot": invite.bot, "to": invite.address, "sent": sent}},
            )

    async def invite(self, match_id: str, bot: str, game: str) -> None:
        """Ask every other instance where ``bot`` is present (playing ``game``) to send it a
        ``MatchInvite`` to this instance.  A bot busy there is invited too: once it has a session
        here it is waited for like any busy bot (its live seats everywhere count against its
        capacity), instead of becoming a no-show."""
        targets = [
            name for name, (_, bots) in self.remote.items() if (p := bots.get(bot)) is not None and p.plays(game)
        ]
        for name in targets:
            invite = Invite(bot=bot, match_id=match_id, game=game, address=self.advertise, instance=self.name)
            await asyncio.to_thread(self.presence.invite, name, invite)

    async def _claim_loop(self) -> None:
        """Claim matches while there is room, for as long as the instance runs: a Redis error
        (Redis restarting, a network cut) is logged and retried with back-off, never the end
        of claiming."""
        backoff = 0.0
        while not self.stopping:
            try:
                await self._claim_some()
                backoff = 0.0
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                backoff = min(5.0, max(0.25, 2 * backoff))
                log.warning("claim_failed", extra={"fields": {"error": repr(exc), "retry_in_s": backoff}})
                await asyncio.sleep(backoff)

    async def _claim_some(self) -> None:
        """The claim loop proper; returns (to be called again) only when Redis fails."""
        loop = asyncio.get_running_loop()
        last_reconcile = 0.0
        while not self.stopping:
            if self.name_held_by is not None:  # standing by: another process serves under this name
                await asyncio.sleep(0.2)
                continue
            if loop.time() - last_reconcile > 5:
                last_reconcile = loop.time()
                await asyncio.to_thread(self.matches.requeue_lost)
            if not self.hub.has_room():
                await self.hub.wait_change(0.2)
                continue
            sent = time.monotonic()
            spec = await asyncio.to_thread(self.matches.claim, self.name, lease_ms=self.limits.lease_ms, wait_s=0.3)
            if spec is None:
                continue
            if self.stopping:
                await asyncio.to_thread(self.matches.void, spec.match_id, self.name, "server stopping")
                break
            if self.name_held_by is not None:  # it stood by while the claim was under way
                await asyncio.to_thread(self.matches.void, spec.match_id, self.name, "instance standing by")
                continue
            await self._supersede(spec.match_id)
            try:
                runner = MatchRunner(
                    spec,
                    hub=self.hub,
                    matches=self.matches,
                    metrics=self.metrics,
                    instance=self.name,
                    lease_ms=self.limits.lease_ms,
                    leased_at=sent,
                    invite=self.invite,
                )
            except Exception as exc:  # an invalid spec (unknown game, bad options)
                await asyncio.to_thread(self._invalid, spec.match_id, exc)
                continue
            task = asyncio.create_task(runner.run())
            self.tasks.add(task)
            self.runs[spec.match_id] = (runner, task)
            task.add_done_callback(functools.partial(self._ran, spec.match_id))

    def _ran(self, match_id: str, task: asyncio.Task[str]) -> None:
        self.tasks.discard(task)
        if match_id in self.runs and self.runs[match_id][1] is task:
            del self.runs[match_id]

    async def _supersede(self, match_id: str) -> None:
        """Before a new run of ``match_id`` starts here, end an older run of it still going
        here (its lease lapsed, the match was requeued, and this instance claimed it again
        before a renewal told the older run): it lost its lease, so it stops at once (or, past
        play, finishes recording, where the first result wins)."""
        older = self.runs.get(match_id)
        if older is not None:
            older[0].lose("this instance claimed the match again")
            await asyncio.wait({older[1]})

    def _invalid(self, match_id: str, exc: Exception) -> None:
        """A claimed match this instance cannot set up (an unknown game, options its engine
        refuses).  It goes back to the queue (an instance with another version may know the
        game) until its :data:`INVALID_SPEC_ATTEMPTS`-th claim, when it is withdrawn for good
        instead of being claimed again and again."""
        reason = f"invalid spec: {exc}"
        attempts = self.matches.attempts(match_id)
        final = attempts >= INVALID_SPEC_ATTEMPTS
        log.error("match_invalid", extra={"fields": {"match_id": match_id, "error": str(exc), "withdrawn": final}})
        if final:
            self.matches.withdraw([match_id], reason)  # a running match: the void below withdraws it
        self.matches.void(match_id, self.name, reason)

    async def wait_matches(self) -> None:
        """Wait until no match is being played."""
        while self.tasks:
            await asyncio.wait(set(self.tasks))

    async def stop(self, grace: float = 10.0) -> None:
        """Stop claiming; let live matches finish within ``grace`` seconds, void the rest."""
        self.stopping = True
        await _maybe_await(self.health.enter_graceful_shutdown())
        if self._claimer:
            with contextlib.suppress(asyncio.CancelledError):
                await self._claimer
        if self.tasks:
            _, left = await asyncio.wait(set(self.tasks), timeout=grace)
            for task in left:
                task.cancel()
            if left:
                await asyncio.wait(left)
        for background in self._background:
            background.cancel()
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self._withdraw)
        for sessions in list(self.hub.sessions.values()):
            for session in list(sessions):
                session.close()
        if self.server is not None:
            await self.server.stop(1.0)
        for lease in list(self.held_leases):  # streams whose handler did not get to it
            await self.drop_lease(lease)
        log.info("service_stopped", extra={"fields": {"instance": self.name}})


def _auth_kind(admin: bool) -> str:
    """The ``kind`` label (:data:`.observability.AUTH_KINDS`) of a call that needs the admin
    token (``admin``) or a bot's."""
    return "admin" if admin else "bot"


async def _maybe_await(value: Any) -> None:
    if asyncio.iscoroutine(value):
        await value
