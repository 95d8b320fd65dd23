"""Every registered game's finished matches render on the dashboard: the match page at the
first, a middle and the last step from the spectator's, a seat's and the all-open point of
view, and the replay API.  The dashboard names no game; this proves the generic rendering
holds for each of them."""

from __future__ import annotations

import html

import pytest
from cardarena.engine import MatchRng, build_replay, get_game, play_match, random_policy
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchSpec, MatchStore
from cardarena_dashboard import create_app

from .conftest import game_seatings

SEATINGS = list(game_seatings())


def _store_finished_match(url: str, game_id: str, players: int) -> tuple[str, dict]:
    matches = MatchStore(client_for(url))
    mid = f"render-{game_id}-{players}p"
    seats = tuple(f"bot-{s + 1}" for s in range(players))
    options = {"deals": 1} if "deals" in get_game(game_id).option_defaults(players) else {}
    spec = MatchSpec(match_id=mid, game=game_id, players=players, seats=seats, seed=7, options=options)
    assert matches.enqueue(spec)
    assert matches.claim("render-test", wait_s=1.0) == spec
    policies = [random_policy(MatchRng(f"7/{s}")) for s in range(players)]
    state = play_match(game_id, players, policies, seed=7, options=options)
    replay = build_replay(state, seed=7, seats=seats, extra={"match_id": mid})
    assert matches.complete(mid, "render-test", state.result().to_json(), replay)
    return mid, replay


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_finished_match_of_every_game_renders(redis_url: str, key_prefix: str, game_id: str, players: int) -> None:
    mid, replay = _store_finished_match(redis_url, game_id, players)
    client = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()
    steps = sum(len(d["actions"]) for d in replay["deals"])
    for step in sorted({0, steps // 2, steps}):
        for pov in ("", "&pov=0", "&pov=all"):
            reply = client.get(f"/matches/{mid}?step={step}{pov}")
            assert reply.status_code == 200, (step, pov, reply.get_data(as_text=True)[:500])
            page = html.unescape(reply.get_data(as_text=True))
            assert game_id in page
    api = client.get(f"/api/v1/matches/{mid}/replay")
    assert api.status_code == 200
    assert api.get_json()["game"] == game_id


@pytest.mark.parametrize(("game_id", "players"), [s for s in SEATINGS if s[1] >= 2])
def test_a_seat_view_hides_the_other_hands_at_the_start(
    redis_url: str, key_prefix: str, game_id: str, players: int
) -> None:
    mid, _ = _store_finished_match(redis_url, game_id, players)
    client = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()
    state = get_game(game_id).new_state(
        players, {"deals": 1} if "deals" in get_game(game_id).option_defaults(players) else None
    )
    state.apply_chance(state.sample_chance(MatchRng(7)))
    secrets = state.secrets(0)
    page = client.get(f"/matches/{mid}?step=0&pov=0").get_data(as_text=True)

    def on_page(card: str) -> bool:
        return f'title="{card}"' in page or f">{card}<" in page

    shown = [s for s in secrets if on_page(s)]
    assert not shown, f"seat 0's view shows hidden cards {shown}"
    own = state.view_json(0).get("hand")
    if isinstance(own, list) and own and all(isinstance(c, str) for c in own):
        assert any(on_page(c) for c in own), "the check cannot see cards: own hand not found on the page"
