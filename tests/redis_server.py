"""A private Redis for tests: ``REDIS_URL`` if set (never flushed; tests use a unique key
prefix), otherwise an embedded server started for the session and stopped after it."""

from __future__ import annotations

import contextlib
import os
import random
import socket
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cardarena.store.connection import EmbeddedRedis


@contextlib.contextmanager
def embedded_redis() -> Iterator[str]:
    """The URL of a new embedded server without persistence, stopped on exit."""
    with tempfile.TemporaryDirectory(prefix="cardarena-test-redis-") as tmp:
        server = EmbeddedRedis(Path(tmp), persist=False).start()
        try:
            yield server.url
        finally:
            server.stop()


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    external = os.environ.get("REDIS_URL")
    if external:
        yield external
        return
    with embedded_redis() as url:
        yield url


def port_for_restarts() -> int:
    """A free TCP port below the kernel's ephemeral range, for a server restarted on the same
    port.  While such a server is down, its clients keep reconnecting; a port from the
    ephemeral range can meanwhile be handed to one of those connections as its local port (a
    TCP self-connect), and the restart then cannot bind it."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(10000, max(10001, low))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port between 10000 and {low}")


@pytest.fixture
def key_prefix(monkeypatch: pytest.MonkeyPatch) -> str:
    """A unique key namespace per test, so tests never see (or flush) each other's data."""
    prefix = f"test-{uuid.uuid4().hex[:10]}:"
    monkeypatch.setenv("CARDARENA_PREFIX", prefix)
    return prefix


def plant_neighbours(client: Any, key_prefix: str) -> list[str]:
    """Keys a local run (``match``, ``tournament run``) on this Redis must leave as they are:
    one under the test's prefix, two under prefixes shaped like another run's, one outside
    the prefix altogether.  Check them with :func:`only_neighbours_left`."""
    names = [
        f"{key_prefix}before",
        f"{key_prefix}match-neighbour:kept",
        f"{key_prefix}run-neighbour:kept",
        f"{key_prefix.rstrip(':')}-outside:kept",
    ]
    for name in names:
        client.set(name, "1")
    return names


def only_neighbours_left(client: Any, key_prefix: str, planted: list[str]) -> None:
    """Under ``key_prefix`` there is nothing but the planted keys, and every planted key is there
    (the one outside the prefix is removed afterwards: an external Redis is never flushed)."""
    left = {k.decode() for k in client.scan_iter(match=f"{key_prefix}*", count=1000)}
    assert left == {n for n in planted if n.startswith(key_prefix)}
    assert client.exists(*planted) == len(planted)
    client.delete(*planted)
