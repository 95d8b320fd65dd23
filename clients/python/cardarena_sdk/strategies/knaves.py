"""The knaves strategy: see :mod:`cardarena_sdk.strategies.jacks_and_tricks`.

Measured with ``cardarena_sdk.local.play`` (one heuristic seat rotating, random opponents, seed 0):
100 matches: the heuristic wins 90% (fair share 33%).
"""

from __future__ import annotations

from .jacks_and_tricks import choose

__all__ = ["choose"]
