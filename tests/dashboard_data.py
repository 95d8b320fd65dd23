"""Seed data for the dashboard tests, written only through the store modules.

Matches are played by the engine (``play_match`` + ``build_replay``) and completed through
``MatchStore``; the tournament, its counted results, ratings and standings snapshot go
through ``TournamentStore`` with the tournament package's pure ``compute``/``crosstable``/``rate_match``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cardarena.engine import MatchRng, build_replay, get_game, play_match, random_policy
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchSpec, MatchStore
from cardarena.store.tournaments import Tournament, TournamentStore
from cardarena.think import action_seats, summary
from cardarena_tournament.standings import Outcome, compute, crosstable, rate_match

XSS = "<script>alert(1)</script>"
"""A hostile bot name: every page must show it as text."""
GAME = "glaves"
BOTS = ("alpha", "beta", XSS)
LONG_NAME = "monte_carlo_tree_search_with_information_set_determinization"
"""A long bot name with nowhere to break a line (no space, no hyphen): wider than a phone."""
LEAGUE = (*BOTS, LONG_NAME, "counterfactual_regret_minimisation_v2", "gamma", "delta", "epsilon")
"""Eight entrants, two of them long-named, as a course's league has."""

CLASS_IN_PEOPLE_ORDER = ("alice", "Bob", "bot-2", "bot-10", "_dora", "Émile", "eve", "Éve", "<i>carol</i>", "zed")
"""A class's bot names in the order a person looks for them (``cardarena.names.name_order``):
case, accents and punctuation aside, numbers by value; byte order would start with
``<i>carol</i>``, ``Bob`` and ``_dora`` and end with ``Émile`` and ``Éve``."""


@dataclass
class Seeded:
    """What :func:`seed` wrote."""

    tournament: str
    bots: tuple[str, ...] = BOTS
    """The entrants."""
    finished: list[str] = field(default_factory=list)
    """Finished match ids (with replays)."""
    pending: list[str] = field(default_factory=list)
    """Scheduled, not yet finished match ids (the last one is running)."""
    outcomes: list[Outcome] = field(default_factory=list)


def _stores(url: str) -> tuple[MatchStore, TournamentStore, BotStore]:
    client = client_for(url)
    return MatchStore(client), TournamentStore(client), BotStore(client)


def finish_match(url: str, seeded: Seeded, mid: str) -> None:
    """Play a scheduled match with the engine, complete it, count it and refresh standings."""
    matches, tournaments, _ = _stores(url)
    spec = matches.spec(mid)
    assert spec is not None
    if matches.status(mid) == "queued":
        while (got := matches.claim("test-instance", wait_s=0.2)) is not None and got.match_id != mid:
            pass
    policies = [random_policy(MatchRng(f"{spec.seed}/{s}")) for s in range(spec.players)]
    state = play_match(spec.game, spec.players, policies, seed=spec.seed, options=spec.options)
    replay = build_replay(state, seed=spec.seed, seats=spec.seats, extra={"match_id": mid})
    result = state.result().to_json()
    assert matches.complete(mid, "test-instance", result, replay)
    tournaments.record(seeded.tournament, mid, result)
    seeded.outcomes.append(
        Outcome(mid, spec.seats, tuple(result["scores"]), tuple(result["ranks"]), mid.rsplit(":", 1)[-1])
    )
    tournaments.apply_rating(spec.game, mid, spec.seats, lambda cur: rate_match(cur, spec.seats, result["ranks"]))
    snapshot = compute(seeded.outcomes, seeded.bots, resamples=200)
    cross = crosstable(seeded.outcomes, [r.bot for r in snapshot.rows], resamples=200)
    tournaments.save_standings(seeded.tournament, snapshot.to_json(), cross.to_json())
    if mid in seeded.pending:
        seeded.pending.remove(mid)
    seeded.finished.append(mid)


def seed(url: str, *, tournament: str = "cup", finished: int = 4, entrants: Sequence[str] = BOTS) -> Seeded:
    """``entrants`` (three bots), a two-player Glaves round robin of one deal per match;
    ``finished`` played."""
    matches, tournaments, bots = _stores(url)
    for name in entrants:
        if not bots.exists(name):
            bots.register(name)
    bots.count("beta", "timeouts", 2)
    bots.count("beta", "illegal_actions", 1)
    t = Tournament(
        id=tournament,
        name="Spring <Cup> & friends",
        game=GAME,
        players=2,
        entrants=tuple(entrants),
        deal_sets=2,
        options={"deals": 1},
    )
    tournaments.create(t)
    schedule = []
    for deal in range(2):
        for a, b in itertools.permutations(entrants, 2):
            i, j = entrants.index(a), entrants.index(b)
            schedule.append({"match_id": f"{tournament}:0:{i}{j}:{deal}", "seats": [a, b], "deal": deal})
    tournaments.start(tournament, schedule)
    seeded = Seeded(tournament, tuple(entrants))
    for entry in schedule:
        spec = MatchSpec(
            match_id=entry["match_id"],
            game=GAME,
            players=2,
            seats=tuple(entry["seats"]),
            seed=f"{tournament}/{entry['deal']}",
            options={"deals": 1},
            tournament=tournament,
        )
        matches.enqueue(spec)
        seeded.pending.append(spec.match_id)
    for mid in list(seeded.pending[:finished]):
        finish_match(url, seeded, mid)
    # one running match: claimed, never completed
    running = seeded.pending[0]
    while (got := matches.claim("test-instance", wait_s=0.2)) is not None and got.match_id != running:
        pass
    return seeded


def store_game_match(url: str, game_id: str, players: int, deals: int = 1, seed: int = 7) -> tuple[str, dict]:
    """A finished match of ``game_id`` (random play, ``seed``, ``deals`` deals where the game has
    that option) stored through ``MatchStore``: its id and replay."""
    matches = MatchStore(client_for(url))
    mid = f"render-{game_id}-{players}p" + ("" if seed == 7 else f"-{seed}")
    seats = tuple(f"bot-{s + 1}" for s in range(players))
    options = {"deals": deals} if "deals" in get_game(game_id).option_defaults(players) else {}
    spec = MatchSpec(match_id=mid, game=game_id, players=players, seats=seats, seed=seed, options=options)
    assert matches.enqueue(spec)
    assert matches.claim("render-test", wait_s=1.0) == spec
    policies = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(players)]
    state = play_match(game_id, players, policies, seed=seed, options=options)
    replay = build_replay(state, seed=seed, seats=seats, extra={"match_id": mid})
    assert matches.complete(mid, "render-test", state.result().to_json(), replay)
    return mid, replay


@dataclass
class SeededSchedules:
    """What :func:`seed_schedules` wrote."""

    nightly: str
    """Cron, every registered bot, not run yet."""
    hourly: str
    """Interval, two named bots (one hostile), run once: :attr:`run` is its tournament."""
    broken: str
    """Interval, every bot at 4 players: its run could not be created (too few bots)."""
    run: str
    now: float


def seed_schedules(url: str, now: float = 1_800_000_000.0) -> SeededSchedules:
    """Three recurring schedules through ``lifecycle`` (as ``tournament create --schedule`` and
    beat do), after :func:`seed` registered the bots; the due ones are run once at ``now``."""
    from cardarena_tournament import lifecycle

    matches, tournaments, bots = _stores(url)
    base = {"game": GAME, "deal_sets": 1, "options": {"deals": 1}}
    lifecycle.create_schedule(
        tournaments,
        "0 2 * * *",
        {**base, "players": 2, "entrants": "all", "name": "Nightly <b>all</b>"},
        sid="nightly",
        now=now,
    )
    lifecycle.create_schedule(
        tournaments, "every 1h", {**base, "players": 2, "entrants": ["alpha", XSS], "name": ""}, sid="hourly", now=now
    )
    lifecycle.create_schedule(
        tournaments, "every 1d", {**base, "players": 4, "entrants": "all", "name": ""}, sid="broken", now=now
    )
    started = lifecycle.start_due_schedules(tournaments, matches, now, bots.names)
    assert started == [f"hourly-{int(now)}"], started
    return SeededSchedules("nightly", "hourly", "broken", started[0], now)


def seed_ratings(url: str, game: str, ratings: dict[str, tuple[float, float, int]]) -> None:
    """Bots (registered if new) with the given ``(mu, sigma, matches)`` rating in ``game``, each
    applied as one rated match through ``TournamentStore.apply_ratings`` (as the workers do)."""
    _, tournaments, bots = _stores(url)
    for name in ratings:
        if not bots.exists(name):
            bots.register(name)

    def fixed(name: str, mu: float, sigma: float, matches: int) -> Any:
        return lambda current: {name: {"mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma, "matches": float(matches)}}

    items = [(f"board:{name}", [name], fixed(name, *r)) for name, r in ratings.items()]
    assert all(tournaments.apply_ratings(game, items))


def _claimed_glaves(url: str, mid: str, seats: tuple[str, ...], seed: int) -> tuple[MatchStore, Any, dict[str, Any]]:
    """A two-player Glaves match of one deal, queued and claimed (instance ``review-test``; the
    matches queued before it are claimed on the way), played by random bots: the store, its
    final state and its replay (to be completed)."""
    matches = MatchStore(client_for(url))
    spec = MatchSpec(match_id=mid, game="glaves", players=2, seats=seats, seed=seed, options={"deals": 1})
    assert matches.enqueue(spec)
    while (got := matches.claim("review-test", wait_s=1.0)) != spec:
        assert got is not None
    policies = [random_policy(MatchRng(f"{seed}/{s}")) for s in range(2)]
    state = play_match("glaves", 2, policies, seed=seed, options=spec.options)
    return matches, state, build_replay(state, seed=seed, seats=seats, extra={"match_id": mid})


def store_faulted_match(url: str, mid: str, seats: tuple[str, ...]) -> dict[str, Any]:
    """A finished two-player Glaves match whose seat 0 timed out twice (seq 3 and 5), the second
    time forfeiting, as the service annotates and records it; its replay."""
    matches, state, replay = _claimed_glaves(url, mid, seats, 11)
    actions = replay["deals"][0]["actions"]
    mine = [i for i, a in enumerate(actions) if a.get("seat") == 0 and "chance" not in a][:2]
    actions[mine[0]].update({"fault": "timeout", "default": True})
    actions[mine[1]].update({"fault": "timeout", "default": True, "forfeit": True})
    replay["faults"] = [
        {"seat": 0, "action_index": mine[0], "seq": 3, "fault": "timeout", "default": True},
        {"seat": 0, "action_index": mine[1], "seq": 5, "fault": "timeout", "default": True, "forfeit": True},
    ]
    replay["refused"] = [{"seat": 1, "action_index": 0, "seq": 1, "count": 2, "reason": "<b>not yours</b>"}]
    replay["forfeited"] = [0]
    result = state.result().to_json()
    result.update({"ranks": [2, 1], "strikes": [2, 0], "forfeited": [0]})
    assert matches.complete(mid, "review-test", result, replay)
    return replay


def store_timed_match(url: str, mid: str, seats: tuple[str, ...]) -> dict[str, Any]:
    """A finished two-player Glaves match with the think times the service records (a 1 s move
    clock and a 5 s bank): seat 0 took 180 ms for its 2nd action and 1800 ms for its 4th (800
    ms out of its bank: 4.2 s left), 20 ms for the others; seat 1 12 ms each.  The result has
    the per-seat summary, as the match runner writes it.  Its replay."""
    matches, state, replay = _claimed_glaves(url, mid, seats, 13)
    replay["time_control"] = {"move_ms": 1000, "bank_ms": 5000}
    think: list[int] = []
    bank: list[int] = []
    left, asked = [5000, 5000], [0, 0]
    for seat in action_seats(replay):
        asked[seat] += 1
        ms = {2: 180, 4: 1800}.get(asked[seat], 20) if seat == 0 else 12
        left[seat] -= max(0, ms - 1000)
        think.append(ms)
        bank.append(left[seat])
    replay.update({"think_ms": think, "bank_ms_left": bank})
    result = state.result().to_json()
    result["think"] = summary(replay)
    assert matches.complete(mid, "review-test", result, replay)
    return replay
