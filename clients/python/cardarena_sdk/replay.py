"""Why did my bot do that?  A seat's decisions in a recorded match, and a bot asked them again.

:func:`decisions` re-runs a replay (``docs/replay-format.md``: a file of ``cardarena match
--replays`` or ``simulate --replays``, of ``local.play(..., replays=DIR)``, or the dashboard's
``GET /api/v1/matches/<id>/replay``) with the engine and gives each decision of one seat: the
view and the legal actions exactly as that seat's bot received them
(:func:`~cardarena_sdk.local.seat_request`: the seat's own view, never another seat's hidden
cards), the action played and what the replay records of it (a fault, the default action,
refused answers, the request's ``seq``, and the time the seat took with its bank left after it
where the service recorded them).

:func:`reask` asks a bot at each of those decisions, calling it as a live match does
(``on_event`` for every action, in the form the seat saw it; ``choose(view, legal)`` at each
decision; ``on_match_end`` and ``on_result`` at the end), while the recorded actions are what
is applied: the match follows the record, not the bot's new answers.  An error in ``choose`` is
kept with its traceback (:attr:`Reasked.error`); an error in another hook is logged with its
traceback and the re-run goes on, as live.

No network and no clock: the only IO is reading a replay file named by its path.
"""

from __future__ import annotations

import dataclasses
import json
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from cardarena.engine import FORMAT, GameError, RecordedAction, Rerun, get_game, public_forms, rerun, rerun_from_seed
from cardarena.think import Times

from .bot import Bot, LegalAction, MatchResult, check_bot, not_an_id
from .local import _hook, seat_request

NOT_ASKED = ("forfeited", "resign")
"""Faults of an action its seat's bot was not asked for: the seat had forfeited (the server
played for it), or it resigned instead of answering."""

ReplaySource = str | Path | IO[str] | IO[bytes] | Mapping[str, Any]
"""A replay: the path of its JSON file, an open file, or the parsed object."""


class ReplayError(ValueError):
    """A replay that cannot be stepped through: not a replay, a game not installed here, a seat
    it does not have, or a record the engine does not reproduce (altered)."""


@dataclass(frozen=True)
class Decision:
    """One decision of a seat in a recorded match, as its bot was asked it."""

    step: int
    """The replay viewer's step that shows the action played (the dashboard's match page,
    ``?step=``; the position the seat decided in is the step before)."""
    deal: int
    """Its deal, counted from 1."""
    action_index: int
    """The player actions of the match before it (the replay's ``faults[].action_index``)."""
    seat: int
    view: dict[str, Any]
    """The seat's view, as ``choose`` received it."""
    legal: list[LegalAction]
    """The legal actions, as ``choose`` received them."""
    played: str
    """The action applied (the bot's answer, or the server's default action on a fault)."""
    seq: int | None = None
    """The request's ``seq`` (the number the SDK's log gives) when the replay records it: for
    the requests with a fault or refused answers of replays stored by the service."""
    fault: str | None = None
    """The fault recorded with the action (``timeout``, ``disconnect``, ``illegal``, ``error``:
    handed back, ``forfeited``, ``resign``), ``None`` for an answer of the bot."""
    default: bool = False
    """The server played its default action (a fault)."""
    forfeit: bool = False
    """This fault forfeited the seat."""
    refused: int = 0
    """Illegal answers refused before the seat answered again (not a fault)."""
    refused_reason: str = ""
    """Why the first of them was refused, as the bot was told."""
    think_ms: int | None = None
    """How long the seat took, in ms, as the service measured it (from sending the request to
    the answer, or to the fault); ``None`` when the replay does not record it (a local replay,
    one stored before times were, an action the seat was not asked for)."""
    bank_ms_left: int | None = None
    """The seat's time bank left after it, in ms (with :attr:`think_ms`)."""

    @property
    def asked(self) -> bool:
        """Whether the seat's bot was asked (not when it had forfeited or resigned)."""
        return self.fault not in NOT_ASKED

    def to_json(self) -> dict[str, Any]:
        """The decision as JSON (``cardarena replay --json``)."""
        return {
            "step": self.step,
            "deal": self.deal,
            "action_index": self.action_index,
            "seat": self.seat,
            "seq": self.seq,
            "view": self.view,
            "legal": [dataclasses.asdict(a) for a in self.legal],
            "played": self.played,
            "fault": self.fault,
            "default": self.default,
            "forfeit": self.forfeit,
            "refused": self.refused,
            "refused_reason": self.refused_reason,
            "think_ms": self.think_ms,
            "bank_ms_left": self.bank_ms_left,
        }


@dataclass(frozen=True)
class Reasked:
    """A decision and what the bot answers now (:func:`reask`)."""

    decision: Decision
    answer: str | None = None
    """What ``choose`` returns now, as the client would send it (``str()`` of it); ``None``
    when the bot was not asked (:attr:`Decision.asked`) or ``choose`` raised."""
    illegal: str = ""
    """Why :attr:`answer` is not one of the legal ids (``""`` when it is)."""
    error: str = ""
    """The traceback of ``choose`` raising (``""``: it did not)."""

    @property
    def differs(self) -> bool:
        """Whether the bot now answers otherwise than the record: another action, an illegal
        answer, or an error where it answered (the same error where it was handed back is no
        change)."""
        if not self.decision.asked:
            return False
        if self.error:
            return self.decision.fault != "error"
        return self.answer != self.decision.played

    def to_json(self) -> dict[str, Any]:
        """The decision with the answer as JSON (``cardarena replay --bot ... --json``)."""
        return {
            **self.decision.to_json(),
            "asked": self.decision.asked,
            "answer": self.answer,
            "illegal": self.illegal or None,
            "error": self.error or None,
            "differs": self.differs,
        }


def load(source: ReplaySource) -> dict[str, Any]:
    """The replay object of ``source`` (a path, an open file or the parsed object); a
    :class:`ReplayError` saying why when it is not a ``cardarena-replay/1`` replay."""
    if isinstance(source, Mapping):
        data: Any = dict(source)
    else:
        try:
            if isinstance(source, str | Path):
                with open(source, "rb") as file:
                    data = json.load(file)
            else:
                data = json.load(source)
        except OSError as exc:
            raise ReplayError(exc.strerror or str(exc)) from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ReplayError(f"not a replay: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ReplayError(f"not a replay: a JSON {type(data).__name__}, not an object")
    if data.get("format") != FORMAT:
        raise ReplayError(f"not a replay: format {data.get('format')!r}, not {FORMAT!r}")
    return data


def decisions(replay: ReplaySource, seat: int) -> Iterator[Decision]:
    """Each decision of ``seat`` in ``replay``, in the order the seat was asked.

    The replay is checked whole first (re-run from its seed when it has one, which also checks
    that it deals what the seed deals), so a :class:`ReplayError` comes before the first
    decision: not a replay, an unknown game, no such seat, an altered record."""
    data = _checked(replay, seat)
    return (item for item in _walk(data, seat) if isinstance(item, Decision))


def reask(replay: ReplaySource, seat: int, bot: Bot, *, debug_step: int | None = None) -> Iterator[Reasked]:
    """Ask ``bot`` at each decision of ``seat`` in ``replay`` (see the module docstring); a
    :class:`ReplayError` before the first as for :func:`decisions`, a :class:`ValueError` for
    a bot that cannot be played (:func:`~cardarena_sdk.bot.check_bot`).

    ``debug_step``: call ``breakpoint()`` right before ``choose`` is called at that step (the
    debugger stops on the call: ``s`` steps into ``choose``)."""
    check_bot(bot)
    data = _checked(replay, seat)
    return _reask(data, bot, seat, debug_step)


def _checked(source: ReplaySource, seat: int) -> dict[str, Any]:
    data = load(source)
    try:
        game = get_game(str(data.get("game")))
    except GameError as exc:
        raise ReplayError(str(exc)) from None
    try:
        players = int(data.get("players") or len(data["seats"]))
    except (KeyError, TypeError, ValueError):
        raise ReplayError("not a replay: no number of players (players, seats)") from None
    if not 0 <= seat < players:
        raise ReplayError(f"seat {seat} is not a seat of this {game.name} replay: its seats are 0 to {players - 1}")
    try:
        if data.get("seed") is None:
            rerun(data)
        else:
            rerun_from_seed(data)
    except GameError as exc:
        raise ReplayError(f"the replay does not re-run (altered, or of another version of the game): {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ReplayError(f"not a replay: malformed ({type(exc).__name__}: {exc})") from None
    return data


@dataclass(frozen=True)
class _Seen:
    """An action as the seat was told of it (``on_event``), right after it was applied."""

    played: RecordedAction
    forms: tuple[str, ...]


def _walk(replay: dict[str, Any], seat: int) -> Iterator[Decision | _Seen]:
    """The seat's decisions and what it was told of every action, in the order of a live
    match: a turn's decisions (every seat of a turn is asked before any answer is applied),
    then what it is told of each of the turn's actions."""
    told: list[_Seen] = []
    run = Rerun(
        replay,
        applied=lambda played: told.append(
            _Seen(played, tuple(public_forms(run.state, played.seat, played.action, [seat])))
        ),
    )
    requests = _requests(replay)
    times = Times.of(replay)
    for turn in run.turns():
        yield from told
        told.clear()
        for played in turn:
            if played.seat == seat:
                view, legal = seat_request(run.state.game, run.state, seat)
                clock = times.at(played.action_index) if times is not None else None
                yield _decision(played, view, legal, requests.get((seat, played.action_index), {}), clock)
    yield from told


def _decision(
    played: RecordedAction,
    view: dict[str, Any],
    legal: list[LegalAction],
    request: dict[str, Any],
    clock: tuple[int, int | None] | None,
) -> Decision:
    notes = played.notes
    fault = notes.get("fault")
    return Decision(
        step=played.step,
        deal=played.deal + 1,
        action_index=played.action_index,
        seat=played.seat,
        view=view,
        legal=legal,
        played=played.action,
        seq=request.get("seq"),
        fault=None if fault is None else str(fault),
        default=bool(notes.get("default")),
        forfeit=bool(notes.get("forfeit")),
        refused=int(request.get("count") or 0),
        refused_reason=str(request.get("reason") or ""),
        think_ms=None if clock is None else clock[0],
        bank_ms_left=None if clock is None else clock[1],
    )


def _requests(replay: Mapping[str, Any]) -> dict[tuple[int, int], dict[str, Any]]:
    """What the replay's ``faults`` and ``refused`` say of each request, by ``(seat,
    action_index)``: its ``seq``, and for refused answers their ``count`` and ``reason``."""
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for key in ("faults", "refused"):
        entries = replay.get(key)
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, Mapping):
                continue
            seat, index = _whole(entry.get("seat")), _whole(entry.get("action_index"))
            if seat is None or index is None:
                continue  # a fault without a request (a no-show, a resignation out of turn)
            found = out.setdefault((seat, index), {})
            seq = _whole(entry.get("seq"))
            if seq is not None:
                found["seq"] = seq
            if key == "refused":
                found["count"] = _whole(entry.get("count")) or 0
                found["reason"] = str(entry.get("reason") or "")
    return out


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _reask(replay: dict[str, Any], bot: Bot, seat: int, debug_step: int | None) -> Iterator[Reasked]:
    mid = str(replay.get("match_id") or "replay")  # the id the bot's hooks are given
    for item in _walk(replay, seat):
        if isinstance(item, _Seen):
            for form in item.forms:
                _hook(f"on_event (step {item.played.step})", mid, bot.on_event, mid, item.played.seat, form)
        elif not item.asked:
            yield Reasked(item)
        else:
            yield _ask(bot, item, debug=item.step == debug_step)
    result = replay.get("result")
    if isinstance(result, Mapping):
        scores = [float(x) for x in result["scores"]]
        ranks = [int(x) for x in replay.get("final_ranks") or result["ranks"]]
        forfeited = tuple(int(s) for s in replay.get("forfeited") or ())
        _hook("on_match_end", mid, bot.on_match_end, mid, "completed", scores, ranks)
        outcome = MatchResult(mid, "completed", (seat,), tuple(scores), tuple(ranks), forfeited)
        _hook("on_result", mid, bot.on_result, outcome)


def _ask(bot: Bot, decision: Decision, debug: bool = False) -> Reasked:
    """``choose`` at ``decision``: its answer and whether it is legal, or its traceback;
    ``debug``: in the debugger (``s`` steps into ``choose``)."""
    view, legal = decision.view, decision.legal
    try:
        if debug:
            breakpoint()  # cardarena replay --debug: type s to step into your bot's choose(view, legal)
        returned = bot.choose(view, legal)
    except Exception as exc:
        tb = exc.__traceback__
        lines = traceback.format_exception(type(exc), exc, tb.tb_next if tb is not None else None)
        return Reasked(decision, error="".join(lines).rstrip())
    answer = str(returned)  # as the client sends it
    illegal = ""
    if not (isinstance(returned, str) and any(a.id == returned for a in decision.legal)):
        illegal = not_an_id("choose", returned, decision.legal, f"step {decision.step}")
    return Reasked(decision, answer=answer, illegal=illegal)
