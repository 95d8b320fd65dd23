"""The german_whist strategy: see :mod:`cardarena_sdk.strategies.jacks_and_tricks`.

Measured with ``cardarena_sdk.local.play`` (heuristic vs random, seats rotating, seed 0):
200 matches: the heuristic wins 95.5% (fair share 50%; 66% before the 2-player evaluator).
"""

from __future__ import annotations

from .jacks_and_tricks import choose

__all__ = ["choose"]
