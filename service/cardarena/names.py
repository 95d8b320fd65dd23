"""Bot names as people read them (pure: the standard library only, no IO).

* :func:`look`: what a name looks like on a page (case, width and look-alike letters aside);
  the bot store refuses a name whose look a registered bot has.
* :func:`plain`: what a name reads as (its look without accents).
* :func:`name_order`: the order a person looks for names in a list, the one every list of bots
  is shown in (the bot store's lists, ``cardarena bot list``, the dashboard and the API) and
  the order of bots sharing a place in the standings (``cardarena_tournament.standings``).

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
