"""The :class:`Bot` base class and the built-in bots (``random``, ``heuristic``)."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import logging
import random
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardarena.engine import ActionInfo, games
from cardarena.engine.registry import NOT_INSTALLED
from cardarena.wire.codec import version_problem

LegalAction = ActionInfo
"""A legal action: ``id`` (answer with it), ``kind``, ``label``, ``cards``, ``amount``,
``target``, ``choice``."""


@dataclass(frozen=True)
class MatchResult:
    """How a match ended for this bot: what :meth:`Bot.on_result` is given.

    ``scores`` and ``ranks`` are per seat in table order (as in :meth:`Bot.on_match_end`);
    ``seats`` says which of them were this bot's, and :attr:`place` its place."""

    match_id: str
    status: str
    """``completed`` (the result is recorded), ``voided`` (nothing counts; played again) or
    ``aborted`` (stopped at the match's action limit, a game or bots that loop: a no contest,
    which counts for nobody and is not played again; :attr:`reason` says why)."""
    seats: tuple[int, ...] = ()
    """The seats this bot held in the match (usually one; a bot seated twice holds two)."""
    scores: tuple[float, ...] = ()
    """Final score per seat (empty unless completed)."""
    ranks: tuple[int, ...] = ()
    """Place per seat, 1 = first, tied seats share a place; forfeiting seats rank last (empty
    unless completed)."""
    forfeited: tuple[int, ...] = ()
    """The seats that forfeited (faults), this bot's or not."""
    reason: str = ""
    """Why the match was voided or aborted (``action_limit: ...``; empty when completed)."""

    @property
    def place(self) -> int | None:
        """This bot's place, 1 = first (its best one if it held several seats); ``None`` when
        the match was voided or aborted.  ``place == 1`` is "I came first" (possibly tied)."""
        mine = [self.ranks[s] for s in self.seats if 0 <= s < len(self.ranks)]
        return min(mine) if self.status == "completed" and mine else None


class Bot:
    """Override :meth:`choose`.  ``games`` (empty: all), ``max_matches`` and ``version`` go
    into Hello."""

    name: str = ""
    """The registered bot name (empty: taken from the token)."""
    games: tuple[str, ...] = ()
    """Game ids this bot plays (empty: every game).  The service seats the bot only in matches
    of these games (a tournament of another game records it as a no-show); the client logs
    them when it connects (``playing: ...``)."""
    max_matches: int = 4
    """Matches played at once."""
    version: str = ""
    """This code's version label, your choice (``"v3"``, a date, a git hash; at most 64
    printable characters): the service records it for each seat the bot plays, so its results
    can be told apart by version (the dashboard's bot page groups them).  Empty: none, except
    for a bot loaded from a file (:func:`load_bot`, ``cardarena bot run bot.py``), which then
    gets :func:`file_version` of its file.  ``cardarena bot run --version LABEL`` overrides it."""

    def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
        """Return the ``id`` of one of ``legal`` for the seat whose ``view`` is given.

        An exception here (or in :meth:`on_rejected`) is logged with its traceback and the
        request is handed back: the server plays its default action for it at once and records
        the fault ``error``, a strike like a time-out (``max_strikes`` of them forfeit the seat).
        Local play (:func:`cardarena_sdk.local.play`) does the same."""
        raise NotImplementedError

    def on_rejected(self, view: dict[str, Any], legal: list[LegalAction], rejected: str, reason: str) -> str:
        """The server rejected ``rejected`` (the answer given for this ``view``) as illegal,
        saying ``reason``; return another answer while the clock runs.

        The default calls :meth:`choose` again.  After ``max_rejections`` illegal answers to
        one request (10 by default) the server plays a default action and records the fault
        ``illegal``.
        """
        return self.choose(view, legal)

    def on_event(self, match_id: str, seat: int, action: str) -> None:
        """Called for every action of a match, in the form this bot's seat may see it
        (``""`` when it sees nothing of it) (optional).

        An exception here is logged with its traceback and play goes on."""

    def on_match_end(self, match_id: str, status: str, scores: list[float], ranks: list[int]) -> None:
        """Called when a match ends (``status`` ``completed``; ``voided``: to be replayed; or
        ``aborted``: stopped at its action limit, a no contest), with the score and place of
        each seat in table order (empty unless completed) (optional).  It does not say which
        seat was this bot's: :meth:`on_result`, called right after it, does.

        An exception here is logged with its traceback and play goes on."""

    def on_result(self, result: MatchResult) -> None:
        """Called when a match ends, after :meth:`on_match_end`, with how it ended for this bot
        (optional): ``result.place`` (1 = first; ``None`` if voided or aborted), ``result.seats``
        (the seats it held), the scores and ranks of every seat, and why a match was voided or
        aborted.

        An exception here is logged with its traceback and play goes on."""


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
    """A built-in bot name, or a path to a ``.py`` file defining a :class:`Bot` subclass.

    The file's bot is the one subclass defined in it, or, when it defines several, the single
    most-derived one whose bases the others are (``class B(A)`` with ``A`` a Bot subclass of
    the file gives ``B``).  Raises :class:`ValueError` (``"<spec>: <reason>"``) when the spec
    names no bot: an unknown name, a missing file, a file that fails to import (its error and
    line), no or ambiguous Bot subclasses, a bot that cannot be constructed.

    The file is imported (that is what checks it), so it must do nothing else at import than
    define its bot: code that plays (``run(...)``, ``local.play(...)``) belongs under
    ``if __name__ == "__main__":``, or it runs here (a ``run`` never returns).

    A file's bot without a ``version`` of its own gets :func:`file_version` of the file.
    """
    if spec in BUILTIN:
        return builtin_bot(spec, seed)
    path = Path(spec)
    if path.suffix != ".py":
        raise ValueError(f"{spec}: neither a built-in bot ({', '.join(BUILTIN)}) nor a .py file")
    if not path.is_file():
        raise ValueError(f"{spec}: no such file")
    module_name = f"cardarena_user_bot_{abs(hash(path.resolve()))}"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise ValueError(f"{spec}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    # No time limit on the import: in-process it could only be a thread (which cannot be
    # stopped: the import would go on running, half done, beside the caller) or a signal
    # (main thread only, interrupting whatever the file is doing, wherever); and the bot must
    # be loaded in this process, which a check in a child process would not do.  The
    # documentation is the fix: a bot file does no work at import (see the docstring).
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise ValueError(f"{spec}: {_describe(exc, path)}") from exc
    cls = _bot_class(spec, module)
    try:
        bot = cls()
    except Exception as exc:
        raise ValueError(f"{spec}: {cls.__name__}() failed: {_describe(exc, path)}") from exc
    if not bot.version:
        bot.version = file_version(path)
    try:
        check_bot(bot)
    except ValueError as exc:
        raise ValueError(f"{spec}: {exc}") from None
    return bot


def file_version(path: str | Path) -> str:
    """The default version label of a bot file: ``sha256:`` and the first 12 hex digits of the
    SHA-256 of its content, so every edit of the file plays under a new label."""
    return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


_HOOKS = {
    "choose": ("view", "legal"),
    "on_rejected": ("view", "legal", "rejected", "reason"),
    "on_event": ("match_id", "seat", "action"),
    "on_match_end": ("match_id", "status", "scores", "ranks"),
    "on_result": ("result",),
}
"""The methods the SDK calls on a bot and the arguments it passes them."""


def check_bot(bot: Bot) -> None:
    """Raise :class:`ValueError` naming the mistake unless ``bot`` can be played: ``choose``
    defined, every method the SDK calls taking the arguments it is given, ``games`` a tuple of
    known game ids, ``max_matches`` a positive number, ``version`` a label the service accepts.

    :func:`load_bot`, :func:`~cardarena_sdk.run` and :func:`~cardarena_sdk.local.play` check
    their bot with it, so such a mistake is an error at once, not a failure at every move."""
    cls = type(bot).__name__
    if type(bot).choose is Bot.choose:
        raise ValueError(f"{cls} does not define choose(self, view, legal), the method called for each move")
    for method, args in _HOOKS.items():
        try:
            inspect.signature(getattr(bot, method)).bind(*args)
        except TypeError:
            sig = inspect.signature(getattr(type(bot), method))
            wanted = ", ".join(("self", *args))
            raise ValueError(f"{cls}.{method}{sig} must take ({wanted})") from None
        except ValueError:  # no signature to inspect (a builtin): the call will tell
            pass
    if isinstance(bot.games, str):
        raise ValueError(
            f"{cls}.games is the string {bot.games!r}, not a tuple of game ids: write ({bot.games!r},) "
            "(a one-item tuple needs the comma)"
        )
    known = games()
    unknown = [g for g in bot.games if g not in known]
    if unknown:
        raise ValueError(
            f"{cls}.games: unknown game id(s) {', '.join(repr(g) for g in unknown)}; known: {', '.join(sorted(known))} "
            f"({NOT_INSTALLED})"
        )
    if isinstance(bot.max_matches, bool) or not isinstance(bot.max_matches, int) or bot.max_matches < 1:
        raise ValueError(f"{cls}.max_matches must be a whole number of at least 1, not {bot.max_matches!r}")
    if not isinstance(bot.version, str):
        raise ValueError(f"{cls}.version must be a string, not {bot.version!r}")
    bad_version = version_problem(bot.version)
    if bad_version:
        raise ValueError(f"{cls}.{bad_version}")


def answer_hint(answer: object, legal: list[LegalAction]) -> str:
    """What a bot author should make of an answer that is not one of ``legal``'s ids (``""``:
    nothing to add to the reason the server gives)."""
    if answer is None:
        return "did choose forget to return the id?"
    if isinstance(answer, ActionInfo):
        return f"return the action's id ({answer.id!r}), not the action"
    if isinstance(answer, str):
        carrying = [a.id for a in legal if answer in a.cards or answer == a.choice or answer == a.label]
        if carrying:
            return f"answer with an action id, e.g. {carrying[0]!r}"
    return ""


def not_an_id(step: str, answer: object, legal: list[LegalAction], where: str) -> str:
    """The log line for an answer of ``step`` (``choose``, ``on_rejected``) in ``where`` that is
    not one of ``legal``'s ids: what it was, a hint (:func:`answer_hint`) and the legal ids."""
    hint = answer_hint(answer, legal)
    hint = f"; {hint}" if hint else ""
    if isinstance(answer, str):
        return f"{step} returned {answer!r} in {where}, not a legal id{hint}; legal ids: {legal_ids(legal)}"
    what = f"a {type(answer).__name__}, not an action id{hint}"
    return f"{step} returned {answer!r} ({what}) in {where}; legal ids: {legal_ids(legal)}"


def legal_ids(legal: list[LegalAction], limit: int = 20) -> str:
    """The legal ids for a log line (the first ``limit`` of them)."""
    ids = ", ".join(repr(a.id) for a in legal[:limit])
    return ids if len(legal) <= limit else f"{ids} ... ({len(legal)} in all)"


LOGGED_ILLEGAL = 3
"""Illegal answers per match whose lines are logged in full (the answer, the legal ids, the
server's reason); a bot that keeps answering illegally gets one summary line per match after
them (:class:`IllegalAnswers`), not a line per answer."""


class IllegalAnswers:
    """Which illegal answers of each match the SDK logs (the network client and local play).

    Every line about one illegal answer (the SDK's own check, the server's rejection) is
    written for the first :data:`LOGGED_ILLEGAL` illegal answers of a match; later ones are
    counted, and :meth:`end` writes one line at the match's end: how many more there were, how
    many ended a request with the default action played, and the last one's reason."""

    def __init__(self, log: logging.Logger, limit: int = LOGGED_ILLEGAL) -> None:
        self.log, self.limit = log, limit
        self._answers: dict[str, int] = {}
        self._defaults: dict[str, int] = {}
        self._last: dict[str, str] = {}

    def note(self, match_id: str) -> bool:
        """Count one illegal answer in ``match_id``: whether its lines are to be logged."""
        count = self._answers[match_id] = self._answers.get(match_id, 0) + 1
        return count <= self.limit

    def quiet(self, match_id: str) -> bool:
        """Whether the next illegal answer in ``match_id`` goes unlogged (the limit is reached)."""
        return self._answers.get(match_id, 0) >= self.limit

    def rejected(self, match_id: str, answer: str, reason: str, *, final: bool) -> None:
        """Keep the reason of an illegal answer's rejection for the summary; ``final``: the
        last of its request, after which the default action is played (fault ``illegal``)."""
        self._last[match_id] = f"{answer[:64]!r} rejected: {reason}"
        if final:
            self._defaults[match_id] = self._defaults.get(match_id, 0) + 1

    def end(self, match_id: str) -> None:
        """The match is over (or no longer played here): the summary line, if any was held back."""
        count = self._answers.pop(match_id, 0)
        defaults = self._defaults.pop(match_id, 0)
        last = self._last.pop(match_id, "")
        if count > self.limit:
            self.log.warning(
                "... and %d more illegal answers in %s, not logged one by one (%d in all, the first %d above; "
                "%d requests ended with the default action played, fault illegal); the last: %s",
                count - self.limit,
                match_id,
                count,
                self.limit,
                defaults,
                last or "no reason received",
            )

    def end_all(self) -> None:
        """:meth:`end` for every match with illegal answers counted (a session ending)."""
        for match_id in list(self._answers):
            self.end(match_id)


def check_bot_spec(spec: str) -> None:
    """Raise :class:`ValueError` (``"<spec>: <reason>"``) unless ``spec`` loads as a bot
    (see :func:`load_bot`; a file is imported and its bot constructed once, here: a file that
    does work at import, outside ``if __name__ == "__main__":``, does it here too)."""
    load_bot(spec)


def _bot_class(spec: str, module: Any) -> type[Bot]:
    """The bot class of a loaded bot file (see :func:`load_bot`)."""
    builtins = (Bot, RandomBot, HeuristicBot)
    found = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Bot) and v not in builtins]
    own = [c for c in found if c.__module__ == module.__name__]
    candidates = own or found  # a file that only imports its bot class from elsewhere
    if not candidates:
        raise ValueError(f"{spec}: defines no cardarena_sdk.Bot subclass")
    leaves = [c for c in candidates if not any(o is not c and issubclass(o, c) for o in candidates)]
    if len(leaves) != 1:
        names = ", ".join(sorted(c.__name__ for c in leaves))
        raise ValueError(f"{spec}: defines several Bot subclasses ({names}); keep one, or derive one from the others")
    return leaves[0]


def _describe(exc: BaseException, path: Path) -> str:
    """``"SyntaxError: expected ':' (line 3)"``: the error and its line in ``path`` (if any)."""
    if isinstance(exc, SyntaxError):
        line = f" (line {exc.lineno})" if exc.lineno else ""
        return f"{type(exc).__name__}: {exc.msg}{line}"
    line = ""
    target = path.resolve()
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == target:
            line = f" (line {frame.lineno})"
    text = str(exc)
    return f"{type(exc).__name__}: {text}{line}" if text else f"{type(exc).__name__}{line}"
