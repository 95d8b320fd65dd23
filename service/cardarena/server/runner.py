"""Plays one match in one asyncio task; game-agnostic.

The runner drives ``State.to_act()``: chance nodes are drawn from ``MatchRng(spec.seed)``;
each seat asked to act gets an ``ActionRequest`` (its own view, the legal actions with their
payload, its clock), several seats at once when the game asks them simultaneously.

Clocks (measured here): a move may take ``move_ms``; time beyond it comes out of the seat's
``bank_ms`` for the match.  Fault policy (:class:`~cardarena.store.matches.FaultPolicy`):

* illegal answer: ``ActionRejected`` with the engine's reason; the bot may answer again while
  its clock runs; ``max_rejections`` illegal answers to one request count as a fault
  (``illegal``), and the last rejection says so with no time left (both ``*_ms_left`` 0);
* clock runs out: fault ``timeout`` (``disconnect`` if the seat had no session at that time);
* the bot hands the request back (``HandBack``: its code failed): fault ``error`` at once, the
  time taken so far charged to the clock as for an answer;
* a fault plays the default action (``first`` or ``random`` legal action) and is a strike;
  ``max_strikes`` strikes (0: never) forfeit the seat; ``Resign`` forfeits at once; a seat
  whose bot never joined forfeits from the start (``no-show``); when no bot joined at all the
  match is voided and requeued, up to its ``no_show_attempts``-th claim, when every seat
  forfeits from the start;
* a forfeited seat is played by default actions to the end of the match (the match never
  stops early), and ranks last: seats that did not forfeit keep their order, forfeiting
  seats follow, ordered among themselves by score, and the no-shows share the last place (the
  result's ``no_show`` lists them; every seat a no-show: a *no contest*, which tournaments
  neither rate nor count in the standings).  Scores are the engine's.

Action limit: a match still going after ``max_actions`` player actions (the fault policy's,
:data:`~cardarena.engine.MAX_ACTIONS` by default) is stopped at once: a game that loops, or bots
that found a loop in it, would otherwise hold it (and its tournament) for ever, every move
being quick.  It is recorded once like a finished match (status ``done``, its replay so far with
``result: null``), as a *no contest* (the result's ``aborted`` is ``action_limit``: tournaments
neither rate nor count it, every seat scores 0 and shares the one place); it is never requeued
(it would loop again); the bots are told ``MatchEnd`` status ``aborted``
(:data:`~cardarena.engine.ACTION_LIMIT_REASON`);
an ERROR ``match_aborted`` log line names the game and the match.

Every fault is annotated on its action in the replay (``fault``, ``default``, ``forfeit``);
the replay's ``result`` is the engine's, the recorded result carries the forfeit ranks (and
the engine's ``won`` per seat when the game sets it, e.g. a solitaire).

Think times: for every action a seat was asked for, the time from its request to the answer
(or fault) that settled it, and its bank left after it, are recorded (one int each per action:
the replay's ``think_ms`` and ``bank_ms_left``, :mod:`cardarena.think`); the recorded result
carries a per-seat summary (``think``).

Versions: each seat's ``Hello.version`` when the match started is recorded (``seat_versions``
in the replay, and in the result when a seat has one); a seat taken over mid-match by a session
with another label adds an entry to the replay's ``version_changes`` (:class:`LiveMatch`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

from ..engine import (
    ACTION_LIMIT,
    ACTION_LIMIT_REASON,
    MatchRng,
    State,
    build_replay,
    forfeit_ranks,
    get_game,
    public_forms,
)
from ..engine.core import JSON, GameError
from ..store.matches import MatchSpec, MatchStore
from ..think import BANK_KEY, THINK_KEY, summary
from ..wire import codec
from .hub import RESIGN, Hub, LiveMatch, Pending
from .observability import Metrics

log = logging.getLogger("cardarena.server.runner")

YIELD_EVERY = 64
"""Actions after which a match yields the event loop even if none of them waited for a bot."""
pb = codec.arena_pb2


SUPERSEDED = "recorded by another run of this match (this instance lost its lease); this run's moves were discarded"
"""``MatchEnd.reason`` of a run whose match another run recorded first (it sends that result)."""
LEASE_LOST = (
    "this instance lost its lease on the match (it could not renew it in time); the match is played again "
    "from its seed by another run, and this run's moves were discarded"
)
"""``MatchEnd.reason`` (``voided``) of a run stopped because it lost its lease while the match was
being played, before another run recorded it."""


def end_status(result: dict[str, Any]) -> str:
    """The ``MatchEnd.status`` of a recorded result: ``aborted`` (stopped at its action limit)
    or ``completed``."""
    return "aborted" if result.get("aborted") else "completed"


MAX_REFUSED_RECORDED = 100
"""Most requests with refused answers a replay lists (``refused``); the bot's
``illegal_actions`` statistic counts every refused answer."""


Decided = tuple[str, dict[str, JSON] | None, int | None]
"""A seat's decision: the action, its replay annotation when the server chose it, and the
milliseconds from the seat's request to what settled it (``None``: the seat was not asked)."""


class Voided(Exception):
    """The match cannot be played here (no-show of every bot); it goes back to the queue."""


def _ms(seconds: float) -> int:
    """A measured time in whole milliseconds (as the replay records it)."""
    return int(seconds * 1000)


class MatchRunner:
    """One match: join, play, record (or void)."""

    def __init__(
        self,
        spec: MatchSpec,
        *,
        hub: Hub,
        matches: MatchStore,
        metrics: Metrics,
        instance: str,
        lease_ms: int,
        leased_at: float | None = None,
        invite: Callable[[str, str, str], Awaitable[None]] | None = None,
    ) -> None:
        """``leased_at``: ``time.monotonic()`` when the claim that leased the match was sent
        (default: now); the lease is known to be held until ``lease_ms`` after it."""
        self.spec = spec
        self.invite = invite
        """``invite(match_id, bot, game)``: ask the bot's other instances to send it here."""
        self.hub = hub
        self.store = matches
        self.metrics = metrics
        self.instance = instance
        self.lease_ms = lease_ms
        self.leased_until = (time.monotonic() if leased_at is None else leased_at) + lease_ms / 1000.0
        """``time.monotonic()`` until which the lease is surely this run's (the last renewal
        that succeeded was sent ``lease_ms`` before it)."""
        self.lost = ""
        """Why this run lost its lease (``""``: it holds it); see :meth:`lose`."""
        self._task: asyncio.Task[Any] | None = None
        """The task of :meth:`run` while it joins or plays (what :meth:`lose` stops)."""
        self.game = get_game(spec.game)
        self.state: State = self.game.new_state(spec.players, spec.options)
        tc = spec.time_control
        self.bank = [tc.bank_ms / 1000.0] * spec.players
        self.strikes = [0] * spec.players
        self.forfeited: set[int] = set()
        self.no_show: set[int] = set()
        """Seats whose bot never joined (forfeited from the start)."""
        self.annotations: dict[int, dict[str, JSON]] = {}
        self.faults: list[dict[str, JSON]] = []
        self.refused: list[dict[str, JSON]] = []
        """Requests that had illegal answers before the seat answered again (or ran out of
        time): the replay's ``refused``, at most :data:`MAX_REFUSED_RECORDED` of them."""
        self.think_ms: list[int | None] = []
        """Per action (``action_index``): the milliseconds its seat took, ``None`` when it was
        not asked (the replay's ``think_ms``)."""
        self.bank_ms_left: list[int | None] = []
        """Per action: its seat's bank left after it, in ms (the replay's ``bank_ms_left``)."""
        self.stats: dict[str, dict[str, int]] = {}
        """The bots' statistics of this run (bot -> statistic -> amount), counted only if this
        run records the match (:meth:`_record`): a voided or superseded run counts nothing."""
        self.actions = 0
        self.aborted = ""
        """Why play stopped before the end of the match (:data:`~cardarena.engine.ACTION_LIMIT`),
        ``""`` while it is played or once it ended."""
        self.seq = 0
        self.default_rng = MatchRng(f"{spec.seed}/default")
        self._chance = MatchRng(spec.seed)
        start = pb.MatchStart(
            match_id=spec.match_id,
            game=spec.game,
            options_json=codec.encode_options(self.state.options),
            players=spec.players,
            seat_names=list(spec.seats),
            time_control=pb.TimeControl(move_ms=tc.move_ms, bank_ms=tc.bank_ms),
        )
        self.live = LiveMatch(spec, start)
        self.live.played = lambda: self.actions
        for bot in spec.seats:  # released as seats join (or at the end of the join phase)
            hub.reserve(bot, 1)

    def _stat(self, seat: int, stat: str, amount: int = 1) -> None:
        """Count ``amount`` of ``stat`` for the bot of ``seat``: written with the result."""
        counts = self.stats.setdefault(self.spec.seats[seat], {})
        counts[stat] = counts.get(stat, 0) + amount

    # ------------------------------------------------------------------ join
    async def join(self) -> None:
        """Bind every seat to a session of its bot.

        Seats are bound all at once, never one by one: a match holds no bot while it waits for
        another (two matches each holding the bot the other waits for would wait forever).  It
        binds as soon as every seated bot is connected here with free slots for its seats (a
        bot connected elsewhere is invited here).  A bot that is connected here for this game
        but busy in other matches is waited for however long that takes: being busy is not a
        no-show.  Once ``join_timeout_ms`` has passed, the bots that are not connected here are
        no-shows and the match starts with the others (as soon as they are all free).
        """
        spec, hub = self.spec, self.hub
        deadline = time.monotonic() + spec.fault_policy.join_timeout_ms / 1000.0
        hub.matches[spec.match_id] = self.live
        invited: dict[str, float] = {}
        seats_of: dict[str, list[int]] = {}
        for seat, bot in enumerate(spec.seats):
            seats_of.setdefault(bot, []).append(seat)
        try:
            while True:
                late = time.monotonic() >= deadline
                here = [bot for bot in seats_of if hub.connected_for(bot, spec.game)]
                away = [bot for bot in seats_of if bot not in here]
                # A bot seated more often than its capacity allows takes what fits (the rest
                # are no-shows), so it is never waited for in vain.
                need = {bot: min(len(seats_of[bot]), max(1, hub.capacity(bot))) for bot in here}
                if (late or not away) and all(hub.free_slots(bot) >= need[bot] for bot in here):
                    for bot in here:
                        for seat in seats_of[bot][: need[bot]]:
                            session = hub.available(bot, spec.game)
                            assert session is not None  # free slots were checked just now
                            hub.bind(self.live, seat, session)
                            hub.reserve(bot, -1)
                    break
                if self.invite is not None:
                    for bot in away:
                        # Connected elsewhere (or not at all): invite through presence, every 2 s.
                        now = time.monotonic()
                        if not hub.session_count(bot) and now - invited.get(bot, -10.0) >= 2.0:
                            invited[bot] = now
                            await self.invite(spec.match_id, bot, spec.game)
                left = deadline - time.monotonic()
                await hub.wait_change(min(left, 0.25) if left > 0 else 0.25)
        finally:
            for seat, bot in enumerate(spec.seats):
                if seat not in self.live.present:
                    hub.reserve(bot, -1)
        if not self.live.present:
            limit = spec.fault_policy.no_show_attempts
            if not limit or await asyncio.to_thread(self.store.attempts, spec.match_id) < limit:
                raise Voided("no-show: none of the seated bots joined")
            # Claimed that often with nobody joining: every seat forfeits (below) and the
            # default actions play the match out, so that it ends.
            log.info("match_no_show", extra={"fields": {"match_id": spec.match_id, "seats": list(spec.seats)}})
        for seat in range(spec.players):
            if seat in self.live.present:
                self.live.send(seat, self.live.match_start(seat, resumed=False))
            else:
                self.forfeited.add(seat)
                self.no_show.add(seat)
                self.faults.append({"seat": seat, "fault": "no-show", "forfeit": True})
                self._stat(seat, "forfeits")

    # ------------------------------------------------------------------ play
    def _default(self, legal: tuple[str, ...]) -> str:
        if self.spec.fault_policy.default_action == "random":
            return legal[self.default_rng.below(len(legal))]
        return legal[0]

    def _strike(self, seat: int, fault: str, seq: int) -> dict[str, JSON]:
        """Count a strike against ``seat`` for request ``seq``; the default action's annotation."""
        note: dict[str, JSON] = {"fault": fault, "default": True}
        self.strikes[seat] += 1
        limit = self.spec.fault_policy.max_strikes
        if limit and self.strikes[seat] >= limit and seat not in self.forfeited:
            self.forfeited.add(seat)
            note["forfeit"] = True
            self._stat(seat, "forfeits")
        self.faults.append({"seat": seat, "action_index": self.actions, "seq": seq, **note})
        return note

    def _resign(self, seat: int) -> dict[str, JSON]:
        """Forfeit a seat that resigned; the annotation of its first default action."""
        self.forfeited.add(seat)
        self.faults.append({"seat": seat, "fault": "resign", "forfeit": True})
        self._stat(seat, "forfeits")
        return {"fault": "resign", "default": True, "forfeit": True}

    def _request(self, seat: int, legal: tuple[str, ...]) -> Pending:
        """Send ``seat`` its ``ActionRequest``; the pending request awaiting the answer."""
        tc = self.spec.time_control
        self.seq += 1
        now = time.monotonic()
        # Built as bytes (codec.action_request_bytes): no copies of the view and legal actions.
        request = codec.action_request_bytes(
            self.spec.match_id,
            self.seq,
            seat,
            codec.view_bytes(self.game.id, self.state.view_json(seat)),
            codec.legal_bytes(self.game, legal),
            tc.move_ms,
            int(self.bank[seat] * 1000),
        )
        pending = Pending(
            seat=seat, seq=self.seq, request=request, sent_at=now, legal=legal, legal_set=frozenset(legal)
        )
        pending.move_deadline = now + tc.move_ms / 1000.0
        pending.deadline = pending.move_deadline + self.bank[seat]
        self.live.pending[self.seq] = pending
        self.live.asked[self.seq] = seat
        self.live.send(seat, codec.server_message_bytes(request))
        return pending

    def _charge(self, pending: Pending) -> float:
        """Charge the seat's clock for an answer to ``pending`` received now (time beyond the
        move clock comes out of the bank); the time it took."""
        done = time.monotonic()
        over = done - pending.move_deadline
        if over > 0:
            self.bank[pending.seat] = max(0.0, self.bank[pending.seat] - over)
        return done - pending.sent_at

    def _accept(self, pending: Pending) -> float:
        """Charge the seat's clock for a legal answer to ``pending``, received now; the time
        it took."""
        took = self._charge(pending)
        self.metrics.move_latency.observe(took)
        return took

    async def decide(self, seat: int) -> Decided:
        """The seat's action now, the replay annotation when the server chose it, and the time
        the seat took (:data:`Decided`)."""
        legal = self.state.legal_actions(seat)
        if seat in self.live.resigned and seat not in self.forfeited:  # resigned out of turn
            return self._default(legal), self._resign(seat), None
        if seat in self.forfeited:
            return self._default(legal), {"fault": "forfeited", "default": True}, None
        return await self._resolve(self._request(seat, legal))

    async def _resolve(self, pending: Pending) -> Decided:
        """Wait for a legal answer to ``pending`` (rejecting illegal ones) or a fault."""
        seat, legal, state, policy = pending.seat, pending.legal, self.state, self.spec.fault_policy
        rejections = 0
        first_reason = ""
        fault = ""
        try:
            while True:
                if pending.deadline - time.monotonic() <= 0:
                    fault = "timeout" if self.live.sessions.get(seat) is not None else "disconnect"
                    break
                answer = await pending.next_answer(pending.deadline)
                if answer is None:
                    continue
                if answer is RESIGN:
                    return self._default(legal), self._resign(seat), _ms(time.monotonic() - pending.sent_at)
                if not isinstance(answer, str):  # HAND_BACK: the bot cannot answer this request
                    self._charge(pending)
                    fault = "error"
                    break
                if answer in pending.legal_set:
                    return answer, None, _ms(self._accept(pending))
                rejections += 1
                self.metrics.illegal.inc()
                # The engine's reason; an id it would take in another spelling is still not one
                # of the ids offered (each request lists them).
                reason = state.check(seat, answer) or f"{answer[:64]!r} is not one of the {len(legal)} legal action ids"
                first_reason = first_reason or reason
                now = time.monotonic()
                last = bool(policy.max_rejections and rejections >= policy.max_rejections)
                # The last rejection leaves no time: no answer is taken after it.
                move_left = 0 if last else max(0, int((pending.move_deadline - now) * 1000))
                bank_left = 0 if last else max(0, int((pending.deadline - max(now, pending.move_deadline)) * 1000))
                self.live.send(
                    seat,
                    pb.ServerMessage(
                        action_rejected=pb.ActionRejected(
                            match_id=self.spec.match_id,
                            seq=pending.seq,
                            reason=reason,
                            code=pb.REJECT_ILLEGAL_ACTION,
                            move_ms_left=move_left,
                            bank_ms_left=bank_left,
                        )
                    ),
                )
                if last:  # its time beyond the move clock comes out of the bank, as any answer's
                    self._charge(pending)
                    fault = "illegal"
                    break
        finally:
            self.live.pending.pop(pending.seq, None)
            if rejections:  # one write per request, not per answer: a flood of them costs one
                self._stat(seat, "illegal_actions", rejections)
                if fault != "illegal" and len(self.refused) < MAX_REFUSED_RECORDED:  # else a fault says it
                    self.refused.append(
                        {
                            "seat": seat,
                            "action_index": self.actions,
                            "seq": pending.seq,
                            "count": rejections,
                            "reason": first_reason[:200],
                        }
                    )
        if fault in ("timeout", "disconnect"):
            self.bank[seat] = 0.0
            self.metrics.timeouts.inc()
            self._stat(seat, "timeouts" if fault == "timeout" else "disconnects")
        elif fault == "error":
            self.metrics.errors.inc()
            self._stat(seat, "errors")
            log.info(
                "move_handed_back",
                extra={"fields": {"match_id": self.spec.match_id, "seat": seat, "seq": pending.seq}},
            )
        took = _ms(time.monotonic() - pending.sent_at)
        return self._default(legal), self._strike(seat, fault, pending.seq), took

    def _announce(self, seat: int, action: str, note: dict[str, JSON] | None) -> None:
        """One ``Event`` per session (not per seat): a session holding several seats of the
        match gets each distinct form of the action its seats see once (the acting seat's
        own view first)."""
        default, fault = bool(note), str(note["fault"]) if note else ""
        for session, seats in self.live.viewers():
            for seen in public_forms(self.state, seat, action, seats):
                event = pb.Event(match_id=self.spec.match_id, seat=seat, action=seen, is_default=default, fault=fault)
                session.send(pb.ServerMessage(event=event))

    def _apply(self, seat: int, action: str, note: dict[str, JSON] | None, took: int | None) -> None:
        """Play ``action`` for ``seat``, record its annotation and time (``took`` ms: the
        seat's time for it, ``None`` if it was not asked), and tell the bots."""
        self.state.apply(seat, action)
        if note:
            self.annotations[self.actions] = note
        self.think_ms.append(took)
        self.bank_ms_left.append(None if took is None else int(self.bank[seat] * 1000))
        self.actions += 1
        self._announce(seat, action, note)

    def _turn(self) -> tuple[int, ...]:
        """Draw chance nodes up to the next turn; the seats asked to act (none: the end)."""
        state = self.state
        while True:
            seats = state.to_act()
            if not seats or not state.is_chance():
                return seats
            state.apply_chance(state.sample_chance(self._chance))

    async def play(self) -> None:
        """Play from the first chance node to the end, or until the match has played its
        ``max_actions`` (then :attr:`aborted` says so)."""
        limit = self.spec.fault_policy.max_actions
        while True:
            seats = self._turn()
            if not seats:
                # A seat that resigned after its last action forfeits all the same.
                for seat in sorted(self.live.resigned - self.forfeited):
                    self._resign(seat)
                return
            if self.actions >= limit:
                self.aborted = ACTION_LIMIT
                return
            if len(seats) == 1:
                decisions = [await self.decide(seats[0])]
            else:
                decisions = list(await asyncio.gather(*(self.decide(s) for s in seats)))
            for seat, (action, note, took) in zip(seats, decisions, strict=True):
                self._apply(seat, action, note, took)
            if self.actions % YIELD_EVERY == 0:
                # Forfeited seats are decided without waiting: a match of them alone would
                # otherwise hold the event loop (every other match, every stream) to its end.
                await asyncio.sleep(0)

    # ---------------------------------------------------------------- record
    def outcome(self) -> tuple[dict[str, JSON], dict[str, JSON]]:
        """``(result, replay)`` of the finished match, or of the match stopped at its action
        limit (:attr:`aborted`: a no contest, every seat scoring 0 and sharing the one place,
        its replay's ``result`` ``null``)."""
        spec, state = self.spec, self.state
        result: dict[str, JSON]
        if self.aborted:
            ranks: list[int] = [1] * spec.players
            result = {"aborted": self.aborted, "actions": self.actions, "scores": [0.0] * spec.players, "ranks": ranks}
        else:
            engine = state.result()
            ranks = list(
                forfeit_ranks(engine.ranks, engine.scores, self.forfeited, self.game.higher_is_better, self.no_show)
            )
            result = {"scores": list(engine.scores), "ranks": ranks, "engine_ranks": list(engine.ranks)}
            if engine.won is not None:
                result["won"] = list(engine.won)  # the engine's, like the scores (solitaire win rate)
            by_deal = state.scores_by_deal()
            if by_deal is not None:
                result["deal_scores"] = by_deal  # per deal and seat: tournaments compare deal by deal
        result |= {
            "forfeited": sorted(self.forfeited),
            "no_show": sorted(self.no_show),
            "seats": list(spec.seats),
            "strikes": list(self.strikes),
            "instance": self.instance,
        }
        versions: list[JSON] = list(self.live.seat_versions)
        if any(versions):  # the match lists (dashboard, API) read the versions from the result
            result["seat_versions"] = versions
        extra: dict[str, JSON] = {
            "match_id": spec.match_id,
            "tournament": spec.tournament,
            "time_control": {"move_ms": spec.time_control.move_ms, "bank_ms": spec.time_control.bank_ms},
            "fault_policy": asdict(spec.fault_policy),  # every field, max_actions included
            "faults": list(self.faults),
            "refused": list(self.refused),
            "forfeited": sorted(self.forfeited),
            "final_ranks": ranks,
            "instance": self.instance,
            "seat_versions": versions,
        }
        if self.aborted:
            extra["aborted"] = self.aborted
        if self.live.version_changes:
            extra["version_changes"] = [dict(change) for change in self.live.version_changes]
        extra[THINK_KEY] = list(self.think_ms)
        extra[BANK_KEY] = list(self.bank_ms_left)
        replay = build_replay(state, seed=spec.seed, seats=spec.seats, annotations=self.annotations, extra=extra)
        think = summary(replay)
        if think is not None:  # per seat: median, max, slowest action, time-outs, bank left
            result["think"] = think
        return result, replay

    def _record(self, result: dict[str, JSON], replay: dict[str, JSON]) -> dict[str, Any] | None:
        """Write the result and the replay with the bots' statistics of this run and a match
        for each bot that played (once per bot, however many seats it held), in one atomic
        step that happens once (:meth:`MatchStore.complete`); in a worker thread.

        ``None`` once this run's result is written.  If another run recorded the match first
        (this instance lost its lease while Redis was out of reach, and the match was requeued
        and played elsewhere), that run's result, which stays the only one: nothing of this run
        is written or counted.  :class:`Voided` if the match is not stored at all any more."""
        spec = self.spec
        stats = {bot: dict(counts) for bot, counts in self.stats.items()}
        for bot in {spec.seats[seat] for seat in self.live.present}:
            stats.setdefault(bot, {})["matches"] = 1
        tournament = spec.tournament or ""
        if not self.store.complete(spec.match_id, self.instance, result, replay, tournament=tournament, stats=stats):
            recorded = self._recorded()
            if recorded is None:
                raise Voided("not recorded: the match is no longer stored")
            return recorded
        return None

    def end_message(self, status: str, result: dict[str, Any] | None, reason: str = "") -> Any:
        """The ``MatchEnd`` message: scores and ranks only when ``completed``."""
        end = pb.MatchEnd(match_id=self.spec.match_id, status=status, reason=reason)
        if result:
            if status == "completed":  # an aborted match has no scores or places (a no contest)
                end.scores.extend(result["scores"])
                end.ranks.extend(result["ranks"])
            end.forfeited.extend(result.get("forfeited") or ())
        return pb.ServerMessage(match_end=end)

    def lose(self, why: str) -> None:
        """This run no longer holds its match's lease (another run or claim took it, or it
        lapsed): while it joins or plays, it stops at once (:meth:`run` records nothing and
        tells the bots); once play is over it records as usual, where the first result
        written wins (:meth:`_record`)."""
        if self.lost:
            return
        self.lost = why
        log.warning("lease_lost", extra={"fields": {"match_id": self.spec.match_id, "why": why}})
        if self._task is not None:
            self._task.cancel()

    async def _renew(self) -> None:
        """Renew the lease every third of it; :meth:`lose` it as soon as a renewal finds it
        held by another claim (or gone), or fails once it has lapsed.  A renewal that fails
        (Redis restarting, out of reach) while the lease is still surely held is retried at
        the next period; one that takes longer than the lease has left fails."""
        period = self.lease_ms / 3000.0
        while True:
            await asyncio.sleep(period)
            sent = time.monotonic()
            renewal = asyncio.to_thread(self.store.renew, self.spec.match_id, self.instance, lease_ms=self.lease_ms)
            try:
                held = await asyncio.wait_for(renewal, timeout=max(self.leased_until - sent, period))
            except Exception as exc:
                if time.monotonic() >= self.leased_until:
                    self.lose(f"no renewal succeeded for the whole lease: {exc!r}")
                    return
                log.warning("renew_failed", extra={"fields": {"match_id": self.spec.match_id, "error": repr(exc)}})
                continue
            if not held:
                self.lose("another claim holds the lease (or it lapsed)")
                return
            self.leased_until = sent + self.lease_ms / 1000.0

    def _recorded(self) -> dict[str, Any] | None:
        """The result another run recorded, if the match is done."""
        return self.store.result(self.spec.match_id) if self.store.status(self.spec.match_id) == "done" else None

    async def _lost_end(self) -> tuple[str, dict[str, Any] | None, str]:
        """``(status, result, reason)`` of the ``MatchEnd`` of a run that lost its lease mid-play:
        the recorded result if another run recorded the match already (as :meth:`_record`
        finds it), else ``voided`` (Redis is not waited for long: it may be out of reach)."""
        try:
            recorded = await asyncio.wait_for(asyncio.to_thread(self._recorded), timeout=1.0)
        except Exception:
            recorded = None
        if recorded is not None:
            return end_status(recorded), recorded, SUPERSEDED
        return "voided", None, LEASE_LOST

    async def run(self, *, on_done: Callable[[str], None] | None = None) -> str:
        """Join, play and record the match; returns ``completed``, ``aborted`` (stopped at its
        action limit and recorded) or ``voided``.

        Cancelled (a server shutting down past its grace) or failed: the match is voided —
        given back to the queue with nothing recorded.  Stopped because it lost its lease
        (:meth:`lose`) while joining or playing: nothing is recorded or given back (another
        run has the match), the bots are told ``voided`` (:data:`LEASE_LOST`), or the result
        another run recorded meanwhile (:data:`SUPERSEDED`), and it counts as ``superseded``.
        """
        spec = self.spec
        status, reason = "voided", ""
        outcome = ""  # as counted and logged, when it is not the status: "superseded"
        result: dict[str, Any] | None = None
        self.metrics.live_matches.inc()
        renew = asyncio.create_task(self._renew())
        try:
            self._task = asyncio.current_task()
            if self.lost and self._task is not None:  # lost before this task started: stop at once
                self._task.cancel()
            await self.join()
            log.info("match_started", extra={"fields": {"match_id": spec.match_id, "game": spec.game}})
            await self.play()
            self._task = None  # play is over: a lost lease no longer stops the run (_record decides)
            self.hub.release(spec.match_id)  # the bots may start their next matches meanwhile
            # One turn of the loop before recording: the claim loop, woken by the release, sends
            # its claim to Redis ahead of this match's replay write instead of queueing behind it.
            await asyncio.sleep(0)
            result, replay = self.outcome()
            recorded = await asyncio.to_thread(self._record, result, replay)
            if recorded is not None:  # another run's result is the match's: the bots are told it
                result, outcome = recorded, "superseded"
                reason = SUPERSEDED
            elif self.aborted:
                reason = ACTION_LIMIT_REASON.format(limit=spec.fault_policy.max_actions)
            status = end_status(result)
        except Voided as exc:
            reason = str(exc)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self._task is None or not self.lost or (task is not None and task.uncancel() > 0):
                reason = "server stopped"
                raise
            self._task = None
            outcome = "superseded"
            status, result, reason = await self._lost_end()
        except GameError as exc:  # a bug in a game module: never record a broken match
            reason = f"engine error: {exc}"
            log.exception("match_failed", extra={"fields": {"match_id": spec.match_id}})
        except Exception as exc:  # Redis went away while recording: voided, replayed later
            reason = f"could not record: {exc!r}"
            log.warning("match_failed", extra={"fields": {"match_id": spec.match_id, "error": repr(exc)}})
        finally:
            self._task = None
            renew.cancel()
            if status == "voided" and not outcome:
                try:
                    await asyncio.shield(asyncio.to_thread(self.store.void, spec.match_id, self.instance, reason))
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # Redis down: its lease expires and the reconciler requeues it
                    log.warning("void_failed", extra={"fields": {"match_id": spec.match_id, "error": repr(exc)}})
            end = self.end_message(status, result, reason)
            for seat in range(spec.players):
                self.live.send(seat, end)
            self.hub.finish(spec.match_id)
            self.metrics.live_matches.dec()
            self.metrics.matches.labels(status=outcome or status).inc()
            fields: dict[str, Any] = {"match_id": spec.match_id, "reason": reason, "result": result}
            if outcome:
                level = log.warning
            elif status == "aborted":  # a game that loops: its designer (or the organiser) must know
                level = log.error
                fields |= {"game": spec.game, "tournament": spec.tournament, "actions": self.actions}
            else:
                level = log.info
            level("match_" + (outcome or status), extra={"fields": fields})
            if on_done:
                on_done(status)
        return status
