"""The bot page's cache of finished matches' places: each match's seats and ranks, all that its
head-to-head table (``review.head_to_head``) reads of the bot's 200 most recent matches.

A match's result is written once, so once a match has one its seats and ranks never change:
the cache keeps them by match id, least recently used first out, at most :data:`MATCHES`
matches (about 0.3 KB each).  A bot's page then reads the ids of its recent matches (one
command), the records of those it lists (20) and of matches it has not seen before, instead
of 200 match records on every view.  Matches without a result yet are read again each time.

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


def _places(row: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[Any, ...]] | None:
    """A match row's seats and ranks, or ``None`` while it has no result."""
    result = row.get("result")
    if not isinstance(result, Mapping) or not isinstance(result.get("ranks"), list):
        return None
    return tuple(row.get("seats") or ()), tuple(result["ranks"])


class ResultCache:
    """Seats and ranks of finished matches by id (see the module docstring)."""

    def __init__(self, matches: int = MATCHES) -> None:
        self.matches = max(0, matches)
        self._entries: OrderedDict[str, tuple[tuple[str, ...], tuple[Any, ...]]] = OrderedDict()
        self._lock = threading.Lock()

    def rows(
        self, sources: Sources, ids: Sequence[str], known: Sequence[Mapping[str, Any]] = ()
    ) -> list[Mapping[str, Any]]:
        """A row (``seats``, ``result`` with ``ranks``: what ``head_to_head`` reads) for each of
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
        new: dict[str, tuple[tuple[str, ...], tuple[Any, ...]]] = {}
        for mid in ids:
            if mid in kept:
                seats, ranks = kept[mid]
                out.append({"id": mid, "seats": list(seats), "result": {"ranks": list(ranks)}})
                continue
            row = given.get(mid) or read.get(mid)
            if row is None:
                continue
            out.append(row)
            if (places := _places(row)) is not None:
                new[mid] = places
        self._keep(new)
        return out

    def _keep(self, new: Mapping[str, tuple[tuple[str, ...], tuple[Any, ...]]]) -> None:
        if not new or not self.matches:
            return
        with self._lock:
            self._entries.update(new)
            while len(self._entries) > self.matches:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
