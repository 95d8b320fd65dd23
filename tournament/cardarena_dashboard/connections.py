"""The dashboard's caps on concurrent connections (``cardarena dashboard --max-connections N
--max-connections-per-client M``).

werkzeug's threaded server gives every connection a thread of its own, for as long as the
connection lasts (its requests, and the idle time between them on a kept-alive connection, up
to the server's idle timeout).  Without a cap a few thousand idle or slow clients exhaust the
process's threads and memory, and it stalls or dies for everyone; and one client alone, sending
a byte of its request now and then (which outlives the idle timeout), could do it: once the
process ran out of file descriptors ``accept`` failed in a loop at full CPU and nobody was served
(found by a pentest).  :class:`CappedWSGIServer` serves at most ``max_connections`` connections
at once (fewer when the process may open few files: :func:`fd_bound`), and at most
``per_client`` from one client address; over either cap it answers a new one in the accepting
thread, with no thread of its own and without reading its request:

* plain HTTP: ``HTTP/1.1 503 Service Unavailable`` with ``Retry-After: 1`` and
  ``Connection: close`` and a line saying which cap (:func:`refusal`), then the connection is
  closed;
* HTTPS: a response needs the TLS handshake first, several round trips the accepting thread
  must not wait for, so the connection is closed without one (the client sees its handshake
  end: an unexpected EOF).

A refused socket is not closed at once: its write side is shut (so the client reads the whole
answer and then the end of the stream), and what the client sends meanwhile is read and
dropped, for at most :data:`LINGER_S` (closing a socket with unread data resets the connection,
and the client may lose the answer before reading it).  At most :data:`LINGERING_MAX` linger
(fewer when few connections are served); beyond that the oldest is closed at once.  All of it
happens in the accepting thread, without blocking: the sockets are non-blocking and looked at
after each connection and every ``serve_forever`` poll (half a second).

Refusals are logged as one warning (``connections_refused``, with how many since the last one,
in all and by the cap that refused them) at most every :data:`LOG_EVERY_S` seconds, and counted
in :class:`ConnectionStats` by cap (:data:`CAPS`), which the ``/metrics`` page shows
(``cardarena_dashboard_*``, the refused connections with a ``cap`` label: :func:`families`).
"""

from __future__ import annotations

import contextlib
import logging
import resource
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
"""Refused connections kept half-closed at once at most (the oldest is closed first), and never
more than a quarter of the connections served at once (each holds a file descriptor)."""

PER_CLIENT = 64
"""Connections one client address may hold at once by default (a browser opens at most six to a
host; a class behind one NAT address shares them)."""
RESERVED_FDS = 64
"""File descriptors kept for everything but connections (the listening socket, logs, the Redis
pool beyond the requests' own connections)."""

FULL = "The dashboard is serving as many connections as it may; retry in a second."
"""The body of the answer over ``max_connections``."""


def refusal(why: str) -> bytes:
    """The whole answer to a plain HTTP connection over a cap, ``why`` its body's line."""
    body = why.encode() + b"\n"
    return (
        b"HTTP/1.1 503 Service Unavailable\r\n"
        b"Retry-After: 1\r\n"
        b"Connection: close\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


def raise_fd_limit(connections: int) -> int:
    """Raise this process's soft limit of open files towards what ``connections`` connections
    need (each may hold a Redis connection too: twice as many, plus :data:`RESERVED_FDS`), never
    above the hard limit and never lowering it; the soft limit now."""
    wanted = 2 * connections + RESERVED_FDS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return int(soft) if soft != resource.RLIM_INFINITY else 1 << 30


def fd_bound(connections: int) -> int:
    """``connections``, or fewer so that they, with a Redis connection each, fit in the files
    this process may open (its soft limit less :data:`RESERVED_FDS`, halved)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return connections
    return max(1, min(connections, (int(soft) - RESERVED_FDS) // 2))


STATS_EXTENSION = "cardarena_connections"
"""The key of the server's :class:`ConnectionStats` in the Flask app's ``extensions`` (absent
when the app is served by something else: a test client, another WSGI server)."""

OPEN = "cardarena_dashboard_connections"
LIMIT = "cardarena_dashboard_max_connections"
REFUSED = "cardarena_dashboard_refused_connections"
TOTAL_CAP, PER_CLIENT_CAP = "total", "per_client"
CAPS = (TOTAL_CAP, PER_CLIENT_CAP)
"""The caps a connection is refused over, the values of the refused counter's ``cap`` label:
``--max-connections`` (the connections of every client) and ``--max-connections-per-client``."""


@dataclass
class ConnectionStats:
    """What the cap has seen in this process (read by ``/metrics`` from other threads)."""

    limit: int
    """``--max-connections`` (or fewer: :func:`fd_bound`)."""
    per_client: int = PER_CLIENT
    """``--max-connections-per-client``."""
    open: int = 0
    """Connections being served now (each has a thread)."""
    refused: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CAPS, 0))
    """Connections refused since the start, by the cap that refused them (:data:`CAPS`)."""
    by_client: dict[str, int] = field(default_factory=dict, repr=False)
    """Connections being served now per client address (those with any)."""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def take(self, client: str) -> tuple[str, str] | None:
        """A place for a new connection from ``client`` (``None``), or count it refused and
        say over which cap (:data:`CAPS`) and why (the answer's line)."""
        with self.lock:
            if self.open >= self.limit:
                cap, why = TOTAL_CAP, FULL
            elif self.by_client.get(client, 0) >= self.per_client:
                cap = PER_CLIENT_CAP
                why = (
                    f"{self.per_client} connections from {client} are open, the most one address may hold; "
                    "retry in a second."
                )
            else:
                self.open += 1
                self.by_client[client] = self.by_client.get(client, 0) + 1
                return None
            self.refused[cap] += 1
            return cap, why

    def give_back(self, client: str) -> None:
        """A served connection from ``client`` ended."""
        with self.lock:
            self.open -= 1
            left = self.by_client.get(client, 0) - 1
            if left > 0:
                self.by_client[client] = left
            else:
                self.by_client.pop(client, None)


def families(stats: ConnectionStats) -> Iterator[Metric]:
    """The metric families of ``stats`` (this dashboard process's connections)."""
    with stats.lock:
        now, limit, refused = stats.open, stats.limit, dict(stats.refused)
    yield GaugeMetricFamily(OPEN, "Connections this dashboard process serves now", value=now)
    yield GaugeMetricFamily(LIMIT, "Connections this dashboard process serves at once at most", value=limit)
    counter = CounterMetricFamily(
        REFUSED,
        "Connections this dashboard process refused since it started, by the cap that refused them "
        '(cap="total": --max-connections, cap="per_client": --max-connections-per-client)',
        labels=["cap"],
    )
    for cap in CAPS:
        counter.add_metric([cap], refused[cap])
    yield counter


def _client(client_address: Any) -> str:
    return str(client_address[0] if isinstance(client_address, tuple) else client_address)


class CappedWSGIServer(ThreadedWSGIServer):
    """werkzeug's threaded server, serving at most ``max_connections`` connections at once (or
    fewer: :func:`fd_bound`), ``per_client`` of them from one client address."""

    def __init__(
        self,
        host: str,
        port: int,
        app: Any,
        handler: type[WSGIRequestHandler],
        *,
        fd: int,
        max_connections: int,
        per_client: int = PER_CLIENT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_connections < 1 or per_client < 1:
            raise ValueError(f"max_connections and per_client must be at least 1, not {max_connections}, {per_client}")
        self.stats = ConnectionStats(fd_bound(max_connections), per_client)
        self._clock = clock
        self._lingering: deque[tuple[float, socket.socket]] = deque()
        self._unlogged = dict.fromkeys(CAPS, 0)
        self._next_log = float("-inf")
        super().__init__(host, port, app, handler, fd=fd)  # it calls server_close once

    # socketserver's hooks, all but process_request_thread in the accepting thread
    def verify_request(self, request: Any, client_address: Any) -> bool:
        refused = self.stats.take(_client(client_address))
        if refused is None:
            return True
        self._refuse(request, *refused)
        return False

    def process_request(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread started: its place is free again
            self.stats.give_back(_client(client_address))
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.stats.give_back(_client(client_address))

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
    def _refuse(self, request: socket.socket, cap: str, why: str) -> None:
        """Answer ``request`` over ``cap`` with ``why`` (TLS: no answer), half-close it and let it
        linger; socketserver's ``shutdown_request`` then finds it detached (a no-op)."""
        secure = isinstance(request, ssl.SSLSocket)  # not handshaken: its bytes are not TLS yet
        raw = socket.socket(request.family, request.type, request.proto, fileno=request.detach())
        raw.setblocking(False)
        with contextlib.suppress(OSError):
            if not secure:
                raw.send(refusal(why))  # a fresh socket's send buffer holds it whole
            raw.shutdown(socket.SHUT_WR)
        now = self._clock()
        self._lingering.append((now + LINGER_S, raw))
        while len(self._lingering) > min(LINGERING_MAX, max(1, self.stats.limit // 4)):  # files are few too
            self._lingering.popleft()[1].close()
        self._unlogged[cap] += 1
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
        at least :data:`LOG_EVERY_S` ago: ``refused`` (since the last one), of them
        ``refused_total_cap`` over ``max_connections`` and ``refused_per_client_cap`` over
        ``per_client``, and how many connections are ``open``."""
        if not any(self._unlogged.values()) or now < self._next_log:
            return
        with self.stats.lock:
            served = self.stats.open
        fields = {
            "refused": sum(self._unlogged.values()),
            **{f"refused_{cap}_cap": count for cap, count in self._unlogged.items()},
            "max_connections": self.stats.limit,
            "per_client": self.stats.per_client,
            "open": served,
        }
        log.warning("connections_refused", extra={"fields": fields})
        self._unlogged = dict.fromkeys(CAPS, 0)
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
