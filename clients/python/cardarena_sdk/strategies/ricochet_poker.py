"""A heuristic Ricochet Poker bot that works only from the view JSON and the legal action ids.

All cards in Ricochet Poker are face up, so the only unknown is the order of the undealt
cards.  When it is the lowest hand the bot estimates, by sampling the unseen cards, the
chance ``p_k`` that buying ``k`` cards lifts it above the next-lowest hand still in, and
picks the buy with the best ``p_k * (pot / players_in + k) - k`` (``fold`` when no buy has
a positive value; chips already in the pot are sunk).

Measured (``tests/test_ricochet_poker.py::test_heuristic_beats_random``): in 4-player
matches (10 rounds, 20 chips each) with the bot in one seat (rotating) and three random
policies, over seeds 0-199, the bot finishes first (shared firsts included) in 93 of 200
matches (46.5%; a random player would reach 25%), with a mean final stack of 29.4 chips
against 16.9 for each random player.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

SAMPLES = 120
_RANKS = "23456789TJQKA"
_SUITS = "CDHS"


def _key(cards: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """Hand strength ignoring suits (category, ranks then kickers); longer prefixes win."""
    counts: dict[int, int] = {}
    for c in cards:
        r = _RANKS.index(c[0])
        counts[r] = counts.get(r, 0) + 1
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    reps = tuple(r for _, r in groups)
    shape = tuple(n for n, _ in groups)
    if len(cards) == 5 and len(groups) == 5:
        flush = len({c[1] for c in cards}) == 1
        straight, high = reps[0] - reps[4] == 4, reps[0]
        if reps == (12, 3, 2, 1, 0):
            straight, high = True, 3
        if straight:
            return (8 if flush else 4, (high,))
        return (5 if flush else 0, reps)
    if shape[0] == 4:
        return (7, reps)
    if shape[0] == 3:
        return (6 if len(shape) > 1 and shape[1] == 2 else 3, reps)
    if shape[0] == 2:
        return (2 if len(shape) > 1 and shape[1] == 2 else 1, reps)
    return (0, reps)


def _full_key(cards: Sequence[str]) -> tuple[tuple[int, tuple[int, ...]], tuple[int, ...]]:
    counts: dict[str, int] = {}
    for c in cards:
        counts[c[0]] = counts.get(c[0], 0) + 1
    order = sorted(cards, key=lambda c: (counts[c[0]], _RANKS.index(c[0]), _SUITS.index(c[1])), reverse=True)
    return _key(cards), tuple(_SUITS.index(c[1]) for c in order)


def escape_chances(
    hand: Sequence[str], floor: Sequence[str], unseen: Sequence[str], most: int, rng: random.Random
) -> list[float]:
    """``p[k-1]``: the chance that buying ``k`` cards lifts ``hand`` above ``floor``."""
    target = _full_key(floor)
    hits = [0] * (most + 1)
    pool = list(unseen)
    for _ in range(SAMPLES):
        rng.shuffle(pool)
        trial = list(hand)
        for n in range(1, most + 1):
            trial.append(pool[n - 1])
            if _full_key(trial) > target:
                hits[n] += 1
                break
    out: list[float] = []
    running = 0
    for n in range(1, most + 1):
        running += hits[n]
        out.append(running / SAMPLES)
    return out


def choose(view: dict[str, Any], legal: Sequence[str], rng: random.Random) -> str:
    """Pick ``fold`` or ``buy:<k>`` for the seat whose view this is."""
    buys = [a for a in legal if a.startswith("buy:")]
    if not buys:
        return "fold" if "fold" in legal else legal[0]
    me = view["seat"]
    seats = view["seats"]
    hand = seats[me]["hand"]
    live = [s for s in seats if s["status"] == "in" and s["seat"] != me]
    if not live:
        return buys[0]
    floor = min((s["hand"] for s in live), key=_full_key)
    seen = {c for s in seats for c in s["hand"]}
    unseen = [r + s for s in _SUITS for r in _RANKS if r + s not in seen]
    most = max(int(a.split(":")[1]) for a in buys)
    chances = escape_chances(hand, floor, unseen, most, rng)
    prize = view["pot"] / (len(live) + 1)
    best, pick = 0.0, "fold"
    for k, p in enumerate(chances, start=1):
        value = p * (prize + k) - k
        if value > best and f"buy:{k}" in legal:
            best, pick = value, f"buy:{k}"
    return pick
