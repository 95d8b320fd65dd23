"""Deal identity of duplicate matches: in games with ``Game.deals_fixed_by_seed`` the k-th deal
(cards and dealer) is a function of (match seed, k) whatever is played, so every seating of a
duplicate deal set is dealt the same k-th deal, the hands following the seats.  The standings
compare such matches deal by deal (``cardarena_tournament.standings``)."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import pytest
from cardarena.engine import CHANCE, Policy, State, games, play_match
from cardarena_sdk.strategies import glaves as glaves_heuristic
from cardarena_tournament.formats import derive_seed, schedule

FIXED = sorted(gid for gid, g in games().items() if g.deals_fixed_by_seed)
MULTI_DEAL = {"german_whist": {"deals": 4}}
"""Options that make a match last several deals (the default is one deal)."""


def _random(seed: int) -> Policy:
    rng = random.Random(seed)
    return lambda view, legal, seat: legal[rng.randrange(len(legal))]


def _heuristic(seed: int) -> Policy:
    rng = random.Random(seed)
    return lambda view, legal, seat: str(glaves_heuristic.choose(view.to_json(), list(legal), rng))


def deal_mismatch(a: State, b: State) -> str | None:
    """Where two matches on one seed were dealt differently (over the deals both played), or
    where a deal drew a chance outcome after it opened; ``None`` if neither happened."""
    for k, (x, y) in enumerate(zip(a.deal_records(), b.deal_records(), strict=False)):
        if (x.dealer, x.chance) != (y.dealer, y.chance):
            return f"deal {k} differs"
    for state in (a, b):
        for k, record in enumerate(state.deal_records()):
            if any(seat == CHANCE for seat, _ in record.actions):
                return f"chance outcome during deal {k}"
    return None


def _pair(game_id: str, players: int, seed: int, options: dict[str, Any] | None = None) -> tuple[State, State]:
    a = play_match(game_id, players, [_random(7 * seed + s) for s in range(players)], seed=seed, options=options)
    b = play_match(game_id, players, [_random(7 * seed + 100 + s) for s in range(players)], seed=seed, options=options)
    return a, b


def test_the_flagged_games() -> None:
    # Gleek deals this way too, but its result (the stake balance) is not the sum of its deals' scores.
    assert FIXED == ["german_whist", "glaves", "knaves", "schnapsen"]


@pytest.mark.parametrize(("game_id", "players"), [(g, n) for g in FIXED for n in games()[g].player_counts])
def test_kth_deal_does_not_depend_on_play(game_id: str, players: int) -> None:
    multi = 0
    for seed in range(12):
        a, b = _pair(game_id, players, seed, MULTI_DEAL.get(game_id))
        assert deal_mismatch(a, b) is None, (seed, deal_mismatch(a, b))
        assert [r.actions for r in a.deal_records()] != [r.actions for r in b.deal_records()]  # play differed
        multi += len(a.deal_records()) > 1 and len(b.deal_records()) > 1
        for state in (a, b):  # the final scores are the sums of the deals' scores
            by_deal = state.scores_by_deal()
            assert by_deal is not None and len(by_deal) == len(state.deal_records())
            totals = [sum(deal[s] for deal in by_deal) for s in range(players)]
            assert totals == pytest.approx(list(state.result().scores))
    assert multi >= 10  # the property was exercised on matches of several deals


def test_glaves_duplicate_deal_set_deals_the_same_kth_deal_in_every_seating() -> None:
    """Full Glaves matches (to 46) from a tournament schedule: a strong and a random bot swap
    seats, the matches differ in length, and still deal k is the same in both seatings."""
    bots = {"strong": _heuristic, "weak": _random}
    played: dict[str, list[tuple[Sequence[str], State]]] = defaultdict(list)
    for m in schedule("t", ["strong", "weak"], 2, 8, seed="dup"):
        policies = [bots[bot](derive_seed(m.match_id, s)) for s, bot in enumerate(m.seats)]
        played[m.deal_set].append((m.seats, play_match("glaves", 2, policies, seed=m.seed)))
    unequal = 0
    for (seats_a, a), (seats_b, b) in played.values():
        assert tuple(seats_a) == tuple(reversed(seats_b))
        assert deal_mismatch(a, b) is None
        first = a.deal_records()[0].chance["hands"]
        assert first == b.deal_records()[0].chance["hands"]  # seat s holds the same hand in both seatings
        unequal += len(a.deal_records()) != len(b.deal_records())
    assert unequal >= 1  # some pair differs in length: the standings' common prefix matters


@pytest.mark.parametrize(("game_id", "players", "options"), [("le_truc", 2, None), ("bourre", 8, None)])
def test_games_that_draw_during_a_deal_are_not_flagged(game_id: str, players: int, options: Any) -> None:
    """Positive control of :func:`deal_mismatch`: these games reshuffle or draw mid-deal, so the
    k-th deal depends on play; the check sees it, and they are not flagged."""
    assert not games()[game_id].deals_fixed_by_seed
    assert any(deal_mismatch(*_pair(game_id, players, seed, options)) for seed in range(12))


def test_scores_by_deal_is_none_while_a_deal_is_in_play() -> None:
    state = games()["glaves"].new_state(2)
    assert state.scores_by_deal() is None
    from cardarena.engine import MatchRng

    state.apply_chance(state.sample_chance(MatchRng(3)))
    assert state.scores_by_deal() is None
    done = play_match("glaves", 2, [_random(1), _random(2)], seed=3, options={"deals": 2})
    by_deal = done.scores_by_deal()
    assert by_deal is not None and len(by_deal) == 2 and all(sum(d) == 16 for d in by_deal)
