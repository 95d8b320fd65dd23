"""The limit on failed authentications per address (``cardarena service
--failed-auths-per-minute``): a real service over loopback gRPC with real Redis refuses a flood
of bad-token streams unchecked once the limit is reached, keeps admitting the tokens that
connected from that address before, and counts both on ``/metrics``; wrong admin tokens on the
``Admin`` service count toward the same limit, and the address's admin calls are then refused
whatever their token; the limiter itself with a fake clock (the sliding minute, the cool-down,
the bound on addresses)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import grpc
import pytest
from cardarena.server.authlimit import FailedAuthLimit, host_address, peer_address
from cardarena.store.bots import BotStore
from cardarena.store.matches import MatchStore

from .server_harness import ScriptedBot, ServiceProcess
from .test_server_admin import ADMIN, AdminClient, status_of
from .test_server_metrics import free_port, scrape, value


@pytest.fixture
def limited(redis_url: str, key_prefix: str) -> Iterator[tuple[ServiceProcess, int]]:
    port = free_port()
    svc = ServiceProcess(redis_url, "--metrics-port", str(port), "--grace", "0")  # the default limit, 30
    yield svc, port
    svc.stop()


def ended(address: str, token: str, name: str = "") -> tuple[grpc.StatusCode, str]:
    """The status (and details) a stream opened with ``token`` ends with."""
    bot = ScriptedBot(address, token, name)
    try:
        code = bot.status()
        assert bot.error is not None
        return code, str(bot.error.details())
    finally:
        bot.close()


def welcomed(address: str, token: str, name: str) -> bool:
    bot = ScriptedBot(address, token, name)
    try:
        bot.expect("welcome")
        return True
    finally:
        bot.close()


def test_a_flood_of_bad_tokens_is_refused_unchecked_and_known_tokens_still_connect(
    limited: tuple[ServiceProcess, int], stores: tuple[MatchStore, BotStore]
) -> None:
    service, metrics = limited
    _, bots = stores
    alice, bob = bots.register("alice"), bots.register("bob")
    assert welcomed(service.address, alice, "alice")  # alice's bot connected from here before

    outcomes = []
    for i in range(40):
        started = time.monotonic()
        code, details = ended(service.address, f"flood{i}.wrong", "")
        outcomes.append((code, details, time.monotonic() - started))
    assert [o[0] for o in outcomes[:30]] == [grpc.StatusCode.UNAUTHENTICATED] * 30
    assert [o[0] for o in outcomes[30:]] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 10
    details = outcomes[30][1]
    assert details.startswith("30 failed authentications from 127.0.0.1 within a minute: new streams from there")
    assert "refused for 60 s more" in details and "cardarena bot token NAME" in details
    assert all(o[2] < 5 for o in outcomes[30:])  # at once (a generous bound: the machine is shared)
    # A stream without any token counts as refused too
    assert ended(service.address, "")[0] == grpc.StatusCode.RESOURCE_EXHAUSTED

    samples = scrape(metrics)
    # the refused ones never reached the token check: it failed exactly 30 times, all bot tokens
    assert value(samples, "cardarena_auth_failures_total", kind="bot") == 30
    assert value(samples, "cardarena_auth_refused_total", kind="bot") == 11
    assert value(samples, "cardarena_auth_failures_total", kind="admin") == 0
    assert ("cardarena_auth_refused_total", (("kind", "admin"),)) in samples  # at 0 from the start

    # alice's token connected from this address before: still admitted; bob's never did: refused
    # like the flood until the cool-down ends (the SDK retries RESOURCE_EXHAUSTED with back-off)
    assert welcomed(service.address, alice, "alice")
    assert ended(service.address, bob, "bob")[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
    # a known token id with a wrong secret is checked, and fails as any wrong token
    wrong_secret = alice.partition(".")[0] + ".not-the-secret"
    assert ended(service.address, wrong_secret, "alice")[0] == grpc.StatusCode.UNAUTHENTICATED
    assert value(scrape(metrics), "cardarena_auth_failures_total", kind="bot") == 31


def test_wrong_admin_tokens_count_toward_the_same_limit(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch, stores: tuple[MatchStore, BotStore]
) -> None:
    monkeypatch.setenv("CARDARENA_ADMIN_TOKEN", ADMIN)
    port = free_port()
    service = ServiceProcess(redis_url, "--metrics-port", str(port), "--grace", "0")  # the default limit, 30
    admin = AdminClient(service)
    try:
        _, bots = stores
        alice, bob = bots.register("alice"), bots.register("bob")
        assert welcomed(service.address, alice, "alice")  # alice's bot connected from here before
        assert admin.register("carol").name == "carol"  # the admin token works

        codes = [status_of(lambda i=i: admin.register(f"guess{i}", f"Bearer guess-{i}")) for i in range(32)]
        assert [c[0] for c in codes[:30]] == [grpc.StatusCode.UNAUTHENTICATED] * 30
        assert [c[0] for c in codes[30:]] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
        detail = codes[30][1]
        assert detail.startswith("30 failed authentications from 127.0.0.1 within a minute: admin calls from there")
        assert "refused for 60 s more, whatever their token" in detail and "CARDARENA_ADMIN_TOKEN" in detail
        # the right admin token is refused too until the cool-down ends, before it is compared
        assert status_of(lambda: admin.register("dave"))[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert status_of(admin.list)[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert sorted(bots.names()) == ["alice", "bob", "carol"]

        # one limit per address for both services: bob's bot never connected from here, so it is
        # refused like the flood; alice's did, so it is still admitted
        assert ended(service.address, bob, "bob")[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert welcomed(service.address, alice, "alice")

        samples = scrape(port)
        # every failure was an admin token; the refusals: 3 Admin calls, then 1 stream of bob's
        assert value(samples, "cardarena_auth_failures_total", kind="admin") == 30
        assert value(samples, "cardarena_auth_failures_total", kind="bot") == 0
        assert value(samples, "cardarena_auth_refused_total", kind="admin") == 4
        assert value(samples, "cardarena_auth_refused_total", kind="bot") == 1
    finally:
        admin.close()
        service.stop()


def test_auth_metrics_tell_a_wrong_bot_token_from_a_wrong_admin_token(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: ``cardarena_auth_failures_total`` and ``cardarena_auth_refused_total``
    counted bot streams and ``Admin`` calls alike.  Over real gRPC, a wrong bot token and a
    wrong admin token count under ``kind="bot"`` and ``kind="admin"``, and so do the calls of
    each kind refused during the cool-down they start together (the limit is 2 here)."""
    monkeypatch.setenv("CARDARENA_ADMIN_TOKEN", ADMIN)
    port = free_port()
    args = ("--metrics-port", str(port), "--failed-auths-per-minute", "2", "--grace", "0")
    service = ServiceProcess(redis_url, *args)
    admin = AdminClient(service)

    def counts() -> dict[tuple[str, str], float]:
        samples = scrape(port)
        return {
            (name, kind): value(samples, f"cardarena_auth_{name}_total", kind=kind)
            for name in ("failures", "refused")
            for kind in ("bot", "admin")
        }

    try:
        assert all(n == 0 for n in counts().values())
        assert ended(service.address, "nobody.wrong-secret", "nobody")[0] == grpc.StatusCode.UNAUTHENTICATED
        assert counts() == {
            ("failures", "bot"): 1,
            ("failures", "admin"): 0,
            ("refused", "bot"): 0,
            ("refused", "admin"): 0,
        }
        assert status_of(lambda: admin.list("Bearer not-the-admin-token"))[0] == grpc.StatusCode.UNAUTHENTICATED
        assert counts() == {
            ("failures", "bot"): 1,
            ("failures", "admin"): 1,
            ("refused", "bot"): 0,
            ("refused", "admin"): 0,
        }
        assert ended(service.address, "other.wrong-secret", "other")[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert status_of(admin.list)[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert status_of(admin.list)[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert counts() == {
            ("failures", "bot"): 1,
            ("failures", "admin"): 1,
            ("refused", "bot"): 1,
            ("refused", "admin"): 2,
        }
    finally:
        admin.close()
        service.stop()


def test_no_limit_with_zero(redis_url: str, key_prefix: str) -> None:
    service = ServiceProcess(redis_url, "--failed-auths-per-minute", "0", "--grace", "0")
    try:
        codes = {ended(service.address, f"x{i}.wrong")[0] for i in range(35)}
    finally:
        service.stop()
    assert codes == {grpc.StatusCode.UNAUTHENTICATED}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_failures_count_over_a_sliding_minute_then_the_cool_down_ends() -> None:
    clock = Clock()
    limit = FailedAuthLimit(3, cooldown_s=60, clock=clock)
    assert not limit.failed("10.0.0.1") and not limit.failed("10.0.0.1")
    clock.now += 61  # both are out of the minute now
    assert not limit.failed("10.0.0.1") and not limit.failed("10.0.0.1")
    assert limit.refused_for("10.0.0.1", "") is None
    assert limit.failed("10.0.0.1")  # the third within a minute
    assert limit.refused_for("10.0.0.1", "t1") == 60
    assert limit.refused_for("10.0.0.2", "t1") is None  # another address
    clock.now += 59.5
    assert limit.refused_for("10.0.0.1", "t1") == 0.5
    clock.now += 0.5
    assert limit.refused_for("10.0.0.1", "t1") is None
    assert not limit.failed("10.0.0.1")  # counted from nothing again


def test_known_tokens_pass_and_memory_is_bounded() -> None:
    clock = Clock()
    limit = FailedAuthLimit(1, clock=clock, max_peers=3)
    limit.succeeded("10.0.0.1", "good")
    assert limit.failed("10.0.0.1")
    assert limit.refused_for("10.0.0.1", "good") is None and limit.refused_for("10.0.0.1", "other") == 60
    for i in range(2, 10):
        limit.failed(f"10.0.0.{i}")
    assert len(limit) == 3  # the oldest addresses were forgotten
    assert limit.refused_for("10.0.0.1", "other") is None
    assert FailedAuthLimit(0).failed("10.0.0.1") is False  # 0: no limit


def test_peer_addresses() -> None:
    assert peer_address("ipv4:127.0.0.1:54198") == "127.0.0.1"
    assert peer_address("ipv6:%5B::1%5D:36940") == "::/64"
    assert peer_address("ipv6:[2001:db8:1:2:3:4:5:6]:50051") == "2001:db8:1:2::/64"
    assert peer_address("ipv6:%5B::ffff:10.1.2.3%5D:7") == "10.1.2.3"
    assert peer_address("unix:/run/cardarena.sock") == "unix"
    # the dashboard's request.remote_addr: an IPv6 address by its /64, as gRPC peers
    assert host_address("10.0.0.7") == "10.0.0.7"
    assert host_address("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64"
    assert host_address("fe80::1%eth0") == "fe80::/64"
    assert host_address("::ffff:10.1.2.3") == "10.1.2.3"
    assert host_address("unknown") == "unknown"
