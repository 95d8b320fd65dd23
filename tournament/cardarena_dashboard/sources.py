"""Where the dashboard reads from: the store modules on one Redis client, and nothing else.

The dashboard never talks to Redis itself; it holds a :class:`Sources` with the repositories
(:class:`~cardarena.store.matches.MatchStore` and, when their modules are installed, the
tournament and bot stores) and turns their records into plain dicts for pages and the API.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import redis
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchSpec, MatchStore
from cardarena.store.retention import pruned_note
from werkzeug.exceptions import NotFound


def _optional_store(module: str, name: str, client: redis.Redis) -> Any:
    """The store class ``name`` from ``cardarena.store.<module>`` on ``client``, or ``None``."""
    try:
        mod = importlib.import_module(f"cardarena.store.{module}")
    except ImportError:
        return None
    cls = getattr(mod, name, None)
    return cls(client) if cls is not None else None


@dataclass
class Sources:
    """The repositories the dashboard reads (and, through its admin API, writes)."""

    client: redis.Redis
    matches: MatchStore = field(init=False)
    tournaments: Any = field(init=False)
    """``TournamentStore`` or ``None`` while its module is absent."""
    bots: Any = field(init=False)
    """``BotStore`` or ``None`` while its module is absent."""
    presence: Any = field(init=False)
    """``PresenceStore`` (which bots are connected now) or ``None`` while its module is absent."""
    notifications: Any = field(init=False)
    """``NotificationStore`` (tournaments' webhook targets: admin API only) or ``None``."""
    indexed: bool = field(init=False, default=False)
    """Whether the match indexes are known to hold the matches stored before them."""

    def __post_init__(self) -> None:
        self.matches = MatchStore(self.client)
        self.tournaments = _optional_store("tournaments", "TournamentStore", self.client)
        self.bots = _optional_store("bots", "BotStore", self.client)
        self.presence = _optional_store("presence", "PresenceStore", self.client)
        self.notifications = _optional_store("notifications", "NotificationStore", self.client)

    def index_matches(self) -> int | None:
        """Make sure the matches stored before the match indexes existed (an earlier version)
        are indexed (``MatchStore.index_older``): once per Redis, then one check per process.
        Returns how many were indexed now (``None``: nothing to do)."""
        if self.indexed:
            return None
        done = self.matches.index_older()
        self.indexed = True
        return done

    @classmethod
    def from_url(cls, url: str) -> Sources:
        """Sources on a new client for ``url``."""
        return cls(client_for(url))


def _num(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None


def match_summary(sources: Sources, mid: str) -> dict[str, Any] | None:
    """A match as the list and the API show it, or ``None`` if unknown."""
    return summary_of(mid, sources.matches.info(mid))


def match_summaries(sources: Sources, mids: list[str]) -> list[dict[str, Any] | None]:
    """:func:`match_summary` of each id, in order, with one store read for all of them."""
    return [summary_of(mid, info) for mid, info in zip(mids, sources.matches.infos(mids), strict=True)]


def summary_of(mid: str, info: dict[str, str]) -> dict[str, Any] | None:
    """The summary of a match from its stored fields (``MatchStore.info``), or ``None``."""
    if not info or "spec" not in info:
        return None
    try:
        spec = MatchSpec.from_json(json.loads(info["spec"]))
    except (ValueError, KeyError, TypeError):
        return None
    result: dict[str, Any] | None = None
    if info.get("result"):
        try:
            result = json.loads(info["result"])
        except ValueError:
            result = None
    return {
        "id": mid,
        "game": spec.game,
        "players": spec.players,
        "seats": list(spec.seats),
        "tournament": spec.tournament,
        "status": info.get("status", "unknown"),
        "attempts": int(info.get("attempts") or 0),
        "created_at": _num(info.get("created_at")),
        "finished_at": _num(info.get("finished_at")),
        "result": result,
        "seat_versions": seat_versions(result, spec.players),
        # The retention policy dropped its replay (the replay endpoint answers 410): why, else None.
        "replay_pruned": pruned_note(info),
    }


def seat_versions(record: Any, players: int) -> list[str | None]:
    """Per seat, the version label its bot declared, from a result or replay (its
    ``seat_versions``): ``None`` for a seat without one, and for every seat of a record from
    before versions were recorded."""
    found = record.get("seat_versions") if isinstance(record, dict) else None
    if not isinstance(found, list) or len(found) != players:
        return [None] * players
    return [v if isinstance(v, str) else None for v in found]


@dataclass(frozen=True)
class MatchFilter:
    """Filters of the match list (each optional)."""

    game: str | None = None
    tournament: str | None = None
    bot: str | None = None

    def accepts(self, row: dict[str, Any]) -> bool:
        """Whether a match summary passes every filter."""
        return (
            (self.game is None or row["game"] == self.game)
            and (self.tournament is None or row["tournament"] == self.tournament)
            and (self.bot is None or self.bot in row["seats"])
        )

    @property
    def empty(self) -> bool:
        """Whether no filter is set."""
        return self.game is None and self.tournament is None and self.bot is None


class MatchPage(NamedTuple):
    """A page of a match list."""

    rows: list[dict[str, Any]]
    """Match summaries, in the list's order."""
    more: bool
    """Whether more follow."""


def list_matches(sources: Sources, flt: MatchFilter, offset: int, limit: int) -> MatchPage:
    """A page of match summaries, newest first, and whether more follow.

    Every list is read from where its matches are listed, however many others were stored
    after them, and a page reads ``limit + 1`` ids and the records of the page alone:
    unfiltered, ``matches:all``; by ``bot`` and/or ``game``, their index (``MatchStore.listed``,
    newest first); by a tournament, the tournament's own lists (``TournamentStore.match_ids``:
    most recently counted first, then the rest in play order), with ``bot`` its matches that
    seat the bot (from the schedule's seats) and with ``game`` all of them or, for a game the
    tournament does not play, none.  A tournament the store does not know is
    :class:`~werkzeug.exceptions.NotFound` (404) after one read of its record: no list names
    its matches, and no match record is read to look for them.
    """
    if flt.tournament is not None:
        stored = sources.tournaments.get(flt.tournament) if sources.tournaments is not None else None
        if not stored:
            raise NotFound(f"unknown tournament {flt.tournament[:60]!r}")
        if flt.game is not None and flt.game != stored.game:
            return MatchPage([], False)
        ids = sources.tournaments.match_ids(flt.tournament, offset, limit + 1, bot=flt.bot)
    else:
        if flt.bot is not None or flt.game is not None:
            sources.index_matches()
        ids = sources.matches.listed(offset, limit + 1, bot=flt.bot, game=flt.game)
    rows = [row for row in match_summaries(sources, ids[:limit]) if row is not None]
    return MatchPage(rows, len(ids) > limit)


def plain(value: Any) -> Any:
    """A store record as JSON-able data (``to_json()``, dataclasses, mappings, sequences)."""
    import dataclasses
    from enum import Enum

    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value  # decoded JSON (the common case): skip the probes below
    if kind is dict:
        return {str(k): plain(v) for k, v in value.items()}
    if kind is list:
        return [plain(v) for v in value]
    if hasattr(value, "to_json") and callable(value.to_json):
        return plain(value.to_json())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return plain(value.value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return value
