"""``python -m cardarena.server <command>``: the service's own commands without the rest of the CLI
(used for the child processes the service starts, so they depend on nothing else, and for the
readiness probe ``service health``, which loads only what a health check needs)."""

from __future__ import annotations

import argparse
import sys

from .. import quiet_grpc_core_logs
from .arguments import register


def main(argv: list[str] | None = None) -> int:
    """Parse and run one of the service's commands."""
    quiet_grpc_core_logs()  # before the commands import grpc
    parser = argparse.ArgumentParser(prog="python -m cardarena.server")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except Exception as exc:
        from ..engine import GameError  # only a command that loaded the engine raises one

        if not isinstance(exc, GameError):
            raise
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
