"""The bot page's cache of finished matches' results: of each, what the page reads of the
bot's 200 most recent matches for its head-to-head and by-version tables (``review``): game,
seats, seat versions, and the result's scores, places, strikes, forfeits and no-shows.

A match's result is written once, so once a match has one none of that changes: the cache
keeps it by match id, least recently used first out, at most :data:`MATCHES` matches (about
0.5 KB each).  A bot's page then reads the ids of its recent matches (one command), the
records of those it lists (20) and of matches it has not seen before, instead of 200 match
records on every view.  Matches without a result yet are read again each time.

Thread-safe (one lock; the dashboard serves each request on its own thread).  Each process has
its own cache.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from .sources import Sources, match_summaries

MATCHES = 20_000
"""Matches whose places the cache keeps (a hundred bots' head-to-head tables)."""


Kept = dict[str, Any]
"""What the cache keeps of a finished match: its row (``sources.summary_of``) cut to what the
bot page reads of it."""

RESULT_FIELDS = ("scores", "ranks", "strikes", "forfeited", "no_show", "aborted")
"""The result's fields the bot page reads (``review.bot_match_rows``, ``head_to_head``)."""


def _kept(row: Mapping[str, Any]) -> Kept | None:
    """A match row cut to its id, game, seats, seat versions and the result's places, scores,
    strikes and forfeits; ``None`` while it has no result."""
    result = row.get("result")
    if not isinstance(result, Mapping) or not isinstance(result.get("ranks"), list):
        return None
    return {
        "id": row.get("id"),
        "game": row.get("game"),
        "seats": list(row.get("seats") or ()),
        "seat_versions": row.get("seat_versions"),
        "result": {k: result[k] for k in RESULT_FIELDS if k in result},
    }


class ResultCache:
    """Finished matches' rows, cut to what the bot page reads, by id (see the module docstring)."""

    def __init__(self, matches: int = MATCHES) -> None:
        self.matches = max(0, matches)
        self._entries: OrderedDict[str, Kept] = OrderedDict()
        self._lock = threading.Lock()

    def rows(
        self, sources: Sources, ids: Sequence[str], known: Sequence[Mapping[str, Any]] = ()
    ) -> list[Mapping[str, Any]]:
        """A row (what ``review.bot_match_rows`` and ``head_to_head`` read) for each of
        ``ids`` that names a stored match, in order: from the cache, from ``known`` (match
        summaries read already) or read now, in one batch, for the rest."""
        given = {str(row["id"]): row for row in known}
        with self._lock:
            kept = {mid: found for mid in ids if (found := self._entries.get(mid)) is not None}
            for mid in kept:
                self._entries.move_to_end(mid)
        missing = [mid for mid in ids if mid not in kept and mid not in given]
        read = dict(zip(missing, match_summaries(sources, missing), strict=True))
        out: list[Mapping[str, Any]] = []
        new: dict[str, Kept] = {}
        for mid in ids:
            if mid in kept:
                out.append(kept[mid])
                continue
            row = given.get(mid) or read.get(mid)
            if row is None:
                continue
            out.append(row)
            if (cut := _kept(row)) is not None:
                new[mid] = cut
        self._keep(new)
        return out

    def _keep(self, new: Mapping[str, Kept]) -> None:
        if not new or not self.matches:
            return
        with self._lock:
            self._entries.update(new)
            while len(self._entries) > self.matches:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
