"""Golden playthroughs: one fixed-seed match per game and player count, with every decision
of its first deal (acting seat, legal actions, the actor's view) and the full replay.

Regenerate after an intended rules change with ``python -m tests.playthrough`` and review the
diff; ``test_golden.py`` fails while a file differs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cardarena.engine import CHANCE, MatchRng, build_replay, get_game

GOLDEN = Path(__file__).parent / "golden"
SEED = 20261121


def playthrough(game_id: str, players: int) -> dict[str, Any]:
    game = get_game(game_id)
    state = game.new_state(players)
    rng = MatchRng(SEED)
    picker = MatchRng(f"{SEED}/picker")
    steps: list[dict[str, Any]] = []
    while not state.is_terminal():
        seats = state.to_act()
        if seats == (CHANCE,):
            state.apply_chance(state.sample_chance(rng))
            continue
        for seat in seats:
            legal = state.legal_actions(seat)
            action = picker.choice(legal)
            if len(state.deal_records()) == 1:
                steps.append({"seat": seat, "legal": list(legal), "action": action, "view": state.view_json(seat)})
            state.apply(seat, action)
    replay = build_replay(state, seed=SEED, seats=[f"random-{s + 1}" for s in range(players)])
    return {"game": game_id, "players": players, "first_deal": steps, "replay": replay}


def golden_path(game_id: str, players: int) -> Path:
    return GOLDEN / f"{game_id}-{players}p.json"


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def main() -> int:
    from .conftest import game_seatings

    GOLDEN.mkdir(exist_ok=True)
    for game_id, players in game_seatings():
        path = golden_path(game_id, players)
        path.write_text(render(playthrough(game_id, players)))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
