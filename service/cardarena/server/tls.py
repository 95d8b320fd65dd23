"""TLS for the service's gRPC port: the certificate files, read and checked once at start.

``cardarena service --tls-cert FILE --tls-key FILE`` (PEM) makes the port serve TLS only.  The
files are read and checked here, before the service starts (both or neither; readable; a
certificate chain and the unencrypted key that matches it), so a mistake is a one-line error, not
a traceback or a port that fails every handshake.
"""

from __future__ import annotations

import re
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc


class TlsError(ValueError):
    """A TLS option that cannot be used (the message names the option and the file)."""


@dataclass(frozen=True)
class ServerTls:
    """The PEM bytes the port serves TLS with."""

    cert_chain: bytes
    private_key: bytes

    def credentials(self) -> Any:
        """``grpc.ssl_server_credentials`` for ``add_secure_port``."""
        return grpc.ssl_server_credentials([(self.private_key, self.cert_chain)])


def _read(flag: str, path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise TlsError(f"{flag} {path}: {exc.strerror or exc}") from None


def load_server_tls(cert: str | None, key: str | None) -> ServerTls | None:
    """The TLS settings of ``--tls-cert`` and ``--tls-key`` (``None``: no TLS).

    Raises :class:`TlsError` when only one of cert and key is given, a file cannot be read, the
    certificate or key is not PEM, or they do not belong together.
    """
    if not cert and not key:
        return None
    if not cert or not key:
        missing, given = ("--tls-key", "--tls-cert") if cert else ("--tls-cert", "--tls-key")
        raise TlsError(f"{given} needs {missing} as well (both or neither)")
    chain, private_key = _read("--tls-cert", cert), _read("--tls-key", key)
    if b"-----BEGIN CERTIFICATE-----" not in chain:
        raise TlsError(f"--tls-cert {cert}: no PEM certificate in it (-----BEGIN CERTIFICATE-----)")
    if not re.search(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----", private_key):
        raise TlsError(f"--tls-key {key}: no PEM private key in it (-----BEGIN PRIVATE KEY-----)")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key, password=_no_password)
    except _Encrypted:
        raise TlsError(f"--tls-key {key}: the key is encrypted; give the service an unencrypted key") from None
    except ssl.SSLError as exc:
        why = (
            "the key does not match the certificate"
            if exc.reason == "KEY_VALUES_MISMATCH"
            else f"not a valid PEM certificate and key ({exc})"
        )
        raise TlsError(f"--tls-cert {cert} / --tls-key {key}: {why}") from None
    except OSError as exc:
        raise TlsError(f"--tls-cert {cert} / --tls-key {key}: {exc.strerror or exc}") from None
    return ServerTls(cert_chain=chain, private_key=private_key)


class _Encrypted(Exception):
    """The key asked for a password (never prompted for on the terminal)."""


def _no_password() -> str:
    raise _Encrypted
