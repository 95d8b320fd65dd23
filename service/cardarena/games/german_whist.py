"""German Whist (the seed's "Whist rules"): a two-player game in two phases.

Rules (the original rules document and the team's rulings, not distributed
here; ``docs/games/german_whist.md``): 13 cards each, 26 in the
stock, the top card turned: its suit is trump for the whole deal.  Must follow suit in both
phases.  Phase 1 (13 tricks): the trick winner takes the face-up stock card (public knowledge
until played), the loser the next hidden card, and the next card is turned.  Phase 2 (13
tricks): the player with more phase-2 tricks wins the deal (13 is odd, so a deal has no tie).

A deal scores 1 for its winner and 0 for the loser; the phase-2 trick counts are in the view
(``phase_tricks``).  A match is one deal unless the option ``deals`` asks for more; then the
most deals won wins, equal counts share the win.

Rulings made here where the seed and the rulings are silent (the standard club reading; also
in ``docs/games/german_whist.md``):

* "Decide which player will start the game": the first dealer is drawn by the match RNG (the
  rulings), the cards are dealt one at a time starting with the non-dealer, and the non-dealer
  leads the first trick.  With more deals the deal alternates.
* Phase-1 tricks score nothing; ``tricks_taken`` counts all 26, ``phase_tricks`` phase 2 only.
* The view shows the trick in progress, the previous trick (``last_trick``), the cards of the
  deal's completed tricks (``played_cards``), the trump card and the face-up stock card; every
  play also reaches both seats as an event.  The loser's draw is private; what a seat can only
  deduce (the opponent's hand once the stock is gone: the cards neither in its own hand nor
  played) is not listed.
"""

from __future__ import annotations

from typing import ClassVar

from ..engine.core import JSON, OptionRange
from .trick_taking import TrickGame, TrickLayout, TrickState


class GermanWhistState(TrickState):
    """A German Whist match."""

    def _deal_scores(self) -> list[float]:
        a, b = self._phase2
        return [1 if a > b else 0, 1 if b > a else 0]


class GermanWhist(TrickGame):
    """Two players: draft from the stock in phase 1, win most tricks in phase 2."""

    id: ClassVar[str] = "german_whist"
    name: ClassVar[str] = "German Whist"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    summary: ClassVar[str] = (
        "Two-player whist: 13 tricks drafting the stock (winner takes the face-up card), then "
        "13 tricks that count; most phase-2 tricks wins the deal."
    )
    state_class = GermanWhistState

    def layout(self, players: int) -> TrickLayout:
        return TrickLayout(hand_size=13, stock=26)

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"deals": 1}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        # German Whist has no target: ``deals`` alone ends the match, so 0 is not a value.
        return {"deals": OptionRange(1, 1000)}


GAME = GermanWhist()
