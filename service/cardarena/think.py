"""Think times: how long each seat took to answer, as the service records it in a replay.

The match runner measures, for every action a seat was asked for, the time from sending the
``ActionRequest`` to the answer that settled it (or the fault: a time-out, a disconnect, a
hand-back, the last of too many illegal answers, a resignation), and the seat's time bank left
after it.  The replay carries both as lists aligned with the match's player actions
(``think_ms``, ``bank_ms_left``: entry ``n`` is the action with ``action_index`` ``n``; ``null``
for an action nobody was asked for), and the recorded result a per-seat summary
(:func:`summary`).  Replays written before times were recorded, and local ones (no clock), have
neither: :meth:`Times.of` is ``None`` for them.  ``docs/replay-format.md`` has the format.

Pure functions of replays; no IO, no clock.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

THINK_KEY = "think_ms"
"""The replay's list of each action's time, in whole milliseconds."""
BANK_KEY = "bank_ms_left"
"""The replay's list of the acting seat's time bank left after each action, in milliseconds."""
TIMED_OUT = frozenset(("timeout", "disconnect"))
"""Faults of a clock that ran out (the seat's bank is then 0)."""


def _ms(value: Any) -> int | None:
    """A recorded time: a whole number of milliseconds >= 0, else ``None`` (unknown)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class Times:
    """The think times of a replay, by ``action_index`` (see the module docstring)."""

    def __init__(self, think_ms: Sequence[Any], bank_ms_left: Sequence[Any]) -> None:
        self.think_ms = think_ms
        self.bank_ms_left = bank_ms_left
        """As recorded: each entry is checked when it is read (:meth:`at`)."""

    @classmethod
    def of(cls, replay: Mapping[str, Any]) -> Times | None:
        """The times ``replay`` records, or ``None`` when it records none (a replay stored
        before they were, a local one, or a malformed record)."""
        think, bank = replay.get(THINK_KEY), replay.get(BANK_KEY)
        if not isinstance(think, list):
            return None
        return cls(think, bank if isinstance(bank, list) else ())

    def at(self, action_index: int) -> tuple[int, int | None] | None:
        """``(think_ms, bank_ms_left)`` of the action with that ``action_index``; ``None``
        when its seat was not asked for it (or the record has no time for it)."""
        if not 0 <= action_index < len(self.think_ms):
            return None
        think = _ms(self.think_ms[action_index])
        if think is None:
            return None
        return think, _ms(self.bank_ms_left[action_index]) if action_index < len(self.bank_ms_left) else None


def action_seats(replay: Mapping[str, Any]) -> list[int]:
    """The seat of each player action of a replay, in ``action_index`` order (chance outcomes
    left out)."""
    return [
        int(entry["seat"])
        for deal in replay.get("deals") or []
        for entry in deal.get("actions") or []
        if "chance" not in entry
    ]


def summary(replay: Mapping[str, Any]) -> list[dict[str, int | None]] | None:
    """Per seat, a summary of its think times (the recorded result's ``think``), or ``None``
    when the replay has none: ``asked`` (actions the seat was asked for), ``median_ms`` (the
    lower median) and ``max_ms`` of their times, ``slowest`` (the ``action_index`` of the first
    action that took ``max_ms``), ``timeouts`` (time-out and disconnect faults) and
    ``bank_ms_left`` (at the end of the match: after its last action asked for, else the time
    control's whole bank).  The times of the faults count like answers: a time-out is the
    slowest."""
    times = Times.of(replay)
    if times is None:
        return None
    players = int(replay.get("players") or len(replay.get("seats") or []))
    control = replay.get("time_control")
    bank = _ms(control.get("bank_ms")) if isinstance(control, Mapping) else None
    took: list[list[int]] = [[] for _ in range(players)]
    slowest: list[tuple[int, int] | None] = [None] * players
    left: list[int | None] = [bank] * players
    banks = times.bank_ms_left
    for index, (seat, ms) in enumerate(zip(action_seats(replay), times.think_ms, strict=False)):
        if _ms(ms) is None or not 0 <= seat < players:
            continue  # not asked (or not a time)
        took[seat].append(ms)
        first = slowest[seat]
        if first is None or ms > first[0]:
            slowest[seat] = (ms, index)
        if index < len(banks) and _ms(banks[index]) is not None:
            left[seat] = banks[index]
    timeouts = [0] * players
    for fault in replay.get("faults") or []:
        faulted = fault.get("seat") if isinstance(fault, Mapping) else None
        if isinstance(faulted, int) and 0 <= faulted < players and fault.get("fault") in TIMED_OUT:
            timeouts[faulted] += 1
    out: list[dict[str, int | None]] = []
    for seat in range(players):
        ms, first = took[seat], slowest[seat]
        out.append(
            {
                "asked": len(ms),
                "median_ms": statistics.median_low(ms) if ms else None,
                "max_ms": None if first is None else first[0],
                "slowest": None if first is None else first[1],
                "timeouts": timeouts[seat],
                "bank_ms_left": left[seat],
            }
        )
    return out


def seconds_text(ms: int) -> str:
    """Milliseconds for a reader: from a second on as seconds to a tenth (``4.8 s``, ``5 s``),
    below it as milliseconds (``30 ms``; a tenth of a second would round a 30 ms move clock or
    the last 40 ms of a bank to ``0 s``), none as ``0 s``."""
    if 0 < ms < 1000:
        return f"{ms} ms"
    return f"{ms / 1000:.1f}".removesuffix(".0") + " s"


def clock_text(think_ms: int, bank_ms_left: int | None, *, answered: bool, banked: bool) -> str:
    """One action's time as a reader sees it: ``answered in 183 ms (bank left 4.8 s)``;
    ``after 1003 ms`` for a fault (the server played a default action); the bank only for a
    time control that has one (``banked``)."""
    text = f"answered in {think_ms} ms" if answered else f"after {think_ms} ms"
    if banked and bank_ms_left is not None:
        text += f" (bank left {seconds_text(bank_ms_left)})"
    return text


def has_bank(replay: Mapping[str, Any]) -> bool:
    """Whether the match was played with a time bank (``time_control.bank_ms`` > 0)."""
    control = replay.get("time_control")
    return isinstance(control, Mapping) and bool(_ms(control.get("bank_ms")))
