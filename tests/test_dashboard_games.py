"""Every registered game's finished matches render on the dashboard: the match page at the
first, a middle and the last step from the spectator's, a seat's and the all-open point of
view, and the replay API.  The dashboard names no game; this proves the generic rendering
holds for each of them."""

from __future__ import annotations

import html
import re

import pytest
from cardarena.engine import MatchRng, get_game
from cardarena_dashboard import create_app

from .conftest import game_seatings
from .dashboard_data import store_game_match

SEATINGS = list(game_seatings())


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_finished_match_of_every_game_renders(redis_url: str, key_prefix: str, game_id: str, players: int) -> None:
    mid, replay = store_game_match(redis_url, game_id, players)
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
    mid, _ = store_game_match(redis_url, game_id, players)
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


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_the_replay_says_whose_turn_it_is_and_the_scores_of_each_deal(
    redis_url: str, key_prefix: str, game_id: str, players: int
) -> None:
    """A viewer follows the game without reading JSON: the seat table names each seat's bot and
    marks the seat to act, the line above says who acts next (or that the match is over), an
    action's card codes read as cards, and the deals scored so far (never later ones) are listed."""
    mid, replay = store_game_match(redis_url, game_id, players, deals=2)
    client = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()
    last = sum(len(d["actions"]) + 1 for d in replay["deals"]) - 1
    first = client.get(f"/matches/{mid}?step=0&pov=spectator").get_data(as_text=True)
    assert "next to act: seat" in first or "next: a chance outcome" in first
    assert 'id="deal-scores"' not in first  # nothing scored yet: no spoiler of later deals
    if '<h3 class="sub">seats</h3>' in first:
        assert '<td class="bot"><span>bot-1</span></td>' in first
        assert 'class="to-act"' in first or "next: a chance outcome" in first
    end = client.get(f"/matches/{mid}?step={last}&pov=all").get_data(as_text=True)
    assert "match over" in end and "next to act" not in end
    scored = [d["scores"] for d in replay["deals"] if d.get("scores") is not None]
    if scored:
        table = end[end.index('id="deal-scores"') : end.index("</table>", end.index('id="deal-scores"'))]
        assert len(re.findall(r'<tr><th scope="row">\d+</th>', table)) == len(scored)
        assert f'<td class="num">{scored[0][0]:g}</td>' in table
    else:
        assert 'id="deal-scores"' not in end
    card_plays = [
        (i, e["action"])
        for i, e in enumerate(a for d in replay["deals"] for a in [{}, *d["actions"]])
        if "action" in e and any(re.fullmatch(r"[2-9TJQKA][CDHS]", t) for t in e["action"].split(":"))
    ]
    if card_plays:
        index, action = card_plays[0]
        page = client.get(f"/matches/{mid}?step={index}&pov=all").get_data(as_text=True)
        assert f'<code class="action-id">{action}</code>' in page
        assert '<span class="card-text suit-' in page.split('id="current-action"')[1].split("</p>")[0]
