"""Standings rows as organisers take them away: ``tournament standings --json``/``--csv``,
``tournament run --json`` and the REST API's standings (JSON and CSV).  Pure: no IO but the
text stream handed in.

**Win/draw/loss** is defined for two-player games only (and won/lost games for solitaires);
a game of three or more players has a place distribution (``places``) instead, so its rows
carry no ``wins``/``draws``/``losses`` at all (rather than zeros)."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from typing import IO, Any

from .standings import FAULT_FIELDS, finite_row, row_absent

RECORDS: dict[int, tuple[str, ...]] = {1: ("wins", "losses"), 2: ("wins", "draws", "losses")}
"""The win/draw/loss fields a tournament of that many players reports (none for 3 or more)."""
ALL_RECORD_FIELDS = ("wins", "draws", "losses")


def record_fields(players: int) -> tuple[str, ...]:
    """``wins``/``draws``/``losses`` (two players), ``wins``/``losses`` (solitaires), else none."""
    return RECORDS.get(players, ())


def export_rows(
    rows: Iterable[Mapping[str, Any]], players: int, faults: Mapping[str, Mapping[str, int]] | None = None
) -> list[dict[str, Any]]:
    """Standings snapshot ``rows`` without the win/draw/loss fields ``players`` does not
    define (a snapshot holds zeros there) and, given ``faults`` (``standings.fault_totals``),
    with each bot's ``strikes``, ``forfeits`` and ``no_shows`` in the tournament (0 for a count
    that totals stored by an earlier version lack); with ``absent`` (``standings.row_absent``)
    and ``null`` for a value a bot with nothing counted lacks (``NaN`` in a snapshot stored by
    an earlier version: not JSON)."""
    dropped = set(ALL_RECORD_FIELDS) - set(record_fields(players))
    out = []
    for row in rows:
        kept = finite_row({k: v for k, v in row.items() if k not in dropped})
        if faults is not None:
            found = faults.get(row["bot"], {})
            kept.update({f: int(found.get(f, 0)) for f in FAULT_FIELDS})
        kept["absent"] = row_absent(kept)
        out.append(kept)
    return out


CSV_COLUMNS = (
    "rank",
    "bot",
    "mean",
    "ci_low",
    "ci_high",
    "separated_from_next",
    "matches",
    "deal_sets",
    "points",
    "win_share",
    "win_rate",
    "mean_score",
)
"""The columns of the standings CSV after the tournament's and before the rest."""


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet cell starts with to be read as a formula (or its start)."""


def _cell(value: Any) -> Any:
    """A CSV cell: empty for an unknown value, ``true``/``false`` for a boolean (as in JSON), and
    text that a spreadsheet would run as a formula (a bot named ``=HYPERLINK(...)``) behind a
    ``'``, which shows it as text (numbers are left as they are)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _ordinal(rating: Any) -> Any:
    """A rating cell: the OpenSkill ordinal of a stored rating (``{"ordinal": ...}``) or the
    number itself; empty when there is none."""
    if isinstance(rating, Mapping):
        rating = rating.get("ordinal")
    return "" if rating is None else rating


def csv_header(players: int) -> list[str]:
    """The header row of the standings CSV of a ``players``-player tournament."""
    places = [f"place_{p}" for p in range(1, players + 1)]
    return [
        "tournament",
        "game",
        "players",
        *CSV_COLUMNS,
        *record_fields(players),
        *places,
        "rating",
        *FAULT_FIELDS,
        "absent",
    ]


def write_standings_csv(
    tournament: str, game: str, players: int, rows: Iterable[Mapping[str, Any]], out: IO[str], *, header: bool = True
) -> None:
    """:func:`export_rows` as CSV, one row per bot: ``tournament``, ``game``, ``players``, the
    :data:`CSV_COLUMNS`, ``wins``/``draws``/``losses`` (two players; ``wins``/``losses`` for
    solitaires; none for more players), ``place_1`` .. ``place_<players>`` (how often it
    finished there), ``rating`` (OpenSkill ordinal; empty for solitaires), its ``strikes``,
    ``forfeits`` and ``no_shows`` (matches it never joined) in this tournament and ``absent``
    (``true`` for a bot that joined none of its matches: ``standings.row_absent``)."""
    record = record_fields(players)
    writer = csv.writer(out, lineterminator="\n")
    if header:  # without: more rows under the header of an earlier call (a schedule's runs)
        writer.writerow(csv_header(players))
    for row in rows:
        places = row.get("places") or {}
        writer.writerow(
            [
                _cell(tournament),
                _cell(game),
                players,
                *(_cell(row.get(c)) for c in (*CSV_COLUMNS, *record)),
                *(places.get(str(p), 0) for p in range(1, players + 1)),
                _ordinal(row.get("rating")),
                *(row.get(f, 0) for f in FAULT_FIELDS),
                _cell(row.get("absent")),
            ]
        )
