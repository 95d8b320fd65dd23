"""The one registry of games: every module in :mod:`cardarena.games` that defines ``GAME``,
and every game another installed distribution declares in the ``cardarena.games`` entry point
group (``<game id> = "<module>:<Game instance>"``).

Both are checked the same way when the registry is first read: the id is snake case and the
name it was registered under (the module's name, the entry point's name), the game has a
name and a summary, and no two games share an id.  A registration that breaks a rule stops
every command with an error naming where it came from, never a game left out in silence.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import cache
from importlib.metadata import EntryPoint, entry_points

from .core import Game, InvalidOptions

ENTRY_POINT_GROUP = "cardarena.games"
"""The entry point group through which other distributions register games."""

NOT_INSTALLED = "a game of another package is known once that package is installed here, beside cardarena"
"""Said with an unknown game id: a game from another distribution may exist but not be installed
in this process's environment (the service's, a worker's, the dashboard's, the bot's)."""

_GAME_ID = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


class GameRegistrationError(RuntimeError):
    """A game module or entry point that cannot be registered; the message says which and why."""


def check_registration(game: object, registered_as: str, source: str) -> Game:
    """``game`` if it may be registered under the name ``registered_as`` (a module's or an entry
    point's name), else :class:`GameRegistrationError` naming ``source`` and the rule broken."""
    if not isinstance(game, Game):
        raise GameRegistrationError(f"{source}: {game!r} is not a cardarena.engine.Game instance")
    game_id = getattr(game, "id", None)
    if not isinstance(game_id, str) or not _GAME_ID.fullmatch(game_id):
        raise GameRegistrationError(
            f"{source}: game id {game_id!r} is not snake case (lowercase letters and digits "
            "joined by single underscores, starting with a letter)"
        )
    if game_id != registered_as:
        raise GameRegistrationError(
            f"{source}: game id {game_id!r} must equal the name it is registered under, {registered_as!r}"
        )
    for attribute in ("name", "summary"):
        if not getattr(game, attribute, ""):
            raise GameRegistrationError(f"{source}: game {game_id!r} has no {attribute}")
    return game


def _builtin() -> list[tuple[Game, str]]:
    from .. import games as package

    found = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        name = f"{package.__name__}.{info.name}"
        game = getattr(importlib.import_module(name), "GAME", None)
        if game is not None:
            found.append((check_registration(game, info.name, f"module {name}"), f"module {name}"))
    return found


def _entry_point_source(point: EntryPoint) -> str:
    dist = getattr(point, "dist", None)
    where = f" of {dist.name}" if dist is not None else ""
    return f"entry point {point.name} = {point.value!r}{where} (group {ENTRY_POINT_GROUP})"


def _plugins() -> list[tuple[Game, str]]:
    found = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        source = _entry_point_source(point)
        try:
            game = point.load()
        except Exception as exc:
            raise GameRegistrationError(f"{source} does not load: {type(exc).__name__}: {exc}") from exc
        found.append((check_registration(game, point.name, source), source))
    return found


@cache
def games() -> dict[str, Game]:
    """All registered games by id, in id order: the built-in ones, then those of entry points."""
    found: dict[str, Game] = {}
    sources: dict[str, str] = {}
    for game, source in [*_builtin(), *_plugins()]:
        if game.id in found:
            if found[game.id] is game:  # one game reachable twice (an entry point to a built-in)
                continue
            raise GameRegistrationError(f"two games claim the id {game.id!r}: {sources[game.id]} and {source}")
        found[game.id], sources[game.id] = game, source
    return dict(sorted(found.items()))


def get_game(game_id: str) -> Game:
    """The game with this id; raises :class:`InvalidOptions` naming the known ids."""
    try:
        return games()[game_id]
    except KeyError:
        raise InvalidOptions(f"unknown game {game_id!r}; known: {', '.join(games())} ({NOT_INSTALLED})") from None
