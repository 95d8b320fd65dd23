"""Golden playthroughs are reproduced exactly (regenerate: ``python -m tests.playthrough``)."""

from __future__ import annotations

import difflib

import pytest

from .conftest import game_seatings
from .playthrough import golden_path, playthrough, render


@pytest.mark.parametrize(("game_id", "players"), list(game_seatings()))
def test_golden_playthrough(game_id: str, players: int) -> None:
    path = golden_path(game_id, players)
    assert path.exists(), f"no golden file {path.name}: run python -m tests.playthrough"
    want = path.read_text()
    got = render(playthrough(game_id, players))
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "golden", "now", n=2))
        pytest.fail(f"{path.name} differs (regenerate with python -m tests.playthrough if intended):\n{diff[:4000]}")
