"""Load a deployment's data exported by ``tests/upgrade/make_fixture.py`` (written by an older
version) into a Redis under a fresh key prefix, as it would be after an upgrade."""

from __future__ import annotations

import base64
import gzip
import json
import time
from pathlib import Path
from typing import Any

from cardarena.store.dump import restore

FIXTURES = sorted((Path(__file__).parent / "upgrade").glob("fixture-*.json.gz"))
"""Every stored fixture, one per older version (its commit in the name)."""


def read_fixture(path: Path) -> dict[str, Any]:
    """The fixture's metadata and keys (see ``make_fixture.py``)."""
    data: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
    return data


def _raw(text: str) -> bytes:
    return base64.b64decode(text)


def load_fixture(client: Any, data: dict[str, Any], prefix: str) -> float:
    """Write every key of ``data`` under ``prefix``, with its type, value, stream consumer
    groups and remaining time to live (:func:`cardarena.store.dump.restore`, as ``cardarena
    data import`` does); returns how many seconds after the export it is now
    (by the wall clock), which a test adds to anything the fixture says is "in N seconds"."""
    pipe = client.pipeline(transaction=False)
    for name, entry in data["keys"].items():
        restore(pipe, prefix + name, entry)  # the product's loader reads the fixture's entries as they are
    pipe.execute()
    return time.time() - float(data["generated_at"])


def stored_json(data: dict[str, Any], name: str, field: str | None = None) -> Any:
    """A JSON value as the older version stored it: a string key, or a field of a hash."""
    entry = data["keys"][name]
    if field is None:
        return json.loads(_raw(entry["value"]))
    return json.loads(_raw(entry["value"][base64.b64encode(field.encode()).decode()]))


def stored_json_hash(data: dict[str, Any], name: str) -> dict[str, Any]:
    """Every field of a stored hash of JSON values, by field name."""
    return {_raw(f).decode(): json.loads(_raw(v)) for f, v in data["keys"][name]["value"].items()}


def stored_text(data: dict[str, Any], name: str, field: str) -> str | None:
    """A field of a stored hash as text, or ``None`` if the hash has no such field."""
    value = data["keys"][name]["value"].get(base64.b64encode(field.encode()).decode())
    return None if value is None else _raw(value).decode()


def stored_names(data: dict[str, Any], name: str) -> list[str]:
    """The members of a stored set, sorted set (by score) or list, as text."""
    value = data["keys"][name]["value"]
    if data["keys"][name]["type"] == "zset":
        return [_raw(m).decode() for m, _ in value]
    return [_raw(m).decode() for m in value]
