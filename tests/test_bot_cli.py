"""``cardarena bot register|run`` and ``cardarena service`` as a bot author uses them: what
``bot run`` says while it connects, and the README flow on a fresh machine (no REDIS_URL: the
service and the registration share the user's embedded default)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest
from cardarena.cli import build_parser
from cardarena.server.commands import stop_process
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for, free_port

from .dashboard_data import CLASS_IN_PEOPLE_ORDER
from .server_harness import ScriptedBot, ServiceProcess

CLI = [sys.executable, "-m", "cardarena.cli"]


def _fresh_env(tmp_path: Path) -> dict[str, str]:
    """A user with no REDIS_URL and an empty data directory."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CARDARENA_PREFIX")}
    home = tmp_path / "home"
    return {**env, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")}


def _read_until(stream: IO[str], needle: str, timeout: float = 30.0) -> str:
    """Lines of ``stream`` up to the first containing ``needle``."""
    seen = ""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        assert time.monotonic() < deadline, seen
        line = stream.readline()
        assert line, f"stream ended before {needle!r}: {seen}"
        seen += line
    return seen


def _bot_run(argv: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, "bot", "run", *argv], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def _interrupt(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    return err


def test_bot_run_says_when_it_cannot_connect_and_when_it_retries(tmp_path: Path) -> None:
    server = f"127.0.0.1:{free_port()}"  # nobody listens
    proc = _bot_run(["random", "--server", server, "--token", "t"], _fresh_env(tmp_path))
    try:
        seen = _read_until(proc.stderr, "retrying in")  # type: ignore[arg-type]
        seen += _read_until(proc.stderr, "retrying in")  # type: ignore[arg-type]
    finally:
        seen += _interrupt(proc)
    assert seen.count(f"WARNING cardarena_sdk: cannot reach {server} (UNAVAILABLE: ") >= 2
    assert "Connection refused; nothing listens there: is the service running (cardarena up)" in seen
    assert f"stopped: no more sessions to {server}" in seen


def test_bot_run_warns_that_a_token_on_its_command_line_is_readable_by_everyone(tmp_path: Path) -> None:
    """Found by a pentest: the README, the deploy guide and the line ``cardarena up`` prints
    all said ``bot run ... --token <token>``, and every user of a shared machine reads command
    lines (``ps``): the token, and with it the bot's seats, were theirs.  The environment
    (``CARDARENA_TOKEN``) is the owner's alone."""
    server = f"127.0.0.1:{free_port()}"  # nobody listens: it connects, fails and retries
    warning = "cardarena: warning: --token puts the token on this command line, which every user"
    seen = {}
    for how, argv, env in (
        ("--token", ["random", "--server", server, "--token", "t.s"], _fresh_env(tmp_path)),
        ("env", ["random", "--server", server], {**_fresh_env(tmp_path), "CARDARENA_TOKEN": "t.s"}),
    ):
        proc = _bot_run(argv, env)
        try:
            seen[how] = _read_until(proc.stderr, "retrying in")  # type: ignore[arg-type]
        finally:
            seen[how] += _interrupt(proc)
    assert warning in seen["--token"] and "set CARDARENA_TOKEN instead" in seen["--token"]
    assert warning not in seen["env"]


def test_bot_run_refuses_a_url_for_an_address(tmp_path: Path) -> None:
    done = subprocess.run(
        [*CLI, "bot", "run", "random", "--server", "http://127.0.0.1:50051", "--token", "t"],
        env=_fresh_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "cardarena: error: --server 'http://127.0.0.1:50051': give host:port ('127.0.0.1:50051') without http://\n"
    )


def test_bot_run_says_where_it_connected(redis_url: str, key_prefix: str) -> None:
    service = ServiceProcess(redis_url)
    try:
        token = BotStore(client_for(redis_url)).register("talker")
        proc = _bot_run(["random", "--server", service.address, "--token", token], dict(service.env))
        try:
            seen = _read_until(proc.stderr, "connected to")  # type: ignore[arg-type]
        finally:
            seen += _interrupt(proc)
        assert f"INFO cardarena_sdk: connected to {service.address} as talker (instance " in seen
    finally:
        service.stop()


def test_bot_run_with_a_wrong_token_says_so_in_one_line_and_stops(redis_url: str, key_prefix: str) -> None:
    """A student's mistyped token: ``bot run`` prints the refusal, once, and exits 1 (it does
    not retry a refused token); before it, now and then, a line ``INTERNAL: Internal error from
    Core`` and a retry (the service's end of the stream raced the Hello: see
    tests/test_sdk_client.py, which repeats the connect enough times to catch it)."""
    service = ServiceProcess(redis_url, "--grace", "0", "--failed-auths-per-minute", "0")
    try:
        for attempt in range(3):
            env = {**service.env, "CARDARENA_TOKEN": f"{attempt:016x}.mistyped"}
            done = subprocess.run(
                [*CLI, "bot", "run", "random", "--server", service.address],
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 1
            assert done.stderr.splitlines() == [
                f"cardarena: error: {service.address}: UNAUTHENTICATED: missing or invalid bearer token; check the "
                "token: the one `cardarena bot register NAME` printed, for the service at this address "
                "(`cardarena bot token NAME` issues a new one)"
            ]
    finally:
        service.stop()


def test_the_readme_flow_works_without_redis_url(tmp_path: Path) -> None:
    """``cardarena service`` in one shell, ``cardarena bot register`` in another: both find the
    same embedded default, so the printed token works on the service."""
    env = _fresh_env(tmp_path)
    port = free_port()
    service = subprocess.Popen(
        [*CLI, "service", "--port", str(port), "--grace", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert service.stdout is not None
        line = service.stdout.readline()
        assert json.loads(line) == {"event": "listening", "port": port}
        done = subprocess.run(
            [*CLI, "bot", "register", "low-card"], env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert "cardarena: embedded Redis at redis://:***@127.0.0.1:" in done.stderr  # its password hidden
        bot = ScriptedBot(f"127.0.0.1:{port}", done.stdout.strip(), "low-card")
        try:
            assert bot.expect("welcome").bot == "low-card"
        finally:
            bot.close()
    finally:
        stop_process(service)  # type: ignore[arg-type]
    assert service.returncode == 0
    data = tmp_path / "home" / ".local" / "share" / "cardarena" / "redis"
    assert (data / "users").is_dir() and not list((data / "users").iterdir())  # both detached


def test_bot_run_help_gives_the_default_server(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bot", "run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--server SERVER the service's gRPC address (default 127.0.0.1:50051, as `cardarena up` listens)" in text


def test_bot_token_replaces_a_token_and_ends_the_sessions_open_with_it(redis_url: str, key_prefix: str) -> None:
    """A lost or leaked token: `bot token NAME` prints a new one; the old one no longer
    connects, and a session already open with it is ended UNAUTHENTICATED within seconds
    (not only at its next connect); the new token plays on."""
    import grpc
    from cardarena.store.presence import PresenceStore

    client = client_for(redis_url)
    old = BotStore(client).register("alice")
    service = ServiceProcess(redis_url)
    bots: list[ScriptedBot] = []
    try:
        bots.append(ScriptedBot(service.address, old, "alice"))
        deadline = time.monotonic() + 30
        while not any("alice" in b for _, b in PresenceStore(client).snapshot().values()):
            assert time.monotonic() < deadline, "the session never showed in presence"
            time.sleep(0.1)
        env = {**os.environ, "REDIS_URL": redis_url}
        done = subprocess.run([*CLI, "bot", "token", "alice"], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        new = done.stdout.strip()
        assert new and new != old and "shown once" in done.stderr
        assert bots[0].status(timeout=15) == grpc.StatusCode.UNAUTHENTICATED
        assert bots[0].error is not None and "replaced" in bots[0].error.details()
        bots.append(ScriptedBot(service.address, old, "alice"))
        assert bots[1].status() == grpc.StatusCode.UNAUTHENTICATED
        bots.append(ScriptedBot(service.address, new, "alice"))
        time.sleep(3)  # a few presence rounds: the new token's session stays open
        assert bots[2].error is None and None not in bots[2].received()
        unknown = subprocess.run([*CLI, "bot", "token", "bob"], env=env, capture_output=True, text=True, timeout=60)
        assert unknown.returncode == 2 and "no bot named 'bob'" in unknown.stderr
    finally:
        for b in bots:
            b.close()
        service.stop()
        client.close()


def test_bot_list_shows_the_registered_bots(redis_url: str, key_prefix: str) -> None:
    client = client_for(redis_url)
    store = BotStore(client)
    env = {**os.environ, "REDIS_URL": redis_url}
    listed = subprocess.run([*CLI, "bot", "list"], env=env, capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0 and listed.stdout.strip() == "no bots registered"
    store.register("<b>alice</b>")
    store.register("random-1", local=True)
    store.register("zed")
    store.retire("zed")
    store.count("<b>alice</b>", "matches", 3)
    store.count("<b>alice</b>", "timeouts", 2)
    lines = subprocess.run([*CLI, "bot", "list"], env=env, capture_output=True, text=True, timeout=60).stdout
    first, second, third = lines.splitlines()
    assert first.startswith("<b>alice</b>  registered ") and "3 matches  timeouts 2" in first
    assert second.startswith("random-1  (local run)") and "0 matches" in second
    assert third.startswith("zed  (retired)")
    data = json.loads(subprocess.run([*CLI, "bot", "list", "--json"], env=env, capture_output=True, text=True).stdout)
    assert [(b["name"], b["local"], b["retired"], b["matches"], b["timeouts"]) for b in data["bots"]] == [
        ("<b>alice</b>", False, False, 3, 2),
        ("random-1", True, False, 0, 0),
        ("zed", False, True, 0, 0),
    ]
    client.close()


def test_bot_list_sorts_names_as_people_read_them(redis_url: str, key_prefix: str) -> None:
    """Regression: ``bot list`` sorted by bytes, so a class's ``Bob``, ``_dora`` and
    ``<i>carol</i>`` came before ``alice`` and ``Émile`` after ``zed``; now case, accents and
    punctuation aside, numbers by value (``bot-2`` before ``bot-10``), text and JSON alike."""
    client = client_for(redis_url)
    store = BotStore(client)
    for name in reversed(CLASS_IN_PEOPLE_ORDER):
        store.register(name)
    env = {**os.environ, "REDIS_URL": redis_url}
    text = subprocess.run([*CLI, "bot", "list"], env=env, capture_output=True, text=True, timeout=60)
    assert [line.split("  ")[0] for line in text.stdout.splitlines()] == list(CLASS_IN_PEOPLE_ORDER)
    listed = subprocess.run([*CLI, "bot", "list", "--json"], env=env, capture_output=True, text=True, timeout=60)
    assert [b["name"] for b in json.loads(listed.stdout)["bots"]] == list(CLASS_IN_PEOPLE_ORDER)
    client.close()


def test_a_retired_bot_leaves_the_all_runs_of_a_schedule_and_keeps_its_history(redis_url: str, key_prefix: str) -> None:
    """A student leaves mid-term: ``cardarena bot retire NAME`` takes the bot out of the next
    ``--all`` runs (it would otherwise be a no-show in every match, for the rest of the term);
    its record and results stay, and ``--undo`` brings it back."""
    from cardarena.store.matches import MatchStore
    from cardarena.store.tournaments import TournamentStore
    from cardarena_tournament import lifecycle

    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    client = client_for(redis_url)
    bots, ts, ms = BotStore(client), TournamentStore(client), MatchStore(client)
    for name in ("ann", "bob", "cyd"):
        bots.register(name)
    template = {"game": "glaves", "players": 2, "entrants": "all", "deal_sets": 1}
    lifecycle.create_schedule(ts, "every 1d", template, sid="nightly", now=1_800_000_000.0)
    first = lifecycle.start_due_schedules(ts, ms, 1_800_000_000.0, bots.entrants)
    assert ts.require(first[0]).entrants == ("ann", "bob", "cyd")

    done = subprocess.run([*CLI, "bot", "retire", "bob"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "bob" in done.stdout and "2 bots" in done.stdout  # what --all takes now
    assert bots.entrants() == ["ann", "cyd"] and bots.get("bob") is not None  # the record stays
    ts.cancel(first[0])  # (runs never overlap)
    second = lifecycle.start_due_schedules(ts, ms, 1_800_086_400.0, bots.entrants)
    assert ts.require(second[0]).entrants == ("ann", "cyd")
    assert ts.require(first[0]).entrants == ("ann", "bob", "cyd")  # past runs are as they were

    back = subprocess.run([*CLI, "bot", "retire", "--undo", "bob"], env=env, capture_output=True, text=True, timeout=60)
    assert back.returncode == 0, back.stderr
    assert bots.entrants() == ["ann", "bob", "cyd"]
    nobody = subprocess.run([*CLI, "bot", "retire", "nobody"], env=env, capture_output=True, text=True, timeout=60)
    assert nobody.returncode == 2 and "nobody" in nobody.stderr


def test_a_bot_registered_by_mistake_is_deleted_and_one_that_played_is_only_retired(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A typo in a roster left a bot in ``bot list`` for good (it could only be retired):
    ``bot delete NAME`` deletes one that never played, and its name can be registered again; one
    with a history is refused, saying what it has and to retire it; a misspelt name is answered
    with the registered one it was probably meant to be."""
    from cardarena.cli import main
    from cardarena.store.matches import MatchSpec, MatchStore

    monkeypatch.setenv("REDIS_URL", redis_url)
    client = client_for(redis_url)
    store = BotStore(client)
    for name in ("ann", "bea", "Zoë"):
        store.register(name)
    MatchStore(client).enqueue(MatchSpec("m-1", "glaves", 2, ("ann", "bea"), seed=1))

    assert main(["bot", "delete", "Zoë"]) == 0
    out = capsys.readouterr()
    said = "Zoë: deleted (it never played); its token no longer connects, and the name can be registered again"
    assert out.out == said + "\n"
    assert main(["bot", "list", "--json"]) == 0
    assert [b["name"] for b in json.loads(capsys.readouterr().out)["bots"]] == ["ann", "bea"]
    assert main(["bot", "delete", "ann"]) == 2
    assert capsys.readouterr().err == (
        "cardarena: error: 'ann' cannot be deleted: it has a history (1 match); only a bot that never played and "
        "is in no tournament or schedule can be. `cardarena bot retire ann` takes it out of the --all tournaments "
        "that start from now on, and its results stay\n"
    )
    assert main(["bot", "delete", "zoe"]) == 2
    assert capsys.readouterr().err == "cardarena: error: no bot named 'zoe'\n"  # deleted: nothing close is left
    assert main(["bot", "delete", "Bea"]) == 2
    assert capsys.readouterr().err == "cardarena: error: no bot named 'Bea' (did you mean 'bea'?)\n"
    assert main(["bot", "register", "Zoë"]) == 0 and store.authenticate(capsys.readouterr().out.strip()) == "Zoë"
    client.close()


def test_registering_a_taken_name_says_how_to_get_a_new_token(redis_url: str, key_prefix: str) -> None:
    """A second `bot register NAME` is most often a lost token: the error points to `bot token`."""
    env = {**os.environ, "REDIS_URL": redis_url}
    first = subprocess.run([*CLI, "bot", "register", "alice"], env=env, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    again = subprocess.run([*CLI, "bot", "register", "alice"], env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and not again.stdout
    assert again.stderr.strip() == (
        "cardarena: error: a bot named 'alice' is already registered "
        "(lost its token? `cardarena bot token alice` issues a new one)"
    )


def test_a_class_is_registered_from_a_roster_in_one_command(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A course organiser registers the class at once: ``bot register --from roster.txt`` prints
    a ``name,token`` CSV to hand each student their token; a roster with a bad, repeated or taken
    name registers nothing; ``--skip-registered`` registers the students added since."""
    import csv

    from cardarena.cli import main

    monkeypatch.setenv("REDIS_URL", redis_url)
    client = client_for(redis_url)
    store = BotStore(client)
    roster = tmp_path / "roster.txt"
    roster.write_text("# week 1\nann\n\n  bea \ncy d\n", encoding="utf-8")

    assert main(["bot", "register", "--from", str(roster), "dan"]) == 0
    out = capsys.readouterr()
    rows = list(csv.reader(out.out.splitlines()))
    assert rows[0] == ["name", "token"] and [r[0] for r in rows[1:]] == ["dan", "ann", "bea", "cy d"]
    assert all(store.authenticate(token) == name for name, token in rows[1:])
    assert "registered 4 bots" in out.err

    roster.write_text("ann\neve\n", encoding="utf-8")
    assert main(["bot", "register", "--from", str(roster)]) == 2
    assert "already registered: ann" in capsys.readouterr().err and not store.exists("eve")
    assert main(["bot", "register", "fay", "fay", "g:h"]) == 2
    err = capsys.readouterr().err
    assert "'fay' is listed more than once" in err and "'g:h'" in err and "nothing was registered" in err
    assert not store.exists("fay")

    assert main(["bot", "register", "--from", str(roster), "--skip-registered"]) == 0
    out = capsys.readouterr()
    assert [r[0] for r in csv.reader(out.out.splitlines())] == ["name", "eve"]
    assert "skipped 1 already registered: ann" in out.err
    assert main(["bot", "register", "solo"]) == 0  # one name: the token alone, as before
    assert store.authenticate(capsys.readouterr().out.strip()) == "solo"
    client.close()


def test_skip_registered_with_one_name_skips_it_instead_of_refusing(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bot register NAME --skip-registered`` (a script adding one late student) ignored the
    flag and failed on a taken name: it is skipped (exit 0), a new one registered, as CSV."""
    import csv

    from cardarena.cli import main

    monkeypatch.setenv("REDIS_URL", redis_url)
    client = client_for(redis_url)
    store = BotStore(client)
    store.register("ann")
    assert main(["bot", "register", "ann", "--skip-registered"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines() == ["name,token"] and "skipped 1 already registered: ann" in out.err
    assert main(["bot", "register", "bea", "--skip-registered"]) == 0
    [(name, token)] = list(csv.reader(capsys.readouterr().out.splitlines()))[1:]
    assert name == "bea" and store.authenticate(token) == "bea"
    client.close()
