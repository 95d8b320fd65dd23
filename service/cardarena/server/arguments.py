"""The arguments of ``cardarena service [health]``, ``cardarena bot ...``, ``cardarena match`` and
``cardarena bench service``: definitions only (the standard library and :mod:`cardarena.cliargs`),
so that building the parser and ``--help`` load nothing else; each command's code
(:mod:`.commands`, :mod:`.healthcheck`) is imported when it runs (:class:`~cardarena.cliargs.Handler`)."""

from __future__ import annotations

import argparse
from typing import Any

from ..cliargs import (
    MAX_ACTIONS,
    Handler,
    add_failed_auths_per_minute,
    add_redis_url,
    add_tls_files,
    at_least,
    port_number,
)
from ..store.values import MAX_MS


def add_client_tls(parser: argparse.ArgumentParser) -> None:
    """``--server``'s TLS options of a client of the service (``bot run``, ``service health``):
    ``--tls``, ``--ca-cert``, ``--client-cert`` and ``--client-key``, as the SDK takes them."""
    parser.add_argument(
        "--tls",
        action="store_true",
        help="connect with TLS, trusting the system's root certificates (default: plaintext, as `cardarena up` serves)",
    )
    parser.add_argument(
        "--ca-cert",
        metavar="FILE",
        help="connect with TLS, trusting this PEM certificate (a private CA or a self-signed one; implies --tls)",
    )
    parser.add_argument(
        "--client-cert",
        metavar="FILE",
        help="mutual TLS: present this PEM client certificate (chain), for a service started with "
        "--tls-client-ca; needs --client-key; implies --tls",
    )
    parser.add_argument("--client-key", metavar="FILE", help="the PEM private key of --client-cert (unencrypted)")


def add_keep_data(parser: argparse.ArgumentParser, external: str = "--redis-url or REDIS_URL") -> None:
    """``--keep-data`` of the local runs (``match``, ``tournament run``, ``demo``): see
    :func:`.commands.run_namespace`.
    ``external`` names how the command is given an external Redis (``demo`` has no ``--redis-url``)."""
    parser.add_argument(
        "--keep-data",
        action="store_true",
        help=f"with {external}: leave the run's keys (under a key prefix of its own, printed at the end) "
        "in Redis, e.g. to look at them with the dashboard; default: deleted when the run ends, also "
        "on Ctrl-C. Without an external Redis the run's data always stays in the embedded default",
    )


def seconds(text: str) -> float:
    """An argparse ``type``: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, got {text!r}")
    return value


def _levels(text: str) -> list[int]:
    """An argparse ``type``: comma-separated numbers of concurrent matches, each at least 1."""
    parts = [part.strip() for part in text.split(",")]
    if not all(part.isdigit() and int(part) >= 1 for part in parts):
        raise argparse.ArgumentTypeError(f"not a comma-separated list of whole numbers >= 1 (e.g. 1,10,100): {text!r}")
    return [int(part) for part in parts]


def register(sub: Any) -> None:
    """Add the service's subcommands to the ``cardarena`` parser."""
    svc = sub.add_parser("service", help="run the gRPC match service")
    svc.add_argument("--port", type=port_number, default=50051, help="gRPC port (default %(default)s; 0: a free one)")
    svc.add_argument("--host", default="127.0.0.1", help="interface for gRPC and metrics (default %(default)s)")
    add_redis_url(svc)
    svc.add_argument(
        "--metrics-port", type=port_number, default=0, help="Prometheus /metrics port, on --host (default 0: off)"
    )
    svc.add_argument(
        "--instance-name",
        help="this instance's name in logs, presence and match records (default <host>-<pid>-<random>); "
        "a second process under the name of one that runs refuses to start",
    )
    svc.add_argument(
        "--queue",
        default="",
        metavar="LANE",
        help="play only the matches queued in this lane (default: the platform's lane); "
        "`match` and `tournament run` give their own service a private lane",
    )
    svc.add_argument(
        "--advertise",
        help="address other instances send this instance's bots to (default $CARDARENA_SERVICE_ADDR, else host:port)",
    )
    add_tls_files(svc, "TLS", "plaintext")
    svc.add_argument(
        "--tls-client-ca",
        metavar="FILE",
        help="mutual TLS: require a client certificate signed by this PEM CA as well as the bot's token "
        "(needs --tls-cert)",
    )
    svc.add_argument(
        "--grace", type=at_least(0), default=10, help="seconds live matches get on shutdown (default %(default)s)"
    )
    svc.add_argument(
        "--max-message-bytes",
        type=at_least(1024),
        default=64 * 1024,
        help="largest message a bot may send (default %(default)s)",
    )
    svc.add_argument(
        "--sessions-per-bot",
        type=at_least(1),
        default=4,
        help="open sessions of one bot, on all service instances on this Redis together; one more is refused "
        "(RESOURCE_EXHAUSTED; default %(default)s)",
    )
    svc.add_argument(
        "--bad-messages-per-minute",
        type=at_least(1),
        default=30,
        help="in-band rejections other than illegal actions (stale seq, unknown match, malformed ...) one "
        "session may cause in a minute before its stream is ended (RESOURCE_EXHAUSTED; default %(default)s)",
    )
    svc.add_argument(
        "--max-queued-messages",
        type=at_least(64),
        default=100_000,
        help="messages queued for a session whose bot does not read its stream before the stream "
        "is ended (RESOURCE_EXHAUSTED; default %(default)s)",
    )
    svc.add_argument(
        "--max-queued-bytes",
        type=at_least(64 * 1024),
        default=64 * 1024 * 1024,
        help="bytes queued for such a session before the stream is ended (default %(default)s)",
    )
    add_failed_auths_per_minute(
        svc,
        "streams and Admin calls with a missing or wrong token",
        "its new streams and Admin calls are refused at once for a minute (RESOURCE_EXHAUSTED), but for bot tokens "
        "that connected from it before",
    )
    svc.add_argument(
        "--lease-ms", type=at_least(1000), default=30000, help="a match's lease in Redis (default %(default)s)"
    )
    svc.set_defaults(func=Handler("cardarena.server.commands:_service"))
    svc_sub = svc.add_subparsers(dest="service_command", metavar="{health}")
    health = svc_sub.add_parser(
        "health",
        help="ask a running service its gRPC health, over TLS too (a readiness probe): exit 0 when SERVING",
        description="One gRPC health check of the server as a whole: prints 'ADDRESS: SERVING' and exits 0, or "
        "'ADDRESS: NOT_SERVING' (an instance standing by because another process holds its --instance-name, or "
        "shutting down) and exits 1; no answer within --timeout (not running, not reachable, a TLS handshake "
        "that failed) is one line on stderr and exit 1. Kubernetes' own gRPC probe speaks no TLS: with TLS on, "
        "run this as an exec probe.",
    )
    health.add_argument("--server", default="127.0.0.1:50051", help="the service's gRPC address (default %(default)s)")
    add_client_tls(health)
    health.add_argument(
        "--server-name",
        metavar="NAME",
        help="with TLS: check the service's certificate for this host name instead of --server's host (a probe "
        "that connects to 127.0.0.1 inside the pod, to a certificate issued for the instance's public name)",
    )
    health.add_argument(
        "--timeout", type=seconds, default=2.0, help="seconds to wait for the answer (default %(default)s)"
    )
    health.set_defaults(func=Handler("cardarena.server.healthcheck:service_health"))

    bot = sub.add_parser("bot", help="register, list, re-key, retire, delete or run bots")
    bot_sub = bot.add_subparsers(dest="bot_command", required=True)
    reg = bot_sub.add_parser(
        "register",
        help="register a bot (prints its token once), or several: a name,token CSV",
        description="One NAME prints its token alone. Several names, --from or --skip-registered print CSV: a "
        "'name,token' header, then one row per bot registered. Every name is checked first: a bad, "
        "repeated or already registered one registers nothing (exit 2).",
    )
    reg.add_argument("names", nargs="*", metavar="NAME")
    reg.add_argument(
        "--from",
        dest="roster",
        metavar="FILE",
        help="also register the names in FILE, one per line (blank lines and # comments skipped; - reads stdin)",
    )
    reg.add_argument(
        "--skip-registered",
        action="store_true",
        help="leave out names already registered instead of refusing (a roster that grew)",
    )
    add_redis_url(reg)
    reg.set_defaults(func=Handler("cardarena.server.commands:_bot_register"))
    tok = bot_sub.add_parser(
        "token", help="replace a bot's token (a lost or leaked one); prints the new one once, the old one stops working"
    )
    tok.add_argument("name")
    add_redis_url(tok)
    tok.set_defaults(func=Handler("cardarena.server.commands:_bot_token"))
    lst = bot_sub.add_parser("list", help="the registered bots: registration date, matches and faults")
    lst.add_argument("--json", action="store_true", help='{"bots": [...]}: each with its statistics, never a token')
    add_redis_url(lst)
    lst.set_defaults(func=Handler("cardarena.server.commands:_bot_list"))
    ret = bot_sub.add_parser(
        "retire",
        help="leave a bot out of the --all tournaments that start from now on (its record and results stay)",
    )
    ret.add_argument("name")
    ret.add_argument("--undo", action="store_true", help="put a retired bot back")
    add_redis_url(ret)
    ret.set_defaults(func=Handler("cardarena.server.commands:_bot_retire"))
    dele = bot_sub.add_parser(
        "delete",
        help="delete a bot registered by mistake, which never played (a bot with a history can only be retired)",
        description="Delete a bot that no match seats, no tournament has as an entrant, no schedule names, with no "
        "rating and no statistics (a name registered by mistake): its token stops working and the name can be "
        "registered again. A bot with a history is refused (exit 2): retire it instead.",
    )
    dele.add_argument("name")
    add_redis_url(dele)
    dele.set_defaults(func=Handler("cardarena.server.commands:_bot_delete"))
    run = bot_sub.add_parser("run", help="connect a bot to a service")
    run.add_argument("bot", help="random, heuristic, or a path to a .py file defining a Bot subclass")
    run.add_argument(
        "--server",
        default="127.0.0.1:50051",
        help="the service's gRPC address (default %(default)s, as `cardarena up` listens)",
    )
    run.add_argument(
        "--token",
        help="the bot's token (default: $CARDARENA_TOKEN, which other users of the machine cannot read in "
        "`ps` as they can this option)",
    )
    add_client_tls(run)
    run.add_argument("--name", help="the registered bot name (default: from the token)")
    run.add_argument("--seed", default=None, help="seed of the built-in bots' random choices (default: random)")
    run.add_argument(
        "--max-matches", type=int, default=0, help="matches played at once (default 0: the bot's own max_matches)"
    )
    run.add_argument(
        "--version",
        metavar="LABEL",
        help="the version label recorded with each match the bot plays (default: the bot's own version; "
        "for a .py file without one, sha256: and 12 hex digits of the file's content; '' for none)",
    )
    run.set_defaults(func=Handler("cardarena.server.commands:_bot_run"))

    match = sub.add_parser("match", help="play matches over gRPC between bots in their own processes")
    match.add_argument("game", help="game id (see docs/games/)")
    match.add_argument("--players", type=int, default=0, help="seats per match (default 0: the game's minimum)")
    match.add_argument("--bots", required=True, help="one per seat: random, heuristic or a .py file")
    match.add_argument("--matches", type=at_least(1), default=1, help="how many (default %(default)s)")
    match.add_argument(
        "--seed",
        default="0",
        help="the run's seed (default %(default)s): the deals, and the built-in bots' random choices; "
        "with --concurrency 1 a run repeats exactly, with more the bots' choices depend on how "
        "their matches interleave",
    )
    match.add_argument("--options", help="match options as JSON")
    match.add_argument("--replays", metavar="DIR", help="write the replays here, the bots' logs in DIR/logs/")
    match.add_argument("--move-ms", type=at_least(1, MAX_MS), default=2000, help="move clock (default %(default)s)")
    match.add_argument("--bank-ms", type=at_least(0, MAX_MS), default=30000, help="time bank (default %(default)s)")
    match.add_argument(
        "--concurrency", type=at_least(1), default=8, help="matches each bot plays at once (default %(default)s)"
    )
    match.add_argument(
        "--max-actions",
        type=at_least(1),
        default=MAX_ACTIONS,
        help="player actions after which the service stops a match that has not ended: a no contest, left out of "
        "the summary (a game or bots that loop; default %(default)s)",
    )
    match.add_argument("--verbose", action="store_true", help="show the service's log")
    add_redis_url(match)
    add_keep_data(match)
    match.set_defaults(func=Handler("cardarena.server.commands:_match"))

    bench = sub.choices.get("bench")
    if bench is not None:
        bench_sub = next(a for a in bench._actions if isinstance(a, argparse._SubParsersAction))
        svcb = bench_sub.add_parser("service", help="service moves/s and round-trip latency vs a bare gRPC echo")
        svcb.add_argument(
            "--concurrency",
            type=_levels,
            default=[1, 10, 100],
            help="the levels measured: matches played at once, comma-separated (default 1,10,100)",
        )
        svcb.add_argument(
            "--seconds", type=seconds, default=3.0, help="measured seconds per run (after 1 s warm-up; default 3)"
        )
        svcb.add_argument(
            "--repeats", type=at_least(1), default=3, help="runs per level; figures are medians (default 3)"
        )
        svcb.add_argument("--clients", type=at_least(1), default=2, help="bot / echo client processes (default 2)")
        svcb.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
        svcb.set_defaults(func=Handler("cardarena.server.commands:_bench_service"))
