"""Child processes that never outlive their parent.

Everything that starts processes (the embedded Redis, ``cardarena up``/``demo``/``match``,
``tournament run``) passes :func:`die_with_parent` as ``preexec_fn``: Linux delivers SIGTERM
to the child when its parent dies, however the parent ends, and the child gets its own
process group.  :func:`sigterm_as_keyboard_interrupt` lets a supervisor run the same cleanup
for SIGTERM as for Ctrl-C.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from collections.abc import Iterator


def die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """``preexec_fn``: set the parent-death signal (SIGTERM) and start a new process group."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    os.setpgrp()


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
