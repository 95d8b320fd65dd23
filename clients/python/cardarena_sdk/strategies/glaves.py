"""The glaves strategy: see :mod:`cardarena_sdk.strategies.jacks_and_tricks`.

Measured with ``cardarena_sdk.local.play`` (one heuristic seat rotating, random opponents, seed 0):
3 players, 200 matches: the heuristic wins 77% (fair share 33%).  2 players, 100 matches: 34%
(below the fair 50%: dumping jacks lets the opponent shoot the moon; to improve); 4 players: see
``tests/test_sdk.py``.
"""

from __future__ import annotations

from .jacks_and_tricks import choose

__all__ = ["choose"]
