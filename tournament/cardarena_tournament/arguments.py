"""The arguments of ``cardarena tournament ...`` (:mod:`.commands`, ``tournament run``: :mod:`.run`),
``prune``, ``worker`` and ``beat`` (:func:`register`), and of ``up`` and ``demo`` (:mod:`.platform`,
:func:`register_platform`): definitions only, so that building the ``cardarena`` parser and
``--help`` load neither the stores nor Celery (a command's code is imported when it runs)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from cardarena.cliargs import (
    GAME_HELP,
    PLAYERS_HELP,
    Handler,
    add_failed_auths_per_minute,
    add_loglevel,
    add_max_connections,
    add_redis_url,
    add_tls_files,
    at_least,
    host_and_port,
)
from cardarena.server.arguments import add_keep_data
from cardarena.store.values import MAX_MS, STATUSES

DEMO_BOTS = "heuristic,heuristic,random,random"
"""The demo's entrants (named heuristic-1, heuristic-2, random-1, random-2)."""

LOOPBACK = "127.0.0.1"
"""The address ``up`` and ``demo`` listen on unless ``--host`` says otherwise."""


def register(sub: Any) -> None:
    """Add ``tournament``, ``prune``, ``worker`` and ``beat`` to the ``cardarena`` command."""
    tour = sub.add_parser("tournament", help="create, run and inspect tournaments")
    tsub = tour.add_subparsers(dest="tournament_command", required=True)

    create = tsub.add_parser("create", help="create a tournament (or a recurring one with --schedule)")
    create.add_argument("--game", required=True, help=GAME_HELP)
    create.add_argument("--players", type=int, required=True, help=PLAYERS_HELP)
    who = create.add_mutually_exclusive_group(required=True)
    who.add_argument("--bots", help="comma-separated bot names")
    who.add_argument("--all", action="store_true", help="every registered bot")
    create.add_argument(
        "--deal-sets", type=int, default=1, help="deals per table, each played in every seating (default %(default)s)"
    )
    add_match_rules(create)
    add_unrated(create)
    create.add_argument(
        "--name",
        help="shown on the dashboard and by list/status (default: '<Game> <n>p'); at most 200 printable characters",
    )
    create.add_argument("--schedule", help="cron ('0 2 * * *') or interval ('30s', '10m', 'every 1h')")
    create.add_argument(
        "--notify",
        action="append",
        metavar="URL",
        help="a webhook (Slack, Mattermost, Discord, Teams ...) told when the tournament ends, finished or "
        "cancelled (with --schedule: when each run ends); repeat for several; http(s) only, kept secret; "
        "public addresses only unless CARDARENA_NOTIFY_ALLOW_INTERNAL lists the host",
    )
    add_redis_url(create)
    create.set_defaults(func=Handler("cardarena_tournament.commands:_create"))

    listing = tsub.add_parser("list", help="the tournaments, newest first")
    listing.add_argument("--status", choices=STATUSES, help="only those with this status")
    listing.add_argument("--limit", type=at_least(1), default=20, help="at most this many (default %(default)s)")
    listing.add_argument(
        "--offset", type=at_least(0), default=0, help="skip the newest N (the next page: --offset LIMIT; default 0)"
    )
    listing.add_argument(
        "--json", action="store_true", help='{"tournaments": [...]}, each as `status --json` prints it'
    )
    add_redis_url(listing)
    listing.set_defaults(func=Handler("cardarena_tournament.commands:_list"))

    status = tsub.add_parser("status", help="a tournament's status")
    status.add_argument("id")
    status.add_argument(
        "--json", action="store_true", help="the stored record as JSON (with notify: its targets' hosts and deliveries)"
    )
    add_redis_url(status)
    status.set_defaults(func=Handler("cardarena_tournament.commands:_status"))

    cancel = tsub.add_parser(
        "cancel", help="cancel an upcoming or running tournament (its unplayed matches are withdrawn)"
    )
    cancel.add_argument("id")
    add_redis_url(cancel)
    cancel.set_defaults(func=Handler("cardarena_tournament.commands:_cancel"))

    scheds = tsub.add_parser("schedules", help="list the recurring tournaments: next run, last run, last error")
    scheds.add_argument("--json", action="store_true", help='{"schedules": [...]} (webhooks by host only)')
    add_redis_url(scheds)
    scheds.set_defaults(func=Handler("cardarena_tournament.commands:_schedules"))

    unsched = tsub.add_parser("unschedule", help="remove a recurring tournament (runs already started go on)")
    unsched.add_argument("id")
    add_redis_url(unsched)
    unsched.set_defaults(func=Handler("cardarena_tournament.commands:_unschedule"))

    stand = tsub.add_parser("standings", help="a tournament's standings (or every run of a schedule's)")
    stand.add_argument("id", nargs="?", help="the tournament (or --schedule)")
    stand.add_argument(
        "--schedule",
        metavar="SCHEDULE_ID",
        help="every finished run of this schedule, oldest first: a term of weekly runs in one CSV (--csv), "
        "one JSON document or one table after another",
    )
    form = stand.add_mutually_exclusive_group()
    form.add_argument(
        "--json", action="store_true", help="the snapshot as JSON, each row with its strikes, forfeits and no-shows"
    )
    form.add_argument(
        "--csv",
        action="store_true",
        help="one CSV row per bot (for a spreadsheet): rank, mean and CI, matches, win share, places, "
        "rating, and its strikes, forfeits and no-shows in this tournament",
    )
    stand.add_argument(
        "--crosstable",
        action="store_true",
        help="also every pair of bots' record against each other (mean score difference per deal set with its "
        "95%% interval, ahead/behind/level): a text matrix after the table, or a 'crosstable' key with --json",
    )
    add_redis_url(stand)
    stand.set_defaults(func=Handler("cardarena_tournament.commands:_standings"))

    _register_run(tsub)

    prune = sub.add_parser(
        "prune",
        help="drop replays of tournaments that ended long ago and the results stream's acknowledged entries",
        description="Drop the replays of matches whose tournament ended more than DAYS ago (results, "
        "standings, ratings and match lists are kept) and the results-stream entries every consumer group has "
        "acknowledged. Tournaments still upcoming or running are never touched. Redis: --redis-url, else "
        "REDIS_URL, else the embedded default. The deployment does this by itself: beat sends the prune task every "
        "CARDARENA_PRUNE_S seconds (default 3600) and a worker runs it with the CARDARENA_REPLAY_RETENTION_DAYS "
        "of the worker's environment.",
    )
    prune.add_argument(
        "--older-than",
        metavar="DAYS",
        help="the retention period in days (default: CARDARENA_REPLAY_RETENTION_DAYS; unset: replays are kept)",
    )
    prune.add_argument("--dry-run", action="store_true", help="report what would be dropped, change nothing")
    prune.add_argument("--json", action="store_true", help="the report as JSON")
    add_redis_url(prune)
    prune.set_defaults(func=Handler("cardarena_tournament.commands:_prune"))

    worker = sub.add_parser("worker", help="run one Celery tournament worker (needs REDIS_URL)")
    worker.add_argument(
        "--concurrency",
        type=at_least(1),
        default=max(2, os.cpu_count() or 2),
        help="tasks run at once: pool processes or threads (default: the CPUs, at least 2; here %(default)s)",
    )
    worker.add_argument(
        "--pool",
        default="prefork",
        choices=["prefork", "threads", "solo"],
        help="Celery's pool: prefork (a process per slot, the default), threads (what `up` runs) or solo (one "
        "task at a time, in the worker's own process)",
    )
    worker.add_argument(
        "--hostname", help="the worker's Celery node name, also in its heartbeat key (default: celery@<host name>)"
    )
    worker.add_argument(
        "--no-supervise", action="store_true", help="run Celery in this process (no restart after a crash)"
    )
    add_loglevel(worker)
    worker.set_defaults(func=Handler("cardarena_tournament.commands:_worker"))

    beat = sub.add_parser(
        "beat", help="run the Celery beat scheduler (one leads per deployment, others stand by; needs REDIS_URL)"
    )
    beat.add_argument("--state", help="beat's own state file (schedules themselves live in Redis)")
    add_loglevel(beat)
    beat.add_argument("--no-supervise", action="store_true", help="run beat in this process (no restart after a crash)")
    beat.set_defaults(func=Handler("cardarena_tournament.commands:_beat"))


def add_match_rules(parser: Any) -> None:
    """``--options``, ``--time-control`` and ``--fault-policy`` (for ``create`` and ``run``)."""
    parser.add_argument("--options", help="game options as JSON, e.g. '{\"deals\": 1}'")
    parser.add_argument("--time-control", help='clocks as JSON: {"move_ms": 2000, "bank_ms": 30000} (the defaults)')
    parser.add_argument(
        "--move-ms", type=at_least(1, MAX_MS), help="move clock in ms (as cardarena match; instead of --time-control)"
    )
    parser.add_argument("--bank-ms", type=at_least(0, MAX_MS), help="time bank in ms (as cardarena match)")
    parser.add_argument(
        "--fault-policy",
        help='as JSON: {"default_action": "first"|"random", "max_strikes": 3, "max_rejections": 10, '
        '"join_timeout_ms": 15000, "no_show_attempts": 3, "max_actions": 100000} (the defaults); '
        "see docs/tournaments.md",
    )


def add_unrated(parser: Any) -> None:
    """``--unrated`` (for ``create`` and ``run``)."""
    parser.add_argument(
        "--unrated",
        action="store_true",
        help="a practice tournament: its matches leave the bots' OpenSkill ratings alone (standings as usual)",
    )


def _register_run(tsub: Any) -> None:
    """Add ``tournament run``."""
    run = tsub.add_parser(
        "run", help="run one tournament locally end to end (embedded default Redis unless --redis-url or REDIS_URL)"
    )
    run.add_argument("--game", required=True, help=GAME_HELP)
    run.add_argument("--players", type=int, required=True, help=PLAYERS_HELP)
    run.add_argument(
        "--bots",
        required=True,
        help="bot specs, comma-separated: random, heuristic or a .py bot file (repeats get -1, -2 ...)",
    )
    run.add_argument(
        "--deal-sets", type=int, default=1, help="deals per table, each played in every seating (default %(default)s)"
    )
    add_match_rules(run)
    add_unrated(run)
    run.add_argument("--seed", help="tournament seed (default: a random one; --json lists each match's seed)")
    run.add_argument(
        "--timeout", type=float, default=3600, help="give up after this many seconds (default %(default)g)"
    )
    run.add_argument("--json", action="store_true", help="print standings and matches as JSON")
    run.add_argument(
        "--in-process",
        action="store_true",
        help="play the matches here with the SDK's local match runner: no Redis, service, gRPC or bot "
        "processes, no clocks; the same schedule, seeds, fault policy and standings (a bot author's quick A/B test)",
    )
    run.add_argument(
        "--jobs",
        type=at_least(0),
        help="with --in-process: worker processes playing the matches (default 1: in this process; 0: one per CPU)",
    )
    run.add_argument(
        "--verbose", action="store_true", help="child processes log to stderr (--in-process: the bots' output)"
    )
    add_redis_url(run)
    add_keep_data(run)
    run.set_defaults(func=Handler("cardarena_tournament.run:_run"))


def _port(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, not {value}")
    return value


def register_platform(sub: Any) -> None:
    """Add ``up`` and ``demo``."""
    up = sub.add_parser("up", help="start Redis, service, worker, beat and dashboard (on loopback unless --host)")
    up.add_argument(
        "--grpc-port",
        type=_port,
        default=50051,
        help="gRPC port bots connect to (default %(default)s; 0 picks a free one)",
    )
    up.add_argument(
        "--http-port", type=_port, default=8080, help="dashboard port (default %(default)s; 0 picks a free one)"
    )
    up.add_argument(
        "--host",
        default=LOOPBACK,
        help="interface the gRPC port and the dashboard listen on (default %(default)s; 0.0.0.0: every "
        "interface, for bots on other machines: serve TLS then)",
    )
    up.add_argument(
        "--advertise",
        type=host_and_port,
        metavar="HOST[:PORT]",
        help="the address bots are told to connect to (the printed `bot run` line, invitations from other "
        "service instances); the certificate must name HOST (default: --host, this machine's name for "
        "0.0.0.0; PORT: the gRPC port)",
    )
    add_tls_files(up, "TLS (the gRPC port) and HTTPS (the dashboard)", "plaintext")
    up.add_argument(
        "--tls-client-ca",
        metavar="FILE",
        help="mutual TLS: bots must also present a client certificate this PEM CA signed (needs --tls-cert)",
    )
    add_max_connections(up)
    add_failed_auths_per_minute(
        up,
        "bot streams, Admin calls and dashboard admin requests with a missing or wrong token (the service and the "
        "dashboard counting their own)",
        "the address is refused for a minute (the service: RESOURCE_EXHAUSTED; the dashboard: 429)",
    )
    up.add_argument("--verbose", action="store_true", help="every process logs to stderr (not to log files)")
    up.set_defaults(func=Handler("cardarena_tournament.platform:_up"))

    demo = sub.add_parser("demo", help="up, plus example bots and a Glaves round robin with duplicate deals")
    demo.add_argument("--once", action="store_true", help="run the tournament, print the standings and exit")
    demo.add_argument("--grpc-port", type=_port, default=0, help="gRPC port (default %(default)s: a free one)")
    demo.add_argument(
        "--http-port", type=_port, default=8080, help="dashboard port (default %(default)s; 0 picks a free one)"
    )
    demo.add_argument("--game", default="glaves", help="game id, see docs/games/ (default %(default)s)")
    demo.add_argument(
        "--players", type=int, default=3, help="players per match; the game must allow it (default %(default)s)"
    )
    demo.add_argument(
        "--bots",
        default=DEMO_BOTS,
        help="entrants, comma-separated: built-in bots (random, heuristic) or .py files defining a Bot; "
        "repeats are numbered heuristic-1, heuristic-2 ... (default %(default)s)",
    )
    demo.add_argument(
        "--deal-sets",
        type=int,
        default=2,
        help="deal sets, at least 1; each plays every seating on the same deals (default %(default)s)",
    )
    demo.add_argument(
        "--timeout", type=float, default=1800, help="give up after this many seconds (default %(default)s)"
    )
    demo.add_argument("--verbose", action="store_true", help="every process logs to stderr (not to log files)")
    add_keep_data(demo, external="REDIS_URL")
    demo.set_defaults(func=Handler("cardarena_tournament.platform:_demo"))
