"""The tournament page's cache of rendered crosstables.

A crosstable is stored once per standings snapshot, and its fragment on the page (a 24-bot
night: 552 cells, about 130 KB) is a function of what its ETag names (``pages._crosstable_etag``:
the counted results and the bots' order).  So each dashboard process renders a tournament's
matrix once per snapshot, however many readers open the page or poll a changed one, and keeps
the :data:`FRAGMENTS` most recently used ones (least recently used out; at most a few MB).

Thread-safe (one lock; the dashboard serves each request on its own thread).  Each process has
its own cache.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

FRAGMENTS = 32
"""Rendered crosstables kept (a 40-bot one is about 350 KB)."""


class CrosstableCache:
    """Rendered crosstable fragments by tournament and ETag (see the module docstring)."""

    def __init__(self, fragments: int = FRAGMENTS) -> None:
        self.fragments = max(0, fragments)
        self._entries: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._lock = threading.Lock()

    def fragment(self, tournament_id: str, etag: str, render: Callable[[], str]) -> str:
        """The fragment of ``tournament_id`` named by ``etag``: kept, or ``render()`` now (and kept)."""
        key = (tournament_id, etag)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        body = render()  # outside the lock: two readers of a new snapshot may both render it
        if self.fragments:
            with self._lock:
                self._entries[key] = body
                while len(self._entries) > self.fragments:
                    self._entries.popitem(last=False)
        return body

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
