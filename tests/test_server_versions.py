"""Bot versions over real gRPC and a real Redis: ``Hello.version`` is checked, recorded per seat
in the replay and the result (``seat_versions``), a reconnect under another version is noted
(``version_changes``), and the SDK sends its bot's version."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from cardarena.engine import rerun
from cardarena.store.bots import BotStore
from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore, TimeControl
from cardarena_sdk import load_bot
from cardarena_sdk.bot import file_version

from .server_harness import ScriptedBot, ServiceProcess, pb
from .test_server import wait_done

CALM = TimeControl(move_ms=10_000, bank_ms=0)


@pytest.fixture
def service(redis_url: str, key_prefix: str) -> Iterator[ServiceProcess]:
    svc = ServiceProcess(redis_url, "--grace", "0")
    yield svc
    svc.stop()


def _hello(name: str, version: str) -> Any:
    return pb.BotMessage(hello=pb.Hello(bot=name, max_matches=4, version=version))


def _spec(mid: str, seats: tuple[str, str]) -> MatchSpec:
    return MatchSpec(
        mid, "german_whist", 2, seats, seed=3, time_control=CALM, fault_policy=FaultPolicy(join_timeout_ms=10_000)
    )


def _done(matches: MatchStore, mid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The match's result and replay once it is recorded (the replay re-runs)."""
    result, replay = wait_done(matches, mid), matches.replay(mid)
    assert replay is not None
    rerun(replay)
    return result, replay


def test_each_seat_records_the_version_its_bot_declared_and_an_old_client_none(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    matches, bots = stores
    new = ScriptedBot(service.address, bots.register("vera"), hello=_hello("vera", "v3 (greedy)"))
    old = ScriptedBot(service.address, bots.register("olaf"), "olaf")  # no version: as clients before it
    new.expect("welcome")
    old.expect("welcome")
    new.autoplay()
    old.autoplay()
    try:
        matches.enqueue(_spec("versions", ("olaf", "vera")))
        result, replay = _done(matches, "versions")
        assert replay["seat_versions"] == [None, "v3 (greedy)"]
        assert result["seat_versions"] == [None, "v3 (greedy)"]
        assert "version_changes" not in replay
    finally:
        new.close()
        old.close()


def test_a_match_of_bots_without_versions_keeps_the_results_shape(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    matches, bots = stores
    a = ScriptedBot(service.address, bots.register("old-a"), "old-a")
    b = ScriptedBot(service.address, bots.register("old-b"), "old-b")
    a.autoplay()
    b.autoplay()
    try:
        matches.enqueue(_spec("unversioned", ("old-a", "old-b")))
        result, replay = _done(matches, "unversioned")
        assert replay["seat_versions"] == [None, None]
        assert "seat_versions" not in result
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize(
    ("version", "said"),
    [("x" * 65, "at most 64 characters, not 65"), ("v1\n", "printable"), ("a\tb", "printable"), ("\x00", "printable")],
)
def test_an_invalid_version_is_refused_with_invalid_argument(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore], version: str, said: str
) -> None:
    _, bots = stores
    token = bots.register("bad-version")
    refused = ScriptedBot(service.address, token, hello=_hello("bad-version", version))
    assert refused.status() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.error is not None and said in refused.error.details() and "version" in refused.error.details()
    # The longest label is accepted, and the refused stream gave its session slot back.
    fine = ScriptedBot(service.address, token, hello=_hello("bad-version", "é" * 64))
    assert fine.expect("welcome").bot == "bad-version"
    fine.close()


def test_a_reconnect_under_another_version_is_recorded_as_a_change(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore]
) -> None:
    """The seat keeps the version it started with (``seat_versions``); the session that took
    it over mid-match under another label is listed in ``version_changes`` with where."""
    matches, bots = stores
    token = bots.register("rita")
    first = ScriptedBot(service.address, token, hello=_hello("rita", "v1"))
    other = ScriptedBot(service.address, bots.register("sam"), hello=_hello("sam", "s1"))
    first.expect("welcome")
    other.autoplay()
    matches.enqueue(_spec("changed", ("rita", "sam")))
    asked = first.expect("action_request")
    first.act(asked.match_id, asked.seq, asked.legal[0].id)
    first.expect("event")
    first.close()
    again = ScriptedBot(service.address, token, hello=_hello("rita", "v2"))
    try:
        assert list(again.expect("welcome").resumed) == ["changed"]
        again.autoplay()
        _, replay = _done(matches, "changed")
        assert replay["seat_versions"] == ["v1", "s1"]
        changes = replay["version_changes"]
        assert [(c["seat"], c["version"]) for c in changes] == [(0, "v2")]
        assert changes[0]["action_index"] >= 1  # after the move v1 made
    finally:
        again.close()
        other.close()


BOT_FILE = """
from cardarena_sdk import Bot


class Steady(Bot):
    {version}

    def choose(self, view, legal):
        return legal[0].id
"""


def test_the_sdk_sends_its_bots_version_and_bot_run_version_overrides_it(
    service: ServiceProcess, stores: tuple[MatchStore, BotStore], tmp_path: Path
) -> None:
    matches, bots = stores
    labelled = tmp_path / "labelled.py"
    labelled.write_text(BOT_FILE.format(version='version = "sdk-2"'))
    overridden = tmp_path / "overridden.py"
    overridden.write_text(BOT_FILE.format(version='version = "not-sent"'))
    procs = [
        service.bot_process(str(labelled), "sdk-a", bots.register("sdk-a")),
        service.bot_process(str(overridden), "sdk-b", bots.register("sdk-b"), "--version", "cli-9"),
    ]
    try:
        matches.enqueue(_spec("sdk-versions", ("sdk-a", "sdk-b")))
        result, replay = _done(matches, "sdk-versions")
        assert replay["seat_versions"] == result["seat_versions"] == ["sdk-2", "cli-9"]
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)


def test_a_bot_file_without_a_version_plays_under_its_content_hash(tmp_path: Path) -> None:
    path = tmp_path / "plain.py"
    path.write_text(BOT_FILE.format(version="pass"))
    label = load_bot(str(path)).version
    assert label == file_version(path) and label.startswith("sha256:") and len(label) == 19
    path.write_text(BOT_FILE.format(version="pass") + "# edited\n")
    assert file_version(path) != label
    assert load_bot("random").version == ""  # a built-in bot declares none


def test_a_bot_with_an_invalid_version_is_refused_before_it_connects(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_text(BOT_FILE.format(version='version = "two\\nlines"'))
    with pytest.raises(ValueError, match="printable"):
        load_bot(str(path))
