"""HTTPS for the dashboard: ``cardarena dashboard --tls-cert FILE --tls-key FILE`` (and ``up``
with them) serves TLS only, with the certificate files the gRPC service takes.

The files are checked before anything starts (:func:`~cardarena.server.tls.load_server_tls`,
one-line :class:`~cardarena.pem.PemError`).  While the dashboard runs they are watched as the
service watches its own (:class:`~cardarena.server.tls.CertificateWatch`): at each new TLS
handshake (at most once a second) their metadata is looked at, and a replacement that passes the
checks is served from that handshake on; connections already open keep theirs.  The handshake
happens in the connection's own thread, never in the accepting one, so a client that connects
and says nothing holds up no other client, and its thread is freed once the connection has
been silent for the server's idle timeout (:data:`.commands.IDLE_TIMEOUT_S`).
"""

from __future__ import annotations

import logging
import ssl
from typing import TYPE_CHECKING, Any

from cardarena.pem import PemError, server_context

if TYPE_CHECKING:
    from cardarena.server.tls import ServerTls
    from werkzeug.serving import BaseWSGIServer

log = logging.getLogger(__name__)

_NAMES = ("--tls-cert", "--tls-key")


class ReloadingContext:
    """The listening socket's ``ssl.SSLContext`` (:attr:`context`); each handshake is given the
    context of the newest good files (its ``sni_callback``, which OpenSSL calls for every
    ClientHello, with or without a server name)."""

    def __init__(self, tls: ServerTls, check_every: float = 1.0) -> None:
        from cardarena.server.tls import CertificateWatch

        self.context = server_context(tls.cert, tls.key, names=_NAMES)
        """What the listening socket wraps with (the files as they were at the start)."""
        self.context.sni_callback = self._handshake
        self._watch = CertificateWatch(tls, check_every)
        self._current = self.context

    def _handshake(self, sock: Any, server_name: str | None, context: ssl.SSLContext) -> None:
        renewed = self._watch.renewed()
        if renewed is not None:
            try:
                fresh = server_context(renewed.cert, renewed.key, names=_NAMES)
            except PemError as exc:  # replaced again meanwhile: the watch sees it at its next check
                log.warning("tls_files_refused", extra={"fields": {**renewed.fields(), "reason": str(exc)}})
            else:
                self._current = fresh
        current = self._current
        if current is not context:
            sock.context = current


def serve_tls(server: BaseWSGIServer, tls: ServerTls) -> ReloadingContext:
    """Make werkzeug's ``server`` (from ``make_server`` without ``ssl_context``) serve TLS only,
    with ``tls``'s files and their replacements."""
    reloading = ReloadingContext(tls)
    # werkzeug would wrap with the handshake in accept(), in its one serving thread
    server.socket = reloading.context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    server.ssl_context = reloading.context  # the WSGI environ's url_scheme: https
    return reloading
