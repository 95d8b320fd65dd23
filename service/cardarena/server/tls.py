"""TLS for the service's gRPC port: the certificate files, checked at start and watched while the
service runs.

``cardarena service --tls-cert FILE --tls-key FILE`` (PEM) makes the port serve TLS only;
``--tls-client-ca FILE`` adds mutual TLS: the port then also requires a client certificate signed
by that CA (bots still send their token).  The files are read and checked before the service
starts (:func:`load_server_tls`, one-line :class:`~cardarena.pem.PemError`), then watched
(:class:`CertificateWatch`): gRPC asks for the port's certificates before each new TLS handshake,
and a replacement of the files (a renewed certificate) is served from the next handshake on,
while established connections keep theirs.  A replacement that cannot be served (half written,
a key that does not match) leaves the port serving the last good files.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from ..pem import KeyPair, PemError, read_ca_certificates, read_key_pair

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerTls:
    """The port's TLS files (paths) and what they held when they were last read."""

    cert: str
    key: str
    pair: KeyPair
    client_ca: str | None = None
    """``--tls-client-ca``: with it, clients must present a certificate this CA signed."""
    client_ca_pem: bytes | None = None

    @property
    def mutual(self) -> bool:
        """Whether the port requires client certificates."""
        return self.client_ca is not None

    def configuration(self) -> Any:
        """The files as a ``grpc.ssl_server_certificate_configuration``."""
        return grpc.ssl_server_certificate_configuration(
            [(self.pair.private_key, self.pair.cert_chain)], root_certificates=self.client_ca_pem
        )

    def credentials(self, check_every: float = 1.0) -> Any:
        """Server credentials for ``add_secure_port`` that serve the files as they are now and
        take a replacement of them for new connections (checked at most every ``check_every``
        seconds)."""
        watch = CertificateWatch(self, check_every)
        return grpc.dynamic_ssl_server_credentials(
            self.configuration(), watch.fetch, require_client_authentication=self.mutual
        )

    def fields(self) -> dict[str, str]:
        """The files and the served certificate's fingerprint, for log lines."""
        fields = {"cert": self.cert, "key": self.key, "cert_sha256": _fingerprint(self.pair.cert_chain)}
        if self.client_ca is not None:
            fields["client_ca"] = self.client_ca
        return fields


def load_server_tls(cert: str | None, key: str | None, client_ca: str | None = None) -> ServerTls | None:
    """The TLS settings of ``--tls-cert``, ``--tls-key`` and ``--tls-client-ca`` (``None``: no TLS).

    Raises :class:`~cardarena.pem.PemError` when only one of cert and key is given, a client CA
    is given without them, a file cannot be read, the certificate or key is not PEM, they do not
    belong together, or the client CA file holds no PEM certificate.
    """
    if not cert and not key and client_ca:
        raise PemError("--tls-client-ca needs --tls-cert and --tls-key (client certificates are asked for over TLS)")
    pair = read_key_pair(cert, key, names=("--tls-cert", "--tls-key"))
    if pair is None or cert is None or key is None:
        return None
    ca_pem = read_ca_certificates(client_ca, name="--tls-client-ca") if client_ca else None
    return ServerTls(cert, key, pair, client_ca or None, ca_pem)


_Stamp = tuple[tuple[int, ...] | str, ...]


def _stamp(tls: ServerTls) -> _Stamp:
    """What changes when one of the files is replaced or rewritten (no file is read)."""
    stamp: list[tuple[int, ...] | str] = []
    for path in (tls.cert, tls.key, tls.client_ca):
        if path is None:
            continue
        try:
            st = os.stat(path)
        except OSError as exc:
            stamp.append(f"{exc.errno}")
        else:
            stamp.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(stamp)


class CertificateWatch:
    """The fetcher of ``grpc.dynamic_ssl_server_credentials``: gRPC calls :meth:`fetch` before
    each new TLS handshake, and it answers ``None`` (keep serving what you have) or the files'
    new configuration.  The dashboard's HTTPS port asks :meth:`renewed` the same way
    (``cardarena_dashboard.https``).

    It looks at the files' metadata at most every ``check_every`` seconds and reads them only
    when that changed.  New files are served once they pass :func:`load_server_tls`'s checks
    (an ``info`` line ``tls_reloaded``).  Files that fail them leave the last good ones served;
    when they still fail a check later (not a replacement caught halfway: the certificate
    renamed into place, the key not yet), a ``warning`` ``tls_files_refused`` says why, once for
    that version of the files.
    """

    def __init__(
        self, serving: ServerTls, check_every: float = 1.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.serving = serving
        """What the port serves to new connections."""
        self.check_every = check_every
        self._clock = clock
        self._next = clock() + check_every
        self._stamp: _Stamp | None = None  # unknown: the first check reads the files once more
        self._refused: str | None = None  # why the files' current version is not served (not logged yet)
        self._lock = threading.Lock()

    def fetch(self) -> Any:
        """``None``, or the ``ServerCertificateConfiguration`` to serve from now on."""
        renewed = self.renewed()
        return None if renewed is None else renewed.configuration()

    def renewed(self) -> ServerTls | None:
        """``None`` (keep serving what is served), or the files that replaced them, checked:
        serve these from now on (they are :attr:`serving` then).  Never raises."""
        now = self._clock()
        if now < self._next or not self._lock.acquire(blocking=False):
            return None
        try:
            self._next = now + self.check_every
            return self._check()
        except Exception:  # never into gRPC's handshake: keep serving what is served
            log.exception("tls_reload_failed", extra={"fields": self.serving.fields()})
            return None
        finally:
            self._lock.release()

    def _check(self) -> ServerTls | None:
        stamp = _stamp(self.serving)
        if stamp == self._stamp:
            if self._refused is not None:
                fields = self.serving.fields()
                fields["still_serving_sha256"] = fields.pop("cert_sha256")
                log.warning("tls_files_refused", extra={"fields": {**fields, "reason": self._refused}})
                self._refused = None
            return None
        self._stamp = stamp
        current = self.serving
        try:
            loaded = load_server_tls(current.cert, current.key, current.client_ca)
        except PemError as exc:
            self._refused = str(exc)
            return None
        self._refused = None
        if loaded is None or loaded == current:
            return None
        self.serving = loaded
        log.info("tls_reloaded", extra={"fields": loaded.fields()})
        return loaded


def _fingerprint(chain: bytes) -> str:
    """The SHA-256 fingerprint of the chain's first (the leaf) certificate in lower-case hex
    (``openssl x509 -fingerprint -sha256`` prints the same digits in upper case, with colons)."""
    match = re.search(rb"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", chain, re.DOTALL)
    if match is None:
        return ""
    try:
        der = ssl.PEM_cert_to_DER_cert(match.group().decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        return ""
    return hashlib.sha256(der).hexdigest()
