"""The one random number generator of a match.

Every random outcome of a match (the shuffle, the first dealer, a random discard) is drawn
from one :class:`MatchRng` seeded by the match seed.  It is built only on
``random.Random.getrandbits`` with an integer seed, whose output CPython keeps identical
across versions and platforms; ``shuffle`` and ``below`` are implemented here so that no
change to the standard library's derived helpers can alter a deal.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import MutableSequence, Sequence
from functools import cache
from typing import TypeVar

T = TypeVar("T")


@cache
def _factorial(n: int) -> int:
    return math.factorial(n)


def seed_to_int(seed: int | str) -> int:
    """Normalise a seed: non-negative integers pass through, anything else is hashed."""
    if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0:
        return seed
    digest = hashlib.sha256(str(seed).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


class MatchRng:
    """A seeded, reproducible source of randomness for one match."""

    __slots__ = ("_random", "seed")

    def __init__(self, seed: int | str) -> None:
        self.seed = seed_to_int(seed)
        self._random = random.Random(self.seed)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling on raw bits)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        bits = n.bit_length()
        getrandbits = self._random.getrandbits
        r = getrandbits(bits)
        while r >= n:
            r = getrandbits(bits)
        return r

    def random(self) -> float:
        """A uniform float in ``[0, 1)`` with 53 bits of precision."""
        return self._random.getrandbits(53) / 9007199254740992.0

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle ``items`` in place, every order equally likely.

        One uniform integer below ``len(items)!`` (rejection-sampled from raw bits) is read
        as a mixed-radix number whose digits drive a Fisher-Yates pass: exact, and far
        cheaper than one bounded draw per card.
        """
        n = len(items)
        if n < 2:
            return
        code = self.below(_factorial(n))
        for i in range(n - 1, 0, -1):
            code, j = divmod(code, i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: Sequence[T]) -> T:
        """A uniformly chosen element of a non-empty sequence."""
        return items[self.below(len(items))]

    def derive(self, label: str) -> MatchRng:
        """An independent generator for ``label`` (e.g. a bot's own randomness)."""
        return MatchRng(f"{self.seed}/{label}")
