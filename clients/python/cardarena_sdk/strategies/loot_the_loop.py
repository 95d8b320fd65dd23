"""A heuristic Loot the Loop bot that works only from the view JSON and the legal action ids.

The whole deck's face-up cards are public, so the bot simulates its own moves: a depth-3
search over ``explore``, ``mark`` and ``return`` (``look`` is a leaf: it reveals unknown
cards) that scores each line by the cards nabbed (discounted by depth), a large penalty for
landing on a face-up trap, a small reward for looking around or landing on a face-down card
(progress that reveals cards) and, at the leaves, whether a safe move remains.  The exit is
treated as an ordinary empty room until the turn limit is near, since the score counts the
score pile whether or not the player escapes.  At setup it stacks the piles so that a pile
with a face-up trinket comes first.

Measured (``play_match`` over seeds 0-199): mean score 6.33 against 1.07 for uniformly random
play.  ``tests/test_loot_the_loop.py`` asserts a margin of more than 4 points on seeds 0-39.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

Deck = list[tuple[str | None, bool]]


def _trinket(card: str | None) -> int:
    if not card or card == "JK" or card[0] not in "23456789T":
        return 0
    return "..23456789T".index(card[0])


def _trap(card: str | None) -> bool:
    return bool(card) and card != "JK" and card[0] in "JQK"  # type: ignore[index]


def _moves(deck: Deck, notes: list[str]) -> list[str]:
    out: list[str] = []
    if deck and not deck[0][1]:
        out.append("look")
    seen: set[int] = set()
    for card, up in deck[:2]:
        v = _trinket(card)
        if up and v and v not in seen:
            seen.add(v)
            out.append(f"explore:{v}")
    if deck and deck[0][1] and _trinket(deck[0][0]) and len(notes) < 3:
        out.append("mark")
    out += [f"return:{c}" for c in notes]
    return out


def _step(deck: Deck, notes: list[str], action: str) -> tuple[float, Deck, list[str], bool]:
    """Immediate value, the next deck and notes, and whether the line ends here."""
    kind, _, rest = action.partition(":")
    if kind == "look":
        return 0.6, deck, notes, True
    if kind == "explore":
        rot = int(rest) % len(deck)
        deck = deck[rot:] + deck[:rot]
        card, up = deck[0]
        if not up:
            return 0.3, deck, notes, True
        if _trap(card):
            return -1000.0, deck, notes, True
        if card == "JK":
            return 0.0, deck, notes, False
        return 1.0, deck[1:], notes, False
    if kind == "mark":
        return -0.05, deck[1:], [*notes, str(deck[0][0])], False
    return -0.05, [(rest, True), *deck], [n for n in notes if n != rest], False


def _search(deck: Deck, notes: list[str], depth: int) -> float:
    moves = _moves(deck, notes)
    if not moves:
        return -50.0
    best = -2000.0
    for move in moves:
        gain, d2, n2, leaf = _step(deck, notes, move)
        total = gain if leaf or depth <= 1 else gain + 0.9 * _search(d2, n2, depth - 1)
        best = max(best, total)
    return best


def choose(view: dict[str, Any], legal: Sequence[str], rng: random.Random) -> str:
    """Pick one of ``legal`` for the Loot the Loop view ``view``."""
    if legal[0].startswith("stack:"):
        piles = view["piles"]

        def first_value(order: str) -> float:
            top = piles[int(order[0])]["face_up"]
            return max((_trinket(c) for c in top), default=0) - 10 * any(_trap(c) for c in top[:1])

        return max(legal, key=lambda a: (first_value(a[6:]), -legal.index(a)))
    deck: Deck = [(e["card"], bool(e["face_up"])) for e in view["deck"]]
    notes = list(view["notes"])
    near_end = view["max_turns"] - view["turns"] <= 3
    if near_end:
        for action in legal:
            if action.startswith("explore:"):
                card, up = deck[int(action[8:]) % len(deck)]
                if up and card == "JK" and view["jewels"] == 4:
                    return action
    scored: list[tuple[float, float, str]] = []
    for action in legal:
        gain, d2, n2, leaf = _step(deck, notes, action)
        value = gain if leaf else gain + 0.9 * _search(d2, n2, 2)
        scored.append((value, rng.random(), action))
    return max(scored)[2]
