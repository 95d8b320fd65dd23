"""Bot names as bytes in people order (``cardarena.names.name_order_bytes``), which the game
leaderboards' index in Redis keeps: compared byte by byte they sort exactly as ``name_order``."""

from __future__ import annotations

from cardarena.names import name_of_order_bytes, name_order, name_order_bytes
from hypothesis import given, settings
from hypothesis import strategies as st

from .dashboard_data import CLASS_IN_PEOPLE_ORDER

PIECES = [
    "a", "A", "b", "é", "É", "e\u0301", "ｂ", "ß", "ss",
    "0", "00", "2", "10", "٣", "²", "-", "_", " ", "<", "\x00", "\x01",
]  # fmt: skip
"""Parts names are made of where the order is subtle: case, accents (composed or not),
full-width and folded letters, numbers with leading zeros or in other scripts, punctuation, and
the bytes the encoding escapes."""

names = st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join) | st.text(min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(st.lists(names, min_size=2, max_size=12, unique=True))
def test_the_bytes_sort_as_people_order_and_give_the_name_back(found: list[str]) -> None:
    assert sorted(found, key=name_order_bytes) == sorted(found, key=name_order)
    assert [name_of_order_bytes(name_order_bytes(n)) for n in found] == found


def test_a_class_in_people_order_is_in_byte_order_as_bytes() -> None:
    assert sorted(CLASS_IN_PEOPLE_ORDER, key=name_order_bytes) == list(CLASS_IN_PEOPLE_ORDER)
    assert sorted(["bot-10", "bot-2", "bot-02", "bot2", "bot"], key=name_order_bytes) == [
        "bot", "bot-02", "bot-2", "bot2", "bot-10"
    ]  # fmt: skip
