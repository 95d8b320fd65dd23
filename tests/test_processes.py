"""``cardarena.processes.supervise``: restarts a crashed child, stops cleanly on SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path


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
