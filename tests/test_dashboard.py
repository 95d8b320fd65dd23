"""The dashboard pages on the Flask test client against a real Redis: every page, escaping,
security headers, hidden cards, live-poll ETags and the replay stepper."""

from __future__ import annotations

import html
import itertools
import re
import time
from collections.abc import Iterator
from dataclasses import replace
from html.parser import HTMLParser
from typing import Any

import pytest
from cardarena.engine import get_game
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchStore
from cardarena.think import action_seats
from cardarena_dashboard import create_app
from flask import Flask
from flask.testing import FlaskClient

from .dashboard_data import (
    BOTS,
    XSS,
    Seeded,
    SeededSchedules,
    finish_match,
    seed,
    seed_ratings,
    seed_schedules,
    store_faulted_match,
    store_game_match,
    store_timed_match,
)


@pytest.fixture
def seeded(redis_url: str, key_prefix: str) -> Seeded:
    return seed(redis_url)


@pytest.fixture
def app(redis_url: str, key_prefix: str) -> Iterator[Flask]:
    yield create_app({"REDIS_URL": redis_url, "TESTING": True, "ADMIN_TOKEN": "s3cret-admin"})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def test_every_page_renders(client: FlaskClient, seeded: Seeded) -> None:
    done = seeded.finished[0]
    for url in [
        "/",
        "/games",
        "/matches",
        "/matches?game=glaves&bot=alpha&tournament=cup&limit=2",
        "/tournaments",
        "/tournaments/cup",
        "/tournaments/cup/standings.part",
        "/bots",
        "/bots?limit=1&offset=1",
        "/bots/beta",
        "/games/glaves",
        "/games/glaves?retired=1&limit=1&offset=1",
        f"/matches/{done}",
        f"/matches/{done}?pov=all&step=7",
        f"/matches/{done}?pov=1&step=99999",
        f"/matches/{seeded.pending[0]}",
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["Content-Type"].startswith("text/html")


def test_security_headers_and_no_inline_script(client: FlaskClient, seeded: Seeded) -> None:
    response = client.get("/tournaments/cup")
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    html = response.get_data(as_text=True)
    assert all("src=" in tag for tag in re.findall(r"<script[^>]*>", html))
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html


def test_hostile_bot_name_is_text_everywhere(client: FlaskClient, seeded: Seeded) -> None:
    xss_match = next(m for m in seeded.finished if "2" in m.split(":")[2])
    for url in [
        "/",
        "/matches",
        "/bots",
        "/tournaments/cup",
        "/tournaments/cup/standings.part",
        "/games/glaves",
        f"/matches/{xss_match}",
        f"/matches/{xss_match}/moves?pov=all",
    ]:
        html = client.get(url).get_data(as_text=True)
        assert XSS not in html, url
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, url
    bot_page = client.get("/bots/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    assert bot_page.status_code == 200
    assert XSS not in bot_page.get_data(as_text=True)
    # the tournament's own name is escaped too
    assert "Spring &lt;Cup&gt; &amp; friends" in client.get("/tournaments/cup").get_data(as_text=True)


def test_games_page_lists_every_registered_game(client: FlaskClient) -> None:
    from cardarena.engine import games

    html = client.get("/games").get_data(as_text=True)
    for game in games().values():
        assert f'id="game-{game.id}"' in html
        assert str(game.min_players) in html


_BOARD_ROW = re.compile(
    r'<tr( class="retired")?>\s*<td class="num">(\d+)</td>\s*<td><a href="(/bots/[^"]+)">[^<]*</a>'
    r'(?: <span class="status">retired</span>)?</td>\s*<td class="num">([-\d.]+)</td>'
)


def _board_rows(page: str) -> list[tuple[int, str, str, bool]]:
    """(rank, bot page link, rating text, marked retired) of each leaderboard row, in page order."""
    return [(int(m[2]), m[3], m[4], bool(m[1])) for m in _BOARD_ROW.finditer(page)]


def test_leaderboard_page_ranks_by_rating_links_and_pages(
    app: Flask, client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    from cardarena.store.bots import BotStore
    from flask import url_for

    def url_for_bot(name: str) -> str:
        with app.test_request_context():
            return url_for("pages.bot_page", name=name)

    seed_ratings(redis_url, "glaves", {"delta": (40.0, 5.0, 3), "echo": (40.0, 5.0, 30), "zulu": (10.0, 6.0, 2)})
    rated = client.get("/api/v1/games/glaves/leaderboard").get_json()["items"]
    assert len(rated) == 6 and [r["ordinal"] for r in rated] == sorted((r["ordinal"] for r in rated), reverse=True)
    page = client.get("/games/glaves").get_data(as_text=True)
    assert "Glaves leaderboard" in page and "μ − 3σ" in page and "few rated matches" in page
    expected = [(r["rank"], url_for_bot(r["bot"]), f"{r['ordinal']:.2f}", False) for r in rated]
    assert _board_rows(page) == expected
    assert expected[0][:2] == (1, "/bots/delta") and expected[1][:2] == (1, "/bots/echo")  # a shared first place
    assert '<a href="/bots/delta/ratings/glaves.svg" aria-label="rating plot of delta">rating plot' in page
    assert f'<a href="/matches/{rated[2]["last_match_id"]}">' in page  # its last rated match
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and XSS not in page
    # paged: limit 4, then the rest
    first = client.get("/games/glaves?limit=4").get_data(as_text=True)
    assert _board_rows(first) == expected[:4] and 'href="/games/glaves?offset=4&amp;limit=4">next' in first
    rest = client.get("/games/glaves?limit=4&offset=4").get_data(as_text=True)
    assert _board_rows(rest) == expected[4:] and "next →" not in rest and "← previous" in rest
    assert "5–6 of 6 bots" in rest
    # a retired bot: left out and not ranked, unless asked for (then marked, its rank as before)
    BotStore(client_for(redis_url)).retire("echo")
    hidden = client.get("/games/glaves").get_data(as_text=True)
    assert [row[1] for row in _board_rows(hidden)] == [e[1] for e in expected if e[1] != "/bots/echo"]
    assert [row[0] for row in _board_rows(hidden)] == [1, 2, 3, 4, 5]
    assert 'href="/games/glaves?offset=0&amp;limit=50&amp;retired=1" id="retired-toggle">show retired' in hidden
    shown = client.get("/games/glaves?retired=1&limit=1").get_data(as_text=True)
    assert 'href="/games/glaves?offset=1&amp;limit=1&amp;retired=1">next' in shown
    everyone = _board_rows(client.get("/games/glaves?retired=1").get_data(as_text=True))
    assert everyone == [(e[0], e[1], e[2], e[1] == "/bots/echo") for e in expected]
    assert client.get("/games/glaves?retired=2").status_code == 400
    assert client.get("/games/nope").status_code == 404
    # linked from the games page, the home page and the tournament's page
    for url in ("/games", "/", "/tournaments/cup"):
        assert 'href="/games/glaves"' in client.get(url).get_data(as_text=True), url


def test_leaderboard_page_min_matches_filters_ranks_among_shown_and_keeps_it_in_links(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    seed_ratings(redis_url, "glaves", {"delta": (40.0, 5.0, 3), "echo": (40.0, 5.0, 30), "zulu": (10.0, 6.0, 31)})
    rated = client.get("/api/v1/games/glaves/leaderboard").get_json()["items"]
    assert [r["bot"] for r in rated[:2]] == ["delta", "echo"]  # echo shares delta's first place
    page = client.get("/games/glaves?min_matches=30").get_data(as_text=True)
    assert [(row[0], row[1]) for row in _board_rows(page)] == [(1, "/bots/echo"), (2, "/bots/zulu")]
    assert 'id="min-matches-form"' in page and 'name="min_matches" min="0" value="30"' in page
    assert "only bots with at least 30 rated matches" in page
    assert 'href="/games/glaves?offset=0&amp;limit=50&amp;retired=1&amp;min_matches=30" id="retired-toggle"' in page
    first = client.get("/games/glaves?min_matches=30&limit=1").get_data(as_text=True)
    assert [row[1] for row in _board_rows(first)] == ["/bots/echo"]
    assert 'href="/games/glaves?offset=1&amp;limit=1&amp;min_matches=30">next' in first
    assert "1–1 bots" in first  # the total is not counted past the page
    last = client.get("/games/glaves?min_matches=30&limit=1&offset=1").get_data(as_text=True)
    assert [row[1] for row in _board_rows(last)] == ["/bots/zulu"] and "next →" not in last
    assert "2–2 of 2 bots" in last
    for bad in ("-1", "many"):
        assert client.get(f"/games/glaves?min_matches={bad}").status_code == 400


def test_a_solitaire_has_no_leaderboard(client: FlaskClient) -> None:
    from cardarena.engine import games

    solitaire = next(g for g in games().values() if g.solitaire)
    page = client.get(f"/games/{solitaire.id}")
    assert page.status_code == 200 and "solitaires are not rated" in page.get_data(as_text=True)
    assert f'href="/games/{solitaire.id}"' not in client.get("/").get_data(as_text=True)


def _hand_cards(replay_seat_hands: list[list[str]]) -> set[str]:
    return {c for hand in replay_seat_hands for c in hand}


def test_replay_views_respect_the_point_of_view(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    mid = seeded.finished[0]
    replay = MatchStore(client_for(redis_url)).replay(mid)
    assert replay is not None
    hands = replay["deals"][0]["hands"]
    spectator = client.get(f"/matches/{mid}?step=0").get_data(as_text=True)
    seat0 = client.get(f"/matches/{mid}?step=0&pov=0").get_data(as_text=True)
    everything = client.get(f"/matches/{mid}?step=0&pov=all").get_data(as_text=True)

    def shown(html: str) -> set[str]:
        return set(re.findall(r'class="card suit-\w[^"]*" title="(\w\w)"', html))

    assert not shown(spectator) & _hand_cards(hands)
    assert set(hands[0]) <= shown(seat0) and not shown(seat0) & set(hands[1])
    assert _hand_cards(hands) <= shown(everything)


def test_unfinished_match_never_shows_hidden_cards(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    running = seeded.pending[0]
    store = MatchStore(client_for(redis_url))
    assert store.status(running) == "running"
    for pov in ("0", "1", "all"):
        response = client.get(f"/matches/{running}?pov={pov}&step=3")
        assert response.status_code == 200
        html = response.get_data(as_text=True)
        assert 'class="card' not in html and "not finished" in html
    assert client.get(f"/api/v1/matches/{running}/replay").status_code == 409


def test_replay_steps_through_every_action(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    mid = seeded.finished[1]
    replay = MatchStore(client_for(redis_url)).replay(mid)
    assert replay is not None
    actions = [a for d in replay["deals"] for a in d["actions"]]
    last = len(actions)  # one opening step per deal (one deal) + every action
    html = client.get(f"/matches/{mid}?step={last}&pov=all").get_data(as_text=True)
    assert f'data-last="{last}"' in html
    assert actions[-1]["action"] in html
    middle = client.get(f"/matches/{mid}?step=5").get_data(as_text=True)
    assert actions[4]["action"] in middle and 'step <strong id="step-index">5</strong>' in middle


@pytest.mark.parametrize(
    "query", ["pov=7", "pov=everyone", "step=abc", "step=1e9"], ids=["seat", "word", "step", "float"]
)
def test_bad_replay_queries_are_400(client: FlaskClient, seeded: Seeded, query: str) -> None:
    assert client.get(f"/matches/{seeded.finished[0]}?{query}").status_code == 400


def test_unknown_things_are_404_pages(client: FlaskClient, seeded: Seeded) -> None:
    for url in ["/matches/nope", "/tournaments/nope", "/bots/nobody", "/no-such-page"]:
        response = client.get(url)
        assert response.status_code == 404, url
        assert "text/html" in response.headers["Content-Type"]


def test_standings_part_supports_etag_and_changes_with_a_new_result(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    first = client.get("/tournaments/cup/standings.part")
    etag = first.headers["ETag"]
    again = client.get("/tournaments/cup/standings.part", headers={"If-None-Match": etag})
    assert again.status_code == 304
    finish_match(redis_url, seeded, seeded.pending[1])
    changed = client.get("/tournaments/cup/standings.part", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert f"{len(seeded.finished)} finished matches" in changed.get_data(as_text=True)


def test_the_tournament_page_carries_the_etag_of_its_live_standings(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    page = client.get("/tournaments/cup").get_data(as_text=True)
    part = client.get("/tournaments/cup/standings.part")
    assert _poll_etag(page) == part.headers["ETag"]
    assert part.get_data(as_text=True) in page  # the same table, so the first poll is a 304
    again = client.get("/tournaments/cup/standings.part", headers={"If-None-Match": part.headers["ETag"]})
    assert again.status_code == 304
    finish_match(redis_url, seeded, seeded.pending[1])
    newer = client.get("/tournaments/cup").get_data(as_text=True)
    assert _poll_etag(newer) == client.get("/tournaments/cup/standings.part").headers["ETag"] != part.headers["ETag"]


def _poll_etag(page: str) -> str:
    found = re.search(r'data-poll-etag="([^"]*)"', page)
    assert found, "the live region carries no ETag"
    return html.unescape(found.group(1))


def test_standings_show_ci_bars_ratings_and_separation(client: FlaskClient, seeded: Seeded) -> None:
    html = client.get("/tournaments/cup").get_data(as_text=True)
    assert html.count('class="ci-bar"') == 3
    assert 'img class="plot" src="/tournaments/cup/ratings.svg"' in html
    svg = client.get("/tournaments/cup/ratings.svg")
    assert svg.mimetype == "image/svg+xml" and svg.get_data(as_text=True).count("<polyline") == 3
    assert XSS not in svg.get_data(as_text=True) and "&lt;script&gt;" in svg.get_data(as_text=True)
    assert "sep yes" in html or "sep no" in html


def test_bot_page_shows_faults_and_rating(client: FlaskClient, seeded: Seeded) -> None:
    html = client.get("/bots/beta").get_data(as_text=True)
    assert "timeouts" in html and "illegal_actions" in html
    assert get_game("glaves").id in html and "/bots/beta/ratings/glaves.svg" in html
    assert "<polyline" in client.get("/bots/beta/ratings/glaves.svg").get_data(as_text=True)
    assert "no rating history" in client.get("/bots/beta/ratings/skull.svg").get_data(as_text=True)
    assert "token" not in html.lower()


def test_a_phone_gets_the_narrow_rating_plot(client: FlaskClient, seeded: Seeded) -> None:
    """Below 600 px the pages ask for the narrow layout (``?narrow=1``): the same lines and
    labels, the same text size, 360 wide, so a phone shows it at about its own size."""
    page = client.get("/tournaments/cup").get_data(as_text=True)
    assert '<source media="(max-width: 600px)" srcset="/tournaments/cup/ratings.svg?narrow=1" width="360"' in page
    assert 'srcset="/bots/beta/ratings/glaves.svg?narrow=1"' in client.get("/bots/beta").get_data(as_text=True)
    wide = client.get("/tournaments/cup/ratings.svg").get_data(as_text=True)
    narrow = client.get("/tournaments/cup/ratings.svg?narrow=1").get_data(as_text=True)
    assert 'class="plot" font-family="sans-serif" width="640"' in wide
    assert 'class="plot" font-family="sans-serif" width="360" height="260" viewBox="0 0 360 260"' in narrow
    for bot in ("alpha", "beta"):
        assert _plot_rating(narrow, bot) == _plot_rating(wide, bot)
    assert re.findall(r'font-size="(\d+)"', narrow) == re.findall(r'font-size="(\d+)"', wide)
    xs = [float(p.split(",")[0]) for line in re.findall(r'points="([^"]+)"', narrow) for p in line.split()]
    assert xs and max(xs) <= 360 - 120  # the lines leave the labels their room
    empty = client.get("/bots/beta/ratings/skull.svg?narrow=1").get_data(as_text=True)
    assert 'width="360" height="40"' in empty and "no rating history" in empty
    for url in ("/tournaments/cup/ratings.svg", "/bots/beta/ratings/glaves.svg"):
        for bad in ("2", "yes", ""):
            response = client.get(f"{url}?narrow={bad}")
            assert response.status_code == 400 and "narrow must be 0 or 1" in response.get_data(as_text=True)


def _plot_labels(svg: str) -> dict[str, tuple[float, float]]:
    """Each line's end label in a rating plot: bot name → (its y, its font size)."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg.split("?>", 1)[1])
    labels = [t for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("font-weight") == "600"]
    return {str(t.text).rsplit(" ", 1)[0]: (float(t.get("y", "")), float(t.get("font-size", ""))) for t in labels}


def test_rating_plot_labels_of_close_ratings_do_not_overlap(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """Two bots whose ratings end 0.01 apart (a third far below, so their lines end a pixel
    apart): their labels are at least a text's height apart, in the ratings' order, inside
    the plot, in the wide and the narrow layout; a label with room to spare stays at its line."""
    from cardarena.store.tournaments import Tournament, TournamentStore

    bots = ("close-a", "close-b", "far")
    seed_ratings(redis_url, "glaves", {"close-a": (30.0, 5.0, 3), "close-b": (30.01, 5.0, 3), "far": (12.0, 5.0, 3)})
    TournamentStore(client_for(redis_url)).create(
        Tournament(id="close", name="Close", game="glaves", players=2, entrants=bots, deal_sets=1)
    )
    for narrow in ("0", "1"):
        svg = client.get(f"/tournaments/close/ratings.svg?narrow={narrow}").get_data(as_text=True)
        height = float(re.findall(r'viewBox="0 0 \d+ (\d+)"', svg)[0])
        labels = _plot_labels(svg)
        assert sorted(labels) == sorted(bots), labels
        (a, size), (b, _) = labels["close-a"], labels["close-b"]
        assert a - b >= size, (narrow, labels)  # close-b rates higher: its label is above
        dots = {float(y) for y in re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"', svg)}
        assert labels["far"][0] - 4 in dots  # alone at its line's end (the baseline 4 below its middle)
        for y, size in labels.values():
            assert y - size >= 0 and y <= height, (narrow, labels)


def test_plot_labels_spread_deterministically() -> None:
    """The label pass: a run of labels that would overlap is centred where they want to be, in
    their order; labels at the edge stay inside; more labels than fit share the height."""
    from cardarena_dashboard.plot import spread

    assert spread([], 14, 0, 100) == []
    assert spread([50.0, 10.0, 90.0], 14, 0, 100) == [50.0, 10.0, 90.0]  # room enough: unmoved
    assert spread([50.0, 50.01], 14, 0, 100) == pytest.approx([43.005, 57.005])
    assert spread([1.0, 1.0, 1.0], 14, 0, 100) == [0.0, 14.0, 28.0]  # kept inside, ties in order
    crowded = spread([30.0] * 11, 14, 0, 100)  # 11 labels at 14 apart need 140
    assert crowded == pytest.approx([10.0 * k for k in range(11)])
    assert spread([5.0, 30.0, 31.0, 95.0], 14, 0, 100) == spread([5.0, 30.0, 31.0, 95.0], 14, 0, 100)


def test_match_list_paginates_and_filters(client: FlaskClient, seeded: Seeded) -> None:
    page = client.get("/matches?limit=3").get_data(as_text=True)
    assert page.count("<tr>") == 1 + 3 and "older" in page
    filtered = client.get("/matches?bot=alpha&limit=100").get_data(as_text=True)
    assert filtered.count("<tr>") - 1 == 8  # alpha plays 4 matches per deal set, 2 deal sets
    assert "no matches" in client.get("/matches?game=skull").get_data(as_text=True)


def test_solitaire_standings_show_the_win_rate(
    client: FlaskClient, seeded: Seeded, redis_url: str, key_prefix: str
) -> None:
    from cardarena.engine import games
    from cardarena.store.tournaments import TournamentStore
    from cardarena_tournament import lifecycle
    from cardarena_tournament.standings import Outcome, compute

    from .tournament_fixtures import play_spec

    game = next(g for g in games().values() if g.solitaire)
    bots = ["solo-a", "solo-b"]
    redis = client_for(redis_url)
    ts, ms = TournamentStore(redis), MatchStore(redis)
    t = lifecycle.new_tournament(game=game.id, players=1, entrants=bots, deal_sets=3, seed="s", tid="solo")
    ts.create(t)
    assert lifecycle.start_tournament(ts, ms, t.id) == 6
    # the real path: claim, play with the engine, complete, count, refresh the standings
    done = []
    while (spec := ms.claim("test-instance", wait_s=0.2)) is not None:
        assert ms.complete(spec.match_id, "test-instance", *play_spec(spec))
        done.append(spec.match_id)
    lifecycle.count_matches(ts, ms, done)
    lifecycle.refresh_standings(ts, t.id)
    results = ts.results(t.id)
    html = client.get("/tournaments/solo").get_data(as_text=True)
    assert '<th scope="col" class="num">win rate</th>' in html
    api = client.get("/api/v1/tournaments/solo/standings").get_json()["items"]
    for row in api:
        mine = [r for r in results.values() if r["seats"] == [row["bot"]]]
        assert row["win_rate"] == sum(r["won"][0] for r in mine) / len(mine)
        assert f'<td class="num win-rate">{100 * row["win_rate"]:.1f} %</td>' in html
    # a snapshot with wins (a solitaire is rarely won by the stand-in bots)
    outcomes = [
        Outcome(f"solo:0:{i}:0:{d}", (b,), (float(d),), (1,), str(d), won=(i == 0 and d < 2,))
        for d in range(3)
        for i, b in enumerate(bots)
    ]
    ts.save_standings(t.id, compute(outcomes, bots, solitaire=True, resamples=50).to_json())
    part = client.get("/tournaments/solo/standings.part").get_data(as_text=True)
    assert '<td class="num win-rate">66.7 %</td>' in part and '<td class="num win-rate">0.0 %</td>' in part
    rows = {r["bot"]: r for r in client.get("/api/v1/tournaments/solo/standings").get_json()["items"]}
    assert rows["solo-a"]["win_rate"] == pytest.approx(2 / 3) and rows["solo-b"]["win_rate"] == 0.0
    # a multi-player tournament's page has no win rate column
    assert "win rate" not in client.get("/tournaments/cup").get_data(as_text=True)
    redis.close()


@pytest.fixture
def schedules(seeded: Seeded, redis_url: str) -> SeededSchedules:
    return seed_schedules(redis_url)


def _row(page: str, row_id: str) -> str:
    found = re.search(rf'<tr id="{re.escape(row_id)}">(.*?)</tr>', page, re.S)
    assert found, f"no row {row_id}"
    return found.group(1)


def test_tournaments_page_lists_the_recurring_schedules(client: FlaskClient, schedules: SeededSchedules) -> None:
    page = client.get("/tournaments").get_data(as_text=True)
    assert "<h2>Recurring schedules</h2>" in page and "<h2>Scheduled</h2>" not in page
    # cron, every registered bot, not run yet: its next run is its next cron time (UTC)
    nightly = _row(page, "schedule-nightly")
    assert "all registered bots" in nightly and "cron 0 2 * * * (UTC)" in nightly
    assert "2027-01-16 02:00 UTC" in nightly and "not yet" in nightly
    assert "Nightly &lt;b&gt;all&lt;/b&gt;" in nightly and "<b>all</b>" not in nightly
    # interval, named entrants (one hostile, shown as text), run once: a link to that run
    hourly = _row(page, "schedule-hourly")
    assert "every 1h" in hourly and "2: alpha, &lt;script&gt;alert(1)&lt;/script&gt;" in hourly
    assert "2027-01-15 09:00 UTC" in hourly
    assert f'<a href="/tournaments/{schedules.run}">2027-01-15 08:00 UTC</a>' in hourly
    # a run that could not be created: its error, no link to a tournament that does not exist
    broken = _row(page, "schedule-broken")
    assert "run due 2027-01-15 08:00 UTC not created: 4-player tables need at least 4 entrants, got 3" in broken
    assert "/tournaments/broken-" not in broken and "2027-01-16 08:00 UTC" in broken
    assert XSS not in page
    # the run itself is a tournament that points back to its schedule
    run = client.get(f"/tournaments/{schedules.run}").get_data(as_text=True)
    assert 'a run of schedule <a href="/tournaments#schedule-hourly">hourly</a>' in run


def test_tournaments_page_without_schedules_says_so(client: FlaskClient, seeded: Seeded) -> None:
    page = client.get("/tournaments").get_data(as_text=True)
    assert "no recurring schedules" in page and 'class="list schedules"' not in page


def test_a_tournaments_page_past_the_last_one_says_so(client: FlaskClient, seeded: Seeded) -> None:
    """An old link (``?offset=`` of a page that has emptied) or a hand-typed offset past the end
    showed a range "51–50" (and, with no tournament running, "no tournaments yet" on a
    deployment that has some)."""
    first = client.get("/tournaments").get_data(as_text=True)
    assert "no tournaments yet" not in first
    past = client.get("/tournaments?offset=50&limit=25")
    assert past.status_code == 200
    page = past.get_data(as_text=True)
    assert "no tournaments yet" not in page
    assert "no finished or cancelled tournaments this far back" in page
    assert "51–50" not in page and 'href="/tournaments?offset=25&amp;limit=25"' in page


def test_bots_page_lists_every_bot_linked_and_paged(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    from cardarena.store.bots import BotStore

    BotStore(client_for(redis_url)).count("alpha", "matches", 7)  # as the service counts them
    page = client.get("/bots").get_data(as_text=True)
    assert page.count('<a href="/bots/') == 3  # one link per bot (the nav link is /bots)
    for name in ("alpha", "beta"):
        assert f'<a href="/bots/{name}">{name}</a>' in page
    assert '<a href="/bots/%3Cscript%3Ealert(1)%3C/script%3E">&lt;script&gt;alert(1)&lt;/script&gt;</a>' in page
    alpha = re.search(r'<a href="/bots/alpha">alpha</a></td>\s*<td class="num">(\d+)</td>\s*<td>(.*?)</td>', page, re.S)
    assert alpha and alpha.group(1) == "7"
    rating = client.get("/api/v1/bots/alpha").get_json()["ratings"]["glaves"]["ordinal"]
    assert f'<span class="chip">glaves {rating:.2f}</span>' in alpha.group(2)  # rated in glaves, with the rating
    # paged like the match list
    first = client.get("/bots?limit=2").get_data(as_text=True)
    assert first.count('<a href="/bots/') == 2 and 'href="/bots?offset=2&amp;limit=2">next' in first
    last = client.get("/bots?limit=2&offset=2").get_data(as_text=True)
    assert last.count('<a href="/bots/') == 1 and "next" not in last and "previous" in last
    assert client.get("/bots?limit=0").status_code == 400
    # every page links the bots list from the site navigation
    for url in ("/", "/games", "/matches", "/tournaments", "/bots/beta"):
        assert '<a href="/bots">Bots</a>' in client.get(url).get_data(as_text=True), url


def test_bots_page_shows_who_is_connected(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    from cardarena.store.presence import BotPresence, PresenceStore

    presence = PresenceStore(client_for(redis_url))
    presence.publish("instance-a", "127.0.0.1:1", {"beta": BotPresence(capacity=4, load=1)})
    page = client.get("/bots").get_data(as_text=True)
    beta = re.search(r'<a href="/bots/beta">beta</a>.*?</tr>', page, re.S)
    alpha = re.search(r'<a href="/bots/alpha">alpha</a>.*?</tr>', page, re.S)
    assert beta and ">connected<" in beta.group(0)
    assert alpha and ">not connected<" in alpha.group(0)
    assert ">connected<" in client.get("/bots/beta").get_data(as_text=True)
    presence.withdraw("instance-a")
    assert ">connected<" not in client.get("/bots").get_data(as_text=True)


def test_bots_page_with_no_bots(client: FlaskClient) -> None:
    assert "no bots registered" in client.get("/bots").get_data(as_text=True)


def test_tournament_page_says_the_rating_spans_all_the_bots_matches(client: FlaskClient, seeded: Seeded) -> None:
    page = client.get("/tournaments/cup").get_data(as_text=True)
    note = "OpenSkill rating (ordinal) now, over all of its Glaves matches, in every tournament, not only this one"
    assert note in page and "as on its page and at the end of its line in the plot below" in page
    assert "OpenSkill rating over all of each bot's Glaves matches (every tournament)" in page  # by the plot
    part = client.get("/tournaments/cup/standings.part").get_data(as_text=True)
    assert "current rating*</th>" in part and "over all of the bot's Glaves matches" in part


def _table_rating(page: str, bot: str) -> str:
    row = re.search(rf'<a href="/bots/{bot}">{bot}</a></td>.*?<td class="num rating">([^<]*)</td>', page, re.S)
    assert row, f"no standings row for {bot}"
    return row.group(1)


def _plot_rating(svg: str, bot: str) -> str:
    found = re.search(rf">{bot} (-?\d+\.\d)</text>", svg)
    assert found, f"no line for {bot} in the plot"
    return found.group(1)


def _standings_with_the_ratings_now(redis_url: str, seeded: Seeded) -> None:
    """Store the standings snapshot as ``lifecycle.refresh_standings`` does: with the ratings of now."""
    from cardarena.store.tournaments import TournamentStore
    from cardarena_tournament.standings import compute

    ts = TournamentStore(client_for(redis_url))
    snapshot = compute(seeded.outcomes, BOTS, resamples=200).to_json()
    ratings = ts.ratings("glaves")
    for row in snapshot["rows"]:
        row["rating"] = ratings.get(row["bot"])
    ts.save_standings(seeded.tournament, snapshot)


def _rated_elsewhere(redis_url: str, match_id: str) -> None:
    """alpha beats beta in a match of another tournament: their current ratings move."""
    from cardarena.store.tournaments import TournamentStore
    from cardarena_tournament.standings import rate_match

    seats = ("alpha", "beta")
    TournamentStore(client_for(redis_url)).apply_rating(
        "glaves", match_id, seats, lambda c: rate_match(c, seats, [1, 2])
    )


def test_a_running_tournament_shows_the_current_rating_like_its_plot_and_the_bot_page(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    from cardarena.store.tournaments import TournamentStore

    _standings_with_the_ratings_now(redis_url, seeded)
    _rated_elsewhere(redis_url, "other:0:01:0")  # ...which the next matches elsewhere leave behind
    stored = TournamentStore(client_for(redis_url)).standings("cup")
    assert stored is not None
    for bot in ("alpha", "beta"):
        current = client.get(f"/api/v1/bots/{bot}").get_json()["ratings"]["glaves"]["ordinal"]
        then = next(r for r in stored["rows"] if r["bot"] == bot)["rating"]["ordinal"]
        assert f"{then:.2f}" != f"{current:.2f}"  # the snapshot's rating is out of date
        assert _table_rating(client.get("/tournaments/cup").get_data(as_text=True), bot) == f"{current:.2f}"
        assert _plot_rating(client.get("/tournaments/cup/ratings.svg").get_data(as_text=True), bot) == f"{current:.1f}"
        api = client.get("/api/v1/tournaments/cup/standings").get_json()
        assert next(r for r in api["items"] if r["bot"] == bot)["rating"] == current and api["rating_as_of"] is None


def test_a_finished_tournament_shows_the_rating_at_its_end_and_does_not_change(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    from cardarena.store.tournaments import TournamentStore
    from cardarena_dashboard.reads import when_text

    ts = TournamentStore(client_for(redis_url))
    for mid in list(seeded.pending):
        finish_match(redis_url, seeded, mid)
    assert ts.finish("cup")
    _standings_with_the_ratings_now(redis_url, seeded)
    ended = ts.require("cup").finished_at
    assert ended is not None
    at_end = {b: client.get(f"/api/v1/bots/{b}").get_json()["ratings"]["glaves"]["ordinal"] for b in ("alpha", "beta")}
    part = client.get("/tournaments/cup/standings.part")
    svg = client.get("/tournaments/cup/ratings.svg").get_data(as_text=True)
    time.sleep(0.01)
    _rated_elsewhere(redis_url, "later:0:01:0")  # the bots play on after the tournament
    assert client.get("/api/v1/bots/alpha").get_json()["ratings"]["glaves"]["ordinal"] != at_end["alpha"]
    # the standings, their ETag and the plot are as they were when the tournament ended
    again = client.get("/tournaments/cup/standings.part", headers={"If-None-Match": part.headers["ETag"]})
    assert again.status_code == 304
    assert client.get("/tournaments/cup/ratings.svg").get_data(as_text=True) == svg
    page = client.get("/tournaments/cup").get_data(as_text=True)
    for bot, rating in at_end.items():
        assert _table_rating(page, bot) == f"{rating:.2f}"
        assert _plot_rating(svg, bot) == f"{rating:.1f}"  # the table and the plot agree
    assert f"as it stood when this tournament ended ({when_text(ended)})" in page
    assert f"until this tournament ended ({when_text(ended)})" in page and "rating at end*</th>" in page
    api = client.get("/api/v1/tournaments/cup/standings").get_json()
    assert api["rating_as_of"] == ended
    assert {r["bot"]: r["rating"] for r in api["items"] if r["bot"] in at_end} == at_end
    # the bot's own page goes on with its current rating
    assert "/bots/alpha/ratings/glaves.svg" in client.get("/bots/alpha").get_data(as_text=True)
    current = client.get("/bots/alpha/ratings/glaves.svg").get_data(as_text=True)
    assert _plot_rating(current, "alpha") != f"{at_end['alpha']:.1f}"


def test_tournament_rows_tell_same_named_runs_apart(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    from cardarena.store.tournaments import TournamentStore
    from cardarena_tournament import lifecycle

    ts = TournamentStore(client_for(redis_url))
    for tid, created in (("t-first", 1_800_000_000.0), ("t-second", 1_800_090_000.0)):
        t = lifecycle.new_tournament(game="glaves", players=3, entrants=["alpha", "beta", XSS], deal_sets=1, tid=tid)
        ts.create(replace(t, created_at=created))
    page = client.get("/tournaments").get_data(as_text=True)
    first, second = _row(page, "tournament-t-first"), _row(page, "tournament-t-second")
    assert ">Glaves 3p</a>" in first and ">Glaves 3p</a>" in second  # the same default name...
    assert '<small class="meta tid">t-first</small>' in first and "2027-01-15 08:00 UTC" in first  # ...told apart
    assert '<small class="meta tid">t-second</small>' in second and "2027-01-16 09:00 UTC" in second
    assert '<th scope="col">created</th>' in page and '<th scope="col">started</th>' in page
    started = client.get("/api/v1/tournaments/cup").get_json()["started_at_text"]
    assert started and started.endswith(" UTC") and started in _row(page, "tournament-cup")


def test_the_bot_page_shows_when_it_was_registered_and_what_each_number_counts(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    from cardarena.store.bots import BotStore
    from cardarena_dashboard.reads import when_text

    BotStore(client_for(redis_url)).count("beta", "forfeits", 10)  # a no-show: it forfeits, plays nothing
    bot = client.get("/api/v1/bots/beta").get_json()
    page = client.get("/bots/beta").get_data(as_text=True)
    assert bot["created_at_text"] == when_text(bot["created_at"]) and bot["created_at_text"].endswith(" UTC")
    assert f'<th scope="row">registered</th><td class="when">{bot["created_at_text"]}</td>' in page
    assert repr(bot["created_at"]) not in page and str(bot["created_at"])[:8] not in page  # no raw unix time
    matches, forfeits = _row(page, "stat-matches"), _row(page, "stat-forfeits")
    assert '<td class="num">0</td>' in matches and "matches played to the end (a no-show plays none)" in matches
    assert '<td class="num">10</td>' in forfeits and "a no-show" in forfeits
    for name in ("timeouts", "illegal_actions", "disconnects"):
        assert _row(page, f"stat-{name}").count("<td") == 2, name  # each counter with what it counts
    listing = client.get("/bots").get_data(as_text=True)
    assert (
        '<th scope="col" class="num" title="matches played to the end (a no-show plays none)">matches played</th>'
        in listing
    )
    assert "“matches played” counts matches played to the end (a no-show plays none)" in listing


class _Markup(HTMLParser):
    """What the accessibility check reads from a page: ``lang``, table headers without a scope,
    unnamed navigation landmarks, heading levels in order, images without ``alt``, and data
    tables outside a box that scrolls sideways (a wide table must not widen a phone's page)."""

    def __init__(self) -> None:
        super().__init__()
        self.lang: str | None = None
        self.unscoped: list[str] = []
        self.unnamed_navs = 0
        self.headings: list[int] = []
        self.no_alt: list[str] = []
        self.unboxed_tables: list[str] = []
        self._open: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "html":
            self.lang = a.get("lang")
        elif tag == "th" and a.get("scope") not in ("col", "row"):
            self.unscoped.append(repr(self.getpos()))
        elif tag == "nav" and not a.get("aria-label"):
            self.unnamed_navs += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self.headings.append(int(tag[1]))
        elif tag == "img" and not a.get("alt"):
            self.no_alt.append(a.get("src", ""))
        elif (
            tag == "table"
            and "fields" not in a.get("class", "")
            and not (self._open and self._open[-1] == ("div", "table-scroll"))
        ):
            self.unboxed_tables.append(a.get("class", ""))
        if tag not in ("br", "img", "input", "meta", "link", "line", "rect", "circle"):
            self._open.append((tag, a.get("class", "")))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()[0] == tag:
                break


def test_pages_are_marked_up_for_assistive_technology(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    store_timed_match(redis_url, "timed-markup", ("alpha", "beta"))  # its think times table
    for url in [
        "/",
        "/games",
        "/matches",
        "/tournaments",
        "/tournaments/cup",
        "/bots",
        "/bots/beta",
        "/games/glaves",
        "/games/glaves?retired=1",
        "/games/gridcannon",
        f"/matches/{seeded.finished[1]}?pov=all&step=7",
        f"/matches/{seeded.pending[0]}",
        "/matches/nope",
        "/api",
        f"/matches/{seeded.finished[1]}/moves?pov=0",
        "/matches/timed-markup?step=8",
    ]:
        page = _Markup()
        page.feed(client.get(url).get_data(as_text=True))
        assert page.lang == "en", url
        assert not page.unscoped, (url, "<th> without scope", page.unscoped)
        assert not page.unnamed_navs, (url, "a <nav> without aria-label")
        assert page.headings and page.headings[0] == 1, (url, page.headings)
        skips = [(a, b) for a, b in itertools.pairwise(page.headings) if b > a + 1]
        assert not skips, (url, "heading levels skipped", page.headings)
        assert not page.no_alt, (url, page.no_alt)
        assert not page.unboxed_tables, (url, "a data table outside .table-scroll", page.unboxed_tables)


# --- the API reference page -------------------------------------------------------------


def _operations_on_page(page: str) -> set[tuple[str, str]]:
    heads = re.findall(
        r'<h2 class="endpoint-head"><span class="method method-\w+">(\w+)</span> <code class="path">([^<]+)</code>',
        page,
    )
    return {(method, html.unescape(path)) for method, path in heads}


def _text(fragment: str) -> str:
    """A page fragment's text as a reader sees it (tags dropped, entities decoded)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def _section(page: str, anchor: str) -> str:
    start = page.index(f'<section class="endpoint" id="{anchor}">')
    return page[start : page.index("</section>", start)]


def test_api_reference_shows_every_operation_of_the_document(client: FlaskClient) -> None:
    """Computed from the document: an endpoint added to it is on the page, with its summary,
    parameters, responses and auth."""
    from cardarena_dashboard.apiref import anchor
    from cardarena_dashboard.openapi import openapi_document

    document = openapi_document()
    base = document["servers"][0]["url"]
    response = client.get("/api")
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/html")
    page = response.get_data(as_text=True)
    expected = {
        (method.upper(), base + path)
        for path, item in document["paths"].items()
        for method in item
        if method != "parameters"
    }
    assert len(expected) >= 18
    assert _operations_on_page(page) == expected
    for path, item in document["paths"].items():
        for method, op in item.items():
            section = _section(page, anchor(method, path))
            text = _text(section)
            assert op["summary"].replace("`", "") in text, (method, path)
            for code, answer in op["responses"].items():
                assert f'<td class="status-code">{code}</td>' in section, (method, path, code)
                assert answer["description"].replace("`", "") in text, (method, path, code)
            for param in op.get("parameters", []):
                row = f"<tr><td><code>{param['name']}</code></td><td>{param['in']}</td>"
                assert row in section, (method, path, param["name"])
                assert ("<td>yes</td>" in section) if param.get("required") else True
            if op.get("security"):
                assert '<strong>Auth:</strong> <span class="admin">adminToken</span>' in section
                assert "Authorization: Bearer &lt;token&gt;" in section and "CARDARENA_ADMIN_TOKEN" in section
            else:
                assert "<strong>Auth:</strong> none" in section, (method, path)
    # the JSON document stays where it was, linked from the page
    assert 'href="/api/v1/openapi.json"' in page
    assert client.get("/api/v1/openapi.json").get_json() == _json_roundtrip(document)


def _json_roundtrip(document: object) -> object:
    import json

    return json.loads(json.dumps(document))


def test_api_reference_resolves_refs_to_the_schemas_section(client: FlaskClient) -> None:
    from cardarena_dashboard.openapi import openapi_document

    page = client.get("/api").get_data(as_text=True)
    schemas = openapi_document()["components"]["schemas"]
    for name in schemas:
        assert f'<section class="schema-def" id="schema-{name}">' in page, name
    linked = set(re.findall(r'href="#schema-([^"]+)"', page))
    assert linked and linked <= set(schemas)  # every $ref link lands on a schema shown
    # an admin endpoint's request body: its $ref named, linked and expanded into its fields
    body = _section(page, "op-post-admin-tournaments")
    assert "<h3>Request body</h3>" in body
    assert (
        '<code>application/json</code>, required: <a class="ref" href="#schema-TournamentDefinition">'
        "TournamentDefinition</a>" in body
    )
    assert '<code class="prop">id</code> <span class="req">required</span>: <span class="type">string</span>' in body
    # one of several bodies (a bot or a roster): each named and linked, its fields in its schema
    bots = _section(page, "op-post-admin-bots")
    assert '<li><a class="ref" href="#schema-BotRegistration">BotRegistration</a></li>' in bots
    assert '<li><a class="ref" href="#schema-BotRoster">BotRoster</a></li>' in bots
    registration = page[page.index('id="schema-BotRegistration"') :]
    registration = registration[: registration.index("</section>")]
    assert (
        '<code class="prop">name</code> <span class="req">required</span>: <span class="type">string</span>'
        in registration
    )
    assert "length 1–64" in registration and "pattern <code>^[^:,]*$</code>" in registration
    # a nested $ref inside a schema is a link too (a page of matches: its items are Match)
    page_match = page[page.index('id="schema-Page_Match"') :]
    page_match = page_match[: page_match.index("</section>")]
    assert (
        '<code class="prop">items</code> <span class="req">required</span>: '
        'array of <a class="ref" href="#schema-Match">Match</a>' in page_match
    )
    # nested objects are nested lists
    tournament = page[page.index('id="schema-Tournament"') :]
    tournament = tournament[: tournament.index("</section>")]
    nested = tournament[tournament.index('<code class="prop">time_control</code>') :]
    assert (
        nested.index('<ul class="schema">') < nested.index('<code class="prop">move_ms</code>') < nested.index("</ul>")
    )


def test_api_reference_escapes_the_document(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Descriptions hold ``<`` (``<Game> <n>p``); the page shows them as text, and a document
    with markup in any text field renders no markup of its own."""
    page = client.get("/api").get_data(as_text=True)
    assert "<code>&lt;Game&gt; &lt;n&gt;p</code>" in page and "<Game>" not in page
    from cardarena_dashboard import pages
    from cardarena_dashboard.openapi import openapi_document

    hostile = _json_roundtrip(openapi_document())
    assert isinstance(hostile, dict)
    op = hostile["paths"]["/games/{game_id}"]["get"]
    op["summary"] = "One <b>game</b>"
    op["description"] = "Has `<script>alert(2)</script>` & " + XSS
    op["parameters"][0]["description"] = '"><img src=x onerror=alert(3)>'
    hostile["components"]["schemas"]["Game"]["properties"]["name"]["description"] = "<i>name</i>"
    monkeypatch.setattr(pages, "openapi_document", lambda: hostile)
    page = client.get("/api").get_data(as_text=True)
    assert XSS not in page and "<script>alert(2)" not in page and "<img src=x" not in page
    assert "<b>game</b>" not in page and "<i>name</i>" not in page
    assert "One &lt;b&gt;game&lt;/b&gt;" in page
    assert "<code>&lt;script&gt;alert(2)&lt;/script&gt;</code> &amp; &lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&#34;&gt;&lt;img src=x onerror=alert(3)&gt;" in page
    assert "&lt;i&gt;name&lt;/i&gt;" in page


def test_the_navigation_links_the_api_reference(client: FlaskClient, seeded: Seeded) -> None:
    for url in ("/", "/games", "/api"):
        nav = client.get(url).get_data(as_text=True)
        nav = nav[nav.index('<nav aria-label="site">') : nav.index("</nav>")]
        assert '<a href="/api">API</a>' in nav, url
        assert "openapi.json" not in nav


# --- the move list ----------------------------------------------------------------------


def _moves(page: str) -> dict[int, str]:
    """The move list's entries: step -> the entry's markup (each step once)."""
    found = re.findall(r'<li value="(\d+)" id="step-\1">(.*?)</li>', page)
    steps = [int(n) for n, _ in found]
    assert len(steps) == len(set(steps)), "a step listed twice"
    return {int(n): body for n, body in found}


def test_move_list_lists_every_step_once_linked_by_deal(client: FlaskClient, redis_url: str, key_prefix: str) -> None:
    from cardarena_dashboard.replay_steps import transitions

    mid, replay = store_game_match(redis_url, "glaves", 3, deals=3)
    steps = transitions(replay)
    for pov in ("spectator", "1", "all"):
        response = client.get(f"/matches/{mid}/moves?pov={pov}")
        assert response.status_code == 200, pov
        page = response.get_data(as_text=True)
        listed = _moves(page)
        assert sorted(listed) == [s.index for s in steps]
        for step in steps:
            body = listed[step.index]
            assert f'<a href="/matches/{mid}?step={step.index}&amp;pov={pov}#stepper">' in body
            if step.seat is not None:
                assert f'seat {step.seat} <span class="bot">({replay["seats"][step.seat]})</span>' in body
                assert f'title="{step.action}"' in body  # Glaves: every play is public
        # grouped by deal: one <details> per deal, each holding its own steps
        deals = re.findall(r'<details class="deal-moves" id="deal-(\d+)" open>(.*?)</details>', page, re.S)
        assert [int(d) for d, _ in deals] == [1, 2, 3]
        for number, block in deals:
            inside = {int(n) for n in re.findall(r'<li value="(\d+)"', block)}
            assert inside == {s.index for s in steps if s.deal == int(number) - 1}
    # the replay viewer links the move list at the current step, with its point of view
    viewer = client.get(f"/matches/{mid}?step=9&pov=2").get_data(as_text=True)
    assert f'<a id="all-moves" href="/matches/{mid}/moves?pov=2#step-9">' in viewer


@pytest.mark.parametrize(("game_id", "players", "secret"), [("coup", 3, "return:"), ("bourre", 3, "exchange:")])
def test_move_list_hides_other_seats_secret_choices(
    client: FlaskClient, redis_url: str, key_prefix: str, game_id: str, players: int, secret: str
) -> None:
    """A seat's secret choice (Coup: the card put back after an exchange; Bourré: which cards
    were discarded) is shown to that seat and with every card open, to no one else; the
    entries are those of the replay viewer's action log (one rule)."""
    mid, replay = store_game_match(redis_url, game_id, players)
    entries = [a for d in replay["deals"] for a in d["actions"]]
    secrets = [
        (i + 1, e["seat"], e["action"]) for i, e in enumerate(entries) if str(e.get("action", "")).startswith(secret)
    ]
    secrets = [s for s in secrets if s[2].count(":") >= 1 and s[2] != secret.rstrip(":")]
    assert secrets, f"the {game_id} match has no secret choice to check"
    pages = {
        pov: _moves(client.get(f"/matches/{mid}/moves?pov={pov}").get_data(as_text=True))
        for pov in ("spectator", "all", *map(str, range(players)))
    }
    for step, seat, action in secrets:
        assert f'title="{action}"' in pages["all"][step]
        assert f'title="{action}"' in pages[str(seat)][step]
        for pov in ("spectator", *(str(s) for s in range(players) if s != seat)):
            entry = pages[pov][step]
            assert action not in entry, (pov, step, action)
            assert f"seat {seat} " in entry  # the move is listed, its secret part is not
        # the replay viewer's log says the same at that step
        for pov in ("spectator", str((seat + 1) % players), str(seat)):
            viewer = client.get(f"/matches/{mid}?step={step}&pov={pov}").get_data(as_text=True)
            log = viewer[viewer.index('<section class="log">') :]
            logged = re.search(rf'<li value="{step}"[^>]*><a [^>]*>seat {seat}: <span title="([^"]*)"', log)
            assert logged is not None
            listed = re.search(r'title="([^"]*)"', pages[pov][step])
            assert listed is not None and listed.group(1) == logged.group(1), (pov, step)


def test_move_list_of_an_unfinished_match_is_409_without_moves(client: FlaskClient, seeded: Seeded) -> None:
    running = seeded.pending[0]
    for pov in ("", "?pov=0", "?pov=all"):
        response = client.get(f"/matches/{running}/moves{pov}")
        assert response.status_code == 409
        page = response.get_data(as_text=True)
        assert "not finished" in page and 'id="step-' not in page and "play:" not in page
    assert client.get("/matches/nope/moves").status_code == 404
    done = seeded.finished[0]
    for query in ("pov=7", "pov=everyone"):
        assert client.get(f"/matches/{done}/moves?{query}").status_code == 400


def test_move_list_of_a_withheld_replay_is_409_without_moves(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """Duplicate deals: while another seating of the deal is still to be played, the moves of
    the finished one would tell its cards; the list is withheld like the replay (409)."""
    from cardarena.store.tournaments import TournamentStore
    from cardarena_tournament import lifecycle

    from .tournament_fixtures import play_spec

    redis = client_for(redis_url)
    ms, ts = MatchStore(redis), TournamentStore(redis)
    t = lifecycle.new_tournament(game="glaves", players=2, entrants=["p", "q"], deal_sets=1, options={"deals": 1})
    assert ts.create(t) and lifecycle.start_tournament(ts, ms, t.id) == 2
    spec = ms.claim("test-instance", wait_s=0.5)
    assert spec is not None
    result, replay = play_spec(spec)
    assert ms.complete(spec.match_id, "test-instance", result, replay)
    played = [a["action"] for d in replay["deals"] for a in d["actions"] if "action" in a]
    for pov in ("", "?pov=0", "?pov=all"):
        response = client.get(f"/matches/{spec.match_id}/moves{pov}")
        assert response.status_code == 409
        page = response.get_data(as_text=True)
        assert "withheld" in page and 'id="step-' not in page
        assert not [a for a in played if a in page]
    other = ms.claim("test-instance", wait_s=0.5)
    assert other is not None and ms.complete(other.match_id, "test-instance", *play_spec(other))
    shown = client.get(f"/matches/{spec.match_id}/moves?pov=all")
    assert shown.status_code == 200 and f'title="{played[0]}"' in shown.get_data(as_text=True)
    redis.close()


def test_the_action_log_tells_a_seat_what_it_was_told_then(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """Coup's ``show:<card>`` (a card shown to the examiner) is public to the examiner only,
    a rule that reads the state (who examines). The log evaluated it at the step on screen, so a
    seat that examined later saw an earlier examination's card in the log (seed 12: seat 0 read
    ``show:2H`` at step 6). Now each entry is what the service told each seat when it happened,
    in the log and the move list alike."""
    from cardarena_dashboard.replay_steps import state_at, transitions

    mid, replay = store_game_match(redis_url, "coup", 3, seed=12)
    shows = [s for s in transitions(replay) if s.action and s.action.startswith("show:")]
    checked = 0
    for show in shows:
        assert show.action is not None and show.seat is not None
        after, _, last = state_at(replay, show.index)
        untold = [v for v in range(3) if after.public_action(v, show.seat, show.action) != show.action]
        assert untold and show.seat not in untold
        moves = {
            v: _moves(client.get(f"/matches/{mid}/moves?pov={v}").get_data(as_text=True))[show.index] for v in untold
        }
        for v in untold:
            assert show.action not in moves[v] and 'title="show"' in moves[v]
            for at in range(show.index, min(last, show.index + 11) + 1):
                page = client.get(f"/matches/{mid}?step={at}&pov={v}").get_data(as_text=True)
                entry = re.search(
                    rf'<li value="{show.index}"[^>]*>(.*?)</li>', page[page.index('<section class="log">') :]
                )
                assert entry is not None and show.action not in entry.group(1), (show.index, at, v)
                checked += 1
    assert checked > 10


def test_the_replay_viewer_re_runs_the_replay_once_per_request(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the replay cache off, a step of the viewer and the move list each re-run the
    replay once (the viewer ran it twice: once for the state at the step, once more for the
    action log), up to the step shown; the page shows what the separate functions say of that
    step.  (With the cache on: tests/test_replay_cache.py.)"""
    from cardarena_dashboard import replay_steps

    client = create_app({"REDIS_URL": redis_url, "TESTING": True, "REPLAY_CACHE_MATCHES": 0}).test_client()

    mid, replay = store_game_match(redis_url, "glaves", 3, deals=2)
    steps = replay_steps.transitions(replay)
    expected = {}
    for at in (0, 7, len(steps) // 2, len(steps) - 1):
        for pov in ("spectator", "1", "all"):
            state, _, last = replay_steps.state_at(replay, at)
            told = replay_steps.moves(replay, pov, upto=at)[-12:]
            to_act = replay_steps.situation(state).to_act
            expected[at, pov] = ([m.text for m in told], [m.index for m in told], to_act, last)
    runs: list[int] = []  # one entry per re-run: the steps it went through
    real = replay_steps._positions

    def counted(*args: Any, **kwargs: Any) -> Iterator[Any]:
        runs.append(0)
        for item in real(*args, **kwargs):
            runs[-1] += 1
            yield item

    monkeypatch.setattr(replay_steps, "_positions", counted)
    for (at, pov), (texts, indexes, to_act, last) in expected.items():
        runs.clear()
        page = client.get(f"/matches/{mid}?step={at}&pov={pov}").get_data(as_text=True)
        assert runs == [at + 1], (at, pov)
        log = page[page.index('<section class="log">') :]
        assert re.findall(r'<span title="([^"]*)"', log) == texts
        assert [int(n) for n in re.findall(r'<li value="(\d+)"', log)] == indexes
        assert f'<strong id="step-index">{at}</strong> / {last}' in page
        assert all(f"seat {s} ({replay['seats'][s]})" in page for s in to_act)
    runs.clear()
    assert client.get(f"/matches/{mid}/moves?pov=all").status_code == 200
    assert runs == [len(steps)]


def test_match_page_lists_faults_with_their_steps(client: FlaskClient, redis_url: str, key_prefix: str) -> None:
    replay = store_faulted_match(redis_url, "review-faults", (XSS, "solid"))
    page = client.get("/matches/review-faults")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and XSS not in text
    faults = text.split('id="faults"', 1)[1].split("</section>", 1)[0]
    # Deal start is step 0, so the n-th action (no chance entries in Glaves' deal) is step n + 1.
    steps = [i + 1 for i, a in enumerate(replay["deals"][0]["actions"]) if "fault" in a]
    for step, seq in zip(steps, (3, 5), strict=True):
        assert f'href="/matches/review-faults?step={step}&amp;pov=0#stepper">step {step}</a>' in faults
        assert f"seq {seq}" in faults
    assert faults.count("time-out: no answer") == 2 and faults.count(">forfeits<") == 1
    assert "&lt;script&gt;" in faults
    refused = faults.split("2 illegal answers refused, not a strike", 1)[0].rsplit("<tr>", 1)[1]
    assert '<td class="bot"><span>solid</span></td>' in refused
    # the reason the bot was given opens without hovering (a tap, a click, Enter), escaped
    reason = faults.split("2 illegal answers refused, not a strike", 1)[1].split("</tr>", 1)[0]
    assert '<details class="reason"><summary>reason</summary><q>&lt;b&gt;not yours&lt;/b&gt;</q></details>' in reason
    assert "title=" not in faults.split("<tbody>", 1)[1] and faults.count("<details") == 1  # time-outs have none
    assert '<span class="fault">forfeited</span>' in text.split('id="match-result"', 1)[1].split("</table>", 1)[0]
    at = client.get(f"/matches/review-faults?step={steps[1]}&pov=1").get_data(as_text=True)
    assert "default action: time-out · forfeits the seat" in at and "fault=" not in at
    moves = client.get("/matches/review-faults/moves").get_data(as_text=True)
    assert moves.count("default action: time-out") == 2
    assert "no faults" not in text
    clean, _ = store_game_match(redis_url, "glaves", 2)
    assert "no faults: every decision was answered" in client.get(f"/matches/{clean}").get_data(as_text=True)


def test_match_page_shows_each_seats_think_times_and_each_steps_time(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    replay = store_timed_match(redis_url, "timed", (XSS, "solid"))
    seats = action_seats(replay)
    # Glaves deals no chance entries: action n is step n + 1 (step 0 is the deal).
    slow = [i for i, s in enumerate(seats) if s == 0][3] + 1  # seat 0's 4th action: 1800 ms
    first_of_1 = seats.index(1) + 1
    text = client.get("/matches/timed").get_data(as_text=True)
    assert XSS not in text
    section = text.split('id="think"', 1)[1].split("</section>", 1)[0]
    rows = [re.sub(r"\s+", " ", r) for r in section.split("<tbody>", 1)[1].split("<tr>")[1:]]
    asked = [seats.count(0), seats.count(1)]
    assert f'<td class="num">{asked[0]}</td><td class="num">20 ms</td><td class="num">1800 ms</td>' in rows[0]
    assert f'href="/matches/timed?step={slow}&amp;pov=0#stepper">step {slow}</a>' in rows[0]
    assert rows[0].endswith('<td class="num">0</td><td class="num">4.2 s</td></tr>') and "&lt;script&gt;" in rows[0]
    assert f'<td class="num">{asked[1]}</td><td class="num">12 ms</td><td class="num">12 ms</td>' in rows[1]
    assert f'step={first_of_1}&amp;pov=1#stepper">step {first_of_1}</a>' in rows[1] and "5 s</td>" in rows[1]

    def action_line(step: int) -> str:
        page = client.get(f"/matches/timed?step={step}&pov=1").get_data(as_text=True)
        return page.split('id="current-action"', 1)[1].split("</p>", 1)[0]

    assert "answered in 1800 ms (bank left 4.2 s)" in action_line(slow)
    assert "answered in 12 ms (bank left 5 s)" in action_line(first_of_1)
    assert "answered in" not in action_line(0)  # the deal: nobody was asked
    # A replay recorded before times were (or a local one): no table, no times on the line.
    old, _ = store_game_match(redis_url, "glaves", 2)
    page = client.get(f"/matches/{old}?step=3").get_data(as_text=True)
    assert 'id="think"' not in page and "answered in" not in page and "step-think" not in page
    api = client.get("/api/v1/matches/timed").get_json()
    assert api["result"]["think"][0]["max_ms"] == 1800 and api["result"]["think"][0]["slowest"] == slow - 1
    assert client.get("/api/v1/matches/timed/replay").get_json()["think_ms"] == replay["think_ms"]


def test_a_pruned_match_page_keeps_its_think_times_from_the_result(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """Found in review: once the retention policy dropped a match's replay, its page showed the
    seats and the result but not the think times, which the result keeps.  They are shown from
    the result, without the links to the slowest steps (there are no steps to show)."""
    from cardarena.store import retention

    replay = store_timed_match(redis_url, "timed-pruned", (XSS, "solid"))
    seats = action_seats(replay)
    report = retention.prune(client_for(redis_url), older_than_days=30, now=time.time() + 40 * 86400)
    assert report.replays == 1 and client.get("/api/v1/matches/timed-pruned/replay").status_code == 410
    page = client.get("/matches/timed-pruned")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert 'id="replay-pruned"' in text and XSS not in text
    section = text.split('id="think"', 1)[1].split("</section>", 1)[0]
    assert "its replay, with each step's time, was pruned" in section and "slowest" not in section
    rows = [re.sub(r"\s+", " ", r) for r in section.split("<tbody>", 1)[1].split("<tr>")[1:]]
    assert rows[0] == (
        '<td>0</td><td class="bot"><span>&lt;script&gt;alert(1)&lt;/script&gt;</span></td>'
        f'<td class="num">{seats.count(0)}</td><td class="num">20 ms</td><td class="num">1800 ms</td>'
        '<td class="num">0</td><td class="num">4.2 s</td></tr>'
    )
    assert rows[1].startswith('<td>1</td><td class="bot"><span>solid</span></td>')
    assert f'<td class="num">{seats.count(1)}</td><td class="num">12 ms</td><td class="num">12 ms</td>' in rows[1]
    assert 'href="/matches/timed-pruned?step=' not in text  # no step to link to
    moves = client.get("/matches/timed-pruned/moves")
    assert moves.status_code == 410 and 'id="think"' in moves.get_data(as_text=True)


def test_bot_page_lists_its_think_times_per_match(client: FlaskClient, redis_url: str, key_prefix: str) -> None:
    from cardarena.store.bots import BotStore

    BotStore(client_for(redis_url)).register("solid")
    store_timed_match(redis_url, "timed-a", ("solid", XSS))
    store_timed_match(redis_url, "timed-b", (XSS, "solid"))
    store_faulted_match(redis_url, "untimed", ("solid", XSS))  # recorded without times
    text = client.get("/bots/solid").get_data(as_text=True)
    table = text.split('id="bot-matches"', 1)[1].split("</table>", 1)[0]
    assert "think median / max" in table
    rows = {mid: table.split(f'href="/matches/{mid}?', 1)[1].split("</tr>", 1)[0] for mid in ("timed-a", "timed-b")}
    rows["untimed"] = table.split('href="/matches/untimed?', 1)[1].split("</tr>", 1)[0]
    assert '<td class="num think">20 / 1800 ms</td>' in rows["timed-a"]  # seat 0
    assert '<td class="num think">12 / 12 ms</td>' in rows["timed-b"]  # seat 1
    assert '<td class="num think">–</td>' in rows["untimed"]


def test_bot_page_lists_its_place_margin_strikes_and_head_to_head(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    from cardarena.store.bots import BotStore

    BotStore(client_for(redis_url)).register("solid")
    store_faulted_match(redis_url, "review-a", (XSS, "solid"))
    store_faulted_match(redis_url, "review-b", ("solid", XSS))
    page = client.get("/bots/solid")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and XSS not in text
    rows = text.split('id="bot-matches"', 1)[1].split("</table>", 1)[0]
    # review-b (newest first): solid sits in seat 0 and forfeits; review-a: seat 1, first.
    assert 'href="/matches/review-b?pov=0"' in rows and 'href="/matches/review-a?pov=1"' in rows
    assert rows.count("2 of 2 <span") == 1 and rows.count("1 of 2<") == 1
    h2h = text.split('id="head-to-head"', 1)[1].split("</table>", 1)[0]
    cells = re.findall(r'<td class="num">(\d+)</td>', h2h)
    assert "&lt;script&gt;" in h2h and cells == ["2", "1", "1", "0"]  # matches, ahead, behind, level


def test_match_page_ranks_a_forfeit_as_recorded_not_by_the_engines_score(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """Found running a class: a no-show's default actions outscored the bot that came, and the
    match page said "rank 1" for the absent bot (the engine's rank) while the standings counted
    the match as the other bot's win.  The page shows the recorded places (``final_ranks``)."""
    from .dashboard_data import _claimed_glaves

    matches, state, replay = _claimed_glaves(redis_url, "no-show-page", ("ghost", "real"), 11)
    engine = state.result().to_json()
    absent = list(engine["ranks"]).index(1)  # the seat the default actions "won"
    ranks = [2 if s == absent else 1 for s in range(2)]
    replay.update(faults=[{"seat": absent, "fault": "no-show", "forfeit": True}], forfeited=[absent], final_ranks=ranks)
    result = {**engine, "ranks": ranks, "forfeited": [absent], "no_show": [absent], "strikes": [0, 0]}
    assert matches.complete("no-show-page", "review-test", result, replay)
    text = client.get("/matches/no-show-page").get_data(as_text=True)
    table = text.split('id="match-result"', 1)[1].split("</table>", 1)[0]
    rows = table.split("<tbody>", 1)[1].split("</tr>")
    assert ">2 <span" in rows[absent] and ">no-show</span>" in rows[absent]
    assert "<td>1</td>" in rows[1 - absent] and 'id="no-contest"' not in text
