"""Bot names as people read them (pure: the standard library only, no IO).

* :func:`look`: what a name looks like on a page (case, width and look-alike letters aside);
  the bot store refuses a name whose look a registered bot has.
* :func:`plain`: what a name reads as (its look without accents).
* :func:`name_order`: the order a person looks for names in a list, the one every list of bots
  is shown in (the bot store's lists, ``cardarena bot list``, the dashboard and the API) and
  the order of bots sharing a place in the standings (``cardarena_tournament.standings``);
  :func:`name_order_bytes`: the same order as bytes, for Redis to keep (the game leaderboards'
  index lists bots of equal rating in it).

Here rather than in :mod:`cardarena.store.bots` so that the pure layers (the tournaments'
standings) can order names as the store does without depending on the store (Redis).
"""

from __future__ import annotations

import re
import unicodedata

_LOOK_ALIKES = str.maketrans(
    {
        # Cyrillic, after case folding (so the capitals too: А В Е К М Н О Р С Т У Х ...)
        "а": "a", "в": "b", "е": "e", "з": "3", "і": "i", "ј": "j", "к": "k", "м": "m", "н": "h",
        "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q",
        "ԝ": "w", "ү": "y", "һ": "h", "ӏ": "l",
        # Greek, after case folding (Α Β Ε Ζ Η Ι Κ Μ Ο Ρ Τ Υ Χ ...)
        "α": "a", "β": "b", "ε": "e", "ζ": "z", "η": "h", "ι": "i", "κ": "k", "μ": "m", "ο": "o",
        "ρ": "p", "τ": "t", "υ": "y", "χ": "x",
        # Latin letters that pass for others
        "ı": "i", "ɑ": "a", "ɡ": "g", "ʟ": "l",
    }
)  # fmt: skip


def look(name: str) -> str:
    """What a bot name looks like on a page: its NFKC form (full-width and other compatibility
    letters as the plain ones), case folded, with Cyrillic and Greek letters that look like Latin
    ones read as those.  Two names with the same look would pass for each other."""
    return unicodedata.normalize("NFKC", name).casefold().translate(_LOOK_ALIKES)


def plain(name: str) -> str:
    """What a bot name reads as: its look (:func:`look`) without accents, so ``José``, ``jose``
    and ``JOSE`` read the same."""
    return "".join(c for c in unicodedata.normalize("NFKD", look(name)) if not unicodedata.combining(c))


_WORDS = re.compile(r"\d+|[^\W\d_]+")
"""The runs of digits and of letters of a name (punctuation, spaces and ``_`` between them)."""


def name_order(name: str) -> tuple[tuple[tuple[int, int, str], ...], str, str, str]:
    """The sort key of bot names in the order a person looks for them in a list: by the words
    and numbers they read as (:func:`plain`: case and accents aside), punctuation aside, numbers
    by value and before words (``<b>alice</b>`` under b, ``Bob`` beside ``bob``, ``bot-2``
    before ``bot-10``).  Names that read the same follow the order of their plain forms with
    their punctuation, then without an accent before with one (``eve``, ``Éve``), then of their
    characters: a total order, the same everywhere (``cardarena bot list``, ``Admin.ListBots``,
    the dashboard's and the API's bot lists, and bots sharing a place in the standings)."""
    folded = plain(name)
    words = tuple((0, int(w), w) if w.isdigit() else (1, 0, w) for w in _WORDS.findall(folded))
    return words, folded, look(name), name


def _text(text: str) -> bytes:
    """``text`` as bytes that end themselves and sort as the text: its UTF-8 (which sorts as the
    code points) with the bytes 0 and 1 written as 1 2 and 1 3, then 1 1, below any character."""
    return text.encode().replace(b"\x01", b"\x01\x03").replace(b"\x00", b"\x01\x02") + b"\x01\x01"


def name_order_bytes(name: str) -> bytes:
    """``name`` as bytes in :func:`name_order`'s order when compared byte by byte, as Redis
    orders the members of a sorted set that share a score: the parts of its key, each ending
    itself (a number as its count of digits, then its digits, so by value; a word or a text as
    :func:`_text` writes it), then a 0 byte and ``name`` in UTF-8.  No byte before that 0 is 0,
    so the name is what follows the first 0 byte (:func:`name_of_order_bytes`)."""
    words, folded, shown, _ = name_order(name)
    out = bytearray()
    for kind, value, text in words:
        if kind == 0:  # a number: 3, its count of digits in two bytes (never 0), the digits
            digits = str(value).encode()
            out += bytes((3, 1 + len(digits) // 255, 1 + len(digits) % 255)) + digits
        else:  # a word: 4, above a number, as in name_order
            out += b"\x04"
        out += _text(text)
    out += b"\x02"  # the words end, below another word: fewer words first
    out += _text(folded) + _text(shown) + b"\x00" + name.encode()
    return bytes(out)


def name_of_order_bytes(raw: bytes) -> str:
    """The name :func:`name_order_bytes` wrote ``raw`` for."""
    return raw[raw.index(b"\x00") + 1 :].decode()
