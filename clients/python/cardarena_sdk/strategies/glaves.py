"""The glaves strategy: see :mod:`cardarena_sdk.strategies.jacks_and_tricks`.

Measured with ``cardarena_sdk.local.play`` (one heuristic seat rotating, random opponents,
200 matches, seed 0): 2 players 97.8% (fair share 50%; was 34%/32% before the 2-player
evaluator blocked the opponent's moon), 3 players 77.2% (fair 33%), 4 players 58.8% (fair 25%).
"""

from __future__ import annotations

from .jacks_and_tricks import choose

__all__ = ["choose"]
