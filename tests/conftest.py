"""Shared test helpers.

The whole session (and every process it starts) gets a private ``XDG_DATA_HOME``: the
commands' embedded default Redis, their log directories and beat's state go there, never
into the user's own data directory.  Set before any ``cardarena`` module computes its paths.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator

_data_home = tempfile.mkdtemp(prefix="cardarena-tests-xdg-")
os.environ["XDG_DATA_HOME"] = _data_home
atexit.register(shutil.rmtree, _data_home, ignore_errors=True)

from cardarena.engine import Game, games  # noqa: E402


def game_seatings() -> Iterator[tuple[str, int]]:
    """Every (game id, player count) the registry supports."""
    for game in games().values():
        for n in game.player_counts:
            yield game.id, n


def registered(game_id: str) -> Game:
    """A registered game by id."""
    return games()[game_id]


from .redis_server import key_prefix, redis_url  # noqa: E402
from .server_harness import stores  # noqa: E402

__all__ = ["game_seatings", "key_prefix", "redis_url", "registered", "stores"]
