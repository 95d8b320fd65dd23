"""A deployment's data as a file: every key under a prefix, type by type, and back.

The file (``cardarena data export``/``import``) is gzipped JSON lines:

* a header ``{"format": "cardarena-export", "version": 1, "cardarena": ..., "prefix": ...,
  "exported_at": ..., "redis": ...}``;
* one line per key: ``{"key": <name without the prefix>, "type": ..., "ttl_ms": ..., "value": ...}``
  (strings, hash fields and values, set, sorted-set and list members, stream fields as base64;
  sorted sets as ``[member, score]`` pairs; ``ttl_ms`` is the time to live left when it was
  read, ``-1`` for none); a stream adds ``last_generated_id`` and its consumer ``groups``
  (``name``, ``last_delivered_id``, ``pending``: ``[id, consumer, idle_ms, deliveries]``);
* a trailer ``{"end": true, "keys": N}``: the file is written as a stream (to stdout too), so
  the count comes last, and a file without it is known to be cut short.

Reading uses no ``DUMP`` (whose payload only the same or a later Redis accepts): plain reads,
so a file loads into any Redis from 6.2 on.  Each key is read at one instant (a batch of keys in
one ``MULTI``, a stream with its groups under ``WATCH``), but a whole export is not a snapshot
of the whole Redis.  Per key, the entry is the same as ``tests/upgrade/make_fixture.py``
writes, and :func:`restore` is how the tests load those fixtures.

No stored value holds a key name (``tests/test_data_export.py`` checks a deployment's data),
so loading under another prefix rewrites the key names only.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import time
import zlib
from collections.abc import Iterator, Sequence
from typing import IO, Any

import redis

from ..summary import how_many

FORMAT = "cardarena-export"
"""The ``format`` field of an export's header."""
VERSION = 1
"""The ``version`` field this code writes and the only one it reads."""
BATCH = 500
"""Keys read (one ``SCAN`` page, one ``MULTI``) or written (one pipeline) at a time."""
TYPES = ("string", "hash", "set", "zset", "list", "stream")


class DumpError(ValueError):
    """An export file that cannot be loaded (the message says why, in one line)."""


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _raw(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def match_pattern(prefix: str) -> str:
    """The ``SCAN MATCH`` pattern of every key starting with ``prefix`` (glob characters escaped)."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in prefix) + "*"


# ---------------------------------------------------------------- reading a Redis
def _read(pipe: Any, name: bytes, kind: str) -> None:
    """Queue the read of ``name``'s value (a stream's entries and metadata) and its TTL."""
    if kind == "string":
        pipe.get(name)
    elif kind == "hash":
        pipe.hgetall(name)
    elif kind == "set":
        pipe.smembers(name)
    elif kind == "zset":
        pipe.zrange(name, 0, -1, withscores=True)
    elif kind == "list":
        pipe.lrange(name, 0, -1)
    else:
        raise DumpError(f"key {_s(name)}: type {kind} is not exported")
    pipe.pttl(name)


def _value(kind: str, got: Any) -> Any:
    if kind == "string":
        return _b64(got)
    if kind == "hash":
        return {_b64(k): _b64(v) for k, v in sorted(got.items())}
    if kind == "set":
        return sorted(_b64(m) for m in got)
    if kind == "zset":
        return [[_b64(m), s] for m, s in got]
    return [_b64(v) for v in got]  # list


def _read_stream(client: redis.Redis, name: bytes, tries: int = 5) -> dict[str, Any] | None:
    """A stream with its groups and their pending entries, read at one instant (``WATCH``: a
    stream written meanwhile is read again); ``None`` if it is gone."""
    for attempt in range(tries):
        with client.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(name)  # type: ignore[no-untyped-call]
                if pipe.type(name) != b"stream":
                    return None
                groups = pipe.xinfo_groups(name)
                pipe.multi()
                pipe.xrange(name)
                pipe.xinfo_stream(name)
                pipe.pttl(name)
                for g in groups:
                    pipe.xpending_range(name, g["name"], "-", "+", max(1, int(g["pending"])))
                got = pipe.execute()
            except redis.WatchError:
                if attempt == tries - 1:
                    raise
                continue
        entries, info, ttl, pendings = got[0], got[1], got[2], got[3:]
        return {
            "type": "stream",
            "ttl_ms": ttl,
            "value": [[_s(i), {_b64(k): _b64(v) for k, v in f.items()}] for i, f in entries],
            "last_generated_id": _s(info["last-generated-id"]),
            "groups": [
                {
                    "name": _s(g["name"]),
                    "last_delivered_id": _s(g["last-delivered-id"]),
                    "pending": [
                        [
                            _s(p["message_id"]),
                            _s(p["consumer"]),
                            int(p["time_since_delivered"]),
                            int(p["times_delivered"]),
                        ]
                        for p in pending
                    ],
                }
                for g, pending in zip(groups, pendings, strict=True)
            ],
        }
    return None  # pragma: no cover - the loop returns or raises


def _pending(p: dict[str, Any]) -> list[Any]:
    """One pending entry: ``[id, consumer, idle_ms, deliveries]``."""
    return [_s(p["message_id"]), _s(p["consumer"]), int(p["time_since_delivered"]), int(p["times_delivered"])]


def _read_batch(client: redis.Redis, names: Sequence[bytes]) -> Iterator[tuple[bytes, dict[str, Any]]]:
    """The entries of ``names`` (gone ones left out): their types, then every value and TTL in
    one ``MULTI``; a key whose type changed in between is read again."""
    todo = list(names)
    for _ in range(5):
        with client.pipeline(transaction=False) as pipe:
            for name in todo:
                pipe.type(name)
            kinds = [_s(k) for k in pipe.execute()]
        again: list[bytes] = []
        plain = [(n, k) for n, k in zip(todo, kinds, strict=True) if k not in ("none", "stream")]
        for name, kind in zip(todo, kinds, strict=True):
            if kind == "stream":
                entry = _read_stream(client, name)
                if entry is not None:
                    yield name, entry
        with client.pipeline(transaction=True) as pipe:
            for name, kind in plain:
                _read(pipe, name, kind)
            got = pipe.execute(raise_on_error=False) if plain else []
        for i, (name, kind) in enumerate(plain):
            value, ttl = got[2 * i], got[2 * i + 1]
            if isinstance(value, redis.ResponseError):  # WRONGTYPE: replaced by another type meanwhile
                again.append(name)
            elif ttl != -2 and value is not None:  # -2 / nil: expired or deleted meanwhile
                yield name, {"type": kind, "ttl_ms": ttl, "value": _value(kind, value)}
        if not again:
            return
        todo = again
    raise DumpError(f"keys keep changing type while they are read: {', '.join(_s(n) for n in todo[:3])}")


def export_entries(client: redis.Redis, prefix: str, *, batch: int = BATCH) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every key under ``prefix`` as ``(name without the prefix, entry)``, ``SCAN`` page by page."""
    if not prefix:
        raise ValueError("refusing an empty key prefix (every key of the Redis)")
    cursor, seen = 0, set[bytes]()  # SCAN may return a key twice
    while True:
        cursor, names = client.scan(cursor, match=match_pattern(prefix), count=batch)
        fresh = sorted({n if isinstance(n, bytes) else n.encode() for n in names} - seen)
        seen.update(fresh)
        for name, entry in _read_batch(client, fresh):
            yield name.decode()[len(prefix) :], entry
        if cursor == 0:
            return


def export(client: redis.Redis, prefix: str, out: IO[bytes], header: dict[str, Any]) -> int:
    """Write the export of every key under ``prefix`` to ``out`` (gzipped; ``header`` adds to the
    header line, e.g. the cardarena version); returns the number of keys written."""
    info = client.info("server")
    head = {
        "format": FORMAT,
        "version": VERSION,
        **header,
        "prefix": prefix,
        "exported_at": time.time(),
        "redis": str(info.get("redis_version", "")),
    }
    count = 0
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz:
        gz.write(_line(head))
        for name, entry in export_entries(client, prefix):
            gz.write(_line({"key": name, **entry}))
            count += 1
        gz.write(_line({"end": True, "keys": count}))
    return count


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


# ---------------------------------------------------------------- reading a file
def read_export(source: IO[bytes]) -> tuple[dict[str, Any], Iterator[tuple[str, dict[str, Any]]]]:
    """The header of the export in ``source`` and an iterator over its keys (name without the
    prefix, entry), which checks every line and ends with the trailer's count; a bad file
    raises :class:`DumpError` (from the header at once, from the rest as it is read)."""
    lines = _lines(source)
    try:
        head = json.loads(next(lines))
    except StopIteration:
        raise DumpError("empty file") from None
    except ValueError as exc:
        raise DumpError(f"not a cardarena export (its first line is not JSON: {exc})") from None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise DumpError("not a cardarena export (no 'format: cardarena-export' header)")
    if head.get("version") != VERSION:
        raise DumpError(f"export format version {head.get('version')!r}: this cardarena reads version {VERSION}")
    if not isinstance(head.get("prefix"), str) or not head["prefix"]:
        raise DumpError("the header names no key prefix")
    return head, _entries(lines)


def _lines(source: IO[bytes]) -> Iterator[bytes]:
    try:
        with gzip.GzipFile(fileobj=source, mode="rb") as gz:
            yield from gz
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        raise DumpError(f"not a gzipped cardarena export, or cut short: {exc}") from None


def _entries(lines: Iterator[bytes]) -> Iterator[tuple[str, dict[str, Any]]]:
    count = 0
    for number, line in enumerate(lines, start=2):
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise DumpError(f"line {number} is not JSON: {exc}") from None
        if not isinstance(item, dict):
            raise DumpError(f"line {number} is not a JSON object")
        if item.get("end") is True:
            if item.get("keys") != count:
                raise DumpError(f"the file ends saying {item.get('keys')!r} keys but holds {count}")
            if next(lines, None) is not None:
                raise DumpError(f"line {number + 1} follows the end line")
            return
        name = item.pop("key", None)
        if (
            not isinstance(name, str)
            or not name
            or item.get("type") not in TYPES
            or not isinstance(item.get("ttl_ms"), int)
        ):
            raise DumpError(f"line {number} is not a key (key, type, ttl_ms, value)")
        count += 1
        yield name, item
    raise DumpError(f"the file is cut short after {how_many(count, 'key')} (no end line)")


# ---------------------------------------------------------------- writing a Redis
def restore(pipe: Any, name: str, entry: dict[str, Any]) -> None:
    """Queue on ``pipe`` the commands writing the key ``name`` (the full name) as ``entry``
    (one key of an export, or of a ``tests/upgrade`` fixture) says: its value, a stream's
    groups with their pending entries, and its remaining time to live.  ``name`` must not exist."""
    kind, value = entry["type"], entry["value"]
    try:
        if kind == "string":
            pipe.set(name, _raw(value))
        elif kind == "hash":
            pipe.hset(name, mapping={_raw(k): _raw(v) for k, v in value.items()})
        elif kind == "set":
            pipe.sadd(name, *(_raw(m) for m in value))
        elif kind == "zset":
            pipe.zadd(name, {_raw(m): float(score) for m, score in value})
        elif kind == "list":
            pipe.rpush(name, *(_raw(v) for v in value))
        elif kind == "stream":
            _restore_stream(pipe, name, entry)
        else:
            raise DumpError(f"{name}: unknown type {kind!r}")
    except (TypeError, ValueError, AttributeError, KeyError, binascii.Error) as exc:
        if isinstance(exc, DumpError):
            raise
        raise DumpError(f"{name}: a malformed {kind} value ({type(exc).__name__}: {exc})") from None
    if entry["ttl_ms"] > 0:
        pipe.pexpire(name, entry["ttl_ms"])


def _restore_stream(pipe: Any, name: str, entry: dict[str, Any]) -> None:
    for entry_id, fields in entry["value"]:
        pipe.xadd(name, {_raw(k): _raw(v) for k, v in fields.items()}, id=entry_id)
    groups = entry.get("groups", [])
    if not entry["value"]:  # an empty stream (trimmed): made by a group, kept by its id
        pipe.xgroup_create(name, "cardarena-restore", id="0", mkstream=True)
        pipe.xgroup_destroy(name, "cardarena-restore")
    if entry.get("last_generated_id"):  # new entries get later ids than any ever delivered
        pipe.execute_command("XSETID", name, entry["last_generated_id"])
    for group in groups:
        pipe.xgroup_create(name, group["name"], id=group["last_delivered_id"])
        for pending in group["pending"]:
            message_id, consumer = pending[0], pending[1]
            idle, deliveries = (pending[2], pending[3]) if len(pending) > 3 else (0, 1)
            pipe.xclaim(
                name,
                group["name"],
                consumer,
                0,
                [message_id],
                idle=idle,
                retrycount=deliveries,
                force=True,
                justid=True,
            )


def existing(client: redis.Redis, names: Sequence[str]) -> list[str]:
    """Those of ``names`` that exist (one round trip)."""
    with client.pipeline(transaction=False) as pipe:
        for name in names:
            pipe.exists(name)
        found = pipe.execute()
    return [n for n, e in zip(names, found, strict=True) if e]


def load(
    client: redis.Redis, entries: Iterator[tuple[str, dict[str, Any]]], prefix: str, *, replace: bool = False
) -> int:
    """Write ``entries`` (from :func:`read_export`) under ``prefix``, :data:`BATCH` keys per
    pipeline; with ``replace`` a key that exists is deleted first (else it must not exist).
    Returns the number of keys written."""
    count = 0
    batch: list[tuple[str, dict[str, Any]]] = []

    def flush() -> None:
        with client.pipeline(transaction=False) as pipe:
            for name, entry in batch:
                if replace:
                    pipe.delete(prefix + name)
                restore(pipe, prefix + name, entry)
            pipe.execute()
        batch.clear()

    for item in entries:
        batch.append(item)
        count += 1
        if len(batch) >= BATCH:
            flush()
    flush()
    return count


class _Discard:
    """A stand-in pipeline that accepts every command and sends none (:func:`restore` decodes
    each value before queuing it, so a malformed one shows without writing anything)."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


class KeysExist(Exception):
    """Keys an import would write exist already (``names``: the first few, ``count``: how many)."""

    def __init__(self, names: list[str], count: int) -> None:
        super().__init__(f"{count} keys exist already, e.g. {', '.join(names)}")
        self.names = names
        self.count = count


def import_export(
    client: redis.Redis, source: IO[bytes], prefix: str | None = None, *, replace: bool = False
) -> tuple[dict[str, Any], int]:
    """Load the export in ``source`` (seekable: it is read twice) under ``prefix`` (default: the
    file's own).  First the whole file is checked and, unless ``replace``, that none of its keys
    exists under ``prefix``: a bad file raises :class:`DumpError`, existing keys
    :class:`KeysExist`, and nothing is written.  Returns the header and the number of keys."""
    if prefix == "":
        raise ValueError("refusing an empty key prefix (every key of the Redis)")
    head, entries = read_export(source)
    target = prefix or str(head["prefix"])
    seen: set[str] = set()
    clashes: list[str] = []
    found = 0
    chunk: list[str] = []

    def check() -> int:
        hits = [] if replace else existing(client, chunk)
        clashes.extend(hits[: 5 - len(clashes)])
        chunk.clear()
        return len(hits)

    for name, entry in entries:
        if name in seen:
            raise DumpError(f"key {name!r} is in the file twice")
        seen.add(name)
        restore(_Discard(), target + name, entry)
        chunk.append(target + name)
        if len(chunk) >= BATCH:
            found += check()
    found += check()
    if found:
        raise KeysExist(clashes, found)
    source.seek(0)
    head, entries = read_export(source)
    return head, load(client, entries, target, replace=replace)
