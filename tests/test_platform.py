"""``cardarena up`` and ``cardarena demo --once``: everything starts, works and stops, leaving no process."""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shlex
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import psutil
import pytest


def _descendants_and_strays(home: Path) -> list[str]:
    """Processes whose command line or environment mention the test's HOME (our children)."""
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "environ"]):
        try:
            env = proc.info["environ"] or {}
            cmd = " ".join(proc.info["cmdline"] or [])
        except (psutil.AccessDenied, psutil.NoSuchProcess):
            continue
        if env.get("HOME") == str(home) or str(home) in cmd:
            found.append(f"{proc.info['pid']}: {cmd}")
    return found


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CARDARENA_PREFIX")}
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / ".local" / "share")
    return env


def test_demo_once_prints_standings_and_leaves_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "demo", "--once", "--http-port", "0", "--deal-sets", "1"],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "dashboard  http://127.0.0.1:" in out
    for bot in ("heuristic-1", "heuristic-2", "random-1", "random-2"):
        assert bot[:8] in out
    assert "standings" in out
    time.sleep(0.5)
    assert _descendants_and_strays(home) == []
    # the embedded Redis kept its data under the user's data directory
    assert (home / ".local" / "share" / "cardarena" / "redis").is_dir()


def test_demo_on_an_external_redis_works_under_its_own_prefix_and_deletes_it(
    tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    """With ``REDIS_URL`` the demo writes under ``<prefix>demo-<id>:`` only, and deletes it when
    it ends, as ``match`` and ``tournament run`` do; ``--keep-data`` leaves it and says where."""
    from cardarena.store.connection import client_for

    from .redis_server import only_neighbours_left, plant_neighbours

    home = tmp_path / "home"
    home.mkdir()
    env = {**_env(home), "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    argv = [sys.executable, "-m", "cardarena.cli", "demo", "--once", "--http-port", "0"]
    argv += ["--players", "2", "--bots", "random,random", "--deal-sets", "1"]
    client = client_for(redis_url)
    try:
        planted = plant_neighbours(client, key_prefix)
        kept = subprocess.run([*argv, "--keep-data"], env=env, capture_output=True, text=True, timeout=600)
        assert kept.returncode == 0, kept.stderr[-3000:]
        [line] = [x for x in kept.stdout.splitlines() if x.startswith("keys ")]
        prefix = line.split("under the key prefix ", 1)[1].split(",", 1)[0]
        assert prefix.startswith(f"{key_prefix}demo-") and prefix.endswith(":") and "kept (--keep-data)" in line
        assert f"the run's data stays in Redis under the key prefix {prefix}" in kept.stderr
        [tournament] = [k for k in client.scan_iter(match=f"{prefix}tournament:*") if k.count(b":") == 3]
        assert client.hget(tournament, "status") == b"finished"
        client.set(f"{key_prefix}before-demo", "1")  # its data is not the plain prefix's
        kept_keys = list(client.scan_iter(match=f"{prefix}*"))
        for k in kept_keys:  # leases (e.g. standings_turn) lapse on their own meanwhile: not compared
            if client.ttl(k) >= 0:
                client.delete(k)
        planted += [f"{key_prefix}before-demo", *[k.decode() for k in kept_keys if client.exists(k)]]

        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "standings" in done.stdout and "deleted when the demo ends" in done.stdout
        only_neighbours_left(client, key_prefix, planted)  # the second demo's keys are gone
    finally:
        client.close()
    time.sleep(0.5)
    assert _descendants_and_strays(home) == []


def test_up_serves_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with subprocess.Popen(
        [sys.executable, "-m", "cardarena.cli", "up", "--grpc-port", "0", "--http-port", "0"],
        env=_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        _check_up(proc)
    time.sleep(0.5)
    assert _descendants_and_strays(home) == []


def _check_up(proc: subprocess.Popen[str]) -> None:
    from cardarena.store.connection import client_for

    try:
        assert proc.stdout is not None
        lines: dict[str, str] = {}
        text = []
        deadline = time.monotonic() + 120
        while "Ctrl-C" not in lines:
            line = proc.stdout.readline()
            if not line:
                pytest.fail(f"up exited: {proc.stderr.read() if proc.stderr else ''}")
            text.append(line)
            name, _, rest = line.partition(" ")
            lines[name] = rest.strip()
            assert time.monotonic() < deadline
        url = lines["dashboard"]
        with urllib.request.urlopen(url + "api/v1/games", timeout=10) as reply:
            games = json.loads(reply.read())
        assert "glaves" in json.dumps(games)
        assert lines["service"].startswith("127.0.0.1:")
        # other commands find the embedded Redis by themselves; anything else gets the export line
        shown = "".join(text)
        assert "other cardarena commands (another shell) use this Redis while REDIS_URL is unset" in shown
        # the embedded Redis has a password: the export line carries it, the redis line hides it
        exported = re.search(r"\n  export REDIS_URL=(\S+)   # with its password: e.g. a worker elsewhere", shown)
        assert exported is not None, shown
        password = urllib.parse.urlsplit(exported[1]).password
        assert password and exported[1].replace(password, "***") == lines["redis"]
        assert client_for(exported[1]).ping()
        # the children log to files under the data directory, not to nowhere
        logs = Path(lines["logs"])
        assert {p.name for p in logs.iterdir()} >= {"service.log", "worker.log", "beat.log", "dashboard.log"}
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _listening(port: int = 0) -> socket.socket:
    s = socket.socket()
    s.bind(("127.0.0.1", port))
    s.listen()
    return s


@pytest.mark.parametrize("option", ["--http-port", "--grpc-port"])
def test_up_with_a_busy_port_says_so_in_one_line_and_starts_nothing(tmp_path: Path, option: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with _listening() as busy:
        port = busy.getsockname()[1]
        ports = {"--http-port": "0", "--grpc-port": "0", option: str(port)}
        for command in ("up", "demo"):
            argv = [sys.executable, "-m", "cardarena.cli", command, *[x for kv in ports.items() for x in kv]]
            proc = subprocess.run(argv, env=_env(home), capture_output=True, text=True, timeout=60)
            assert proc.returncode == 2, proc.stderr
            assert proc.stderr.strip().splitlines() == [
                f"cardarena: error: port {port} ({option}) is already in use on 127.0.0.1; "
                "stop what uses it or pick another port (0 picks a free one)"
            ]
            assert proc.stdout == ""
    # checked before anything started: no embedded Redis, no logs, no process left
    assert not (home / ".local" / "share" / "cardarena").exists()
    assert _descendants_and_strays(home) == []


@pytest.mark.parametrize("option", ["--http-port", "--grpc-port"])
def test_a_port_taken_during_start_up_names_the_port_and_stops_every_part(tmp_path: Path, option: str) -> None:
    """The port is free when ``up`` checks it and taken before the part listens (a race the
    up-front check cannot close): one line naming the port and its log, exit 2, nothing left."""
    home = tmp_path / "home"
    home.mkdir()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ports = {"--http-port": "0", "--grpc-port": "0", option: str(port)}
    logs = home / ".local" / "share" / "cardarena" / "logs"
    taken = threading.Event()
    holder: list[socket.socket] = []

    def take_the_port() -> None:  # as soon as up has checked its ports (its log directory appears)
        deadline = time.monotonic() + 60
        while not (logs.is_dir() and any(logs.iterdir())) and time.monotonic() < deadline:
            time.sleep(0.002)
        holder.append(_listening(port))
        taken.set()

    thief = threading.Thread(target=take_the_port, daemon=True)
    thief.start()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "cardarena.cli", "up", *[x for kv in ports.items() for x in kv]],
            env=_env(home),
            capture_output=True,
            text=True,
            timeout=180,
        )
    finally:
        thief.join(70)
        for s in holder:
            s.close()
    assert taken.is_set()
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    part = "dashboard" if option == "--http-port" else "service"
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(
        f"cardarena: error: the {part} cannot listen on 127.0.0.1:{port} ({option}): the port is already in use"
    ), line
    log = Path(line.rsplit("(log: ", 1)[1].rstrip(")"))
    assert log.name == f"{part}.log" and log.parent.parent == logs
    time.sleep(0.5)
    assert _descendants_and_strays(home) == []


def test_a_part_that_exits_during_start_up_is_reported_with_its_log_tail(tmp_path: Path) -> None:
    from cardarena_tournament.platform import Platform, PlatformError

    platform = Platform(redis_url="redis://unused", grpc_port=0, http_port=0, env=dict(os.environ), log_dir=tmp_path)
    script = "import sys\nfor i in range(30): print('line', i)\nprint('boom: no config', file=sys.stderr)\nsys.exit(3)"
    part = platform.start("worker", [sys.executable, "-c", script], dict(os.environ))
    assert part.proc.wait(30) == 3
    with pytest.raises(PlatformError) as caught:
        platform.check_alive(starting=True)
    exc = caught.value
    assert exc.status == 2
    assert (
        str(exc) == f"the worker exited during start-up with status 3; the end of its log ({tmp_path / 'worker.log'}):"
    )
    assert exc.detail.splitlines()[-1] == "boom: no config" and "line 29" in exc.detail and "line 0\n" not in exc.detail
    # later (not during start-up) the same is exit status 1
    with pytest.raises(PlatformError) as later:
        platform.check_alive()
    assert later.value.status == 1 and "exited with status 3" in str(later.value)


def test_a_part_killed_by_a_signal_is_reported_as_killed_with_a_plain_log(tmp_path: Path) -> None:
    """A real child: coloured log lines (as Celery writes them), then SIGKILL."""
    from cardarena_tournament.platform import Platform, PlatformError

    platform = Platform(redis_url="redis://unused", grpc_port=0, http_port=0, env=dict(os.environ), log_dir=tmp_path)
    script = (
        "import os, signal, sys\n"
        "print('\\x1b[1;32m[INFO]\\x1b[0m ready \\x1b]8;;http://x\\x1b\\\\link\\x1b]8;;\\x1b\\\\')\n"
        "print('\\x1b[31mboom\\x1b[m\\x1b(B', file=sys.stderr, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)"
    )
    part = platform.start("worker", [sys.executable, "-c", script], dict(os.environ))
    assert part.proc.wait(30) == -signal.SIGKILL
    with pytest.raises(PlatformError) as caught:
        platform.check_alive()
    exc = caught.value
    assert str(exc) == f"the worker was killed by signal 9 (SIGKILL); the end of its log ({tmp_path / 'worker.log'}):"
    assert exc.status == 1 and "status -9" not in str(exc)
    assert exc.detail.splitlines() == ["[INFO] ready link", "boom"]
    assert "\x1b" not in exc.detail


@pytest.mark.parametrize(
    ("status", "starting", "said"),
    [
        (3, False, "exited with status 3"),
        (3, True, "exited during start-up with status 3"),
        (-9, False, "was killed by signal 9 (SIGKILL)"),
        (-15, True, "was killed during start-up by signal 15 (SIGTERM)"),
        (-99, False, "was killed by signal 99"),
        (None, True, "exited during start-up"),
    ],
)
def test_how_a_part_ended_is_said_in_words(status: int | None, starting: bool, said: str) -> None:
    from cardarena_tournament.platform import ended

    assert ended(status, starting=starting) == said


def test_log_excerpts_are_plain_text(tmp_path: Path) -> None:
    from cardarena_tournament.platform import plain_text, tail

    assert plain_text("\x1b[38;5;196mred\x1b[0m \x1b]0;title\x07x\x1b7\x1b8 \x1b(Bdone\tok\x08") == "red x done\tok"
    log = tmp_path / "part.log"
    log.write_bytes(b"\x1b[2K\rone\r\n\x1b[33mtwo\x1b[0m\n\x1b[0m\n")
    assert tail(log) == "one\ntwo"  # a line left empty by its escapes is dropped too


BAD_DEMOS = [
    (["--game", "nosuch"], "unknown game 'nosuch'"),
    (["--players", "9"], "Glaves is played by 2 to 4 players, not 9"),
    (["--players", "4", "--bots", "random,heuristic,random"], "4-player tables need at least 4 entrants, got 3"),
    (["--deal-sets", "0"], "deal sets must be at least 1, not 0"),
    (["--bots", "heuristic,clever,random"], "--bots: clever: neither a built-in bot (random, heuristic) nor a .py"),
    (["--bots", "random,random,nothere.py"], "--bots: nothere.py: no such file"),
    (["--bots", " , "], "--bots names no bot"),
    (["--timeout", "0"], "--timeout must be positive"),
]


@pytest.mark.parametrize(("extra", "message"), BAD_DEMOS, ids=[" ".join(e) for e, _ in BAD_DEMOS])
def test_demo_checks_its_arguments_before_starting_anything(tmp_path: Path, extra: list[str], message: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "demo", "--once", "--http-port", "0", *extra],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"cardarena: error: {message}"), line
    assert proc.stdout == ""
    assert time.monotonic() - started < 20
    assert not (home / ".local" / "share" / "cardarena").exists()  # no Redis, no logs
    assert _descendants_and_strays(home) == []


def test_up_and_demo_help_show_defaults_and_explain_every_option() -> None:
    from cardarena.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    up, demo = sub.choices["up"], sub.choices["demo"]
    text = up.format_help()
    assert "default 50051" in text and "default 8080" in text
    for command in (up, demo):
        for action in command._actions:
            assert action.help, f"{command.prog} {action.option_strings} has no help"
    demo_help = " ".join(demo.format_help().split())
    for shown in (
        "default glaves",
        "default 3",
        "default heuristic,heuristic,random,random",
        "default 2",
        "default 1800",
    ):
        assert shown in demo_help, shown
    assert "random, heuristic" in demo_help


def test_up_passes_max_connections_to_its_dashboard() -> None:
    """``up --max-connections N`` is the dashboard's ``--max-connections N``; without it, the
    dashboard's default; ``demo``'s dashboard keeps its default."""
    from cardarena.cli import build_parser
    from cardarena.cliargs import DEFAULT_MAX_CONNECTIONS
    from cardarena_tournament.platform import Serving, serving_options

    parser = build_parser()
    for given, expected in (([], DEFAULT_MAX_CONNECTIONS), (["--max-connections", "5"], 5)):
        argv = serving_options(parser.parse_args(["up", *given])).dashboard_args(8080)
        assert argv[argv.index("--max-connections") + 1] == str(expected)
    given = ["--max-connections-per-client", "7"]
    argv = serving_options(parser.parse_args(["up", *given])).dashboard_args(8080)
    assert argv[argv.index("--max-connections-per-client") + 1] == "7"
    assert "--max-connections" not in Serving().dashboard_args(8080)
    assert "--max-connections-per-client" not in Serving().dashboard_args(8080)


def test_up_passes_failed_auths_per_minute_to_its_service_and_dashboard() -> None:
    """``up --failed-auths-per-minute N`` is both the service's and the dashboard's (each
    counting its own); without it, their default."""
    from cardarena.cli import build_parser
    from cardarena.cliargs import DEFAULT_FAILED_AUTHS_PER_MINUTE
    from cardarena_tournament.platform import Serving, serving_options

    parser = build_parser()
    for given, expected in (([], DEFAULT_FAILED_AUTHS_PER_MINUTE), (["--failed-auths-per-minute", "0"], 0)):
        serving = serving_options(parser.parse_args(["up", *given]))
        for argv in (serving.service_args(50051), serving.dashboard_args(8080)):
            assert argv[argv.index("--failed-auths-per-minute") + 1] == str(expected)
    assert "--failed-auths-per-minute" not in Serving().dashboard_args(8080) + Serving().service_args(50051)


def _start_up(home: Path, *extra: str) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """``cardarena up`` on free ports with ``extra``; its printout up to "Ctrl-C" as
    ``{first word: the rest}`` (the indented lines together under ``""``)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardarena.cli", "up", "--grpc-port", "0", "--http-port", "0", *extra],
        env=_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    lines: dict[str, str] = {}
    deadline = time.monotonic() + 120
    while "Ctrl-C" not in lines:
        line = proc.stdout.readline()
        if not line:
            proc.wait(30)
            pytest.fail(f"up exited: {proc.stderr.read() if proc.stderr else ''}")
        if line.startswith(" "):
            lines[""] = f"{lines.get('', '')}{line.strip()}\n"
        else:
            name, _, rest = line.partition(" ")
            lines[name] = rest.strip()
        assert time.monotonic() < deadline
    return proc, lines


def _stop_up(proc: subprocess.Popen[str], home: Path) -> str:
    """SIGTERM; ``up`` must exit 0 and leave nothing running; returns its stderr."""
    try:
        with proc:  # closes its pipes and waits
            try:
                proc.send_signal(signal.SIGTERM)
                assert proc.wait(60) == 0
                assert proc.stderr is not None
                return proc.stderr.read()
            finally:
                if proc.poll() is None:
                    proc.kill()
    finally:
        time.sleep(0.5)
        assert _descendants_and_strays(home) == []


def _cli(line: str, **fill: str) -> list[str]:
    """A printed ``cardarena ...`` command line as argv, its placeholders filled in (the
    ``NAME=VALUE`` words it may start with are its environment: :func:`_cli_env`)."""
    words = [fill.get(w, w) for w in shlex.split(line)]
    while words and words[0] != "cardarena" and "=" in words[0]:
        words.pop(0)
    assert words[0] == "cardarena"
    return [sys.executable, "-m", "cardarena.cli", *words[1:]]


def _cli_env(line: str, **fill: str) -> dict[str, str]:
    """The environment a printed command line starts with (``NAME=VALUE`` words), filled in."""
    found = {}
    for word in shlex.split(line):
        name, eq, value = word.partition("=")
        if not eq or word == "cardarena":
            break
        found[name] = fill.get(value, value)
    return found


def _redis_url(lines: dict[str, str]) -> str:
    """The Redis URL, with its password, from the ``export REDIS_URL=...`` line ``up`` printed."""
    found = re.search(r"export REDIS_URL=(\S+)", lines[""])
    assert found is not None, lines
    return found[1]


@pytest.fixture
def pki(tmp_path: Path) -> dict[str, Path]:
    """A throwaway CA (``trustme``) and a certificate it signed for localhost/127.0.0.1."""
    import trustme

    ca = trustme.CA()
    issued = ca.issue_cert("localhost", "127.0.0.1")
    files = {name: tmp_path / f"{name}.pem" for name in ("cert", "key", "ca")}
    issued.cert_chain_pems[0].write_to_path(str(files["cert"]))
    issued.private_key_pem.write_to_path(str(files["key"]))
    files["key"].chmod(0o600)  # as a key should be (a key others may read is warned about)
    ca.cert_pem.write_to_path(str(files["ca"]))
    return files


def test_up_with_tls_on_every_interface_serves_tls_bots_and_refuses_plaintext(
    tmp_path: Path, pki: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``up --host 0.0.0.0 --advertise 127.0.0.1 --tls-cert --tls-key``: no warning; the printed
    ``bot run`` line (``--ca-cert``, which implies TLS) connects bots that play a match; the same line
    without TLS is refused with one line.  The dashboard serves HTTPS only, with the same
    certificate."""
    from cardarena.store.bots import BotStore
    from cardarena.store.connection import client_for
    from cardarena.store.matches import MatchSpec, MatchStore, TimeControl

    home = tmp_path / "home"
    home.mkdir()
    tls = ["--tls-cert", str(pki["cert"]), "--tls-key", str(pki["key"])]
    proc, lines = _start_up(home, "--host", "0.0.0.0", "--advertise", "127.0.0.1", *tls)
    bots: list[subprocess.Popen[bytes]] = []
    try:
        address = lines["service"].split()[0]
        assert address.startswith("127.0.0.1:") and "(gRPC over TLS; bots connect here)" in lines["service"]
        port = address.rsplit(":", 1)[1]
        assert lines["dashboard"].startswith("https://127.0.0.1:")
        trusting = ssl.create_default_context(cafile=str(pki["ca"]))
        with urllib.request.urlopen(lines["dashboard"] + "api/v1/games", timeout=10, context=trusting) as reply:
            assert "glaves" in json.dumps(json.loads(reply.read()))
        with pytest.raises((OSError, http.client.HTTPException)):  # nothing served in clear
            urllib.request.urlopen(lines["dashboard"].replace("https:", "http:") + "api/v1/games", timeout=10)
        connect = lines["connect"]
        assert connect.endswith(f"--server {address} --ca-cert ca.pem"), connect
        assert "the CA that signed --tls-cert" in lines[""]

        tokens = {}
        for name in ("north", "south"):  # as printed: `cardarena bot register NAME`, in another shell
            argv = _cli(lines["register"].split("   ")[0], NAME=name)
            done = subprocess.run(argv, env=_env(home), capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
            tokens[name] = done.stdout.strip()
        for token in tokens.values():
            fill = {"my_bot.py": "random", "TOKEN": token, "ca.pem": str(pki["ca"])}
            argv, env = _cli(connect, **fill), {**_env(home), **_cli_env(connect, **fill)}
            assert env["CARDARENA_TOKEN"] == token and token not in argv  # never on a command line
            bots.append(subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

        monkeypatch.setenv("CARDARENA_PREFIX", "ca:")  # up's children use the default prefix
        client = client_for(_redis_url(lines))
        try:
            assert set(BotStore(client).names()) >= {"north", "south"}
            matches = MatchStore(client)
            spec = MatchSpec("up-tls", "glaves", 2, ("north", "south"), seed=3, time_control=TimeControl(5000, 0))
            matches.enqueue(spec)
            deadline = time.monotonic() + 120
            while matches.status("up-tls") != "done":
                assert time.monotonic() < deadline, matches.info("up-tls")
                assert all(b.poll() is None for b in bots)
                time.sleep(0.1)
            result = matches.result("up-tls")
            assert result is not None and result["strikes"] == [0, 0]
        finally:
            client.close()

        # a plaintext client of the TLS port: one line saying so, exit status 1
        fill = {"my_bot.py": "random", "TOKEN": "x"}
        plain = _cli(connect.replace(" --ca-cert ca.pem", ""), **fill)
        env = {**_env(home), **_cli_env(connect, **fill)}
        done = subprocess.run(plain, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 1, done.stderr
        assert (
            done.stderr.strip()
            .splitlines()[-1]
            .startswith(f"cardarena: error: 127.0.0.1:{port}: the service serves TLS on this port")
        ), done.stderr
        assert "Traceback" not in done.stderr
    finally:
        for bot in bots:
            bot.terminate()
            bot.wait(30)
        stderr = _stop_up(proc, home)
    assert "warning" not in stderr


def test_up_on_every_interface_without_tls_warns_that_tokens_travel_in_clear(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc, lines = _start_up(home, "--host", "0.0.0.0")
    try:
        host = socket.gethostname()  # what the service advertises for a wildcard host
        address = lines["service"].split()[0]
        assert address.startswith(f"{host}:") and "(gRPC; bots connect here)" in lines["service"]
        assert lines["connect"] == f"CARDARENA_TOKEN=TOKEN cardarena bot run my_bot.py --server {address}"
        port = lines["dashboard"].rstrip("/").rsplit(":", 1)[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/games", timeout=10) as reply:
            assert reply.status == 200  # every interface: loopback too
        dashboard_log = (Path(lines["logs"]) / "dashboard.log").read_text()
        assert "cardarena: warning: --host 0.0.0.0 is reachable from other machines" in dashboard_log
    finally:
        stderr = _stop_up(proc, home)
    warnings = [line for line in stderr.splitlines() if "warning" in line]
    assert warnings == [
        "cardarena: warning: --host 0.0.0.0 is reachable from other machines and there is no TLS "
        "(--tls-cert/--tls-key): bot tokens and the dashboard's admin token travel in clear"
    ]


BAD_TLS = [
    (["--tls-cert", "{cert}"], "--tls-cert needs --tls-key as well (both or neither)"),
    (["--tls-cert", "{missing}", "--tls-key", "{key}"], "--tls-cert {missing}: No such file or directory"),
    (
        ["--tls-cert", "{ca}", "--tls-key", "{key}"],
        "--tls-cert {ca} / --tls-key {key}: the key does not match the certificate",
    ),
    (
        ["--tls-client-ca", "{ca}"],
        "--tls-client-ca needs --tls-cert and --tls-key (client certificates are asked for over TLS)",
    ),
    (
        ["--tls-cert", "{cert}", "--tls-key", "{key}", "--tls-client-ca", "{key}"],
        "--tls-client-ca {key}: no PEM certificate in it",
    ),
]


@pytest.mark.parametrize(("given", "message"), BAD_TLS, ids=[" ".join(g) for g, _ in BAD_TLS])
def test_up_refuses_unusable_tls_options_with_one_line_before_starting_anything(
    tmp_path: Path, pki: dict[str, Path], given: list[str], message: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    names = {**{k: str(v) for k, v in pki.items()}, "missing": str(tmp_path / "nope.pem")}
    argv = [sys.executable, "-m", "cardarena.cli", "up", "--host", "0.0.0.0", *[a.format(**names) for a in given]]
    proc = subprocess.run(argv, env=_env(home), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [f"cardarena: error: {message.format(**names)}"]  # no warning either
    assert proc.stdout == ""
    assert not (home / ".local" / "share" / "cardarena").exists()  # no Redis, no logs
    assert _descendants_and_strays(home) == []


def test_the_connect_line_asks_for_what_the_port_serves(pki: dict[str, Path]) -> None:
    from cardarena.server.tls import load_server_tls
    from cardarena_tournament.platform import Platform, Serving, connect_command

    def printed(serving: Serving, env: dict[str, str] | None = None) -> list[str]:
        platform = Platform(redis_url="redis://unused", grpc_port=50051, http_port=8080, env=env or {})
        platform.serving = serving
        return connect_command(platform)

    # The token in the environment, never on the command line: every user of a machine can read
    # command lines (ps), and a token read there plays in the bot's seats (found by a pentest).
    base = "CARDARENA_TOKEN=TOKEN cardarena bot run my_bot.py --server"
    assert printed(Serving()) == [f"{base} 127.0.0.1:50051"]
    assert printed(Serving(), {"CARDARENA_SERVICE_ADDR": "arena:443"}) == [f"{base} arena:443"]
    tls = load_server_tls(str(pki["cert"]), str(pki["key"]))
    [line, note] = printed(Serving(host="0.0.0.0", advertise=("arena.example.org", None), tls=tls))
    assert line == f"{base} arena.example.org:50051 --ca-cert ca.pem"
    assert note.startswith("(ca.pem: the certificate of the CA that signed --tls-cert")
    mutual = load_server_tls(str(pki["cert"]), str(pki["key"]), str(pki["ca"]))
    [line, note] = printed(Serving(host="::", advertise=("[2001:db8::1]", 443), tls=mutual))
    assert line == f"{base} [2001:db8::1]:443 --ca-cert ca.pem --client-cert bot.crt --client-key bot.key"
    assert "bot.crt/bot.key: a client certificate the --tls-client-ca CA signed" in note


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("arena.example.org", ("arena.example.org", None)),
        ("arena.example.org:50051", ("arena.example.org", 50051)),
        ("10.0.0.5:443", ("10.0.0.5", 443)),
        ("[::1]", ("[::1]", None)),
        ("[2001:db8::1]:50051", ("[2001:db8::1]", 50051)),
    ],
)
def test_advertise_takes_host_and_an_optional_port(text: str, parsed: tuple[str, int | None]) -> None:
    from cardarena.cliargs import host_and_port

    assert host_and_port(text) == parsed


@pytest.mark.parametrize("text", ["", "http://arena:50051", "arena:", "arena:0", "arena:70000", "arena:x", "::1", "[]"])
def test_advertise_refuses_what_is_not_host_and_port(text: str) -> None:
    from cardarena.cliargs import host_and_port

    with pytest.raises(argparse.ArgumentTypeError):
        host_and_port(text)
