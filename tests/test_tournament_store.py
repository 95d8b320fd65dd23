"""The tournament repository on a real Redis: lifecycle, counted-once, ratings once, schedules."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from cardarena.store.connection import client_for
from cardarena.store.keys import key
from cardarena.store.matches import MatchSpec, MatchStore
from cardarena.store.tournaments import Schedule, Tournament, TournamentError, TournamentStore


@pytest.fixture
def store(redis_url: str, key_prefix: str) -> Iterator[TournamentStore]:
    client = client_for(redis_url)
    yield TournamentStore(client)
    client.close()


def _t(tid: str = "t1") -> Tournament:
    return Tournament(id=tid, game="glaves", players=2, entrants=("a", "b"), deal_sets=1, options={"deals": 1})


def test_lifecycle_and_counted_once(store: TournamentStore) -> None:
    assert store.create(_t())
    assert not store.create(_t())
    t = store.require("t1")
    assert t.status == "upcoming" and t.entrants == ("a", "b") and t.options == {"deals": 1}
    matches = [{"match_id": "t1:0:0:0:0", "seats": ["a", "b"]}, {"match_id": "t1:0:0:1:0", "seats": ["b", "a"]}]
    assert store.start("t1", matches)
    assert not store.start("t1", matches)
    assert [x.id for x in store.list("running")] == ["t1"]
    assert store.record("t1", "t1:0:0:0:0", {"ranks": [1, 2]})
    assert not store.record("t1", "t1:0:0:0:0", {"ranks": [1, 2]})
    assert not store.finish("t1")
    assert store.record("t1", "t1:0:0:1:0", {"ranks": [2, 1]})
    assert store.finish("t1")
    assert not store.finish("t1")
    t = store.require("t1")
    assert (t.status, t.counted, t.total_matches) == ("finished", 2, 2)
    assert [m["counted"] for m in store.matches("t1")] == [True, True]
    assert store.list("running") == [] and [x.id for x in store.list()] == ["t1"]


def test_bad_input(store: TournamentStore) -> None:
    with pytest.raises(TournamentError, match="unknown tournament"):
        store.require("nope")
    with pytest.raises(TournamentError, match="bad tournament id"):
        store.create(_t("a:b"))
    with pytest.raises(TournamentError, match="unknown status"):
        store.list("sleeping")
    with pytest.raises(TournamentError, match="exactly one"):
        store.create_schedule(Schedule(id="s", template={}), 0)


def test_rating_applied_once(store: TournamentStore) -> None:
    def bump(cur: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        return {b: {"mu": cur.get(b, {"mu": 0.0})["mu"] + 1} for b in ("a", "b")}

    assert store.apply_rating("glaves", "m1", ["a", "b"], bump)
    assert not store.apply_rating("glaves", "m1", ["a", "b"], bump)
    assert store.apply_rating("glaves", "m2", ["a", "b"], bump)
    assert store.ratings("glaves")["a"]["mu"] == 2
    assert [p["match_id"] for p in store.rating_history("a", "glaves")] == ["m1", "m2"]


def test_batch_rating_and_counting_once(store: TournamentStore) -> None:
    def bump(cur: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        return {b: {"mu": cur.get(b, {"mu": 0.0})["mu"] + 1} for b in ("a", "b")}

    assert store.apply_rating("glaves", "m1", ["a", "b"], bump)
    batch = [("m1", ["a", "b"], bump), ("m2", ["a", "b"], bump), ("m2", ["a", "b"], bump), ("m3", ["b", "a"], bump)]
    assert store.apply_ratings("glaves", batch) == [False, True, False, True]
    assert store.apply_ratings("glaves", batch) == [False, False, False, False]  # a redelivered batch
    assert store.ratings("glaves")["a"]["mu"] == 3  # each update saw the one before it
    assert [p["match_id"] for p in store.rating_history("b", "glaves")] == ["m1", "m2", "m3"]

    assert store.create(_t())
    store.start("t1", [{"match_id": m, "seats": ["a", "b"]} for m in ("x", "y", "z")])
    assert store.record("t1", "x", {"ranks": [1, 2]})
    items = [("x", {"ranks": [1, 2]}), ("y", {"ranks": [2, 1]}), ("y", {"ranks": [1, 2]}), ("z", {"ranks": [1, 1]})]
    assert store.record_many("t1", items) == [False, True, False, True]
    assert store.record_many("t1", items) == [False, False, False, False]
    assert store.require("t1").counted == 3
    assert store.results("t1")["y"] == {"ranks": [2, 1]}  # the first result counted wins
    assert store.finish("t1")


def test_enqueue_many_matches_enqueue(store: TournamentStore) -> None:
    ms = MatchStore(store.r)
    specs = [MatchSpec(f"t1:0:0:{i}:0", "glaves", 2, ("a", "b"), i, tournament="t1") for i in range(5)]
    assert ms.enqueue(specs[1])
    assert ms.enqueue_many(specs) == [True, False, True, True, True]
    assert ms.enqueue_many(specs) == [False] * 5
    info = ms.info(specs[0].match_id)
    assert (info["status"], info["attempts"], info["game"], info["tournament"]) == ("queued", "0", "glaves", "t1")
    assert MatchSpec.from_json(json.loads(info["spec"])) == specs[0]
    claimed = [ms.claim("i", wait_s=0) for _ in range(6)]
    assert [c.match_id if c else None for c in claimed] == [specs[i].match_id for i in (1, 0, 2, 3, 4)] + [None]


def test_a_running_tournament_keeps_its_stored_schedule_across_an_upgrade(
    store: TournamentStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once started, a tournament goes by the schedule it stored: an upgrade whose formats
    expand differently (here: other match ids) makes the reconciler and a repeated start
    re-queue nothing, lose nothing, and still finish it when its own matches are done."""
    from cardarena_tournament import formats, lifecycle

    ms = MatchStore(store.r)
    t = lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b", "c"], deal_sets=1, tid="up")
    store.create(t)
    assert lifecycle.start_tournament(store, ms, "up") == 6
    original = [m["match_id"] for m in store.schedule_of("up")]
    upgraded = formats.schedule

    def other_ids(*args: Any, **kwargs: Any) -> list[formats.ScheduledMatch]:
        return [dataclasses.replace(m, match_id=m.match_id + "-v2") for m in upgraded(*args, **kwargs)]

    monkeypatch.setattr(formats, "schedule", other_ids)
    assert lifecycle.start_tournament(store, ms, "up") == 0
    assert lifecycle.reconcile(store, ms)["enqueued"] == 0
    claimed = []
    while (spec := ms.claim("i", wait_s=0)) is not None:
        claimed.append(spec.match_id)
        ms.complete(spec.match_id, "i", {"scores": [1, 0], "ranks": [1, 2]}, {})
    assert sorted(claimed) == sorted(original)
    lifecycle.reconcile(store, ms)
    assert store.require("up").status == "finished" and store.require("up").counted == 6


def test_schedule_claimed_once(store: TournamentStore) -> None:
    assert store.create_schedule(Schedule(id="nightly", template={"game": "glaves"}, every=60), first_run=100)
    assert store.next_run("nightly") == 100
    assert store.due(99) == [] and store.due(100) == ["nightly"]
    assert store.claim_run("nightly", 100, 160) == 100
    assert store.claim_run("nightly", 100, 160) is None
    assert store.next_run("nightly") == 160


def test_reconcile_counts_and_rates_completed_matches_once(store: TournamentStore) -> None:
    from cardarena_tournament import lifecycle

    ms = MatchStore(store.r)
    t = lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b"], deal_sets=2, tid="r1")
    store.create(t)
    assert lifecycle.start_tournament(store, ms, "r1") == 4
    for _ in range(3):
        spec = ms.claim("i", wait_s=0)
        assert spec is not None
        ms.complete(spec.match_id, "i", {"scores": [1, 0], "ranks": [1, 2]}, {})
    report = lifecycle.reconcile(store, ms)
    assert (report["counted"], report["enqueued"]) == (3, 0)
    assert store.require("r1").counted == 3 and len(store.rating_history("a", "glaves")) == 3
    assert lifecycle.reconcile(store, ms)["counted"] == 0  # nothing twice
    spec = ms.claim("i", wait_s=0)
    assert spec is not None
    ms.complete(spec.match_id, "i", {"scores": [0, 1], "ranks": [2, 1]}, {})
    assert lifecycle.reconcile(store, ms)["counted"] == 1
    assert store.require("r1").status == "finished" and len(store.rating_history("b", "glaves")) == 4


def test_regression_concurrent_settle_left_running_standings_on_a_finished_tournament(store: TournamentStore) -> None:
    """Two workers settle at once: B computed its standings before A finished the tournament
    and saved them after A's final save. The finished tournament kept "running" standings."""
    from cardarena_tournament import lifecycle

    ms = MatchStore(store.r)
    t = lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b"], deal_sets=1, tid="race")
    store.create(t)
    total = lifecycle.start_tournament(store, ms, "race")
    for _ in range(total):
        spec = ms.claim("i", wait_s=0)
        assert spec is not None
        result = {"scores": [3, 1], "ranks": [1, 2]}
        ms.complete(spec.match_id, "i", result, {})
        assert store.record("race", spec.match_id, result)

    class LateSaver:
        """Worker B's view of the store: its first standings save lands after A has settled."""

        def __init__(self, real: TournamentStore) -> None:
            self.real, self.first = real, True

        def __getattr__(self, name: str) -> Any:
            return getattr(self.real, name)

        def save_standings(self, tid: str, snapshot: dict[str, Any], crosstable: dict[str, Any] | None = None) -> None:
            if self.first:
                self.first = False
                lifecycle.settle(self.real, tid)  # worker A finishes and saves the final standings
            self.real.save_standings(tid, snapshot, crosstable)  # then B's stale snapshot lands

    lifecycle.settle(LateSaver(store), "race")  # type: ignore[arg-type]
    assert store.require("race").status == "finished"
    snapshot = store.standings("race")
    assert snapshot is not None and snapshot["status"] == "finished"


def test_a_cron_schedule_first_runs_at_its_cron_time_and_an_interval_at_once(store: TournamentStore) -> None:
    from datetime import UTC, datetime

    from cardarena_tournament import lifecycle

    template = {"game": "glaves", "players": 2, "entrants": ["a", "b"], "deal_sets": 1}
    noon = datetime(2026, 11, 21, 12, 0, tzinfo=UTC).timestamp()
    lifecycle.create_schedule(store, "0 2 * * *", template, sid="nightly", now=noon)
    assert store.next_run("nightly") == datetime(2026, 11, 22, 2, 0, tzinfo=UTC).timestamp()
    lifecycle.create_schedule(store, "every 1h", template, sid="hourly", now=noon)
    assert store.next_run("hourly") == noon
    assert store.due(noon) == ["hourly"]


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"game": "nosuch"}, "unknown game"),
        ({"players": 9}, "players"),
        ({"deal_sets": 0}, "deal sets"),
        ({"options": {"nosuch": 1}}, "nosuch"),
    ],
)
def test_a_schedule_of_all_bots_is_checked_when_created(
    store: TournamentStore, change: dict[str, object], error: str
) -> None:
    from cardarena.engine import GameError
    from cardarena_tournament import lifecycle
    from cardarena_tournament.formats import FormatError

    template = {"game": "glaves", "players": 2, "entrants": "all", "deal_sets": 1, **change}
    with pytest.raises((GameError, FormatError, TournamentError), match=error):
        lifecycle.create_schedule(store, "every 1h", template, sid="bad", now=100.0)
    assert store.schedules() == [] and store.get_schedule("bad") is None


def test_a_schedule_whose_run_cannot_be_created_does_not_hold_up_the_others(store: TournamentStore) -> None:
    from cardarena_tournament import lifecycle

    ms = MatchStore(store.r)
    # Due first: an --all schedule for 3-player tables, with only two bots registered.
    lifecycle.create_schedule(
        store, "every 60s", {"game": "glaves", "players": 3, "entrants": "all", "deal_sets": 1}, sid="a-all", now=100.0
    )
    lifecycle.create_schedule(
        store,
        "every 60s",
        {"game": "glaves", "players": 2, "entrants": ["x", "y"], "deal_sets": 1},
        sid="b-xy",
        now=101.0,
    )
    started = lifecycle.start_due_schedules(store, ms, 102.0, lambda: ["x", "y"])
    assert started == ["b-xy-101"]
    assert store.require("b-xy-101").status == "running"
    info = store.schedule_info("a-all")
    assert info is not None and info["next_run"] == 160.0 and info["last_run"] is None  # nothing started
    assert "3-player tables need at least 3 entrants" in info["last_error"] and info["last_error_at"] == 102.0
    assert store.schedule_info("b-xy")["last_tournament"] == "b-xy-101"  # type: ignore[index]
    # Next time there are enough bots: the run is created and starts (b-xy's first run is
    # over by then: runs of a schedule never overlap).
    assert store.cancel("b-xy-101")
    assert lifecycle.start_due_schedules(store, ms, 161.0, lambda: ["x", "y", "z"]) == ["a-all-160", "b-xy-161"]


def test_scheduled_runs_never_overlap(store: TournamentStore) -> None:
    """A run is skipped while the previous one still plays (a '1s' typo for '1h' used to start
    a tournament every second)."""
    from cardarena_tournament import lifecycle

    ms = MatchStore(store.r)
    template = {"game": "glaves", "players": 2, "entrants": ["x", "y"], "deal_sets": 1}
    lifecycle.create_schedule(store, "every 1s", template, sid="fast", now=100.0)
    assert lifecycle.start_due_schedules(store, ms, 100.0) == ["fast-100"]
    assert lifecycle.start_due_schedules(store, ms, 101.5) == []  # fast-100 still running
    info = store.schedule_info("fast")
    assert info is not None and info["next_run"] == 102.0 and "fast-100 is still playing" in info["last_error"]
    assert [t.id for t in store.list()] == ["fast-100"]
    # skipped runs do not count as started: the next check still sees fast-100 playing
    assert lifecycle.start_due_schedules(store, ms, 102.5) == []
    assert store.schedule_info("fast")["last_tournament"] == "fast-100"  # type: ignore[index]
    assert store.cancel("fast-100")
    assert lifecycle.start_due_schedules(store, ms, 103.5) == ["fast-103"]


def test_a_tournament_queues_its_matches_in_its_lane(store: TournamentStore) -> None:
    """`tournament run` plays in its own lane: its matches, queued at the start or by the
    reconciler, reach only its own service."""
    from cardarena_tournament import lifecycle

    platform, run = MatchStore(store.r), MatchStore(store.r, lane="run-9")
    for tid in ("lane1", "lane2"):
        t = lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b"], deal_sets=1, tid=tid, queue="run-9")
        store.create(t)
    assert lifecycle.start_tournament(store, platform, "lane1") == 2
    # lane2 is marked running with nothing queued (a crash in between): the reconciler queues it
    assert store.start("lane2", [{"match_id": m.match_id} for m in lifecycle.expand(store.require("lane2"))])
    assert lifecycle.reconcile(store, platform)["enqueued"] == 2
    assert platform.claim("platform", wait_s=0.1) is None
    claimed = [run.claim("run", wait_s=0.1) for _ in range(5)]
    assert sorted(c.match_id.split(":")[0] for c in claimed if c) == ["lane1", "lane1", "lane2", "lane2"]
    assert all(c.queue == "run-9" for c in claimed if c)


def test_a_forfeit_recorded_by_the_service_reaches_the_standings(store: TournamentStore) -> None:
    """The service records a forfeit in the match result (`forfeited`, `strikes`); counting
    keeps both, so the standings' forfeit rule applies (docs/tournaments.md, "Match rules": a
    forfeited seat never gains from the match) and `tournament run` can name the bot."""
    from cardarena_tournament import lifecycle
    from cardarena_tournament.run import fault_lines

    ms = MatchStore(store.r)
    t = lifecycle.new_tournament(
        game="glaves", players=2, entrants=["ghost", "b"], deal_sets=1, options={"deals": 1}, tid="ff"
    )
    store.create(t)
    assert lifecycle.start_tournament(store, ms, "ff") == 2
    for _ in range(2):
        spec = ms.claim("i", wait_s=0)
        assert spec is not None
        ghost = spec.seats.index("ghost")
        # the ghost timed out three times and forfeited, yet its default actions outscored b
        scores = [10, 6] if ghost == 0 else [6, 10]
        strikes = [3, 0] if ghost == 0 else [0, 3]
        ranks = [2, 1] if ghost == 0 else [1, 2]  # as the runner records them: the forfeiter last
        result = {
            "scores": scores,
            "ranks": ranks,
            "engine_ranks": [3 - r for r in ranks],
            "deal_scores": [[float(x) for x in scores]],
            "forfeited": [ghost],
            "strikes": strikes,
            "seats": list(spec.seats),
        }
        ms.complete(spec.match_id, "i", result, {})
    assert lifecycle.reconcile(store, ms)["counted"] == 2
    rows = {row["bot"]: row for row in lifecycle.refresh_standings(store, "ff")["rows"]}
    assert rows["ghost"]["mean"] < 0 < rows["b"]["mean"]
    assert rows["b"]["rank"] == 1 and rows["ghost"]["rank"] == 2
    matches = store.matches("ff")
    assert all(m["result"]["forfeited"] == [m["seats"].index("ghost")] for m in matches)
    assert sorted(sum(m["result"]["strikes"]) for m in matches) == [3, 3]
    assert fault_lines(matches, None) == [
        "faults (a bot's own log says why):",
        "  ghost: 6 strikes, forfeited 2 of 2 matches",
    ]


def test_a_tournament_without_a_seed_gets_an_unguessable_one() -> None:
    """Every deal follows from the tournament seed and the match id: the default used to be the
    tournament id, which every bot sees in its match ids, so it could compute every hidden card."""
    from cardarena_tournament import lifecycle

    made = [
        lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b"], deal_sets=1, tid="tid")
        for _ in range(2)
    ]
    assert made[0].seed != made[1].seed and "tid" not in made[0].seed and len(made[0].seed) >= 32
    given = lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b"], deal_sets=1, tid="t", seed="s")
    assert given.seed == "s"


def _bump(bots: tuple[str, ...]) -> Any:
    def update(cur: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        mu = {b: cur.get(b, {"mu": 0.0})["mu"] + 1 for b in bots}
        return {b: {"mu": mu[b], "ordinal": mu[b]} for b in bots}

    return update


def test_the_end_of_each_entrants_rating_history_is_kept_when_a_tournament_ends(store: TournamentStore) -> None:
    """``finish`` and ``cancel`` note how long each entrant's rating history was at that moment,
    so a finished tournament's page reads the rating at its end without reading the history
    the bots went on to add (a term of nightly runs makes it long)."""
    for tid in ("t1", "t2"):
        assert store.create(_t(tid))
        store.start(tid, [{"match_id": f"{tid}:0", "seats": ["a", "b"]}])
    store.apply_rating("glaves", "t1:0", ["a", "b"], _bump(("a", "b")))
    store.apply_rating("glaves", "elsewhere:0", ["a"], _bump(("a",)))
    assert store.rating_end("t1") is None  # running: no end yet
    store.record("t1", "t1:0", {"ranks": [1, 2]})
    assert store.finish("t1")
    assert store.rating_end("t1") == {"a": 2, "b": 1}
    assert store.cancel("t2")
    assert store.rating_end("t2") == {"a": 2, "b": 1}
    store.apply_ratings("glaves", [(f"later:{i}", ["a", "b"], _bump(("a", "b"))) for i in range(5)])
    assert store.rating_end("t1") == {"a": 2, "b": 1}  # the bots play on: the end stays
    assert not store.finish("t1") and not store.cancel("t2")
    assert store.rating_end("t1") == {"a": 2, "b": 1} and store.rating_end("t2") == {"a": 2, "b": 1}
    assert store.rating_lengths("glaves", ["a", "b", "nobody"]) == {"a": 7, "b": 6, "nobody": 0}
    points = store.rating_points("glaves", {"a": [1, 6, 99], "b": [0]})
    assert [p and p["match_id"] for p in points["a"]] == ["elsewhere:0", "later:4", None]
    assert [p["match_id"] for p in points["b"] if p] == ["t1:0"]


def test_live_standings_are_computed_once_per_interval_whatever_the_number_of_workers(
    store: TournamentStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While results are counted, one worker process recomputes the standings (a bootstrap: about
    a second of CPU for 40 bots and a few thousand matches) and the others leave them alone until
    the interval has passed; it used to be once per interval in *each* process, so a prefork
    worker with ``--concurrency`` N ran up to N of them at once for the same tournament."""
    from cardarena_tournament import lifecycle

    # an interval far longer than the plays below take even on a loaded machine; its end is
    # brought forward by expiring the turn's lease in Redis, as time would
    monkeypatch.setattr(lifecycle, "STANDINGS_EVERY_S", 60.0)
    ms = MatchStore(store.r)
    t = lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b", "c"], deal_sets=2, tid="live")
    store.create(t)
    lifecycle.start_tournament(store, ms, "live")

    def play(n: int) -> None:
        for _ in range(n):
            spec = ms.claim("i", wait_s=0)
            assert spec is not None
            ms.complete(spec.match_id, "i", {"scores": [3, 1], "ranks": [1, 2]}, {})
        lifecycle.count_matches(store, ms, [m.match_id for m in lifecycle.expand(t)])

    def another_process() -> None:
        # a fresh process: none of the module's own state (the old throttle lived in `_refreshed`)
        monkeypatch.setattr(lifecycle, "_refreshed", {}, raising=False)

    play(2)
    lifecycle.settle(store, "live")
    assert (store.standings("live") or {})["counted"] == 2
    for _ in range(3):  # other worker processes count results at once: nobody recomputes
        play(1)
        another_process()
        lifecycle.settle(store, "live")
        assert (store.standings("live") or {})["counted"] == 2
    turn = key("tournament", "live", "standings_turn")
    assert 0 < store.r.pttl(turn) <= 60_000  # the turn is a lease in Redis, shared by every process
    store.r.pexpire(turn, 1)  # the interval has passed: the next one to settle recomputes
    time.sleep(0.01)
    another_process()
    lifecycle.settle(store, "live")
    assert (store.standings("live") or {})["counted"] == 5
    lifecycle.settle(store, "live", force=True)  # a forced refresh (the reconciler's, after counting) is not held
    play(t.total_matches - 5)
    lifecycle.settle(store, "live")  # nor the final one
    assert store.require("live").status == "finished"
    assert (store.standings("live") or {})["counted"] == t.total_matches


def test_the_interval_of_live_standings_grows_with_their_cost() -> None:
    """A refresh that took ``d`` seconds is not repeated for ``d / STANDINGS_SHARE`` seconds (at
    least ``STANDINGS_EVERY_S``): live standings take at most that share of a worker's time."""
    from cardarena_tournament import lifecycle

    assert lifecycle.standings_hold(0.01) == lifecycle.STANDINGS_EVERY_S
    assert lifecycle.standings_hold(1.5) == pytest.approx(1.5 / lifecycle.STANDINGS_SHARE)


def test_the_reconciler_leaves_live_standings_to_their_turn_unless_it_counted_something(
    store: TournamentStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reconciler runs every 15 s over every running tournament; with nothing to repair it
    used to recompute each one's standings anyway (a second of CPU each for a 40-bot field)."""
    from cardarena_tournament import lifecycle

    monkeypatch.setattr(lifecycle, "STANDINGS_EVERY_S", 60.0)
    ms = MatchStore(store.r)
    t = lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b", "c"], deal_sets=2, tid="rec")
    store.create(t)
    lifecycle.start_tournament(store, ms, "rec")

    def play(n: int) -> list[str]:
        done = []
        for _ in range(n):
            spec = ms.claim("i", wait_s=0)
            assert spec is not None
            ms.complete(spec.match_id, "i", {"scores": [3, 1], "ranks": [1, 2]}, {})
            done.append(spec.match_id)
        return done

    lifecycle.count_matches(store, ms, play(2))
    lifecycle.settle(store, "rec")
    lifecycle.count_matches(store, ms, play(1))  # counted; the standings wait for their turn
    assert lifecycle.reconcile(store, ms)["counted"] == 0
    assert (store.standings("rec") or {})["counted"] == 2  # nothing repaired: left alone
    play(1)  # completed, its result event lost: the reconciler counts it
    assert lifecycle.reconcile(store, ms)["counted"] == 1
    assert (store.standings("rec") or {})["counted"] == 4


def _play(store: TournamentStore, ms: MatchStore, tid: str, count: int) -> None:
    """Play ``count`` queued matches of ``tid`` (the first seat wins) and consume the results
    stream as the workers do."""
    from cardarena_tournament import lifecycle

    for _ in range(count):
        spec = ms.claim("i", wait_s=0)
        assert spec is not None and spec.tournament == tid
        ms.complete(spec.match_id, "i", {"scores": [1, 0], "ranks": [1, 2]}, {})
    lifecycle.consume_results(store, ms, "c")


def test_a_practice_tournament_is_counted_but_leaves_the_ratings_alone(store: TournamentStore) -> None:
    """An unrated tournament's matches are counted once and make its standings; the ratings and
    their histories stay as the rated tournament before it left them."""
    from cardarena_tournament import lifecycle

    ms = MatchStore(store.r)
    for tid, rated in (("graded", True), ("practice", False)):
        store.create(lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b"], deal_sets=2, tid=tid,
                                              rated=rated))  # fmt: skip
    assert lifecycle.start_tournament(store, ms, "graded") == 4
    _play(store, ms, "graded", 4)
    ratings = store.ratings("glaves")
    histories = {bot: store.rating_history(bot, "glaves") for bot in ("a", "b")}
    assert {bot: r["matches"] for bot, r in ratings.items()} == {"a": 4, "b": 4}  # the rated one counts
    assert len(histories["a"]) == 4
    assert lifecycle.start_tournament(store, ms, "practice") == 4
    _play(store, ms, "practice", 3)
    assert store.require("practice").counted == 3
    # the reconciler finds nothing left to rate (it used to count unrated matches again and again)
    assert lifecycle.reconcile(store, ms)["counted"] == 0
    _play(store, ms, "practice", 1)
    t = store.require("practice")
    assert (t.status, t.counted, t.rated) == ("finished", 4, False)
    assert store.ratings("glaves") == ratings
    assert {bot: store.rating_history(bot, "glaves") for bot in ("a", "b")} == histories
    assert not any(store.rated_among("glaves", [m["match_id"] for m in store.matches("practice")]))
    snap = store.standings("practice")
    assert snap is not None and snap["status"] == "finished"
    rows = {row["bot"]: row for row in snap["rows"]}
    assert sum(row["matches"] for row in rows.values()) == 8
    assert rows["a"]["rating"] == ratings["a"]  # the bots' ratings, from their rated matches
    lifecycle.count_matches(store, ms, [m["match_id"] for m in store.matches("practice")])  # redelivered
    assert store.require("practice").counted == 4 and store.ratings("glaves") == ratings


def test_the_rated_flag_round_trips_and_an_old_record_is_rated(store: TournamentStore) -> None:
    assert store.create(dataclasses.replace(_t("p"), rated=False))
    assert store.create(_t("r"))
    assert store.create(_t("old"))
    store.r.hdel(key("tournament", "old"), "rated")  # as stored before the field existed
    assert store.r.hget(key("tournament", "p"), "rated") == b"0"
    assert [(t.id, t.rated) for t in store.list()] == [("old", True), ("r", True), ("p", False)]
    assert store.require("p").to_json()["rated"] is False
    assert Tournament.from_json({**_t().to_json(), "rated": False}).rated is False


def test_a_practice_schedule_makes_practice_runs(store: TournamentStore) -> None:
    from cardarena_tournament import lifecycle

    ms = MatchStore(store.r)
    template = {"game": "glaves", "players": 2, "entrants": ["x", "y"], "deal_sets": 1, "rated": False}
    lifecycle.create_schedule(store, "every 1h", template, sid="drill", now=100.0)
    lifecycle.create_schedule(store, "every 1h", {**template, "rated": True}, sid="weekly", now=100.0)
    assert sorted(lifecycle.start_due_schedules(store, ms, 100.0)) == ["drill-100", "weekly-100"]
    assert not store.require("drill-100").rated and store.require("weekly-100").rated


def _best_first(store: TournamentStore, game: str) -> list[str]:
    ratings = store.ratings(game)
    return sorted(ratings, key=lambda b: (-ratings[b]["ordinal"], b))


def test_the_leaderboard_index_follows_the_ratings_and_is_built_for_older_ones(store: TournamentStore) -> None:
    """Both rating writers keep the leaderboard index in their transaction; ratings stored
    without it (an earlier version: no index, or a bot added by an old worker) are indexed at the
    first read; ``leave_out`` drops a set of names from the board and from the ranks."""
    store.apply_rating("glaves", "m1", ["a", "b"], _bump(("a", "b")))
    store.apply_ratings("glaves", [("m2", ["a", "c"], _bump(("a", "c"))), ("m3", ["a", "d"], _bump(("a", "d")))])
    board, total = store.leaderboard("glaves")
    assert total == 4 and [r["bot"] for r in board] == _best_first(store, "glaves") == ["a", "b", "c", "d"]
    assert [(r["rank"], r["ordinal"]) for r in board] == [(1, 3.0), (2, 1.0), (2, 1.0), (2, 1.0)]
    assert [r["bot"] for r in store.leaderboard("glaves", 1, 2)[0]] == ["b", "c"]
    index = key("ratings", "glaves", "leaderboard")
    store.r.delete(index, key("ratings", "glaves", "leaderboard", "members"))  # as an earlier version left it
    store.r.hset(key("ratings", "glaves"), "e", json.dumps({"mu": 9.0, "ordinal": 2.0}))  # an old worker's bot
    assert [r["bot"] for r in store.leaderboard("glaves")[0]] == ["a", "e", "b", "c", "d"]
    assert store.r.zcard(index) == 5
    store.r.sadd(key("gone"), "a", "c")
    board, total = store.leaderboard("glaves", 0, 10, leave_out=key("gone"))
    assert total == 3 and [(r["bot"], r["rank"]) for r in board] == [("e", 1), ("b", 2), ("d", 2)]
    assert [r["bot"] for r in store.leaderboard("glaves", 1, 1, leave_out=key("gone"))[0]] == ["b"]
    assert store.leaderboard("knaves") == ([], 0)


TIED = ["9lives", "alice", "Bob", "bot-2", "bot-10", "_dora", "Émile", "eve", "Éve", "<i>carol</i>", "zed"]
"""Bots of one rating in the order people look for names (``cardarena.names.name_order``); Redis's
byte order, the leaderboard's tie order before, starts ``9lives``, ``<i>carol</i>``, ``Bob``,
``_dora`` and ends ``zed``, ``Émile``, ``Éve``."""


def _rate(store: TournamentStore, game: str, ordinals: dict[str, float]) -> None:
    """Each bot's rating set to ``ordinals`` (one rated match each, as the workers apply them)."""

    def fixed(bot: str, ordinal: float) -> Any:
        return lambda current: {bot: {"mu": ordinal + 3, "sigma": 1.0, "ordinal": ordinal, "matches": 1.0}}

    assert all(store.apply_ratings(game, [(f"m-{bot}", [bot], fixed(bot, o)) for bot, o in ordinals.items()]))


def _paged(store: TournamentStore, limit: int, **kw: Any) -> list[tuple[str, int]]:
    """The whole board read ``limit`` bots at a time: (bot, rank) of each row."""
    rows: list[tuple[str, int]] = []
    while page := store.leaderboard("glaves", len(rows), limit, **kw)[0]:
        rows += [(r["bot"], r["rank"]) for r in page]
    return rows


def test_leaderboard_ties_are_in_people_order_and_pages_split_them_cleanly(store: TournamentStore) -> None:
    """Bots of equal rating were listed in Redis's byte order (``Bob`` before ``alice``,
    ``Émile`` after ``zed``); they read in people order now, with the same ranks, and a page
    boundary inside a tie shows every bot once, whatever the page size, with retired bots left
    out or with ``min_matches``."""
    _rate(store, "glaves", {"top": 9.0, **{b: 5.0 for b in reversed(TIED)}, "Alpha": 1.0, "alpha-2": 1.0, "ZZ": 1.0})
    whole = [("top", 1), *[(b, 2) for b in TIED], ("Alpha", 13), ("alpha-2", 13), ("ZZ", 13)]
    board, total = store.leaderboard("glaves", 0, 50)
    assert total == 15 and [(r["bot"], r["rank"]) for r in board] == whole
    for limit in range(1, 16):
        assert _paged(store, limit) == whole, limit
        assert _paged(store, limit, min_matches=1) == whole, limit
    store.r.sadd(key("retired"), "bot-2", "eve", "top")
    shown = [(b, 1) for b in TIED if b not in ("bot-2", "eve")] + [("Alpha", 10), ("alpha-2", 10), ("ZZ", 10)]
    for limit in (1, 2, 4, 7):
        assert _paged(store, limit, leave_out=key("retired")) == shown, limit
        assert _paged(store, limit, leave_out=key("retired"), min_matches=1) == shown, limit


def test_an_earlier_versions_leaderboard_index_is_rebuilt_in_people_order(store: TournamentStore) -> None:
    """The index an earlier version kept (``ratings:<game>:ranked``, bare names in byte order)
    is replaced at the first read: the board reads in people order and the old key is gone."""
    _rate(store, "glaves", {b: 5.0 for b in TIED})
    store.r.delete(key("ratings", "glaves", "leaderboard"), key("ratings", "glaves", "leaderboard", "members"))
    old = key("ratings", "glaves", "ranked")
    store.r.zadd(old, {b: -5.0 for b in TIED})
    assert [r["bot"] for r in store.leaderboard("glaves", 0, 50)[0]] == TIED
    assert not store.r.exists(old)
    assert store.r.zcard(key("ratings", "glaves", "leaderboard")) == len(TIED)


def test_a_running_snapshot_never_replaces_the_final_one(store: TournamentStore) -> None:
    # a worker that read the results before the last match was counted saves after the one
    # that finished the tournament: the final standings (which the end's webhook posts) stay
    assert store.save_standings("t-final", {"status": "running", "rows": [{"bot": "a", "matches": 3}]})
    assert store.save_standings("t-final", {"status": "finished", "rows": [{"bot": "a", "matches": 4}]}, {"pairs": []})
    assert not store.save_standings("t-final", {"status": "running", "rows": [{"bot": "a", "matches": 3}]}, {"x": 1})
    snap = store.standings("t-final")
    assert snap is not None and snap["status"] == "finished" and snap["rows"][0]["matches"] == 4
    assert store.crosstable("t-final") == {"pairs": []}
    assert store.save_standings("t-final", {"status": "finished", "rows": [{"bot": "a", "matches": 4}]})
