"""The example game package for game designers, ``docs/examples/crazy-eights/`` (Crazy Eights).

Registered the way its own ``pyproject.toml`` declares it (the entry point read from that file,
as ``pip install`` would install it), it passes the conformance suite for 2, 3 and 4 players,
plays to the end over gRPC with its example bot (``cardarena match``), whose replays re-run,
plays in the SDK's local mode, reproduces its golden replay, and follows the rules its README
states: an independent referee below checks every decision of seeded playouts against them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cardarena.cli import main
from cardarena.engine import (
    CHANCE,
    IllegalAction,
    InvalidChance,
    MatchRng,
    NotYourTurn,
    State,
    UnknownAction,
    get_game,
    registry,
    rerun,
)
from cardarena.engine.cards import CODES
from cardarena_sdk.bot import load_bot
from cardarena_sdk.local import play

from .conftest import distribution

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "crazy-eights"
BOT = EXAMPLE / "bots" / "eights_bot.py"
GOLDEN = EXAMPLE / "golden" / "crazy_eights-00001.json"
PYPROJECT = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())
HAND_SIZE = {2: 7, 3: 5, 4: 5}


@pytest.fixture
def crazy_eights(plugin_site: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The example installed as ``pip install`` installs it: its package, and a distribution
    declaring the entry points of its ``pyproject.toml``, in a directory on the path of this
    process and (``PYTHONPATH``) of the processes it starts.  Not the example's directory
    itself: an ``.egg-info`` left there by a ``pip install -e`` would be a second copy of it."""
    project = PYPROJECT["project"]
    entry_points = project["entry-points"]["cardarena.games"]
    lines = "\n".join(f"{name} = {target}" for name, target in entry_points.items())
    distribution(plugin_site, project["name"].replace("-", "_"), lines)
    for package in PYPROJECT["tool"]["setuptools"]["packages"]:
        (plugin_site / package).symlink_to(EXAMPLE / package)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(plugin_site), os.environ.get("PYTHONPATH")])))
    registry.games.cache_clear()
    yield


def test_the_package_installs_the_module_its_entry_point_names() -> None:
    [(name, target)] = PYPROJECT["project"]["entry-points"]["cardarena.games"].items()
    assert (name, target) == ("crazy_eights", "crazy_eights.game:GAME")
    assert PYPROJECT["tool"]["setuptools"]["packages"] == ["crazy_eights"]
    assert (EXAMPLE / "crazy_eights" / "game.py").is_file()


def test_cardarena_conformance_passes_for_2_3_and_4_players(
    crazy_eights: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["conformance", "crazy_eights"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Crazy Eights (crazy_eights): the conformance suite, 12 seeds per player count"
    for players in (2, 3, 4):
        assert f"  ok    {players} players: random playouts" in out
        assert f"  ok    {players} players: matches of stubborn bots end" in out
    assert out[-1] == "all 13 checks passed"


def test_a_match_over_grpc_with_the_example_bot_plays_to_the_end_and_its_replays_rerun(
    crazy_eights: None, tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    out = tmp_path / "replays"
    argv = [sys.executable, "-m", "cardarena.cli", "match", "crazy_eights", "--players", "3"]
    argv += ["--bots", f"random,random,{BOT}", "--matches", "2", "--seed", "4", "--replays", str(out)]
    done = subprocess.run(argv, env={**os.environ, "REDIS_URL": redis_url}, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "eights_bot-3: wins" in done.stdout
    assert "faults and errors" not in done.stdout
    files = sorted(out.glob("crazy_eights-*.json"))
    assert len(files) == 2
    for path in files:
        replay = json.loads(path.read_text())
        assert replay["seats"] == ["random-1", "random-2", "eights_bot-3"]
        assert replay["faults"] == [] and replay["forfeited"] == []
        assert max(replay["result"]["scores"]) >= 100  # played to the target
        assert any("chance" in entry for deal in replay["deals"] for entry in deal["actions"])  # draws
        rerun(replay)


def test_the_sdk_local_mode_plays_the_example_bot(crazy_eights: None) -> None:
    bot = load_bot(str(BOT))
    for players in (2, 3, 4):
        results = play(bot, "crazy_eights", players, matches=6, seed=players)
        assert all(not r.faults for r in results)
    results = play(bot, "crazy_eights", 2, opponents=["random"], matches=20, seed=1)
    assert sum(r.ranks[0] == 1 for r in results) >= 17  # it does play the game, better than at random


def test_the_golden_replay_reruns_and_is_what_simulate_writes(
    crazy_eights: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's golden file: it re-runs, and regenerating it (the README's command) gives
    the same bytes, so a change of the rules shows as a diff of it."""
    rerun(json.loads(GOLDEN.read_text()))
    assert main(["simulate", "crazy_eights", "--players", "3", "--seed", "8", "--replays", str(tmp_path)]) == 0
    assert (tmp_path / GOLDEN.name).read_bytes() == GOLDEN.read_bytes()
    assert f"--players 3 --seed 8 --replays {GOLDEN.parent.relative_to(ROOT)}" in (EXAMPLE / "README.md").read_text()


# -------------------------------------------------------------------------- the rules


def points(card: str) -> int:
    """The README's card values: 8 = 50, K Q J 10 = 10, A = 1, the others their pips."""
    return {"8": 50, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 1}.get(card[0]) or int(card[0])


def expected_legal(view: dict[str, Any]) -> set[str]:
    """The README's rules for the seat to act: a card of the suit to follow or of the top
    card's rank, any 8 naming one of four suits, ``draw`` while the stock has cards (even with
    a card to play), ``pass`` only with the stock empty and nothing to play."""
    top, suit = view["top_card"], view["suit"]
    legal = {f"play:{c}" for c in view["hand"] if c[0] != "8" and (c[1] == suit or c[0] == top[0])}
    legal |= {f"play:{c}:{s}" for c in view["hand"] if c[0] == "8" for s in "CDHS"}
    if view["stock_size"]:
        legal.add("draw")
    elif not legal:
        legal.add("pass")
    return legal


def expected_deal_scores(hands: list[list[str]], out: int | None) -> list[int]:
    """Going out scores the points left in the other hands; a blocked deal gives each holder of
    the fewest points the differences to every other hand."""
    held = [sum(points(c) for c in hand) for hand in hands]
    if out is not None:
        return [sum(held) if s == out else 0 for s in range(len(hands))]
    return [sum(h - min(held) for h in held) if held[s] == min(held) else 0 for s in range(len(hands))]


def refereed_match(players: int, seed: int, options: dict[str, Any] | None = None) -> State:
    """A match of seeded random choices, every step checked against the README's rules."""
    state = get_game("crazy_eights").new_state(players, options)
    target, deals = state.options["target"], state.options["deals"]
    rng, choices = MatchRng(seed), MatchRng(f"{seed}/choices")
    dealer: int | None = None
    drawer: int | None = None
    hands: list[list[str]] = []
    totals = [0] * players
    while state.to_act():
        if state.is_chance():
            before = state.view_json(None)
            state.apply_chance(state.sample_chance(rng))
            view = state.view_json(None)
            if drawer is not None:  # a draw: one card from the stock to the drawer, who goes on
                assert view["stock_size"] == before["stock_size"] - 1
                assert view["seats"][drawer]["hand_size"] == before["seats"][drawer]["hand_size"] + 1
                assert state.to_act() == (drawer,)
                [card] = set(state.view_json(drawer)["hand"]) - set(hands[drawer])
                assert all(card not in json.dumps(state.view_json(s)) for s in (None, *range(players)) if s != drawer)
                drawer = None
                continue
            # a new deal: the dealer passes to the left; the hands, the starter, who plays first
            record = state.deal_records()[-1]
            assert dealer is None or record.dealer == (dealer + 1) % players
            dealer = record.dealer
            assert [s["hand_size"] for s in view["seats"]] == [HAND_SIZE[players]] * players
            assert view["top_card"][0] != "8" and view["suit"] == view["top_card"][1]
            assert view["stock_size"] == 52 - players * HAND_SIZE[players] - 1
            assert state.to_act() == ((dealer + 1) % players,)
            continue
        [seat] = state.to_act()
        legal = state.legal_actions(seat)
        assert set(legal) == expected_legal(state.view_json(seat))
        hands = [state.view_json(s)["hand"] for s in range(players)]
        action = legal[choices.below(len(legal))]
        number = len(state.deal_records())
        state.apply(seat, action)
        record = state.deal_records()[number - 1]
        if action == "draw":
            drawer = seat
        if record.scores is None:
            continue
        # the deal ended with this action: its scores, then the next deal or the end
        if action == "pass":  # blocked: everyone passed in a row
            assert [a for _, a in record.actions[-players:]] == ["pass"] * players
            out = None
        else:
            hands[seat].remove(action.split(":")[1])
            assert hands[seat] == []
            out = seat
        scores = expected_deal_scores(hands, out)
        assert record.scores == [float(s) for s in scores]
        totals = [t + s for t, s in zip(totals, scores, strict=True)]
        over = number == deals if deals else max(totals) >= target
        assert state.to_act() == (() if over else (CHANCE,))
    assert state.result().scores == tuple(float(t) for t in totals)
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_decision_of_seeded_matches_follows_the_readmes_rules(crazy_eights: None, players: int) -> None:
    blocked = out = 0
    for seed in range(8):
        for record in refereed_match(players, seed).deal_records():
            blocked += record.actions[-1][1] == "pass"
            out += record.actions[-1][1] != "pass"
    assert blocked and out  # both ends of a deal were refereed


def test_the_options_end_the_match(crazy_eights: None) -> None:
    assert len(refereed_match(3, 1, {"deals": 2}).deal_records()) == 2
    state = refereed_match(2, 1, {"target": 1})
    assert max(state.result().scores) >= 1
    assert all(not any(r.scores or ()) for r in state.deal_records()[:-1])  # only deals scoring nothing went before
    with pytest.raises(Exception, match="option target must be from 1 to 1000"):
        get_game("crazy_eights").options(2, {"target": 0})


def dealt(hands: list[list[str]], starter: str, dealer: int) -> State:
    """A match whose first deal is ``hands`` and ``starter`` (the rest is the stock)."""
    state = get_game("crazy_eights").new_state(len(hands))
    stock = [c for c in CODES if c != starter and not any(c in hand for hand in hands)]
    state.apply_chance({"dealer": dealer, "hands": hands, "starter": starter, "stock": stock})
    return state


def refusal(state: State, seat: int, action: str) -> str:
    with pytest.raises(IllegalAction) as refused:
        state.apply(seat, action)
    return refused.value.reason


def test_an_eight_names_the_suit_to_follow_and_a_draw_is_chance_inside_the_deal(crazy_eights: None) -> None:
    state = dealt([["2C", "9D", "KH", "8S", "3D", "4D", "5D"], ["KS", "2S", "8D", "3H", "4H", "5H", "6H"]], "9C", 1)
    assert state.to_act() == (0,)
    assert set(state.legal_actions(0)) == {"play:2C", "play:9D", "draw", *(f"play:8S:{s}" for s in "CDHS")}
    assert refusal(state, 0, "play:KH") == "KH matches neither clubs nor the rank of 9C, and is not an 8"
    assert refusal(state, 0, "play:8S") == "an 8 names the suit to follow: play:8S:<C|D|H|S>"
    assert refusal(state, 0, "play:2C:H") == "only an 8 names a suit: play:2C"
    assert refusal(state, 0, "play:KS") == "KS is not in your hand"
    assert refusal(state, 0, "pass").endswith("the stock still has cards (draw)")
    with pytest.raises(UnknownAction, match="'X' is not a suit: C, D, H or S"):
        state.apply(0, "play:8S:X")
    with pytest.raises(NotYourTurn):
        state.apply(1, "draw")
    assert get_game("crazy_eights").describe("play:8S:H").choice == "H"

    state.apply(0, "play:8S:H")
    view = state.view_json(1)
    assert (view["top_card"], view["suit"], view["to_act"]) == ("8S", "H", 1)
    # after the 8, hearts or an 8, not the 8's own spades; drawing is allowed though seat 1 could play
    assert set(state.legal_actions(1)) == {"play:3H", "play:4H", "play:5H", "play:6H", "draw"} | {
        f"play:8D:{s}" for s in "CDHS"
    }
    assert refusal(state, 1, "play:2S") == "2S is neither a card of hearts (named with the 8) nor an 8"

    state.apply(1, "draw")
    assert state.to_act() == (CHANCE,)
    with pytest.raises(InvalidChance):
        state.apply_chance({"card": "2S"})  # not in the stock
    state.apply_chance({"card": "AH"})
    assert state.deal_records()[-1].actions[-2:] == [(1, "draw"), (CHANCE, '{"card": "AH"}')]
    assert state.to_act() == (1,) and "AH" in state.view_json(1)["hand"]
    assert "AH" not in json.dumps(state.view_json(0)) and state.view_json(0)["seats"][1]["hand_size"] == 8
    assert "play:AH" in state.legal_actions(1)


def test_the_deal_scores(crazy_eights: None) -> None:
    from crazy_eights.game import deal_scores

    assert deal_scores([[], ["KH", "8C"], ["AS"]], 0) == [61, 0, 0]
    # blocked: 50, 5 and 5 points held; both holders of the fewest score the differences
    assert deal_scores([["8H"], ["2C", "3C"], ["AS", "4D"]], None) == [0, 45, 45]
    assert deal_scores([["8H", "9C"], ["QD"]], None) == [0, 49]
