"""The PEM files of TLS, read and checked: the service's certificate and key, a bot's client
certificate and key, and the CA certificates either side trusts.

Both the service (``cardarena service --tls-cert/--tls-key/--tls-client-ca``) and the bot SDK
(``client_cert``/``client_key``/``ca_cert``, ``cardarena bot run --client-cert ...``) check their
files here before anything connects, so a mistake is one line naming the option and the file
(:class:`PemError`), never a traceback or a handshake that fails later.  No IO but reading the
files; no gRPC.
"""

from __future__ import annotations

import os
import re
import ssl
from dataclasses import dataclass
from pathlib import Path

Pathish = str | os.PathLike[str]


class PemError(ValueError):
    """A PEM file that cannot be used (the message names the option and the file)."""


@dataclass(frozen=True)
class KeyPair:
    """A certificate chain and the unencrypted private key that matches it (PEM bytes)."""

    cert_chain: bytes
    private_key: bytes


def _read(name: str, path: Pathish) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise PemError(f"{name} {os.fspath(path)}: {exc.strerror or exc}") from None


def read_key_pair(cert: Pathish | None, key: Pathish | None, *, names: tuple[str, str]) -> KeyPair | None:
    """The certificate chain at ``cert`` and its private key at ``key`` (``None``: neither given).

    ``names`` are what the messages call the two (``("--tls-cert", "--tls-key")``).  Raises
    :class:`PemError` when only one is given, a file cannot be read, the certificate or key is not
    PEM, the key is encrypted, or they do not belong together.  The bytes returned are the ones
    that were checked (a file replaced while it was being checked is an error too).
    """
    loaded = _load_key_pair(cert, key, names)
    return None if loaded is None else loaded[0]


def server_context(cert: Pathish, key: Pathish, *, names: tuple[str, str]) -> ssl.SSLContext:
    """A TLS server context (``ssl.PROTOCOL_TLS_SERVER``) serving the certificate chain at
    ``cert`` with its key at ``key``, checked as :func:`read_key_pair` checks them (the same
    :class:`PemError`, a missing one included)."""
    loaded = _load_key_pair(cert, key, names)
    if loaded is None:
        raise PemError(f"{names[0]} and {names[1]} are both needed")
    return loaded[1]


def _load_key_pair(
    cert: Pathish | None, key: Pathish | None, names: tuple[str, str]
) -> tuple[KeyPair, ssl.SSLContext] | None:
    """:func:`read_key_pair`'s pair and the server context that loaded it."""
    cert_name, key_name = names
    if not cert and not key:
        return None
    if not cert or not key:
        missing, given = (key_name, cert_name) if cert else (cert_name, key_name)
        raise PemError(f"{given} needs {missing} as well (both or neither)")
    cert_path, key_path = os.fspath(cert), os.fspath(key)
    both = f"{cert_name} {cert_path} / {key_name} {key_path}"
    chain, private_key = _read(cert_name, cert), _read(key_name, key)
    if b"-----BEGIN CERTIFICATE-----" not in chain:
        raise PemError(f"{cert_name} {cert_path}: no PEM certificate in it (-----BEGIN CERTIFICATE-----)")
    if not re.search(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----", private_key):
        raise PemError(f"{key_name} {key_path}: no PEM private key in it (-----BEGIN PRIVATE KEY-----)")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert_path, key_path, password=_no_password)
    except _Encrypted:
        raise PemError(f"{key_name} {key_path}: the key is encrypted; give an unencrypted key") from None
    except ssl.SSLError as exc:
        why = (
            "the key does not match the certificate"
            if exc.reason == "KEY_VALUES_MISMATCH"
            else f"not a valid PEM certificate and key ({exc})"
        )
        raise PemError(f"{both}: {why}") from None
    except OSError as exc:
        raise PemError(f"{both}: {exc.strerror or exc}") from None
    if (_read(cert_name, cert), _read(key_name, key)) != (chain, private_key):
        raise PemError(f"{both}: changed while being read")
    return KeyPair(chain, private_key), context


def read_ca_certificates(path: Pathish, *, name: str) -> bytes:
    """The PEM CA certificates at ``path`` (one or a bundle), checked: :class:`PemError` naming
    ``name`` when the file cannot be read or holds no usable PEM certificate."""
    pem = _read(name, path)
    try:
        if b"-----BEGIN CERTIFICATE-----" not in pem:
            raise ValueError
        ssl.create_default_context(cadata=pem.decode("ascii"))
    except (ssl.SSLError, UnicodeDecodeError, ValueError):
        raise PemError(f"{name} {os.fspath(path)}: no PEM certificate in it") from None
    return pem


class _Encrypted(Exception):
    """The key asked for a password (never prompted for on the terminal)."""


def _no_password() -> str:
    raise _Encrypted
