"""The embedded default Redis: one server per data directory, shared by every command at once.

``default_redis`` in-process and across processes (sharing, a concurrent start, the starter
exiting first, every user killed), then the product flow it exists for: ``cardarena
tournament run`` followed by ``cardarena dashboard`` shows that tournament, and ``cardarena
match`` runs twice with the same bots.  Every test uses its own HOME / data directory and no
``REDIS_URL``; none may leave a server running.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import redis
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for, default_redis, embedded_state

# A user of the default in another process: attach, write KEY=VALUE, print the URL and what
# it read back, then hold on until stdin closes.
USER = """
import sys
from pathlib import Path
from cardarena.store.connection import client_for, default_redis
with default_redis(Path(sys.argv[1])) as url:
    client = client_for(url)
    if sys.argv[2]:
        client.set(sys.argv[2], sys.argv[3])
    print(url, (client.get(sys.argv[4]) or b"").decode(), flush=True)
    sys.stdin.read()
    print((client.get(sys.argv[4]) or b"").decode(), flush=True)
"""


def _servers(data_dir: Path) -> list[psutil.Process]:
    """Live keepers and redis-servers of ``data_dir`` (redis-server runs in it, the keeper names it)."""
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "cwd", "status"]):
        try:
            if proc.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            cmd = " ".join(proc.info["cmdline"] or [])
            in_dir = proc.info["cwd"] and os.path.realpath(proc.info["cwd"]) == os.path.realpath(data_dir)
            if in_dir or ("run_keeper" in cmd and str(data_dir) in cmd):
                found.append(proc)
        except (psutil.AccessDenied, psutil.NoSuchProcess):
            continue
    return found


def _redis_servers(data_dir: Path) -> list[psutil.Process]:
    return [p for p in _servers(data_dir) if "redis-server" in " ".join(p.cmdline())]


def _assert_nothing_left(data_dir: Path, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while _servers(data_dir) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _servers(data_dir) == []
    assert embedded_state(data_dir) is None


def _env_without_redis(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CARDARENA_PREFIX")}
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / ".local" / "share")
    return env


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME; no ``REDIS_URL`` in this process either."""
    monkeypatch.delenv("REDIS_URL", raising=False)
    path = tmp_path / "home"
    path.mkdir()
    return path


class _User:
    """A ``default_redis`` user in a child process."""

    def __init__(self, data_dir: Path, home: Path, *, write: tuple[str, str] = ("", ""), read: str = "k") -> None:
        argv = [sys.executable, "-c", USER, str(data_dir), write[0], write[1], read]
        self.proc = subprocess.Popen(
            argv, env=_env_without_redis(home), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def attached(self) -> tuple[str, str]:
        assert self.proc.stdout is not None
        url, _, value = self.proc.stdout.readline().strip().partition(" ")
        assert url.startswith("redis://"), url
        return url, value

    def detach(self) -> str:
        """Let it leave; returns what it read just before."""
        out, _ = self.proc.communicate(timeout=30)
        assert self.proc.returncode == 0
        return out.strip()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()


@pytest.fixture
def users() -> Iterator[list[_User]]:
    started: list[_User] = []
    yield started
    for user in started:
        user.kill()


def test_two_users_share_one_server_and_the_last_out_stops_it(home: Path, users: list[_User]) -> None:
    data_dir = home / "redis"
    with default_redis(data_dir) as url:
        client_for(url).set("k", "from-the-test")
        other = _User(data_dir, home, write=("k2", "from-the-child"))
        users.append(other)
        other_url, seen = other.attached()
        assert other_url == url and seen == "from-the-test"
        assert client_for(url).get("k2") == b"from-the-child"
        with default_redis(data_dir) as nested:
            assert nested == url
        assert len(_redis_servers(data_dir)) == 1
        assert other.detach() == "from-the-test"
        assert client_for(url).ping()  # still ours
    _assert_nothing_left(data_dir)
    # AOF persistence: the next server has the data
    with default_redis(data_dir) as url:
        assert client_for(url).get("k2") == b"from-the-child"
    _assert_nothing_left(data_dir)


def test_concurrent_starts_run_one_server(home: Path, users: list[_User]) -> None:
    data_dir = home / "redis"
    users.extend(_User(data_dir, home) for _ in range(4))
    urls = {user.attached()[0] for user in users}
    assert len(urls) == 1
    assert len(_redis_servers(data_dir)) == 1
    for user in users:
        user.detach()
    _assert_nothing_left(data_dir)


def test_the_starter_may_leave_first(home: Path, users: list[_User]) -> None:
    data_dir = home / "redis"
    starter = _User(data_dir, home, write=("k", "v"))
    users.append(starter)
    url, _ = starter.attached()
    with default_redis(data_dir) as mine:
        assert mine == url
        starter.detach()
        assert client_for(mine).get("k") == b"v"  # the server did not go with its starter
    _assert_nothing_left(data_dir)


def test_users_killed_do_not_leave_a_server(home: Path, users: list[_User]) -> None:
    data_dir = home / "redis"
    users.extend(_User(data_dir, home) for _ in range(2))
    for user in users:
        user.attached()
    for user in users:
        user.proc.send_signal(signal.SIGKILL)
        user.proc.wait()
    _assert_nothing_left(data_dir, timeout=15)  # the keeper notices within a second or two
    with default_redis(data_dir) as url:  # and the next command starts afresh
        assert client_for(url).ping()
    _assert_nothing_left(data_dir)


def test_a_stale_record_is_replaced(home: Path) -> None:
    data_dir = home / "redis"
    data_dir.mkdir()
    # pids of unrelated live processes (recycled): never signalled, never waited for
    stale = {"url": "redis://127.0.0.1:1/0", "pid": 1, "keeper": os.getpid()}
    (data_dir / "server.json").write_text(json.dumps(stale))
    started = time.monotonic()
    with default_redis(data_dir) as url:
        assert time.monotonic() - started < 10
        assert url != "redis://127.0.0.1:1/0" and client_for(url).ping()
    _assert_nothing_left(data_dir)


def test_the_embedded_default_is_its_owners_alone(home: Path) -> None:
    """Found by a pentest: any account on the machine could read every hidden card.  The
    embedded Redis answered everyone on its loopback port without a password, and its
    directory (the AOF: every tournament's secret seed, the replays, the token hashes) was
    readable by all, as an earlier version leaves it (0755)."""
    data_dir = home / "redis"
    data_dir.mkdir(mode=0o755)
    data_dir.chmod(0o755)
    with default_redis(data_dir) as url:
        parsed = urllib.parse.urlsplit(url)
        password = parsed.password
        assert password and len(password) >= 32
        anyone = redis.Redis(host=parsed.hostname, port=parsed.port, socket_connect_timeout=2)
        with pytest.raises(redis.RedisError, match=r"(?i)auth"):
            anyone.get("ca:anything")
        anyone.close()
        assert client_for(url).set("kept", "1")
        assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
        for name in ("redis.password", "server.json"):
            assert stat.S_IMODE((data_dir / name).stat().st_mode) == 0o600, name
        assert password in json.loads((data_dir / "server.json").read_text())["url"]
        for proc in _servers(data_dir):  # given on stdin, never on a command line (ps)
            assert password not in " ".join(proc.cmdline())
    _assert_nothing_left(data_dir)
    with default_redis(data_dir) as again:  # the directory keeps its password, and the data
        assert urllib.parse.urlsplit(again).password == password
        assert client_for(again).get("kept") == b"1"
    _assert_nothing_left(data_dir)


def test_redis_url_wins(home: Path, monkeypatch: pytest.MonkeyPatch, redis_url: str) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)
    with default_redis(home / "redis") as url:
        assert url == redis_url
    assert not (home / "redis").exists()


# ---------------------------------------------------------------- the commands
def _cli(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "cardarena.cli", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)


def _get(url: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url, timeout=20) as reply:
        return reply.headers.get("Content-Type", ""), reply.read()


def test_tournament_run_then_dashboard_shows_it(home: Path) -> None:
    env = _env_without_redis(home)
    data_dir = home / ".local" / "share" / "cardarena" / "redis"
    done = _cli(
        env, "tournament", "run", "--game", "glaves", "--players", "2", "--bots", "random,heuristic",
        "--deal-sets", "1", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    run = json.loads(done.stdout)
    tid, bots = run["tournament"], sorted(row["bot"] for row in run["standings"])
    assert bots == ["heuristic-1", "random-1"]
    _assert_nothing_left(data_dir)
    assert (data_dir / "appendonly.aof").exists() or (data_dir / "appendonlydir").exists()

    dashboard = subprocess.Popen(
        [sys.executable, "-m", "cardarena.cli", "dashboard", "--port", "0"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        assert dashboard.stderr is not None
        base = ""
        while not base:
            line = dashboard.stderr.readline()
            assert line, "the dashboard exited"
            if "http://127.0.0.1:" in line:
                base = line.split()[-1].rstrip("/")
        _, body = _get(f"{base}/api/v1/tournaments/{tid}/standings")
        assert sorted(row["bot"] for row in json.loads(body)["items"]) == bots
        _, body = _get(f"{base}/api/v1/tournaments/{tid}/matches")
        matches = json.loads(body)["items"]
        assert {m["id"] for m in matches} == {m["match_id"] for m in run["matches"]}
        _, body = _get(f"{base}/api/v1/matches/{matches[0]['id']}/replay")
        assert json.loads(body)["game"] == "glaves"
        kind, page = _get(f"{base}/tournaments/{tid}")
        assert kind.startswith("text/html") and b"heuristic-1" in page and b"random-1" in page
        kind, page = _get(f"{base}/matches/{matches[0]['id']}")
        assert kind.startswith("text/html") and b"heuristic-1" in page
        assert len(_redis_servers(data_dir)) == 1
    finally:
        dashboard.terminate()
        try:
            assert dashboard.wait(30) == 0
        finally:
            if dashboard.poll() is None:
                dashboard.kill()
                dashboard.wait()
            if dashboard.stderr:
                dashboard.stderr.close()
    _assert_nothing_left(data_dir)


def test_match_twice_with_the_same_bots(home: Path) -> None:
    env = _env_without_redis(home)
    data_dir = home / ".local" / "share" / "cardarena" / "redis"
    for _ in range(2):
        done = _cli(env, "match", "glaves", "--players", "2", "--bots", "random,heuristic", "--matches", "1")
        assert done.returncode == 0, done.stderr[-3000:]
        assert "heuristic-2" in done.stdout
        _assert_nothing_left(data_dir)


def test_tournament_commands_use_the_embedded_default_without_redis_url(home: Path) -> None:
    """`tournament create/status/cancel/schedules` in a shell where `cardarena up` (or nothing)
    runs: no REDIS_URL, so they use the shared embedded default, and leave nothing running."""
    env = _env_without_redis(home)
    data_dir = home / ".local" / "share" / "cardarena" / "redis"
    with default_redis(data_dir) as url:
        client = client_for(url)
        for name in ("alice", "bob"):
            BotStore(client).register(name)
        client.close()
    _assert_nothing_left(data_dir)
    done = _cli(env, "tournament", "create", "--game", "glaves", "--players", "2", "--bots", "alice,bob")
    assert done.returncode == 0, done.stderr
    tid = done.stdout.strip()
    done = _cli(env, "tournament", "status", tid)
    assert done.returncode == 0 and "[upcoming]" in done.stdout  # no worker is up to start it
    done = _cli(env, "tournament", "cancel", tid)
    assert done.returncode == 0 and f"cancelled {tid}" in done.stdout
    assert "[cancelled]" in _cli(env, "tournament", "status", tid).stdout
    _assert_nothing_left(data_dir)


def test_a_local_run_does_not_take_over_a_registered_bots_name(home: Path) -> None:
    env = _env_without_redis(home)
    data_dir = home / ".local" / "share" / "cardarena" / "redis"
    with default_redis(data_dir) as url:
        client = client_for(url)
        token = BotStore(client).register("random-1")  # a real bot, by `cardarena bot register`
        client.close()
    done = _cli(env, "match", "german_whist", "--players", "2", "--bots", "random,random", "--matches", "1")
    assert done.returncode == 2 and "'random-1' is registered (not by a local run)" in done.stderr, done.stderr
    with default_redis(data_dir) as url:
        client = client_for(url)
        assert BotStore(client).authenticate(token) == "random-1"  # its token still works
        client.close()
    _assert_nothing_left(data_dir)


def test_a_local_match_never_plays_on_a_platform_sharing_its_redis(home: Path) -> None:
    """`cardarena up` in one shell, `cardarena match` in another: both on the embedded default.
    The platform's service (with a bot of its own connected, so it claims) must not take the
    local run's matches: they are queued in the run's own lane."""
    from .server_harness import ServiceProcess

    env = _env_without_redis(home)
    data_dir = home / ".local" / "share" / "cardarena" / "redis"
    out = home / "out"
    with default_redis(data_dir) as url:
        client = client_for(url)
        token = BotStore(client).register("resident")
        platform = ServiceProcess(url, "--instance-name", "platform-svc", "--grace", "0")
        resident = platform.bot_process("random", "resident", token, "--max-matches", "8")
        try:
            argv = ["match", "german_whist", "--players", "2", "--bots", "random,random", "--matches", "6"]
            done = _cli(env, *argv, "--replays", str(out))
            assert done.returncode == 0, done.stderr[-2000:]
            replays = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
            assert len(replays) == 6
            assert all(r["instance"] != "platform-svc" for r in replays)
        finally:
            resident.terminate()
            resident.wait(10)
            platform.stop()
            client.close()
    _assert_nothing_left(data_dir)
