"""CLI start-up benchmark: how long a ``cardarena`` command takes before it does anything.

Runs each command below as a new process (an empty interpreter for reference, ``python -m
cardarena.cli ...``, and the readiness probe as the Kubernetes manifest runs it, ``python -m
cardarena.server service health``) ``--runs`` times and prints, per command, the median wall
time and the median CPU time (user + system, of the process) it took.  With ``--against DIR`` (a
checkout of another version: its ``service``, ``tournament`` and ``clients/python`` are put on
``PYTHONPATH`` in their place) each run of this version is followed by one of that version, so
both are measured at the same moments of a shared machine, and the ratio is printed.  ``service
health`` asks ``127.0.0.1:1``, where nothing listens: it exits 1 at once, so the figure is its
start-up and one refused connection.

    python bench/cli_startup.py --runs 15 --against /tmp/cardarena-before
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

UNREACHABLE = ["--server", "127.0.0.1:1", "--timeout", "0.1"]
COMMANDS: list[tuple[str, list[str], int]] = [
    ("python -c pass (the interpreter alone)", ["-c", "pass"], 0),
    ("cardarena --help", ["-m", "cardarena.cli", "--help"], 0),
    ("cardarena bot --help", ["-m", "cardarena.cli", "bot", "--help"], 0),
    ("cardarena service health (unreachable)", ["-m", "cardarena.cli", "service", "health", *UNREACHABLE], 1),
    (
        "python -m cardarena.server service health (the probe)",
        ["-m", "cardarena.server", "service", "health", *UNREACHABLE],
        1,
    ),
]
"""Each command: its label, the interpreter's arguments, its exit status."""


def _env(tree: Path) -> dict[str, str]:
    """The environment of a run of the version checked out in ``tree``."""
    paths = [str(tree / "service"), str(tree / "tournament"), str(tree / "clients" / "python")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _once(argv: list[str], env: dict[str, str], status: int) -> tuple[float, float]:
    """One run: its wall time and the CPU time it used, in seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], env=env, capture_output=True, timeout=120)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != status:
        raise SystemExit(
            f"{' '.join(argv)}: exit status {done.returncode}, not {status}: {done.stderr.decode()[-500:]}"
        )
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _medians(samples: list[tuple[float, float]]) -> dict[str, float]:
    return {
        "wall_s": round(statistics.median(s[0] for s in samples), 3),
        "cpu_s": round(statistics.median(s[1] for s in samples), 3),
    }


def measure(runs: int, against: Path | None) -> list[dict[str, Any]]:
    """Per command, the medians of this version (and of ``against``'s, run alternately)."""
    figures = []
    for label, argv, status in COMMANDS:
        ours: list[tuple[float, float]] = []
        theirs: list[tuple[float, float]] = []
        for _ in range(runs):
            ours.append(_once(argv, _env(ROOT), status))
            if against is not None:
                theirs.append(_once(argv, _env(against), status))
        figure: dict[str, Any] = {"command": label, "runs": runs, **_medians(ours)}
        if against is not None:
            figure["against"] = _medians(theirs)
        figures.append(figure)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command (default %(default)s)")
    parser.add_argument("--against", type=Path, help="a checkout of another version, run alternately")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    figures = measure(args.runs, args.against)
    if args.json:
        print(json.dumps(figures))
        return 0
    for f in figures:
        line = f"{f['command']:>56}: {f['wall_s']:.3f} s wall, {f['cpu_s']:.3f} s CPU"
        if "against" in f:
            old = f["against"]
            line += (
                f"  (against: {old['wall_s']:.3f} s wall, {old['cpu_s']:.3f} s CPU; {old['cpu_s'] / f['cpu_s']:.1f}x)"
            )
        print(line + f"  median of {f['runs']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
