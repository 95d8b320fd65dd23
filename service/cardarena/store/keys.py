"""Every Redis key the product uses, under one prefix (``CARDARENA_PREFIX``, default ``ca:``)."""

from __future__ import annotations

import os


def prefix() -> str:
    """The namespace prefix of every key."""
    return os.environ.get("CARDARENA_PREFIX", "ca:")


def key(*parts: str) -> str:
    """A namespaced key: ``key("match", mid, "spec") == "ca:match:<mid>:spec"``."""
    return prefix() + ":".join(parts)
