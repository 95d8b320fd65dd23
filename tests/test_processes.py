"""``cardarena.processes.supervise``: restarts a crashed child, stops cleanly on SIGTERM."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest


def _supervisor(tmp_path: Path, child_code: str) -> subprocess.Popen[str]:
    child = tmp_path / "child.py"
    child.write_text(textwrap.dedent(child_code))
    runner = tmp_path / "runner.py"
    runner.write_text(
        textwrap.dedent(f"""
        import sys
        from cardarena.processes import supervise
        sys.exit(supervise([sys.executable, {str(child)!r}], name="child", backoff=(0.1, 0.2)))
    """)
    )
    return subprocess.Popen([sys.executable, str(runner)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_crashed_child_is_restarted_until_it_succeeds(tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    with _supervisor(
        tmp_path,
        f"""
        import pathlib, sys
        p = pathlib.Path({str(counter)!r})
        runs = int(p.read_text()) + 1 if p.exists() else 1
        p.write_text(str(runs))
        sys.exit(0 if runs == 3 else 70)
    """,
    ) as proc:
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert counter.read_text() == "3"
    assert err.count("child exited with status 70; restarting") == 2


def test_sigterm_stops_child_and_supervisor(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    with _supervisor(
        tmp_path,
        f"""
        import os, pathlib, time
        pathlib.Path({str(pidfile)!r}).write_text(str(os.getpid()))
        while True:
            time.sleep(0.1)
    """,
    ) as proc:
        deadline = time.monotonic() + 30
        while not pidfile.exists():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        child = int(pidfile.read_text())
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        proc.communicate()
    time.sleep(0.2)
    assert not Path(f"/proc/{child}").exists() or "zombie" in Path(f"/proc/{child}/status").read_text().lower()


@pytest.mark.parametrize("command", ["worker", "beat"])
@pytest.mark.parametrize(("celery_status", "status"), [(None, 0), (0, 0), (1, 1), (70, 70)])
def test_worker_and_beat_pass_celerys_exit_status_to_their_supervisor(
    command: str, celery_status: int | None, status: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A Celery worker that stops after an "Unrecoverable error" (kombu, when Redis goes away)
    returns status 1 from ``app.start``; the supervisor restarts a child only if it exits
    non-zero, so ``cardarena worker --no-supervise`` (and beat) must exit with that status."""
    from cardarena_tournament import commands
    from cardarena_tournament.celery_app import app

    calls: list[list[str]] = []

    def start(argv: list[str]) -> int | None:
        calls.append(argv)
        return celery_status

    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    monkeypatch.setattr(app, "start", start)
    args = argparse.Namespace(
        no_supervise=True, loglevel="WARNING", pool="threads", concurrency=1, hostname=None, state=str(tmp_path / "b")
    )
    run = commands._worker if command == "worker" else commands._beat
    assert run(args) == status
    assert calls and calls[0][0] == command
