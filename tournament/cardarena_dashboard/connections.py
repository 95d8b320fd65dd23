"""The dashboard's cap on concurrent connections (``cardarena dashboard --max-connections N``).

werkzeug's threaded server gives every connection a thread of its own, for as long as the
connection lasts (its requests, and the idle time between them on a kept-alive connection, up
to the server's idle timeout).  Without a cap a few thousand idle or slow clients exhaust the
process's threads and memory, and it stalls or dies for everyone.  :class:`CappedWSGIServer`
serves at most ``max_connections`` connections at once; over the cap it answers a new one in
the accepting thread, with no thread of its own and without reading its request:

* plain HTTP: ``HTTP/1.1 503 Service Unavailable`` with ``Retry-After: 1`` and
  ``Connection: close`` (:data:`REFUSAL`), then the connection is closed;
* HTTPS: a response needs the TLS handshake first, several round trips the accepting thread
  must not wait for, so the connection is closed without one (the client sees its handshake
  end: an unexpected EOF).

A refused socket is not closed at once: its write side is shut (so the client reads the whole
answer and then the end of the stream), and what the client sends meanwhile is read and
dropped, for at most :data:`LINGER_S` (closing a socket with unread data resets the connection,
and the client may lose the answer before reading it).  At most :data:`LINGERING_MAX` linger;
beyond that the oldest is closed at once.  All of it happens in the accepting thread, without
blocking: the sockets are non-blocking and looked at after each connection and every
``serve_forever`` poll (half a second).

Refusals are logged as one warning (``connections_refused``, with how many since the last one)
at most every :data:`LOG_EVERY_S` seconds, and counted in :class:`ConnectionStats`, which the
``/metrics`` page shows (``cardarena_dashboard_*``, :func:`families`).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler

log = logging.getLogger(__name__)

LOG_EVERY_S = 10.0
"""Seconds between two ``connections_refused`` warnings at most."""
LINGER_S = 1.0
"""Seconds a refused connection is kept half-closed, its input read and dropped, at most."""
LINGERING_MAX = 256
"""Refused connections kept half-closed at once at most (the oldest is closed first)."""

_BODY = b"The dashboard is serving as many connections as it may; retry in a second.\n"
REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"Retry-After: 1\r\n"
    b"Connection: close\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: " + str(len(_BODY)).encode() + b"\r\n\r\n" + _BODY
)
"""The whole answer to a plain HTTP connection over the cap."""

STATS_EXTENSION = "cardarena_connections"
"""The key of the server's :class:`ConnectionStats` in the Flask app's ``extensions`` (absent
when the app is served by something else: a test client, another WSGI server)."""

OPEN = "cardarena_dashboard_connections"
LIMIT = "cardarena_dashboard_max_connections"
REFUSED = "cardarena_dashboard_refused_connections"


@dataclass
class ConnectionStats:
    """What the cap has seen in this process (read by ``/metrics`` from other threads)."""

    limit: int
    """``--max-connections``."""
    open: int = 0
    """Connections being served now (each has a thread)."""
    refused: int = 0
    """Connections refused since the start."""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def take(self) -> bool:
        """A place for a new connection (``True``), or count it refused (``False``)."""
        with self.lock:
            if self.open < self.limit:
                self.open += 1
                return True
            self.refused += 1
            return False

    def give_back(self) -> None:
        """A served connection ended."""
        with self.lock:
            self.open -= 1


def families(stats: ConnectionStats) -> Iterator[Metric]:
    """The metric families of ``stats`` (this dashboard process's connections)."""
    with stats.lock:
        now, limit, refused = stats.open, stats.limit, stats.refused
    yield GaugeMetricFamily(OPEN, "Connections this dashboard process serves now", value=now)
    yield GaugeMetricFamily(LIMIT, "Connections this dashboard process serves at once at most", value=limit)
    yield CounterMetricFamily(
        REFUSED, "Connections this dashboard process refused since it started (over --max-connections)", value=refused
    )


class CappedWSGIServer(ThreadedWSGIServer):
    """werkzeug's threaded server, serving at most ``max_connections`` connections at once."""

    def __init__(
        self,
        host: str,
        port: int,
        app: Any,
        handler: type[WSGIRequestHandler],
        *,
        fd: int,
        max_connections: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_connections < 1:
            raise ValueError(f"max_connections must be at least 1, not {max_connections}")
        self.stats = ConnectionStats(max_connections)
        self._clock = clock
        self._lingering: deque[tuple[float, socket.socket]] = deque()
        self._unlogged = 0
        self._next_log = float("-inf")
        super().__init__(host, port, app, handler, fd=fd)  # it calls server_close once

    # socketserver's hooks, all but process_request_thread in the accepting thread
    def verify_request(self, request: Any, client_address: Any) -> bool:
        if self.stats.take():
            return True
        self._refuse(request)
        return False

    def process_request(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread started: its place is free again
            self.stats.give_back()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.stats.give_back()

    def service_actions(self) -> None:
        super().service_actions()
        now = self._clock()
        self._sweep(now)
        self._report(now)

    def server_close(self) -> None:
        super().server_close()
        while self._lingering:
            self._lingering.popleft()[1].close()

    # refusing
    def _refuse(self, request: socket.socket) -> None:
        """Answer ``request`` over the cap (TLS: no answer), half-close it and let it linger;
        socketserver's ``shutdown_request`` then finds it detached (a no-op)."""
        secure = isinstance(request, ssl.SSLSocket)  # not handshaken: its bytes are not TLS yet
        raw = socket.socket(request.family, request.type, request.proto, fileno=request.detach())
        raw.setblocking(False)
        with contextlib.suppress(OSError):
            if not secure:
                raw.send(REFUSAL)  # a fresh socket's send buffer holds it whole
            raw.shutdown(socket.SHUT_WR)
        now = self._clock()
        self._lingering.append((now + LINGER_S, raw))
        while len(self._lingering) > LINGERING_MAX:
            self._lingering.popleft()[1].close()
        self._unlogged += 1
        self._sweep(now)
        self._report(now)

    def _sweep(self, now: float) -> None:
        """Read and drop what lingering sockets received; close those the client closed, that
        failed, or whose time is up."""
        kept: deque[tuple[float, socket.socket]] = deque()
        for until, sock in self._lingering:
            if _drained(sock) and now < until:
                kept.append((until, sock))
            else:
                sock.close()
        self._lingering = kept

    def _report(self, now: float) -> None:
        """The ``connections_refused`` warning, if refusals are unreported and the last one was
        at least :data:`LOG_EVERY_S` ago."""
        if not self._unlogged or now < self._next_log:
            return
        with self.stats.lock:
            served = self.stats.open
        fields = {"refused": self._unlogged, "max_connections": self.stats.limit, "open": served}
        log.warning("connections_refused", extra={"fields": fields})
        self._unlogged = 0
        self._next_log = now + LOG_EVERY_S


def _drained(sock: socket.socket) -> bool:
    """Read and drop what ``sock`` (non-blocking) has received: ``True`` while it stays open
    (nothing more to read now), ``False`` once the client closed it or it failed."""
    try:
        for _ in range(16):  # at most 1 MiB a look: a flood waits for the next one
            if not sock.recv(65536):
                return False
    except BlockingIOError:
        return True
    except OSError:
        return False
    return True
