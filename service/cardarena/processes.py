"""Child processes that never outlive their parent.

Everything that starts processes (the embedded Redis, ``cardarena up``/``demo``/``match``,
``tournament run``) passes :func:`die_with_parent` as ``preexec_fn``: Linux delivers SIGTERM
to the child when its parent dies, however the parent ends, and the child gets its own
process group.  :func:`supervise` restarts a child that crashes (``cardarena worker`` runs
its Celery worker under it: kombu can die on a Redis connection loss, and the worker
watchdog exits deliberately when consumption stalls).  :func:`sigterm_as_keyboard_interrupt`
lets a supervisor run the same cleanup for SIGTERM as for Ctrl-C.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator


def parent_death_signal() -> None:  # pragma: no cover - runs in the child between fork and exec
    """``preexec_fn``: the child gets SIGTERM when its parent dies (stays in the parent's group)."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """``preexec_fn``: :func:`parent_death_signal` and a new process group of its own."""
    parent_death_signal()
    os.setpgrp()


def supervise(
    argv: list[str],
    *,
    name: str,
    backoff: tuple[float, float] = (1.0, 30.0),
    healthy_after: float = 60.0,
    log: Callable[[str], None] | None = None,
) -> int:
    """Run ``argv`` as a child and restart it whenever it exits abnormally.

    The child stays in our process group (a signal to the group reaches both) and dies with
    us.  SIGTERM or SIGINT to the supervisor is forwarded to the child as SIGTERM and ends
    supervision; a child that exits 0 ends it too.  Restarts back off exponentially from
    ``backoff[0]`` to ``backoff[1]`` seconds, reset once a child has run ``healthy_after``
    seconds.  Returns the last child's exit status (0 after a requested stop).
    """
    say = log or (lambda message: print(message, file=sys.stderr, flush=True))
    stopping = False
    child: subprocess.Popen[bytes] | None = None

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        if child is not None and child.poll() is None:
            child.send_signal(signal.SIGTERM)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    delay = backoff[0]
    try:
        while True:
            started = time.monotonic()
            child = subprocess.Popen(argv, preexec_fn=parent_death_signal)
            status = child.wait()
            if stopping:
                return 0
            if status == 0:
                return 0
            if time.monotonic() - started >= healthy_after:
                delay = backoff[0]
            say(f"{name} exited with status {status}; restarting in {delay:.0f} s")
            deadline = time.monotonic() + delay
            while not stopping and time.monotonic() < deadline:
                time.sleep(0.1)
            if stopping:
                return 0
            delay = min(backoff[1], delay * 2)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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


def process_identity(pid: int | None = None) -> str:
    """``<boot id>/<pid namespace>/<pid>/<start time>`` of process ``pid`` (default: this one):
    no other process on any machine has it, and :func:`process_gone` can tell from it whether
    that process ended.  ``""`` where Linux's ``/proc`` does not say."""
    pid = os.getpid() if pid is None else pid
    try:
        with open("/proc/sys/kernel/random/boot_id") as boot:
            boot_id = boot.read().strip()
        namespace = os.readlink("/proc/self/ns/pid")
        started = _start_time(pid)
    except (OSError, IndexError):
        return ""
    return f"{boot_id}/{namespace}/{pid}/{started}"


def process_gone(identity: str) -> bool:
    """Whether the process :func:`process_identity` gave ``identity`` for has surely ended: it
    ran on this machine since its last boot and in this process's pid namespace (so its pid
    means the same here), and that pid is free now or another process's.  ``False`` when that
    cannot be told (another machine or container, an identity from elsewhere)."""
    boot_id, _, rest = identity.partition("/")
    namespace, _, rest = rest.partition("/")
    pid, _, started = rest.partition("/")
    here = process_identity()
    if not here or not pid.isdigit() or here.split("/")[:2] != [boot_id, namespace]:
        return False
    try:
        return _start_time(int(pid)) != started
    except (OSError, IndexError):
        return True  # no such process (its /proc entry is gone)


def _start_time(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot; ``/proc/<pid>/stat`` field 22)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[19]
