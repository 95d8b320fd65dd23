"""A bot's review: how it did in each of its matches, against each opponent, and where a match's
faults happened.  Pure functions of match rows (``sources.summary_of``) and replays; no IO."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cardarena.engine import games, no_contest
from cardarena.think import Times, clock_text, has_bank

from .replay_steps import ReplayError, Step, transitions

FAULT_TEXT = {
    "timeout": "time-out: no answer within the move clock and the time bank",
    "disconnect": "disconnected: no session when the clock ran out",
    "illegal": "illegal answers: too many refused answers to one request",
    "error": "handed back: the bot's code failed (an exception)",
    "resign": "resigned",
    "no-show": "no-show: never joined the match",
    "forfeited": "seat forfeited earlier: played by the server",
}
"""What each fault of a replay (``faults``, an action's ``fault``) means, as the pages say it."""


@dataclass(frozen=True)
class Fault:
    """One fault of a match, where it happened."""

    seat: int
    bot: str
    fault: str
    step: int | None
    """The replay viewer's step of the default action played for it (``None``: no action, e.g.
    a no-show)."""
    deal: int | None
    """Its deal, 1-based (``None`` with ``step``)."""
    seq: int | None
    """The request's ``seq``, as the bot's SDK log names it (``None``: not recorded)."""
    forfeit: bool
    """This fault forfeited the seat."""
    count: int = 0
    """``refused``: how many illegal answers to the request were refused."""
    reason: str = ""
    """``refused``: why the first of them was (the engine's words, as the bot was told)."""

    @property
    def text(self) -> str:
        if self.fault == "refused":
            answers = "an illegal answer" if self.count == 1 else f"{self.count} illegal answers"
            return f"{answers} refused, not a strike (the bot could answer again while its clock ran)"
        return FAULT_TEXT.get(self.fault, self.fault)


Acted = list[tuple[int, int]]
"""The replay viewer's step and the deal (0-based) of each player action, by ``action_index``."""


def action_steps(replay: Mapping[str, Any]) -> Acted:
    """Where each player action of a replay is in the replay viewer (:data:`Acted`); raises
    :class:`ReplayError` for a replay whose deals cannot be read."""
    return [(step.index, step.deal) for step in transitions(replay) if step.action_index is not None]


def match_faults(replay: Mapping[str, Any], acted: Acted | None = None) -> list[Fault]:
    """Every fault of a replay (its ``faults`` list) in order, each with the step of the
    replay viewer that shows the default action played for it, then every request whose
    illegal answers were refused before the seat answered again (``refused``, fault
    ``"refused"``: not strikes), with the step of the action that followed.  Raises
    :class:`ReplayError` for a replay whose deals cannot be read.  ``acted``: the replay's
    :func:`action_steps`, when read already."""
    seats = [str(s) for s in replay.get("seats") or []]
    # The n-th action of the match (the service's action_index) is the n-th step that has a seat.
    acted = action_steps(replay) if acted is None else acted
    out = []
    faults = [*(replay.get("faults") or []), *({**r, "fault": "refused"} for r in replay.get("refused") or [])]
    for entry in faults:
        if not isinstance(entry, Mapping):
            raise ReplayError(f"a fault is not an object: {entry!r}")
        seat = _int(entry.get("seat"))
        at = _int(entry.get("action_index"))
        step, deal = acted[at] if at is not None and 0 <= at < len(acted) else (None, None)
        out.append(
            Fault(
                seat=-1 if seat is None else seat,
                bot=seats[seat] if seat is not None and 0 <= seat < len(seats) else "",
                fault=str(entry.get("fault", "")),
                step=step,
                deal=None if deal is None else deal + 1,
                seq=_int(entry.get("seq")),
                forfeit=bool(entry.get("forfeit")),
                count=_int(entry.get("count")) or 0,
                reason=str(entry.get("reason") or ""),
            )
        )
    return out


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class SeatThink:
    """One seat's think times in a match, as its page shows them (from the recorded result's
    ``think``: ``cardarena.think.summary``)."""

    seat: int
    bot: str
    asked: int
    """Actions the seat was asked for (answered, or a fault after its request)."""
    median_ms: int | None
    max_ms: int | None
    slowest_step: int | None
    """The replay viewer's step of its slowest action (``None``: none, or not in the replay)."""
    timeouts: int
    bank_ms_left: int | None
    """Its time bank at the end of the match."""


def match_think(result: Any, seats: Sequence[str], acted: Acted | None) -> list[SeatThink]:
    """Each seat's think times from a match's recorded ``result`` (``think``), ``seats`` naming
    the bots, the slowest action placed in the replay (``acted``: its :func:`action_steps`;
    ``None`` when there is no replay, pruned: no step then); an empty list when the result
    records no times (a match recorded before they were)."""
    think = result.get("think") if isinstance(result, Mapping) else None
    if not isinstance(think, list):
        return []
    acted = acted or []
    out = []
    for seat, entry in enumerate(think):
        if not isinstance(entry, Mapping):
            continue
        slowest = _int(entry.get("slowest"))
        out.append(
            SeatThink(
                seat=seat,
                bot=str(seats[seat]) if seat < len(seats) else "",
                asked=_int(entry.get("asked")) or 0,
                median_ms=_int(entry.get("median_ms")),
                max_ms=_int(entry.get("max_ms")),
                slowest_step=acted[slowest][0] if slowest is not None and 0 <= slowest < len(acted) else None,
                timeouts=_int(entry.get("timeouts")) or 0,
                bank_ms_left=_int(entry.get("bank_ms_left")),
            )
        )
    return out


def step_think(replay: Mapping[str, Any], step: Step) -> str | None:
    """The time the step's seat took for its action, as the replay viewer's action line says
    it (``answered in 183 ms (bank left 4.8 s)``); ``None`` for a chance step, an action its
    seat was not asked for, or a replay without times."""
    if step.action_index is None or (times := Times.of(replay)) is None:
        return None
    found = times.at(step.action_index)
    if found is None:
        return None
    return clock_text(*found, answered="fault" not in step.annotations, banked=has_bank(replay))


def no_show_seats(replay: Mapping[str, Any]) -> set[int]:
    """The seats whose bot never joined the match (its ``faults`` of kind ``no-show``)."""
    faults = replay.get("faults") or ()
    return {int(f["seat"]) for f in faults if isinstance(f, Mapping) and f.get("fault") == "no-show"}


def final_ranks(replay: Mapping[str, Any]) -> list[Any]:
    """Each seat's place as the match was recorded: the replay's ``final_ranks`` (forfeiting
    seats last, as the standings count them), or for a replay without them the engine's
    ``result.ranks``; empty when it has neither."""
    final = replay.get("final_ranks")
    if isinstance(final, list) and len(final) == len(replay.get("seats") or ()):
        return final
    result = replay.get("result")
    return list(result.get("ranks") or []) if isinstance(result, Mapping) else []


def _lower_is_better(game: str) -> bool:
    found = games().get(game)
    return found is not None and not found.higher_is_better


def bot_match_rows(matches: Sequence[Mapping[str, Any]], name: str) -> list[dict[str, Any]]:
    """Each match row as the bot's page lists it: the row plus ``mine`` (``None`` until the
    match has a result) with the bot's ``seat``, ``place`` (1 = first) ``of`` places, its
    ``score``, ``margin`` (its score minus the best other seat's, positive when ahead, in the
    game's direction), ``strikes``, ``forfeited``, ``no_show`` (it never joined),
    ``no_contest`` (no bot joined, or ``aborted``: stopped at its action limit; the match ranks
    nobody), ``aborted`` (why it was stopped, ``""`` if it was not), ``version`` (the label its seat played
    under, ``None`` for none) and ``think`` (the seat's think-time summary from the result,
    ``median_ms``, ``max_ms``, ...; ``None`` when it has none)."""
    out = []
    for row in matches:
        out.append({**row, "mine": _mine(row, name)})
    return out


def _mine(row: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    result = row.get("result")
    seats = list(row.get("seats") or [])
    if not isinstance(result, Mapping) or name not in seats:
        return None
    scores, ranks = list(result.get("scores") or []), list(result.get("ranks") or [])
    strikes, forfeited = list(result.get("strikes") or []), list(result.get("forfeited") or [])
    absent = list(result.get("no_show") or [])
    if len(scores) != len(seats) or len(ranks) != len(seats):
        return None
    mine = [s for s, bot in enumerate(seats) if bot == name]
    seat = min(mine, key=lambda s: ranks[s])
    others = [scores[s] for s in range(len(seats)) if s not in mine]
    sign = -1 if _lower_is_better(str(row.get("game", ""))) else 1
    best = (min(others) if sign < 0 else max(others)) if others else None
    versions = list(row.get("seat_versions") or [])
    think = result.get("think")
    timed = think[seat] if isinstance(think, list) and seat < len(think) else None
    return {
        "seat": seat,
        "place": ranks[seat],
        "of": len(seats),
        "score": scores[seat],
        "margin": None if best is None else sign * (scores[seat] - best),
        "strikes": sum(strikes[s] for s in mine if s < len(strikes)),
        "forfeited": any(s in forfeited for s in mine),
        "no_show": any(s in absent for s in mine),
        "no_contest": no_contest(len(seats), absent, result.get("aborted")),
        "aborted": str(result.get("aborted") or ""),
        "version": versions[seat] if seat < len(versions) else None,
        # The seat's think times (the result's ``think``), None for a match recorded without them.
        "think": timed if isinstance(timed, Mapping) and timed.get("asked") else None,
    }


def by_version(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The bot's results grouped by the version it played under, over rows of
    :func:`bot_match_rows` (newest first; those without a result, and no contests, are left
    out): ``version``
    (``None``: none declared), ``matches``, ``first_places``, ``mean_place``, ``mean_margin``
    (over the matches with a margin; ``None`` without one) and ``forfeits``; the version
    played most recently first."""
    played: dict[str | None, list[Mapping[str, Any]]] = {}
    for row in rows:
        mine = row.get("mine")
        if mine and not mine["no_contest"]:
            played.setdefault(mine["version"], []).append(mine)
    out = []
    for version, mine_all in played.items():
        margins = [m["margin"] for m in mine_all if m["margin"] is not None]
        out.append(
            {
                "version": version,
                "matches": len(mine_all),
                "first_places": sum(m["place"] == 1 for m in mine_all),
                "mean_place": sum(m["place"] for m in mine_all) / len(mine_all),
                "mean_margin": sum(margins) / len(margins) if margins else None,
                "forfeits": sum(bool(m["forfeited"]) for m in mine_all),
            }
        )
    return out


def head_to_head(matches: Sequence[Mapping[str, Any]], name: str) -> list[dict[str, Any]]:
    """The bot against each opponent over ``matches`` (those with a result that seat both, but
    for no contests):
    ``opponent``, ``matches``, ``ahead`` (the bot placed better), ``behind``, ``level``; most
    met first, then by name."""
    table: dict[str, dict[str, Any]] = {}
    for row in matches:
        result, seats = row.get("result"), list(row.get("seats") or [])
        if not isinstance(result, Mapping) or name not in seats:
            continue
        ranks = list(result.get("ranks") or [])
        if len(ranks) != len(seats) or no_contest(len(seats), result.get("no_show") or (), result.get("aborted")):
            continue
        mine = min(ranks[s] for s, bot in enumerate(seats) if bot == name)
        for opponent in sorted({bot for bot in seats if bot != name}):
            theirs = min(ranks[s] for s, bot in enumerate(seats) if bot == opponent)
            line = table.setdefault(opponent, {"opponent": opponent, "matches": 0, "ahead": 0, "behind": 0, "level": 0})
            line["matches"] += 1
            line["ahead" if mine < theirs else "behind" if mine > theirs else "level"] += 1
    return sorted(table.values(), key=lambda line: (-line["matches"], line["opponent"]))
