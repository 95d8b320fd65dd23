"""TLS on the bot-facing port (``cardarena service --tls-cert --tls-key``) and in the clients
(``cardarena bot run --tls/--ca-cert``, ``run_async(tls=, ca_cert=)``, the admin gRPC API), over
real gRPC on loopback with real Redis.  Each test makes a throwaway CA and a certificate for
``localhost``/``127.0.0.1`` with ``trustme``."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
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

    channel = grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address)
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

    async def play() -> None:
        stop = asyncio.Event()
        run = asyncio.create_task(run_async(RandomBot(seed=2), tls_service.address, token, stop=stop, ca_cert=pki.ca))
        deadline = time.monotonic() + 90
        while await asyncio.to_thread(matches.status, "tls") != "done":
            assert not run.done(), run.exception()
            assert time.monotonic() < deadline, matches.info("tls")
            await asyncio.sleep(0.1)
        stop.set()
        await run

    try:
        asyncio.run(play())
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
    (``UNAVAILABLE``, "Socket closed"); the SDK keeps retrying and says TLS may be why; the port
    goes on serving TLS clients."""
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

    async def retries() -> None:
        stop = asyncio.Event()
        run = asyncio.create_task(run_async(RandomBot(), tls_service.address, token, stop=stop))
        deadline = time.monotonic() + 30
        while sum("retrying in" in r.getMessage() for r in caplog.records) < 2:
            assert not run.done(), run  # not given up: it may be a server restarting
            assert time.monotonic() < deadline, caplog.text
            await asyncio.sleep(0.05)
        stop.set()
        await run

    asyncio.run(retries())
    assert "a service that serves TLS closes plaintext connections like this: connect with --tls" in caplog.text
    assert "connected to" not in caplog.text

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
    done = subprocess.run(
        [*BOT_RUN, "random", "--server", tls_service.address, "--token", token, "--tls"],
        env=tls_service.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
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
    token = bots.register("loyal")
    first = ServiceProcess(redis_url, "--grace", "0", "--tls-cert", str(pki.cert), "--tls-key", str(pki.key))
    foreign = trustme.CA().issue_cert("localhost", "127.0.0.1")
    cert, key = tmp_path / "foreign-cert.pem", tmp_path / "foreign-key.pem"
    foreign.cert_chain_pems[0].write_to_path(str(cert))
    foreign.private_key_pem.write_to_path(str(key))
    second: ServiceProcess | None = None
    caplog.set_level(logging.INFO, logger="cardarena_sdk")

    def logged(text: str, level: int = logging.INFO) -> int:
        return sum(text in r.getMessage() and r.levelno >= level for r in list(caplog.records))

    async def main() -> None:
        nonlocal second
        stop = asyncio.Event()
        run = asyncio.create_task(run_async(RandomBot(), first.address, token, stop=stop, ca_cert=pki.ca))
        deadline = time.monotonic() + 60
        while not logged("connected to"):
            assert time.monotonic() < deadline and not run.done(), caplog.text
            await asyncio.sleep(0.05)
        await asyncio.to_thread(first.stop)
        second = await asyncio.to_thread(
            ServiceProcess, redis_url, "--port", str(first.port), "--tls-cert", str(cert), "--tls-key", str(key)
        )
        while logged("the server's certificate is not trusted", logging.ERROR) < 2:
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
    assert logged("TLS handshake failed: the server's certificate is not trusted", logging.ERROR) >= 2
    assert "retrying in" in caplog.text
