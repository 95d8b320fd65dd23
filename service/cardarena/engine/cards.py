"""Playing cards as two-character codes (rank then suit) and their 52-bit mask form.

A card code is ``<rank><suit>``: ranks ``2 3 4 5 6 7 8 9 T J Q K A``, suits ``C D H S``
(clubs, diamonds, hearts, spades).  Inside the rules a standard card is an index
``suit * 13 + rank`` (rank 0 is the two, 12 the ace) and a set of cards is an ``int``
bit mask; the helpers here convert between the forms.  Nothing here does IO.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "CDHS"
"""Suit letters in index order: clubs, diamonds, hearts, spades."""
RANKS = "23456789TJQKA"
"""Rank letters from low (two) to high (ace)."""
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
"""English suit names, for messages a bot author reads."""
SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
"""Suit symbols, for labels."""

CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
"""Every standard card code, indexed by card index (``suit * 13 + rank``)."""
INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES)}
"""Card code to card index."""
BIT: tuple[int, ...] = tuple(1 << i for i in range(52))
"""Card index to its bit in a card mask."""
SUIT_MASK: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
"""Suit index to the mask of its thirteen cards."""
FULL_DECK = (1 << 52) - 1
"""Mask of the standard 52-card deck."""

_SUIT_CODES: list[dict[int, tuple[str, ...]]] = [{} for _ in range(4)]


def suit_of(card: int) -> int:
    """Suit index (0..3) of a card index."""
    return card // 13


def rank_of(card: int) -> int:
    """Rank index (0 = two .. 12 = ace) of a card index."""
    return card % 13


def codes_of(mask: int) -> tuple[str, ...]:
    """The codes of the cards in ``mask``, clubs first, low to high within a suit."""
    out: tuple[str, ...] = ()
    for s in range(4):
        part = (mask >> (13 * s)) & 0x1FFF
        if part:
            cache = _SUIT_CODES[s]
            got = cache.get(part)
            if got is None:
                got = tuple(CODES[13 * s + r] for r in range(13) if part >> r & 1)
                cache[part] = got
            out += got
    return out


def mask_of(codes: Iterable[str]) -> int:
    """The mask of the given card codes; raises ``KeyError`` on an unknown code."""
    mask = 0
    for code in codes:
        mask |= BIT[INDEX[code]]
    return mask


def is_card_code(code: object) -> bool:
    """Whether ``code`` is a standard card code such as ``"QH"``."""
    return isinstance(code, str) and code in INDEX


def label(code: str) -> str:
    """A human label for a standard card code, e.g. ``"Q\u2665"`` for ``"QH"``."""
    rank = "10" if code[0] == "T" else code[0]
    return rank + SUIT_SYMBOLS.get(code[1], code[1])
