"""Shared test helpers."""

from __future__ import annotations

from collections.abc import Iterator

from cardarena.engine import Game, games


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
