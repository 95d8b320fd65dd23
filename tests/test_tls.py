"""TLS on the bot-facing port (``cardarena service --tls-cert --tls-key``, certificate files
replaced under a running service, mutual TLS with ``--tls-client-ca``) and in the clients
(``cardarena bot run --tls/--ca-cert/--client-cert/--client-key``, ``run_async(tls=, ca_cert=,
client_cert=, client_key=)``, the admin gRPC API), over real gRPC on loopback with real Redis.
Each test makes a throwaway CA and a certificate for ``localhost``/``127.0.0.1`` with
``trustme``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import trustme
from cardarena.engine import rerun
from cardarena.server.commands import stop_process
from cardarena.store.bots import BotStore
from cardarena.store.matches import MatchSpec, MatchStore, TimeControl
from cardarena.wire import codec
from cardarena_sdk import RandomBot
from cardarena_sdk.client import SessionEnded, run_async

from .server_harness import ScriptedBot, ServiceProcess, pb

SERVICE = [sys.executable, "-m", "cardarena.server", "service", "--port", "0"]
BOT_RUN = [sys.executable, "-m", "cardarena.server", "bot", "run"]


@dataclass
class Pki:
    """PEM files: the service's certificate and key, the CA that signed it, and another CA."""

    cert: Path
    key: Path
    ca: Path
    other_ca: Path

    def trusted(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(self.ca.read_bytes())


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    ca, other = trustme.CA(), trustme.CA()
    issued = ca.issue_cert("localhost", "127.0.0.1")
    files = Pki(tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "ca.pem", tmp_path / "other-ca.pem")
    issued.cert_chain_pems[0].write_to_path(str(files.cert))
    issued.private_key_pem.write_to_path(str(files.key))
    ca.cert_pem.write_to_path(str(files.ca))
    other.cert_pem.write_to_path(str(files.other_ca))
    return files


@pytest.fixture
def tls_service(redis_url: str, key_prefix: str, pki: Pki) -> Iterator[ServiceProcess]:
    svc = ServiceProcess(redis_url, "--grace", "0", "--tls-cert", str(pki.cert), "--tls-key", str(pki.key))
    yield svc
    svc.stop()


def _wait_done(matches: MatchStore, mid: str, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while matches.status(mid) != "done":
        assert time.monotonic() < deadline, f"{mid} not done: {matches.info(mid)}"
        time.sleep(0.05)


def _health(address: str, credentials: grpc.ChannelCredentials | None) -> grpc.StatusCode:
    """The status of one health check (``OK`` when it answered SERVING)."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    options = [("grpc.use_local_subchannel_pool", 1)]  # a connection (and handshake) of its own
    channel = (
        grpc.secure_channel(address, credentials, options) if credentials else grpc.insecure_channel(address, options)
    )
    try:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        return grpc.StatusCode.OK
    except grpc.RpcError as exc:
        code: grpc.StatusCode = exc.code()  # type: ignore[attr-defined]
        return code
    finally:
        channel.close()


def _run_sdk(address: str, token: str, timeout: float = 30.0, **tls: object) -> None:
    """``run_async`` until it ends by itself (it must, within ``timeout``)."""

    async def main() -> None:
        await asyncio.wait_for(run_async(RandomBot(seed=1), address, token, **tls), timeout)  # type: ignore[arg-type]

    asyncio.run(main())


def _bot_run_ends(service: ServiceProcess, token: str, *flags: str) -> str:
    """``cardarena bot run`` with ``flags`` ends by itself with exit status 1 and no traceback;
    returns its last line."""
    done = subprocess.run(
        [*BOT_RUN, "random", "--server", service.address, "--token", token, *flags],
        env=service.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr.strip().splitlines()[-1]


def _sdk_plays(matches: MatchStore, match_id: str, address: str, token: str, **tls: object) -> None:
    """``run_async(**tls)`` in this process until the match ``match_id`` is done (it must not
    end before)."""

    async def play() -> None:
        stop = asyncio.Event()
        run = asyncio.create_task(run_async(RandomBot(seed=2), address, token, stop=stop, **tls))  # type: ignore[arg-type]
        deadline = time.monotonic() + 90
        while await asyncio.to_thread(matches.status, match_id) != "done":
            assert not run.done(), run.exception()
            assert time.monotonic() < deadline, matches.info(match_id)
            await asyncio.sleep(0.1)
        stop.set()
        await run

    asyncio.run(play())


def test_sdk_bots_over_tls_play_a_whole_match_and_it_is_recorded(
    tls_service: ServiceProcess, pki: Pki, stores: tuple[MatchStore, BotStore], caplog: pytest.LogCaptureFixture
) -> None:
    """One bot through the SDK's API (``run_async(ca_cert=...)``, in this process), one through
    ``cardarena bot run --ca-cert`` (its own process)."""
    matches, bots = stores
    caplog.set_level(logging.INFO, logger="cardarena_sdk")
    cli = tls_service.bot_process("random", "tls-cli", bots.register("tls-cli"), "--ca-cert", str(pki.ca))
    token = bots.register("tls-sdk")
    spec = MatchSpec("tls", "glaves", 2, ("tls-sdk", "tls-cli"), seed=7, time_control=TimeControl(5000, 0))
    matches.enqueue(spec)

    try:
        _sdk_plays(matches, "tls", tls_service.address, token, ca_cert=pki.ca)
        assert cli.poll() is None  # still connected, over TLS
    finally:
        stop_process(cli)
    result, replay = matches.result("tls"), matches.replay("tls")
    assert result is not None and result["strikes"] == [0, 0]
    assert replay is not None
    rerun(replay)
    assert f"connected to {tls_service.address} as tls-sdk" in caplog.text


def test_a_plaintext_client_cannot_use_the_tls_port(
    tls_service: ServiceProcess, pki: Pki, stores: tuple[MatchStore, BotStore], caplog: pytest.LogCaptureFixture
) -> None:
    """The port serves TLS only: a plaintext connection is closed before HTTP/2 starts
    (``UNAVAILABLE``, "Socket closed"); the SDK finds that the port completes a TLS handshake
    and stops, saying to connect with --tls (before, it retried for ever with a warning); the
    port goes on serving TLS clients."""
    _, bots = stores
    token = bots.register("plain")
    raw = ScriptedBot(tls_service.address, token, "plain")
    try:
        assert raw.status() == grpc.StatusCode.UNAVAILABLE
        assert raw.error is not None and "Socket closed" in (raw.error.details() or "")  # type: ignore[attr-defined]
    finally:
        raw.close()
    assert _health(tls_service.address, None) == grpc.StatusCode.UNAVAILABLE

    caplog.set_level(logging.INFO, logger="cardarena_sdk")
    with pytest.raises(SessionEnded) as info:
        _run_sdk(tls_service.address, token)
    assert str(info.value).startswith(
        f"{tls_service.address}: the service serves TLS on this port: connect with --tls (add --ca-cert FILE"
    )
    assert "connected to" not in caplog.text and "retrying in" not in caplog.text
    last = _bot_run_ends(tls_service, token)  # the same, through the CLI: one line
    assert last.startswith(f"cardarena: error: {tls_service.address}: the service serves TLS on this port")

    assert _health(tls_service.address, pki.trusted()) == grpc.StatusCode.OK
    served = ScriptedBot(tls_service.address, token, "plain", credentials=pki.trusted())
    try:
        assert served.expect("welcome").bot == "plain"
    finally:
        served.close()


def test_a_client_trusting_another_ca_is_told_and_stops(
    tls_service: ServiceProcess, pki: Pki, stores: tuple[MatchStore, BotStore]
) -> None:
    _, bots = stores
    token = bots.register("wary")
    with pytest.raises(SessionEnded) as info:
        _run_sdk(tls_service.address, token, ca_cert=str(pki.other_ca))
    assert "TLS handshake failed: the server's certificate is not trusted" in str(info.value)
    assert "--ca-cert" in str(info.value)

    # The system's roots do not know the throwaway CA either: the same, through the CLI.
    last = _bot_run_ends(tls_service, token, "--tls")
    assert last.startswith(f"cardarena: error: {tls_service.address}: TLS handshake failed: ")
    assert "not trusted" in last


def test_a_tls_client_of_a_plaintext_port_is_told_and_stops(
    redis_url: str, key_prefix: str, pki: Pki, stores: tuple[MatchStore, BotStore]
) -> None:
    _, bots = stores
    plain = ServiceProcess(redis_url, "--grace", "0")
    try:
        with pytest.raises(SessionEnded) as info:
            _run_sdk(plain.address, bots.register("eager"), ca_cert=pki.ca)
        assert "the server does not speak TLS on this port" in str(info.value)
    finally:
        plain.stop()


NOT_TLS = "TLS handshake failed: the server does not speak TLS on this port (connect without --tls, or check the port)"


def test_bot_run_tls_at_a_plaintext_port_prints_only_its_own_line(
    redis_url: str, key_prefix: str, stores: tuple[MatchStore, BotStore]
) -> None:
    """Regression: before ``cardarena: error: ...`` the bot printed a line of gRPC's C core
    (``I1122 07:52:07.388417 17041 ssl_transport_security.cc:2563] Handshake failed with error
    SSL_ERROR_SSL ...``).  The command-line entry points now keep the C core to its errors, so
    the output is exactly our line; ``GRPC_VERBOSITY`` or ``GRPC_TRACE`` set by the user still
    show what gRPC logs."""
    _, bots = stores
    plain = ServiceProcess(redis_url, "--grace", "0")
    unset = {k: v for k, v in plain.env.items() if k not in ("GRPC_VERBOSITY", "GRPC_TRACE")}
    env = {**unset, "CARDARENA_TOKEN": bots.register("eager")}

    def bot_run(entry: str, **extra: str) -> str:
        argv = [sys.executable, "-m", entry, "bot", "run", "random", "--server", plain.address, "--tls"]
        done = subprocess.run(argv, env={**env, **extra}, capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and done.stdout == "", done.stderr
        return done.stderr

    try:
        for entry in ("cardarena.cli", "cardarena.server"):
            said = bot_run(entry)
            assert said.startswith(f"cardarena: error: {plain.address}: {NOT_TLS} (UNAVAILABLE: ")
            assert said.count("\n") == 1 and said.endswith("\n"), said
        assert "] Handshake failed" in bot_run("cardarena.cli", GRPC_VERBOSITY="INFO")
        assert "] Handshake failed" in bot_run("cardarena.cli", GRPC_TRACE="handshaker")
    finally:
        plain.stop()


def test_the_admin_api_over_tls(
    redis_url: str, key_prefix: str, pki: Pki, stores: tuple[MatchStore, BotStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARDARENA_ADMIN_TOKEN", "admin-over-tls")
    svc = ServiceProcess(redis_url, "--tls-cert", str(pki.cert), "--tls-key", str(pki.key))
    channel = grpc.secure_channel(svc.address, pki.trusted())
    try:
        stub = codec.arena_pb2_grpc.AdminStub(channel)
        auth = (("authorization", "Bearer admin-over-tls"),)
        reply = stub.RegisterBot(pb.RegisterBotRequest(name="via-tls"), metadata=auth, timeout=10)
        assert reply.name == "via-tls"
        assert stores[1].authenticate(reply.token) == "via-tls"
    finally:
        channel.close()
        svc.stop()


@pytest.mark.parametrize(
    "given, message",
    [
        (["--tls-cert", "{cert}"], "--tls-cert needs --tls-key as well (both or neither)"),
        (["--tls-key", "{key}"], "--tls-key needs --tls-cert as well (both or neither)"),
        (["--tls-cert", "{missing}", "--tls-key", "{key}"], "--tls-cert {missing}: No such file or directory"),
        (["--tls-cert", "{cert}", "--tls-key", "{dir}"], "--tls-key {dir}: Is a directory"),
        (["--tls-cert", "{ca}", "--tls-key", "{key}"], "--tls-cert {ca} / --tls-key {key}: the key does not match"),
        (["--tls-cert", "{key}", "--tls-key", "{key}"], "--tls-cert {key}: no PEM certificate in it"),
        (["--tls-cert", "{cert}", "--tls-key", "{cert}"], "--tls-key {cert}: no PEM private key in it"),
        (["--tls-client-ca", "{ca}"], "--tls-client-ca needs --tls-cert and --tls-key"),
        (
            ["--tls-cert", "{cert}", "--tls-key", "{key}", "--tls-client-ca", "{missing}"],
            "--tls-client-ca {missing}: No such file or directory",
        ),
        (
            ["--tls-cert", "{cert}", "--tls-key", "{key}", "--tls-client-ca", "{key}"],
            "--tls-client-ca {key}: no PEM certificate in it",
        ),
    ],
)
def test_service_refuses_unusable_tls_options_with_one_line(pki: Pki, given: list[str], message: str) -> None:
    """Checked before Redis or the port: a one-line error, exit status 2, nothing started."""
    names = {"cert": pki.cert, "key": pki.key, "ca": pki.ca, "missing": pki.cert.with_name("nope.pem")}
    names["dir"] = pki.cert.parent
    argv = [arg.format(**names) for arg in given]
    env = {**os.environ, "REDIS_URL": "redis://127.0.0.1:1/0"}  # never reached
    done = subprocess.run([*SERVICE, *argv], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"cardarena: error: {message.format(**names)}"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_bot_run_refuses_an_unusable_ca_file(pki: Pki) -> None:
    for path, why in (
        (pki.cert.with_name("nope.pem"), "No such file or directory"),
        (pki.key, "no PEM certificate in it"),
    ):
        done = subprocess.run(
            [*BOT_RUN, "random", "--token", "t", "--ca-cert", str(path)], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2
        assert done.stderr == f"cardarena: error: --ca-cert {path}: {why}\n"


def test_a_bot_reconnects_over_tls_when_the_service_restarts(
    redis_url: str, key_prefix: str, pki: Pki, stores: tuple[MatchStore, BotStore]
) -> None:
    """The reconnects use the same credentials: the bot plays on the TLS service that comes back
    on the same address."""
    matches, bots = stores
    tls = ["--grace", "0", "--tls-cert", str(pki.cert), "--tls-key", str(pki.key)]
    first = ServiceProcess(redis_url, *tls)
    argv = [*BOT_RUN, "random", "--server", first.address, "--ca-cert", str(pki.ca)]
    env = {**first.env, "CARDARENA_TOKEN": bots.register("steady")}
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    second: ServiceProcess | None = None
    other: ScriptedBot | None = None
    try:
        assert proc.stderr is not None
        seen = ""
        while "connected to" not in seen:
            line = proc.stderr.readline()
            assert line, seen
            seen += line
        first.stop()
        second = ServiceProcess(redis_url, "--port", str(first.port), *tls)
        other = ScriptedBot(second.address, bots.register("partner"), "partner", credentials=pki.trusted())
        other.autoplay()
        matches.enqueue(
            MatchSpec("again", "glaves", 2, ("steady", "partner"), seed=5, time_control=TimeControl(5000, 0))
        )
        _wait_done(matches, "again")
        assert proc.poll() is None
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
        if other is not None:
            other.close()
        if second is not None:
            second.stop()
        first.stop()
    assert err.count("connected to") >= 1, err  # the second connect, after the restart
    assert "TLS handshake failed" not in seen + err


def _refused_after_a_welcome(
    redis_url: str,
    first: ServiceProcess,
    again: list[str],
    token: str,
    caplog: pytest.LogCaptureFixture,
    refusal: str,
    **tls: object,
) -> None:
    """An SDK bot (``run_async(**tls)``) is welcomed by ``first``, which is then replaced on the
    same port by a service with the options ``again``: the bot must not end, and must log
    ``refusal`` as an ERROR on (at least) two retries."""
    second: ServiceProcess | None = None
    caplog.set_level(logging.INFO, logger="cardarena_sdk")

    def logged(text: str, level: int = logging.INFO) -> int:
        return sum(text in r.getMessage() and r.levelno >= level for r in list(caplog.records))

    async def main() -> None:
        nonlocal second
        stop = asyncio.Event()
        run = asyncio.create_task(run_async(RandomBot(), first.address, token, stop=stop, **tls))  # type: ignore[arg-type]
        deadline = time.monotonic() + 60
        while not logged("connected to"):
            assert time.monotonic() < deadline and not run.done(), caplog.text
            await asyncio.sleep(0.05)
        await asyncio.to_thread(first.stop)
        second = await asyncio.to_thread(ServiceProcess, redis_url, "--port", str(first.port), *again)
        while logged(refusal, logging.ERROR) < 2:
            assert time.monotonic() < deadline and not run.done(), caplog.text
            await asyncio.sleep(0.05)
        stop.set()
        await run

    try:
        asyncio.run(main())
    finally:
        first.stop()
        if second is not None:
            second.stop()
    assert logged(f"TLS handshake failed: {refusal}", logging.ERROR) >= 2
    assert "retrying in" in caplog.text


def test_a_certificate_changed_under_a_connected_bot_is_logged_as_an_error_and_retried(
    redis_url: str,
    key_prefix: str,
    pki: Pki,
    tmp_path: Path,
    stores: tuple[MatchStore, BotStore],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """After a welcome, a failed handshake (the service came back with a certificate of another
    CA) does not end the bot: it may be a redeployment being fixed.  It is logged as an ERROR
    naming the cause on every retry."""
    _, bots = stores
    first = ServiceProcess(redis_url, "--grace", "0", "--tls-cert", str(pki.cert), "--tls-key", str(pki.key))
    foreign = trustme.CA().issue_cert("localhost", "127.0.0.1")
    cert, key = tmp_path / "foreign-cert.pem", tmp_path / "foreign-key.pem"
    foreign.cert_chain_pems[0].write_to_path(str(cert))
    foreign.private_key_pem.write_to_path(str(key))
    again = ["--tls-cert", str(cert), "--tls-key", str(key)]
    refusal = "the server's certificate is not trusted"
    _refused_after_a_welcome(redis_url, first, again, bots.register("loyal"), caplog, refusal, ca_cert=pki.ca)


# ---------------------------------------------------------------- certificate reload
def _replace(path: Path, data: bytes) -> None:
    """Replace ``path`` as a rotation should: write a file beside it, rename it into place."""
    fresh = path.with_name(path.name + ".new")
    fresh.write_bytes(data)
    os.replace(fresh, path)


def _issue(ca: trustme.CA) -> tuple[bytes, bytes]:
    """A certificate chain and key for ``localhost``/``127.0.0.1`` signed by ``ca``."""
    issued = ca.issue_cert("localhost", "127.0.0.1")
    return issued.cert_chain_pems[0].bytes(), issued.private_key_pem.bytes()


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def tls_log(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> pytest.LogCaptureFixture:
    """The watch's log lines (``cardarena`` logs are not propagated in a service process)."""
    monkeypatch.setattr(logging.getLogger("cardarena"), "propagate", True)
    caplog.set_level(logging.INFO, logger="cardarena.server.tls")
    return caplog


def _events(caplog: pytest.LogCaptureFixture, event: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == event]


def test_the_certificate_watch_reads_the_files_only_when_they_change(
    pki: Pki, tls_log: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gRPC asks before every handshake; the files' metadata is looked at once a second at most
    and they are read only when it changed.  A new pair is served from the next check on."""
    from cardarena import pem
    from cardarena.server.tls import CertificateWatch, load_server_tls

    reads: list[str] = []
    real_read = pem._read

    def counted(name: str, path: pem.Pathish) -> bytes:
        reads.append(name)
        return real_read(name, path)

    monkeypatch.setattr(pem, "_read", counted)
    tls = load_server_tls(str(pki.cert), str(pki.key))
    assert tls is not None
    clock = _Clock()
    watch = CertificateWatch(tls, 1.0, clock)
    reads.clear()
    assert [watch.fetch() for _ in range(100)] == [None] * 100  # within the first second: nothing looked at
    assert reads == []
    clock.now += 1.0
    assert watch.fetch() is None  # the first check reads them once: the same files
    assert reads and watch.serving == tls
    reads.clear()
    for _ in range(5):
        clock.now += 1.0
        assert watch.fetch() is None
    assert reads == []  # unchanged: not read again

    chain, key = _issue(trustme.CA())
    _replace(pki.key, key)
    _replace(pki.cert, chain)
    assert watch.fetch() is None  # not yet a second since the last check
    clock.now += 1.0
    assert watch.fetch() is not None  # a ServerCertificateConfiguration for gRPC
    assert watch.serving.pair.cert_chain == chain and watch.serving.pair.private_key == key
    (reloaded,) = _events(tls_log, "tls_reloaded")
    assert reloaded.fields["cert"] == str(pki.cert)  # type: ignore[attr-defined]
    clock.now += 1.0
    assert watch.fetch() is None
    os.utime(pki.cert)  # touched, same contents: read, nothing new to serve
    clock.now += 1.0
    assert watch.fetch() is None
    assert len(_events(tls_log, "tls_reloaded")) == 1


def test_a_broken_replacement_keeps_the_last_good_pair_and_is_warned_about_once(
    pki: Pki, tls_log: pytest.LogCaptureFixture
) -> None:
    """A key that does not match, or a certificate written halfway, is never served.  A version
    of the files that is still broken one check later is warned about once (a rotation caught
    between its two renames is not)."""
    from cardarena.server.tls import CertificateWatch, load_server_tls

    tls = load_server_tls(str(pki.cert), str(pki.key))
    assert tls is not None
    clock = _Clock()
    watch = CertificateWatch(tls, 1.0, clock)

    def check() -> object:
        clock.now += 1.0
        return watch.fetch()

    good_chain, good_key = _issue(trustme.CA())
    _replace(pki.cert, good_chain)  # the key is renamed into place a moment later
    assert check() is None
    _replace(pki.key, good_key)
    assert check() is not None
    assert _events(tls_log, "tls_files_refused") == []

    _, stray_key = _issue(trustme.CA())
    _replace(pki.key, stray_key)  # does not match the certificate
    assert [check() for _ in range(5)] == [None] * 5
    (refused,) = _events(tls_log, "tls_files_refused")
    assert refused.levelno == logging.WARNING
    assert "the key does not match the certificate" in refused.fields["reason"]  # type: ignore[attr-defined]
    assert watch.serving.pair.private_key == good_key

    pki.cert.write_bytes(good_chain[: len(good_chain) // 2])  # written in place, halfway
    assert [check() for _ in range(3)] == [None] * 3
    assert len(_events(tls_log, "tls_files_refused")) == 2  # another version: one more warning
    assert watch.serving.pair.cert_chain == good_chain

    pki.cert.unlink()
    assert [check() for _ in range(3)] == [None] * 3
    assert "No such file or directory" in _events(tls_log, "tls_files_refused")[-1].fields["reason"]  # type: ignore[attr-defined]

    chain, key = _issue(trustme.CA())
    _replace(pki.key, key)
    _replace(pki.cert, chain)
    assert check() is not None
    assert watch.serving.pair.cert_chain == chain
    assert len(_events(tls_log, "tls_reloaded")) == 2


def _log_events(path: Path, event: str) -> list[dict[str, object]]:
    """The service's JSON log lines of ``event``."""
    import json

    lines = path.read_text().splitlines() if path.exists() else []
    found = []
    for line in lines:
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            if isinstance(record, dict) and record.get("event") == event:
                found.append(record)
    return found


def _until(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_a_rotated_certificate_is_served_to_new_connections_and_live_sessions_go_on(
    redis_url: str, key_prefix: str, pki: Pki, tmp_path: Path, stores: tuple[MatchStore, BotStore]
) -> None:
    """The files are replaced (renamed into place) under a running service: a client that
    trusts only the new CA connects, the session opened before plays on; a broken replacement
    after that keeps the last good pair (warned about once)."""
    matches, bots = stores
    log = tmp_path / "service.log"
    svc = ServiceProcess(redis_url, "--grace", "0", "--tls-cert", str(pki.cert), "--tls-key", str(pki.key), log=log)
    early: ScriptedBot | None = None
    late: ScriptedBot | None = None
    try:
        early = ScriptedBot(svc.address, bots.register("early"), "early", credentials=pki.trusted())
        assert early.expect("welcome").bot == "early"
        early.autoplay()

        new_ca = trustme.CA()
        chain, key = _issue(new_ca)
        _replace(pki.key, key)
        _replace(pki.cert, chain)
        renewed = new_ca.cert_pem.bytes()
        _until(
            lambda: _health(svc.address, grpc.ssl_channel_credentials(renewed)) == grpc.StatusCode.OK, log.read_text()
        )
        assert _health(svc.address, pki.trusted()) == grpc.StatusCode.UNAVAILABLE  # new connections: the new pair
        (reloaded,) = _log_events(log, "tls_reloaded")
        assert reloaded["level"] == "info" and reloaded["cert"] == str(pki.cert)

        late = ScriptedBot(
            svc.address, bots.register("late"), "late", credentials=grpc.ssl_channel_credentials(renewed)
        )
        late.autoplay()
        spec = MatchSpec("rotated", "glaves", 2, ("early", "late"), seed=3, time_control=TimeControl(5000, 0))
        matches.enqueue(spec)
        _wait_done(matches, "rotated")
        result = matches.result("rotated")
        assert result is not None and result["strikes"] == [0, 0]
        assert early.error is None  # the session from before the rotation played on, never dropped

        _, stray_key = _issue(trustme.CA())
        _replace(pki.key, stray_key)  # does not match the certificate: never served
        _until(
            lambda: (
                _health(svc.address, grpc.ssl_channel_credentials(renewed)) == grpc.StatusCode.OK
                and bool(_log_events(log, "tls_files_refused"))
            ),
            log.read_text(),
        )
        for _ in range(3):  # new clients trusting the current CA go on connecting
            assert _health(svc.address, grpc.ssl_channel_credentials(renewed)) == grpc.StatusCode.OK
        (refused,) = _log_events(log, "tls_files_refused")
        assert refused["level"] == "warning"
        assert "the key does not match the certificate" in str(refused["reason"])
        assert len(_log_events(log, "tls_reloaded")) == 1
    finally:
        for bot in (early, late):
            if bot is not None:
                bot.close()
        svc.stop()


# ---------------------------------------------------------------- mutual TLS
@dataclass
class ClientPki:
    """The CA the service trusts for client certificates, a client certificate it signed, and a
    client certificate another CA signed."""

    ca: Path
    cert: Path
    key: Path
    stray_cert: Path
    stray_key: Path

    def credentials(self, server_ca: Path, *, stray: bool = False) -> grpc.ChannelCredentials:
        cert, key = (self.stray_cert, self.stray_key) if stray else (self.cert, self.key)
        return grpc.ssl_channel_credentials(server_ca.read_bytes(), key.read_bytes(), cert.read_bytes())


@pytest.fixture
def clients(tmp_path: Path) -> ClientPki:
    ca, stray_ca = trustme.CA(), trustme.CA()
    files = ClientPki(*(tmp_path / n for n in ("client-ca.pem", "bot.crt", "bot.key", "stray.crt", "stray.key")))
    ca.cert_pem.write_to_path(str(files.ca))
    for issuer, cert, key in ((ca, files.cert, files.key), (stray_ca, files.stray_cert, files.stray_key)):
        issued = issuer.issue_cert("bot@cardarena.test")
        issued.cert_chain_pems[0].write_to_path(str(cert))
        issued.private_key_pem.write_to_path(str(key))
    return files


@pytest.fixture
def mtls_service(redis_url: str, key_prefix: str, pki: Pki, clients: ClientPki) -> Iterator[ServiceProcess]:
    tls = ["--tls-cert", str(pki.cert), "--tls-key", str(pki.key), "--tls-client-ca", str(clients.ca)]
    svc = ServiceProcess(redis_url, "--grace", "0", *tls)
    yield svc
    svc.stop()


def test_bots_with_client_certificates_play_on_a_mutual_tls_port(
    mtls_service: ServiceProcess, pki: Pki, clients: ClientPki, stores: tuple[MatchStore, BotStore]
) -> None:
    """One bot through ``cardarena bot run --client-cert --client-key`` (its own process), one
    through ``run_async(client_cert=, client_key=)``; the token is still checked."""
    matches, bots = stores
    pair = ("--client-cert", str(clients.cert), "--client-key", str(clients.key))
    cli = mtls_service.bot_process("random", "mtls-cli", bots.register("mtls-cli"), "--ca-cert", str(pki.ca), *pair)
    token = bots.register("mtls-sdk")
    matches.enqueue(MatchSpec("mtls", "glaves", 2, ("mtls-sdk", "mtls-cli"), seed=8, time_control=TimeControl(5000, 0)))

    try:
        tls = {"ca_cert": pki.ca, "client_cert": clients.cert, "client_key": clients.key}
        _sdk_plays(matches, "mtls", mtls_service.address, token, **tls)
        assert cli.poll() is None
    finally:
        stop_process(cli)
    result = matches.result("mtls")
    assert result is not None and result["strikes"] == [0, 0]

    # mutual TLS is a gate in front of the token, not instead of it
    wrong = ScriptedBot(
        mtls_service.address, "0123456789abcdef.wrong", "mtls-sdk", credentials=clients.credentials(pki.ca)
    )
    try:
        assert wrong.status() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        wrong.close()


def test_a_bot_without_a_client_certificate_is_told_and_stops(
    mtls_service: ServiceProcess, pki: Pki, stores: tuple[MatchStore, BotStore]
) -> None:
    """Refused in the handshake (the server closes the connection, gRPC says "Socket closed"):
    the SDK and ``bot run`` say a client certificate is required and stop, as for any failed
    handshake before a welcome."""
    _, bots = stores
    token = bots.register("bare")
    assert _health(mtls_service.address, pki.trusted()) == grpc.StatusCode.UNAVAILABLE
    with pytest.raises(SessionEnded) as info:
        _run_sdk(mtls_service.address, token, ca_cert=pki.ca)
    assert "TLS handshake failed: the server requires a client certificate" in str(info.value)
    assert "--client-cert FILE --client-key FILE" in str(info.value)

    last = _bot_run_ends(mtls_service, token, "--ca-cert", str(pki.ca))
    assert last.startswith(
        f"cardarena: error: {mtls_service.address}: TLS handshake failed: the server requires a client certificate"
    )


def test_a_bot_whose_client_certificate_another_ca_signed_is_told_and_stops(
    mtls_service: ServiceProcess, pki: Pki, clients: ClientPki, stores: tuple[MatchStore, BotStore]
) -> None:
    _, bots = stores
    token = bots.register("stray")
    assert _health(mtls_service.address, clients.credentials(pki.ca, stray=True)) == grpc.StatusCode.UNAVAILABLE
    assert _health(mtls_service.address, clients.credentials(pki.ca)) == grpc.StatusCode.OK
    with pytest.raises(SessionEnded) as info:
        _run_sdk(
            mtls_service.address, token, ca_cert=pki.ca, client_cert=clients.stray_cert, client_key=clients.stray_key
        )
    assert "TLS handshake failed: the server did not accept the client certificate" in str(info.value)


def test_a_client_certificate_refused_after_a_welcome_is_logged_as_an_error_and_retried(
    redis_url: str,
    key_prefix: str,
    pki: Pki,
    clients: ClientPki,
    stores: tuple[MatchStore, BotStore],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The service comes back trusting another client CA: the bot that was welcomed before does
    not end, it logs the refusal as an ERROR on every retry."""
    _, bots = stores
    tls = ["--grace", "0", "--tls-cert", str(pki.cert), "--tls-key", str(pki.key)]
    first = ServiceProcess(redis_url, *tls, "--tls-client-ca", str(clients.ca))
    _refused_after_a_welcome(
        redis_url,
        first,
        [*tls, "--tls-client-ca", str(pki.other_ca)],
        bots.register("trusted-once"),
        caplog,
        "the server did not accept the client certificate",
        ca_cert=pki.ca,
        client_cert=clients.cert,
        client_key=clients.key,
    )


def test_a_client_certificate_rotated_on_disk_is_presented_at_the_next_reconnect(
    redis_url: str,
    key_prefix: str,
    pki: Pki,
    clients: ClientPki,
    tmp_path: Path,
    stores: tuple[MatchStore, BotStore],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The SDK reads its certificate files for each connection attempt.  A bot welcomed with
    certificate A has its files replaced by B (of another CA), the certificate first: while the
    key does not match it, each attempt is logged as an ERROR and backed off from, and the bot
    goes on.  Once the key is in place too, the service that came back trusting only B's CA
    welcomes it: it presented B (before, it kept presenting A until restarted)."""
    _, bots = stores
    cert, key = tmp_path / "rotated.crt", tmp_path / "rotated.key"
    _replace(cert, clients.cert.read_bytes())
    _replace(key, clients.key.read_bytes())
    ca_b = trustme.CA()
    ca_b_file = tmp_path / "client-ca-b.pem"
    ca_b.cert_pem.write_to_path(str(ca_b_file))
    issued_b = ca_b.issue_cert("bot@cardarena.test")
    tls = ["--grace", "0", "--tls-cert", str(pki.cert), "--tls-key", str(pki.key)]
    first = ServiceProcess(redis_url, *tls, "--tls-client-ca", str(clients.ca))
    second: ServiceProcess | None = None
    token = bots.register("rotating")
    caplog.set_level(logging.INFO, logger="cardarena_sdk")

    def logged(text: str, level: int = logging.INFO) -> list[str]:
        return [r.getMessage() for r in list(caplog.records) if text in r.getMessage() and r.levelno >= level]

    async def main() -> None:
        nonlocal second
        stop = asyncio.Event()
        pair = {"ca_cert": pki.ca, "client_cert": cert, "client_key": key}
        run = asyncio.create_task(run_async(RandomBot(), first.address, token, stop=stop, **pair))  # type: ignore[arg-type]
        deadline = time.monotonic() + 60

        async def until(done: Callable[[], bool]) -> None:
            while not done():
                assert time.monotonic() < deadline and not run.done(), caplog.text
                await asyncio.sleep(0.05)

        await until(lambda: len(logged("connected to")) == 1)
        _replace(cert, issued_b.cert_chain_pems[0].bytes())  # the rotation, half done
        await asyncio.to_thread(first.stop)
        second = await asyncio.to_thread(
            ServiceProcess, redis_url, "--port", str(first.port), *tls, "--tls-client-ca", str(ca_b_file)
        )
        await until(lambda: len(logged("a TLS file cannot be used", logging.ERROR)) >= 3)
        _replace(key, issued_b.private_key_pem.bytes())  # ... and done
        await until(lambda: len(logged("connected to")) == 2)
        stop.set()
        await run

    try:
        asyncio.run(main())
    finally:
        first.stop()
        if second is not None:
            second.stop()
    broken = logged("a TLS file cannot be used", logging.ERROR)
    assert all("the key does not match the certificate" in line for line in broken), broken
    # Backed off, not spinning: each wait at least half the doubled delay (0.05 s doubled per attempt).
    waits = [float(re.search(r"retrying in ([0-9.]+) s", line).group(1)) for line in broken]  # type: ignore[union-attr]
    assert all(wait >= 0.025 * 2**n for n, wait in enumerate(waits)), waits
    assert not logged("did not accept the client certificate"), caplog.text  # certificate A was never presented again


@pytest.mark.parametrize(
    "given, message",
    [
        (["--client-cert", "{cert}"], "--client-cert needs --client-key as well (both or neither)"),
        (["--client-key", "{key}"], "--client-key needs --client-cert as well (both or neither)"),
        (["--client-cert", "{missing}", "--client-key", "{key}"], "--client-cert {missing}: No such file or directory"),
        (
            ["--client-cert", "{cert}", "--client-key", "{stray_key}"],
            "--client-cert {cert} / --client-key {stray_key}: the key does not match",
        ),
        (["--client-cert", "{key}", "--client-key", "{key}"], "--client-cert {key}: no PEM certificate in it"),
    ],
)
def test_bot_run_refuses_unusable_client_certificate_options_with_one_line(
    clients: ClientPki, given: list[str], message: str
) -> None:
    names = {"cert": clients.cert, "key": clients.key, "stray_key": clients.stray_key}
    names["missing"] = clients.cert.with_name("nope.pem")
    argv = [arg.format(**names) for arg in given]
    done = subprocess.run([*BOT_RUN, "random", "--token", "t", *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith(f"cardarena: error: {message.format(**names)}"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_sdk_checks_the_client_certificate_files_before_connecting(clients: ClientPki) -> None:
    """``ValueError`` naming the parameter and the file, before any connection is tried."""
    for kwargs, message in (
        ({"client_cert": clients.cert}, "client_cert needs client_key as well (both or neither)"),
        ({"client_key": clients.key}, "client_key needs client_cert as well (both or neither)"),
        (
            {"client_cert": clients.cert, "client_key": clients.stray_key},
            f"client_cert {clients.cert} / client_key {clients.stray_key}: the key does not match the certificate",
        ),
    ):
        with pytest.raises(ValueError) as info:
            _run_sdk("127.0.0.1:1", "t", **kwargs)
        assert str(info.value) == message


# ---------------------------------------------------------------- cardarena service health
def _service_health(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``cardarena service health ARGV`` in this process: its exit status, stdout and stderr."""
    from cardarena.cli import main

    code = main(["service", "health", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_service_health_over_mutual_tls_sees_serving_standing_by_and_stopped(
    redis_url: str, key_prefix: str, pki: Pki, clients: ClientPki, capsys: pytest.CaptureFixture[str]
) -> None:
    """Kubernetes' gRPC probe speaks no TLS, and the ``tcpSocket`` probe the manifest used for a
    TLS port instead cannot see ``NOT_SERVING``: an instance standing by because another process
    holds its ``--instance-name`` stayed ready.  ``cardarena service health`` asks the health
    service over the bots' TLS options (mutual TLS here): exit 0 on ``SERVING``; 1 on
    ``NOT_SERVING`` (standing by) and when nothing answers (stopped, or a handshake refused),
    each one line that says which."""
    import signal

    from cardarena.store.connection import client_for
    from cardarena.store.presence import PresenceStore

    client = client_for(redis_url)
    tls = ["--tls-cert", str(pki.cert), "--tls-key", str(pki.key), "--tls-client-ca", str(clients.ca)]
    probe = ["--ca-cert", str(pki.ca), "--client-cert", str(clients.cert), "--client-key", str(clients.key)]
    first = ServiceProcess(redis_url, "--instance-name", "twin", "--grace", "0", *tls)
    second: ServiceProcess | None = None
    at = ["--server", first.address, *probe]
    try:
        assert _service_health(capsys, *at) == (0, f"{first.address}: SERVING\n", "")
        done = subprocess.run(  # the manifest's command, in a process of its own
            [SERVICE[0], "-m", "cardarena.server", "service", "health", *at, "--timeout", "10"],
            env=first.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, f"{first.address}: SERVING\n", "")
        named = ["--server", first.address, "--server-name", "localhost", *probe]
        assert _service_health(capsys, *named)[0] == 0  # the certificate names localhost too
        code, out, err = _service_health(capsys, *at[:2], "--server-name", "arena.example.org", *probe)
        assert (code, out) == (1, "") and err.startswith(f"cardarena: {first.address}: no answer (UNAVAILABLE")
        code, out, err = _service_health(capsys, "--server", first.address, "--ca-cert", str(pki.ca))
        assert (code, out) == (1, "") and "no answer" in err and len(err.splitlines()) == 1  # no client certificate
        with pytest.raises(SystemExit) as usage:
            _service_health(capsys, "--server", first.address, "--server-name", "localhost")
        assert usage.value.code == 2 and "--server-name names the host" in capsys.readouterr().err

        os.kill(first.proc.pid, signal.SIGSTOP)  # its presence lapses meanwhile; another process takes the name
        try:
            client.delete(PresenceStore(client).INSTANCES)
            second = ServiceProcess(redis_url, "--instance-name", "twin", "--grace", "0", *tls)
        finally:
            os.kill(first.proc.pid, signal.SIGCONT)
        deadline = time.monotonic() + 30
        while (answer := _service_health(capsys, *at))[0] == 0:
            assert time.monotonic() < deadline, "the first process never stood by"
            time.sleep(0.2)
        standing_by = f"{first.address}: NOT_SERVING (standing by, or shutting down: it takes no new bots or matches)\n"
        assert answer == (1, standing_by, "")
        assert _service_health(capsys, "--server", second.address, *probe)[0] == 0

        first.stop()
        code, out, err = _service_health(capsys, *at)
        assert (code, out) == (1, "") and err.startswith(f"cardarena: {first.address}: no answer (UNAVAILABLE")
    finally:
        if second is not None:
            second.stop()
        first.stop()
        client.close()
