"""A heuristic for the whist family with jack penalties (Glaves, Knaves, German Whist).

Works from the view JSON only (``hand``, ``trick``, ``trump_suit``, ``players``,
``stock_face_up``).  Tricks are worth +1, jacks taken cost 4/3/2/1 (hearts, diamonds, clubs,
spades).  Plan:

* Following, able to follow: if the trick holds a jack (or the face-up stock card the winner
  takes is a jack), duck with the highest card that does not win, else win as cheaply as
  possible when last to play, else play a sure-looking winner (ace/king or trump-high) or the
  lowest card.
* Following, void in the suit led: dump a jack onto a trick someone else will win, else ruff
  with the lowest trump when the trick is clean, else discard the lowest card.
* Leading: the lowest non-jack card of a non-trump suit (jacks are kept for dumping).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

RANKS = "23456789TJQKA"
PENALTY = {"JH": 4, "JD": 3, "JC": 2, "JS": 1}


def _rank(card: str) -> int:
    return RANKS.index(card[0])


def _beats(card: str, best: str, lead: str, trump: str | None) -> bool:
    if card[1] == best[1]:
        return _rank(card) > _rank(best)
    return card[1] == trump


def choose(view: dict[str, Any], legal: Sequence[str], rng: random.Random) -> str:
    """Pick one of ``legal`` (``play:<card>`` ids) from the seat's view."""
    cards = [a.split(":", 1)[1] for a in legal if a.startswith("play:")]
    if not cards:
        return rng.choice(list(legal))
    trump: str | None = view.get("trump_suit")
    trick = [t["card"] for t in view.get("trick") or []]
    players = int(view.get("players") or 2)
    face_up = view.get("stock_face_up")
    low = sorted(cards, key=lambda c: (c in PENALTY, c[1] == trump, _rank(c)))
    if not trick:
        return "play:" + low[0]
    lead = trick[0][1]
    best = trick[0]
    for c in trick[1:]:
        if _beats(c, best, lead, trump):
            best = c
    last = len(trick) == players - 1
    dirty = sum(PENALTY.get(c, 0) for c in trick) + PENALTY.get(face_up or "", 0)
    winners = sorted((c for c in cards if _beats(c, best, lead, trump)), key=_rank)
    losers = sorted((c for c in cards if not _beats(c, best, lead, trump)), key=_rank)
    following = cards[0][1] == lead
    if not following:
        jacks = [c for c in losers if c in PENALTY]
        if jacks:
            return "play:" + max(jacks, key=PENALTY.__getitem__)
        if winners and not dirty:
            clean = [c for c in winners if c not in PENALTY]
            if clean:
                return "play:" + min(clean, key=_rank)
        return "play:" + (sorted(losers or cards, key=lambda c: (c[1] == trump, _rank(c)))[0])
    if dirty:
        if losers:
            safe = [c for c in losers if c not in PENALTY]
            return "play:" + (max(safe, key=_rank) if safe else max(losers, key=PENALTY.__getitem__))
        clean = [c for c in winners if c not in PENALTY] or winners
        return "play:" + max(clean, key=_rank)
    clean_winners = [c for c in winners if c not in PENALTY]
    if clean_winners and (last or _rank(clean_winners[-1]) >= RANKS.index("K")):
        return "play:" + (clean_winners[0] if last else clean_winners[-1])
    if losers:
        jacks = [c for c in losers if c in PENALTY]
        if jacks and last:
            return "play:" + max(jacks, key=PENALTY.__getitem__)
        safe = [c for c in losers if c not in PENALTY]
        return "play:" + min(safe or losers, key=_rank)
    return "play:" + min(clean_winners or winners, key=_rank)
