"""``cardarena tournament run``: one complete tournament locally, end to end."""

from __future__ import annotations

import argparse
from typing import Any


def register_run(tsub: Any) -> None:
    """Add ``tournament run``."""
    run = tsub.add_parser("run", help="run one tournament locally end to end (embedded Redis unless REDIS_URL)")
    run.add_argument("--game", required=True)
    run.add_argument("--players", type=int, required=True)
    run.add_argument("--bots", required=True, help="bot specs: random,heuristic,... (repeats get -1, -2 ...)")
    run.add_argument("--deal-sets", type=int, default=1)
    run.add_argument("--options", help="game options as JSON")
    run.add_argument("--json", action="store_true")
    run.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    raise NotImplementedError
