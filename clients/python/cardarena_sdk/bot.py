"""The :class:`Bot` base class and the built-in bots (``random``, ``heuristic``)."""

from __future__ import annotations

import importlib
import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

from cardarena.engine import ActionInfo

LegalAction = ActionInfo
"""A legal action: ``id`` (answer with it), ``kind``, ``label``, ``cards``, ``amount``,
``target``, ``choice``."""


class Bot:
    """Override :meth:`choose`.  ``games`` (empty: all) and ``max_matches`` go into Hello."""

    name: str = ""
    """The registered bot name (empty: taken from the token)."""
    games: tuple[str, ...] = ()
    """Game ids this bot plays (empty: every game)."""
    max_matches: int = 4
    """Matches played at once."""

    def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
        """Return the ``id`` of one of ``legal`` for the seat whose ``view`` is given."""
        raise NotImplementedError

    def on_event(self, match_id: str, seat: int, action: str) -> None:
        """Called for every public action of a match (optional)."""

    def on_match_end(self, match_id: str, status: str, scores: list[float], ranks: list[int]) -> None:
        """Called when a match ends (optional)."""


class RandomBot(Bot):
    """Plays a uniformly random legal action."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
        return self.rng.choice(legal).id


class HeuristicBot(Bot):
    """Dispatches on ``view["game"]`` to ``cardarena_sdk.strategies.<game>.choose``; random
    for games without a strategy."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)
        self._strategies: dict[str, Any] = {}

    def _strategy(self, game: str) -> Any:
        if game not in self._strategies:
            try:
                module = importlib.import_module(f"cardarena_sdk.strategies.{game}")
                self._strategies[game] = getattr(module, "choose", None)
            except ImportError:
                self._strategies[game] = None
        return self._strategies[game]

    def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
        ids = [a.id for a in legal]
        strategy = self._strategy(str(view.get("game", "")))
        if strategy is not None:
            choice = strategy(view, ids, self.rng)
            if choice in ids:
                return str(choice)
        return self.rng.choice(ids)


BUILTIN = {"random": RandomBot, "heuristic": HeuristicBot}
"""The built-in bots by name."""


def builtin_bot(name: str, seed: int | str | None = None) -> Bot:
    """A built-in bot by name (``random``, ``heuristic``)."""
    try:
        return BUILTIN[name](seed)
    except KeyError:
        raise ValueError(f"unknown built-in bot {name!r}; known: {', '.join(BUILTIN)}") from None


def load_bot(spec: str, seed: int | str | None = None) -> Bot:
    """A built-in bot name, or a path to a ``.py`` file defining one :class:`Bot` subclass."""
    if spec in BUILTIN:
        return builtin_bot(spec, seed)
    path = Path(spec)
    if path.suffix != ".py" or not path.is_file():
        raise ValueError(f"{spec!r} is neither a built-in bot ({', '.join(BUILTIN)}) nor a .py file")
    module_name = f"cardarena_user_bot_{abs(hash(path.resolve()))}"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise ValueError(f"cannot load {spec!r}")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    loader_spec.loader.exec_module(module)
    found = [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, Bot) and v not in (Bot, RandomBot, HeuristicBot)
    ]
    if len(found) != 1:
        raise ValueError(f"{spec!r} must define exactly one Bot subclass, found {len(found)}")
    bot: Bot = found[0]()
    return bot
