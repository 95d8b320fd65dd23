"""How many connections the dashboard holds at once: per client address, and in all.

werkzeug's threaded server gives every connection a thread and a file descriptor until the
connection closes (the idle timeout, :data:`.commands.IDLE_TIMEOUT_S`, ends a silent one, but a
client that sends a byte of its request now and then keeps it).  Without a bound one client
could open connection after connection: once the process ran out of file descriptors
(``ulimit -n``, often 1024), ``accept`` failed at once in a loop, the serving thread spun at
full CPU and nobody else was served (found by a pentest).

:class:`LimitedServer` answers a connection over a bound at once and closes it: a plain HTTP
one with ``503`` and a line saying why (an HTTPS one before its handshake, so without a word).
The bounds are :data:`PER_CLIENT` connections per client address, so that one client leaves
room for the others, and :func:`total_bound` in all, below the process's file descriptors
(each request being served may hold a Redis connection too).
"""

from __future__ import annotations

import contextlib
import logging
import resource
import threading
import time
from typing import Any

from werkzeug.serving import ThreadedWSGIServer

log = logging.getLogger("cardarena_dashboard.connections")

PER_CLIENT = 64
"""Connections one client address may hold at once (a browser opens at most six to a host; a
class behind one NAT address shares this)."""
TOTAL = 1024
"""Connections the dashboard holds at once in all, at most (less when file descriptors are few:
:func:`total_bound`)."""
RESERVED_FDS = 64
"""File descriptors kept for everything but connections (the listening socket, logs, Redis's
own pool beyond the requests' connections)."""
REFUSED_LOG_EVERY_S = 10.0
"""Seconds between two log lines about refused connections (each says how many since the last)."""


def raise_fd_limit(wanted: int = 2 * TOTAL + RESERVED_FDS) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` (never above the hard
    limit, never lowering it); the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return int(soft) if soft != resource.RLIM_INFINITY else 1 << 20


def total_bound(limit: int = TOTAL) -> int:
    """Connections to hold at once in all: ``limit``, or fewer so that they, with a Redis
    connection each, fit in the file descriptors this process may open."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limit
    return max(1, min(limit, (int(soft) - RESERVED_FDS) // 2))


REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Connection: close\r\nRetry-After: 5\r\nContent-Length: %d\r\n\r\n%s"
)


def _refusal(why: str) -> bytes:
    body = f"{why}; try again shortly\n".encode()
    return REFUSAL % (len(body), body)


class LimitedServer(ThreadedWSGIServer):
    """werkzeug's threaded server that holds at most ``per_client`` connections per client
    address and ``total`` in all (:mod:`connections`)."""

    def __init__(self, *args: Any, per_client: int = PER_CLIENT, total: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.per_client = per_client
        self.total = total_bound() if total is None else total
        self._lock = threading.Lock()
        self._held: dict[Any, str] = {}
        """Each connection being served, with its client address."""
        self._by_client: dict[str, int] = {}
        self._refused = 0
        self._logged_at = 0.0

    def open_connections(self) -> int:
        """Connections held now."""
        with self._lock:
            return len(self._held)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        """Take the connection if it fits the bounds; else answer it (plain HTTP) and let the
        server close it."""
        client = str(client_address[0] if isinstance(client_address, tuple) else client_address)
        with self._lock:
            if len(self._held) >= self.total:
                why = f"the dashboard holds {self.total} connections, its most"
            elif self._by_client.get(client, 0) >= self.per_client:
                why = f"{self.per_client} connections from {client} are open, the most one address may hold"
            else:
                self._held[request] = client
                self._by_client[client] = self._by_client.get(client, 0) + 1
                return True
            self._refused += 1
            now = time.monotonic()
            logging_now = now - self._logged_at >= REFUSED_LOG_EVERY_S
            if logging_now:
                refused, self._refused, self._logged_at = self._refused, 0, now
        if logging_now:
            log.warning("connections_refused", extra={"fields": {"refused": refused, "last": why}})
        if not hasattr(request, "do_handshake"):  # HTTPS: nothing can be said before the handshake
            with contextlib.suppress(OSError):
                request.setblocking(False)  # a fresh socket's buffer takes it; never wait for a client
                request.send(_refusal(why))
                request.recv(65536)  # what the request sent already, lest closing over it reset the answer
        return False

    def shutdown_request(self, request: Any) -> None:
        """Close a connection (served, refused or failed) and count it out."""
        with self._lock:
            client = self._held.pop(request, None)
            if client is not None:
                left = self._by_client[client] - 1
                if left:
                    self._by_client[client] = left
                else:
                    del self._by_client[client]
        super().shutdown_request(request)
