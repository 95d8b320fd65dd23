"""A private Redis for tests: ``REDIS_URL`` if set (never flushed; tests use a unique key
prefix), otherwise an embedded server started for the session and stopped after it."""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from cardarena.store.connection import EmbeddedRedis


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    external = os.environ.get("REDIS_URL")
    if external:
        yield external
        return
    with tempfile.TemporaryDirectory(prefix="cardarena-test-redis-") as tmp:
        server = EmbeddedRedis(Path(tmp), persist=False).start()
        try:
            yield server.url
        finally:
            server.stop()


@pytest.fixture
def key_prefix(monkeypatch: pytest.MonkeyPatch) -> str:
    """A unique key namespace per test, so tests never see (or flush) each other's data."""
    prefix = f"test-{uuid.uuid4().hex[:10]}:"
    monkeypatch.setenv("CARDARENA_PREFIX", prefix)
    return prefix
