"""Bot versions on the dashboard and the API, against a real Redis: the match page shows each
seat's version (and a change mid-match), the bot page each match's version and its results
grouped by version, the API's match summary and replay carry ``seat_versions``; a hostile
label is text everywhere."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from cardarena.engine import MatchRng, build_replay, play_match, random_policy
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchSpec, MatchStore
from cardarena_dashboard import create_app
from flask.testing import FlaskClient

from .dashboard_data import XSS

ESCAPED = html.escape(XSS, quote=False)


def _store_match(url: str, mid: str, seats: tuple[str, str], versions: list[str | None] | None, **extra: Any) -> None:
    """Play a German Whist match with the engine and complete it as the service records it,
    with ``versions`` per seat (``None``: a match recorded before versions existed)."""
    client = client_for(url)
    matches = MatchStore(client)
    for bot in seats:
        if not BotStore(client).exists(bot):
            BotStore(client).register(bot)
    spec = MatchSpec(mid, "german_whist", 2, seats, seed=mid)
    matches.enqueue(spec)
    claimed = matches.claim("test-instance", wait_s=0.5)
    assert claimed is not None and claimed.match_id == mid
    state = play_match("german_whist", 2, [random_policy(MatchRng(f"{mid}/{s}")) for s in range(2)], seed=mid)
    more: dict[str, Any] = {"match_id": mid, **extra}
    result = state.result().to_json()
    if versions is not None:
        more["seat_versions"] = versions
        result["seat_versions"] = versions
    replay = build_replay(state, seed=mid, seats=seats, extra=more)
    assert matches.complete(mid, "test-instance", result, replay)


@pytest.fixture
def client(redis_url: str, key_prefix: str) -> Iterator[FlaskClient]:
    _store_match(redis_url, "m-old", ("vic", "ann"), None)
    _store_match(redis_url, "m-xss", ("vic", "ann"), [XSS, "a1"])
    _store_match(
        redis_url,
        "m-v2",
        ("ann", "vic"),
        ["a1", "v2"],
        version_changes=[{"seat": 1, "action_index": 5, "version": "v2.1"}],
    )
    yield create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()


def _table(page: str, table_id: str) -> str:
    found = re.search(rf'<table[^>]*id="{table_id}".*?</table>', page, re.S)
    assert found, table_id
    return found.group(0)


def test_the_match_page_shows_each_seats_version_escaped(client: FlaskClient) -> None:
    page = client.get("/matches/m-xss").get_data(as_text=True)
    seats = _table(page, "match-result")
    assert XSS not in page
    assert f"<code>{ESCAPED}</code>" in seats and "<code>a1</code>" in seats
    changed = _table(client.get("/matches/m-v2").get_data(as_text=True), "match-result")
    assert "<code>v2</code>" in changed and "<code>v2.1</code> from action 5" in changed
    old = _table(client.get("/matches/m-old").get_data(as_text=True), "match-result")
    assert "<code>" not in old  # recorded before versions: no label, and the page still renders


def test_the_bot_page_lists_each_matchs_version_and_groups_results_by_version(client: FlaskClient) -> None:
    page = client.get("/bots/vic").get_data(as_text=True)
    assert XSS not in page
    rows = _table(page, "bot-matches")
    assert f"<code>{ESCAPED}</code>" in rows and "<code>v2</code>" in rows
    grouped = _table(page, "by-version")
    labels = re.findall(r'<tr><th scope="row">(.*?)</th><td class="num">(\d+)</td>', grouped)
    assert labels == [
        ("<code>v2</code>", "1"),
        (f"<code>{ESCAPED}</code>", "1"),
        ('<span class="none">no version</span>', "1"),
    ]
    # Seen again: the finished matches now come from the page's result cache, cut to what the
    # page reads of them; the page is the same.
    again = client.get("/bots/vic").get_data(as_text=True)
    assert _table(again, "by-version") == grouped and _table(again, "bot-matches") == rows


def test_the_api_match_summary_and_replay_carry_the_versions(client: FlaskClient) -> None:
    summary = client.get("/api/v1/matches/m-xss").get_json()
    assert summary["seat_versions"] == [XSS, "a1"]
    assert client.get("/api/v1/matches/m-old").get_json()["seat_versions"] == [None, None]
    listed = {m["id"]: m["seat_versions"] for m in client.get("/api/v1/matches?bot=vic").get_json()["items"]}
    assert listed == {"m-old": [None, None], "m-xss": [XSS, "a1"], "m-v2": ["a1", "v2"]}
    replay = client.get("/api/v1/matches/m-v2/replay").get_json()
    assert replay["seat_versions"] == ["a1", "v2"]
    assert replay["version_changes"] == [{"seat": 1, "action_index": 5, "version": "v2.1"}]
