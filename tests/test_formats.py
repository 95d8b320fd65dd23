"""Tournament formats: balance properties (hypothesis) and bad input."""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import pytest
from cardarena_tournament.formats import FormatError, match_id_for, schedule, seatings
from hypothesis import given, settings
from hypothesis import strategies as st


def _bots(n: int) -> list[str]:
    return [f"bot{i}" for i in range(n)]


fields = st.tuples(st.integers(1, 4), st.integers(1, 8), st.integers(1, 3), st.integers(0, 10**6)).filter(
    lambda t: t[0] == 1 or t[1] >= t[0]
)


@settings(max_examples=60, deadline=None)
@given(fields)
def test_every_deal_is_played_in_every_seating(case: tuple[int, int, int, int]) -> None:
    players, n, deal_sets, seed = case
    matches = schedule("t1", _bots(n), players, deal_sets, seed=seed)
    ids = [m.match_id for m in matches]
    assert len(ids) == len(set(ids))
    check_deal_sets(matches, players)


def check_deal_sets(matches: Sequence[Any], players: int) -> None:
    """Every deal set (``.deal_set``) has one seed and is played in every seating, and in each
    pass (one seating of every deal set) no deal set appears twice.  ``matches``: in play
    order, with ``seats``, ``seed`` and ``deal_set`` (a ``ScheduledMatch``, or a match of
    ``tournament run --json`` as a namespace)."""
    by_unit = defaultdict(list)
    for m in matches:
        by_unit[m.deal_set].append(m)
    for unit in by_unit.values():
        assert len({m.seed for m in unit}) == 1
        if players > 1:
            assert sorted(m.seats for m in unit) == sorted(seatings(list(unit[0].seats)))
    n_units = len(by_unit)
    passes = [matches[i : i + n_units] for i in range(0, len(matches), n_units)] if players > 1 else [matches]
    for p in passes:
        if players > 1:
            assert len({m.deal_set for m in p}) == len(p)


@settings(max_examples=60, deadline=None)
@given(fields)
def test_pairs_meet_and_seats_balance(case: tuple[int, int, int, int]) -> None:
    players, n, deal_sets, seed = case
    bots = _bots(n)
    check_balance(schedule("t1", bots, players, deal_sets, seed=seed), bots, players)


def check_balance(matches: Sequence[Any], bots: Sequence[str], players: int) -> None:
    """Every pair of ``bots`` meets equally often and every bot sits in every seat equally often
    (solitaires: every bot plays the same seeds); ``matches`` as for :func:`check_deal_sets`."""
    if players == 1:
        seeds = defaultdict(set)
        for m in matches:
            seeds[m.seats[0]].add(m.seed)
        assert len({frozenset(s) for s in seeds.values()}) == 1  # every bot plays the same seeds
        assert len(seeds) == len(bots)
        return
    pairs = Counter(frozenset(p) for m in matches for p in itertools.combinations(m.seats, 2))
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(bots, 2)}
    assert len(set(pairs.values())) == 1
    seat_counts = Counter((bot, seat) for m in matches for seat, bot in enumerate(m.seats))
    assert len(set(seat_counts.values())) == 1
    assert len(seat_counts) == len(bots) * players


def test_balanced_groups_when_subsets_unaffordable() -> None:
    bots = _bots(12)
    matches = schedule("t", bots, 4, 1, seed=3, max_tables=30)
    seat_counts = Counter((bot, seat) for m in matches for seat, bot in enumerate(m.seats))
    per_bot = Counter(b for m in matches for b in m.seats)
    assert len(per_bot) == 12 and max(per_bot.values()) == min(per_bot.values())
    # within each bot, every seat equally often (cyclic rotations of each table)
    for bot in bots:
        assert len({seat_counts[(bot, s)] for s in range(4)}) == 1


@pytest.mark.parametrize(
    ("n", "players", "most", "apart_at_most"),
    [(24, 3, 2, 0), (40, 3, 1, 390), (24, 4, 4, 0), (40, 4, 2, 120), (9, 4, 21, 0)],
)
def test_balanced_groups_spread_the_meetings_over_the_pairs(
    n: int, players: int, most: int, apart_at_most: int
) -> None:
    """A course's field (24-40 bots, 3-4 players) is too large for every k-subset: its groups
    are formed so that members have met as little as possible. With 24 bots at 3 players the
    120 tables (360 meetings) reach every one of the 276 pairs, none more than twice (a plain
    shuffle left 72 pairs apart and one pair together 6 times); with 40 bots no pair meets
    twice while any has not met (390 apart is the least 130 tables allow)."""
    bots = _bots(n)
    matches = schedule("t", bots, players, 1, seed="s")
    tables = {(m.round, m.table): m.seats for m in matches}
    meets = Counter(frozenset(p) for seats in tables.values() for p in itertools.combinations(seats, 2))
    assert max(meets.values()) <= most
    assert n * (n - 1) // 2 - len(meets) <= apart_at_most
    per_bot = Counter(b for seats in tables.values() for b in seats)
    assert max(per_bot.values()) - min(per_bot.values()) <= 1


def test_ids_are_deterministic_and_shaped() -> None:
    a = schedule("t9", _bots(4), 3, 2, seed="x")
    b = schedule("t9", _bots(4), 3, 2, seed="x")
    assert a == b
    assert len(a) == 4 * 6 * 2
    assert all(m.match_id == match_id_for("t9", "x", m.round, m.table, m.seating, m.deal) for m in a)
    coordinates = [(m.round, m.table, m.seating, m.deal) for m in a]
    assert coordinates != sorted(coordinates)  # interleaved


def test_seatings_rotations_for_four_or_more() -> None:
    assert len(seatings(["a", "b", "c"])) == 6
    assert seatings(["a", "b", "c", "d"]) == [
        ("a", "b", "c", "d"),
        ("b", "c", "d", "a"),
        ("c", "d", "a", "b"),
        ("d", "a", "b", "c"),
    ]


@pytest.mark.parametrize(
    ("bots", "players", "deal_sets", "message"),
    [
        (["a", "b"], 3, 1, "need at least 3"),
        (["a", "a", "b"], 2, 1, "repeated: a"),
        (["a", "b:c"], 2, 1, "bad bot name"),
        (["a", "b"], 2, 0, "deal sets"),
        ([], 1, 1, "no entrants"),
    ],
)
def test_bad_input(bots: list[str], players: int, deal_sets: int, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        schedule("t", bots, players, deal_sets)


@pytest.mark.parametrize(
    ("bots", "players", "max_tables"), [(4, 2, 120), (5, 2, 120), (4, 3, 120), (5, 4, 120), (9, 4, 5), (3, 1, 120)]
)
def test_deal_set_members_are_the_matches_of_each_deal_set(bots: int, players: int, max_tables: int) -> None:
    """``deal_set_members`` rebuilds, from a match's deal set and the tournament's seed, every
    id of its deal set (the matches playing the same cards): what the dashboard withholds
    replays by.  ``deal_set_ids`` does the same from a readable id of an earlier version."""
    from cardarena_tournament.formats import deal_set_ids, deal_set_members

    entrants = [f"b{i}" for i in range(bots)]
    matches = schedule("tt", entrants, players, 2, seed="s", max_tables=max_tables)
    by_set: dict[str, set[str]] = {}
    for m in matches:
        by_set.setdefault(m.deal_set, set()).add(m.match_id)
    for m in matches:
        ids = deal_set_members("tt", "s", m.deal_set, players, bots)
        assert set(ids) == by_set[m.deal_set] and len(ids) == len(by_set[m.deal_set]), m
        assert len({x.seed for x in matches if x.match_id in ids}) == 1  # one deal
        assert deal_set_ids("tt", m.match_id, players, bots) is None  # not a readable id
        assert deal_set_members("tt", "other seed", m.deal_set, players, bots) != ids
        # The readable id of an earlier version names its deal set by itself.
        readable = f"tt:{m.round}:{m.table}:{m.seating}:{m.deal}"
        old = deal_set_ids("tt", readable, players, bots)
        assert old is not None and readable in old and len(old) == len(ids)
    for bad in ("", "x", "0:0", "0:0:0:0", "0:01:0", "0:\u00b2:0"):
        assert deal_set_members("tt", "s", bad, players, bots) == []
    for other in ("tt:0:0:0", "tt:0:0:0:0:0", "t:0:0:0:0", "tt:0:0:x:0", "tt:0:0:01:0", "tt:0:0:\u00b2:0", "match-1"):
        assert deal_set_ids("tt", other, players, bots) is None


def test_match_ids_do_not_give_away_which_matches_replay_a_deal() -> None:
    """A bot sees its match ids (and the public match lists): they are the tournament id and 16
    hex digits, and nothing in them is shared by the seatings of a deal or follows the
    schedule's coordinates; the same seed gives the same ids, another seed others."""
    matches = schedule("tt", ["a", "b", "c", "d"], 2, 3, seed="secret")
    ids = [m.match_id for m in matches]
    assert all(re.fullmatch(r"tt:[0-9a-f]{16}", mid) for mid in ids), ids[:3]
    assert len(set(ids)) == len(ids)
    assert ids == [m.match_id for m in schedule("tt", ["a", "b", "c", "d"], 2, 3, seed="secret")]
    assert not set(ids) & {m.match_id for m in schedule("tt", ["a", "b", "c", "d"], 2, 3, seed="other")}
    by_set: dict[str, list[str]] = {}
    for m in matches:
        by_set.setdefault(m.deal_set, []).append(m.match_id[3:])
    for pair in by_set.values():
        a, b = pair
        assert not a.startswith(b[:4]) and not a.endswith(b[-4:]), pair  # no shared readable part
