"""A heuristic for the whist family with jack penalties (Glaves, Knaves, German Whist).

Works from the view JSON only (``hand``, ``trick``, ``trump_suit``, ``players``, ``seat``,
``stock_face_up``, ``last_trick``, ``seats[*].jacks_taken/known_cards/hand_size``).  Tricks
are worth +1, jacks taken cost 4/3/2/1 (hearts, diamonds, clubs, spades).

Two players (2-player Glaves, German Whist): every legal card is scored by the expected change
of (my points - opponent's points), and the best is played:

* the trick: +-(1 - jack penalties) for winning/losing it (German Whist: phase-2 tricks are
  worth 1, phase-1 tricks 0, no jacks).  Following, the outcome is known; leading, the chance
  that a random opponent beats the card comes from the unseen cards (the opponent's
  ``known_cards`` are theirs for sure).
* the draw (phase 1): the winner takes the face-up card, the loser a hidden one, so winning
  is worth (face-up card's worth - average unseen card's worth).
* the card spent: its worth for later tricks (trumps most, then high cards; a jack in hand
  counts against).
* Glaves' moon: while I have taken no jack, the opponent may shoot the moon (16 to 0, a swing
  of ~25); the risk grows with their jacks taken, so taking a jack to block it is worth a lot
  and dumping jacks on them costs.

Three or more players (Glaves, Knaves):

* Following, able to follow: if the trick holds a jack (or the face-up stock card the winner
  takes is a jack), duck with the highest card that does not win, else win as cheaply as
  possible when last to play, else play a sure-looking winner (ace/king or trump-high) or the
  lowest card.
* Following, void in the suit led: dump a jack onto a trick someone else will win, else ruff
  with the lowest trump when the trick is clean, else discard the lowest card.
* Leading: the lowest non-jack card of a non-trump suit (jacks are kept for dumping).

Measured with ``cardarena_sdk.local.play`` (``HeuristicBot(1)``, one heuristic seat rotating,
random opponents, 200 matches, seed 0; win share, ties shared), before -> after the 2-player
evaluator (the 3+ player rules did not change):

* Glaves, 2 players: 32.0% -> 97.8% (fair share 50%; 98.2%/98.0% with seeds 1/2).  In 400
  one-hand matches (``play_match``, ``deals=1``, seed 0) the opponent shot the moon 146 times
  before, 16 after, and the mean hand margin went from -2.0 to +6.6 points.
* Glaves, 3 players: 77.2% (fair 33%); 4 players: 58.8% (fair 25%).
* Knaves (3 players): 90.2% (fair 33%).
* German Whist: 66.0% -> 95.5% (fair 50%; 97.5%/97.0% with seeds 1/2).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

RANKS = "23456789TJQKA"
PENALTY = {"JH": 4, "JD": 3, "JC": 2, "JS": 1}
DECK = [r + s for s in "CDHS" for r in RANKS]
MOON = 25.0
"""Roughly what the opponent shooting the moon swings (16 to 0 instead of a normal split)."""
MOON_RISK = (0.0, 0.05, 0.15, 0.4, 1.0)
"""The chance they shoot it, by their jacks taken, while I have taken none."""
TRUMP_WORTH = (0.6, 0.04)
"""A trump in hand is worth 0.6 + 0.04 * rank index (2 = 0 .. ace = 12)."""
SIDE_WORTH = 0.03
"""A non-trump card in hand is worth 0.03 * rank index."""
JACK_HOLD = 0.3
"""A jack in hand is worth this much less per penalty point (Glaves)."""


def _rank(card: str) -> int:
    return RANKS.index(card[0])


def _beats(card: str, best: str, lead: str, trump: str | None) -> bool:
    if card[1] == best[1]:
        return _rank(card) > _rank(best)
    return card[1] == trump


def choose(view: dict[str, Any], legal: Sequence[str], rng: random.Random, *, moon: float = MOON) -> str:
    """Pick one of ``legal`` (``play:<card>`` ids) from the seat's view.  ``moon``: the swing
    the 2-player evaluator charges for leaving the opponent on course to shoot the moon (the
    ranking benchmark weakens the bot by scaling it)."""
    cards = [a.split(":", 1)[1] for a in legal if a.startswith("play:")]
    if not cards:
        return rng.choice(list(legal))
    trump: str | None = view.get("trump_suit")
    players = int(view.get("players") or 2)
    game = view.get("game")
    if players == 2 and game in ("glaves", "german_whist"):
        return "play:" + _two_player(view, cards, whist=game == "german_whist", moon_swing=moon)
    trick = [t["card"] for t in view.get("trick") or []]
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


def _worth(card: str, trump: str | None, jacks: bool) -> float:
    """How much ``card`` in hand is worth for winning later tricks."""
    r = _rank(card)
    w = TRUMP_WORTH[0] + TRUMP_WORTH[1] * r if card[1] == trump else SIDE_WORTH * r
    return w - JACK_HOLD * PENALTY.get(card, 0) if jacks else w


def _p_beat(card: str, trump: str | None, unknown: list[str], known: list[str], size: int) -> float:
    """The chance that an opponent playing at random beats ``card`` led.

    ``known`` are cards surely in their hand (``size`` cards), the rest are spread over
    ``unknown`` (their hand and the stock)."""
    q = (size - len(known)) / len(unknown) if unknown else 0.0
    suit, r = card[1], _rank(card)
    k_suit = [c for c in known if c[1] == suit]
    u_suit = [c for c in unknown if c[1] == suit]
    n_suit = len(k_suit) + q * len(u_suit)
    higher = sum(1 for c in k_suit if _rank(c) > r) + q * sum(1 for c in u_suit if _rank(c) > r)
    p_void = 0.0 if k_suit else (1 - q) ** len(u_suit)
    follow = higher / n_suit if n_suit > 0 else 0.0
    ruff = 0.0
    if trump and suit != trump and size:
        trumps = sum(1 for c in known if c[1] == trump) + q * sum(1 for c in unknown if c[1] == trump)
        ruff = min(1.0, trumps / size)
    return (1 - p_void) * follow + p_void * ruff


def _two_player(view: dict[str, Any], cards: list[str], *, whist: bool, moon_swing: float) -> str:
    """The best card by expected (my points - opponent's points); see the module docstring."""
    trump: str | None = view.get("trump_suit")
    me = int(view.get("seat") or 0)
    seats: list[dict[str, Any]] = list(view.get("seats") or [])
    opp: dict[str, Any] = seats[1 - me] if len(seats) == 2 else {}
    my_jacks = len(seats[me].get("jacks_taken") or []) if len(seats) == 2 else 0
    opp_jacks = list(opp.get("jacks_taken") or [])
    opp_known = list(opp.get("known_cards") or [])
    opp_size = int(opp.get("hand_size") or 0)
    trick = [t["card"] for t in view.get("trick") or []]
    face_up: str | None = view.get("stock_face_up")
    jacks = not whist
    seen = set(view.get("hand") or cards) | set(trick) | set(opp_jacks) | set(opp_known)
    seen |= {t["card"] for t in view.get("last_trick") or []}
    if len(seats) == 2:
        seen |= set(seats[me].get("jacks_taken") or [])
    if face_up:
        seen.add(face_up)
    unknown = [c for c in DECK if c not in seen]
    draw = 0.0
    if face_up and unknown:
        hidden = sum(_worth(c, trump, jacks) for c in unknown) / len(unknown)
        draw = _worth(face_up, trump, jacks) - hidden

    def moon(mine: int, theirs: int) -> float:
        return 0.0 if whist or mine else -moon_swing * MOON_RISK[min(theirs, 4)]

    now = moon(my_jacks, len(opp_jacks))

    def outcome(won: bool, played: list[str]) -> float:
        if whist:
            pts = 0.0 if face_up else 1.0
            return pts + draw if won else -pts - draw
        taken = [c for c in played if c in PENALTY]
        pts = 1 - sum(PENALTY[c] for c in taken)
        if won:
            return pts + draw + moon(my_jacks + len(taken), len(opp_jacks)) - now
        return -pts - draw + moon(my_jacks, len(opp_jacks) + len(taken)) - now

    def value(card: str) -> float:
        if trick:
            won = _beats(card, trick[0], trick[0][1], trump)
            expected = outcome(won, [*trick, card])
        else:
            p = _p_beat(card, trump, unknown, opp_known, opp_size)
            expected = (1 - p) * outcome(True, [card]) + p * outcome(False, [card])
        return expected - _worth(card, trump, jacks)

    return max(cards, key=value)
