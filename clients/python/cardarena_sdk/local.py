"""Play a bot locally against built-in bots with the engine: no server, no network.

The bot sees exactly what it would see over the wire (views and legal actions go through the
codec), so a bot that works here works against the service.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardarena.engine import get_game, play_match
from cardarena.wire import codec

from .bot import Bot, builtin_bot


@dataclass(frozen=True)
class LocalResult:
    """One local match."""

    seed: int | str
    scores: tuple[float, ...]
    ranks: tuple[int, ...]


def _policy(bot: Bot, game_id: str) -> Any:
    game = get_game(game_id)

    def policy(view: Any, legal: Sequence[str], seat: int) -> str:
        as_json = codec.decode_view(codec.encode_view(game_id, view.to_json()))
        return bot.choose(as_json, codec.decode_legal(codec.encode_legal(game, legal)))

    return policy


def play(
    bot: Bot,
    game: str,
    players: int,
    *,
    opponents: Sequence[Bot | str] = (),
    matches: int = 1,
    seed: int | str = 0,
    seat: int | None = None,
    options: dict[str, Any] | None = None,
) -> list[LocalResult]:
    """Play ``matches`` matches; ``bot`` sits in ``seat`` (default: rotating), the other
    seats are ``opponents`` (bots or built-in names; default ``random``)."""
    others = list(opponents) or ["random"] * (players - 1)
    if len(others) != players - 1:
        raise ValueError(f"need {players - 1} opponents, got {len(others)}")
    master = random.Random(seed)
    results = []
    for m in range(matches):
        match_seed = master.getrandbits(63)
        mine = m % players if seat is None else seat
        seated = [builtin_bot(o, f"{match_seed}/{i}") if isinstance(o, str) else o for i, o in enumerate(others)]
        seated.insert(mine, bot)
        state = play_match(game, players, [_policy(b, game) for b in seated], seed=match_seed, options=options)
        result = state.result()
        # Report from the bot's point of view: rotate so index 0 is the bot.
        order = [mine] + [s for s in range(players) if s != mine]
        results.append(
            LocalResult(match_seed, tuple(result.scores[s] for s in order), tuple(result.ranks[s] for s in order))
        )
    return results
