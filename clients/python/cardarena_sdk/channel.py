"""A client's channel to the service: its address checked, and its TLS credentials from the PEM
files.  gRPC and :mod:`cardarena.pem` only, no protocol: ``cardarena service health`` (a
readiness probe, run every few seconds) connects with these and loads nothing more."""

from __future__ import annotations

from typing import Any

import grpc
from cardarena.pem import Pathish, read_ca_certificates, read_key_pair


def channel_credentials(
    tls: bool = False,
    ca_cert: Pathish | None = None,
    client_cert: Pathish | None = None,
    client_key: Pathish | None = None,
) -> Any:
    """The channel credentials of a client: ``None`` (plaintext) unless ``tls``, ``ca_cert`` or
    a client certificate is given; with TLS, the server's certificate is checked against
    ``ca_cert`` (a PEM file: a private CA or a self-signed certificate) or, without it, the
    system's root certificates.  ``client_cert`` and ``client_key`` (PEM files, both or neither;
    the key unencrypted) are presented to a service that requires client certificates.

    The files are read now: ``ValueError`` naming one that cannot be read, holds no PEM
    certificate or key, or a key that does not match ``client_cert``.
    """
    pair = read_key_pair(client_cert, client_key, names=("client_cert", "client_key"))
    root = None if ca_cert is None else read_ca_certificates(ca_cert, name="CA certificate")
    if not (tls or root or pair):
        return None
    if pair is None:
        return grpc.ssl_channel_credentials(root_certificates=root)
    return grpc.ssl_channel_credentials(
        root_certificates=root, private_key=pair.private_key, certificate_chain=pair.cert_chain
    )


def check_address(server: str) -> None:
    """Raise :class:`ValueError` for an address that is a URL (``http://host:port``): the
    service's address is ``host:port``."""
    scheme, sep, rest = server.partition("://")
    if sep and scheme.lower() in ("http", "https", "grpc", "grpcs"):
        tls = " and connect with TLS (--tls, tls=True)" if scheme.lower() in ("https", "grpcs") else ""
        raise ValueError(f"server address {server!r}: give host:port ({rest.rstrip('/')!r}) without {scheme}://{tls}")
    if not server:
        raise ValueError("server address is empty: give host:port, e.g. 127.0.0.1:50051")
