"""The replay viewer's cache: recently viewed replays with their checkpoints (:class:`Walk`),
so that stepping through a match costs about the same at every step.

Without it every request re-runs the replay from step 0 up to the step shown (a reader stepping
through a 300-step match makes the server play about 45,000 transitions).  The cache keeps one
:class:`Walk` per match, least recently used first out, bounded by

* ``REPLAY_CACHE_MATCHES`` (env ``CARDARENA_REPLAY_CACHE_MATCHES``, default
  :data:`DEFAULT_MATCHES`): matches kept; ``0`` turns the cache off (every request re-runs the
  replay from its start, as :func:`replay_steps.position` does);
* ``REPLAY_CACHE_MB`` (env ``CARDARENA_REPLAY_CACHE_MB``, default :data:`DEFAULT_MB`): their
  estimated memory (:attr:`Walk.size`), checked after every request; a match whose walk alone
  outgrows it is not kept.

A replay is written once, so an entry is keyed by the match id and its ``finished_at`` (a
match stored again under the same id is a new entry).  It may be pruned later: the caller
checks the match record (read on every request anyway) and :meth:`ReplayCache.drop`s the entry
of a match that is not ``done`` or whose replay was pruned, before asking for it.

Thread-safe (the dashboard serves each request on its own thread: ``werkzeug``'s
``make_server(threaded=True)``): one lock for the table of entries, one per walk for its
engine state.  Each process has its own cache.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from .replay_steps import CHECKPOINT_EVERY, Move, Position, Walk, moves, position

DEFAULT_MATCHES = 64
"""Matches the cache keeps by default."""
DEFAULT_MB = 64
"""Estimated megabytes the cache holds at most by default (a 416-step three-player Glaves
match stepped through from every point of view: about 2 MB)."""
MATCHES_ENV = "CARDARENA_REPLAY_CACHE_MATCHES"
MB_ENV = "CARDARENA_REPLAY_CACHE_MB"


def setting(name: str, default: int, environ: Mapping[str, str] | None = None) -> int:
    """A whole number >= 0 from the environment (unset or empty: ``default``); ``ValueError``
    naming the setting otherwise."""
    raw = (os.environ if environ is None else environ).get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"{name} must be a whole number >= 0, not {raw!r}")
    return value


class ReplayCache:
    """Recently viewed replays (:class:`Walk`), at most ``matches`` of them and about
    ``max_bytes`` in all; ``matches=0``: none (each request re-runs its replay)."""

    def __init__(self, matches: int, max_bytes: int, every: int = CHECKPOINT_EVERY) -> None:
        self.matches = max(0, matches)
        self.max_bytes = max(0, max_bytes)
        self.every = every
        self._entries: OrderedDict[str, tuple[str, Walk, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ReplayCache:
        """The cache a Flask config asks for (``REPLAY_CACHE_MATCHES``, ``REPLAY_CACHE_MB``)."""
        return cls(int(config["REPLAY_CACHE_MATCHES"]), int(float(config["REPLAY_CACHE_MB"]) * 1024 * 1024))

    def replay(self, match_id: str, version: str) -> Mapping[str, Any] | None:
        """The replay kept for this match and version, or ``None``."""
        walk = self._get(match_id, version)
        return None if walk is None else walk.replay

    def position(
        self, match_id: str, version: str, replay: Mapping[str, Any], index: int, pov: str, *, log: int
    ) -> Position:
        """:func:`replay_steps.position` with the last ``log`` entries of the action log."""
        walk = self._walk(match_id, version, replay)
        if walk is None:
            return position(replay, index, pov, log=log)
        try:
            return walk.position(index, pov, log=log)
        finally:
            self._account(match_id, walk)

    def moves(self, match_id: str, version: str, replay: Mapping[str, Any], pov: str) -> list[Move]:
        """:func:`replay_steps.moves` of the whole replay."""
        walk = self._walk(match_id, version, replay)
        if walk is None:
            return moves(replay, pov)
        try:
            return walk.moves(pov)
        finally:
            self._account(match_id, walk)

    def drop(self, match_id: str) -> None:
        """Forget a match (its replay was pruned, or it is not finished)."""
        with self._lock:
            entry = self._entries.pop(match_id, None)
            if entry is not None:
                self._bytes -= entry[2]

    def stats(self) -> dict[str, int]:
        """``entries`` and estimated ``bytes`` held now."""
        with self._lock:
            return {"entries": len(self._entries), "bytes": self._bytes}

    def _get(self, match_id: str, version: str) -> Walk | None:
        with self._lock:
            entry = self._entries.get(match_id)
            if entry is None or entry[0] != version:
                return None
            self._entries.move_to_end(match_id)
            return entry[1]

    def _walk(self, match_id: str, version: str, replay: Mapping[str, Any]) -> Walk | None:
        """The kept walk of this replay, or a new one kept from now on (``None`` when the cache
        is off).  A replay the engine cannot read raises :class:`ReplayError` and is not kept."""
        if not self.matches:
            return None
        walk = self._get(match_id, version)
        if walk is not None:
            return walk
        made = Walk(replay, self.every)  # outside the lock: reads the whole replay
        with self._lock:
            entry = self._entries.get(match_id)
            if entry is not None and entry[0] == version:  # another request made it meanwhile
                return entry[1]
            if entry is not None:
                self._bytes -= entry[2]
            self._entries[match_id] = (version, made, 0)
        self._account(match_id, made)
        return made

    def _account(self, match_id: str, walk: Walk) -> None:
        """Note what ``walk`` holds now, then drop the least recently used entries (it too, if
        it alone is over the bound) until the cache is within its bounds."""
        with self._lock:
            entry = self._entries.get(match_id)
            if entry is None or entry[1] is not walk:  # dropped or replaced meanwhile
                return
            size = walk.size
            self._bytes += size - entry[2]
            self._entries[match_id] = (entry[0], walk, size)
            while self._entries and (len(self._entries) > self.matches or self._bytes > self.max_bytes):
                _, (_, _, held) = self._entries.popitem(last=False)
                self._bytes -= held
