"""Per-seat names and tallies for the summaries of ``cardarena simulate``, ``match`` and ``play``,
and counts in the words of what the commands print (:func:`how_many`: ``1 match``, ``2 matches``).

With several players a seat's wins are its first places (shared on a tie); a solitaire has
no opponent to beat, so its wins are the engine's own ``won`` (the game's standard, e.g. all
the loot out), never its first places.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def how_many(n: int, noun: str, plural: str = "") -> str:
    """``n`` and ``noun`` agreeing with it, as the commands print counts: ``1 match``, ``0
    matches``, ``2 players``.  ``plural``: the plural where it is not ``noun`` with ``s`` (``es``
    after s, x, ch, sh), e.g. ``entries``."""
    if n == 1:
        return f"1 {noun}"
    return f"{n} {plural or noun + ('es' if noun.endswith(('s', 'x', 'ch', 'sh')) else 's')}"


def seat_names(kinds: Sequence[str]) -> list[str]:
    """The bot name of each seat of ``cardarena match`` and ``play``: its kind (a built-in
    bot's name, a file's stem) and seat number from 1, e.g. ``random-1``, ``mybot-2``."""
    return [f"{Path(k).stem}-{i + 1}" for i, k in enumerate(kinds)]


class Tally:
    """Wins and scores per seat over matches."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.matches = 0
        self.firsts = [0.0] * players
        self.totals = [0.0] * players
        self.won = [0] * players
        self.won_known = 0
        """Matches whose result carried ``won``."""

    def add(self, scores: Sequence[float], ranks: Sequence[int], won: Sequence[bool] | None = None) -> None:
        """Count one match's result."""
        self.matches += 1
        firsts = [s for s in range(self.players) if ranks[s] == 1]
        for s in firsts:
            self.firsts[s] += 1 / len(firsts)
        for s in range(self.players):
            self.totals[s] += scores[s]
        if won is not None:
            self.won_known += 1
            for s in range(self.players):
                self.won[s] += bool(won[s])

    def line(self, seat: int) -> str:
        """``wins 2.0 (40.0%)  mean score 1.20`` (a solitaire: ``won 1 of 5 (20.0%)  ...``)."""
        mean = f"mean score {self.totals[seat] / max(1, self.matches):.2f}"
        if self.players == 1:
            if not self.won_known:
                return mean
            rate = 100 * self.won[seat] / self.won_known
            return f"won {self.won[seat]} of {self.won_known} ({rate:.1f}%)  {mean}"
        share = 100 * self.firsts[seat] / max(1, self.matches)
        return f"wins {self.firsts[seat]:5.1f} ({share:4.1f}%)  {mean}"
