"""The limit on failed authentications per peer address (``cardarena service
--failed-auths-per-minute``).

Opening an ``Arena.Play`` stream with a wrong or missing token costs the service a lookup in
Redis, from a worker thread, and a salted hash.  A client that opens such streams as fast as
it can would take a core from the matches being played.  So the service counts the failed
authentications of each peer address over a sliding minute; at the limit, the address is
refused for a cool-down: its new streams end ``RESOURCE_EXHAUSTED`` at once (as soon as their
Hello is in), before their token is looked at.  A wrong admin token on the ``Admin`` service
counts the same (guessing it from one address is held to the same pace), and an address
cooling down has its ``Admin`` calls refused whatever their token.  The dashboard's REST admin
API (``cardarena dashboard --failed-auths-per-minute``) holds wrong admin tokens to the same
pace with a limit of its own.

A token that authenticated from that address before (by its token id, the part before the
``.``, which the flood does not know) is still checked as usual during the cool-down: the bots
of a class behind one NAT address keep reconnecting while one of them has a typo in its token.
Only a bot that never connected from there has to wait for the cool-down to end.

An address is an IPv4 address, or an IPv6 ``/64`` network (one site has a whole one); every
other kind of peer (a unix socket) is one address.  At most ``max_peers`` addresses are
remembered; the one used longest ago is forgotten first.  No IO, no gRPC, no clock but the one
given.
"""

from __future__ import annotations

import collections
import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import unquote

WINDOW_S = 60.0
"""The sliding window failures are counted in."""
MAX_PEERS = 10_000
"""Addresses remembered at most."""
MAX_KNOWN_TOKENS = 256
"""Token ids remembered per address (those that authenticated from it)."""


def peer_address(peer: str) -> str:
    """The address a gRPC peer (``context.peer()``: ``ipv4:10.0.0.7:51234``,
    ``ipv6:%5B2001:db8::7%5D:51234``) is counted under: the IPv4 address, the IPv6 ``/64``
    (an IPv4-mapped IPv6 address as the IPv4 one), else the peer's kind (``unix``)."""
    kind, _, rest = peer.partition(":")
    rest = unquote(rest)
    if kind == "ipv4":
        return rest.rpartition(":")[0] or rest
    if kind != "ipv6":
        return kind
    host = rest.rpartition(":")[0] if rest.startswith("[") else rest
    return host_address(host.strip("[]"))


def host_address(host: str) -> str:
    """The address an IP address (an HTTP client's, ``10.0.0.7`` or ``2001:db8::7``) is counted
    under: an IPv6 address's ``/64`` (an IPv4-mapped one as the IPv4 address), anything else
    as it is."""
    host = host.partition("%")[0]  # no zone id
    try:
        ip = ipaddress.IPv6Address(host)
    except ValueError:
        return host
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((ip, 64), strict=False))


def too_many_failures(address: str, limit: int, left_s: float, *, admin: bool = False) -> str:
    """Why a stream (``admin``: an admin call, gRPC or REST) from an address over the
    failed-authentication limit is refused, before its token is looked at."""
    left = max(1, round(left_s))
    if admin:
        what = f"admin calls from there are refused for {left} s more, whatever their token"
        hint = "check the admin token (CARDARENA_ADMIN_TOKEN)"
    else:
        what = (
            f"new streams from there are refused for {left} s more (a token that connected from there "
            "before is still accepted)"
        )
        hint = "check the bot's token (`cardarena bot token NAME` issues a new one)"
    return f"{limit} failed authentications from {address} within a minute: {what}; {hint}"


@dataclass
class _Peer:
    failures: collections.deque[float]
    """When its latest failures were (at most the limit of them)."""
    refused_until: float = 0.0
    known: dict[str, None] = field(default_factory=dict)
    """Token ids that authenticated from it (an ordered set, oldest first)."""


class FailedAuthLimit:
    """At most ``per_minute`` failed authentications per address in any minute; then the
    address's new streams are refused for ``cooldown_s`` (``per_minute`` 0: no limit)."""

    def __init__(
        self,
        per_minute: int,
        *,
        cooldown_s: float = 60.0,
        max_peers: int = MAX_PEERS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_minute = per_minute
        self.cooldown_s = cooldown_s
        self.max_peers = max_peers
        self._clock = clock
        self._peers: collections.OrderedDict[str, _Peer] = collections.OrderedDict()

    def __len__(self) -> int:
        """Addresses remembered."""
        return len(self._peers)

    def refused_for(self, address: str, token_id: str) -> float | None:
        """Seconds left of ``address``'s cool-down if a stream from it with a token of id
        ``token_id`` is to be refused now, else ``None`` (check its token)."""
        peer = self._peers.get(address)
        if peer is None:
            return None
        left = peer.refused_until - self._clock()
        if left <= 0 or (token_id and token_id in peer.known):
            return None
        return left

    def failed(self, address: str) -> bool:
        """Count a failed authentication from ``address``; ``True`` when it reaches the limit
        (the cool-down starts, or starts again, now)."""
        if self.per_minute <= 0:
            return False
        now = self._clock()
        peer = self._peer(address)
        failures = peer.failures
        while failures and failures[0] <= now - WINDOW_S:
            failures.popleft()
        failures.append(now)
        if len(failures) < self.per_minute:
            return False
        failures.clear()  # after the cool-down the address starts from nothing
        peer.refused_until = now + self.cooldown_s
        return True

    def succeeded(self, address: str, token_id: str) -> None:
        """Remember that a token of id ``token_id`` authenticated from ``address``."""
        if self.per_minute <= 0 or not token_id:
            return
        known = self._peer(address).known
        known.pop(token_id, None)
        known[token_id] = None
        if len(known) > MAX_KNOWN_TOKENS:
            del known[next(iter(known))]

    def _peer(self, address: str) -> _Peer:
        peer = self._peers.get(address)
        if peer is None:
            peer = self._peers[address] = _Peer(collections.deque(maxlen=self.per_minute))
            while len(self._peers) > self.max_peers:
                self._peers.popitem(last=False)
        else:
            self._peers.move_to_end(address)
        return peer
