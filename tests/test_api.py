"""The REST API on the Flask test client and a real Redis: every endpoint, paging, errors as
JSON 4xx (never 5xx), the admin token, and the OpenAPI document."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchStore
from cardarena.store.tournaments import TournamentStore
from cardarena_dashboard import create_app
from flask import Flask
from flask.testing import FlaskClient
from openapi_spec_validator import validate

from .dashboard_data import CLASS_IN_PEOPLE_ORDER, XSS, Seeded, seed, seed_ratings, seed_schedules

ADMIN = {"Authorization": "Bearer s3cret-admin"}


@pytest.fixture
def seeded(redis_url: str, key_prefix: str) -> Seeded:
    return seed(redis_url)


@pytest.fixture
def app(redis_url: str, key_prefix: str) -> Iterator[Flask]:
    yield create_app({"REDIS_URL": redis_url, "TESTING": True, "ADMIN_TOKEN": "s3cret-admin"})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def _json(client: FlaskClient, url: str, status: int = 200, **kw: Any) -> Any:
    response = client.get(url, **kw)
    assert response.status_code == status, (url, response.get_data(as_text=True)[:300])
    assert response.is_json
    return response.get_json()


def test_openapi_document_validates(client: FlaskClient) -> None:
    validate(_json(client, "/api/v1/openapi.json"))


def test_games(client: FlaskClient) -> None:
    items = _json(client, "/api/v1/games")["items"]
    assert {"id", "name", "min_players", "max_players", "summary"} <= set(items[0])
    assert _json(client, f"/api/v1/games/{items[0]['id']}")["id"] == items[0]["id"]
    assert _json(client, "/api/v1/games/nope", 404)["error"]["status"] == 404


BOARD = {
    "ace": (30.0, 2.0, 40),
    "bob": (28.0, 1.0, 50),
    "cat": (27.0, 1.0, 30),  # the same ordinal as ace (24): they share a rank
    "dan": (25.0, 8.0, 1),
    "eve": (20.0, 2.0, 12),
    "fay": (26.0, 1.0, 20),
    XSS: (22.0, 1.0, 9),
}
"""(mu, sigma, rated matches) of a Knaves field; ordinals 24, 25, 24, 1, 14, 23, 19."""


def _board(client: FlaskClient, query: str = "", limit: int = 3) -> tuple[list[dict[str, Any]], int]:
    """Every row of the Knaves leaderboard, read a page of ``limit`` at a time; and the total."""
    rows: list[dict[str, Any]] = []
    offset: int | None = 0
    total = -1
    while offset is not None:
        body = _json(client, f"/api/v1/games/knaves/leaderboard?limit={limit}&offset={offset}{query}")
        assert body["offset"] == offset and len(body["items"]) <= limit and body["game"] == "knaves"
        rows += body["items"]
        offset, total = body["next_offset"], body["total"]
    return rows, total


def test_leaderboard_ranks_by_ordinal_with_shared_ranks_and_pages(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    seed_ratings(redis_url, "knaves", BOARD)
    rows, total = _board(client)
    stored = TournamentStore(client_for(redis_url)).ratings("knaves")
    assert total == len(rows) == len(BOARD)
    assert [r["bot"] for r in rows] == sorted(stored, key=lambda b: (-stored[b]["ordinal"], b))
    assert [r["ordinal"] for r in rows] == [stored[r["bot"]]["ordinal"] for r in rows]
    assert [(r["bot"], r["rank"]) for r in rows] == [
        ("bob", 1), ("ace", 2), ("cat", 2), ("fay", 4), (XSS, 5), ("eve", 6), ("dan", 7)
    ]  # fmt: skip
    dan = rows[-1]
    assert (dan["mu"], dan["sigma"], dan["matches"], dan["retired"]) == (25.0, 8.0, 1, False)
    assert dan["last_match_id"] == "board:dan" and dan["last_rated_at"] > 0
    whole = client.get("/api/v1/games/knaves/leaderboard")
    assert [r["bot"] for r in whole.get_json()["items"]] == [r["bot"] for r in rows]
    again = client.get("/api/v1/games/knaves/leaderboard", headers={"If-None-Match": whole.headers["ETag"]})
    assert again.status_code == 304
    assert _json(client, "/api/v1/games/glaves/leaderboard")["items"] == []  # nobody rated there
    assert _json(client, "/api/v1/games/nope/leaderboard", 404)["error"]["status"] == 404
    _json(client, "/api/v1/games/knaves/leaderboard?retired=yes", 400)
    _json(client, "/api/v1/games/knaves/leaderboard?limit=0", 400)


def test_leaderboard_leaves_retired_bots_out_unless_asked(client: FlaskClient, redis_url: str, key_prefix: str) -> None:
    from cardarena.store.bots import BotStore

    seed_ratings(redis_url, "knaves", BOARD)
    BotStore(client_for(redis_url)).retire("bob")
    BotStore(client_for(redis_url)).retire("eve")
    rows, total = _board(client, limit=2)
    assert total == 5
    assert [(r["bot"], r["rank"]) for r in rows] == [("ace", 1), ("cat", 1), ("fay", 3), (XSS, 4), ("dan", 5)]
    shown, total = _board(client, "&retired=1", limit=2)
    assert total == 7
    assert [(r["bot"], r["rank"], r["retired"]) for r in shown] == [
        ("bob", 1, True), ("ace", 2, False), ("cat", 2, False), ("fay", 4, False), (XSS, 5, False),
        ("eve", 6, True), ("dan", 7, False),
    ]  # fmt: skip


def test_leaderboard_min_matches_shows_established_bots_ranked_among_themselves(
    client: FlaskClient, redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cardarena.store.bots import BotStore

    monkeypatch.setattr(TournamentStore, "LEADERBOARD_BATCH", 2)  # several batches per page
    seed_ratings(redis_url, "knaves", BOARD)
    rows, _ = _board(client, "&min_matches=20", limit=1)
    assert [(r["bot"], r["rank"], r["matches"]) for r in rows] == [
        ("bob", 1, 50), ("ace", 2, 40), ("cat", 2, 30), ("fay", 4, 20)
    ]  # fmt: skip
    whole = _json(client, "/api/v1/games/knaves/leaderboard?min_matches=12")
    assert whole["min_matches"] == 12 and whole["total"] == 5 and whole["next_offset"] is None
    assert [r["bot"] for r in whole["items"]] == ["bob", "ace", "cat", "fay", "eve"]
    BotStore(client_for(redis_url)).retire("bob")
    rows, _ = _board(client, "&min_matches=20", limit=2)
    assert [(r["bot"], r["rank"]) for r in rows] == [("ace", 1), ("cat", 1), ("fay", 3)]
    shown, _ = _board(client, "&min_matches=20&retired=1", limit=2)
    assert [(r["bot"], r["rank"], r["retired"]) for r in shown] == [
        ("bob", 1, True), ("ace", 2, False), ("cat", 2, False), ("fay", 4, False)
    ]  # fmt: skip
    assert _json(client, "/api/v1/games/knaves/leaderboard?min_matches=0")["total"] == 6
    for bad in ("-1", "x", "1.5", ""):
        _json(client, f"/api/v1/games/knaves/leaderboard?min_matches={bad}", 400)


def test_leaderboard_ties_read_in_people_order_on_every_page(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """Regression: bots of equal rating were listed in Redis's byte order on the API and the page
    (``<i>carol</i>``, ``Bob`` and ``_dora`` first, ``Émile`` and ``Éve`` after ``zed``); they read
    in people order now, as every list of bots, with the same ranks, and pages that split the tie
    show each bot once."""
    from cardarena.store.bots import BotStore

    tied = {name: (30.0, 2.0, 5) for name in reversed(CLASS_IN_PEOPLE_ORDER)}
    seed_ratings(redis_url, "knaves", {"leader": (40.0, 1.0, 9), **tied, "last": (10.0, 1.0, 9)})
    expected = [("leader", 1), *[(b, 2) for b in CLASS_IN_PEOPLE_ORDER], ("last", 12)]
    for limit in (1, 3, 4, 50):
        rows, total = _board(client, limit=limit)
        assert total == 12 and [(r["bot"], r["rank"]) for r in rows] == expected, limit
    rows, _ = _board(client, "&min_matches=5", limit=4)
    assert [(r["bot"], r["rank"]) for r in rows] == expected
    linked: list[tuple[int, str]] = []
    for offset in (0, 4, 8):
        page = client.get(f"/games/knaves?limit=4&offset={offset}").get_data(as_text=True)
        rows_html = re.findall(r'<td class="num">(\d+)</td>\s*<td><a href="/bots/[^"]+">([^<]*)</a>', page)
        linked += [(int(rank), html.unescape(name)) for rank, name in rows_html]
    assert [(b, r) for r, b in linked] == expected
    BotStore(client_for(redis_url)).retire("leader")
    BotStore(client_for(redis_url)).retire("eve")
    rows, total = _board(client, limit=3)
    assert total == 10
    still = [(b, 1) for b in CLASS_IN_PEOPLE_ORDER if b != "eve"]
    assert [(r["bot"], r["rank"]) for r in rows] == [*still, ("last", 10)]


def test_a_practice_tournament_leaves_the_leaderboard_alone(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """The graded tournament's matches move the leaderboard; the practice one's, which the
    other bot wins every time, do not."""
    from cardarena_tournament import lifecycle

    store, ms = TournamentStore(client_for(redis_url)), MatchStore(client_for(redis_url))

    def play(tid: str, winner: str) -> None:
        while (spec := ms.claim("i", wait_s=0)) is not None:
            assert spec.tournament == tid
            ranks = [1, 2] if spec.seats[0] == winner else [2, 1]
            ms.complete(spec.match_id, "i", {"scores": [3 - r for r in ranks], "ranks": ranks}, {})
        lifecycle.consume_results(store, ms, "c")

    for tid, rated in (("graded", True), ("practice", False)):
        store.create(lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b"], deal_sets=2, tid=tid,
                                              rated=rated))  # fmt: skip
    lifecycle.start_tournament(store, ms, "graded")
    play("graded", "a")
    before = _json(client, "/api/v1/games/glaves/leaderboard")
    assert [(r["bot"], r["rank"], r["matches"]) for r in before["items"]] == [("a", 1, 4), ("b", 2, 4)]
    lifecycle.start_tournament(store, ms, "practice")
    play("practice", "b")
    assert store.require("practice").counted == 4
    assert _json(client, "/api/v1/games/glaves/leaderboard") == before


def test_matches_paging_and_filters(client: FlaskClient, seeded: Seeded) -> None:
    first = _json(client, "/api/v1/matches?limit=5")
    assert len(first["items"]) == 5 and first["next_offset"] == 5
    second = _json(client, "/api/v1/matches?limit=10&offset=5")
    assert len(second["items"]) == 7 and second["next_offset"] is None
    assert not {m["id"] for m in first["items"]} & {m["id"] for m in second["items"]}
    alpha = _json(client, "/api/v1/matches?bot=alpha&limit=100")["items"]
    assert len(alpha) == 8 and all("alpha" in m["seats"] for m in alpha)
    assert _json(client, "/api/v1/matches?game=skull")["items"] == []
    done = _json(client, f"/api/v1/matches/{seeded.finished[0]}")
    assert done["status"] == "done" and done["result"]["ranks"]
    replay = _json(client, f"/api/v1/matches/{seeded.finished[0]}/replay")
    assert replay["format"] == "cardarena-replay/1"
    assert _json(client, f"/api/v1/matches/{seeded.pending[0]}/replay", 409)["error"]["status"] == 409
    _json(client, "/api/v1/matches/nope", 404)
    _json(client, "/api/v1/matches/nope/replay", 404)


def test_tournaments_and_standings(client: FlaskClient, seeded: Seeded) -> None:
    items = _json(client, "/api/v1/tournaments")["items"]
    assert [t["id"] for t in items] == ["cup"] and items[0]["status"] == "running"
    assert _json(client, "/api/v1/tournaments?status=finished")["items"] == []
    _json(client, "/api/v1/tournaments?status=bogus", 400)
    standings = client.get("/api/v1/tournaments/cup/standings")
    rows = standings.get_json()["items"]
    assert {r["bot"] for r in rows} == {"alpha", "beta", XSS}
    assert all(r["ci_low"] <= r["mean"] <= r["ci_high"] for r in rows)
    assert (
        client.get(
            "/api/v1/tournaments/cup/standings", headers={"If-None-Match": standings.headers["ETag"]}
        ).status_code
        == 304
    )
    matches = _json(client, "/api/v1/tournaments/cup/matches?limit=100")["items"]
    assert len(matches) == 12
    _json(client, "/api/v1/tournaments/nope", 404)
    _json(client, "/api/v1/tournaments/nope/standings", 404)


def test_bots_never_show_tokens(client: FlaskClient, seeded: Seeded) -> None:
    bots = _json(client, "/api/v1/bots")["items"]
    assert {b["name"] for b in bots} == {"alpha", "beta", XSS}
    beta = _json(client, "/api/v1/bots/beta")
    assert beta["stats"]["timeouts"] == 2 and beta["stats"]["illegal_actions"] == 1
    assert "glaves" in beta["ratings"]
    assert "token" not in str(bots) + str(beta)
    _json(client, "/api/v1/bots/nobody", 404)


def test_openapi_document_matches_the_routes(app: Flask, client: FlaskClient) -> None:
    document = _json(client, "/api/v1/openapi.json")
    routes: dict[str, set[str]] = {}
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/v1/") and rule.rule != "/api/v1/openapi.json":
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule.removeprefix("/api/v1"))
            routes.setdefault(path, set()).update(m.lower() for m in rule.methods or () if m not in ("HEAD", "OPTIONS"))
    documented = {path: set(ops) - {"parameters"} for path, ops in document["paths"].items()}
    assert documented == routes


def test_the_document_names_every_field_the_api_returns(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    from cardarena.store.bots import BotStore
    from cardarena_tournament import lifecycle

    ts = TournamentStore(client_for(redis_url))
    rules = {"time_control": {"move_ms": 500}, "fault_policy": {"max_strikes": 1, "default_action": "random"}}
    entrants = ["alpha", "beta"]
    ts.create(lifecycle.new_tournament(game="glaves", players=2, entrants=entrants, deal_sets=1, tid="ruled", **rules))
    template = {"game": "glaves", "players": 2, "entrants": entrants, "deal_sets": 1, "name": "Nightly", **rules}
    lifecycle.create_schedule(ts, "0 2 * * *", template, sid="ruled-nightly", now=1_800_000_000.0)
    BotStore(client_for(redis_url)).count("beta", "forfeits", 10)
    schemas = _json(client, "/api/v1/openapi.json")["components"]["schemas"]

    def documented(schema: dict[str, Any], found: dict[str, Any], where: str) -> None:
        assert set(found) <= set(schema["properties"]), (where, set(found) - set(schema["properties"]))

    tournament = _json(client, "/api/v1/tournaments/ruled")
    assert tournament["time_control"] == {"move_ms": 500, "bank_ms": 30000}  # the defaults filled in
    assert tournament["fault_policy"]["max_strikes"] == 1 and tournament["fault_policy"]["max_rejections"] == 10
    documented(schemas["Tournament"], tournament, "tournament")
    for rule in ("time_control", "fault_policy"):
        documented(schemas["Tournament"]["properties"][rule], tournament[rule], f"tournament {rule}")
    schedule = _json(client, "/api/v1/schedules/ruled-nightly")
    documented(schemas["Schedule"], schedule, "schedule")
    shape = schemas["Schedule"]["properties"]["template"]
    documented(shape, schedule["template"], "template")
    assert schedule["template"]["time_control"] == {"move_ms": 500}  # as given: each run fills in the defaults
    for rule in ("time_control", "fault_policy"):
        assert f"`{rule}`" in shape["description"]
        documented(shape["properties"][rule], schedule["template"][rule], f"template {rule}")
    standings = _json(client, "/api/v1/tournaments/cup/standings")
    documented(schemas["Standings"], standings, "standings")
    for row in standings["items"]:
        documented(schemas["StandingRow"], row, "standings row")
    crosstable = _json(client, "/api/v1/tournaments/cup/crosstable")
    documented(schemas["Crosstable"], crosstable, "crosstable")
    assert set(crosstable) == set(schemas["Crosstable"]["required"]) and crosstable["items"]
    for item in crosstable["items"]:
        documented(schemas["CrosstableItem"], item, "crosstable item")
    bot = _json(client, "/api/v1/bots/beta")
    documented(schemas["Bot"], bot, "bot")
    assert (
        bot["stats"]["forfeits"] == 10
        and "a no-show plays none" in schemas["Bot"]["properties"]["stats"]["description"]
    )


def test_schedules(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    assert _json(client, "/api/v1/schedules")["items"] == []
    seeded_schedules = seed_schedules(redis_url)
    body = _json(client, "/api/v1/schedules")
    items = {s["id"]: s for s in body["items"]}
    assert list(items) == ["hourly", "nightly", "broken"]  # soonest next run first
    assert body["next_offset"] is None
    nightly = items["nightly"]
    assert nightly["cron"] == "0 2 * * *" and nightly["every"] is None and nightly["enabled"] is True
    assert nightly["template"]["entrants"] == "all" and nightly["entrants_text"] == "all registered bots"
    assert nightly["next_run_text"] == "2027-01-16 02:00 UTC"
    assert nightly["last_run"] is None and nightly["last_tournament"] is None and nightly["last_error"] is None
    hourly = items["hourly"]
    assert hourly["every"] == 3600 and hourly["template"]["entrants"] == ["alpha", XSS]
    assert hourly["last_run"] == seeded_schedules.now and hourly["last_tournament"] == seeded_schedules.run
    assert _json(client, f"/api/v1/tournaments/{hourly['last_tournament']}")["schedule_id"] == "hourly"
    broken = items["broken"]
    assert broken["last_tournament"] is None and broken["last_error_at"] == seeded_schedules.now
    assert "4-player tables need at least 4 entrants, got 3" in broken["last_error"]
    assert _json(client, "/api/v1/schedules/hourly") == hourly
    assert _json(client, "/api/v1/schedules/nope", 404)["error"]["message"] == "unknown schedule"
    page = _json(client, "/api/v1/schedules?limit=2")
    assert [s["id"] for s in page["items"]] == ["hourly", "nightly"] and page["next_offset"] == 2
    assert [s["id"] for s in _json(client, "/api/v1/schedules?offset=2")["items"]] == ["broken"]


def test_bots_are_listed_as_people_read_their_names_page_after_page(client: FlaskClient, redis_url: str) -> None:
    """Regression: ``/api/v1/bots`` (and the page ``/bots``) sorted names by bytes: uppercase,
    ``_`` and ``<...>`` names first, accented ones last; now as ``cardarena bot list`` does."""
    from cardarena.store.bots import BotStore

    bots = BotStore(client_for(redis_url))
    for name in reversed(CLASS_IN_PEOPLE_ORDER):
        bots.register(name)
    names: list[str] = []
    offset: int | None = 0
    while offset is not None:
        body = _json(client, f"/api/v1/bots?limit=3&offset={offset}")
        names += [b["name"] for b in body["items"]]
        offset = body["next_offset"]
    assert names == list(CLASS_IN_PEOPLE_ORDER)
    page = client.get("/bots").get_data(as_text=True)
    linked = re.findall(r'<td><a href="/bots/[^"]*">([^<]*)</a></td>', page)
    assert [html.unescape(n) for n in linked] == list(CLASS_IN_PEOPLE_ORDER)


def test_bots_page_and_say_who_is_connected(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    from cardarena.store.connection import client_for
    from cardarena.store.presence import BotPresence, PresenceStore

    first = _json(client, "/api/v1/bots?limit=2")
    assert [b["name"] for b in first["items"]] == ["alpha", "beta"] and first["next_offset"] == 2
    rest = _json(client, "/api/v1/bots?offset=2&limit=2")  # <script>... reads as "script"
    assert [b["name"] for b in rest["items"]] == [XSS] and rest["next_offset"] is None
    assert all(b["connected"] is False for b in first["items"] + rest["items"])
    PresenceStore(client_for(redis_url)).publish("i1", "127.0.0.1:1", {"alpha": BotPresence(2, 0)})
    assert {b["name"]: b["connected"] for b in _json(client, "/api/v1/bots")["items"]} == {
        XSS: False,
        "alpha": True,
        "beta": False,
    }
    assert _json(client, "/api/v1/bots/alpha")["connected"] is True


BAD_QUERIES = [
    "/api/v1/matches?limit=0",
    "/api/v1/matches?limit=-1",
    "/api/v1/matches?limit=201",
    "/api/v1/matches?limit=abc",
    "/api/v1/matches?offset=-5",
    "/api/v1/matches?offset=1e3",
    "/api/v1/matches?offset=99999999999999999999",
    "/api/v1/matches?limit=%00",
    "/api/v1/matches?game=" + "x" * 500,
    "/api/v1/tournaments?limit=0",
    "/api/v1/bots?offset=x",
    "/api/v1/schedules?limit=500",
    "/api/v1/tournaments?status=" + "y" * 50,
]


@pytest.mark.parametrize("url", BAD_QUERIES)
def test_bad_queries_are_json_400(client: FlaskClient, seeded: Seeded, url: str) -> None:
    body = _json(client, url, 400)
    assert body["error"]["status"] == 400 and body["error"]["message"]


def test_hammered_inputs_never_500(client: FlaskClient, seeded: Seeded) -> None:
    junk = ["", "%00", "..", "%2e%2e%2f", "a" * 3000, "💥", "<b>", "'; DROP", "%ff%fe", "cup:0:01:0:extra"]
    for j in junk:
        for url in [
            f"/api/v1/matches/{j}",
            f"/api/v1/matches/{j}/replay",
            f"/api/v1/tournaments/{j}",
            f"/api/v1/tournaments/{j}/standings",
            f"/api/v1/bots/{j}",
            f"/api/v1/schedules/{j}",
            f"/api/v1/games/{j}",
            f"/api/v1/matches?bot={j}&game={j}",
            f"/matches/{j}",
            f"/matches/{seeded.finished[0]}?pov={j}&step={j}",
        ]:
            response = client.get(url)
            assert response.status_code < 500, url
            if url.startswith("/api/") and response.status_code >= 400:
                assert response.is_json and response.get_json()["error"]["message"], url
    for method in ("post", "put", "delete", "patch"):
        response = getattr(client, method)("/api/v1/matches")
        assert response.status_code == 405 and response.get_json()["error"]["status"] == 405


def test_ids_that_name_another_records_key_are_unknown_not_500(client: FlaskClient, seeded: Seeded) -> None:
    """Redis keys are ``<kind>:<id>[:<part>]``: an id ending in another record's part (a finished
    match's ``:replay``, a running one's ``:lease``, a tournament's ``:standings`` ...) names a
    key of another type.  Such ids are unknown (404), never a Redis WRONGTYPE error (500)."""
    done, running, tid = seeded.finished[0], seeded.pending[0], seeded.tournament
    urls = []
    for mid in (f"{done}:replay", f"{running}:lease"):
        urls += [f"/api/v1/matches/{mid}", f"/api/v1/matches/{mid}/replay", f"/matches/{mid}"]
    for part in ("standings", "crosstable", "schedule", "counted", "results", "counted_order"):
        t = f"{tid}:{part}"
        urls += [
            f"/api/v1/tournaments/{t}",
            f"/api/v1/tournaments/{t}/standings",
            f"/api/v1/tournaments/{t}/crosstable",
            f"/api/v1/tournaments/{t}/matches",
            f"/tournaments/{t}",
            f"/tournaments/{t}/standings.part",
            f"/tournaments/{t}/crosstable.part",
            f"/tournaments/{t}/ratings.svg",
        ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 404, (url, response.status_code)
    response = client.post(f"/api/v1/admin/tournaments/{tid}:schedule/cancel", headers=ADMIN)
    assert response.status_code == 404 and response.get_json()["error"]["status"] == 404
    assert _json(client, f"/api/v1/matches/{done}")["id"] == done  # the real ones are still there


def test_admin_needs_the_token(client: FlaskClient, seeded: Seeded) -> None:
    for headers in [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": "Basic s3cret-admin"},
        {"Authorization": "Bearer"},
    ]:
        response = client.post("/api/v1/admin/bots", json={"name": "x"}, headers=headers)
        assert response.status_code == 401 and response.get_json()["error"]["status"] == 401
        assert "s3cret" not in response.get_data(as_text=True)


def test_admin_closed_without_configured_token(redis_url: str, key_prefix: str) -> None:
    app = create_app({"REDIS_URL": redis_url, "TESTING": True, "ADMIN_TOKEN": None})
    response = app.test_client().post("/api/v1/admin/bots", json={"name": "x"}, headers={"Authorization": "Bearer "})
    assert response.status_code == 503


def test_admin_registers_a_bot_once(client: FlaskClient, seeded: Seeded, caplog: pytest.LogCaptureFixture) -> None:
    response = client.post("/api/v1/admin/bots", json={"name": "gamma"}, headers=ADMIN)
    assert response.status_code == 201
    body = response.get_json()
    assert body["bot"]["name"] == "gamma" and "." in body["token"]
    assert body["token"] not in caplog.text
    assert client.post("/api/v1/admin/bots", json={"name": "gamma"}, headers=ADMIN).status_code == 409
    for bad in [{"name": ""}, {"name": " x"}, {"name": 5}, {}, {"name": "x" * 65}, {"name": "a:b"}, {"name": "x,y"}]:
        assert client.post("/api/v1/admin/bots", json=bad, headers=ADMIN).status_code == 400, bad
    comma = client.post("/api/v1/admin/bots", json={"name": "x,y"}, headers=ADMIN).get_json()
    assert "must not contain ','" in comma["error"]["message"]
    assert client.post("/api/v1/admin/bots", data="not json", headers=ADMIN).status_code == 400
    assert client.post("/api/v1/admin/bots", json=[1], headers=ADMIN).status_code == 400


def test_admin_replaces_a_bots_token(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    """A lost or leaked token: the admin API issues a new one (shown once); the old one no
    longer authenticates. Names with a slash work; an unknown bot is 404; the token is needed."""
    from cardarena.store.bots import BotStore
    from cardarena.store.connection import client_for

    store = BotStore(client_for(redis_url))
    old = store.register("team/alpha")
    assert client.post("/api/v1/admin/bots/team/alpha/token").status_code == 401
    response = client.post("/api/v1/admin/bots/team/alpha/token", headers=ADMIN)
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["bot"]["name"] == "team/alpha" and body["token"] != old
    assert store.authenticate(old) is None and store.authenticate(body["token"]) == "team/alpha"
    missing = client.post("/api/v1/admin/bots/nobody/token", headers=ADMIN)
    assert missing.status_code == 404 and missing.get_json()["error"]["message"] == "no bot named 'nobody'"
    # a misspelt name says which bot was meant, as `bot token` and the other admin errors do
    near = client.post("/api/v1/admin/bots/TEAM-alpha/token", headers=ADMIN)
    assert near.status_code == 404
    assert near.get_json()["error"]["message"] == "no bot named 'TEAM-alpha' (did you mean 'team/alpha'?)"
    assert store.authenticate(body["token"]) == "team/alpha"  # nothing replaced


def test_admin_deletes_a_bot_that_never_played(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    """``DELETE /api/v1/admin/bots/{name}``, as ``cardarena bot delete``: a bot registered by
    mistake is deleted (its token stops working, the name is free again); one with a history is
    409 saying to retire it; an unknown one 404 with the registered name it was probably meant
    to be; the token is needed."""
    from cardarena.store.bots import BotStore

    store = BotStore(client_for(redis_url))
    token = store.register("team/typo")
    assert client.delete("/api/v1/admin/bots/team/typo").status_code == 401
    response = client.delete("/api/v1/admin/bots/team/typo", headers=ADMIN)
    assert response.status_code == 200 and response.get_json() == {"deleted": "team/typo"}
    assert store.authenticate(token) is None and _json(client, "/api/v1/bots/team/typo", 404)
    again = client.delete("/api/v1/admin/bots/team/typo", headers=ADMIN)
    assert again.status_code == 404 and again.get_json()["error"]["message"] == "no bot named 'team/typo'"
    played = client.delete("/api/v1/admin/bots/alpha", headers=ADMIN)  # seeded: it has played
    assert played.status_code == 409 and "`cardarena bot retire alpha`" in played.get_json()["error"]["message"]
    assert store.exists("alpha")
    typo = client.delete("/api/v1/admin/bots/Alpha", headers=ADMIN)
    assert typo.status_code == 404 and "(did you mean 'alpha'?)" in typo.get_json()["error"]["message"]
    assert client.post("/api/v1/admin/bots", json={"name": "team/typo"}, headers=ADMIN).status_code == 201


def test_admin_tournament_with_a_misspelt_entrant_says_which_bot_was_meant(client: FlaskClient, seeded: Seeded) -> None:
    """Regression: the admin API's "not registered" had no did-you-mean, while ``tournament
    create`` suggested the registered name close to a misspelt one (another case, a missing
    accent, a typo): the same suggestion now, from the same code."""
    definition = {"id": "typo", "game": "glaves", "players": 2, "entrants": ["Alpha", "betta", "ghost"], "deal_sets": 1}
    got = client.post("/api/v1/admin/tournaments", json=definition, headers=ADMIN)
    assert got.status_code == 400
    assert got.get_json()["error"]["message"] == (
        "not registered: Alpha (did you mean 'alpha'?), betta (did you mean 'beta'?), ghost"
    )


def test_admin_creates_and_cancels_a_tournament(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    definition = {"id": "night", "game": "glaves", "players": 2, "entrants": ["alpha", "beta"], "deal_sets": 3}
    response = client.post("/api/v1/admin/tournaments", json=definition, headers=ADMIN)
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["status"] == "upcoming"
    assert client.post("/api/v1/admin/tournaments", json=definition, headers=ADMIN).status_code == 409
    bad = [
        {**definition, "id": "a:b"},
        {**definition, "game": "nope"},
        {**definition, "players": 9},
        {**definition, "players": "2"},
        {**definition, "entrants": []},
        {**definition, "entrants": ["alpha", "alpha"]},
        {**definition, "deal_sets": 0},
        {**definition, "options": {"bogus": 1}},
        {**definition, "time_control": {"move_ms": -1}},
        {**definition, "time_control": {"move_ms": 0}},
        {**definition, "fault_policy": {"max_strikes": -1}},
        {**definition, "fault_policy": {"default_action": "last"}},
        {**definition, "fault_policy": {"strikes": 2}},
        {**definition, "entrants": ["alpha", "nobody"]},
        {**definition, "colour": "red"},
        {k: v for k, v in definition.items() if k != "game"},
    ]
    for body in bad:
        got = client.post("/api/v1/admin/tournaments", json={**body, "id": body.get("id", "x") + "2"}, headers=ADMIN)
        assert got.status_code == 400, body
        assert got.get_json()["error"]["message"]
    ruled = {**definition, "id": "ruled", "fault_policy": {"max_strikes": 1}, "time_control": {"move_ms": 500}}
    response = client.post("/api/v1/admin/tournaments", json=ruled, headers=ADMIN)
    assert response.status_code == 201, response.get_json()
    stored = TournamentStore(client_for(redis_url)).require("ruled")  # the whole policy, defaults filled in
    assert stored.fault_policy["max_strikes"] == 1 and stored.fault_policy["join_timeout_ms"] == 15000
    assert stored.time_control == {"move_ms": 500, "bank_ms": 30000}
    cancelled = client.post("/api/v1/admin/tournaments/night/cancel", headers=ADMIN)
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    assert client.post("/api/v1/admin/tournaments/night/cancel", headers=ADMIN).status_code == 409
    assert client.post("/api/v1/admin/tournaments/nope/cancel", headers=ADMIN).status_code == 404


def test_admin_creates_a_practice_tournament_the_api_and_its_page_show(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    """`"rated": false` makes a practice tournament: stored, in the API's answers, marked on its
    page and in the list; without the field a tournament is rated; only a JSON boolean will do."""
    definition = {"game": "glaves", "players": 2, "entrants": ["alpha", "beta"], "deal_sets": 1}
    created = client.post(
        "/api/v1/admin/tournaments", json={**definition, "id": "drill", "rated": False}, headers=ADMIN
    )
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["rated"] is False
    assert client.post("/api/v1/admin/tournaments", json={**definition, "id": "exam"}, headers=ADMIN).status_code == 201
    ts = TournamentStore(client_for(redis_url))
    assert not ts.require("drill").rated and ts.require("exam").rated
    assert _json(client, "/api/v1/tournaments/exam")["rated"] is True
    listed = {t["id"]: t["rated"] for t in _json(client, "/api/v1/tournaments?limit=100")["items"]}
    assert listed["drill"] is False and listed["exam"] is True
    for bad in ("no", 0, None):
        got = client.post("/api/v1/admin/tournaments", json={**definition, "id": "b", "rated": bad}, headers=ADMIN)
        assert got.status_code == 400 and "rated must be a JSON boolean" in got.get_json()["error"]["message"]
    mark = "practice — not rated"
    assert mark in client.get("/tournaments/drill").get_data(as_text=True)
    assert mark not in client.get("/tournaments/exam").get_data(as_text=True)
    rows = {
        tid: row
        for row in client.get("/tournaments").get_data(as_text=True).split("<tr ")
        for tid in ("drill", "exam")
        if f'id="tournament-{tid}"' in row
    }
    assert "practice" in rows["drill"] and "practice" not in rows["exam"]


def test_admin_tournament_is_stored_as_tournament_create_stores_it(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    from cardarena_tournament import lifecycle

    definition = {"game": "glaves", "players": 2, "entrants": ["alpha", "beta"], "deal_sets": 2}
    for tid in ("first", "second"):
        response = client.post("/api/v1/admin/tournaments", json={**definition, "id": tid}, headers=ADMIN)
        assert response.status_code == 201, response.get_json()
    ts = TournamentStore(client_for(redis_url))
    first, second = ts.require("first"), ts.require("second")
    cli = lifecycle.new_tournament(**definition, tid="first")  # what `cardarena tournament create` stores
    for field in ("name", "options", "time_control", "fault_policy", "format"):
        assert getattr(first, field) == getattr(cli, field), field
    assert len({first.seed, second.seed, cli.seed}) == 3  # each a random secret
    assert first.name == "Glaves 2p" and first.options == {"target": 46, "deals": 0}  # the defaults filled in
    # each tournament its own deals: a bot cannot learn the deals of one tournament for the next
    deals = [{m.seed for m in lifecycle.expand(t)} for t in (first, second)]
    assert not deals[0] & deals[1]
    given = {**definition, "id": "given", "seed": "s1", "name": "Night", "options": {"deals": 2}}
    assert client.post("/api/v1/admin/tournaments", json=given, headers=ADMIN).status_code == 201
    stored = ts.require("given")
    assert (stored.seed, stored.name, stored.options) == ("s1", "Night", {"target": 46, "deals": 2})
    # the format follows from the game and the player count: a format the platform does not have is refused
    swiss = client.post("/api/v1/admin/tournaments", json={**definition, "id": "sw", "format": "swiss"}, headers=ADMIN)
    assert swiss.status_code == 400 and "format" in swiss.get_json()["error"]["message"]
    auto = {**definition, "id": "auto", "format": "auto"}
    assert client.post("/api/v1/admin/tournaments", json=auto, headers=ADMIN).status_code == 201
    # the document's maxLength of a name (200) holds
    long_name = client.post(
        "/api/v1/admin/tournaments", json={**definition, "id": "ln", "name": "n" * 201}, headers=ADMIN
    )
    assert long_name.status_code == 400 and "name" in long_name.get_json()["error"]["message"]


def test_admin_names_the_content_type_a_json_body_needs(client: FlaskClient, seeded: Seeded) -> None:
    # curl -d '{"name": "x"}' sends a JSON object as a form: say what is missing, not "not a JSON object"
    reply = client.post("/api/v1/admin/bots", data='{"name": "x"}', headers=ADMIN, content_type="text/plain")
    assert reply.status_code == 400
    assert "Content-Type: application/json" in reply.get_json()["error"]["message"]


def test_admin_refuses_a_tournament_it_could_not_show_or_play(client: FlaskClient, seeded: Seeded) -> None:
    """Each of these used to be created (201) and then fail: an id with ``/`` (or ``.``/``..``)
    has no URL (every page, the API and cancel answered 404), clocks beyond 32 bits cannot be
    sent to a bot (every match was withdrawn as an invalid spec), a format other than ``auto``
    was ignored, a name past the documented 200 characters was shown on every page; a JSON
    body nested too deeply was a 500."""
    definition = {"id": "ok", "game": "glaves", "players": 2, "entrants": ["alpha", "beta"], "deal_sets": 1}
    bad = {
        "spring/2025": {**definition, "id": "spring/2025"},
        "..": {**definition, "id": ".."},
        "move_ms": {**definition, "time_control": {"move_ms": 2**31}},
        "bank_ms": {**definition, "time_control": {"bank_ms": 10**12}},
        "format": {**definition, "format": "swiss"},
        "name": {**definition, "name": "n" * 201},
    }
    for problem, body in bad.items():
        got = client.post("/api/v1/admin/tournaments", json=body, headers=ADMIN)
        assert got.status_code == 400, (problem, got.get_json())
        assert problem.split("/")[0] in got.get_json()["error"]["message"] or problem in ("spring/2025", ".."), got
    # a name is printed by `cardarena tournament list`, in log lines and notifications: a terminal
    # would run an escape sequence, a bidi override or isolate reorders the rest of the line
    for name, where in (("\x1b[2JFriday", 1), ("Friday\nnight", 7), ("Friday \u202enight", 8), ("Fri\u2067day", 4)):
        got = client.post("/api/v1/admin/tournaments", json={**definition, "name": name}, headers=ADMIN)
        message = got.get_json()["error"]["message"]
        assert got.status_code == 400 and message.startswith("name must consist of printable characters: U+"), got
        assert f"U+{ord(name[where - 1]):04X} at position {where}" in message
    for tid in ("spring/2025", ".."):
        message = client.post("/api/v1/admin/tournaments", json={**definition, "id": tid}, headers=ADMIN).get_json()
        assert "'/'" in message["error"]["message"], message
    deep = "[" * 100_000 + "]" * 100_000
    got = client.post("/api/v1/admin/tournaments", data=deep, content_type="application/json", headers=ADMIN)
    assert got.status_code == 400 and got.get_json()["error"]["status"] == 400
    assert _json(client, "/api/v1/tournaments")["items"][0]["id"] == seeded.tournament  # nothing was stored
    limits = {**definition, "name": "n" * 200, "time_control": {"move_ms": 2**31 - 1, "bank_ms": 2**31 - 1}}
    assert client.post("/api/v1/admin/tournaments", json=limits, headers=ADMIN).status_code == 201


def test_a_tournaments_seed_is_unguessable_and_secret_until_it_ends(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    """Every deal of a tournament follows from its seed (a match's seed is derived from it and
    the coordinates in the match id), so a bot that knows it knows every hidden card.  A
    definition without a seed used to get ``"0"`` (the CLI: the tournament id) and the API
    published it: now it gets a random one, shown only once the tournament has ended."""
    store = TournamentStore(client_for(redis_url))
    definition = {"game": "glaves", "players": 2, "entrants": ["alpha", "beta"], "deal_sets": 1}
    for tid in ("sec1", "sec2"):
        response = client.post("/api/v1/admin/tournaments", json={**definition, "id": tid}, headers=ADMIN)
        assert response.status_code == 201 and response.get_json()["seed"] is None
    seeds = {store.require(tid).seed for tid in ("sec1", "sec2")}
    assert len(seeds) == 2 and not seeds & {"0", "sec1", "sec2"} and all(len(x) >= 32 for x in seeds)
    given = client.post("/api/v1/admin/tournaments", json={**definition, "id": "sec3", "seed": "mine"}, headers=ADMIN)
    assert given.status_code == 201 and store.require("sec3").seed == "mine"  # as given, and secret too
    shown = [_json(client, "/api/v1/tournaments/sec3"), _json(client, f"/api/v1/tournaments/{seeded.tournament}")]
    shown += _json(client, "/api/v1/tournaments")["items"]
    assert shown and all(t["seed"] is None for t in shown)  # upcoming and running: secret
    cancelled = client.post("/api/v1/admin/tournaments/sec3/cancel", headers=ADMIN).get_json()
    assert cancelled["status"] == "cancelled" and cancelled["seed"] == "mine"  # ended: shown, to re-run it
    assert _json(client, "/api/v1/tournaments/sec3")["seed"] == "mine"


@pytest.mark.parametrize(("game", "players", "entrants"), [("glaves", 2, ["p", "q"]), ("loot_the_loop", 1, ["p", "q"])])
def test_a_replay_is_withheld_while_its_deal_is_still_to_be_played(
    client: FlaskClient, redis_url: str, key_prefix: str, game: str, players: int, entrants: list[str]
) -> None:
    """Duplicate deals: every seating of a deal (a solitaire: every bot) plays the same cards.
    The replay of the first one to finish showed every card of a deal the others were still to
    play, to any bot reading the dashboard.  It is withheld (409; the page shows no cards) until
    every match of its deal set has finished, or the tournament has ended."""
    from cardarena_tournament import lifecycle

    from .tournament_fixtures import play_spec

    redis = client_for(redis_url)
    ms, ts = MatchStore(redis), TournamentStore(redis)
    t = lifecycle.new_tournament(game=game, players=players, entrants=entrants, deal_sets=1, options=None)
    assert ts.create(t) and lifecycle.start_tournament(ts, ms, t.id) == 2
    played = []
    for _ in range(2):
        spec = ms.claim("test-instance", wait_s=0.5)
        assert spec is not None
        assert ms.complete(spec.match_id, "test-instance", *play_spec(spec))
        played.append(spec.match_id)
        if len(played) == 1:
            first = played[0]
            withheld = client.get(f"/api/v1/matches/{first}/replay")
            assert withheld.status_code == 409, withheld.get_json()
            assert "deal" in withheld.get_json()["error"]["message"]
            page = client.get(f"/matches/{first}?pov=all")
            assert page.status_code == 200 and 'class="card' not in page.get_data(as_text=True)
            assert "withheld" in page.get_data(as_text=True)
            assert _json(client, f"/api/v1/matches/{first}")["result"] is not None  # the result is not hidden
    for mid in played:  # the whole deal set is played: every replay is shown
        assert _json(client, f"/api/v1/matches/{mid}/replay")["seats"]
        assert 'class="card' in client.get(f"/matches/{mid}?pov=all").get_data(as_text=True)
    redis.close()


def test_a_replay_is_shown_once_its_tournament_has_ended(client: FlaskClient, redis_url: str, key_prefix: str) -> None:
    from cardarena_tournament import lifecycle

    from .tournament_fixtures import play_spec

    redis = client_for(redis_url)
    ms, ts = MatchStore(redis), TournamentStore(redis)
    t = lifecycle.new_tournament(game="glaves", players=2, entrants=["p", "q"], deal_sets=1, options={"deals": 1})
    assert ts.create(t) and lifecycle.start_tournament(ts, ms, t.id) == 2
    spec = ms.claim("test-instance", wait_s=0.5)
    assert spec is not None and ms.complete(spec.match_id, "test-instance", *play_spec(spec))
    assert client.get(f"/api/v1/matches/{spec.match_id}/replay").status_code == 409
    assert ts.deal_set_of(t.id, spec.match_id) is not None  # the index it was withheld by
    assert ts.cancel(t.id)  # its other seating will never be played
    assert ts.deal_set_of(t.id, spec.match_id) is None  # dropped with the tournament's end
    assert _json(client, f"/api/v1/matches/{spec.match_id}/replay")["seats"]
    redis.close()


def test_health_says_whether_redis_can_be_read(client: FlaskClient) -> None:
    assert client.get("/api/v1/health").get_json() == {"status": "ok"}
    down = create_app({"REDIS_URL": "redis://127.0.0.1:1/0", "TESTING": True}).test_client()
    reply = down.get("/api/v1/health")
    assert reply.status_code == 503 and reply.get_json()["status"] == "unavailable"
    assert down.get("/api/v1/games").status_code == 200  # what the probe used to ask: no Redis needed


def test_standings_show_win_draw_loss_only_where_two_players_define_it(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """A 3-player game has no wins/draws/losses (they read 0 for everyone, which was noise):
    the API leaves them out, in JSON and CSV, and keeps the place distribution; a 2-player
    game keeps them."""
    import csv

    from .tournament_fixtures import counted_tournament

    counted_tournament(redis_url, "three", ["a", "b", "c"])
    counted_tournament(redis_url, "two", ["a", "b"])
    rows = _json(client, "/api/v1/tournaments/three/standings")["items"]
    assert [(r["bot"], r["places"], r["strikes"]) for r in rows] == [
        ("a", {"1": 6}, 0),
        ("b", {"2": 6}, 0),
        ("c", {"3": 6}, 6),
    ]
    assert not {"wins", "draws", "losses"} & {k for r in rows for k in r}
    two = _json(client, "/api/v1/tournaments/two/standings")["items"]
    assert [(r["bot"], r["wins"], r["draws"], r["losses"], r["places"]) for r in two] == [
        ("a", 2, 0, 0, {"1": 2}),
        ("b", 0, 0, 2, {"2": 2}),
    ]

    response = client.get("/api/v1/tournaments/three/standings?format=csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    table = list(csv.DictReader(response.get_data(as_text=True).splitlines()))
    assert [(r["bot"], r["place_1"], r["place_3"], r["strikes"]) for r in table] == [
        ("a", "6", "0", "0"),
        ("b", "0", "0", "0"),
        ("c", "0", "6", "6"),
    ]
    assert not {"wins", "draws", "losses"} & set(table[0])
    assert table[0]["rating"] == str(rows[0]["rating"]) and table[0]["separated_from_next"] in ("true", "false")
    again = client.get(
        "/api/v1/tournaments/three/standings?format=csv", headers={"If-None-Match": response.headers["ETag"]}
    )
    assert again.status_code == 304
    csv_two = list(
        csv.DictReader(client.get("/api/v1/tournaments/two/standings?format=csv").get_data(as_text=True).splitlines())
    )
    assert [(r["bot"], r["wins"], r["draws"], r["losses"]) for r in csv_two] == [
        ("a", "2", "0", "0"),
        ("b", "0", "0", "2"),
    ]
    assert (
        _json(client, "/api/v1/tournaments/two/standings?format=xml", 400)["error"]["message"]
        == "format must be json or csv"
    )
    assert client.get("/api/v1/tournaments/nope/standings?format=csv").status_code == 404


def test_the_api_standings_csv_is_the_cli_csv(
    client: FlaskClient,
    redis_url: str,
    key_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One CSV for grading: `GET .../standings?format=csv` has the header and the rows of
    `cardarena tournament standings ID --csv` (the rating aside: the API's is the bot's rating
    now, the CLI's when the standings were computed, equal here)."""
    from cardarena.cli import main

    from .tournament_fixtures import counted_tournament

    counted_tournament(redis_url, "wk", ["x", "y", "z"])
    assert main(["tournament", "standings", "wk", "--csv", "--redis-url", redis_url]) == 0
    cli = capsys.readouterr().out
    api = client.get("/api/v1/tournaments/wk/standings?format=csv").get_data(as_text=True)
    assert api.splitlines()[0] == cli.splitlines()[0]
    assert len(api.splitlines()) == len(cli.splitlines()) == 4
    assert [line.split(",")[:6] for line in api.splitlines()] == [line.split(",")[:6] for line in cli.splitlines()]


def test_standings_of_a_bot_seated_only_in_no_contests(client: FlaskClient, redis_url: str, key_prefix: str) -> None:
    """The API and the page show what `tournament standings` shows: ``ann``, whose only counted
    matches were no contests, is absent and shares the last place with ``Bob``; her mean is
    ``null`` (JSON proper), an empty CSV cell and ``–`` on the page."""
    import csv
    import json

    from .tournament_fixtures import no_show_tournament

    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    no_show_tournament(redis_url, "wk", ["real", "Bob", "ann"], absent=["Bob", "ann"], unplayed=["real", "ann"])
    response = client.get("/api/v1/tournaments/wk/standings")
    items = json.loads(response.get_data(as_text=True), parse_constant=refuse)["items"]
    assert [(r["bot"], r["rank"], r["absent"]) for r in items] == [
        ("real", 1, False),
        ("ann", 2, True),
        ("Bob", 2, True),
    ]
    assert (items[1]["matches"], items[1]["mean"], items[1]["ci_low"], items[1]["mean_score"]) == (0, None, None, None)
    text = client.get("/api/v1/tournaments/wk/standings?format=csv").get_data(as_text=True)
    rows = {r["bot"]: r for r in csv.DictReader(text.splitlines())}
    assert (rows["ann"]["rank"], rows["ann"]["mean"], rows["ann"]["absent"], rows["real"]["absent"]) == (
        "2",
        "",
        "true",
        "false",
    )
    page = client.get("/tournaments/wk").get_data(as_text=True)
    table = page.split('id="standings-table"', 1)[1].split("</table>", 1)[0]
    ann = next(row for row in table.split("<tr>") if ">ann</a>" in row)
    assert ">absent</span>" in ann and "no contest" in ann and '<td class="num">–</td>' in ann
    assert table.count(">absent</span>") == 2


def test_admin_refuses_a_bot_name_that_looks_like_a_registered_one(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    """Found by a pentest: ``Alpha``, ``аlpha`` (a Cyrillic а) or ``ａｌｐｈａ`` could be
    registered beside ``alpha`` and pass for it on the leaderboard and every page.  A name that
    is the same but for case, width or look-alike letters is refused (400), alone or in a
    roster, where two such names are refused too; nothing is registered."""
    from cardarena.store.bots import BotStore

    bots = BotStore(client_for(redis_url))
    url = "/api/v1/admin/bots"
    assert bots.exists("alpha")
    for name in ("Alpha", "\u0430lpha", "\uff41\uff4c\uff50\uff48\uff41", "ALPH\u0391"):
        refused = client.post(url, json={"name": name}, headers=ADMIN)
        assert refused.status_code == 400, name
        assert f"{name!r} looks like the registered bot 'alpha'" in refused.get_json()["error"]["message"]
        assert not bots.exists(name)
    roster = client.post(url, json={"names": ["s7", "\u0430lpha"]}, headers=ADMIN)
    assert (
        roster.status_code == 400 and "looks like the registered bot 'alpha'" in roster.get_json()["error"]["message"]
    )
    twins = client.post(url, json={"names": ["kim", "Kim"]}, headers=ADMIN)
    assert twins.status_code == 400 and "'kim' and 'Kim' look alike" in twins.get_json()["error"]["message"]
    assert not any(bots.exists(n) for n in ("s7", "kim", "Kim"))
    assert client.post(url, json={"name": "alpha-2"}, headers=ADMIN).status_code == 201  # reads differently


def test_admin_registers_a_roster_all_or_nothing(client: FlaskClient, seeded: Seeded, redis_url: str) -> None:
    """`POST /admin/bots {"names": [...]}` is `cardarena bot register A B C`: every name is
    checked first; a bad or repeated one (400) or one already registered (409) registers
    nothing; `skip_registered` leaves the registered ones out; the tokens are in the answer."""
    from cardarena.store.bots import BotStore

    bots = BotStore(client_for(redis_url))
    url = "/api/v1/admin/bots"
    bad = client.post(url, json={"names": ["s1", "s:2", "s3", "s3"]}, headers=ADMIN)
    assert bad.status_code == 400
    message = bad.get_json()["error"]["message"]
    assert (
        message.startswith("nothing was registered") and "'s3' is listed more than once" in message and "':'" in message
    )
    taken = client.post(url, json={"names": ["s1", "alpha"]}, headers=ADMIN)
    assert taken.status_code == 409 and "already registered: alpha" in taken.get_json()["error"]["message"]
    assert not bots.exists("s1")
    assert client.post(url, json={"names": ["s1"]}).status_code == 401
    assert client.post(url, json={"names": []}, headers=ADMIN).status_code == 400
    assert client.post(url, json={"names": ["s1", 2]}, headers=ADMIN).status_code == 400
    done = client.post(url, json={"names": ["s1", "alpha", "s2"], "skip_registered": True}, headers=ADMIN)
    assert done.status_code == 201
    body = done.get_json()
    assert [b["name"] for b in body["bots"]] == ["s1", "s2"] and body["skipped"] == ["alpha"]
    assert all(bots.authenticate(b["token"]) == b["name"] for b in body["bots"])


def test_admin_bodies_over_a_mebibyte_are_refused_413_and_the_largest_roster_fits(
    client: FlaskClient, seeded: Seeded, redis_url: str
) -> None:
    """The admin API used to read a body of any size once the token was right (300 MB were
    accepted, all in memory): past 1 MiB it answers 413 in the API's JSON error format."""
    import json

    from cardarena.store.bots import BotStore
    from cardarena_dashboard.app import MAX_BODY_BYTES

    assert MAX_BODY_BYTES == 1024 * 1024
    huge = json.dumps({"names": ["x" * 60 + f"{i:04d}" for i in range(20_000)]})
    assert len(huge) > MAX_BODY_BYTES
    for path in ("/api/v1/admin/bots", "/api/v1/admin/tournaments"):
        got = client.post(path, data=huge, content_type="application/json", headers=ADMIN)
        assert got.status_code == 413, got.data[:200]
        assert got.get_json() == {
            "error": {"status": 413, "message": "the request body is over 1048576 bytes, the most this server reads"}
        }
    assert "x" * 60 + "0000" not in BotStore(client_for(redis_url)).names()
    # without the token nothing is read: 401 as before
    assert client.post("/api/v1/admin/bots", data=huge, content_type="application/json").status_code == 401

    # The largest body the API takes: a roster of 1,000 names of 64 characters, each sent as a
    # surrogate pair escape (json.dumps's default for characters beyond the BMP): it is read
    # (here refused for its extra field, after parsing), not 413.
    astral = [chr(0x1F600 + i % 64) * 63 + chr(0x10000 + i) for i in range(1000)]
    roster = json.dumps({"names": astral, "skip_registered": False, "x": 1})
    assert 750_000 < len(roster) < MAX_BODY_BYTES
    got = client.post("/api/v1/admin/bots", data=roster, content_type="application/json", headers=ADMIN)
    assert got.status_code == 400 and "names and skip_registered" in got.get_json()["error"]["message"]


def test_the_crosstable_of_a_played_tournament_agrees_with_its_matches_and_standings(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """A Glaves round robin played by the engine (a heuristic bot and two random ones, two
    deals a match, five duplicate deal sets) and counted as the workers count it: its
    crosstable, computed with the standings, has each pair's matches and places as the match
    list shows them, each pair's difference from both sides, rows in the standings' order, and
    differences that add up to the standings' means (two players: a margin is half the
    difference, and every pair met in as many deal sets)."""
    from .tournament_fixtures import played_tournament

    bots = ["random-1", "heuristic-1", "random-2"]
    played_tournament(redis_url, "rr", bots, players=2, deal_sets=5, options={"deals": 2})
    response = client.get("/api/v1/tournaments/rr/crosstable")
    body = response.get_json()
    standings = _json(client, "/api/v1/tournaments/rr/standings")["items"]
    assert body["available"] is True and body["reason"] is None and body["tournament"] == "rr"
    assert body["metric"] == "deal_margin" and body["counted"] == 30 and body["resamples"] == 1000
    assert body["bots"] == [r["bot"] for r in standings] and standings[0]["bot"] == "heuristic-1"
    items = {(i["bot"], i["opponent"]): i for i in body["items"]}
    assert len(items) == 6 and [i["bot"] for i in body["items"]] == [b for b in body["bots"] for _ in range(2)]
    matches = _json(client, "/api/v1/tournaments/rr/matches?limit=100")["items"]
    for (a, b), item in items.items():
        met = [m for m in matches if {a, b} == set(m["seats"])]
        places = [(m["result"]["ranks"][m["seats"].index(a)], m["result"]["ranks"][m["seats"].index(b)]) for m in met]
        assert (item["matches"], item["ahead"], item["behind"], item["level"]) == (
            10,
            sum(x < y for x, y in places),
            sum(x > y for x, y in places),
            sum(x == y for x, y in places),
        ), (a, b)
        back = items[(b, a)]
        assert (back["mean_diff"], back["ci_low"], back["ci_high"]) == (
            -item["mean_diff"],
            -item["ci_high"],
            -item["ci_low"],
        )
        assert item["deal_sets"] == 5 and item["ci_low"] <= item["mean_diff"] <= item["ci_high"]
        assert item["significant"] == (item["ci_low"] > 0 or item["ci_high"] < 0)
    for row in standings:
        diffs = [i["mean_diff"] for (a, _), i in items.items() if a == row["bot"]]
        assert row["mean"] == pytest.approx(sum(diffs) / (2 * len(diffs)), abs=1e-5)
    assert (
        client.get("/api/v1/tournaments/rr/crosstable", headers={"If-None-Match": response.headers["ETag"]}).status_code
        == 304
    )
    mine = _json(client, "/api/v1/tournaments/rr/crosstable?bot=heuristic-1")["items"]
    assert [(i["bot"], i["opponent"]) for i in mine] == [("heuristic-1", b) for b in body["bots"][1:]]


def test_the_crosstable_api_by_hand_and_where_there_is_none(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """Three players, the bots finishing a, b, c in every seating (scores 2, 1, 0): each pair's
    places and difference are the two bots' at their table.  A solitaire has no crosstable
    (said, not an empty one); an unknown tournament or bot is 404."""
    from cardarena_tournament import lifecycle

    from .tournament_fixtures import counted_tournament

    counted_tournament(redis_url, "three", ["a", "b", "c"])
    body = _json(client, "/api/v1/tournaments/three/crosstable")
    assert body["bots"] == ["a", "b", "c"] and body["counted"] == 6
    got = {(i["bot"], i["opponent"]): i for i in body["items"]}
    for (a, b), diff in {("a", "b"): 1.0, ("a", "c"): 2.0, ("b", "c"): 1.0}.items():
        assert got[(a, b)] == {
            "bot": a,
            "opponent": b,
            "matches": 6,
            "ahead": 6,
            "behind": 0,
            "level": 0,
            "deal_sets": 1,
            "mean_diff": diff,
            "ci_low": diff,
            "ci_high": diff,
            "significant": False,
        }
        assert (got[(b, a)]["behind"], got[(b, a)]["mean_diff"]) == (6, -diff)

    ts = TournamentStore(client_for(redis_url))
    ts.create(lifecycle.new_tournament(game="loot_the_loop", players=1, entrants=["a", "b"], deal_sets=1, tid="solo"))
    solo = _json(client, "/api/v1/tournaments/solo/crosstable")
    assert (solo["available"], solo["items"], solo["bots"]) == (False, [], [])
    assert solo["reason"] == lifecycle.SOLITAIRE_NO_CROSSTABLE
    page = client.get("/tournaments/solo").get_data(as_text=True)
    assert "a solitaire has no crosstable" in page and "crosstable-table" not in page
    ts.create(lifecycle.new_tournament(game="glaves", players=2, entrants=["a", "b"], deal_sets=1, tid="fresh"))
    fresh = _json(client, "/api/v1/tournaments/fresh/crosstable")
    assert (fresh["available"], fresh["counted"], fresh["bots"], fresh["items"]) == (True, 0, ["a", "b"], [])
    assert "no results yet" in client.get("/tournaments/fresh").get_data(as_text=True)
    assert _json(client, "/api/v1/tournaments/nope/crosstable", 404)["error"]["status"] == 404
    assert "no such bot" in _json(client, "/api/v1/tournaments/three/crosstable?bot=z", 404)["error"]["message"]
    assert client.get("/tournaments/nope/crosstable.part").status_code == 404


def test_a_crosstable_an_earlier_version_did_not_store(client: FlaskClient, redis_url: str, key_prefix: str) -> None:
    """Standings an earlier version computed have no crosstable: a running tournament says it
    comes with the next update (which stores it); an ended one gets it computed from its
    results once, at the first request, and stored."""
    from cardarena.store.keys import key
    from cardarena_tournament import lifecycle

    from .tournament_fixtures import counted_tournament

    left = counted_tournament(
        redis_url, "old", ["a", "b", "c"], players=2, skip=lambda spec: set(spec.seats) == {"b", "c"}
    )
    r = client_for(redis_url)
    ts, stored = TournamentStore(r), key("tournament", "old", "crosstable")
    complete = _json(client, "/api/v1/tournaments/old/crosstable")
    assert len(complete["items"]) == 4  # b and c have not met yet
    r.delete(stored)
    running = _json(client, "/api/v1/tournaments/old/crosstable")
    assert (running["available"], running["reason"]) == (False, lifecycle.NOT_YET)
    assert "comes with the next standings update" in client.get("/tournaments/old").get_data(as_text=True)
    lifecycle.refresh_standings(ts, "old")
    assert _json(client, "/api/v1/tournaments/old/crosstable") == complete
    assert ts.cancel("old") and left
    r.delete(stored)
    assert _json(client, "/api/v1/tournaments/old/crosstable") == complete
    assert r.exists(stored)  # computed once, kept
    r.close()


def test_tournament_standings_crosstable_in_the_cli(
    client: FlaskClient, redis_url: str, key_prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tournament standings ID --crosstable`: a text matrix after the table; with `--json` a
    `crosstable` key, the API's answer; no CSV form."""
    import json

    from cardarena.cli import main

    from .tournament_fixtures import counted_tournament

    counted_tournament(redis_url, "cli", ["a", XSS, "c"], players=2)
    assert main(["tournament", "standings", "cli", "--crosstable", "--json", "--redis-url", redis_url]) == 0
    printed = json.loads(capsys.readouterr().out)
    api = _json(client, "/api/v1/tournaments/cli/crosstable")
    assert printed["crosstable"] == {k: v for k, v in api.items() if k != "tournament"}
    assert [r["bot"] for r in printed["standings"]] == printed["crosstable"]["bots"] == ["a", XSS, "c"]
    assert main(["tournament", "standings", "cli", "--json", "--redis-url", redis_url]) == 0
    assert "crosstable" not in json.loads(capsys.readouterr().out)  # only when asked
    assert main(["tournament", "standings", "cli", "--crosstable", "--redis-url", redis_url]) == 0
    text = capsys.readouterr().out
    assert "crosstable: each row against each column" in text
    matrix = text[text.index("crosstable: each row") :]
    assert XSS in matrix and "+1.00" in matrix and "-2.00" in matrix and "2-0-0" in matrix and "0-2-0" in matrix
    assert main(["tournament", "standings", "cli", "--crosstable", "--csv", "--redis-url", redis_url]) == 2
    assert "--crosstable has no CSV form" in capsys.readouterr().err


def test_bots_sharing_a_place_read_in_people_order_everywhere(
    client: FlaskClient, redis_url: str, key_prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every match a draw, so all four share place 1: they were listed in code point order
    (``Zed``, ``alpha``, ``bot-10``, ``bot-2``) in the CLI table, ``--json`` and ``--csv``, the
    API, the crosstable and the dashboard, where every other list of bots reads in people order;
    now they read ``alpha``, ``bot-2``, ``bot-10``, ``Zed`` in each."""
    import csv
    import json

    from cardarena.cli import main

    from .tournament_fixtures import counted_tournament

    people = ["alpha", "bot-2", "bot-10", "Zed"]
    counted_tournament(redis_url, "level", ["Zed", "bot-10", "alpha", "bot-2"], players=2, scores=lambda s: [1.0, 1.0])
    at = ["--redis-url", redis_url]
    assert main(["tournament", "standings", "level", "--crosstable", "--json", *at]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [(r["bot"], r["rank"]) for r in printed["standings"]] == [(b, 1) for b in people]
    assert printed["crosstable"]["bots"] == people
    assert main(["tournament", "standings", "level", "--csv", *at]) == 0
    assert [r["bot"] for r in csv.DictReader(capsys.readouterr().out.splitlines())] == people
    assert main(["tournament", "standings", "level", *at]) == 0
    table = capsys.readouterr().out
    assert sorted(people, key=table.index) == people
    assert [r["bot"] for r in _json(client, "/api/v1/tournaments/level/standings")["items"]] == people
    api_csv = client.get("/api/v1/tournaments/level/standings?format=csv").get_data(as_text=True)
    assert [r["bot"] for r in csv.DictReader(api_csv.splitlines())] == people
    assert _json(client, "/api/v1/tournaments/level/crosstable")["bots"] == people
    part = client.get("/tournaments/level/standings.part").get_data(as_text=True)
    assert re.findall(r'<a href="/bots/[^"]+">([^<]+)</a>', part) == people
