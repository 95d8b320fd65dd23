"""Warnings at start about how secrets are kept (``cardarena.secretcheck``): an admin token
shorter than 16 characters, a ``--tls-key`` file its group or other users may read.  Said once
on stderr by ``cardarena service``, ``dashboard`` and ``up`` (real processes), which start all
the same."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trustme
from cardarena.secretcheck import admin_token_warning, key_file_warning, start_warnings

from .server_harness import ServiceProcess
from .test_dashboard_cli import _dashboard
from .test_platform import _env, _listening

SHORT = "hunter2hunter2"  # 14 characters
GOOD = "0123456789abcdef"  # 16


@pytest.fixture
def tls(tmp_path: Path) -> tuple[Path, Path]:
    """A certificate for localhost and its key, the key readable by everyone (mode 0644)."""
    issued = trustme.CA().issue_cert("localhost", "127.0.0.1")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    issued.cert_chain_pems[0].write_to_path(str(cert))
    issued.private_key_pem.write_to_path(str(key))
    key.chmod(0o644)
    return cert, key


def token_line(length: int) -> str:
    return f"cardarena: warning: CARDARENA_ADMIN_TOKEN has {length} characters: a token that short can be guessed"


def key_line(key: Path, mode: str) -> str:
    return f"cardarena: warning: --tls-key {key} is open to users other than its owner (mode {mode}): whoever"


def test_the_checks(tls: tuple[Path, Path]) -> None:
    _, key = tls
    assert admin_token_warning(None) is None and admin_token_warning("") is None  # the admin API is off
    assert str(admin_token_warning("x" * 15)).startswith(token_line(15))
    assert admin_token_warning(GOOD) is None
    assert str(key_file_warning(str(key), "--tls-key")).startswith(key_line(key, "0644"))
    for mode, warned in ((0o600, False), (0o400, False), (0o640, True), (0o620, True), (0o604, True)):
        key.chmod(mode)
        assert (key_file_warning(str(key), "--tls-key") is not None) == warned, oct(mode)
    assert key_file_warning(str(key.with_name("missing.pem")), "--tls-key") is None  # the PEM checks say it
    assert key_file_warning(None, "--tls-key") is None
    key.chmod(0o644)
    assert len(start_warnings(str(key), {"CARDARENA_ADMIN_TOKEN": SHORT})) == 2
    assert start_warnings(None, {}) == []


def test_a_key_someone_else_owns_may_be_shared_with_a_group(
    tls: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a service user is given a key (``root:ssl-cert 0640``, a Kubernetes secret volume with
    an ``fsGroup``): not warned about, unless every user may read it."""
    _, key = tls
    monkeypatch.setattr(os, "getuid", lambda: os.stat(key).st_uid + 1)  # the file is another user's
    key.chmod(0o640)
    assert key_file_warning(str(key), "--tls-key") is None
    key.chmod(0o644)
    warned = str(key_file_warning(str(key), "--tls-key"))
    assert warned.startswith(f"cardarena: warning: --tls-key {key} is open to every user (mode 0644)")
    assert warned.endswith(f"chmod o-rwx {key}")


def _warnings(text: str) -> list[str]:
    return [line for line in text.splitlines() if "warning" in line]


def test_the_service_warns_once_and_serves(
    redis_url: str, key_prefix: str, tls: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = tls
    log = tmp_path / "service.log"
    monkeypatch.setenv("CARDARENA_ADMIN_TOKEN", SHORT)
    service = ServiceProcess(redis_url, "--tls-cert", str(cert), "--tls-key", str(key), log=log)
    service.stop()  # it started: it listened
    said = _warnings(log.read_text())
    assert len(said) == 2 and said[0].startswith(token_line(14)) and said[1].startswith(key_line(key, "0644"))
    assert said[1].endswith(f"chmod 600 {key}")

    key.chmod(0o600)
    monkeypatch.setenv("CARDARENA_ADMIN_TOKEN", GOOD)
    quiet = tmp_path / "quiet.log"
    ServiceProcess(redis_url, "--tls-cert", str(cert), "--tls-key", str(key), log=quiet).stop()
    assert _warnings(quiet.read_text()) == []


def test_the_dashboard_warns_once_and_serves(redis_url: str, key_prefix: str, tls: tuple[Path, Path]) -> None:
    cert, key = tls
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix, "CARDARENA_ADMIN_TOKEN": "s3cret"}
    with _dashboard(env, "--tls-cert", str(cert), "--tls-key", str(key)) as (_, before, _):
        said = _warnings("".join(before))
    assert len(said) == 2 and said[0].startswith(token_line(6)) and said[1].startswith(key_line(key, "0644"))


def test_up_warns_before_it_starts_anything(tmp_path: Path, tls: tuple[Path, Path]) -> None:
    cert, key = tls
    key.chmod(0o640)
    home = tmp_path / "home"
    home.mkdir()
    with _listening() as busy:  # a busy port ends it right after the warnings
        port = str(busy.getsockname()[1])
        argv = [sys.executable, "-m", "cardarena.cli", "up", "--grpc-port", port, "--http-port", "0"]
        argv += ["--tls-cert", str(cert), "--tls-key", str(key)]
        env = {**_env(home), "CARDARENA_ADMIN_TOKEN": "x"}
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 3, done.stderr
    assert lines[0].startswith(token_line(1)) and lines[1].startswith(key_line(key, "0640"))
    assert lines[2].startswith(f"cardarena: error: port {port} (--grpc-port) is already in use")
