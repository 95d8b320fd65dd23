"""The tournament repository on a real Redis: lifecycle, counted-once, ratings once, schedules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from cardarena.store.connection import client_for
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


def test_schedule_claimed_once(store: TournamentStore) -> None:
    assert store.create_schedule(Schedule(id="nightly", template={"game": "glaves"}, every=60), first_run=100)
    assert store.next_run("nightly") == 100
    assert store.due(99) == [] and store.due(100) == ["nightly"]
    assert store.claim_run("nightly", 100, 160) == 100
    assert store.claim_run("nightly", 100, 160) is None
    assert store.next_run("nightly") == 160
