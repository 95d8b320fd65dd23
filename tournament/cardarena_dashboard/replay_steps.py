"""Stepping through a recorded match with the engine, for the replay viewer.

A replay (``cardarena-replay/1``) is re-run one transition at a time: create the state, apply
each deal's opening chance outcome, then every action (and inline chance outcome) in order.
Step ``0`` is the state after the first deal's opening outcome; step ``n`` follows the
``n``-th recorded entry.  At each step the viewer renders ``state.view_json(seat)``.

Hidden cards: :func:`viewer_seats` decides which points of view a replay may be shown from.
Only a **finished** match (stored status ``done`` and a recorded result) may be shown from a
seat's point of view or with every card open; anything else is shown as a spectator only.
What a point of view is told of each action (the viewer's log, the move list) is
:func:`seen_action`, on the state right after the action, as the service tells the bots.
Nothing here does IO.
"""

from __future__ import annotations

import pickle
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import FunctionType, ModuleType
from typing import Any

from cardarena.engine import CHANCE, FORMAT, Game, GameError, State, get_game

OPEN = "all"
"""The point of view that shows every seat's private view (finished matches only)."""


class ReplayError(ValueError):
    """A stored replay the engine cannot step through (unknown game, corrupt record)."""


@dataclass(frozen=True)
class Step:
    """One position of a replay."""

    index: int
    """0 for the position after the first deal; n after the n-th recorded entry."""
    deal: int
    """Deal number (0-based) this step belongs to."""
    seat: int | None
    """The seat that acted to reach this step (``None`` for a chance outcome / the deal)."""
    action: str | None
    """The action id that led here (``None`` for the deal itself)."""
    annotations: dict[str, Any]
    """Extra keys the service stored with the action (faults, defaults)."""
    action_index: int | None = None
    """The player actions of the match before this one (the replay's ``action_index``, which
    its ``faults`` and ``think_ms`` go by); ``None`` for a chance outcome / the deal."""


def transitions(replay: Mapping[str, Any]) -> list[Step]:
    """Every transition of a replay in order; step ``i`` is the position after ``transitions[i]``."""
    out: list[Step] = []
    acted = 0
    deals = replay.get("deals")
    if not isinstance(deals, list):
        raise ReplayError("the replay has no list of deals")
    for number, deal in enumerate(deals):
        if not isinstance(deal, Mapping) or not isinstance(deal.get("actions", []), list):
            raise ReplayError(f"deal {number} is not a deal object")
        out.append(Step(len(out), number, None, None, {}))
        for entry in deal.get("actions") or []:
            if not isinstance(entry, Mapping):
                raise ReplayError(f"deal {number}: an action is not an object")
            if "chance" in entry:
                out.append(Step(len(out), number, None, None, {}))
                continue
            try:
                seat, action = int(entry["seat"]), str(entry["action"])
            except (KeyError, TypeError, ValueError) as exc:
                raise ReplayError(f"deal {number}: malformed action {dict(entry)!r}") from exc
            extra = {str(k): v for k, v in entry.items() if k not in ("seat", "action")}
            out.append(Step(len(out), number, seat, action, extra, acted))
            acted += 1
    if not out:
        raise ReplayError("the replay has no deals")
    return out


Change = tuple[int, str] | Mapping[str, Any]
"""What leads to a step: ``(seat, action)`` for an action, else the chance outcome applied."""


def _changes(replay: Mapping[str, Any]) -> list[Change]:
    """What leads to each step of a replay whose :func:`transitions` were read (so its deals
    and entries have the right shapes): a deal's opening outcome, an inline chance outcome or
    an action, in step order."""
    out: list[Change] = []
    for deal in replay["deals"]:
        out.append({k: v for k, v in deal.items() if k not in ("actions", "scores")})
        for entry in deal.get("actions") or []:
            out.append(entry["chance"] if "chance" in entry else (int(entry["seat"]), str(entry["action"])))
    return out


def _start(replay: Mapping[str, Any]) -> State:
    """The state before step 0 (nothing dealt yet)."""
    if replay.get("format") != FORMAT:
        raise ReplayError(f"not a {FORMAT} replay")
    try:
        game = get_game(str(replay["game"]))
        players = int(replay.get("players") or len(replay["seats"]))
        return game.new_state(players, replay.get("options") or {})
    except (GameError, KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"cannot start the replay: {exc}") from exc


def _transition(state: State, change: Change, index: int) -> None:
    """Apply the change that leads to step ``index``: the one place that advances a replay."""
    try:
        if isinstance(change, tuple):
            state.apply(*change)
        else:
            state.apply_chance(change)
    except (GameError, KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"the replay does not re-run at step {index}: {exc}") from exc


def _positions(replay: Mapping[str, Any], steps: list[Step]) -> Iterator[tuple[State, Step]]:
    """Re-run a replay from its start: each step with the state after it, in order (one state
    object, advanced in place between yields: read it before asking for the next).  ``steps``:
    the replay's :func:`transitions`."""
    state = _start(replay)
    for index, change in enumerate(_changes(replay)):
        _transition(state, change, index)
        yield state, steps[index]


def state_at(replay: Mapping[str, Any], index: int) -> tuple[State, Step, int]:
    """The state after step ``index`` (clamped into range), that step, and the last step index."""
    steps = transitions(replay)
    last = len(steps) - 1
    index = max(0, min(index, last))
    for state, step in _positions(replay, steps):
        if step.index == index:
            return state, step, last
    raise ReplayError(f"the replay ends before step {index}")  # transitions() counted every step


@dataclass(frozen=True)
class Move:
    """One step of a replay as a point of view is told it (the move list, the action log)."""

    index: int
    """The step (as :class:`Step`)."""
    deal: int
    """Deal number (0-based)."""
    seat: int | None
    """The seat that acted (``None`` for a deal or a chance outcome)."""
    text: str
    """The action as the point of view learnt it (:func:`seen_action`); ``new deal`` or
    ``chance`` for a chance outcome."""
    annotations: dict[str, Any]
    """Faults and defaults the service stored with the action (public)."""


HIDDEN = "(hidden)"
"""The text of an action a point of view is told nothing of (``public_action`` is ``None``)."""


def seen_action(state: State, pov: str, seat: int, action: str) -> str:
    """What the point of view ``pov`` is told of ``seat`` taking ``action``: the action itself
    from :data:`OPEN`, else ``state.public_action`` for the seat (``spectator``: no seat).
    ``state`` is the state right after the action, where the service evaluates it when it tells
    the bots (``public_forms``), so a rule that reads the state (Coup's ``show``) is the one the
    bots were given."""
    if pov == OPEN:
        return action
    viewer = None if pov == "spectator" else int(pov)
    return state.public_action(viewer, seat, action) or HIDDEN


def _opens_deal(steps: list[Step], step: Step) -> bool:
    """Whether ``step`` is a deal's first position (its opening chance outcome)."""
    return step.index == 0 or steps[step.index - 1].deal != step.deal


def _told(state: State, steps: list[Step], step: Step, pov: str) -> Move:
    """``step`` as ``pov`` is told it, on the state right after it."""
    if step.action is None or step.seat is None:
        text = "new deal" if _opens_deal(steps, step) else "chance"
    else:
        text = seen_action(state, pov, step.seat, step.action)
    return Move(step.index, step.deal, step.seat, text, step.annotations)


def moves(replay: Mapping[str, Any], pov: str, upto: int | None = None) -> list[Move]:
    """Every step of a replay (through step ``upto`` when given) as ``pov`` is told it: the
    whole move list, and the replay viewer's action log (its last entries)."""
    steps = transitions(replay)
    out: list[Move] = []
    for state, step in _positions(replay, steps):
        if upto is not None and step.index > upto:
            break
        out.append(_told(state, steps, step, pov))
    return out


def is_finished(status: str | None, replay: Mapping[str, Any] | None) -> bool:
    """Whether a match may be shown with hidden cards: stored as done with a recorded result,
    or stopped at its action limit (``aborted``: over, with no result, never played again)."""
    return status == "done" and replay is not None and (replay.get("result") is not None or bool(replay.get("aborted")))


def viewer_seats(players: int, finished: bool) -> list[str]:
    """Points of view allowed: ``spectator`` always; seats and :data:`OPEN` only when finished."""
    if not finished:
        return ["spectator"]
    return ["spectator", *(str(s) for s in range(players)), OPEN]


def views(state: State, pov: str, finished: bool) -> list[tuple[str, dict[str, Any]]]:
    """The view JSONs to render for a point of view: ``[(title, view), ...]``.

    ``spectator`` (and anything for an unfinished match): the public view only. A seat: that
    seat's view. :data:`OPEN`: the public view, then each seat's private view.
    """
    if not finished or pov == "spectator":
        return [("Spectator", state.view_json(None))]
    if pov == OPEN:
        table = state.view_json(None)
        out = [("Table", table)]
        for s in range(state.players):
            own = state.view_json(s)
            private = {k: v for k, v in own.items() if k != "seat" and table.get(k) != v}
            out.append((f"Seat {s} also sees", private))
        return out
    seat = int(pov)
    return [(f"Seat {seat}", state.view_json(seat))]


@dataclass(frozen=True)
class Situation:
    """What a viewer needs beside the view: whose turn it is and the deals scored so far."""

    to_act: tuple[int, ...]
    """Seats whose decision is awaited (empty at a chance node and once the match is over)."""
    chance: bool
    """The next transition is a chance outcome (a deal, a draw)."""
    over: bool
    """The match is over at this step."""
    deal_scores: list[list[float]]
    """Each deal's score per seat, for the deals finished at this step (none later: no spoiler
    beyond the step shown)."""


def situation(state: State) -> Situation:
    """Whose turn it is at ``state`` and the scores of the deals it has finished."""
    acting = state.to_act()
    scored = [[float(x) for x in r.scores] for r in state.deal_records() if r.scores is not None]
    return Situation(
        to_act=tuple(s for s in acting if s != CHANCE),
        chance=CHANCE in acting,
        over=not acting,
        deal_scores=scored,
    )


@dataclass(frozen=True)
class Position:
    """One step of a replay as the replay viewer shows it from a point of view."""

    step: Step
    last: int
    """The last step's index."""
    deal_start: bool
    """The step is a deal's first position (its opening chance outcome)."""
    views: list[tuple[str, dict[str, Any]]]
    """What to render (:func:`views`)."""
    situation: Situation
    log: list[Move]
    """Every step through this one, as the point of view was told it (:func:`moves`)."""


def _position(
    steps: list[Step], step: Step, state: State, shown: list[tuple[str, dict[str, Any]]], log: list[Move]
) -> Position:
    """The :class:`Position` of ``step``, reached in ``state`` (``shown``: its views)."""
    return Position(
        step=step,
        last=len(steps) - 1,
        deal_start=_opens_deal(steps, step),
        views=shown,
        situation=situation(state),
        log=log,
    )


def position(replay: Mapping[str, Any], index: int, pov: str, *, log: int | None = None) -> Position:
    """Step ``index`` (clamped into range) of a finished match's replay from ``pov``: its
    views, whose turn it is and the log up to it (its last ``log`` entries; all: ``None``),
    from **one** re-run of the replay up to that step."""
    steps = transitions(replay)
    index = max(0, min(index, len(steps) - 1))
    low = 0 if log is None else index - log + 1
    told: list[Move] = []
    for state, step in _positions(replay, steps):
        if step.index >= low:
            told.append(_told(state, steps, step, pov))
        if step.index == index:
            return _position(steps, step, state, views(state, pov, True), told)
    raise ReplayError(f"the replay ends before step {index}")  # transitions() counted every step


CHECKPOINT_EVERY = 16
"""A :class:`Walk` keeps a copy of the engine state every this many steps."""


class Walk:
    """One replay stepped through many times (the replay viewer's cache entry): the same
    answers as :func:`position` and :func:`moves`, at a cost that does not grow with the step.

    It keeps a copy of the engine state every ``every`` steps (checkpoints, made as runs pass
    them), the state of the last step asked for (the cursor: the next step forward is one
    transition) and, per point of view, what it was told of each step so far (:class:`Move`).
    A step is reached from the cursor or the nearest checkpoint at or before it, so a request
    costs at most ``every`` transitions plus the action log's steps that point of view was not
    told yet; after the first run through, stepping forward costs one transition.

    Hidden information: the states hold every card, but nothing is shown from them except what
    :func:`views` and :func:`seen_action` give the point of view asked for, computed on each
    call (views) or kept under that point of view (moves).  The caller checks the point of view
    is allowed, as for :func:`position`.  Thread-safe: one lock per walk (requests for the
    same replay take turns).  :attr:`size` estimates the bytes it holds (:func:`footprint`)."""

    def __init__(self, replay: Mapping[str, Any], every: int = CHECKPOINT_EVERY) -> None:
        self.replay = replay
        self.steps = transitions(replay)
        self._changes = _changes(replay)
        self._every = max(1, every)
        self._checkpoints: dict[int, State] = {}
        self._cursor: tuple[int, State] | None = None
        self._told: dict[str, list[Move | None]] = {}
        self._lock = threading.Lock()
        sample = min(len(self.steps), 16)  # steps and changes are alike: estimated from a few
        per_step = footprint((self.steps[:sample], self._changes[:sample])) / sample
        self.size = footprint(replay) + int(per_step * len(self.steps))
        """Estimated bytes held: the replay and its steps (:func:`footprint`), the checkpoints
        (:func:`state_bytes`) and the moves told; the cursor (one more state) is not counted."""

    def position(self, index: int, pov: str, *, log: int | None = None) -> Position:
        """:func:`position`."""
        with self._lock:
            index = max(0, min(index, len(self.steps) - 1))
            told = self._told_to(pov)
            low = 0 if log is None else max(0, index - log + 1)
            start = next((i for i in range(low, index + 1) if told[i] is None), index)
            state = self._reach(start, index, pov, told)
            shown = detached(views(state, pov, True))
            log_shown = [m for m in told[low : index + 1] if m is not None]
            return _position(self.steps, self.steps[index], state, shown, log_shown)

    def moves(self, pov: str) -> list[Move]:
        """:func:`moves` of the whole replay."""
        with self._lock:
            told = self._told_to(pov)
            first = next((i for i, m in enumerate(told) if m is None), None)
            if first is not None:
                self._reach(first, len(self.steps) - 1, pov, told)
            return [m for m in told if m is not None]

    def _told_to(self, pov: str) -> list[Move | None]:
        told = self._told.get(pov)
        if told is None:
            told = self._told[pov] = [None] * len(self.steps)
            self.size += footprint(told)
        return told

    def _reach(self, start: int, index: int, pov: str, told: list[Move | None]) -> State:
        """The state at step ``index`` (``start <= index``), reached from a position at or
        before ``start``, telling ``pov`` each step from ``start`` on not told yet.  It becomes
        the cursor: the caller reads it before the lock is released."""
        near = start - start % self._every
        while near >= 0 and near not in self._checkpoints:
            near -= self._every
        cursor, self._cursor = self._cursor, None  # none while it moves (a failed run leaves none)
        if cursor is not None and near <= cursor[0] <= start:
            at, state = cursor
        elif near >= 0:
            at, state = near, self._checkpoints[near].clone()
        else:
            at, state = -1, _start(self.replay)
        while True:
            if at >= start and told[at] is None:
                told[at] = move = _told(state, self.steps, self.steps[at], pov)
                self.size += footprint(move)
            if at == index:
                break
            at += 1
            _transition(state, self._changes[at], at)
            if at % self._every == 0 and at not in self._checkpoints:
                self._checkpoints[at] = kept = state.clone()
                self.size += state_bytes(kept)
        self._cursor = (index, state)
        return state


def detached(value: Any) -> Any:
    """A copy of a JSON-like value (dicts, lists and tuples copied, all else shared): a view
    read from a :class:`Walk`'s cursor must not change when the cursor moves on."""
    if isinstance(value, dict):
        return {k: detached(v) for k, v in value.items()}
    if isinstance(value, list):
        return [detached(v) for v in value]
    if isinstance(value, tuple):
        return tuple(detached(v) for v in value)
    return value


def state_bytes(state: State) -> int:
    """Estimated bytes held by an engine state: twice its pickled length (measured with
    ``tracemalloc`` over the registry's games: a clone holds 0.7 to 3.1 times its pickled
    length, 1.3 times for Glaves; a few kB).  Cheaper than :func:`footprint`, which counts
    the parts clones share (finished deals) in every clone."""
    try:
        return 2 * len(pickle.dumps(state))
    except (pickle.PicklingError, TypeError, AttributeError):
        return footprint(state)


def footprint(value: object) -> int:
    """Estimated bytes held by ``value``: ``sys.getsizeof`` of it and of everything it refers
    to (containers, attributes, slots; each object once), leaving out games, classes,
    functions and modules (shared by every state)."""
    seen: set[int] = set()
    total = 0
    todo = [value]
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, Game | type | ModuleType | FunctionType):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            todo.extend(item)
        elif not isinstance(item, str | bytes | int | float | bool):
            todo.extend(getattr(item, "__dict__", {}).values())
            for cls in type(item).__mro__:
                slots = getattr(cls, "__slots__", ())
                for slot in (slots,) if isinstance(slots, str) else slots:
                    if hasattr(item, slot):
                        todo.append(getattr(item, slot))
    return total
