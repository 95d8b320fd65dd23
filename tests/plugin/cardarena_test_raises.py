"""Raise or Call: a two-player test fixture whose rules forgot to cap the raises.

It is not a game of the product, and it is not registered for the whole test session (as Test
Trumps is): a test that needs it declares it through the ``cardarena.games`` entry point group
(``tests/conftest.py``, :func:`raises_site`), for its own process and the service, worker and
bot processes it starts.  It is what Gleek was before its ruff allowed only three raises: random
play and first legal actions end a match at once, two bots that always raise never do.  The
conformance suite's stubborn bots find the loop; the service stops such a match at its action
limit (a no contest).

Rules: the dealer is drawn from the seed; the other seat acts first.  In turn, a seat may
``call`` (the deal ends: the last seat to raise wins the pot, nobody if no one raised),
``raise`` (one more stake into the pot) or ``fold`` (the deal ends: the other seat wins the
pot).  The pot's winner scores its size, the other seat its negative.  One deal.  Nothing is
hidden.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from cardarena.engine import (
    CHANCE,
    DealRecord,
    Game,
    HiddenInformation,
    IllegalAction,
    InvalidChance,
    MatchRng,
    NotYourTurn,
    Result,
    State,
    UnknownAction,
    ranks_from_scores,
)
from cardarena.engine.core import JSON

ACTIONS = ("call", "raise", "fold")
"""Every seat's choices, in this order: the first legal action ends the deal, as does the last."""


class RaisesView:
    """What a seat sees (everything): any object with ``to_json()``."""

    def __init__(self, data: dict[str, JSON]) -> None:
        self._data = data

    def to_json(self) -> dict[str, JSON]:
        return dict(self._data)


class RaisesState(State):
    """One match of Raise or Call."""

    def __init__(self, game: Raises, players: int, options: dict[str, JSON]) -> None:
        self.game, self.players, self.options = game, players, options
        self._records: list[DealRecord] = []
        self._turn: int | None = CHANCE  # None once the match is over
        self._pot = 0
        self._raiser = -1
        self._scores = [0.0] * players

    def to_act(self) -> tuple[int, ...]:
        return () if self._turn is None else (self._turn,)

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        return ACTIONS if seat >= 0 and seat == self._turn else ()

    def apply(self, seat: int, action: str) -> None:
        if seat == CHANCE or self._turn != seat:
            raise NotYourTurn(f"seat {seat} is not to act", seat=seat, action=action)
        if action not in ACTIONS:
            raise UnknownAction(f"{action!r} is not call, raise or fold", seat=seat, action=action)
        record = self._records[-1]
        record.actions.append((seat, action))
        other = 1 - seat
        if action == "raise":
            self._pot += 1
            self._raiser = seat
            self._turn = other
            return
        winner = other if action == "fold" else self._raiser
        if winner >= 0:
            self._scores[winner], self._scores[1 - winner] = float(self._pot), float(-self._pot)
        record.scores = list(self._scores)
        self._turn = None

    def check(self, seat: int, action: str) -> str | None:
        if self._turn == seat and action in ACTIONS:
            return None
        try:
            self.clone().apply(seat, action)
        except IllegalAction as exc:
            return exc.reason
        return f"{action!r} is not one of the legal actions"

    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        return {"dealer": rng.below(self.players)}

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        dealer = outcome.get("dealer")
        if set(outcome) != {"dealer"} or not isinstance(dealer, int) or not 0 <= dealer < self.players:
            raise InvalidChance(f"not a Raise or Call deal: {dict(outcome)!r}")
        self._records.append(DealRecord(dealer=dealer, chance=dict(outcome)))
        self._turn = 1 - dealer

    def view(self, seat: int | None) -> RaisesView:
        return RaisesView(self.view_json(seat))

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return {
            "seat": seat,
            "to_act": self._turn if self._turn is not None and self._turn >= 0 else None,
            "pot": self._pot,
            "last_raiser": self._raiser if self._raiser >= 0 else None,
        }

    def result(self) -> Result:
        return Result(tuple(self._scores), ranks_from_scores(self._scores))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def secrets(self, seat: int | None) -> frozenset[str]:
        return frozenset()

    def clone(self) -> RaisesState:
        other = type(self)(self.game, self.players, self.options)
        other._records = [record.copy() for record in self._records]
        other._turn, other._pot, other._raiser, other._scores = self._turn, self._pot, self._raiser, list(self._scores)
        return other


class Raises(Game):
    """Static facts and the factory."""

    id: ClassVar[str] = "test_raises"
    name: ClassVar[str] = "Raise or Call (test fixture)"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    summary: ClassVar[str] = "A test fixture: call, raise or fold, and nothing caps the raises."
    hidden_information: ClassVar[HiddenInformation] = "none"

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> RaisesState:
        return RaisesState(self, players, self.options(players, options))


GAME = Raises()
