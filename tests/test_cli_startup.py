"""The ``cardarena`` command loads only what the command it runs needs.

Its parser used to import every command area to build itself (the dashboard's Flask app, the
stores and Redis, the protocol's generated code, the SDK, Celery), so ``cardarena --help``, a
typo and the readiness probe ``service health`` (run every 15 s) each cost over a second of CPU.
These tests read which modules a command loaded (``python -X importtime``, in a process of its
own, the first import of each module listed), never how long it took."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest
from cardarena.cli import build_parser
from cardarena.cliargs import Handler
from cardarena.store.connection import free_port

ARGUMENTS = frozenset(
    {
        "cardarena",
        "cardarena.cli",
        "cardarena.cliargs",
        "cardarena.datacmd",
        "cardarena.server",
        "cardarena.server.arguments",
        "cardarena.store",
        "cardarena.store.values",
        "cardarena_sdk",
        "cardarena_sdk.arguments",
        "cardarena_tournament",
        "cardarena_tournament.arguments",
        "cardarena_dashboard",
        "cardarena_dashboard.arguments",
    }
)
"""Every first-party module that building the whole parser may load: the argument definitions,
each area's package (its ``__init__`` imports nothing) and the plain values of the stores."""

HEALTH_CHECK = frozenset({"cardarena.server.healthcheck", "cardarena_sdk.channel", "cardarena.pem"})
"""What ``service health`` adds to run: the check and the TLS options' PEM files."""

HEAVY = ("flask", "werkzeug", "jinja2", "celery", "kombu", "redis", "rich", "openskill")
"""Packages no ``--help`` and no health check loads."""

FIRST_PARTY = ("cardarena", "cardarena_sdk", "cardarena_tournament", "cardarena_dashboard")


def _loaded(*argv: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``python -X importtime ARGV``; the process, and the modules it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], env=os.environ, capture_output=True, text=True, timeout=60
    )
    names = {line.split("|")[2].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return done, names - {"imported package"}


def _first_party(names: set[str]) -> set[str]:
    return {n for n in names if n.split(".")[0] in FIRST_PARTY}


def _heavy(names: set[str]) -> set[str]:
    return {n for n in names if n.split(".")[0] in HEAVY or n.startswith(("google.protobuf", "grpc"))}


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["bot", "--help"],
        ["bot", "list", "--help"],
        ["service", "health", "--help"],
        ["tournament", "list", "--help"],
        ["dashboard", "--help"],
        ["play", "--help"],
        ["up", "--help"],
    ],
)
def test_help_loads_only_the_argument_definitions(argv: list[str]) -> None:
    done, names = _loaded("-m", "cardarena.cli", *argv)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage: cardarena")
    assert _first_party(names) <= ARGUMENTS, sorted(_first_party(names) - ARGUMENTS)
    assert not _heavy(names), sorted(_heavy(names))


def test_an_argument_error_loads_no_command() -> None:
    """A typo is told by the parser alone: same message and exit status as ever."""
    done, names = _loaded("-m", "cardarena.cli", "match", "glaves", "--bots", "random", "--move-ms", "2147483648")
    assert done.returncode == 2
    assert done.stderr.rstrip().endswith(
        "cardarena match: error: argument --move-ms: must be at most 2147483647, got 2147483648"
    )
    assert _first_party(names) <= ARGUMENTS and not _heavy(names)


@pytest.mark.parametrize("entry", [["-m", "cardarena.cli"], ["-m", "cardarena.server"]])
def test_the_health_probe_loads_grpc_and_the_health_stubs_only(entry: list[str]) -> None:
    """``service health`` (the manifest runs it as ``python -m cardarena.server service health``)
    against an address where nothing listens: one line, exit 1; loaded, besides the argument
    definitions, gRPC, its health stubs and the PEM checks; not the engine, the protocol's
    generated code, the SDK's client, the stores or Redis."""
    server = f"127.0.0.1:{free_port()}"
    done, names = _loaded(*entry, "service", "health", "--server", server, "--timeout", "0.2")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines()[-1].startswith(f"cardarena: {server}: no answer (")
    assert {"grpc", "grpc_health.v1.health_pb2_grpc"} <= names
    allowed = ARGUMENTS | HEALTH_CHECK | {"cardarena.server.__main__"}
    assert _first_party(names) <= allowed, sorted(_first_party(names) - allowed)
    heavy = {n for n in _heavy(names) if n.split(".")[0] in HEAVY}
    assert not heavy, sorted(heavy)


def _handlers(parser: argparse.ArgumentParser) -> list[tuple[str, Handler]]:
    """Every subcommand's ``func`` that is imported when it runs, with the command's name."""
    found = []
    func = parser._defaults.get("func")
    if isinstance(func, Handler):
        found.append((parser.prog, func))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += _handlers(sub)
    return found


def test_every_command_runs_a_function_that_exists() -> None:
    """A handler names its function by a string: each one resolves (a typo would only show
    when somebody ran that command)."""
    handlers = dict(_handlers(build_parser()))
    assert handlers["cardarena service health"].target == "cardarena.server.healthcheck:service_health"
    assert {"cardarena bot run", "cardarena tournament run", "cardarena dashboard", "cardarena up"} <= set(handlers)
    for prog, handler in handlers.items():
        assert callable(handler.resolve()), prog


def test_the_parser_s_action_limit_is_the_engine_s() -> None:
    """``--max-actions``' default is written out in :mod:`cardarena.cliargs` (the engine is not
    imported to build the parser): it is the platform's limit all the same."""
    from cardarena.cliargs import MAX_ACTIONS
    from cardarena.engine import MAX_ACTIONS as ENGINE_LIMIT

    assert MAX_ACTIONS == ENGINE_LIMIT
    assert build_parser().parse_args(["simulate", "glaves"]).max_actions == ENGINE_LIMIT
