"""Glaves: a trick-taking game for 2 to 4 players, German Whist crossed with Knaves.

Rules (the original rules document and the team's rulings, not distributed here; ``docs/games/glaves.md``):

* 52 cards, aces high.  2 players: 13 cards each, 26 in the stock; 3 or 4 players: 9 each.
* 2 and 4 players: the top stock card is turned face up, fixes trump for the hand and is
  taken by the winner of the first trick.  3 players: the bottom card of the stock is set
  aside face up, fixes trump and is out of play for the hand; the top card is still turned.
* Must follow suit if able.  After each trick the winner takes the face-up stock card (public
  knowledge until played), each other player clockwise from the winner takes the next hidden
  card, and the next card is turned.  Then play goes on without drawing.
* Per hand: +1 per trick, jacks taken score J♥ −4, J♦ −3, J♣ −2, J♠ −1.  A player who
  takes all four jacks shoots the moon: they score the hand's total (16/7/3), everyone else 0.
  With 3 players a set-aside jack is out of play, so the hand sums to 7 plus its penalty and
  nobody can shoot the moon.
* Hands until someone has at least 46/20/9 after a hand; highest total wins; equal highest
  share the win.  Option ``deals`` (> 0) plays exactly that many hands instead.

Tricks per hand: 26 (2 players), 17 (3), 13 (4).  The match always ends: each hand adds at
least 16/7/3 to the sum of the totals, so someone reaches the target within 6/9/12 hands.

Rulings made here where the seed and the rulings are silent (the standard club reading; also
in ``docs/games/glaves.md``):

* The cards are dealt one at a time, clockwise from the dealer's left; the undealt cards are
  the stock in deck order (top card turned; with 3 players the bottom one is set aside).
* Played cards are public, won tricks are turned down: the view shows the trick in progress,
  the previous trick of the deal (``last_trick``, as a player may look at the last trick), the
  cards of the deal's completed tricks (``played_cards``: every seat saw them played, so a
  bot resumed mid-deal still has them), each seat's tricks and jacks taken, and the face-up
  cards (trump card, stock card, known cards).  Every play also reaches every seat as an
  event.  Face-down draws are private, and what a seat can only deduce (the 2-player hands
  once the stock is gone) is not listed.
* No table talk: the seed's "laugh and talk trash" is table manners, not a rule.
* ``deals`` > 0 (tournaments): exactly that many hands, ranked by total; the target is unused.
"""

from __future__ import annotations

from typing import ClassVar

from ..engine.core import JSON, OptionRange
from .trick_taking import JACKS, TrickGame, TrickLayout, TrickState, jack_penalty

HAND_POINTS = {2: 16, 3: 7, 4: 3}
"""Points a hand is worth in total (tricks minus 10), by player count."""
TARGET = {2: 46, 3: 20, 4: 9}
"""The score that ends the match, by player count."""
_LAYOUT = {
    2: TrickLayout(hand_size=13, stock=26),
    3: TrickLayout(hand_size=9, stock=24, trump_set_aside=True),
    4: TrickLayout(hand_size=9, stock=16),
}


class GlavesState(TrickState):
    """A Glaves match."""

    def _deal_scores(self) -> list[float]:
        n = self.players
        for seat in range(n):
            if self._jacks[seat] == JACKS:
                return [HAND_POINTS[n] if s == seat else 0 for s in range(n)]
        return [self._tricks[s] - jack_penalty(self._jacks[s]) for s in range(n)]


class Glaves(TrickGame):
    """The flagship: 2 to 4 players, drawing from the stock, jacks are penalties."""

    id: ClassVar[str] = "glaves"
    name: ClassVar[str] = "Glaves"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    summary: ClassVar[str] = (
        "Trick-taking for 2-4: draw from the stock after each trick (the winner takes the "
        "face-up card), +1 per trick, jacks cost 4/3/2/1 (hearts, diamonds, clubs, spades), "
        "all four jacks shoot the moon. Hands until someone has 46/20/9; the highest total wins."
    )
    state_class = GlavesState

    def layout(self, players: int) -> TrickLayout:
        return _LAYOUT[players]

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"target": TARGET.get(players, 0), "deals": 0}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"target": OptionRange(1, 1000), "deals": OptionRange(0, 1000, "0: play to the target")}


GAME = Glaves()
