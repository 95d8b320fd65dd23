"""The replay viewer's cache (``cardarena_dashboard.replay_cache``) on the real app and a real
Redis: stepping through a match costs a number of engine transitions linear in its length,
every page is byte for byte the page the uncached code gives (every game, every point of view,
also with the cache filled from other points of view and under concurrent requests), a pruned
replay is not served from the cache, and the cache stays within its bounds."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from cardarena.engine import games
from cardarena.store import retention
from cardarena.store.connection import client_for
from cardarena_dashboard import create_app, replay_steps
from cardarena_dashboard.replay_cache import MATCHES_ENV, MB_ENV, ReplayCache
from flask import Flask
from flask.testing import FlaskClient

from .dashboard_data import store_game_match

MB = 1024 * 1024


def _app(redis_url: str, **config: Any) -> Flask:
    return create_app({"REDIS_URL": redis_url, "TESTING": True, **config})


def _cache(app: Flask) -> ReplayCache:
    cache: ReplayCache = app.extensions["cardarena_replay_cache"]
    return cache


def _page(client: FlaskClient, url: str) -> bytes:
    reply = client.get(url)
    assert reply.status_code == 200, (url, reply.get_data(as_text=True)[:300])
    return reply.get_data()


@pytest.fixture
def transitions(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts the engine transitions the replay viewer makes (each recorded entry applied to an
    engine state, by the cache or by a re-run from the start): one entry per transition."""
    made: list[int] = []
    real = replay_steps._transition

    def counted(state: Any, change: Any, index: int) -> None:
        made.append(index)
        real(state, change, index)

    monkeypatch.setattr(replay_steps, "_transition", counted)
    yield made


def test_stepping_through_a_match_costs_transitions_linear_in_its_length(
    redis_url: str, key_prefix: str, transitions: list[int]
) -> None:
    mid, replay = store_game_match(redis_url, "glaves", 3, deals=5)
    n = len(replay_steps.transitions(replay))
    assert n > 250
    cached, uncached = _app(redis_url).test_client(), _app(redis_url, REPLAY_CACHE_MATCHES=0).test_client()

    for step in range(n):  # forward, as a reader pressing →
        _page(cached, f"/matches/{mid}?step={step}&pov=spectator")
    assert len(transitions) == n  # each transition once

    transitions.clear()
    for step in range(n):  # another point of view: the same, from the checkpoints
        _page(cached, f"/matches/{mid}?step={step}&pov=1")
    assert len(transitions) <= n

    transitions.clear()
    for step in reversed(range(n)):  # backward: from the nearest checkpoint each time
        _page(cached, f"/matches/{mid}?step={step}&pov=spectator")
    assert len(transitions) <= n * replay_steps.CHECKPOINT_EVERY
    per_step = [transitions.count(i) for i in range(n)]
    assert max(per_step) <= 1 + replay_steps.CHECKPOINT_EVERY

    transitions.clear()  # the move list of a point of view stepped through: nothing to re-run
    assert cached.get(f"/matches/{mid}/moves?pov=1").status_code == 200
    assert transitions == []

    transitions.clear()  # the code before the cache: quadratic
    for step in range(0, n, 10):
        _page(uncached, f"/matches/{mid}?step={step}&pov=spectator")
    assert len(transitions) == sum(step + 1 for step in range(0, n, 10))


def _one_seating_per_game() -> list[tuple[str, int]]:
    """Each registered game at its largest player count (the most hidden hands)."""
    return [(g.id, max(g.player_counts)) for g in games().values()]


@pytest.mark.parametrize(("game_id", "players"), _one_seating_per_game())
def test_cached_pages_are_the_uncached_pages_byte_for_byte(
    redis_url: str, key_prefix: str, game_id: str, players: int
) -> None:
    """Every point of view, steps visited out of order and alternating points of view (each
    reuses the walk the others filled), the move lists too."""
    mid, replay = store_game_match(redis_url, game_id, players)
    last = len(replay_steps.transitions(replay)) - 1
    povs = ["spectator", *(str(s) for s in range(players)), "all"]
    cached, uncached = _app(redis_url).test_client(), _app(redis_url, REPLAY_CACHE_MATCHES=0).test_client()
    steps = [last // 2, 0, 1, last, last - 1, 3, last // 2 - 1, last // 2 + 1]
    urls = [f"/matches/{mid}?step={s}&pov={p}" for s in steps for p in povs]
    urls += [f"/matches/{mid}/moves?pov={p}" for p in povs]
    urls += [f"/matches/{mid}?step={s}&pov={p}" for s in (2, last // 3) for p in reversed(povs)]
    for url in urls:
        assert _page(cached, url) == _page(uncached, url), url
    assert _cache(cached.application).stats()["entries"] == 1


@pytest.mark.parametrize(("game_id", "players"), [("glaves", 3), ("skull", 3), ("coup", 3), ("bourre", 3)])
def test_a_seat_sees_no_secret_of_another_after_the_open_view_filled_the_cache(
    redis_url: str, key_prefix: str, game_id: str, players: int
) -> None:
    """The cache holds every card (engine states; the open view's moves), but a seat's page
    shows none of what that seat may not see: its view and its log, at every step, once the
    open point of view was stepped through first."""
    mid, replay = store_game_match(redis_url, game_id, players)
    n = len(replay_steps.transitions(replay))
    client = _app(redis_url).test_client()
    for step in range(n):
        _page(client, f"/matches/{mid}?step={step}&pov=all")
    checked = 0
    for step in range(0, n, max(1, n // 25)):
        state, _, _ = replay_steps.state_at(replay, step)
        for seat in range(players):
            page = _page(client, f"/matches/{mid}?step={step}&pov={seat}").decode()
            view = page[page.index('<div class="views') : page.index('<section class="log">')]
            shown = [c for c in state.secrets(seat) if f'title="{c}"' in view or f">{c}<" in view]
            assert not shown, (step, seat, shown)
            told = replay_steps.moves(replay, str(seat), upto=step)[-12:]
            current = page[page.index('id="current-action"') : page.index('id="to-act"')]
            if told and told[-1].index == step and told[-1].seat is not None:  # the step's action, as told
                assert f'title="{told[-1].text}"' in current, (step, seat, current)
            log = page[page.index('<section class="log">') :]
            assert all(f'<span title="{m.text}"' in log for m in told if m.seat is not None)
            checked += 1
    assert checked >= players * 10


def test_a_cached_replay_is_not_served_once_pruned(redis_url: str, key_prefix: str) -> None:
    """Pruning keeps the match's ``finished_at`` (the cache's version of its replay), so only
    the check of the match record keeps the cached replay from being served."""
    mid, replay = store_game_match(redis_url, "glaves", 3)
    app = _app(redis_url)
    client = app.test_client()
    played = next(a["action"] for d in replay["deals"] for a in d["actions"] if "action" in a)
    assert played in _page(client, f"/matches/{mid}?step=5&pov=all").decode()
    assert client.get(f"/matches/{mid}/moves?pov=all").status_code == 200
    assert _cache(app).stats()["entries"] == 1

    redis = client_for(redis_url)
    report = retention.prune(redis, older_than_days=1, now=time.time() + 2 * 86400.0)
    assert report.replays == 1

    page = client.get(f"/matches/{mid}?step=5&pov=all")
    assert page.status_code == 200  # the match page: seats, result and the notice
    html = page.get_data(as_text=True)
    assert 'id="replay-pruned"' in html and 'id="step-index"' not in html and played not in html
    assert _cache(app).stats() == {"entries": 0, "bytes": 0}
    for pov in ("all", "0", "spectator"):
        gone = client.get(f"/matches/{mid}/moves?pov={pov}")
        assert gone.status_code == 410
        assert 'id="replay-pruned"' in gone.get_data(as_text=True) and played not in gone.get_data(as_text=True)
    assert client.get(f"/api/v1/matches/{mid}/replay").status_code == 410


def test_the_move_list_drops_a_pruned_replay_from_the_cache(redis_url: str, key_prefix: str) -> None:
    mid, _ = store_game_match(redis_url, "skull", 3)
    app = _app(redis_url)
    client = app.test_client()
    _page(client, f"/matches/{mid}?step=3&pov=1")
    retention.prune(client_for(redis_url), older_than_days=1, now=time.time() + 2 * 86400.0)
    assert client.get(f"/matches/{mid}/moves?pov=1").status_code == 410
    assert _cache(app).stats()["entries"] == 0


def test_the_cache_keeps_at_most_its_matches(redis_url: str, key_prefix: str, transitions: list[int]) -> None:
    seatings = (("glaves", 2), ("german_whist", 2), ("knaves", 3), ("gleek", 3))
    stored = [store_game_match(redis_url, game_id, players) for game_id, players in seatings]
    assert all(len(replay_steps.transitions(replay)) > 11 for _, replay in stored)
    ids = [mid for mid, _ in stored]
    app = _app(redis_url, REPLAY_CACHE_MATCHES=2)
    client = app.test_client()
    for mid in ids:
        _page(client, f"/matches/{mid}?step=10")
        assert _cache(app).stats()["entries"] <= 2
    transitions.clear()
    _page(client, f"/matches/{ids[-1]}?step=11")  # kept: one more transition
    assert len(transitions) == 1
    transitions.clear()
    _page(client, f"/matches/{ids[0]}?step=11")  # dropped first (least recently used): re-run
    assert len(transitions) == 12


def test_the_cache_stays_within_its_estimated_bytes(redis_url: str, key_prefix: str) -> None:
    ids = [store_game_match(redis_url, "glaves", 3, seed=s)[0] for s in (1, 2, 3)]
    probe = _app(redis_url)
    for step in range(0, 120, 7):
        _page(probe.test_client(), f"/matches/{ids[0]}?step={step}&pov=all")
    one = _cache(probe).stats()["bytes"]
    assert one > 0

    bound = int(one * 1.5)
    app = _app(redis_url, REPLAY_CACHE_MB=bound / MB)
    client = app.test_client()
    for mid in ids:
        for step in range(0, 120, 7):
            _page(client, f"/matches/{mid}?step={step}&pov=all")
            held = _cache(app).stats()
            assert held["bytes"] <= bound and held["entries"] <= 1, held  # two do not fit

    tiny = _app(redis_url, REPLAY_CACHE_MB=one / 10 / MB)  # one walk alone is over the bound
    uncached = _app(redis_url, REPLAY_CACHE_MATCHES=0).test_client()
    url = f"/matches/{ids[1]}?step=40&pov=1"
    assert _page(tiny.test_client(), url) == _page(uncached, url)
    assert _cache(tiny).stats() == {"entries": 0, "bytes": 0}


def test_cache_bounds_come_from_the_environment(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MATCHES_ENV, "3")
    monkeypatch.setenv(MB_ENV, "5")
    app = _app(redis_url)
    assert (app.config["REPLAY_CACHE_MATCHES"], app.config["REPLAY_CACHE_MB"]) == (3, 5)
    assert (_cache(app).matches, _cache(app).max_bytes) == (3, 5 * MB)
    for name, bad in ((MATCHES_ENV, "many"), (MB_ENV, "-1")):
        monkeypatch.setenv(name, bad)
        with pytest.raises(ValueError, match=name):
            _app(redis_url)
        monkeypatch.setenv(name, "3")


def test_concurrent_requests_for_one_replay_get_the_uncached_pages(redis_url: str, key_prefix: str) -> None:
    """The dashboard serves each request on a thread of its own: readers stepping through the
    same replay at once, from different points of view, share one walk and still each get
    exactly the page of their step."""
    mid, replay = store_game_match(redis_url, "glaves", 3, deals=2)
    last = len(replay_steps.transitions(replay)) - 1
    uncached = _app(redis_url, REPLAY_CACHE_MATCHES=0).test_client()
    wanted = [(s, p) for s in range(0, last + 1, 9) for p in ("spectator", "0", "2", "all")]
    expected = {w: _page(uncached, f"/matches/{mid}?step={w[0]}&pov={w[1]}") for w in wanted}
    app = _app(redis_url)
    failures: list[Any] = []

    def reader(seed: int) -> None:
        client = app.test_client()
        order = list(wanted)
        random.Random(seed).shuffle(order)
        for step, pov in order:
            if _page(client, f"/matches/{mid}?step={step}&pov={pov}") != expected[step, pov]:
                failures.append((seed, step, pov))

    threads = [threading.Thread(target=reader, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads)
    assert failures == []
    assert _cache(app).stats()["entries"] == 1
