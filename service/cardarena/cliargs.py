"""Argument parsing shared by every ``cardarena`` command (no IO beyond the text given, and
:func:`usage_error`'s line).

It imports nothing but the standard library: the parser of the whole ``cardarena`` command is
built from it and from each area's ``arguments`` module, without loading the machinery of any
command (a test checks it); a command's :class:`Handler` imports that when the command runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from typing import Any, NoReturn


class Handler:
    """A subcommand's ``func`` (``set_defaults(func=Handler("package.module:function"))``): the
    function is imported when the command runs, not when the parser is built, so ``--help`` and
    argument errors load none of the command's machinery."""

    __slots__ = ("target",)

    def __init__(self, target: str) -> None:
        self.target = target
        """``"package.module:function"``, the function taking the parsed arguments and returning
        the exit status."""

    def resolve(self) -> Callable[[argparse.Namespace], Any]:
        """The function, imported now."""
        module, _, name = self.target.partition(":")
        function: Callable[[argparse.Namespace], Any] = getattr(importlib.import_module(module), name)
        return function

    def __call__(self, args: argparse.Namespace) -> int:
        return int(self.resolve()(args))

    def __repr__(self) -> str:
        return f"Handler({self.target!r})"


def usage_error(message: str) -> NoReturn:
    """An argument error found after parsing: ``cardarena: error: <message>`` on stderr, exit
    status 2."""
    print(f"cardarena: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def at_least(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: an int of at least ``low`` (and at most ``high`` if given)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high}, got {value}")
        return value

    return parse


def port_number(text: str) -> int:
    """An argparse ``type``: a TCP port, 0 to 65535 (0: a free one)."""
    value = at_least(0)(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {value}")
    return value


def json_object(text: str | None, flag: str) -> dict[str, Any] | None:
    """The JSON object given to ``flag`` (``None`` if not given); ``ValueError`` naming ``flag``
    and the problem otherwise."""
    import json

    if not text:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{flag} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{flag} must be a JSON object, got {type(data).__name__}")
    return data


def host_and_port(text: str) -> tuple[str, int | None]:
    """An argparse ``type``: ``HOST`` or ``HOST:PORT`` (an IPv6 address in brackets:
    ``[::1]:50051``), as ``(host, port or None)``; the port is 1 to 65535."""
    if not text or any(c in text for c in "/@ "):
        raise argparse.ArgumentTypeError(f"not HOST[:PORT] (e.g. arena.example.org:50051, no scheme): {text!r}")
    bracketed = text.startswith("[")
    host, sep, port = text.rpartition(":") if (text.count(":") == 1 or "]:" in text) else (text, "", "")
    if bracketed and not (host.endswith("]") and len(host) > 2):
        raise argparse.ArgumentTypeError(f"not HOST[:PORT] (an IPv6 address in brackets): {text!r}")
    if not host or (":" in host and not bracketed):
        raise argparse.ArgumentTypeError(f"not HOST[:PORT] (e.g. arena.example.org:50051): {text!r}")
    if not sep:
        return host, None
    if not (port.isdigit() and 1 <= int(port) <= 65535):
        raise argparse.ArgumentTypeError(f"not HOST[:PORT]: the port is 1 to 65535, not {port!r}")
    return host, int(port)


def add_tls_files(parser: argparse.ArgumentParser, serves: str, plain: str) -> None:
    """``--tls-cert FILE`` and ``--tls-key FILE`` (read by ``cardarena.server.tls.load_server_tls``):
    with them the port serves ``serves`` (``"TLS"``) only; without, ``plain``."""
    parser.add_argument(
        "--tls-cert",
        metavar="FILE",
        help=f"serve {serves} only, with this PEM certificate (chain); needs --tls-key (default: {plain}); "
        "a replaced file is served to new connections within a second",
    )
    parser.add_argument("--tls-key", metavar="FILE", help="the PEM private key of --tls-cert (unencrypted)")


DEFAULT_MAX_CONNECTIONS = 256
"""Connections the dashboard serves at once unless ``--max-connections`` says otherwise: a
browser tab holds one to six kept-alive connections (each until it has been idle for 30 s),
so this leaves room for about forty readers at once."""


DEFAULT_MAX_PER_CLIENT = 64
"""Connections one client address may hold on the dashboard at once unless
``--max-connections-per-client`` says otherwise (a class behind one NAT address shares them)."""


def add_max_connections(parser: argparse.ArgumentParser) -> None:
    """``--max-connections N`` and ``--max-connections-per-client M``: ``cardarena dashboard``'s
    caps on connections at once (``cardarena_dashboard.connections``), and ``up``'s, which passes
    them on."""
    parser.add_argument(
        "--max-connections",
        type=at_least(1),
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help="dashboard connections served at once, a thread each (default %(default)s, fewer if the process may "
        "open few files); one more is answered 503 Service Unavailable with Retry-After: 1 at once (over HTTPS: "
        "closed before the TLS handshake)",
    )
    parser.add_argument(
        "--max-connections-per-client",
        type=at_least(1),
        default=DEFAULT_MAX_PER_CLIENT,
        metavar="M",
        help="of those, at most this many from one client address (default %(default)s); one more is answered 503 "
        "as above",
    )


DEFAULT_FAILED_AUTHS_PER_MINUTE = 30
"""Failed authentications one address may have in a minute before it is refused for a minute,
unless ``--failed-auths-per-minute`` says otherwise (``cardarena.server.authlimit``)."""


def add_failed_auths_per_minute(parser: argparse.ArgumentParser, counted: str, refused: str) -> None:
    """``--failed-auths-per-minute N`` (at least 0, 0: no limit): ``counted`` from one address in a
    minute before ``refused`` (the help's words)."""
    parser.add_argument(
        "--failed-auths-per-minute",
        type=at_least(0),
        default=DEFAULT_FAILED_AUTHS_PER_MINUTE,
        metavar="N",
        help=f"{counted} from one address (IPv6: one /64) in a minute before {refused} (default %(default)s; 0: "
        "no limit, e.g. behind a proxy that every client's connections come from)",
    )


def add_redis_url(parser: argparse.ArgumentParser) -> None:
    """``--redis-url URL``, the same on every command that uses Redis (opened with
    ``cardarena.store.connection.chosen_redis``)."""
    parser.add_argument(
        "--redis-url",
        metavar="URL",
        help="the Redis to use (default: $REDIS_URL, else the embedded default under the user's data directory)",
    )


MAX_ACTIONS = 100_000
"""The default of ``--max-actions`` (``simulate``, ``match``): :data:`cardarena.engine.MAX_ACTIONS`,
written out so that building the parser does not import the engine (``tests/test_cli_startup.py``
checks that the two are equal)."""

GAME_HELP = "game id (see docs/games/; an unknown one is refused with the list of installed games)"
PLAYERS_HELP = "players per table; the game must allow it"
LOGLEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def add_loglevel(parser: argparse.ArgumentParser) -> None:
    """``--loglevel`` of a Celery process (``worker``, ``beat``): checked here, so that a typo is
    a usage error instead of a Celery child that fails at start and is restarted for ever."""
    parser.add_argument(
        "--loglevel",
        type=str.upper,
        choices=LOGLEVELS,
        default="INFO",
        help="least level logged (default %(default)s)",
    )
