"""Child processes that never outlive their parent.

:class:`ProcessGroup` starts each child in its own process group with Linux's parent-death
signal set, and stops them all (SIGTERM, then SIGKILL after a grace period) on exit, on
Ctrl-C and on SIGTERM.  ``cardarena up``, ``demo``, ``match`` and ``tournament run`` use it so
that nothing they started is left running.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO


def _child_setup() -> None:  # pragma: no cover - runs in the child between fork and exec
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: die with the parent
    os.setpgrp()


def cardarena_command(*args: str) -> list[str]:
    """The argv that runs ``cardarena ARGS`` with this interpreter."""
    return [sys.executable, "-m", "cardarena.cli", *args]


class ProcessGroup:
    """A set of named child processes stopped together."""

    def __init__(self, log_dir: Path | None = None) -> None:
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self.log_dir = log_dir
        self._logs: list[IO[bytes]] = []

    def start(self, name: str, argv: Sequence[str], env: Mapping[str, str] | None = None,
              *, quiet: bool = True) -> subprocess.Popen[bytes]:
        """Start ``argv`` as child ``name`` (its output goes to ``log_dir/name.log`` if set)."""
        merged = {**os.environ, **(env or {})}
        out: int | IO[bytes] = subprocess.DEVNULL if quiet else sys.stderr.fileno()
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - closed in stop()
            self._logs.append(log)
            out = log
        proc = subprocess.Popen(list(argv), env=merged, stdout=out, stderr=out, stdin=subprocess.DEVNULL,
                                preexec_fn=_child_setup)
        self.children[name] = proc
        return proc

    def alive(self) -> dict[str, bool]:
        """Which children are still running."""
        return {name: proc.poll() is None for name, proc in self.children.items()}

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM every child's process group, wait up to ``grace`` seconds, then SIGKILL."""
        for proc in self.children.values():
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        for proc in self.children.values():
            remaining = max(0.0, deadline - time.monotonic())
            try:
                proc.wait(remaining)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.children.clear()
        for log in self._logs:
            log.close()
        self._logs.clear()

    def __enter__(self) -> ProcessGroup:
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


@contextlib.contextmanager
def sigterm_as_keyboard_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises KeyboardInterrupt so the same cleanup runs as for Ctrl-C."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
