"""Live bot sessions and the matches they sit in.

A :class:`Session` is one ``Arena.Play`` stream.  The :class:`Hub` knows every session of
every bot on this instance, which session plays which seat of which live match, and routes a
bot's ``Action`` (or ``HandBack``) to the request it answers (or rejects it in-band).  When a session closes,
its seats are unbound; when a session of the same bot says Hello, every unbound seat of a live
match is bound to it and the pending request is re-sent with the same ``seq``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import enum
import itertools
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..store.matches import MatchSpec
from ..wire import codec

pb = codec.arena_pb2


class _Signal(enum.Enum):
    RESIGN = "resign"
    HAND_BACK = "hand_back"


RESIGN = _Signal.RESIGN
"""Sentinel put into a pending request's answers when its bot resigns: not a string, so no
action id a bot sends can be taken for it."""
HAND_BACK = _Signal.HAND_BACK
"""Sentinel put into a pending request's answers when its bot hands it back (``HandBack``)."""


MAX_QUEUED_MESSAGES = 100_000
"""Default bound of a session's outbox in messages (``Limits.max_queued_messages``)."""
MAX_QUEUED_BYTES = 64 * 1024 * 1024
"""Default bound of a session's outbox in bytes (``Limits.max_queued_bytes``)."""


def _size(item: bytes | None) -> int:
    """Bytes of an outbox item: a serialized ``ServerMessage``, or the closing ``None``."""
    return 0 if item is None else len(item)


class Outbox(asyncio.Queue[Any]):
    """A session's queue of serialized ``ServerMessage`` messages (:meth:`Session.send`
    serializes them), which also counts the bytes it holds and the most it held (messages and
    bytes)."""

    def __init__(self) -> None:
        super().__init__()
        self.bytes = 0
        """Bytes queued now."""
        self.peak_messages = 0
        self.peak_bytes = 0

    def _put(self, item: Any) -> None:
        super()._put(item)
        self.bytes += _size(item)
        if self.bytes > self.peak_bytes:
            self.peak_bytes = self.bytes
        if self.qsize() > self.peak_messages:
            self.peak_messages = self.qsize()

    def _get(self) -> Any:
        item = super()._get()
        self.bytes -= _size(item)
        return item

    def drop(self) -> None:
        """Forget every queued item."""
        while not self.empty():
            self.get_nowait()


class Session:
    """One bot stream: an outbox the servicer drains, and the abuse counters."""

    _ids = itertools.count(1)

    def __init__(
        self,
        bot: str,
        games: Iterable[str],
        max_matches: int,
        *,
        bad_per_minute: int,
        batching: bool = False,
        version: str = "",
        max_queued_messages: int = MAX_QUEUED_MESSAGES,
        max_queued_bytes: int = MAX_QUEUED_BYTES,
    ) -> None:
        self.id = f"{next(self._ids)}-{uuid.uuid4().hex[:8]}"
        self.bot = bot
        self.version = version or None
        """The bot's version label (``Hello.version``; ``None``: it declared none)."""
        self.batching = batching
        """The bot accepts ``ServerBatch`` (``Hello.batching``)."""
        self.games = frozenset(games)
        self.max_matches = max_matches
        self.token_id = ""
        """The id of the token the session authenticated with (``<id>.<secret>``)."""
        self.lease = ""
        """The stream's session lease in Redis (the sessions-per-bot limit across instances)."""
        self.outbox = Outbox()
        self.max_queued_messages = max_queued_messages
        self.max_queued_bytes = max_queued_bytes
        self.unread = ""
        """Why the session ended when its outbox exceeded its bound (:meth:`send`)."""
        self.on_overflow: Callable[[], None] | None = None
        """Called once when the outbox exceeds its bound: the servicer ends the stream."""
        self.closed = False
        self.released = False
        """The servicer has forgotten the session (it runs its end once)."""
        self.abort: tuple[Any, str] | None = None
        self.bound = 0
        """Seats of live matches bound to this session."""
        self._bad: collections.deque[float] = collections.deque()
        self._bad_limit = bad_per_minute

    def send(self, message: Any) -> None:
        """Queue a ``ServerMessage``, or its serialized bytes (dropped once the session is closed).

        A bot that stops reading its stream stalls the writes (HTTP/2 flow control) and its
        outbox grows with every message of every match it sits in: past ``max_queued_messages``
        or ``max_queued_bytes`` the queued messages are dropped, the session is closed (its
        seats are released as on a disconnect) and :attr:`on_overflow` ends the stream."""
        if self.closed:
            return
        if type(message) is not bytes:
            # Serialized once, here: its size bounds the outbox, and the ``Play`` serializer
            # passes bytes through (measuring a message would serialize it a second time).
            message = message.SerializeToString()
        outbox = self.outbox
        outbox.put_nowait(message)
        if outbox.qsize() > self.max_queued_messages or outbox.bytes > self.max_queued_bytes:
            self.unread = f"stream not read: {outbox.qsize()} messages / {outbox.bytes} bytes queued"
            outbox.drop()
            self.close()
            if self.on_overflow is not None:
                self.on_overflow()

    def close(self, abort: tuple[Any, str] | None = None) -> None:
        """End the stream (optionally with a status code and details)."""
        if not self.closed:
            self.closed = True
            self.abort = abort
            self.outbox.put_nowait(None)

    def plays(self, game: str) -> bool:
        """Whether this session accepts matches of ``game``."""
        return not self.games or game in self.games

    def count_bad(self) -> bool:
        """Count one bad message; ``True`` when the per-minute limit is exceeded."""
        now = time.monotonic()
        self._bad.append(now)
        while self._bad and self._bad[0] < now - 60:
            self._bad.popleft()
        return len(self._bad) > self._bad_limit


@dataclass
class Pending:
    """An ActionRequest awaiting its answer."""

    seat: int
    seq: int
    request: bytes
    """The serialized ``ActionRequest`` as first sent (re-sent with the clocks of the moment)."""
    answers: collections.deque[str | _Signal] = field(default_factory=collections.deque)
    sent_at: float = 0.0
    deadline: float = 0.0
    move_deadline: float = 0.0
    waiter: asyncio.Future[None] | None = None
    legal: tuple[str, ...] = ()
    legal_set: frozenset[str] = frozenset()

    def answer(self, action_id: str | _Signal) -> None:
        """Queue an answer (or :data:`RESIGN`, :data:`HAND_BACK`) and wake the runner waiting for it."""
        self.answers.append(action_id)
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def next_answer(self, deadline: float) -> str | _Signal | None:
        """The next answer, or ``None`` once ``time.monotonic()`` passes ``deadline``.

        One future and one timer per wait (no task, no ``wait_for``): this is the hot path of
        every move.
        """
        if self.answers:
            return self.answers.popleft()
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        self.waiter = waiter
        # The default loop's clock is time.monotonic().
        timer = loop.call_at(loop.time() + (deadline - time.monotonic()), _expire, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self.waiter = None
        return self.answers.popleft() if self.answers else None


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class LiveMatch:
    """A match being played on this instance, as the hub routes it."""

    def __init__(self, spec: MatchSpec, start: Any) -> None:
        self.spec = spec
        self.start = start
        """The ``MatchStart`` template (seat and ``resumed`` are set per send)."""
        self.sessions: dict[int, Session | None] = dict.fromkeys(range(spec.players))
        self.pending: dict[int, Pending] = {}
        self.asked: dict[int, int] = {}
        """The seat each ``seq`` of the match was sent to (pending or not): an answer to another
        seat's request is told so whether or not that request is still pending, so that a bot
        cannot learn by probing whether another seat has answered a simultaneous decision."""
        self.resigned: set[int] = set()
        self.present: set[int] = set()
        """Seats whose bot joined (the others are no-shows)."""
        self.held: dict[str, list[int]] = {}
        """Present seats by bot (kept by :meth:`Hub.bind`)."""
        self.released = False
        """Play is over and the seats are free again (:meth:`Hub.release`)."""
        self.seat_versions: list[str | None] = [None] * spec.players
        """The version label of the session each seat was first bound to (the one that
        started the match for it; ``None``: no version, or no session)."""
        self.version_changes: list[dict[str, Any]] = []
        """A seat bound again (a reconnect) to a session with another version than the one
        before it: ``{"seat", "action_index", "version"}`` in order."""
        self.played: Callable[[], int] = lambda: 0
        """Actions played so far (set by the runner): where a version change happened."""

    def seat(self, seat: int, session: Session, *, first: bool) -> None:
        """Bind ``seat`` to ``session``, noting its version: the seat's version when ``first``
        (the match starts), else a change when it differs from the seat's version until now."""
        self.sessions[seat] = session
        if first:
            self.seat_versions[seat] = session.version
            return
        if session.version != self.version_of(seat):
            self.version_changes.append({"seat": seat, "action_index": self.played(), "version": session.version})

    def version_of(self, seat: int) -> str | None:
        """The seat's version now: its last change, else the one it started with."""
        changed = [c["version"] for c in self.version_changes if c["seat"] == seat]
        return changed[-1] if changed else self.seat_versions[seat]

    def seats_of(self, bot: str) -> list[int]:
        """The seats ``bot`` holds."""
        return self.held.get(bot, [])

    def viewers(self) -> list[tuple[Session, list[int]]]:
        """Each open session bound to this match with the seats it is bound to (seat order)."""
        out: dict[int, tuple[Session, list[int]]] = {}
        for seat, session in self.sessions.items():
            if session is not None and not session.closed:
                entry = out.get(id(session))
                if entry is None:
                    out[id(session)] = (session, [seat])
                else:
                    entry[1].append(seat)
        return list(out.values())

    def send(self, seat: int, message: Any) -> bool:
        """Send to the seat's session; ``False`` if the seat has none now."""
        session = self.sessions.get(seat)
        if session is None or session.closed:
            return False
        session.send(message)
        return True

    def match_start(self, seat: int, *, resumed: bool) -> Any:
        """The ``ServerMessage`` with this seat's ``MatchStart``."""
        start = pb.MatchStart()
        start.CopyFrom(self.start)
        start.seat = seat
        start.resumed = resumed
        return pb.ServerMessage(match_start=start)


class Hub:
    """Every session and live match of one instance."""

    def __init__(
        self,
        *,
        instance: str,
        sessions_per_bot: int,
        bad_per_minute: int,
        max_queued_messages: int = MAX_QUEUED_MESSAGES,
        max_queued_bytes: int = MAX_QUEUED_BYTES,
    ) -> None:
        self.instance = instance
        self.sessions_per_bot = sessions_per_bot
        self.bad_per_minute = bad_per_minute
        self.max_queued_messages = max_queued_messages
        self.max_queued_bytes = max_queued_bytes
        self.sessions: dict[str, list[Session]] = {}
        self.opening: dict[str, int] = {}
        """Streams per bot admitted (:meth:`admit`) that have not said Hello yet, and streams
        whose session ended but whose status has not reached the bot yet (:meth:`linger`)."""
        self.matches: dict[str, LiveMatch] = {}
        self._change_waiters: set[asyncio.Future[None]] = set()
        self.sessions_changed = asyncio.Event()
        """Set when a session opens or closes (the presence loop republishes soon after)."""
        self.remote_load: dict[str, int] = {}
        """Seats each bot holds in live matches on other instances (from presence)."""
        self.reserved: dict[str, int] = {}
        """Seats of claimed matches still waiting for their bot (they gate claiming)."""
        self._load: dict[str, int] = {}
        """Seats each bot holds in live matches here (kept by :meth:`bind` and :meth:`finish`)."""
        self.claim_ahead = 8
        """Seats that claimed matches may wait for bots that are connected here but busy; past
        it the instance stops claiming (it cannot know whose match it pops next, so without a
        bound it would pop the whole queue while one bot is busy)."""

    # -------------------------------------------------------------- sessions
    def session_count(self, bot: str) -> int:
        """Open sessions of ``bot``."""
        return len(self.sessions.get(bot, []))

    def admit(self, bot: str) -> bool:
        """Take a session slot for a new stream of ``bot`` (it has not said Hello yet);
        ``False`` when its open sessions and the streams admitted before count
        ``sessions_per_bot`` already.  The slot becomes the session (:meth:`open`) or is given
        back (:meth:`unadmit`): streams opened at once cannot exceed the limit by saying Hello
        only once every one of them has been let in."""
        opening = self.opening.get(bot, 0)
        if self.session_count(bot) + opening >= self.sessions_per_bot:
            return False
        self.opening[bot] = opening + 1
        return True

    def linger(self, bot: str) -> None:
        """Keep a slot for a stream whose session is closed but that has not ended yet (a
        stream not read: its status waits behind the writes the bot does not read); given
        back with :meth:`unadmit`.  A bot that opens stream after stream without reading any
        holds no more of them than ``sessions_per_bot``."""
        self.opening[bot] = self.opening.get(bot, 0) + 1

    def unadmit(self, bot: str) -> None:
        """Give back a slot taken by :meth:`admit` (the stream ended before its session
        opened) or :meth:`linger`."""
        left = self.opening.get(bot, 0) - 1
        if left > 0:
            self.opening[bot] = left
        else:
            self.opening.pop(bot, None)

    def open(self, bot: str, hello: Any) -> Session:
        """Register a new session after Hello, in the slot :meth:`admit` took; binds and
        resumes the bot's live seats."""
        self.unadmit(bot)
        session = Session(
            bot,
            hello.games,
            max(1, hello.max_matches),
            bad_per_minute=self.bad_per_minute,
            batching=hello.batching,
            version=hello.version,
            max_queued_messages=self.max_queued_messages,
            max_queued_bytes=self.max_queued_bytes,
        )
        self.sessions.setdefault(bot, []).append(session)
        resumed = [
            m for m in self.matches.values() if not m.released and any(m.sessions[s] is None for s in m.seats_of(bot))
        ]
        self._sessions_changed()
        session.send(
            pb.ServerMessage(
                welcome=pb.Welcome(
                    bot=bot,
                    session_id=session.id,
                    instance=self.instance,
                    max_matches=self.capacity(bot),
                    resumed=[m.spec.match_id for m in resumed],
                    batching=session.batching,
                    hand_back=True,
                )
            )
        )
        for match in resumed:
            for seat in match.seats_of(bot):
                if match.sessions[seat] is None:
                    self._resume(match, seat, session)
        self._wake()
        return session

    @staticmethod
    def _resume(match: LiveMatch, seat: int, session: Session) -> None:
        """Bind ``seat`` of a live match to ``session`` again: ``MatchStart(resumed)`` and the
        pending request, if any, re-sent with its ``seq`` and the time left."""
        match.seat(seat, session, first=False)
        session.bound += 1
        session.send(match.match_start(seat, resumed=True))
        pending = next((p for p in match.pending.values() if p.seat == seat), None)
        if pending is not None:
            session.send(pb.ServerMessage(action_request=_with_clock(pending)))

    def closed(self, session: Session) -> list[str]:
        """Forget a session; its seats move to another open session of the bot that plays the
        game (the least busy), else they are unbound until the bot comes back.  Returns the
        ids of the live matches left with a seat of it unbound."""
        session.close()
        bots = self.sessions.get(session.bot, [])
        if session in bots:
            bots.remove(session)
        if not bots:
            self.sessions.pop(session.bot, None)
        left = []
        for match in self.matches.values():
            if match.released:
                continue
            for seat, bound in match.sessions.items():
                if bound is session:
                    match.sessions[seat] = None
                    session.bound -= 1
                    heirs = [s for s in bots if not s.closed and s.plays(match.spec.game)]
                    if heirs:
                        self._resume(match, seat, min(heirs, key=lambda s: s.bound))
                    else:
                        left.append(match.spec.match_id)
        self._sessions_changed()
        self._wake()
        return sorted(set(left))

    def capacity(self, bot: str) -> int:
        """Matches the bot accepts at once (the largest ``max_matches`` of its sessions)."""
        return max((s.max_matches for s in self.sessions.get(bot, [])), default=0)

    def load(self, bot: str) -> int:
        """Seats the bot holds in live matches here."""
        return self._load.get(bot, 0)

    def bind(self, match: LiveMatch, seat: int, session: Session) -> None:
        """Seat ``session``'s bot in ``match`` (a live match of this hub) at ``seat``."""
        bot = session.bot
        match.present.add(seat)
        match.held.setdefault(bot, []).append(seat)
        match.held[bot].sort()
        match.seat(seat, session, first=True)
        session.bound += 1
        self._load[bot] = self._load.get(bot, 0) + 1

    def free_slots(self, bot: str) -> int:
        """Seats ``bot`` may still take here (its capacity less its live seats on every instance)."""
        return self.capacity(bot) - self.load(bot) - self.remote_load.get(bot, 0)

    def _open_for(self, bot: str, game: str) -> list[Session]:
        """The bot's open sessions here that play ``game``."""
        return [s for s in self.sessions.get(bot, []) if s.plays(game) and not s.closed]

    def connected_for(self, bot: str, game: str) -> bool:
        """Whether ``bot`` has an open session here that plays ``game``."""
        return bool(self._open_for(bot, game))

    def has_room(self) -> bool:
        """Whether some connected bot could take another match (its live seats on every
        instance and the seats reserved for it by matches still joining count against its
        capacity), unless claimed matches already wait for more than :attr:`claim_ahead` seats
        of busy bots connected here."""
        room, waiting = False, 0
        for bot in self.sessions:
            used = self.load(bot) + self.remote_load.get(bot, 0) + self.reserved.get(bot, 0)
            over = used - self.capacity(bot)
            if over < 0:
                room = True
            else:
                waiting += over
        return room and waiting < self.claim_ahead

    def reserve(self, bot: str, seats: int) -> None:
        """Add (or, negative, remove) seats reserved for ``bot`` by a joining match."""
        left = self.reserved.get(bot, 0) + seats
        if left > 0:
            self.reserved[bot] = left
        else:
            self.reserved.pop(bot, None)

    def release(self, match_id: str) -> None:
        """A match's play is over: its seats become free slots at once, while the result is
        still being recorded (the match stays known until :meth:`finish` so its ``MatchEnd``
        reaches the bound sessions; a session that closes meanwhile is not resumed for it)."""
        match = self.matches.get(match_id)
        if match is None or match.released:
            return
        match.released = True
        for bot, seats in match.held.items():
            left = self._load.get(bot, 0) - len(seats)
            if left > 0:
                self._load[bot] = left
            else:
                self._load.pop(bot, None)
        for session in match.sessions.values():
            if session is not None:
                session.bound -= 1
        self._wake()

    def finish(self, match_id: str) -> None:
        """Forget a finished match (releasing its seats if :meth:`release` did not)."""
        self.release(match_id)
        self.matches.pop(match_id, None)

    def games_of(self, bot: str) -> tuple[str, ...]:
        """Games the bot's sessions here accept (empty: every game)."""
        sessions = self.sessions.get(bot, [])
        if not sessions or any(not s.games for s in sessions):
            return ()
        return tuple(sorted(set().union(*(s.games for s in sessions))))

    def relay(self, bot: str, message: Any) -> int:
        """Send ``message`` to every open session of ``bot``; returns how many got it."""
        sessions = [s for s in self.sessions.get(bot, []) if not s.closed]
        for session in sessions:
            session.send(message)
        return len(sessions)

    def available(self, bot: str, game: str) -> Session | None:
        """A session of ``bot`` that plays ``game`` if the bot has a free slot."""
        candidates = self._open_for(bot, game)
        if self.free_slots(bot) <= 0 or not candidates:
            return None
        return min(candidates, key=lambda s: s.bound)

    def _wake(self) -> None:
        for waiter in self._change_waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._change_waiters.clear()

    def _sessions_changed(self) -> None:
        self.sessions_changed.set()
        self.sessions_changed = asyncio.Event()

    async def wait_sessions_changed(self, timeout: float) -> None:
        """Wait until a session opens or closes (or ``timeout`` seconds pass)."""
        event = self.sessions_changed
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)

    async def wait_change(self, timeout: float) -> None:
        """Wait until sessions or seats change (or ``timeout`` seconds pass).

        A future woken directly by the change (no task, no ``wait_for``)."""
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        self._change_waiters.add(waiter)
        timer = loop.call_later(timeout, _expire, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._change_waiters.discard(waiter)

    # ---------------------------------------------------------------- routing
    def route_action(self, session: Session, action: Any) -> Any | None:
        """Hand an ``Action`` to its pending request; an ``ActionRejected`` if it fits none."""
        if not action.match_id or not action.action_id:
            return _reject(action, pb.REJECT_MALFORMED, "an Action needs match_id, seq and action_id")
        found = self._pending_for(session, action)
        if isinstance(found, Pending):
            found.answer(action.action_id)
            return None
        return found

    def hand_back(self, session: Session, message: Any) -> Any | None:
        """Hand a ``HandBack`` to its pending request (the runner plays the default action for
        it); an ``ActionRejected`` if it fits none, exactly as for an ``Action``."""
        if not message.match_id:
            return _reject(message, pb.REJECT_MALFORMED, "a HandBack needs match_id and seq")
        found = self._pending_for(session, message)
        if isinstance(found, Pending):
            found.answer(HAND_BACK)
            return None
        return found

    def _pending_for(self, session: Session, answer: Any) -> Pending | Any:
        """The request an answer (``Action`` or ``HandBack``: ``match_id``, ``seq``) of
        ``session``'s bot may go to, or the ``ActionRejected`` saying why there is none."""
        match = self.matches.get(answer.match_id)
        if match is None or not match.seats_of(session.bot):
            # A match without a seat of the bot is answered as unknown: a bot learns nothing
            # of others' matches.
            return _reject(answer, pb.REJECT_UNKNOWN_MATCH, f"no live match {answer.match_id!r} on this server")
        asked = match.asked.get(answer.seq)
        if asked is not None and match.spec.seats[asked] != session.bot:
            return _reject(answer, pb.REJECT_NOT_YOUR_SEAT, f"seq {answer.seq} asks seat {asked}, not yours")
        pending = match.pending.get(answer.seq)
        if pending is None:
            mine = sorted(p.seq for p in match.pending.values() if match.spec.seats[p.seat] == session.bot)
            hint = f"pending: seq {mine[0]}" if mine else "nothing is pending for you"
            return _reject(answer, pb.REJECT_STALE_SEQ, f"seq {answer.seq} is not pending ({hint})")
        if pending.answers:
            # Answering twice is stale: a bot answers again only after the outcome of its answer
            # (an ActionRejected).  Otherwise a batch of thousands of illegal answers to one request
            # would each be judged and rejected (no end to them with max_rejections 0).
            return _reject(
                answer,
                pb.REJECT_STALE_SEQ,
                f"seq {answer.seq} already has an answer awaiting its outcome; "
                "answer again only after an ActionRejected",
            )
        return pending

    def resign(self, session: Session, match_id: str) -> bool:
        """Resign all of the session bot's seats in a match; ``False`` if it has none, or the
        match's play is over (its result is being recorded: nothing left to resign)."""
        match = self.matches.get(match_id)
        seats = match.seats_of(session.bot) if match else []
        if match is None or not seats or match.released:
            return False
        for seat in seats:
            match.resigned.add(seat)
            for p in match.pending.values():
                if p.seat == seat:
                    p.answer(RESIGN)
        return True


def _with_clock(pending: Pending) -> Any:
    now = time.monotonic()
    request = pb.ActionRequest.FromString(pending.request)
    request.move_ms_left = max(0, int((pending.move_deadline - now) * 1000))
    request.bank_ms_left = max(0, int((pending.deadline - max(now, pending.move_deadline)) * 1000))
    return request


def _reject(answer: Any, code: int, reason: str) -> Any:
    return pb.ServerMessage(
        action_rejected=pb.ActionRejected(match_id=answer.match_id, seq=answer.seq, reason=reason, code=code)
    )
