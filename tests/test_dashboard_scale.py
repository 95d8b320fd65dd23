"""The dashboard over a term's worth of data, on a real Redis filled through the stores: what
a page reads must not grow with everything stored (rating histories that grow every night,
tens of thousands of matches of other tournaments)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
from cardarena.store.connection import client_for
from cardarena.store.tournaments import TournamentStore
from cardarena_dashboard import create_app
from cardarena_tournament.standings import rate_match
from flask.testing import FlaskClient

from .dashboard_data import BOTS, XSS, Seeded, finish_match, seed


@pytest.fixture
def seeded(redis_url: str, key_prefix: str) -> Seeded:
    return seed(redis_url)


@pytest.fixture
def client(redis_url: str, key_prefix: str) -> Iterator[FlaskClient]:
    yield create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()


def _served_bytes(redis_url: str) -> Callable[[], int]:
    """Bytes the Redis server has sent to its clients so far (``INFO stats``)."""
    r = client_for(redis_url)
    return lambda: int(r.info("stats")["total_net_output_bytes"])


def _read_by(redis_url: str, client: FlaskClient, url: str) -> tuple[int, Any]:
    """What serving ``url`` read from Redis (bytes), and the response."""
    served = _served_bytes(redis_url)
    before = served()
    response = client.get(url)
    assert response.status_code == 200, url
    return served() - before, response


def _play_on(redis_url: str, matches: int) -> None:
    """The entrants play ``matches`` more rated matches each (other tournaments, later nights)."""
    ts = TournamentStore(client_for(redis_url))
    pairs = [("alpha", "beta"), ("beta", XSS), (XSS, "alpha")]
    for start in range(0, matches, 500):
        batch = []
        for n in range(start, min(matches, start + 500)):
            for p, seats in enumerate(pairs):
                batch.append((f"later-{n}:{p}", seats, lambda cur, s=seats: rate_match(cur, s, [1, 2])))
        ts.apply_ratings("glaves", batch)


def _plot_line(svg: str, bot: str) -> tuple[int, str]:
    """The number of points of ``bot``'s line in a rating plot, and its end label."""
    label = re.escape(bot.replace("<", "&lt;").replace(">", "&gt;"))
    end = re.search(rf">{label} (-?\d+\.\d)</text>", svg)
    assert end, f"no line for {bot}"
    lines = re.findall(r'<polyline[^>]*points="([^"]*)"', svg)
    return max(len(pts.split()) for pts in lines), end.group(1)


def test_a_finished_tournament_reads_the_rating_at_its_end_not_the_whole_history(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    """The bots of a nightly schedule play on for a term after a tournament ends: its page, its
    standings API and its plot read each entrant's rating at the end (and a thinned plot), not
    the whole history (1,500 later matches per bot here: about 0.7 MB of history)."""
    ts = TournamentStore(client_for(redis_url))
    for mid in list(seeded.pending):
        finish_match(redis_url, seeded, mid)
    assert ts.finish("cup")
    at_end = {b: ts.ratings("glaves")[b]["ordinal"] for b in BOTS}
    _play_on(redis_url, 1500)
    assert len(ts.rating_history("alpha", "glaves")) > 3000

    read, api = _read_by(redis_url, client, "/api/v1/tournaments/cup/standings")
    assert {r["bot"]: r["rating"] for r in api.get_json()["items"]} == at_end
    assert read < 20_000, f"the standings API read {read} bytes from Redis"
    read, page = _read_by(redis_url, client, "/tournaments/cup")
    assert f"{at_end['alpha']:.2f}" in page.get_data(as_text=True)
    assert read < 60_000, f"the tournament page read {read} bytes from Redis"
    read, svg = _read_by(redis_url, client, "/tournaments/cup/ratings.svg")
    assert _plot_line(svg.get_data(as_text=True), "alpha")[1] == f"{at_end['alpha']:.1f}"
    assert read < 60_000, f"the tournament's rating plot read {read} bytes from Redis"
    read, svg = _read_by(redis_url, client, "/bots/alpha/ratings/glaves.svg")
    points, last = _plot_line(svg.get_data(as_text=True), "alpha")
    assert points <= 302 and last == f"{ts.ratings('glaves')['alpha']['ordinal']:.1f}"
    assert read < 80_000, f"the bot's rating plot read {read} bytes from Redis"


def _later_tournaments(redis_url: str, matches: int, game: str = "glaves") -> None:
    """``matches`` matches of ``game`` between ``alpha`` and ``beta`` of later tournaments are
    stored (queued) after the seeded one, through ``MatchStore.enqueue_many``."""
    from cardarena.store.matches import MatchSpec, MatchStore

    ms = MatchStore(client_for(redis_url))
    seats = ("alpha", "beta")
    ms.enqueue_many([MatchSpec(f"later:{n}", game, 2, seats, n, tournament="later") for n in range(matches)])


def test_an_old_tournament_lists_its_matches_whatever_was_stored_after_it(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    """A tournament's match list (its page, ``/matches?tournament=``, the API) reads the
    tournament's own matches: after a few weeks of nightly runs (10,500 later matches here) the
    first night still lists all of them, most recently counted first, and reading them does not
    scan the matches of every later tournament."""
    _later_tournaments(redis_url, 10_500)
    ts = TournamentStore(client_for(redis_url))
    counted = [m for m in ts.matches("cup") if m["counted"]]
    read, api = _read_by(redis_url, client, "/api/v1/tournaments/cup/matches?limit=100")
    items = api.get_json()["items"]
    assert len(items) == 12 and {m["tournament"] for m in items} == {"cup"}
    assert [m["id"] for m in items[: len(counted)]] == list(reversed(seeded.finished))
    assert read < 60_000, f"the tournament's match list read {read} bytes from Redis"
    page = _json_items(client, "/api/v1/tournaments/cup/matches?limit=5&offset=5")
    assert [m["id"] for m in page["items"]] == [m["id"] for m in items[5:10]] and page["next_offset"] == 10
    both = _json_items(client, f"/api/v1/matches?tournament=cup&bot={XSS}&limit=100")["items"]
    assert both and all(XSS in m["seats"] and m["tournament"] == "cup" for m in both)
    assert len(both) == sum(XSS in m["seats"] for m in items)
    read, html = _read_by(redis_url, client, "/tournaments/cup")
    assert f'href="/matches/{seeded.finished[-1]}"' in html.get_data(as_text=True)
    assert read < 60_000, f"the tournament page read {read} bytes from Redis"
    listed = client.get("/matches?tournament=cup&limit=25").get_data(as_text=True)
    assert all(f'href="/matches/{m["id"]}"' in listed for m in items)


def _json_items(client: FlaskClient, url: str) -> Any:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_json()


def test_the_home_page_and_the_tournament_api_read_only_the_tournaments_they_show(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """A term of nightly runs leaves a hundred tournaments: the home page shows the newest 10 and
    the API a page of them, and each reads those records only (all of them, one round trip
    each, before)."""
    from cardarena_tournament import lifecycle

    ts = TournamentStore(client_for(redis_url))
    bots = [f"student-{i:02d}-with-a-longer-name" for i in range(40)]
    for night in range(100):
        t = lifecycle.new_tournament(game="glaves", players=2, entrants=bots, deal_sets=1, tid=f"night{night:03d}")
        ts.create(replace(t, created_at=1_800_000_000.0 + night * 86_400))
    read, home = _read_by(redis_url, client, "/")
    text = home.get_data(as_text=True)
    assert "night099" in text and "night090" in text and "night089" not in text
    assert read < 40_000, f"the home page read {read} bytes from Redis"
    read, api = _read_by(redis_url, client, "/api/v1/tournaments?limit=5&offset=10")
    page = api.get_json()
    assert [t["id"] for t in page["items"]] == [f"night{n:03d}" for n in range(89, 84, -1)] and page[
        "next_offset"
    ] == 15
    assert read < 40_000, f"a page of the tournaments API read {read} bytes from Redis"
    last = _json_items(client, "/api/v1/tournaments?limit=5&offset=95")
    assert [t["id"] for t in last["items"]] == [f"night{n:03d}" for n in range(4, -1, -1)] and last[
        "next_offset"
    ] is None
    assert _json_items(client, "/api/v1/tournaments?status=running")["items"] == []
    assert len(_json_items(client, "/api/v1/tournaments?status=upcoming&limit=200")["items"]) == 100


def test_a_bots_and_a_games_match_lists_reach_past_the_10000_most_recent(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    """After 10,500 later matches (of other bots or another game), a bot's match list (API, the
    match list page, its own page) and a game's still list its older matches: each reads its
    index, a page at a time (bounded by the bytes Redis sends, even deep in the list), and paging
    through a bot's 10,500+ matches gives each exactly once."""
    cup = [m["id"] for m in _json_items(client, "/api/v1/tournaments/cup/matches?limit=100")["items"]]
    _later_tournaments(redis_url, 10_500, "knaves")
    xss = [m for m in cup if XSS in (_json_items(client, f"/api/v1/matches/{m}")["seats"])]
    assert xss
    read, api = _read_by(redis_url, client, f"/api/v1/matches?bot={XSS}&limit=100")
    assert sorted(m["id"] for m in api.get_json()["items"]) == sorted(xss)
    assert api.get_json()["next_offset"] is None and "truncated" not in api.get_json()
    assert read < 60_000, f"a bot's match list read {read} bytes from Redis"
    glaves = _json_items(client, "/api/v1/matches?game=glaves&limit=100")["items"]
    assert sorted(m["id"] for m in glaves) == sorted(cup)
    alpha_glaves = _json_items(client, "/api/v1/matches?game=glaves&bot=alpha&limit=100")["items"]
    assert sorted(m["id"] for m in alpha_glaves) == sorted(m["id"] for m in glaves if "alpha" in m["seats"])
    page = client.get(f"/matches?bot={XSS}").get_data(as_text=True)
    assert all(f'href="/matches/{m}"' in page for m in xss)
    read, html = _read_by(redis_url, client, f"/bots/{XSS}")
    # the bot's page opens each replay from the bot's seat
    assert re.search(f'href="/matches/{re.escape(xss[0])}\\?pov=\\d"', html.get_data(as_text=True))
    assert read < 60_000, f"a bot's page read {read} bytes from Redis"

    assert 'href="/matches?bot=alpha"' in client.get("/bots/alpha").get_data(as_text=True)  # 20 of 10,500+
    read, deep = _read_by(redis_url, client, "/api/v1/matches?bot=alpha&limit=50&offset=10400")
    assert len(deep.get_json()["items"]) == 50 and deep.get_json()["next_offset"] == 10450
    assert read < 60_000, f"a page deep in a bot's match list read {read} bytes from Redis"
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        body = _json_items(client, f"/api/v1/matches?bot=alpha&limit=200&offset={offset}")
        seen += [m["id"] for m in body["items"]]
        offset = body["next_offset"]
    alpha_cup = [m for m in cup if "alpha" in _json_items(client, f"/api/v1/matches/{m}")["seats"]]
    assert len(seen) == len(set(seen)) == 10_500 + len(alpha_cup)
    assert set(seen) == {f"later:{n}" for n in range(10_500)} | set(alpha_cup)


def test_matches_stored_before_the_indexes_are_listed_by_bot_and_game(
    seeded: Seeded, redis_url: str, key_prefix: str
) -> None:
    """A store written by an earlier version (matches without the game and bot indexes): the
    dashboard indexes them once when it starts, and lists them by bot and by game."""
    r = client_for(redis_url)
    indexes = [k for k in r.scan_iter(match=f"{key_prefix}matches:*") if b":game" in k or b":bot:" in k]
    assert indexes
    r.delete(*indexes)
    every = _json_items(create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client(), "/api/v1/matches")
    client = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()
    beta = _json_items(client, "/api/v1/matches?bot=beta")["items"]
    assert [m["id"] for m in beta] == [m["id"] for m in every["items"] if "beta" in m["seats"]] != []
    assert len(_json_items(client, "/api/v1/matches?game=glaves")["items"]) == len(every["items"])
    assert r.exists(f"{key_prefix}matches:indexed")


def test_the_tournaments_page_lists_live_ones_and_pages_the_ended(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """A term of nightly runs leaves a hundred finished tournaments: ``/tournaments`` shows every
    running and upcoming one and a page of the finished (25, newest first, with links to older
    pages), reading those records only."""
    from cardarena_tournament import lifecycle

    ts = TournamentStore(client_for(redis_url))
    bots = [f"student-{i:02d}-with-a-longer-name" for i in range(40)]
    for night in range(100):
        t = lifecycle.new_tournament(game="glaves", players=2, entrants=bots, deal_sets=1, tid=f"night{night:03d}")
        ts.create(replace(t, created_at=1_800_000_000.0 + night * 86_400))
        if night < 98:
            assert ts.start(t.id, []) and ts.finish(t.id)
    ts.start("night098", [])
    read, first = _read_by(redis_url, client, "/tournaments")
    text = first.get_data(as_text=True)
    shown = set(re.findall(r'id="tournament-(night\d+)"', text))
    assert shown == {"night099", "night098"} | {f"night{n:03d}" for n in range(97, 72, -1)}
    assert 'href="/tournaments?offset=25&amp;limit=25"' in text and "newer" not in text
    assert read < 100_000, f"the tournaments page read {read} bytes from Redis"  # all 100: ~230 KB
    last = client.get("/tournaments?offset=75&limit=25").get_data(as_text=True)
    assert set(re.findall(r'id="tournament-(night\d+)"', last)) == {"night099", "night098"} | {
        f"night{n:03d}" for n in range(22, -1, -1)
    }
    assert "older →" not in last and 'href="/tournaments?offset=50&amp;limit=25"' in last
    assert client.get("/tournaments?limit=0").status_code == 400


def _commands(redis_url: str) -> Callable[[], dict[str, int]]:
    """How many times the Redis server has run each command so far (``INFO commandstats``,
    without the ``INFO`` calls themselves)."""
    r = client_for(redis_url)

    def counts() -> dict[str, int]:
        stats = r.info("commandstats")
        return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items() if k != "cmdstat_info"}

    return counts


def test_an_unknown_tournament_filter_is_404_without_reading_any_match(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    """``/api/v1/matches?tournament=ID`` (and ``/matches?tournament=ID``) for a tournament the
    store does not know: 404 with the usual error body (a page for the HTML list), after one
    read of the tournament's record; it scanned the newest 10,000 match records for ones that
    name it.  Matches naming a tournament that was never stored are not looked for."""
    _later_tournaments(redis_url, 300)  # their tournament "later" was never stored
    commands = _commands(redis_url)
    for url in ("/api/v1/matches?tournament=later", "/api/v1/matches?tournament=nope&bot=alpha&game=glaves"):
        before = commands()
        response = client.get(url)
        ran = {k: n - before.get(k, 0) for k, n in commands().items() if n != before.get(k, 0)}
        assert response.status_code == 404, url
        tid = url.split("=")[1].split("&")[0]
        assert response.get_json() == {"error": {"status": 404, "message": f"unknown tournament {tid!r}"}}
        assert ran == {"hgetall": 1}, (url, ran)  # the tournament's record, and nothing else
    page = client.get("/matches?tournament=later&limit=5")
    assert page.status_code == 404 and "unknown tournament &#39;later&#39;" in page.get_data(as_text=True)
    cup = _json_items(client, "/api/v1/matches?tournament=cup&limit=100")["items"]
    assert cup and all(m["tournament"] == "cup" for m in cup)
    assert sorted(m["id"] for m in cup) == sorted(seeded.finished + seeded.pending)
    html = client.get("/matches?tournament=cup")
    assert html.status_code == 200 and f'href="/matches/{cup[0]["id"]}"' in html.get_data(as_text=True)


def _hgetall_calls(redis_url: str) -> Callable[[], int]:
    """How many ``HGETALL`` the Redis server has run so far (``INFO commandstats``): one per
    match record read (``MatchStore.info``/``infos``)."""
    r = client_for(redis_url)
    return lambda: int(r.info("commandstats").get("cmdstat_hgetall", {}).get("calls", 0))


def test_a_filtered_list_of_a_big_tournament_reads_only_the_matches_it_shows(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """``/matches?tournament=T`` with ``game`` or ``bot`` (anyone may ask, with any offset)
    reads the match records of the page it answers, not every match of the tournament: a game
    the tournament does not play, a bot it does not seat or an offset past the end read none,
    and a deep page of a bot's matches reads that page.  (It scanned the tournament's matches:
    seconds of work per request for a tournament of tens of thousands of matches.)"""
    from cardarena.store.matches import MatchSpec, MatchStore
    from cardarena.store.tournaments import Tournament

    r = client_for(redis_url)
    ts, ms = TournamentStore(r), MatchStore(r)
    bots = [f"b{n}" for n in range(6)]
    pairs = [(a, b) for a in bots for b in bots if a != b]
    entries = [{"match_id": f"big:0:{n}:0:0", "seats": list(pairs[n % len(pairs)])} for n in range(1500)]
    ts.create(Tournament(id="big", name="big", game="glaves", players=2, entrants=tuple(bots), deal_sets=50))
    ts.start("big", entries)
    ms.enqueue_many(
        [MatchSpec(e["match_id"], "glaves", 2, tuple(e["seats"]), n, tournament="big") for n, e in enumerate(entries)]
    )
    counted = [e["match_id"] for e in entries[100:160]]
    for mid in counted:
        ts.record("big", mid, {"scores": [1, 0], "ranks": [1, 2]})
    reads = _hgetall_calls(redis_url)

    def listed(url: str) -> tuple[list[str], Any, int]:
        before = reads()
        body = _json_items(client, url)
        return [m["id"] for m in body["items"]], body, reads() - before

    for url in (
        "/api/v1/matches?tournament=big&game=knaves",
        "/api/v1/matches?tournament=big&bot=nobody",
        "/api/v1/matches?tournament=big&bot=b1&offset=1000000",
        "/matches?tournament=big&bot=nobody&offset=900000&limit=200",
    ):
        before = reads()
        response = client.get(url)
        assert response.status_code == 200, url
        assert reads() - before <= 1, f"{url} read {reads() - before} records (the tournament's, and match records)"
        if url.startswith("/api/"):
            assert response.get_json()["items"] == [], url

    every: list[str] = []
    while len(every) < len(entries):
        page, _, _ = listed(f"/api/v1/matches?tournament=big&limit=200&offset={len(every)}")
        every += page
    seats = {e["match_id"]: e["seats"] for e in entries}
    of_b1 = [m for m in every if "b1" in seats[m]]
    assert every[:3] == counted[::-1][:3]  # most recently counted first
    page, body, read = listed("/api/v1/matches?tournament=big&bot=b1&offset=180&limit=20")
    assert page == of_b1[180:200] and body["next_offset"] == 200
    assert read <= 22, f"a page of 20 read {read} records"
    page, body, read = listed(f"/api/v1/matches?tournament=big&bot=b1&game=glaves&offset={len(of_b1) - 5}")
    assert page == of_b1[-5:] and body["next_offset"] is None and read <= 6


def _cost(redis_url: str, work: Callable[[], Any]) -> tuple[dict[str, int], int, Any]:
    """The commands Redis ran (by name) and the bytes it sent while ``work()`` ran, and what
    ``work()`` returned (``INFO`` itself left out of the commands)."""
    commands, served = _commands(redis_url), _served_bytes(redis_url)
    before, sent = commands(), served()
    got = work()
    sent = served() - sent
    ran = {k: n - before.get(k, 0) for k, n in commands().items() if n != before.get(k, 0)}
    return ran, sent, got


def test_standings_faults_are_counted_with_the_snapshot_not_read_from_every_result_per_request(
    client: FlaskClient, redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The standings API (JSON, CSV: polled every 2 s by a live page or a script) and
    ``tournament standings --json``/``--csv`` give each bot's strikes and forfeits in the
    tournament.  They read the tournament's whole results hash on every request (4,212 results,
    about 0.9 MB, in a live tournament of 40 bots and 3 deal sets); now the totals are counted
    when the standings snapshot is computed, from the same read of the results as its rows, and
    a request reads the snapshot alone.  The figures are those of the results, once per match
    however often a result is delivered; a snapshot stored by an earlier version (no ``faults``)
    still gets them, from the results."""
    import contextlib
    import csv
    import io
    import json
    import random

    from cardarena.cli import main
    from cardarena.store.matches import MatchStore
    from cardarena_tournament import lifecycle
    from cardarena_tournament.standings import fault_totals

    monkeypatch.setenv("REDIS_URL", redis_url)
    r = client_for(redis_url)
    ts, ms = TournamentStore(r), MatchStore(r)
    bots = [f"b{n}" for n in range(5)]
    ts.create(lifecycle.new_tournament(game="glaves", players=2, entrants=bots, deal_sets=2, tid="wk"))
    lifecycle.start_tournament(ts, ms, "wk")
    rng, done = random.Random(5), []
    while (spec := ms.claim("i", wait_s=0)) is not None:
        strikes = [rng.choice([0, 0, 1, 3]) for _ in spec.seats]
        forfeited = [s for s, n in enumerate(strikes) if n == 3]
        ranks = [1, 2] if rng.random() < 0.5 else [2, 1]
        scores = [float(3 - x) for x in ranks]
        result = {"scores": scores, "ranks": ranks, "deal_scores": [scores], "strikes": strikes, "forfeited": forfeited}
        assert ms.complete(spec.match_id, "i", result, {}, tournament="wk")
        done.append(spec.match_id)
    lifecycle.count_matches(ts, ms, done)
    lifecycle.count_matches(ts, ms, done[:7])  # delivered twice: counted once
    lifecycle.settle(ts, "wk", force=True)
    assert ts.require("wk").status == "finished"
    expected = fault_totals(ts.results("wk").values())
    assert sum(t["strikes"] for t in expected.values()) > 10 and sum(t["forfeits"] for t in expected.values()) > 2
    assert ts.standings("wk")["faults"] == expected

    def cli(*args: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["tournament", "standings", "wk", *args]) == 0
        return out.getvalue()

    def served() -> dict[str, Any]:
        """What each way of reading the standings gives, with its Redis commands and bytes."""
        out = {}
        for name, work in (
            ("json", lambda: client.get("/api/v1/tournaments/wk/standings").get_json()["items"]),
            (
                "csv",
                lambda: list(
                    csv.DictReader(client.get("/api/v1/tournaments/wk/standings?format=csv").text.splitlines())
                ),
            ),
            ("cli json", lambda: json.loads(cli("--json"))),
            ("cli csv", lambda: list(csv.DictReader(cli("--csv").splitlines()))),
        ):
            work()  # the CLI's connection set-up and the app's first-request checks aside
            out[name] = _cost(redis_url, work)
        return out

    now = served()
    rows = {
        "json": now["json"][2],
        "csv": now["csv"][2],
        "cli json": now["cli json"][2]["standings"],
        "cli csv": now["cli csv"][2],
    }
    for name, got in rows.items():
        assert {row["bot"]: (int(row["strikes"]), int(row["forfeits"])) for row in got} == {
            b: (t["strikes"], t["forfeits"]) for b, t in expected.items()
        }, name
    assert "faults" not in now["cli json"][2]  # --json prints the snapshot's fields as before

    snapshot = ts.standings("wk")
    del snapshot["faults"]
    ts.save_standings("wk", snapshot)  # as an earlier version stored it
    before = served()
    results_bytes = sum(len(v) for v in r.hvals(key_prefix + "tournament:wk:results"))
    for name in now:
        assert before[name][2] == now[name][2], name  # the same answer
        ran_now, ran_before = now[name][0], before[name][0]
        assert ran_before.pop("hgetall") - ran_now.pop("hgetall") == 1, name  # the results hash
        assert ran_now == ran_before, name
        assert before[name][1] - now[name][1] >= results_bytes, name


def test_reindex_stores_the_fault_totals_of_an_old_finished_snapshot_so_standings_stop_reading_results(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """A finished tournament whose standings snapshot an earlier version stored (no ``faults``)
    read its whole results hash on every standings request; ``cardarena dashboard --reindex``
    fills in that field alone (once), and a request then reads the snapshot only."""
    import contextlib
    import io

    from cardarena.cli import main
    from cardarena.store.matches import MatchStore
    from cardarena_tournament import lifecycle
    from cardarena_tournament.standings import fault_totals

    r = client_for(redis_url)
    ts, ms = TournamentStore(r), MatchStore(r)
    ts.create(lifecycle.new_tournament(game="glaves", players=2, entrants=["b0", "b1", "b2"], deal_sets=1, tid="old"))
    lifecycle.start_tournament(ts, ms, "old")
    done = []
    while (spec := ms.claim("i", wait_s=0)) is not None:
        result = {
            "scores": [2.0, 1.0],
            "ranks": [1, 2],
            "deal_scores": [[2.0, 1.0]],
            "strikes": [1, 3],
            "forfeited": [1],
        }
        assert ms.complete(spec.match_id, "i", result, {}, tournament="old")
        done.append(spec.match_id)
    lifecycle.count_matches(ts, ms, done)
    lifecycle.settle(ts, "old", force=True)
    assert ts.require("old").status == "finished"
    expected = fault_totals(ts.results("old").values())
    assert sum(t["forfeits"] for t in expected.values()) == len(done)
    snapshot = ts.standings("old")
    del snapshot["faults"]
    ts.save_standings("old", snapshot)  # as an earlier version stored it

    def standings() -> Any:
        return client.get("/api/v1/tournaments/old/standings").get_json()["items"]

    standings()
    ran_before, _, rows_before = _cost(redis_url, standings)
    assert ran_before.get("hgetall", 0) >= 1

    def reindex() -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["dashboard", "--reindex", "--redis-url", redis_url]) == 0
        return out.getvalue()

    assert "1 ended tournaments' standings were missing their fault totals; stored now" in reindex()
    assert ts.standings("old") == {**snapshot, "faults": expected}  # that field only
    assert "0 ended tournaments' standings were missing" in reindex()  # idempotent
    ran_after, _, rows_after = _cost(redis_url, standings)
    assert rows_after == rows_before
    assert ran_before.pop("hgetall") - ran_after.pop("hgetall", 0) == 1  # the results hash is not read
    assert ran_after == ran_before


def test_a_bot_page_reads_the_records_of_the_matches_it_lists_and_of_new_ones(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """A bot's page counts its head-to-head over its 200 most recent matches: it read those 200
    match records on every view (about 0.2 MB, 200 commands).  A finished match's seats and
    ranks never change, so they are kept once read: the next view reads the records of the 20
    matches it lists and of matches it has not seen (a match without a result yet each time),
    and shows what a page read from scratch shows."""
    from cardarena.store.bots import BotStore
    from cardarena.store.matches import MatchSpec, MatchStore
    from cardarena_dashboard.pages import HEAD_TO_HEAD_MATCHES, RECENT_ON_BOT

    r = client_for(redis_url)
    ms = MatchStore(r)
    BotStore(r).register("solid")
    rivals = ["ann", "bob", XSS]

    def play(first: int, count: int, *, finish: bool = True) -> list[str]:
        specs = []
        for n in range(first, first + count):
            rival = rivals[n % 3]
            seats = ("solid", rival) if n % 2 else (rival, "solid")
            specs.append(MatchSpec(match_id=f"m{n:04d}", game="glaves", players=2, seats=seats, seed=n))
        ms.enqueue_many(specs)
        for spec in specs if finish else ():
            assert ms.claim("i", wait_s=0) == spec
            ranks = [1, 2] if spec.seed % 5 else [1, 1]
            ranks = ranks[::-1] if spec.seed % 7 == 0 else ranks
            assert ms.complete(spec.match_id, "i", {"scores": [float(3 - x) for x in ranks], "ranks": ranks}, {})
        return [s.match_id for s in specs]

    play(0, 260)
    waiting = play(260, 1, finish=False)  # queued: no result yet
    hgetall = _commands(redis_url)

    def view() -> tuple[str, int]:
        before = hgetall().get("hgetall", 0)
        page = client.get("/bots/solid")
        assert page.status_code == 200
        return page.get_data(as_text=True), hgetall()["hgetall"] - before

    def head_to_head(html: str) -> list[str]:
        return re.findall(r'<td class="num">(\d+)</td>', html.split('id="head-to-head"', 1)[1].split("</table>", 1)[0])

    first, read_first = view()
    second, read_second = view()
    assert second == first
    assert read_first >= HEAD_TO_HEAD_MATCHES and read_second <= RECENT_ON_BOT + 20  # the bot, ratings per game
    assert read_first - read_second >= HEAD_TO_HEAD_MATCHES - RECENT_ON_BOT - 1
    assert sum(map(int, head_to_head(first)[::4])) == HEAD_TO_HEAD_MATCHES - 1  # the queued one has no result

    assert ms.claim("i", wait_s=0) is not None
    assert ms.complete(waiting[0], "i", {"scores": [0.0, 3.0], "ranks": [2, 1]}, {})
    play(261, 30)
    third, _ = view()
    fresh = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client().get("/bots/solid")
    assert third == fresh.get_data(as_text=True) != first
    assert sum(map(int, head_to_head(third)[::4])) == HEAD_TO_HEAD_MATCHES


def test_the_crosstable_is_computed_with_the_snapshot_and_read_in_one_get(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """A nightly run of 24 bots (276 pairs): its crosstable is computed once, with the
    standings snapshot, from the same results, and kept under a key of its own (the snapshot,
    which the page polls every 2 s, does not grow with it).  The API and the page's fragment
    read that key and the tournament's record: no result is read per request; the matrix is
    rendered once (per dashboard process), not per view or poll."""
    from cardarena.store.keys import key

    from .tournament_fixtures import counted_tournament

    bots = [f"s{n:02d}" for n in range(24)]
    counted_tournament(redis_url, "night", bots, players=2)
    r = client_for(redis_url)
    stored = r.strlen(key("tournament", "night", "crosstable"))
    snapshot = r.strlen(key("tournament", "night", "standings"))
    assert "pairs" not in TournamentStore(r).standings("night")  # not in the polled snapshot
    assert stored < 15_000, stored  # 276 pairs, one short list each
    for url in ("/api/v1/tournaments/night/crosstable", "/tournaments/night/crosstable.part"):
        client.get(url)
        ran, sent, response = _cost(redis_url, lambda u=url: client.get(u))
        assert response.status_code == 200, url
        data = {k: n for k, n in ran.items() if k not in ("client", "hello", "auth", "select")}  # a new connection
        assert data == {"hgetall": 1, "get": 1}, (url, ran)  # the tournament, its crosstable
        assert sent < stored + 2_000, (url, sent)
    part = client.get("/tournaments/night/crosstable.part")
    again = client.get("/tournaments/night/crosstable.part", headers={"If-None-Match": part.headers["ETag"]})
    assert again.status_code == 304 and not again.data  # a poll of an unchanged matrix renders nothing
    # the matrix is rendered once per snapshot and process, whoever reads it
    cache = client.application.extensions["cardarena_crosstable_cache"]
    assert len(cache) == 1
    page = client.get("/tournaments/night").get_data(as_text=True)
    assert part.get_data(as_text=True) in page and len(cache) == 1
    body = client.get("/api/v1/tournaments/night/crosstable").get_json()
    assert len(body["items"]) == 24 * 23 and body["bots"] == bots
    # the standings' poll reads what it read before: one GET, the snapshot, not the crosstable
    ran, sent, _ = _cost(redis_url, lambda: client.get("/tournaments/night/standings.part"))
    assert ran["get"] == 1 and sent >= snapshot, (ran, sent)
    r.close()
