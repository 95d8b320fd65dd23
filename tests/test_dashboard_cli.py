"""``cardarena dashboard`` as a real subprocess on a free port against the test Redis."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import resource
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme

from .dashboard_data import seed


@contextlib.contextmanager
def _dashboard(
    env: dict[str, str], *extra: str, open_files: int | None = None
) -> Iterator[tuple[str, list[str], subprocess.Popen[str]]]:
    """``cardarena dashboard --port 0`` running: its base URL as printed, the stderr lines before
    the URL line, the process (stopped afterwards with SIGTERM: exit status 0).  ``open_files``:
    its limit of open files (soft and hard), as ``ulimit -n`` would set it."""

    def limited() -> None:
        if open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    proc = subprocess.Popen(
        [sys.executable, "-m", "cardarena.cli", "dashboard", "--port", "0", *extra],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limited,
    )
    try:
        assert proc.stderr is not None
        before: list[str] = []
        while not (line := proc.stderr.readline()).startswith("cardarena dashboard: http"):
            assert line, before
            before.append(line)
        yield line.split()[-1].rstrip("/"), before, proc
        proc.terminate()
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()


def _run_dashboard(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``cardarena dashboard ARGS`` run to its end (one that starts to serve times out)."""
    argv = [sys.executable, "-m", "cardarena.cli", "dashboard", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)


def test_cli_serves_the_dashboard(redis_url: str, key_prefix: str) -> None:
    seed(redis_url, finished=1)
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    with _dashboard(env) as (base, _, _):
        with urllib.request.urlopen(f"{base}/api/v1/tournaments", timeout=10) as response:
            assert [t["id"] for t in json.load(response)["items"]] == ["cup"]
        with urllib.request.urlopen(f"{base}/tournaments/cup", timeout=10) as response:
            assert "Content-Security-Policy" in response.headers


def test_cli_logs_its_info_lines_as_json(redis_url: str, key_prefix: str) -> None:
    """The start-up index line (matches stored before the match indexes: here every match, their
    game indexes and the flag that they were indexed being gone) and each request, as the
    service logs: JSON lines."""
    from cardarena.store.connection import client_for
    from cardarena.store.matches import MatchStore

    seed(redis_url, finished=1)
    store = MatchStore(client_for(redis_url))
    store.r.delete(store.INDEXED)
    mids = store.recent(0, 100)
    store.r.delete(*{store.index_key(game=spec.game) for spec in map(store.spec, mids) if spec is not None})
    every = len(mids)
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    with _dashboard(env) as (base, before, proc):
        records = [json.loads(line) for line in before]
        assert {"level": "info", "logger": "cardarena_dashboard.app"}.items() <= records[-1].items()
        assert records[-1]["event"] == f"indexed {every} matches stored before the match indexes existed"
        urllib.request.urlopen(f"{base}/api/v1/tournaments", timeout=10).close()
        assert proc.stderr is not None
        request = json.loads(proc.stderr.readline())
        assert request["logger"] == "werkzeug" and '"GET /api/v1/tournaments HTTP/1.1" 200' in request["event"]
    store.r.delete(store.INDEXED)
    with _dashboard(env, "--loglevel", "warning") as (_, before, _):
        assert before == []


def test_a_busy_port_is_one_line_and_starts_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env |= {"HOME": str(home), "XDG_DATA_HOME": str(home / "share")}
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        argv = [sys.executable, "-m", "cardarena.cli", "dashboard", "--port", str(port)]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"cardarena: error: port {port} ({'--port'}) is already in use on 127.0.0.1; "
        "stop what uses it or pick another port (0 picks a free one)"
    ]
    assert not home.exists()  # no embedded Redis was started


def test_reindex_indexes_every_match_again_and_exits(redis_url: str, key_prefix: str) -> None:
    """``cardarena dashboard --reindex``: the matches lose their game and bot indexes (as an
    earlier version stored them, or a worker of one that still ran); the command lists them again
    and exits."""
    from cardarena.names import name_order_bytes
    from cardarena.store.connection import client_for
    from cardarena.store.matches import MatchStore
    from cardarena.store.tournaments import TournamentStore

    seed(redis_url, finished=1)
    store = MatchStore(client_for(redis_url))
    every = store.recent(0, 100)
    store.r.delete(store.index_key(bot="alpha"), store.index_key(game="glaves"))
    ratings = TournamentStore(store.r)
    board = [r["bot"] for r in ratings.leaderboard("glaves")[0]]
    # a rating an old worker changed without the leaderboard index: the index says it is first
    store.r.zadd(f"{key_prefix}ratings:glaves:leaderboard", {name_order_bytes(board[-1]): -1000.0})
    assert ratings.leaderboard("glaves", 0, 1)[0][0]["bot"] == board[-1]
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    done = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "dashboard", "--reindex"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert f"{len(every)} matches were missing from them" in done.stdout
    assert f"leaderboards rebuilt from the ratings; {len(board)} rated bots in all games" in done.stdout
    assert [r["bot"] for r in ratings.leaderboard("glaves")[0]] == board
    assert store.listed(0, 100, game="glaves") == every
    specs = [store.spec(m) for m in every]
    assert store.listed(0, 100, bot="alpha") == [s.match_id for s in specs if s is not None and "alpha" in s.seats]


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("CARDARENA_REPLAY_CACHE_MB", "64MB", "CARDARENA_REPLAY_CACHE_MB must be a whole number >= 0, not '64MB'"),
        (
            "CARDARENA_NOTIFY_ALLOW_INTERNAL",
            "10.0.0.0/8,https://mm",
            "CARDARENA_NOTIFY_ALLOW_INTERNAL must list networks (10.0.0.0/8, fd00::/8), addresses (10.0.0.5) or "
            "host names (mm.internal), separated by commas; 'https://mm' is none of them",
        ),
    ],
)
def test_a_bad_setting_stops_the_start_in_one_line(
    redis_url: str, key_prefix: str, setting: str, value: str, message: str
) -> None:
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix, setting: value}
    proc = _run_dashboard(env, "--port", "0")
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"cardarena: error: {message}"


# ---------------------------------------------------------------- HTTPS
def _issue(ca: trustme.CA, cert: Path, key: Path) -> None:
    """Write a certificate for localhost/127.0.0.1 that ``ca`` signed and its key, each renamed
    into place (as a renewal replaces them)."""
    issued = ca.issue_cert("localhost", "127.0.0.1")
    for path, pem in ((key, issued.private_key_pem), (cert, issued.cert_chain_pems[0])):
        fresh = path.with_name(path.name + ".new")
        pem.write_to_path(str(fresh))
        fresh.chmod(0o600)  # as a key should be (a key others may read is warned about)
        os.replace(fresh, path)


def _trusting(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context()
    ca.configure_trust(context)
    return context


@pytest.fixture
def tls_files(tmp_path: Path) -> tuple[trustme.CA, Path, Path]:
    """A throwaway CA and the certificate and key files it issued."""
    ca = trustme.CA()
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    _issue(ca, cert, key)
    return ca, cert, key


def test_cli_serves_https_only_with_tls_files_and_serves_a_replaced_certificate(
    redis_url: str, key_prefix: str, tls_files: tuple[trustme.CA, Path, Path]
) -> None:
    """``--tls-cert/--tls-key``: the printed address is ``https://``, the API answers a client
    trusting the CA, a plain HTTP request on the port gets nothing served in clear, and a
    certificate renewed on disk is served to new connections without a restart."""
    ca, cert, key = tls_files
    seed(redis_url, finished=1)
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    with _dashboard(env, "--tls-cert", str(cert), "--tls-key", str(key)) as (base, before, _):
        assert base.startswith("https://127.0.0.1:")
        assert not [line for line in before if "warning" in line]
        url = f"{base}/api/v1/tournaments"
        with urllib.request.urlopen(url, timeout=10, context=_trusting(ca)) as response:
            assert [t["id"] for t in json.load(response)["items"]] == ["cup"]

        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as plain:
            plain.sendall(b"GET /api/v1/tournaments HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            reply = b""
            with contextlib.suppress(ConnectionResetError):  # closed with the request unread
                while chunk := plain.recv(4096):
                    reply += chunk
        assert b"HTTP/" not in reply and b"cup" not in reply

        renewed = trustme.CA()
        _issue(renewed, cert, key)
        deadline = time.monotonic() + 30  # the files are looked at once a second at most
        while True:
            try:
                with urllib.request.urlopen(url, timeout=10, context=_trusting(renewed)) as response:
                    assert response.status == 200
                break
            except urllib.error.URLError as exc:
                assert isinstance(exc.reason, ssl.SSLCertVerificationError), exc
                assert time.monotonic() < deadline, "the renewed certificate was not served"
                time.sleep(0.2)
        with pytest.raises(urllib.error.URLError) as refused:  # the old CA no longer vouches for the port
            urllib.request.urlopen(url, timeout=10, context=_trusting(ca)).close()
        assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)


BAD_TLS = [
    (["--tls-cert", "{cert}"], "--tls-cert needs --tls-key as well (both or neither)"),
    (["--tls-cert", "{missing}", "--tls-key", "{key}"], "--tls-cert {missing}: No such file or directory"),
    (["--tls-cert", "{key}", "--tls-key", "{key}"], "--tls-cert {key}: no PEM certificate in it"),
    (["--tls-cert", "{other}", "--tls-key", "{key}"], "--tls-cert {other} / --tls-key {key}: the key does not match"),
]


@pytest.mark.parametrize(("given", "message"), BAD_TLS, ids=[" ".join(g) for g, _ in BAD_TLS])
def test_unusable_tls_files_are_one_line_and_start_nothing(
    tmp_path: Path, tls_files: tuple[trustme.CA, Path, Path], given: list[str], message: str
) -> None:
    _, cert, key = tls_files
    other = tmp_path / "other.crt"
    trustme.CA().cert_pem.write_to_path(str(other))
    names = {"cert": cert, "key": key, "other": other, "missing": tmp_path / "nope.pem"}
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env |= {"HOME": str(home), "XDG_DATA_HOME": str(home / "share")}
    argv = [sys.executable, "-m", "cardarena.cli", "dashboard", "--port", "0", *[a.format(**names) for a in given]]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"cardarena: error: {message.format(**names)}"), line
    assert done.stdout == ""
    assert not home.exists()  # no embedded Redis was started


def test_plain_http_beyond_loopback_is_served_with_one_warning(
    redis_url: str, key_prefix: str, tls_files: tuple[trustme.CA, Path, Path]
) -> None:
    """``--host 0.0.0.0`` without TLS: one warning line before the address; with TLS: none."""
    ca, cert, key = tls_files
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    with _dashboard(env, "--host", "0.0.0.0", "--loglevel", "warning") as (base, before, _):
        assert base.startswith("http://0.0.0.0:")
        assert before == [
            "cardarena: warning: --host 0.0.0.0 is reachable from other machines and there is no TLS "
            "(--tls-cert/--tls-key): the admin token and pages travel in clear\n"
        ]
        local = base.replace("0.0.0.0", "127.0.0.1")
        with urllib.request.urlopen(f"{local}/api/v1/games", timeout=10) as response:
            assert response.status == 200
    tls = ["--tls-cert", str(cert), "--tls-key", str(key)]
    with _dashboard(env, "--host", "0.0.0.0", "--loglevel", "warning", *tls) as (base, before, _):
        assert base.startswith("https://0.0.0.0:")
        assert before == []
        local = base.replace("0.0.0.0", "127.0.0.1")
        with urllib.request.urlopen(f"{local}/api/v1/games", timeout=10, context=_trusting(ca)) as response:
            assert response.status == 200


@pytest.mark.parametrize("secure", [False, True], ids=["http", "https"])
def test_a_silent_connection_is_closed_and_frees_its_thread(
    tls_files: tuple[trustme.CA, Path, Path], secure: bool
) -> None:
    """A client that connects and says nothing (no TLS ClientHello, no request) held one of the
    server's threads for ever, so enough of them starved the dashboard: it is closed once idle
    for the server's ``idle_timeout``, and the server still answers."""
    from cardarena.server.tls import load_server_tls
    from cardarena_dashboard.commands import dashboard_server
    from flask import Flask

    ca, cert, key = tls_files
    app = Flask("idle")
    app.add_url_rule("/", "index", lambda: "ok")
    listener = socket.create_server(("127.0.0.1", 0))
    tls = load_server_tls(str(cert), str(key)) if secure else None
    server = dashboard_server("127.0.0.1", 0, app, listener.fileno(), tls, idle_timeout=0.5)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    try:
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=30) as idle:
            assert idle.recv(1) == b""  # closed by the server (a client timeout raises instead)
        scheme, context = ("https", _trusting(ca)) if secure else ("http", None)
        with urllib.request.urlopen(f"{scheme}://127.0.0.1:{port}/", timeout=10, context=context) as response:
            assert response.read() == b"ok"
    finally:
        server.shutdown()
        server.server_close()
        listener.close()


# ---------------------------------------------------------------- the connection cap
@contextlib.contextmanager
def _started(make: Callable[[int], Any], poll_interval: float = 0.5) -> Iterator[Any]:
    """The server ``make`` builds on the listening socket (its descriptor) of a free loopback
    port, serving in a thread that looks every ``poll_interval`` seconds; stopped on exit."""
    listener = socket.create_server(("127.0.0.1", 0))
    server = make(listener.fileno())
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": poll_interval}, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        listener.close()


def _serving(app: Any, tls: Any = None, **options: Any) -> contextlib.AbstractContextManager[Any]:
    """``dashboard_server`` for ``app`` on a free loopback port, serving in a thread."""
    from cardarena_dashboard.commands import dashboard_server

    return _started(lambda fd: dashboard_server("127.0.0.1", 0, app, fd, tls, **options))


def _capped(clock: Callable[[], float], **options: Any) -> contextlib.AbstractContextManager[Any]:
    """A bare ``CappedWSGIServer`` (an app of no routes) on a free loopback port, on the clock
    ``clock``, serving in a thread that looks every 50 ms."""
    from cardarena_dashboard.connections import CappedWSGIServer
    from flask import Flask
    from werkzeug.serving import WSGIRequestHandler

    return _started(
        lambda fd: CappedWSGIServer("127.0.0.1", 0, Flask("capped"), WSGIRequestHandler, fd=fd, clock=clock, **options),
        poll_interval=0.05,
    )


def _until(check: Any, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def _answer(port: int, request: bytes = b"") -> tuple[bytes, float]:
    """What the server sends on a new connection (``request`` sent first) until it closes it,
    and how long that took."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(4096):
            reply += chunk
    return reply, time.monotonic() - start


def _metric(text: str, name: str) -> float:
    [line] = [x for x in text.splitlines() if x.startswith(name + " ")]
    return float(line.split()[1])


def test_connections_over_the_cap_are_answered_503_at_once_and_a_freed_place_serves_again(
    redis_url: str, key_prefix: str
) -> None:
    """Every connection holds a thread until it ends or idles out: at most ``max_connections``
    are served at once.  One more is answered ``503`` with ``Retry-After`` and closed at once,
    whether it sent its request or nothing yet, and gets no thread; once a connection ends its
    place serves the next one, and ``/metrics`` counts the refusals."""
    from cardarena_dashboard import create_app

    app = create_app({"REDIS_URL": redis_url})
    with _serving(app, max_connections=3) as server:
        port = server.port
        health = f"http://127.0.0.1:{port}/api/v1/health"
        with urllib.request.urlopen(health, timeout=10) as response:  # under the cap: as always
            assert response.status == 200
        _until(lambda: server.stats.open == 0, "the request's connection was not given back")
        idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
        try:
            _until(lambda: server.stats.open == 3, "the idle connections were not accepted")
            threads = threading.active_count()
            get = b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            for request in (get, b""):
                reply, took = _answer(port, request)
                head, _, body = reply.partition(b"\r\n\r\n")
                lines = head.split(b"\r\n")
                assert lines[0] == b"HTTP/1.1 503 Service Unavailable", reply
                assert b"Retry-After: 1" in lines and b"Connection: close" in lines
                assert body == b"The dashboard is serving as many connections as it may; retry in a second.\n"
                assert took < 2.0  # at once (the poll of the accepting loop is half a second)
            assert threading.active_count() == threads and server.stats.open == 3
            assert server.stats.refused == {"total": 2, "per_client": 0}
            idle.pop().close()
            _until(lambda: server.stats.open == 2, "the closed connection's place was not freed")
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
                text = response.read().decode()
            assert _metric(text, 'cardarena_dashboard_refused_connections_total{cap="total"}') == 2
            assert _metric(text, 'cardarena_dashboard_refused_connections_total{cap="per_client"}') == 0
            assert _metric(text, "cardarena_dashboard_max_connections") == 3
            assert _metric(text, "cardarena_dashboard_connections") == 3  # two idle and this one
            _until(lambda: server.stats.open == 2, "the scrape's connection was not given back")
            with urllib.request.urlopen(health, timeout=10) as response:
                assert response.status == 200
        finally:
            for sock in idle:
                sock.close()


def test_over_the_cap_an_https_connection_is_closed_before_its_handshake(
    redis_url: str, key_prefix: str, tls_files: tuple[trustme.CA, Path, Path]
) -> None:
    """Over HTTPS a 503 needs the TLS handshake first, which the accepting thread does not wait
    for: a connection over the cap is closed at once, its handshake fails, and the next one
    once a place is free is served."""
    from cardarena.server.tls import load_server_tls
    from cardarena_dashboard import create_app

    ca, cert, key = tls_files
    app = create_app({"REDIS_URL": redis_url})
    with _serving(app, load_server_tls(str(cert), str(key)), max_connections=1) as server:
        port = server.port
        url = f"https://127.0.0.1:{port}/api/v1/health"
        silent = socket.create_connection(("127.0.0.1", port), timeout=10)  # no ClientHello yet
        _until(lambda: server.stats.open == 1, "the silent connection was not accepted")
        start = time.monotonic()
        with pytest.raises(urllib.error.URLError) as refused:
            urllib.request.urlopen(url, timeout=10, context=_trusting(ca)).close()
        assert isinstance(refused.value.reason, (ssl.SSLError, ConnectionError)), refused.value.reason
        assert time.monotonic() - start < 2.0 and server.stats.refused == {"total": 1, "per_client": 0}
        silent.close()
        _until(lambda: server.stats.open == 0, "the silent connection's place was not freed")
        with urllib.request.urlopen(url, timeout=10, context=_trusting(ca)) as response:
            assert response.status == 200


def _refusal_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [r.fields for r in caplog.records if r.getMessage() == "connections_refused"]  # type: ignore[attr-defined]


ONE_CONNECTION = {"refused_per_client_cap": 0, "max_connections": 1, "per_client": 64, "open": 1}
"""The fields of a ``connections_refused`` line of a server of one connection, serving it."""


def test_refusals_are_logged_at_most_every_ten_seconds_with_their_count(caplog: pytest.LogCaptureFixture) -> None:
    """The first refusal is logged at once; later ones are counted and logged together once ten
    seconds have passed since (the accepting loop looks every half second), not one line each."""
    now = [100.0]

    def refusals() -> list[dict[str, Any]]:
        return _refusal_lines(caplog)

    with _capped(lambda: now[0], max_connections=1) as server:
        port = server.port
        with caplog.at_level("WARNING", "cardarena_dashboard.connections"):
            with socket.create_connection(("127.0.0.1", port), timeout=10):
                _until(lambda: server.stats.open == 1, "the connection was not accepted")
                for _ in range(3):
                    assert _answer(port)[0].startswith(b"HTTP/1.1 503 ")
                assert refusals() == [{**ONE_CONNECTION, "refused": 1, "refused_total_cap": 1}]
                time.sleep(0.2)  # a few polls: nothing new before the ten seconds
                assert len(refusals()) == 1
                now[0] += 10.0
                _until(lambda: len(refusals()) == 2, "the later refusals were not logged")
                assert refusals()[1] == {**ONE_CONNECTION, "refused": 2, "refused_total_cap": 2}
            time.sleep(0.2)
            assert len(refusals()) == 2  # nothing left to say


def test_the_refusal_log_line_and_metric_say_which_cap_refused(caplog: pytest.LogCaptureFixture) -> None:
    """Found in review: ``connections_refused`` and the refused counter did not say whether a
    connection was refused over ``--max-connections`` (more readers than the dashboard serves)
    or over ``--max-connections-per-client`` (one address holding its share: an idle client,
    or a proxy), which call for different fixes.  The line breaks ``refused`` down by cap, and
    the counter has a ``cap`` label."""
    from cardarena_dashboard.connections import families

    now = [100.0]
    held: list[socket.socket] = []
    with _capped(lambda: now[0], max_connections=3, per_client=2) as server:
        try:
            with caplog.at_level("WARNING", "cardarena_dashboard.connections"):
                held += _hold(server.port, "127.0.0.2", 2)
                _until(lambda: server.stats.open == 2, "the connections were not accepted")
                assert b"2 connections from 127.0.0.2 are open" in _refused(server.port, "127.0.0.2")
                assert b"2 connections from 127.0.0.2 are open" in _refused(server.port, "127.0.0.2")
                held += _hold(server.port, "127.0.0.3", 1)
                _until(lambda: server.stats.open == 3, "the third connection was not accepted")
                assert b"serving as many connections as it may" in _refused(server.port, "127.0.0.4")
                assert server.stats.refused == {"total": 1, "per_client": 2}
                now[0] += 10.0  # the first refusal was logged at once, the later two are together
                _until(lambda: len(_refusal_lines(caplog)) == 2, "the later refusals were not logged")
        finally:
            for conn in held:
                conn.close()
        counter = next(f for f in families(server.stats) if f.name == "cardarena_dashboard_refused_connections")
    limits = {"max_connections": 3, "per_client": 2}
    assert _refusal_lines(caplog) == [
        {"refused": 1, "refused_total_cap": 0, "refused_per_client_cap": 1, **limits, "open": 2},
        {"refused": 2, "refused_total_cap": 1, "refused_per_client_cap": 1, **limits, "open": 3},
    ]
    assert {s.labels["cap"]: s.value for s in counter.samples} == {"total": 1, "per_client": 2}


def _hold(port: int, client: str, count: int) -> list[socket.socket]:
    """``count`` connections from the address ``client`` (on loopback: 127.0.0.2 ...) that send
    the start of a request and no more, as a slow client would."""
    held = []
    for _ in range(count):
        conn = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(client, 0))
        conn.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n")
        held.append(conn)
    return held


def _refused(port: int, client: str) -> bytes:
    """What a new connection from ``client`` is answered at once, sending nothing itself."""
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(client, 0)) as conn:
        return conn.recv(4096)


def test_one_client_cannot_hold_every_connection() -> None:
    """Found by a pentest: one client could open connection after connection (each sending a
    byte now and then outlives the idle timeout), a thread and a file descriptor each.  Past
    ``per_client`` connections from its address a new one is answered 503 at once and closed,
    and others are served; past ``max_connections`` in all, everyone is, until connections close."""
    import threading

    from cardarena_dashboard.commands import dashboard_server
    from flask import Flask

    app = Flask("limits")
    app.add_url_rule("/", "index", lambda: "ok")
    listener = socket.create_server(("127.0.0.1", 0))
    server = dashboard_server("127.0.0.1", 0, app, listener.fileno(), None, per_client=4, max_connections=6)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = listener.getsockname()[1]
    held: list[socket.socket] = []

    def until_open(count: int) -> None:
        deadline = time.monotonic() + 10
        while server.stats.open != count:
            assert time.monotonic() < deadline, server.stats.open
            time.sleep(0.01)

    try:
        held += _hold(port, "127.0.0.2", 4)
        until_open(4)
        answer = _refused(port, "127.0.0.2")
        assert answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), answer
        assert b"4 connections from 127.0.0.2 are open, the most one address may hold; retry" in answer
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert response.read() == b"ok"  # another address is served
        until_open(4)  # that one closed
        held += _hold(port, "127.0.0.3", 2)
        until_open(6)
        assert b"serving as many connections as it may" in _refused(port, "127.0.0.4")
        assert server.stats.refused == {"total": 1, "per_client": 1}
        for conn in held:
            conn.close()
        until_open(0)
        with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.2", 0)) as again:
            again.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert again.recv(4096).startswith(b"HTTP/1.1 200")
    finally:
        for conn in held:
            conn.close()
        server.shutdown()
        server.server_close()
        listener.close()


def test_cli_max_connections_caps_the_dashboard_and_logs_refusals(redis_url: str, key_prefix: str) -> None:
    """``cardarena dashboard --max-connections 1``: a second connection beside an idle one is
    answered 503, with a ``connections_refused`` warning on stderr; 0 is a usage error."""
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    with _dashboard(env, "--max-connections", "1", "--loglevel", "warning") as (base, _, proc):
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            reply, _ = _answer(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert reply.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), reply
            assert proc.stderr is not None
            warning = json.loads(proc.stderr.readline())
        assert warning["level"] == "warning" and warning["event"] == "connections_refused"
        assert (warning["refused"], warning["max_connections"]) == (1, 1)
        # the idle connection's place is free once its thread has seen it closed
        health = b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        _until(lambda: _answer(port, health)[0].startswith(b"HTTP/1.1 200 "), "the closed connection's place")
    done = _run_dashboard(env, "--max-connections", "0")
    assert done.returncode == 2 and "--max-connections: must be at least 1, got 0" in done.stderr


def test_a_flood_of_connections_leaves_the_dashboard_answering(redis_url: str, key_prefix: str) -> None:
    """Found by a pentest: with the file descriptors of ``ulimit -n`` used up by one client's
    connections, ``accept`` failed in a loop at full CPU and the dashboard answered nobody
    (not even after the flood, until the connections timed out).  It keeps its connections
    within its descriptors: a new one over the bound is answered 503 at once, and the
    dashboard serves as soon as the flood ends."""
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    with _dashboard(env, "--loglevel", "WARNING", open_files=200) as (base, _, _):
        port = int(base.rsplit(":", 1)[1])
        held: list[socket.socket] = []
        try:
            for client in ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"):  # 320 > 200 fds
                with contextlib.suppress(OSError):
                    held += _hold(port, client, 64)
            time.sleep(0.5)
            started = time.monotonic()
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(f"{base}/api/v1/health", timeout=10)
            assert refused.value.code == 503 and time.monotonic() - started < 5
            assert b"serving as many connections as it may" in refused.value.read()
        finally:
            for conn in held:
                conn.close()
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/v1/health", timeout=5) as response:
                    assert response.status == 200
                    break
            except urllib.error.HTTPError:
                assert time.monotonic() < deadline
                time.sleep(0.1)


def _post(port: int, head: bytes, body: bytes) -> tuple[str, dict[str, Any], float]:
    """POST ``head`` (ending in a blank line) and ``body`` on a new connection; the status line
    and JSON body of the answer (read as far as its ``Content-Length``: werkzeug keeps reading
    what is left of a refused body before it closes), and how long it took."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(head)
        with contextlib.suppress(OSError):  # the server may answer (and close) before all of it
            sock.sendall(body)
        reply = b""
        while b"\r\n\r\n" not in reply:
            reply += sock.recv(65536)
        headers, _, content = reply.partition(b"\r\n\r\n")
        length = int(next(h for h in headers.split(b"\r\n") if h.lower().startswith(b"content-length:"))[15:])
        while len(content) < length:
            content += sock.recv(65536)
    return headers.partition(b"\r\n")[0].decode(), json.loads(content), time.monotonic() - start


def test_the_admin_api_refuses_bodies_over_a_mebibyte_over_real_http(redis_url: str, key_prefix: str) -> None:
    """A real werkzeug server: a 300 MB Content-Length is answered 413 at once, before the body
    is read; a chunked body (no Content-Length) that goes past 1 MiB is 413 too (werkzeug stops
    reading at the limit: the first MiB used to be parsed and refused as "not a JSON object")."""
    from cardarena_dashboard import create_app

    app = create_app({"REDIS_URL": redis_url, "ADMIN_TOKEN": "a-token-of-some-length"})
    head = (
        b"POST /api/v1/admin/bots HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a-token-of-some-length\r\n"
        b"Content-Type: application/json\r\nConnection: close\r\n"
    )
    too_large = {
        "error": {"status": 413, "message": "the request body is over 1048576 bytes, the most this server reads"}
    }
    with _serving(app) as server:
        status, answer, took = _post(server.port, head + b"Content-Length: 314572800\r\n\r\n", b'{"names": [' * 1000)
        assert status == "HTTP/1.1 413 REQUEST ENTITY TOO LARGE" and answer == too_large and took < 10
        body = json.dumps({"names": [f"bot-{i:07d}" for i in range(100_000)]}).encode()  # 1.4 MB
        chunked = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:800_000], body[800_000:]))
        status, answer, _ = _post(server.port, head + b"Transfer-Encoding: chunked\r\n\r\n", chunked + b"0\r\n\r\n")
        assert status == "HTTP/1.1 413 REQUEST ENTITY TOO LARGE" and answer == too_large
        small = json.dumps({"name": "chunky"}).encode()
        status, answer, _ = _post(
            server.port, head + b"Transfer-Encoding: chunked\r\n\r\n", b"%x\r\n%s\r\n0\r\n\r\n" % (len(small), small)
        )
        assert status == "HTTP/1.1 201 CREATED" and answer["bot"]["name"] == "chunky"


# ---------------------------------------------------------------- wrong admin tokens
ADMIN_TOKEN = "the-right-admin-token-of-some-length"


def _admin_get(port: int, token: str, client: str = "127.0.0.1") -> tuple[int, dict[str, str], dict[str, Any]]:
    """``GET /api/v1/admin/tournaments/none/notifications`` with ``token``, from the loopback
    address ``client``: the status, headers and JSON body of the answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(client, 0))
    try:
        path = "/api/v1/admin/tournaments/none/notifications"
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read())
    finally:
        conn.close()


def test_cli_limits_wrong_admin_tokens_per_address(redis_url: str, key_prefix: str) -> None:
    """30 wrong admin tokens from one address within a minute are answered 401; the next
    request from it is 429 with ``Retry-After`` and says why, before its token is compared (the
    right token too), logged once and counted on ``/metrics`` (both, labelled ``kind="admin"``
    as the service's wrong admin tokens are); another address is served."""
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix, "CARDARENA_ADMIN_TOKEN": ADMIN_TOKEN}
    with _dashboard(env, "--loglevel", "warning") as (base, _, proc):
        port = int(base.rsplit(":", 1)[1])
        assert [_admin_get(port, f"guess-{i}")[0] for i in range(30)] == [401] * 30
        for token in ("guess-30", ADMIN_TOKEN):
            status, headers, body = _admin_get(port, token)
            assert status == 429 and 55 <= int(headers["Retry-After"]) <= 60, (status, headers)
            assert body["error"]["status"] == 429
            assert body["error"]["message"].startswith(
                "30 failed authentications from 127.0.0.1 within a minute: admin calls from there are refused for "
            )
        assert _admin_get(port, ADMIN_TOKEN, client="127.0.0.2")[0] == 404  # past the token: no such tournament
        with urllib.request.urlopen(f"{base}/metrics", timeout=10) as response:
            text = response.read().decode()
        assert _metric(text, 'cardarena_dashboard_admin_auth_failures_total{kind="admin"}') == 30
        assert _metric(text, 'cardarena_dashboard_admin_auth_refused_total{kind="admin"}') == 2
        assert proc.stderr is not None
        warning = json.loads(proc.stderr.readline())
        assert (warning["event"], warning["peer"], warning["limit"], warning["for_s"]) == (
            "admin_auth_failures_refused",
            "127.0.0.1",
            30,
            60.0,
        )


def test_cli_failed_auths_per_minute_0_does_not_limit_admin_tokens(redis_url: str, key_prefix: str) -> None:
    """``--failed-auths-per-minute 0``: wrong admin tokens are 401 however many, and the right
    one is served after them; a negative number is a usage error."""
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix, "CARDARENA_ADMIN_TOKEN": ADMIN_TOKEN}
    with _dashboard(env, "--failed-auths-per-minute", "0") as (base, _, _):
        port = int(base.rsplit(":", 1)[1])
        assert {_admin_get(port, f"guess-{i}")[0] for i in range(40)} == {401}
        assert _admin_get(port, ADMIN_TOKEN)[0] == 404
    done = _run_dashboard(env, "--failed-auths-per-minute", "-1")
    assert done.returncode == 2 and "--failed-auths-per-minute: must be at least 0, got -1" in done.stderr
