"""Shared machinery of the one-player score attacks: Gridcannon, Loot the Loop, The Emissary.

A solitaire match is one game from one seed (rulings, "Solitaires"): seat 0 is the only
player, the opening chance outcome (the shuffled deck) is the match's only
:class:`~cardarena.engine.core.DealRecord`, and later shuffles are appended to its actions as
``(CHANCE, json)``.  The match result is the seed's score plus whether the game was won
(``Result.won``); the view shows it too (``outcome``: ``playing``, ``won`` or ``lost``).

:class:`SolitaireState` keeps the bookkeeping (who acts, records, result, errors); a game
supplies its rules through the abstract hooks.  Pure: no IO, no RNG of its own.
"""

from __future__ import annotations

import copy
import json
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..engine.core import (
    CHANCE,
    JSON,
    DealRecord,
    Game,
    IllegalAction,
    InvalidChance,
    NotYourTurn,
    Result,
    State,
    UnknownAction,
    ranks_from_scores,
)
from ..engine.rng import MatchRng

PLAYER = 0
"""The one seat of a solitaire."""
_PLAYER_ONLY = (PLAYER,)
_CHANCE_ONLY = (CHANCE,)
_NOBODY: tuple[int, ...] = ()


def deck_codes(outcome: Mapping[str, JSON], key: str, expected: Sequence[str]) -> list[str]:
    """The card codes under ``key`` of a chance outcome, checked to be a permutation of ``expected``."""
    try:
        cards = [str(c) for c in outcome[key]]
    except (KeyError, TypeError) as exc:
        raise InvalidChance(f"malformed chance outcome: missing {key!r} ({exc!r})") from None
    if sorted(cards) != sorted(expected):
        raise InvalidChance(f"{key} must hold each of the expected {len(expected)} cards exactly once")
    return cards


def shuffled(rng: MatchRng, cards: Sequence[str]) -> list[str]:
    """A shuffled copy of ``cards``."""
    out = list(cards)
    rng.shuffle(out)
    return out


class SolitaireState(State):
    """One solitaire game.  Subclasses implement the rules hooks."""

    def __init__(self, game: Game, players: int, options: dict[str, JSON]) -> None:
        self.game = game
        self.players = players
        self.options = options
        self._records: list[DealRecord] = []
        self._chance_pending = True
        self._over = False
        self._won = False
        self._end_reason = ""
        self._legal_cache: tuple[str, ...] | None = None
        self._sampled: Mapping[str, JSON] | None = None

    # ---------------------------------------------------------------- hooks
    @abstractmethod
    def _legal(self) -> list[str]:
        """The legal actions of the player now (the game is live and not at a chance node)."""

    @abstractmethod
    def _do(self, action: str) -> None:
        """Apply a legal action (already checked)."""

    @abstractmethod
    def _why_illegal(self, action: str) -> IllegalAction:
        """The error for an action that is not legal now (unknown form or illegal)."""

    @abstractmethod
    def _sample(self, rng: MatchRng) -> dict[str, JSON]:
        """Draw the pending chance outcome."""

    @abstractmethod
    def _apply_outcome(self, outcome: Mapping[str, JSON]) -> None:
        """Validate (raise :class:`InvalidChance`) and apply a chance outcome."""

    @abstractmethod
    def score(self) -> float:
        """The seed's score of the game so far (final once it is over)."""

    # ---------------------------------------------------------------- contract
    def to_act(self) -> tuple[int, ...]:
        if self._over:
            return _NOBODY
        return _CHANCE_ONLY if self._chance_pending else _PLAYER_ONLY

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        if seat != PLAYER or self._over or self._chance_pending:
            return ()
        legal = self._legal_cache
        if legal is None:
            legal = self._legal_cache = tuple(self._legal())
        return legal

    def apply(self, seat: int, action: str) -> None:
        if self._over:
            raise NotYourTurn("the game is over", seat=seat, action=action)
        if seat != PLAYER:
            raise NotYourTurn(f"seat {seat} is not in this one-player game; only seat 0 acts", seat=seat, action=action)
        if self._chance_pending:
            raise NotYourTurn("waiting for a chance outcome (a shuffle)", seat=seat, action=action)
        legal = self._legal_cache
        if legal is None:
            legal = self._legal_cache = tuple(self._legal())
        if action not in legal:
            error = self._why_illegal(action)
            error.seat, error.action = seat, action
            raise error
        self._legal_cache = None
        self._records[-1].actions.append((PLAYER, action))
        self._do(action)
        self._check_end()

    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        if not self._chance_pending or self._over:
            raise InvalidChance("no chance outcome is pending")
        outcome = self._sample(rng)
        self._sampled = outcome
        return outcome

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        if not self._chance_pending or self._over:
            raise InvalidChance("no chance outcome is pending")
        first = not self._records
        if first and outcome.get("dealer", 0) != 0:
            raise InvalidChance("the dealer of a solitaire is seat 0")
        if outcome is not self._sampled:
            # Validate on a copy so that a bad outcome changes nothing (an outcome this state
            # just drew itself is known to be valid).
            trial = self.clone()
            trial._records = []
            trial._chance_pending = False
            trial._apply_outcome(outcome)
        self._sampled = None
        self._legal_cache = None
        if first:
            self._records.append(DealRecord(dealer=PLAYER, chance=dict(outcome)))
        else:
            self._records[-1].actions.append((CHANCE, json.dumps(dict(outcome), sort_keys=True)))
        self._chance_pending = False
        self._apply_outcome(outcome)
        self._check_end()

    def _need_chance(self) -> None:
        """Stop at a chance node (a shuffle) before the player acts again."""
        self._chance_pending = True

    def _finish(self, won: bool, reason: str) -> None:
        """End the game as won or lost."""
        if self._over:
            return
        self._over = True
        self._won = won
        self._end_reason = reason
        self._chance_pending = False
        if self._records:
            self._records[-1].scores = [self.score()]

    def _check_end(self) -> None:
        """Hook run after every transition (subclasses may end the game here)."""

    @property
    def outcome(self) -> str:
        """``playing``, ``won`` or ``lost``."""
        if not self._over:
            return "playing"
        return "won" if self._won else "lost"

    def result(self) -> Result:
        if not self._over:
            raise IllegalAction("the game is not over")
        scores = (float(self.score()),)
        return Result(scores, ranks_from_scores(scores), won=(self._won,))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def clone(self) -> SolitaireState:
        return copy.deepcopy(self)

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        out: dict[str, JSON] = self.view(seat).to_json()
        return out

    def _check_seat(self, seat: int | None) -> None:
        if seat is not None and seat != PLAYER:
            raise IllegalAction(f"no seat {seat} in a one-player game")

    def _base_view(self, seat: int | None) -> dict[str, JSON]:
        """The keys every solitaire view starts with."""
        return {
            "game": self.game.id,
            "seat": seat,
            "players": 1,
            "to_act": None if self._over or self._chance_pending else PLAYER,
            "outcome": self.outcome,
            "end_reason": self._end_reason or None,
            "score": self.score(),
        }


def base_json(
    game: str, seat: int | None, over: bool, pending: bool, won: bool, end_reason: str, score: float
) -> dict[str, JSON]:
    """The keys every solitaire view starts with, from a snapshot (see :meth:`SolitaireState._base_view`)."""
    return {
        "game": game,
        "seat": seat,
        "players": 1,
        "to_act": None if over or pending else PLAYER,
        "outcome": ("won" if won else "lost") if over else "playing",
        "end_reason": end_reason or None,
        "score": score,
    }


class JsonView:
    """A view that is already its JSON form (solitaire views are small), or a snapshot of the
    state's parts that is decoded to its JSON form on first access (``build(seat, snapshot)``
    must return a fresh dict each call)."""

    __slots__ = ("_build", "_data", "_snap", "seat")

    def __init__(
        self,
        seat: int | None,
        data: dict[str, JSON] | None = None,
        build: Callable[[int | None, Any], dict[str, JSON]] | None = None,
        snap: Any = None,
    ) -> None:
        self.seat = seat
        self._data = data
        self._build = build
        self._snap = snap

    def to_json(self) -> dict[str, JSON]:
        """The view as JSON (a fresh copy)."""
        build = self._build
        if build is not None:
            return build(self.seat, self._snap)
        data = self._data
        assert data is not None
        return copy.deepcopy(data)

    def __getitem__(self, key: str) -> Any:
        data = self._data
        if data is None:
            data = self._data = self.to_json()
        return data[key]


def unknown(action: str, forms: str) -> UnknownAction:
    """The error for an action id of no known form."""
    return UnknownAction(f"unknown action {action!r}: expected {forms}")
