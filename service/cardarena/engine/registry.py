"""The one registry of games: every module in :mod:`cardarena.games` that defines ``GAME``."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from .core import Game, InvalidOptions


@cache
def games() -> dict[str, Game]:
    """All registered games by id, in id order."""
    from .. import games as package

    found: dict[str, Game] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            if game.id in found:
                raise RuntimeError(f"two games claim the id {game.id!r}")
            found[game.id] = game
    return dict(sorted(found.items()))


def get_game(game_id: str) -> Game:
    """The game with this id; raises :class:`InvalidOptions` naming the known ids."""
    try:
        return games()[game_id]
    except KeyError:
        raise InvalidOptions(f"unknown game {game_id!r}; known: {', '.join(games())}") from None
