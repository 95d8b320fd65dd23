"""``cardarena up`` and ``cardarena demo``: the whole platform on one machine.

``up`` starts (or joins) the user's embedded default Redis (its data under the user's data
directory, shared with the other commands running at the same time; ``REDIS_URL`` switches to
an external one), the gRPC service, one Celery worker, beat and the dashboard, prints the
addresses (and how to register and connect a bot) and runs until Ctrl-C or SIGTERM, when it
stops every part (children also die with it if it is killed).  The service and the dashboard
listen on loopback unless ``--host`` says otherwise; ``--tls-cert``/``--tls-key`` (and
``--tls-client-ca``) make the service serve TLS only, as ``cardarena service`` does, and the
dashboard HTTPS only with the same certificate (not asking browsers for client certificates);
``--advertise`` names the address bots are given (:class:`Serving`).  A non-loopback
``--host`` without TLS is served with a warning: bot tokens and the dashboard's admin token then
travel in clear.

``demo`` is ``up`` plus example bots registered and connected and a 3-player Glaves round
robin with duplicate deals, with a progress bar and the dashboard URL; ``demo --once`` runs
the tournament, prints the standings and exits.  On an external Redis (``REDIS_URL``) the demo
works under a key prefix of its own and deletes it when it ends unless ``--keep-data``
(``cardarena.server.commands.run_namespace``, as ``match`` and ``tournament run``).

Both check their arguments and the requested ports before starting anything.  Each child's
output goes to its own log file (``<data dir>/logs/<command>-<time>-<pid>/<part>.log``; the
newest :data:`KEEP_LOG_RUNS` runs are kept; ``--verbose`` sends it to stderr instead), so a
part that fails is reported in one line (a busy port by number) with the end of its log,
never a traceback: exit status 2 when the platform could not start, 1 when a part stopped
later.  Every part started is stopped either way.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from cardarena.ports import is_loopback, join_host_port

from .arguments import LOOPBACK

if TYPE_CHECKING:
    from cardarena.server.tls import ServerTls

KEEP_LOG_RUNS = 20
"""How many runs' log directories ``up``/``demo`` keep under ``<data dir>/logs``."""

LOG_TAIL_LINES = 12
"""How many last lines of a failed part's log an error shows."""

_PORT_IN_USE = re.compile(r"already in use|failed to bind to address|is in use by another program", re.I)

_WILDCARDS = ("0.0.0.0", "::", "")


@dataclass(frozen=True)
class Serving:
    """Where and how ``up`` serves bots and browsers."""

    host: str = LOOPBACK
    """The interface the service's gRPC port and the dashboard listen on (``--host``)."""
    advertise: tuple[str, int | None] | None = None
    """``--advertise HOST[:PORT]``: the address bots are given (the printed ``bot run`` line,
    and the service's invitations); no port: the gRPC port.  ``None``: the host (this machine's
    name for a wildcard ``--host``), as ``cardarena service`` advertises by default."""
    tls: ServerTls | None = None
    """The service's ``--tls-cert``/``--tls-key``/``--tls-client-ca``, already checked (the
    dashboard serves HTTPS with the same certificate and key)."""
    max_connections: int | None = None
    """``--max-connections``: the dashboard's connections at once (``None``: its default)."""
    max_per_client: int | None = None
    """``--max-connections-per-client``: of those, from one client address (``None``: its default)."""
    failed_auths_per_minute: int | None = None
    """``--failed-auths-per-minute``: the service's and the dashboard's, each counting its own
    (``None``: their default)."""

    @property
    def public_host(self) -> str:
        """The host name printed for bots and browsers."""
        if self.advertise is not None:
            return self.advertise[0]
        return socket.gethostname() if self.host in _WILDCARDS else self.host

    @property
    def local_host(self) -> str:
        """A host this machine reaches the dashboard at (loopback for a wildcard ``--host``)."""
        if self.host in _WILDCARDS:
            return "::1" if ":" in self.host else LOOPBACK
        return self.host

    def in_clear(self) -> bool:
        """Whether tokens (bots', the dashboard's admin token) could leave this machine
        unencrypted (no TLS, not loopback)."""
        return self.tls is None and not is_loopback(self.host)

    def service_args(self, grpc_port: int) -> list[str]:
        """The service's options for these settings, listening on ``grpc_port``."""
        argv = ["--port", str(grpc_port), "--host", self.host]
        if self.advertise is not None:
            host, port = self.advertise
            argv += ["--advertise", join_host_port(host, port or grpc_port)]
        if self.tls is not None:
            argv += ["--tls-cert", self.tls.cert, "--tls-key", self.tls.key]
            if self.tls.client_ca is not None:
                argv += ["--tls-client-ca", self.tls.client_ca]
        return argv + self._failed_auths_args()

    def dashboard_args(self, http_port: int) -> list[str]:
        """The dashboard's options for these settings, listening on ``http_port`` (HTTPS with the
        service's certificate; browsers are not asked for client certificates)."""
        argv = ["--host", self.host, "--port", str(http_port)]
        if self.tls is not None:
            argv += ["--tls-cert", self.tls.cert, "--tls-key", self.tls.key]
        if self.max_connections is not None:
            argv += ["--max-connections", str(self.max_connections)]
        if self.max_per_client is not None:
            argv += ["--max-connections-per-client", str(self.max_per_client)]
        return argv + self._failed_auths_args()

    def _failed_auths_args(self) -> list[str]:
        if self.failed_auths_per_minute is None:
            return []
        return ["--failed-auths-per-minute", str(self.failed_auths_per_minute)]

    @property
    def scheme(self) -> str:
        """The dashboard's URL scheme."""
        return "http" if self.tls is None else "https"


class PlatformError(Exception):
    """The platform could not start (``status`` 2) or a part of it stopped (``status`` 1).

    ``str(exc)`` is the one-line reason; ``detail`` the end of the failed part's log, if any.
    """

    def __init__(self, message: str, *, detail: str = "", status: int = 2) -> None:
        super().__init__(message)
        self.detail = detail
        self.status = status


@dataclass
class Part:
    """One child process of the platform."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path | None
    """Its log file (``None`` with ``--verbose``: it logs to stderr)."""
    port: tuple[int, str] | None = None
    """The port it listens on and the option that chose it, for the error when it cannot."""


@dataclass
class Platform:
    """Addresses and processes of a running platform."""

    redis_url: str
    grpc_port: int
    http_port: int
    env: dict[str, str]
    log_dir: Path | None = None
    """Where the children's logs go (``None`` with ``--verbose``)."""
    embedded: bool = True
    """Whether Redis is the user's embedded default (``REDIS_URL`` was unset)."""
    serving: Serving = field(default_factory=Serving)
    parts: list[Part] = field(default_factory=list)

    @property
    def procs(self) -> list[subprocess.Popen[bytes]]:
        """Every child process, in start order."""
        return [p.proc for p in self.parts]

    @property
    def dashboard_url(self) -> str:
        """Where browsers reach the dashboard."""
        return f"{self.serving.scheme}://{join_host_port(self.serving.public_host, self.http_port)}/"

    @property
    def local_dashboard_url(self) -> str:
        """Where this machine reaches the dashboard."""
        return f"{self.serving.scheme}://{join_host_port(self.serving.local_host, self.http_port)}/"

    @property
    def service_address(self) -> str:
        """The gRPC address bots connect to (``--advertise``, else ``CARDARENA_SERVICE_ADDR``,
        else the host and port)."""
        given = self.serving.advertise
        if given is None and self.env.get("CARDARENA_SERVICE_ADDR"):
            return self.env["CARDARENA_SERVICE_ADDR"]
        port = given[1] if given is not None and given[1] else self.grpc_port
        return join_host_port(self.serving.public_host, port)

    def log_file(self, name: str) -> Path | None:
        """The log file for a part called ``name`` (``None`` with ``--verbose``)."""
        if self.log_dir is None:
            return None
        return self.log_dir / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}.log"

    def start(self, name: str, argv: list[str], env: dict[str, str], port: tuple[int, str] | None = None) -> Part:
        """Start a child called ``name`` (dying with this process), its output to its log."""
        from cardarena.processes import parent_death_signal

        log = self.log_file(name)
        with _output(log) as out:
            proc = subprocess.Popen(
                argv,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                preexec_fn=parent_death_signal,
            )
        part = Part(name, proc, log, port)
        self.parts.append(part)
        return part

    def check_alive(self, *, starting: bool = False) -> None:
        """Raise :class:`PlatformError` (with its log's tail) if any part has exited."""
        for part in self.parts:
            if part.proc.poll() is not None:
                raise failure(
                    part.name, part.proc.returncode, part.log, part.port, starting=starting, host=self.serving.host
                )


@contextlib.contextmanager
def _output(log: Path | None) -> Iterator[IO[Any]]:
    if log is None:
        yield sys.stderr
        return
    with log.open("ab") as out:  # the child holds its own descriptor; ours closes at once
        yield out


def tail(log: Path | None, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` non-empty lines of a log file ("" if none), without terminal escape
    sequences (:func:`plain_text`)."""
    if log is None:
        return ""
    try:
        with log.open("rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    kept = [line.rstrip() for line in plain_text(text).splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


_ANSI = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC (terminal titles, hyperlinks) ending in BEL or ST
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement, erasing
    r"|\x1b[ -/]*[0-~]"  # the other escapes (ESC ( B, ESC 7, ESC M ...)
    r"|[\x00-\x08\x0e-\x1f\x7f]"  # stray control characters (a lone ESC, backspace ...)
)


def plain_text(text: str) -> str:
    """``text`` without terminal escape sequences and control characters (tabs and line breaks
    stay): coloured log lines (Celery's, rich's) quoted in a report print as plain text."""
    return _ANSI.sub("", text)


def ended(status: int | None, *, starting: bool = False) -> str:
    """How a child with exit ``status`` ended: ``exited with status 3``, ``was killed by signal
    9 (SIGKILL)`` (``Popen`` reports death by a signal as a negative status) or ``exited``;
    ``starting`` adds "during start-up" after the verb."""
    when = " during start-up" if starting else ""
    if status is None:
        return f"exited{when}"
    if status < 0:
        try:
            name = f" ({signal.Signals(-status).name})"
        except ValueError:
            name = ""
        return f"was killed{when} by signal {-status}{name}"
    return f"exited{when} with status {status}"


def failure(
    name: str,
    status: int | None,
    log: Path | None,
    port: tuple[int, str] | None,
    *,
    starting: bool,
    host: str = LOOPBACK,
) -> PlatformError:
    """The error for part ``name`` that exited with ``status``: a busy port (on ``host``) by
    number, else its log's tail."""
    end = tail(log)
    code = 2 if starting else 1
    if port is not None and _PORT_IN_USE.search(end):
        number, option = port
        return PlatformError(
            f"the {name} cannot listen on {join_host_port(host, number)} ({option}): the port is already in use"
            + (f" (log: {log})" if log else ""),
            status=code,
        )
    said = f"the {name} {ended(status, starting=starting)}"
    if log is None:
        said += " (its log is above)"
    elif end:
        said += f"; the end of its log ({log}):"
    else:
        said += f" (its log, {log}, is empty)"
    return PlatformError(said, detail=end, status=code)


def check_ports(grpc_port: int, http_port: int, host: str = LOOPBACK) -> None:
    """Raise :class:`PlatformError` unless both requested ports are free on ``host`` and distinct."""
    if grpc_port and grpc_port == http_port:
        raise PlatformError(f"--grpc-port and --http-port are both {grpc_port}; they need different ports")
    from cardarena.ports import port_problem

    for port, option in ((grpc_port, "--grpc-port"), (http_port, "--http-port")):
        problem = port_problem(port, option, host)
        if problem:
            raise PlatformError(problem)


def new_log_dir(data_dir: Path | None, command: str) -> Path:
    """A fresh log directory for this run; older runs beyond :data:`KEEP_LOG_RUNS` are removed."""
    from cardarena.store.connection import DEFAULT_DATA_DIR

    root = (data_dir or DEFAULT_DATA_DIR) / "logs"
    here = root / f"{command}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    here.mkdir(parents=True, exist_ok=True)
    runs = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    for old in runs[:-KEEP_LOG_RUNS]:
        shutil.rmtree(old, ignore_errors=True)
    return here


@contextlib.contextmanager
def _redis(data_dir: Path | None) -> Iterator[str]:
    from cardarena.store.connection import DEFAULT_DATA_DIR, default_redis

    with default_redis((data_dir or DEFAULT_DATA_DIR) / "redis") as url:
        yield url


@contextlib.contextmanager
def running_platform(
    *,
    grpc_port: int = 0,
    http_port: int = 0,
    data_dir: Path | None = None,
    verbose: bool = False,
    command: str = "up",
    serving: Serving | None = None,
) -> Iterator[Platform]:
    """Start Redis, service, worker, beat and dashboard (the service and the dashboard as
    ``serving`` says, default: loopback, plaintext); stop them all on exit.  The children get
    ``CARDARENA_PUBLIC_URL`` (the link in tournament notifications), unless it is set, as the
    dashboard's address.

    Raises :class:`PlatformError` (nothing left running) if a port is taken or a part exits
    during start-up.
    """
    from cardarena.server.commands import start_service, stop_process
    from cardarena.store.connection import configured_url, free_port

    serving = serving or Serving()
    check_ports(grpc_port, http_port, serving.host)
    if serving.advertise is not None and serving.advertise[1] is None and not grpc_port:
        grpc_port = free_port()  # the advertised address needs the port before the service starts
    embedded = configured_url() is None
    log_dir = None if verbose else new_log_dir(data_dir, command)
    with _redis(data_dir) as url, tempfile.TemporaryDirectory(prefix="cardarena-up-") as tmp:
        env = {**os.environ, "REDIS_URL": url}
        os.environ["REDIS_URL"] = url
        platform = Platform(
            redis_url=url,
            grpc_port=0,
            http_port=http_port or free_port(),
            env=env,
            log_dir=log_dir,
            embedded=embedded,
            serving=serving,
        )
        # the notifications' link to the tournament (docs/tournaments.md, Notifications)
        env.setdefault("CARDARENA_PUBLIC_URL", platform.dashboard_url.rstrip("/"))
        try:
            service_log = platform.log_file("service")
            grpc = (grpc_port, "--grpc-port") if grpc_port else None
            with _output(service_log) as out:
                try:
                    service, platform.grpc_port = start_service(env, extra=serving.service_args(grpc_port), log=out)
                except RuntimeError as exc:
                    status = re.search(r"exit status (-?\d+)", str(exc))
                    code = int(status.group(1)) if status else None
                    raise failure("service", code, service_log, grpc, starting=True, host=serving.host) from None
            platform.parts.append(Part("service", service, service_log, grpc))
            cli = [sys.executable, "-m", "cardarena.cli"]
            level = "INFO" if verbose else "WARNING"
            platform.start(
                "worker", [*cli, "worker", "--pool", "threads", "--concurrency", "2", "--loglevel", level], env
            )
            platform.start("beat", [*cli, "beat", "--state", str(Path(tmp) / "beat"), "--loglevel", level], env)
            platform.start(
                "dashboard",
                [*cli, "dashboard", *serving.dashboard_args(platform.http_port)],
                env,
                port=(platform.http_port, "--http-port"),
            )
            _wait_http(platform)
            yield platform
        finally:
            for part in reversed(platform.parts):
                stop_process(part.proc)


def _wait_http(platform: Platform, timeout: float = 30.0) -> None:
    import ssl
    import urllib.request

    # only whether our own child answers, over loopback: the certificate need not name that host
    # nor be signed by a CA this machine trusts
    unchecked = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    unchecked.check_hostname = False
    unchecked.verify_mode = ssl.CERT_NONE
    deadline = time.monotonic() + timeout
    while True:
        platform.check_alive(starting=True)
        try:
            url = platform.local_dashboard_url + "api/v1/games"
            with urllib.request.urlopen(url, timeout=2, context=unchecked) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            log = platform.log_file("dashboard")
            raise PlatformError(
                f"the dashboard did not answer within {timeout:.0f} s" + (f" (log: {log})" if log else ""),
                detail=tail(log),
            )
        time.sleep(0.2)


def connect_command(platform: Platform) -> list[str]:
    """How a bot connects: the ``bot run`` line and, with TLS, what its placeholder files are."""
    tls = platform.serving.tls
    # The token goes in the environment: a command line is readable by every user of the machine.
    line = f"CARDARENA_TOKEN=TOKEN cardarena bot run my_bot.py --server {platform.service_address}"
    if tls is None:
        return [line]
    line += " --ca-cert ca.pem"  # it implies --tls (as --client-cert does)
    note = "ca.pem: the certificate of the CA that signed --tls-cert; a public CA's: --tls alone"
    if tls.mutual:
        line += " --client-cert bot.crt --client-key bot.key"
        note += "; bot.crt/bot.key: a client certificate the --tls-client-ca CA signed"
    return [line, f"({note})"]


def _print_addresses(platform: Platform, keys: str = "", *, bots: bool = False) -> None:
    """The platform's addresses; ``keys``: where its data is in an external Redis, if not under
    the usual prefix (the demo's); ``bots``: how to register and connect a bot."""
    from cardarena.store.connection import shown_url

    tls = platform.serving.tls
    kind = "gRPC" if tls is None else "gRPC over mutual TLS" if tls.mutual else "gRPC over TLS"
    print(f"redis      {shown_url(platform.redis_url)}")
    if keys and not platform.embedded:
        print(f"keys       {keys}")
    print(f"service    {platform.service_address}  ({kind}; bots connect here)")
    print(f"dashboard  {platform.dashboard_url}")
    if platform.log_dir is not None:
        print(f"logs       {platform.log_dir}")
    if bots:
        print("register   cardarena bot register NAME   (in another shell; prints the bot's token once)")
        first, *more = connect_command(platform)
        print(f"connect    {first}")
        for line in more:
            print(f"           {line}")
    if platform.embedded:
        print("other cardarena commands (another shell) use this Redis while REDIS_URL is unset; anything else:")
        print(f"  export REDIS_URL={platform.redis_url}   # with its password: e.g. a worker elsewhere, redis-cli")
    elif keys:
        print("other cardarena commands need the same REDIS_URL and that CARDARENA_PREFIX")
    else:
        print("other cardarena commands need the same REDIS_URL")
    print("Ctrl-C stops everything.", flush=True)


def _report(exc: PlatformError) -> int:
    print(f"cardarena: error: {exc}", file=sys.stderr)
    for line in exc.detail.splitlines():
        print(f"  | {line}", file=sys.stderr)
    return exc.status


def serving_options(args: argparse.Namespace) -> Serving:
    """``up``'s ``--host``, ``--advertise`` and TLS files, checked (the files read):
    :class:`~cardarena.pem.PemError` (one line, as ``cardarena service`` says it) if they cannot
    be served."""
    from cardarena.server.tls import load_server_tls

    tls = load_server_tls(args.tls_cert, args.tls_key, args.tls_client_ca)  # the service runs in our cwd
    return Serving(
        host=args.host,
        advertise=args.advertise,
        tls=tls,
        max_connections=args.max_connections,
        max_per_client=args.max_connections_per_client,
        failed_auths_per_minute=args.failed_auths_per_minute,
    )


def _up(args: argparse.Namespace) -> int:
    from cardarena.pem import PemError
    from cardarena.processes import sigterm_as_keyboard_interrupt
    from cardarena.secretcheck import start_warnings

    try:
        serving = serving_options(args)
    except PemError as exc:
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2
    for warning in start_warnings(args.tls_key):  # the service's and dashboard's logs say it too
        print(warning, file=sys.stderr, flush=True)
    if serving.in_clear():
        print(
            f"cardarena: warning: --host {args.host} is reachable from other machines and there is no TLS "
            "(--tls-cert/--tls-key): bot tokens and the dashboard's admin token travel in clear",
            file=sys.stderr,
            flush=True,
        )
    with sigterm_as_keyboard_interrupt():
        try:
            with running_platform(
                grpc_port=args.grpc_port, http_port=args.http_port, verbose=args.verbose, serving=serving
            ) as p:
                _print_addresses(p, bots=True)
                while True:
                    p.check_alive()
                    time.sleep(0.5)
        except KeyboardInterrupt:
            print("stopped.", file=sys.stderr)
        except PlatformError as exc:
            return _report(exc)
    return 0


def check_bot_specs(bots: list[tuple[str, str]]) -> None:
    """Raise ``TournamentError`` unless every bot kind loads: a built-in bot of the SDK, or a
    ``.py`` file that imports and defines one bot class (``cardarena_sdk.check_bot_spec``), and
    the name it gets (after the file: ``mybot-1``) is a valid bot name."""
    from cardarena.store.bots import BotError, check_name
    from cardarena.store.tournaments import TournamentError
    from cardarena_sdk import check_bot_spec

    for kind, name in bots:
        try:
            check_bot_spec(kind)
        except ValueError as exc:
            raise TournamentError(f"--bots: {exc}") from None
        try:
            check_name(name)  # a file named my:bot.py names its bot my:bot-1
        except BotError as exc:
            raise TournamentError(f"--bots: {kind}: its bot would be named {name!r}: {exc}") from None


def _check_demo(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The demo's ``(kind, name)`` bots once every argument is valid; raises otherwise."""
    from cardarena.store.tournaments import TournamentError

    from . import lifecycle
    from .run import bot_names

    bots = bot_names(args.bots)
    check_bot_specs(bots)
    if args.timeout <= 0:
        raise TournamentError(f"--timeout must be positive, not {args.timeout:g}")
    # game, player count (for the game and the entrants), deal sets: as the real tournament
    lifecycle.new_tournament(
        game=args.game, players=args.players, entrants=[n for _, n in bots], deal_sets=args.deal_sets, tid="check"
    )
    return bots


def _demo(args: argparse.Namespace) -> int:
    from cardarena.engine import GameError
    from cardarena.store.bots import BotError
    from cardarena.store.tournaments import TournamentError

    from .formats import FormatError

    try:
        bots = _check_demo(args)
    except (TournamentError, FormatError, GameError) as exc:
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2
    try:
        return _run_demo(args, bots)
    except PlatformError as exc:
        return _report(exc)
    except BotError as exc:  # a demo bot's name is taken by a registered bot
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2


def _run_demo(args: argparse.Namespace, bots: list[tuple[str, str]]) -> int:
    from cardarena.processes import sigterm_as_keyboard_interrupt
    from cardarena.server.commands import issue_token, run_namespace
    from cardarena.store.bots import BotStore
    from cardarena.store.connection import client_for, configured_url
    from cardarena.store.tournaments import TournamentError, TournamentStore

    from . import lifecycle
    from .celery_app import make_app
    from .commands import render_standings
    from .run import START_TASK, _watch

    run_id = uuid.uuid4().hex[:6]
    # On an external Redis (REDIS_URL) the demo works under a key prefix of its own, deleted
    # when it ends (unless --keep-data), as the other local runs; on the embedded default its
    # data stays, as theirs does (the dashboard shows it).
    external = configured_url() is not None
    namespace = run_namespace("demo", run_id, keep=args.keep_data) if external else contextlib.nullcontext()
    with sigterm_as_keyboard_interrupt():
        try:
            with (
                namespace,
                running_platform(
                    grpc_port=args.grpc_port, http_port=args.http_port, verbose=args.verbose, command="demo"
                ) as p,
            ):
                kept = "kept (--keep-data)" if args.keep_data else "deleted when the demo ends (--keep-data keeps them)"
                _print_addresses(p, f"under the key prefix {os.environ.get('CARDARENA_PREFIX', '')}, {kept}")
                client = client_for(p.redis_url)
                try:
                    registry, ts = BotStore(client), TournamentStore(client)
                    for kind, name in bots:
                        token = issue_token(registry, name)
                        argv = [
                            sys.executable,
                            "-m",
                            "cardarena.server",
                            "bot",
                            "run",
                            kind,
                            "--server",
                            f"127.0.0.1:{p.grpc_port}",
                            "--name",
                            name,
                            "--seed",
                            f"demo/{name}",
                            "--max-matches",
                            "8",
                        ]
                        p.start(f"bot {name}", argv, {**p.env, "CARDARENA_TOKEN": token})
                    t = lifecycle.new_tournament(
                        game=args.game,
                        players=args.players,
                        entrants=[n for _, n in bots],
                        deal_sets=args.deal_sets,
                        name=f"demo {run_id}",
                    )
                    ts.create(t)
                    make_app(p.redis_url).send_task(START_TASK, args=[t.id])
                    print(f"tournament {t.id}: {p.dashboard_url}tournaments/{t.id}", flush=True)
                    try:
                        _watch(ts, t.id, t.total_matches, p.procs, args.timeout)
                    except TournamentError as exc:
                        p.check_alive()  # a part that died is named, with its log
                        raise PlatformError(str(exc), status=1) from None
                    render_standings(lifecycle.refresh_standings(ts, t.id))
                    if not args.once:
                        print(f"done; the dashboard stays up at {p.dashboard_url} (Ctrl-C stops)", flush=True)
                        while True:
                            p.check_alive()
                            time.sleep(0.5)
                finally:
                    client.close()
        except KeyboardInterrupt:
            print("stopped.", file=sys.stderr)
    return 0
