"""``python -m cardarena.server <command>``: the service's own commands without the rest of the CLI
(used for the child processes the service starts, so they depend on nothing else)."""

from __future__ import annotations

import argparse
import sys

from .commands import register


def main(argv: list[str] | None = None) -> int:
    """Parse and run one of the service's commands."""
    parser = argparse.ArgumentParser(prog="python -m cardarena.server")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
