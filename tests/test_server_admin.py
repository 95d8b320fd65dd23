"""The ``Admin`` gRPC service over real gRPC on loopback with real Redis: authorisation by
``CARDARENA_ADMIN_TOKEN``, registration and listing, and every documented bad-input outcome."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.wire import codec

from .dashboard_data import CLASS_IN_PEOPLE_ORDER
from .server_harness import ScriptedBot, ServiceProcess, pb

ADMIN = "admin-secret-for-tests"


class AdminClient:
    """A raw ``Admin`` stub with a chosen ``authorization`` header (or none)."""

    def __init__(self, service: ServiceProcess) -> None:
        self.service = service
        self.channel = grpc.insecure_channel(service.address)
        self.stub = codec.arena_pb2_grpc.AdminStub(self.channel)

    @staticmethod
    def _metadata(auth: str | None) -> tuple[tuple[str, str], ...]:
        return () if auth is None else (("authorization", auth),)

    def register(self, name: str, auth: str | None = f"Bearer {ADMIN}") -> Any:
        return self.stub.RegisterBot(pb.RegisterBotRequest(name=name), metadata=self._metadata(auth), timeout=10)

    def list(self, auth: str | None = f"Bearer {ADMIN}") -> Any:
        return self.stub.ListBots(pb.ListBotsRequest(), metadata=self._metadata(auth), timeout=10)

    def delete(self, name: str, auth: str | None = f"Bearer {ADMIN}") -> Any:
        return self.stub.DeleteBot(pb.DeleteBotRequest(name=name), metadata=self._metadata(auth), timeout=10)

    def close(self) -> None:
        self.channel.close()


def status_of(call: Any) -> tuple[grpc.StatusCode, str]:
    """Run ``call`` expecting an RPC error; its status code and details."""
    with pytest.raises(grpc.RpcError) as info:
        call()
    error: Any = info.value
    return error.code(), error.details() or ""


@pytest.fixture
def admin(redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[AdminClient]:
    monkeypatch.setenv("CARDARENA_ADMIN_TOKEN", ADMIN)
    svc = ServiceProcess(redis_url)
    client = AdminClient(svc)
    yield client
    client.close()
    svc.stop()


@pytest.fixture
def bots(redis_url: str, key_prefix: str) -> BotStore:
    return BotStore(client_for(redis_url))


def test_admin_is_disabled_without_an_admin_token(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch, bots: BotStore
) -> None:
    monkeypatch.delenv("CARDARENA_ADMIN_TOKEN", raising=False)
    svc = ServiceProcess(redis_url)
    client = AdminClient(svc)
    try:
        for auth in (None, "Bearer ", f"Bearer {ADMIN}"):
            code, detail = status_of(lambda auth=auth: client.register("nobody", auth))
            assert code == grpc.StatusCode.PERMISSION_DENIED and "disabled" in detail
            assert status_of(lambda auth=auth: client.list(auth))[0] == grpc.StatusCode.PERMISSION_DENIED
        assert bots.names() == []
    finally:
        client.close()
        svc.stop()


def test_wrong_or_missing_admin_credentials_are_unauthenticated(admin: AdminClient, bots: BotStore) -> None:
    wrong = [
        None,
        "",
        "Bearer ",
        f"Bearer {ADMIN}x",
        f"Bearer {ADMIN[:-1]}",
        f"Basic {ADMIN}",
        ADMIN,
    ]
    for auth in wrong:
        code, detail = status_of(lambda auth=auth: admin.register("intruder", auth))
        assert code == grpc.StatusCode.UNAUTHENTICATED, auth
        assert "admin token" in detail
        assert status_of(lambda auth=auth: admin.list(auth))[0] == grpc.StatusCode.UNAUTHENTICATED
    assert bots.names() == []  # nothing was registered on the way
    # A bot's own token is no admin token either.
    token = bots.register("somebot")
    assert status_of(lambda: admin.list(f"Bearer {token}"))[0] == grpc.StatusCode.UNAUTHENTICATED
    # The scheme is case-insensitive, as for bot streams.
    assert [b.name for b in admin.list(f"bearer {ADMIN}").bots] == ["somebot"]


def test_register_returns_a_working_token_and_list_shows_stats(admin: AdminClient, bots: BotStore) -> None:
    reply = admin.register("alpha")
    assert reply.name == "alpha" and reply.token
    assert bots.authenticate(reply.token) == "alpha"
    # The token opens a bot stream on the same service.
    bot = ScriptedBot(admin.service.address, reply.token, "alpha")
    try:
        welcome = bot.expect("welcome")
        assert welcome.bot == "alpha"
    finally:
        bot.close()
    html = "<script>alert('x')</script> & co"
    assert admin.register(html).name == html  # HTML is text; consumers escape it
    longest = "n" * 64
    assert admin.register(longest).name == longest
    bots.count("alpha", "timeouts", 2)
    bots.count("alpha", "matches", 5)
    listed = {b.name: b for b in admin.list().bots}
    assert sorted(listed) == sorted(["alpha", html, longest])
    assert [b.name for b in admin.list().bots] == bots.listed() == ["alpha", longest, html]  # as people read them
    alpha = listed["alpha"]
    assert (alpha.matches, alpha.timeouts, alpha.illegal_actions, alpha.disconnects, alpha.forfeits) == (5, 2, 0, 0, 0)
    assert alpha.created_at > 1.6e9
    # A registered token is returned once: listing never shows it.
    assert reply.token.encode() not in admin.list().SerializeToString()


INVALID_NAMES = [
    ("", "empty"),
    ("x" * 65, "at most 64"),
    (" padded", "space"),
    ("padded ", "space"),
    ("new\nline", "printable"),
    ("nul\0byte", "printable"),
]


def test_invalid_names_are_refused_with_a_reason(admin: AdminClient, bots: BotStore) -> None:
    for name, why in INVALID_NAMES:
        code, detail = status_of(lambda name=name: admin.register(name))
        assert code == grpc.StatusCode.INVALID_ARGUMENT, name
        assert why in detail, (name, detail)
    assert bots.names() == [] and list(admin.list().bots) == []


def test_duplicate_name_is_already_exists_and_keeps_the_first_token(admin: AdminClient, bots: BotStore) -> None:
    first = admin.register("twin").token
    code, detail = status_of(lambda: admin.register("twin"))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    assert "already registered" in detail
    assert bots.authenticate(first) == "twin"  # nothing lost
    assert [b.name for b in admin.list().bots] == ["twin"]


def test_list_bots_sorts_names_as_people_read_them(admin: AdminClient, bots: BotStore) -> None:
    """``ListBots`` in the order of ``cardarena bot list`` and the dashboard, not bytes."""
    for name in reversed(CLASS_IN_PEOPLE_ORDER):
        admin.register(name)
    assert [b.name for b in admin.list().bots] == list(CLASS_IN_PEOPLE_ORDER)


def test_delete_bot_deletes_one_that_never_played_and_ends_its_sessions(admin: AdminClient, bots: BotStore) -> None:
    """``DeleteBot``, as ``cardarena bot delete``: a bot that never played is deleted (a session
    open with its token is ended ``UNAUTHENTICATED`` within seconds, saying so) and its name can
    be registered again; ``NOT_FOUND`` for an unknown bot, ``FAILED_PRECONDITION`` for one with
    a history; the admin token is required."""
    from cardarena.store.matches import MatchSpec, MatchStore

    token = admin.register("leaver").token
    session = ScriptedBot(admin.service.address, token, "leaver")
    try:
        session.expect("welcome")
        assert status_of(lambda: admin.delete("leaver", "Bearer wrong"))[0] == grpc.StatusCode.UNAUTHENTICATED
        assert admin.delete("leaver").name == "leaver"
        assert session.status(timeout=15) == grpc.StatusCode.UNAUTHENTICATED
        assert session.error is not None and "this bot was deleted" in session.error.details()
    finally:
        session.close()
    assert not bots.exists("leaver") and bots.authenticate(token) is None
    code, detail = status_of(lambda: admin.delete("Leaver"))
    assert code == grpc.StatusCode.NOT_FOUND and detail == "no bot named 'Leaver'"
    admin.register("player")
    MatchStore(bots.r).enqueue(MatchSpec("m-1", "glaves", 2, ("player", "leaver"), seed=1))
    code, detail = status_of(lambda: admin.delete("player"))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "(1 match)" in detail and "bot retire player" in detail
    assert admin.register("leaver").name == "leaver"  # the name is free again
    assert [b.name for b in admin.list().bots] == ["leaver", "player"]
