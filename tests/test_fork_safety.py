"""A process that uses gRPC can start children reliably (gRPC's fork handlers are off)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import subprocess, sys, threading
    import cardarena  # first, as every cardarena process does
    import grpc
    from concurrent import futures
    from cardarena.processes import parent_death_signal

    server = grpc.server(futures.ThreadPoolExecutor(2))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")

    def busy():  # keep gRPC's threads working while we fork
        while True:
            try:
                grpc.channel_ready_future(channel).result(timeout=0.05)
            except grpc.FutureTimeoutError:
                pass

    threading.Thread(target=busy, daemon=True).start()
    codes = [
        subprocess.run([sys.executable, "-c", "pass"], capture_output=True, preexec_fn=parent_death_signal).returncode
        for _ in range(int(sys.argv[1]))
    ]
    print(sum(1 for c in codes if c != 0))
    """
)


def test_children_of_a_grpc_process_all_start() -> None:
    # Without the setting about one start in five aborted here (SIGABRT in the child).
    out = subprocess.run([sys.executable, "-c", SCRIPT, "150"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "0"


def test_the_setting_yields_to_the_environment() -> None:
    code = "import os, cardarena; print(os.environ['GRPC_ENABLE_FORK_SUPPORT'])"
    env = {"GRPC_ENABLE_FORK_SUPPORT": "true", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "true"
