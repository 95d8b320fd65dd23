"""One HTTP POST of a JSON message to a webhook: all of the notifications' network IO.

Standard library only (``http.client``).  A webhook URL embeds a token, so nothing here puts
the URL in a message: errors name the answer or the failure (:class:`Answer`) and, for a
person, :func:`origin` (scheme, host and port) only.

* **Where a webhook may go.** Public addresses only, unless the operator lets more through
  (:class:`AllowList`, the setting :data:`ALLOW_SETTING`): whoever may create a tournament (an
  admin token, a course's TA) could otherwise make a worker post to Redis on loopback, the
  cloud's metadata service or any host of the internal network.  The host is resolved at each
  connection and the attempt is refused if *any* of its addresses is internal
  (:func:`internal`: loopback, private, link-local, multicast, reserved, unspecified, not
  publicly routable, or an IPv4-mapped, 6to4 or NAT64 form of one); otherwise the connection
  goes to one of the addresses just checked, never resolved again, so a DNS answer that
  changes in between (rebinding) cannot slip through.  TLS still sends and verifies the host
  name (SNI and the certificate).  A refusal is a failed attempt that is not tried again.
* **Through a proxy** (``HTTPS_PROXY``/``HTTP_PROXY``, ``NO_PROXY`` honoured as ``urllib``
  does; ``http://[user:password@]host:port`` proxies): the proxy is the operator's choice, so
  its own address is not checked.  The proxy, not the worker, connects to the webhook, so the
  check is by the URL's host name: a literal internal address or ``localhost`` is refused, and
  a name that resolves here to an internal address too; a name the worker cannot resolve (or
  not within the time-out) is left to the proxy, which must refuse internal destinations itself.
  An ``https`` webhook goes through a tunnel asked for here (:func:`_tunnelled`: ``CONNECT
  [2001:db8::1]:443 HTTP/1.1`` for an IPv6 literal), TLS inside it verifying the URL's host.
* **Time.** ``timeout`` seconds for a name lookup, to connect and for each read; and
  ``deadline_s`` for the whole attempt (lookups, connecting, TLS, redirects, the answer): when
  it passes, the connection is shut, so an endpoint that answers one byte a second holds a
  worker no longer than that.
* Redirects are followed only to the same host name (checked again, like the first; at most
  :data:`MAX_REDIRECTS`, posting the same body again); one to another host, or from https to
  http, is not followed and fails the attempt.
* An answer's body is read up to :data:`BODY_CAP` bytes, kept (shortened, the URL's secret
  parts taken out) in the error of an attempt that failed.
"""

from __future__ import annotations

import base64
import contextlib
import email.message
import email.utils
import http.client
import ipaddress
import os
import re
import socket
import ssl
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import unquote, urljoin, urlsplit

BODY_CAP = 2048
"""Bytes of an answer's body read at most."""
MAX_REDIRECTS = 3
"""Same-host redirects followed at most."""
ERROR_CHARS = 300
"""Longest error text kept."""
DEADLINE_S = 15.0
"""Default of the time one attempt may take in all (:func:`post_json`'s ``deadline_s``)."""
ALLOW_SETTING = "CARDARENA_NOTIFY_ALLOW_INTERNAL"
"""The environment variable listing the internal destinations webhooks may reach
(:meth:`AllowList.parse`)."""
_REDIRECTS = (301, 302, 303, 307, 308)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolve = Callable[[str, int], Sequence[IPAddress]]
"""Resolves ``(host, port)`` to addresses (:func:`system_resolve`); ``OSError`` if it cannot."""

_T = TypeVar("_T")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_LOOPBACK = (ipaddress.IPv4Address("127.0.0.1"), ipaddress.IPv6Address("::1"))
_HOST_NAME = re.compile(r"(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_-]{1,63})*")


@dataclass(frozen=True)
class Answer:
    """How one POST went."""

    ok: bool
    """A 2xx answer."""
    retry: bool = False
    """Worth another attempt: a network error, a time-out, 429 or 5xx."""
    error: str | None = None
    """What went wrong, one line without the URL's secret parts."""
    retry_after: float | None = None
    """Seconds the server asked to wait (``Retry-After``), if it said."""


# ---------------------------------------------------------------------- where a webhook may go
def internal(address: IPAddress) -> str | None:
    """Why a webhook may not reach ``address`` (``"loopback"``, ``"private"``,
    ``"link-local"``, ``"multicast"``, ``"reserved"``, ``"unspecified"``, ``"not public"``;
    for an IPv4-mapped, 6to4 or NAT64 address, the IPv4 address inside it and why, e.g.
    ``"IPv4-mapped 127.0.0.1: loopback"``), or ``None`` for a public address."""
    inner = _embedded(address)
    if inner is not None:
        form, v4 = inner
        why = internal(v4)
        return None if why is None else f"{form} {v4}: {why}"
    kinds = (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
        ("not public", not address.is_global),
    )
    return next((kind for kind, hit in kinds if hit), None)


def _embedded(address: IPAddress) -> tuple[str, ipaddress.IPv4Address] | None:
    """The IPv4 address an IPv4-mapped, 6to4 or NAT64 address stands for (and which form)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return "IPv4-mapped", address.ipv4_mapped
    if address.sixtofour is not None:
        return "6to4", address.sixtofour
    if address in _NAT64:
        return "NAT64", ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def literal(host: str) -> IPAddress | None:
    """The address ``host`` spells (``10.0.0.5``, ``::1``, or an old IPv4 form every resolver
    also reads as one: ``127.1``, ``0x7f000001``, ``2130706433``), ``None`` for a name."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


def _without_dns(host: str) -> Sequence[IPAddress] | None:
    """The addresses of ``host`` known without DNS: the one it spells, or the loopback ones for
    ``localhost`` and its subdomains (RFC 6761: this machine, whatever DNS says); ``None`` for
    another name."""
    address = literal(host)
    if address is not None:
        return [address]
    return _LOOPBACK if host == "localhost" or host.endswith(".localhost") else None


@dataclass(frozen=True)
class AllowList:
    """The internal destinations a webhook may reach all the same (:data:`ALLOW_SETTING`):
    addresses in ``networks``, and the hosts named in ``hosts`` whatever they resolve to.
    Empty (the default): public addresses only."""

    networks: tuple[Network, ...] = ()
    """Networks (a single address is a ``/32`` or ``/128``) whose addresses are let through."""
    hosts: frozenset[str] = frozenset()
    """Host names (lower case, no trailing dot) trusted whatever they resolve to."""

    @classmethod
    def parse(cls, raw: str) -> AllowList:
        """The list in ``raw``: networks (``10.0.0.0/8``, ``fd00::/8``), addresses
        (``10.0.0.5``) and host names (``mm.internal``), separated by commas or spaces;
        ``ValueError`` naming :data:`ALLOW_SETTING` for anything else."""
        networks: list[Network] = []
        hosts: set[str] = set()
        for item in raw.replace(",", " ").split():
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
                continue
            except ValueError:
                pass
            name = item.lower().rstrip(".")
            if not _HOST_NAME.fullmatch(name) or literal(name) is not None:
                raise ValueError(
                    f"{ALLOW_SETTING} must list networks (10.0.0.0/8, fd00::/8), addresses (10.0.0.5) "
                    f"or host names (mm.internal), separated by commas; {item[:80]!r} is none of them"
                )
            hosts.add(name)
        return cls(tuple(networks), frozenset(hosts))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> AllowList:
        """The list set by :data:`ALLOW_SETTING` in ``environ`` (default: this process's)."""
        return cls.parse((os.environ if environ is None else environ).get(ALLOW_SETTING, ""))

    def admits(self, host: str, address: IPAddress) -> bool:
        """Whether ``host`` may be reached at ``address`` although it is internal."""
        if host.lower().rstrip(".") in self.hosts:
            return True
        inner = _embedded(address)
        return any(address in net or (inner is not None and inner[1] in net) for net in self.networks)


PUBLIC_ONLY = AllowList()
"""The empty allow list: public addresses only."""


class _Refused(Exception):
    """An attempt that must not be made (and would not fare better later)."""


def _check(host: str, addresses: Sequence[IPAddress], allow: AllowList) -> None:
    """``_Refused`` if any of the addresses of ``host`` is internal and not allowed."""
    for address in addresses:
        why = internal(address)
        if why is not None and not allow.admits(host, address):
            where = f"{host} is" if literal(host) == address else f"{host} resolves to {address},"
            raise _Refused(
                f"refused: {where} internal ({why}): a webhook may reach public addresses only, "
                f"unless {ALLOW_SETTING} lists it"
            )


def refusal(url: str, allow: AllowList) -> str | None:
    """Why ``url`` may not be a webhook, as far as it shows without DNS (its host is an
    internal address or ``localhost``, not allowed by ``allow``), else ``None``; every
    delivery checks its host's addresses again."""
    name = (urlsplit(url).hostname or "").rstrip(".")
    try:
        _check(name, _without_dns(name) or [], allow)
    except _Refused as exc:
        return str(exc).removeprefix("refused: ")
    return None


def system_resolve(host: str, port: int) -> list[IPAddress]:
    """The addresses the system resolver gives ``host`` (``socket.getaddrinfo``), in its order."""
    found: list[IPAddress] = []
    for family, _, _, _, sockaddr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        if family in (socket.AF_INET, socket.AF_INET6):
            address = ipaddress.ip_address(sockaddr[0])
            if address not in found:
                found.append(address)
    return found


# ---------------------------------------------------------------------- shown of a URL
def origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``: what may be shown or logged of a webhook URL."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def host(url: str) -> str:
    """The host name of ``url`` (and its port, if it names one)."""
    return origin(url).split("://", 1)[1]


def redact(text: str, url: str) -> str:
    """``text`` with every secret part of ``url`` (user info, path, query, fragment) replaced
    by ``…``, on one line of at most :data:`ERROR_CHARS` characters."""
    parts = urlsplit(url)
    secrets = [url, parts.netloc.rpartition("@")[0], parts.query, parts.fragment]
    secrets += [p for p in parts.path.split("/") if len(p) >= 4]
    secrets.append(parts.path if len(parts.path) > 1 else "")
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, "…")
    text = re.sub(r"\s+", " ", "".join(c if c.isprintable() else " " for c in text)).strip()
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 1] + "…"


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds, or an HTTP date), or ``None``."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


# ---------------------------------------------------------------------- one attempt's time
class _OutOfTime(Exception):
    """The attempt's deadline passed."""


class _Attempt:
    """The time of one attempt: ``timeout`` per connect or read, ``deadline_s`` in all.  Every
    connection it opens is shut when the deadline passes (a timer), whatever is reading it."""

    def __init__(self, timeout: float, deadline_s: float) -> None:
        self.timeout = timeout
        self.deadline_s = deadline_s
        self.passed = False
        self._end = time.monotonic() + deadline_s
        self._lock = threading.Lock()
        self._watched: list[socket.socket] = []  # duplicates: shutting one down shuts the connection
        self._timer = threading.Timer(deadline_s, self._cut)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        """Seconds left; ``_OutOfTime`` once there are none."""
        left = self._end - time.monotonic()
        if left <= 0 or self.passed:
            raise _OutOfTime
        return left

    def within(self, call: Callable[[], _T]) -> _T:
        """``call()`` (a name lookup, which no socket time-out bounds) in a thread, given the
        time-out or what is left of the deadline if less: ``TimeoutError`` or ``_OutOfTime``
        if it has not returned by then (the thread is left to end on its own)."""
        values: list[_T] = []
        errors: list[BaseException] = []

        def run() -> None:
            try:
                values.append(call())
            except BaseException as exc:  # raised in the waiting thread instead
                errors.append(exc)

        thread = threading.Thread(target=run, name="webhook-resolve", daemon=True)
        thread.start()
        thread.join(min(self.timeout, self.left()))
        if errors:
            raise errors[0]
        if not values:
            self.left()  # _OutOfTime if that was the deadline
            raise TimeoutError("name lookup timed out")
        return values[0]

    def connect(self, addresses: Sequence[tuple[int, tuple[Any, ...]]]) -> socket.socket:
        """A TCP connection to the first of ``addresses`` (family, socket address) that takes
        one, watched until the attempt ends."""
        failure: OSError = OSError("no address to connect to")
        for family, sockaddr in addresses:
            timeout = min(self.timeout, self.left())
            sock = socket.socket(family, socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout)
                sock.connect(sockaddr)
            except OSError as exc:
                sock.close()
                failure = exc
                continue
            with self._lock:
                if self.passed:
                    sock.close()
                    raise _OutOfTime
                self._watched.append(sock.dup())
            return sock
        raise failure

    def _cut(self) -> None:
        with self._lock:
            self.passed = True
            for sock in self._watched:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """End the attempt: stop the timer, let go of the connections."""
        self._timer.cancel()
        with self._lock:
            for sock in self._watched:
                sock.close()
            self._watched.clear()

    def too_long(self) -> Answer:
        return Answer(ok=False, retry=True, error=f"timed out: no complete answer within {self.deadline_s:g} s")


# ---------------------------------------------------------------------- one exchange
class _Plain(http.client.HTTPConnection):
    """HTTP whose TCP connection is made by ``opening`` (to the addresses checked)."""

    def __init__(self, host: str, port: int, timeout: float, opening: Callable[..., socket.socket]) -> None:
        super().__init__(host, port, timeout=timeout)
        self._create_connection = opening  # http.client's own seam for how it connects


class _Tls(http.client.HTTPSConnection):
    """HTTPS whose TCP connection is made by ``opening`` (to the addresses checked, or a tunnel
    through a proxy: :func:`_tunnelled`); the certificate is verified for the host name, which
    is also sent as SNI."""

    def __init__(self, host: str, port: int, timeout: float, opening: Callable[..., socket.socket]) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._create_connection = opening


def _proxy(scheme: str, netloc: str) -> tuple[str, int, dict[str, str]] | None:
    """The proxy for ``scheme`` URLs to ``netloc`` (host, port, its ``Proxy-Authorization``
    header if it has credentials), or ``None``: none set, or ``NO_PROXY`` names the host."""
    raw = urllib.request.getproxies().get(scheme)
    if not raw or urllib.request.proxy_bypass(netloc):
        return None
    parts = urlsplit(raw if "://" in raw else f"http://{raw}")
    try:
        port = parts.port or 80
    except ValueError:
        port = 0
    if parts.scheme != "http" or not parts.hostname or not port:
        raise _Refused(f"the {scheme} proxy setting ({scheme.upper()}_PROXY) is not an http://host:port URL")
    auth: dict[str, str] = {}
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        auth["Proxy-Authorization"] = "Basic " + base64.b64encode(pair).decode()
    return parts.hostname, port, auth


PROXY_HEAD_CAP = 8192
"""Bytes of a proxy's answer to ``CONNECT`` (status line and headers) read at most."""


def _authority(name: str, port: int) -> str:
    """``host:port`` as a request line or a ``Host`` header names it: an IPv6 literal in
    brackets (``[2001:db8::1]:443``), a name as IDNA."""
    spelled = name if name.isascii() else name.encode("idna").decode("ascii")
    return f"[{spelled}]:{port}" if ":" in spelled else f"{spelled}:{port}"


def _tunnelled(sock: socket.socket, name: str, port: int, headers: Mapping[str, str]) -> socket.socket:
    """``sock``, a connection to the proxy, once the proxy has opened a tunnel to ``name`` at
    ``port`` (``CONNECT``, with ``headers``: its credentials); ``OSError`` if it did not.  Written
    here rather than by ``http.client``'s ``set_tunnel``, which in Python 3.11 leaves the brackets
    off an IPv6 literal (``CONNECT 2001:db8::1:443``, which no proxy can read)."""
    where = _authority(name, port)
    lines = [f"CONNECT {where} HTTP/1.1", f"Host: {where}", *(f"{k}: {v}" for k, v in headers.items())]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    head = bytearray()
    while not head.endswith(b"\r\n\r\n"):  # a byte at a time: nothing of the tunnel is read here
        byte = sock.recv(1)
        if not byte:
            raise ConnectionError(0, "the proxy closed the connection instead of opening a tunnel")
        if len(head) >= PROXY_HEAD_CAP:
            raise ConnectionError(0, f"the proxy's answer to CONNECT is longer than {PROXY_HEAD_CAP} bytes")
        head += byte
    status = head.split(b"\r\n", 1)[0].decode("latin-1")
    version, _, rest = status.partition(" ")
    code = rest[:3]
    if not (version.startswith("HTTP/") and code.isdigit() and code.startswith("2")):
        shown = "".join(c for c in rest if c.isprintable())[:100] or "no status"
        raise ConnectionRefusedError(0, f"the proxy did not open a tunnel ({shown})")
    return sock


def _addresses(name: str, port: int, attempt: _Attempt, resolve: Resolve) -> Sequence[IPAddress]:
    """The addresses of host ``name``: those known without DNS (:func:`_without_dns`), else
    what ``resolve`` gives in time (``OSError`` if none)."""
    known = _without_dns(name)
    if known is not None:
        return known
    found = attempt.within(lambda: resolve(name, port))
    if not found:
        raise socket.gaierror(socket.EAI_NONAME, "no address")
    return found


def _sockaddrs(addresses: Sequence[IPAddress], port: int) -> list[tuple[int, tuple[Any, ...]]]:
    return [
        (socket.AF_INET6, (str(a), port, 0, 0)) if a.version == 6 else (socket.AF_INET, (str(a), port))
        for a in addresses
    ]


def _exchange(
    url: str, body: bytes, user_agent: str, attempt: _Attempt, allow: AllowList, resolve: Resolve
) -> tuple[int, str, email.message.Message, str]:
    """POST ``body`` to ``url`` once: the status, reason, headers and (capped) body."""
    parts = urlsplit(url)
    name = (parts.hostname or "").rstrip(".")
    tls = parts.scheme == "https"
    port = parts.port or (443 if tls else 80)
    headers = {"Content-Type": "application/json", "User-Agent": user_agent}
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    proxy = _proxy(parts.scheme, host(url))
    if proxy is None:  # to the webhook itself, at an address checked here
        addresses = _addresses(name, port, attempt, resolve)
        _check(name, addresses, allow)
        to, at = (name, port), _sockaddrs(addresses, port)
        tunnel: dict[str, str] | None = None
    else:  # to the proxy, which resolves the webhook's name: checked by that name
        with contextlib.suppress(OSError):  # a name this machine cannot resolve: the proxy does
            _check(name, _addresses(name, port, attempt, resolve), allow)
        proxy_host, proxy_port, auth = proxy
        found = attempt.within(lambda: socket.getaddrinfo(proxy_host, proxy_port, type=socket.SOCK_STREAM))
        at = [(family, sockaddr) for family, _, _, _, sockaddr in found]
        if tls:  # TLS with the webhook's host inside a tunnel the proxy opens (CONNECT)
            to, tunnel = (name, port), auth
        else:
            to, tunnel = (proxy_host, proxy_port), None
            target = parts._replace(fragment="").geturl()  # the absolute form, for the proxy
            headers.update(auth)

    def opening(*_: Any) -> socket.socket:
        sock = attempt.connect(at)
        if tunnel is None:
            return sock
        try:
            return _tunnelled(sock, name, port, tunnel)
        except BaseException:
            sock.close()
            raise

    conn = (_Tls if tls else _Plain)(*to, attempt.timeout, opening)
    try:
        conn.request("POST", target, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.reason, response.headers, _body(response)
    finally:
        conn.close()


def _body(response: Any) -> str:
    try:
        raw = response.read(BODY_CAP)
    except (OSError, http.client.HTTPException):
        return ""
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else ""


def _failed(exc: BaseException) -> Answer:
    """An attempt that got no HTTP answer."""
    if isinstance(exc, TimeoutError):
        return Answer(ok=False, retry=True, error="timed out")
    if isinstance(exc, ssl.SSLCertVerificationError):
        return Answer(ok=False, error=f"TLS certificate not trusted: {exc.verify_message}")
    if isinstance(exc, socket.gaierror):
        return Answer(ok=False, retry=True, error=f"cannot resolve the host: {exc.strerror}")
    if isinstance(exc, OSError) and exc.strerror:
        return Answer(ok=False, retry=True, error=f"cannot connect: {exc.strerror}")
    return Answer(ok=False, retry=True, error=f"connection failed: {type(exc).__name__}")


def _follows(current: str, location: str, start: str | None) -> bool:
    """Whether a redirect from ``current`` to ``location`` is followed: to the first URL's host
    (``start``), somewhere else than ``current``, and not from https to http (the body in clear)."""
    parts = urlsplit(location)
    downgrade = urlsplit(current).scheme == "https" and parts.scheme != "https"
    return parts.scheme in ("http", "https") and parts.hostname == start and location != current and not downgrade


def post_json(
    url: str,
    body: bytes,
    *,
    timeout: float,
    deadline_s: float = DEADLINE_S,
    allow: AllowList = PUBLIC_ONLY,
    user_agent: str = "cardarena",
    resolve: Resolve = system_resolve,
) -> Answer:
    """POST ``body`` (JSON) to ``url``, to public addresses and those ``allow`` lets through,
    within ``deadline_s`` in all; never raises for what the network or the server does."""
    attempt = _Attempt(timeout, deadline_s)
    try:
        return _post(url, body, user_agent, attempt, allow, resolve)
    finally:
        attempt.close()


def _post(url: str, body: bytes, user_agent: str, attempt: _Attempt, allow: AllowList, resolve: Resolve) -> Answer:
    start = urlsplit(url).hostname
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        try:
            code, phrase, headers, text = _exchange(current, body, user_agent, attempt, allow, resolve)
        except _Refused as exc:
            return Answer(ok=False, error=str(exc))
        except _OutOfTime:
            return attempt.too_long()
        except (OSError, http.client.HTTPException) as exc:
            return attempt.too_long() if attempt.passed else _failed(exc)
        except ValueError:  # a URL http.client cannot use (checked when the target was stored)
            return Answer(ok=False, error="not a URL that can be posted to")
        if 200 <= code < 300:
            return Answer(ok=True)
        if code in _REDIRECTS:
            location = urljoin(current, headers.get("Location") or "")
            if _follows(current, location, start):
                current = location
                continue
            return Answer(ok=False, error=f"HTTP {code}: a redirect to {origin(location)} (not followed)")
        text = redact(redact(f"{phrase}: {text}" if text else phrase, url), current)
        error = f"HTTP {code} {text}".strip()
        retry = code == 429 or 500 <= code <= 599
        return Answer(ok=False, retry=retry, error=error, retry_after=retry_after(headers.get("Retry-After")))
    return Answer(ok=False, error=f"more than {MAX_REDIRECTS} redirects")
