"""``cardarena data export`` and ``import`` (:mod:`cardarena.store.dump`): a deployment's data
moved to another key prefix shows the same on the dashboard and API, its tokens still work; an
import never writes over existing keys unless asked and never writes a bad file at all."""

from __future__ import annotations

import base64
import gzip
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cardarena.cli import main
from cardarena.store import dump
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchStore
from cardarena.store.tournaments import TournamentStore
from cardarena_dashboard import create_app

from .tournament_fixtures import LocalMatchPlayer, WorkerProcess, tournament_report, wait_for
from .upgrade_fixture import FIXTURES, load_fixture, read_fixture


@pytest.fixture
def deployment(redis_url: str, key_prefix: str) -> Iterator[tuple[Any, dict[str, Any]]]:
    """A Redis client and the newest upgrade fixture's data, loaded under the test's prefix."""
    client = client_for(redis_url)
    data = read_fixture(FIXTURES[-1])
    load_fixture(client, data, key_prefix)
    _hold_lapsing_keys(client, key_prefix)
    yield client, data
    client.close()


def _hold_lapsing_keys(client: Any, prefix: str) -> None:
    """Give every key that would lapse within a minute (a live-standings turn of a few seconds,
    a lease) ten minutes: otherwise one could be gone from one side of a comparison and not
    the other (the export would still carry its TTL)."""
    for name in client.scan_iter(match=dump.match_pattern(prefix), count=1000):
        if 0 < client.pttl(name) < 60_000:
            client.pexpire(name, 600_000)


@pytest.fixture
def target(redis_url: str, key_prefix: str) -> Iterator[str]:
    """A fresh prefix to import into; its keys are removed afterwards."""
    prefix = key_prefix.rstrip(":") + "-moved:"
    yield prefix
    client = client_for(redis_url)
    names = list(client.scan_iter(match=dump.match_pattern(prefix), count=1000))
    if names:
        client.delete(*names)
    client.close()


def _keys(client: Any, prefix: str) -> dict[str, dict[str, Any]]:
    """Every key under ``prefix`` as the export has it; a TTL only as whether there is one, a
    pending entry without its idle time (both tick on)."""
    out = {}
    for name, entry in dump.export_entries(client, prefix):
        entry["ttl_ms"] = entry["ttl_ms"] > 0
        for group in entry.get("groups", []):
            for pending in group["pending"]:
                pending[2] = None
        out[name] = entry
    return out


def _view(redis_url: str, monkeypatch: pytest.MonkeyPatch, prefix: str) -> dict[str, Any]:
    """What the API shows of the deployment under ``prefix``: bots, tournaments with their
    standings and matches, every match with its replay (or why it is withheld), schedules."""
    monkeypatch.setenv("CARDARENA_PREFIX", prefix)
    web = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()

    def get(url: str) -> Any:
        response = web.get("/api/v1" + url)
        return response.status_code, response.get_json()

    seen: dict[str, Any] = {}
    for url in ("/bots?limit=100", "/tournaments?limit=100", "/schedules", "/matches?limit=200"):
        seen[url] = get(url)
    for row in seen["/tournaments?limit=100"][1]["items"]:
        tid = row["id"]
        for url in (f"/tournaments/{tid}", f"/tournaments/{tid}/standings", f"/tournaments/{tid}/matches?limit=200"):
            seen[url] = get(url)
    for row in seen["/matches?limit=200"][1]["items"]:
        seen[f"/matches/{row['id']}"] = get(f"/matches/{row['id']}")
        seen[f"/matches/{row['id']}/replay"] = get(f"/matches/{row['id']}/replay")
    return seen


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


def _settled_live_deployment(redis_url: str, key_prefix: str, client: Any, data: dict[str, Any]) -> None:
    """Let a real worker, beat and match player finish the fixture's running tournament (Celery's
    own keys, heartbeats and leases are stored meanwhile), then stop them all."""
    ts, ms = TournamentStore(client), MatchStore(client)
    running = data["running"]
    started = [
        WorkerProcess(redis_url, key_prefix, "worker", "--pool", "threads", "--concurrency", "2").start(),
        WorkerProcess(redis_url, key_prefix, "beat", "--state", f"/tmp/{key_prefix}beat").start(),
    ]
    try:
        with LocalMatchPlayer(redis_url, key_prefix) as player:
            wait_for(
                lambda: ts.require(running).status == "finished",
                120,
                "the running tournament to finish",
                report=lambda: tournament_report(ts, ms, running, workers=started, players=[player]),
            )
    finally:
        for process in started:
            process.kill()
    Path(f"/tmp/{key_prefix}beat").unlink(missing_ok=True)
    _hold_lapsing_keys(client, key_prefix)


def test_a_deployment_moved_to_another_prefix_shows_the_same_and_its_tokens_work(
    deployment: tuple[Any, dict[str, Any]],
    redis_url: str,
    key_prefix: str,
    target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    client, data = deployment
    _settled_live_deployment(redis_url, key_prefix, client, data)
    # a result event delivered to a worker that died before acknowledging it: kept as pending
    stream = MatchStore(client).STREAM
    client.xgroup_create(stream, "audit", id="0")
    client.xreadgroup("audit", "auditor-1", {stream: ">"}, count=2)
    source = _keys(client, key_prefix)
    assert any(name.startswith("celery:") for name in source)  # Celery's keys are under the prefix too
    assert any(entry["ttl_ms"] for entry in source.values())

    # No stored value names a key: moving to another prefix needs only the key names rewritten.
    for name, entry in source.items():
        assert key_prefix not in json.dumps(_decoded(entry)), name

    out = tmp_path / "backup.json.gz"
    code, err = _run(["data", "export", str(out), "--redis-url", redis_url], capsys)
    assert code == 0, err
    assert "token hash" in err and "keep it private" in err
    assert f"{len(source)} keys under the prefix {key_prefix!r} written to {out}" in err
    assert out.stat().st_mode & 0o077 == 0  # private to its owner
    head, entries = dump.read_export(io.BytesIO(out.read_bytes()))
    assert head["format"] == "cardarena-export" and head["version"] == 1 and head["prefix"] == key_prefix
    assert head["cardarena"] and head["redis"] and head["exported_at"] > 0
    assert sum(1 for _ in entries) == len(source)

    code, err = _run(["data", "import", str(out), "--prefix", target, "--redis-url", redis_url], capsys)
    assert code == 0, err
    assert f"{len(source)} keys written under the prefix {target!r}" in err
    assert f"CARDARENA_PREFIX={target}" in err

    moved = _keys(client, target)
    assert moved == source  # every key, type, value, stream group and pending entry, TTL kept
    pending = client.xpending_range(target + stream.removeprefix(key_prefix), "audit", "-", "+", 10)
    assert [p["consumer"] for p in pending] == [b"auditor-1", b"auditor-1"]

    before = _view(redis_url, monkeypatch, key_prefix)
    after = _view(redis_url, monkeypatch, target)
    assert after == before
    tournaments = before["/tournaments?limit=100"][1]["items"]
    assert {t["status"] for t in tournaments} >= {"finished"} and len(tournaments) >= 3
    assert all(before[f"/tournaments/{t['id']}/standings"][1]["items"] for t in tournaments)
    replays = [v for k, v in before.items() if k.endswith("/replay")]
    assert sum(1 for status, _ in replays if status == 200) >= 20

    bots = BotStore(client)  # CARDARENA_PREFIX is the target's now
    for name, token in data["tokens"].items():
        assert bots.authenticate(token) == name
    assert bots.authenticate(next(iter(data["tokens"].values())) + "x") is None


def _decoded(entry: dict[str, Any]) -> Any:
    """An entry's value with its base64 decoded (as text, bytes that are not UTF-8 escaped)."""

    def text(b64: str) -> str:
        return base64.b64decode(b64).decode(errors="backslashreplace")

    value, kind = entry["value"], entry["type"]
    if kind == "string":
        return text(value)
    if kind == "hash":
        return {text(k): text(v) for k, v in value.items()}
    if kind == "zset":
        return [text(m) for m, _ in value]
    if kind == "stream":
        return [[i, {text(k): text(v) for k, v in f.items()}] for i, f in value], entry["groups"]
    return [text(v) for v in value]


def test_import_refuses_existing_keys_unless_replace(
    deployment: tuple[Any, dict[str, Any]],
    redis_url: str,
    key_prefix: str,
    target: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    client, _ = deployment
    out = tmp_path / "backup.json.gz"
    assert _run(["data", "export", str(out), "--prefix", key_prefix, "--redis-url", redis_url], capsys)[0] == 0
    assert _run(["data", "import", str(out), "--prefix", target, "--redis-url", redis_url], capsys)[0] == 0
    count = len(_keys(client, target))

    # one key changed, one deleted since: a second import refuses and writes nothing
    client.hset(f"{target}tournament:glaves2", "name", "changed")
    client.delete(f"{target}bots")
    code, err = _run(["data", "import", str(out), "--prefix", target, "--redis-url", redis_url], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("cardarena: error: ")
    assert f"{count - 1} of the file's keys exist already under {target}" in err and "--replace" in err
    assert client.hget(f"{target}tournament:glaves2", "name") == b"changed"
    assert not client.exists(f"{target}bots")

    # the source's own prefix (the file's, no --prefix) is refused the same way
    code, err = _run(["data", "import", str(out), "--redis-url", redis_url], capsys)
    assert code == 2 and "exist already under the file's prefix" in err

    client.set(f"{target}extra", "kept")
    code, err = _run(["data", "import", str(out), "--prefix", target, "--replace", "--redis-url", redis_url], capsys)
    assert code == 0, err
    assert _keys(client, target).keys() == {*_keys(client, key_prefix), "extra"}
    assert client.hget(f"{target}tournament:glaves2", "name") == client.hget(f"{key_prefix}tournament:glaves2", "name")


def test_one_key_is_said_in_the_singular(
    redis_url: str, key_prefix: str, target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression: "1 keys written", "1 of the file's keys exist already", "cut short after 1 keys"."""
    client = client_for(redis_url)
    client.set(f"{key_prefix}only", "1")
    out = tmp_path / "one.json.gz"
    code, err = _run(["data", "export", str(out), "--redis-url", redis_url], capsys)
    assert code == 0 and f"cardarena data export: 1 key under the prefix {key_prefix!r}" in err
    code, err = _run(["data", "import", str(out), "--prefix", target, "--redis-url", redis_url], capsys)
    assert code == 0 and f"cardarena data import: 1 key written under the prefix {target!r}" in err
    code, err = _run(["data", "import", str(out), "--prefix", target, "--redis-url", redis_url], capsys)
    assert code == 2 and f"1 of the file's keys exists already under {target}" in err
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(_edit(lambda lines: lines[:-1])(out.read_bytes()))
    code, err = _run(["data", "import", str(cut), "--prefix", target + "x:", "--redis-url", redis_url], capsys)
    assert code == 2 and "the file is cut short after 1 key (no end line)" in err
    client.close()


def _gzip_lines(lines: list[Any]) -> bytes:
    return gzip.compress(b"".join(json.dumps(x).encode() + b"\n" for x in lines))


def _edit(transform: Callable[[list[dict[str, Any]]], list[Any]]) -> Callable[[bytes], bytes]:
    def apply(good: bytes) -> bytes:
        lines = [json.loads(line) for line in gzip.decompress(good).splitlines()]
        return _gzip_lines(transform(lines))

    return apply


def _bad_base64(lines: list[dict[str, Any]]) -> list[Any]:
    string = next(x for x in lines if x.get("type") == "string")
    string["value"] = "not base64!"
    return lines


BAD_FILES: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "empty": (lambda good: b"", "empty file"),
    "not gzip": (lambda good: b"{}\n", "not a gzipped cardarena export"),
    "gzip cut short": (lambda good: good[: len(good) // 2], "cut short"),
    "not JSON": (lambda good: gzip.compress(b"hello\n"), "first line is not JSON"),
    "another format": (_edit(lambda lines: [{"format": "other"}, *lines[1:]]), "not a cardarena export"),
    "a newer version": (_edit(lambda lines: [{**lines[0], "version": 2}, *lines[1:]]), "format version 2"),
    "no end line": (_edit(lambda lines: lines[:-1]), "cut short after"),
    "wrong count": (_edit(lambda lines: [*lines[:-1], {"end": True, "keys": 3}]), "ends saying 3 keys"),
    "a broken line": (_edit(lambda lines: [lines[0], [1, 2], *lines[1:]]), "line 2 is not a JSON object"),
    "a key twice": (_edit(lambda lines: [*lines[:-1], lines[1], {"end": True, "keys": len(lines) - 1}]), "twice"),
    "bad base64": (_edit(_bad_base64), "a malformed string value"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_file_is_one_line_and_writes_nothing(
    case: str,
    deployment: tuple[Any, dict[str, Any]],
    redis_url: str,
    key_prefix: str,
    target: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    client, _ = deployment
    good = io.BytesIO()
    dump.export(client, key_prefix, good, {"cardarena": "test"})
    spoil, message = BAD_FILES[case]
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(spoil(good.getvalue()))
    code, err = _run(["data", "import", str(bad), "--prefix", target, "--redis-url", redis_url], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"cardarena: error: {bad}: ") and "nothing written" in err
    assert message in err
    assert not list(client.scan_iter(match=dump.match_pattern(target)))


def test_export_never_writes_through_a_file_or_link_planted_beside_it(
    deployment: tuple[Any, dict[str, Any]], redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by a pentest: the export was written to ``FILE.partial``, opened without
    ``O_EXCL``, before being renamed into place.  In a directory others may write to (``/tmp``)
    another user could plant that name: a symbolic link to a file of the exporting user (the
    export, every token hash and secret seed, written over that file) or a file of their own
    that they can read.  The export goes to a new file of its own (0600), then into place."""
    victim = tmp_path / "victim.txt"
    victim.write_text("the owner's file\n")
    theirs = tmp_path / "theirs.bin"
    theirs.write_bytes(b"")
    theirs.chmod(0o666)
    for planted, target in (("link", victim), ("file", theirs)):
        out = tmp_path / f"backup-{planted}.json.gz"
        partial = out.with_name(out.name + ".partial")
        if planted == "link":
            partial.symlink_to(target)
        else:
            os.link(theirs, partial)  # the other user's file under the name the export used
        code, err = _run(["data", "export", str(out), "--redis-url", redis_url], capsys)
        assert code == 0, err
        assert out.stat().st_mode & 0o077 == 0 and not out.is_symlink()
        head, _ = dump.read_export(io.BytesIO(out.read_bytes()))
        assert head["format"] == "cardarena-export"
    assert victim.read_text() == "the owner's file\n"  # not written through the link
    assert theirs.read_bytes() == b""  # nothing of the export in their file
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".backup-")]  # no leftovers


def test_the_export_warns_of_the_webhook_urls_it_carries(
    redis_url: str, key_prefix: str, target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tournament's notification targets are secrets (each URL carries the token that posts
    to its channel) kept apart from the tournament: the export carries them to the new place,
    and its warning names them beside the token hashes and seeds (it named only those)."""
    from cardarena.store.notifications import NotificationStore
    from cardarena_tournament import lifecycle

    client = client_for(redis_url)
    hook = "https://hooks.example.org/services/T000/B000/secret-token"
    t = lifecycle.new_tournament(game="glaves", players=2, entrants=("a", "b"), deal_sets=1, tid="notified")
    assert TournamentStore(client).create(t, notify=[hook])
    out = tmp_path / "backup.json.gz"
    code, err = _run(["data", "export", str(out), "--redis-url", redis_url], capsys)
    assert code == 0, err
    assert "token hash" in err and "webhook URLs" in err and "keep it private" in err
    assert hook not in err
    code, err = _run(["data", "import", str(out), "--prefix", target, "--redis-url", redis_url], capsys)
    assert code == 0, err
    raw = client.hget(target + "tournament:notified:notify", "targets")
    assert raw is not None and json.loads(raw) == [hook]
    assert NotificationStore(client).targets("notified") == [hook]  # and where it was
    client.close()


def test_a_missing_file_and_an_empty_prefix_are_errors(
    redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _run(["data", "import", str(tmp_path / "nope.gz"), "--redis-url", redis_url], capsys)
    assert (code, err) == (2, f"cardarena: error: {tmp_path / 'nope.gz'}: no such file\n")
    code, err = _run(["data", "import", str(tmp_path / "nope.gz"), "--prefix", "", "--redis-url", redis_url], capsys)
    assert code == 2 and "--prefix must not be empty" in err


def test_export_to_stdout_piped_into_import_from_stdin(
    deployment: tuple[Any, dict[str, Any]], redis_url: str, key_prefix: str, target: str
) -> None:
    """``cardarena data export - | cardarena data import - --prefix P``, as real processes."""
    client, _ = deployment
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    command = [sys.executable, "-m", "cardarena.cli", "data"]
    export = subprocess.Popen([*command, "export", "-"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    imported = subprocess.run(
        [*command, "import", "-", "--prefix", target], env=env, stdin=export.stdout, capture_output=True, timeout=120
    )
    assert export.stdout is not None
    export.stdout.close()
    export_err = export.communicate(timeout=120)[1].decode()
    assert export.returncode == 0, export_err
    assert imported.returncode == 0, imported.stderr.decode()
    assert "keep it private" in export_err and "written to -" in export_err
    assert f"keys written under the prefix {target!r}" in imported.stderr.decode()
    assert _keys(client, target) == _keys(client, key_prefix)
