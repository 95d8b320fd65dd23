"""``cardarena data export FILE`` and ``cardarena data import FILE``: a deployment's data as a
file (:mod:`cardarena.store.dump`), for a backup or to move it to another Redis or key prefix.

Redis: ``--redis-url``, else ``REDIS_URL``, else the user's shared embedded default.

Importing this module (to build the ``cardarena`` parser, :func:`register`) loads the light
standard library only; what a command needs is imported when it runs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .cliargs import add_redis_url

PRIVATE_WARNING = (
    "cardarena data export: warning: the export holds every bot's token hash, the secret seeds "
    "of tournaments and matches and the tournaments' webhook URLs: keep it private (mode 0600, an encrypted "
    "backup store)"
)
"""What every export says on stderr."""


def _fail(message: str, code: int = 2) -> int:
    print(f"cardarena: error: {message}", file=sys.stderr)
    return code


@contextlib.contextmanager
def _client(args: argparse.Namespace) -> Iterator[Any]:
    from .store.connection import chosen_redis, client_for

    with chosen_redis(args.redis_url, "cardarena data") as url:
        client = client_for(url)
        try:
            yield client
        finally:
            client.close()


def _export(args: argparse.Namespace) -> int:
    import tempfile

    import redis

    from . import __version__
    from .store import dump
    from .store.keys import prefix
    from .summary import how_many

    where = args.prefix or prefix()
    if args.file == "-" and sys.stdout.isatty():
        return _fail("refusing to write the (gzipped) export to a terminal: give a FILE or redirect stdout")
    path = None if args.file == "-" else Path(args.file)
    if path is not None and path.is_dir():
        return _fail(f"{path} is a directory")
    print(PRIVATE_WARNING, file=sys.stderr, flush=True)
    partial: Path | None = None
    try:
        with _client(args) as client:
            if path is None:
                count = dump.export(client, where, sys.stdout.buffer, {"cardarena": __version__})
                sys.stdout.buffer.flush()
            else:
                # A new file of our own (O_EXCL, mode 0600), never one found there: a name known in
                # advance (FILE.partial) in a directory others write to (/tmp) could be their
                # symbolic link (the export written over any file of ours it names) or their file
                # (they would read it).  Renamed into place once complete.
                fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
                partial = Path(name)
                with os.fdopen(fd, "wb") as out:
                    count = dump.export(client, where, out, {"cardarena": __version__})
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(partial, path)
    except (redis.RedisError, OSError, ValueError) as exc:
        if partial is not None:
            partial.unlink(missing_ok=True)
        return _fail(f"export failed, no file written: {exc}" if path is not None else f"export failed: {exc}", 1)
    said = f"cardarena data export: {how_many(count, 'key')} under the prefix {where!r} written to {args.file}"
    print(said, file=sys.stderr)
    return 0


@contextlib.contextmanager
def _source(name: str) -> Iterator[IO[bytes]]:
    """The file to import, seekable: stdin (``-``) is copied to a temporary file first."""
    import shutil
    import tempfile

    if name != "-":
        with open(name, "rb") as f:
            yield f
        return
    with tempfile.TemporaryFile(prefix="cardarena-import-") as tmp:
        shutil.copyfileobj(sys.stdin.buffer, tmp)
        tmp.seek(0)
        yield tmp


def _import(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    import redis

    from .store import dump
    from .store.keys import prefix
    from .summary import how_many

    if args.prefix == "":
        return _fail("--prefix must not be empty (every key of the Redis)")
    label = "stdin" if args.file == "-" else args.file
    try:
        with _source(args.file) as source, _client(args) as client:
            head, count = dump.import_export(client, source, args.prefix, replace=args.replace)
    except FileNotFoundError:
        return _fail(f"{label}: no such file")
    except dump.DumpError as exc:
        return _fail(f"{label}: {exc}; nothing written")
    except dump.KeysExist as exc:
        target = args.prefix or "the file's prefix"
        exist = "exists" if exc.count == 1 else "exist"
        return _fail(
            f"{exc.count} of the file's keys {exist} already under {target} (e.g. {', '.join(exc.names)}); "
            "nothing written: import under an unused --prefix, or overwrite them with --replace"
        )
    except (redis.RedisError, OSError) as exc:
        return _fail(f"import failed: {exc}", 1)
    target = args.prefix or head["prefix"]
    when = datetime.fromtimestamp(float(head.get("exported_at", 0)), UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    print(
        f"cardarena data import: {how_many(count, 'key')} written under the prefix {target!r} "
        f"(exported under {head['prefix']!r} at {when} by cardarena {head.get('cardarena', '?')})",
        file=sys.stderr,
    )
    if target != prefix():
        print(f"  the deployment using them needs CARDARENA_PREFIX={target}", file=sys.stderr)
    return 0


def register(sub: Any) -> None:
    """Add ``cardarena data export`` and ``import`` to the ``cardarena`` parser."""
    data = sub.add_parser(
        "data",
        help="export a deployment's data to a file, or import one (backups, moving to another Redis)",
        description="A logical backup: every key under the key prefix, type by type, with its time to live. "
        "It is not atomic across keys; for an atomic backup of a whole Redis use its own RDB/AOF files "
        "(docs/deploy.md, 'Backups and moving a deployment').",
    )
    data_sub = data.add_subparsers(dest="data", required=True)
    exp = data_sub.add_parser(
        "export",
        help="write every key under the prefix to FILE (gzipped JSON lines); it holds token hashes and seeds",
        description="Write every key under the key prefix to FILE (gzipped JSON lines: a header, one line per "
        "key, an end line with the count), read key by key from a running deployment. The file holds "
        "every bot's token hash and the secret tournament seeds: keep it private.",
    )
    exp.add_argument("file", metavar="FILE", help="the file to write (mode 0600, replaced at the end); - for stdout")
    exp.add_argument("--prefix", help="the key prefix to export (default: $CARDARENA_PREFIX, else ca:)")
    add_redis_url(exp)
    exp.set_defaults(func=_export)
    imp = data_sub.add_parser(
        "import",
        help="load an export into a Redis (refuses if any of its keys exists, unless --replace)",
        description="Load an export into a Redis, under the file's key prefix or --prefix. The whole file "
        "is checked first: a bad file, or any key that exists already (without --replace), is an error "
        "(exit status 2) and nothing is written.",
    )
    imp.add_argument("file", metavar="FILE", help="the export to load; - for stdin")
    imp.add_argument("--prefix", help="load the keys under this key prefix (default: the one they were exported from)")
    imp.add_argument(
        "--replace", action="store_true", help="overwrite keys that exist (other keys under the prefix are kept)"
    )
    add_redis_url(imp)
    imp.set_defaults(func=_import)
