"""The glaves strategy: see :mod:`cardarena_sdk.strategies.jacks_and_tricks`.

MEASURE_PLACEHOLDER
"""

from __future__ import annotations

from .jacks_and_tricks import choose

__all__ = ["choose"]
