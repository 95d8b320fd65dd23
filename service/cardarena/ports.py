"""The ports ``cardarena`` commands listen on: one that cannot be listened on is one line naming
it and the option that chose it (``port 8080 (--port) is already in use on 127.0.0.1; ...``),
said before anything starts.  Also whether a host is reachable from other machines
(:func:`is_loopback`), for the commands that warn when a token would travel in clear."""

from __future__ import annotations

import errno
import ipaddress
import socket


def bind_problem(exc: OSError, port: int, option: str, host: str) -> str:
    """What a failed bind of ``host:port`` (chosen by ``option``) means, in one line."""
    if exc.errno == errno.EADDRINUSE:
        return (
            f"port {port} ({option}) is already in use on {host}; "
            "stop what uses it or pick another port (0 picks a free one)"
        )
    return f"cannot listen on {host}:{port} ({option}): {exc.strerror or exc}"


def port_problem(port: int, option: str, host: str = "127.0.0.1") -> str | None:
    """Why ``port`` cannot be listened on at ``host`` right now, or ``None``: port 0, a free port,
    or a ``host`` that does not resolve (the server then says why).

    Every address ``host`` resolves to is tried as a server binds it (``SO_REUSEADDR``: a
    connection in TIME_WAIT is no conflict): one in use is a problem; any other failure only
    when no address can be bound (a server listens on those it can).
    """
    if port == 0:
        return None
    try:
        addresses = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError):
        return None
    failures: list[str] = []
    for family, kind, proto, _, address in addresses:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    return bind_problem(exc, port, option, host)
                failures.append(bind_problem(exc, port, option, host))
    return failures[0] if failures and len(failures) == len(addresses) else None


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is this machine's
    loopback only: ``localhost``, ``127.x.y.z``, ``::1``."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def join_host_port(host: str, port: int) -> str:
    """``host:port``, an IPv6 address in brackets (``[::1]:50051``)."""
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"
