"""The german_whist strategy: see :mod:`cardarena_sdk.strategies.jacks_and_tricks`.

Measured with ``cardarena_sdk.local.play`` (heuristic vs random, seats rotating, seed 0):
100 matches: the heuristic wins 71% (fair share 50%).
"""

from __future__ import annotations

from .jacks_and_tricks import choose

__all__ = ["choose"]
