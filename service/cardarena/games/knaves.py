"""Knaves: a trick-taking game for 3 players where jacks are penalties.

Rules (the original rules document and the team's rulings, not distributed
here; ``docs/games/knaves.md``): 13 cards each; the 40th card
is turned for trump and stays out of play, the last 12 cards are unused.  Must follow suit if
able; highest trump, else highest card of the suit led, wins.  No drawing.  Per hand: +1 per
trick, jacks taken J♥ −4, J♦ −3, J♣ −2, J♠ −1, no shooting the moon.  Hands are played
until someone has 20 or more after a hand; the highest total wins, equal highest share.
Jacks among the 13 cards out of play (the turned card and the unused 12) are taken by nobody,
so a hand's scores sum to 3 plus their penalty; each hand adds at least 3 to the sum of the
totals, so at the default target of 20 the match ends within 20 hands.
Revokes and exposed cards cannot happen: the server offers only legal plays.

Rulings made here where the seed and the rulings are silent (the standard club reading; also
in ``docs/games/knaves.md``):

* "Dealt clockwise one card at a time" starts at the dealer's left.
* Jacks out of play score for nobody (above).
* "Losing players may form temporary alliances": there is no agreement or table talk; an
  alliance is only a way of playing (every seat still scores for itself).
* The view shows the turned trump card, the trick in progress, the previous trick
  (``last_trick``), the cards of the deal's completed tricks (``played_cards``), each seat's
  tricks and jacks taken; the 12 unused cards stay secret from everyone.  Every play also
  reaches every seat as an event.
* ``deals`` > 0 (tournaments): exactly that many hands, ranked by total; the target is unused.
"""

from __future__ import annotations

from typing import ClassVar

from ..engine.core import JSON, OptionRange
from .trick_taking import TrickGame, TrickLayout, TrickState, jack_penalty

TARGET = 20
"""The score that ends the match."""


class KnavesState(TrickState):
    """A Knaves match."""

    def _deal_scores(self) -> list[float]:
        return [self._tricks[s] - jack_penalty(self._jacks[s]) for s in range(self.players)]


class Knaves(TrickGame):
    """Three players, 13 cards each, no drawing, jacks are penalties."""

    id: ClassVar[str] = "knaves"
    name: ClassVar[str] = "Knaves"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 3
    summary: ClassVar[str] = (
        "Trick-taking for 3: 13 cards each, the 40th card turned for trump, +1 per trick, "
        "jacks cost 4/3/2/1 (hearts, diamonds, clubs, spades). Hands until someone has 20; the highest total wins."
    )
    state_class = KnavesState

    def layout(self, players: int) -> TrickLayout:
        return TrickLayout(hand_size=13, stock=0, trump_turned_out=True)

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"target": TARGET, "deals": 0}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"target": OptionRange(1, 1000), "deals": OptionRange(0, 1000, "0: play to the target")}


GAME = Knaves()
