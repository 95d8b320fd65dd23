"""Tournament-end notifications (webhooks): a real Redis, real Celery worker and beat
subprocesses, the local match player standing in for the service, and a real HTTP server on
loopback as the webhook, whose answers each test scripts.  Loopback is internal, so the
deliveries here need the operator's opt-in (``CARDARENA_NOTIFY_ALLOW_INTERNAL``); the tests of
host names give them addresses through a resolver faked at the IO boundary."""

from __future__ import annotations

import ipaddress
import itertools
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import trustme
from cardarena.store.bots import BotStore
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchStore
from cardarena.store.notifications import NotificationStore
from cardarena.store.tournaments import Tournament, TournamentStore
from cardarena_dashboard import create_app
from cardarena_tournament import lifecycle, notify, webhook

from .tournament_fixtures import LocalMatchPlayer, WorkerProcess, tournament_report, wait_for

SECRET = f"T0KEN{uuid.uuid4().hex}"
"""The token every webhook URL of these tests embeds: it must never show outside the store."""
ADMIN = {"Authorization": "Bearer s3cret-admin"}
Stores = tuple[TournamentStore, MatchStore, NotificationStore]
PUBLIC = "https://arena.example.org"
BACKOFF_S = 0.25
"""The tests' back-off: attempts 2-5 come 0.25, 0.5, 1 and 2 s (the cap, 8x) after the one before."""
LOOPBACK = "127.0.0.0/8,::1"
"""The opt-in that lets the tests' deliveries reach their webhook on loopback."""
ON_LOOPBACK = webhook.AllowList.parse(LOOPBACK)
DEADLINE_S = 2.0
"""The worker's deadline per attempt in these tests."""
DRIP = 0
"""A scripted status: the answer (a 200) is sent one byte every ``delay`` seconds."""
SLOW_ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"


class Hook:
    """A webhook endpoint: a real HTTP server on loopback (HTTPS with ``tls``); each path (a
    target) answers as scripted (``answer``), then 200, and every POST is recorded with its
    time and JSON body (and its ``Host`` header in :attr:`hosts`)."""

    def __init__(self, tls: trustme.LeafCert | None = None) -> None:
        self.posts: list[tuple[str, float, dict[str, Any]]] = []
        self.hosts: list[str] = []
        self.script: dict[str, list[tuple[int, dict[str, str], float]]] = {}
        self.lock = threading.Lock()
        self.scheme = "https" if tls else "http"
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with hook.lock:
                    hook.posts.append((self.path, time.monotonic(), json.loads(body)))
                    hook.hosts.append(self.headers.get("Host") or "")
                    queue = hook.script.get(self.path) or []
                    status, headers, delay = queue.pop(0) if queue else (200, {}, 0.0)
                if status == DRIP:  # a slow-drip endpoint: every read gets a byte in time
                    try:
                        for byte in SLOW_ANSWER:
                            self.wfile.write(bytes([byte]))
                            time.sleep(delay)
                    except OSError:
                        pass  # the client gave up
                    self.close_connection = True
                    return
                if delay:
                    time.sleep(delay)  # a hung endpoint: longer than the client's time-out
                text = f"Cannot POST {self.path}".encode() if status == 404 else b"ok"
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(text)))
                    self.end_headers()
                    self.wfile.write(text)
                except OSError:
                    pass  # the client gave up waiting

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            tls.configure_cert(context)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def path(self, name: str) -> str:
        return f"/services/{name}/{SECRET}"

    def url(self, name: str, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{self.path(name)}"

    def answer(self, name: str, *answers: tuple[int, dict[str, str], float]) -> None:
        with self.lock:
            self.script[self.path(name)] = list(answers)

    def received(self, name: str) -> list[tuple[float, dict[str, Any]]]:
        with self.lock:
            return [(at, body) for path, at, body in self.posts if path == self.path(name)]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hook() -> Iterator[Hook]:
    h = Hook()
    yield h
    h.close()


@pytest.fixture
def tls_hook() -> Iterator[tuple[Hook, trustme.CA]]:
    """An HTTPS webhook whose certificate (from a throwaway CA) names ``hooks.test`` only."""
    ca = trustme.CA()
    h = Hook(tls=ca.issue_cert("hooks.test"))
    yield h, ca
    h.close()


class Resolver:
    """DNS faked at the IO boundary: each name answers its scripted address lists in turn (the
    last one again once they are used up); every question is recorded."""

    def __init__(self, **names: Sequence[str | Sequence[str]]) -> None:
        self.answers = {
            name.replace("_", "."): [[a] if isinstance(a, str) else list(a) for a in lists]
            for name, lists in names.items()
        }
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[webhook.IPAddress]:
        self.asked.append(host)
        lists = self.answers.get(host)
        if not lists:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        found = lists.pop(0) if len(lists) > 1 else lists[0]
        return [ipaddress.ip_address(a) for a in found]


def _post(url: str, allow: webhook.AllowList = ON_LOOPBACK, timeout: float = 2, **options: Any) -> webhook.Answer:
    """``webhook.post_json`` of ``{}`` to ``url``, loopback allowed unless told."""
    return webhook.post_json(url, b"{}", timeout=timeout, allow=allow, **options)


def _error(answer: webhook.Answer) -> str:
    assert not answer.ok and answer.error is not None, answer
    return answer.error


@pytest.fixture
def stores(redis_url: str, key_prefix: str) -> Iterator[Stores]:
    client = client_for(redis_url)
    yield TournamentStore(client), MatchStore(client), NotificationStore(client)
    client.close()


@dataclass
class Arena:
    """A test's Redis (its stores and key prefix), webhook and platform processes."""

    ts: TournamentStore
    ms: MatchStore
    notes: NotificationStore
    redis_url: str
    prefix: str
    processes: list[WorkerProcess]
    hook: Hook

    def start(self, level: str = "WARNING") -> None:
        """A worker (its notifications sped up for the tests) and beat."""
        env = {
            "CARDARENA_NOTIFY_BACKOFF_S": str(BACKOFF_S),
            "CARDARENA_NOTIFY_TIMEOUT_S": "1",
            "CARDARENA_NOTIFY_DEADLINE_S": str(DEADLINE_S),
            "CARDARENA_NOTIFY_ALLOW_INTERNAL": LOOPBACK,
            "CARDARENA_PUBLIC_URL": PUBLIC + "/",
        }
        worker = ("worker", "--pool", "threads", "--concurrency", "3", "--hostname", "w1@%h", "--loglevel", level)
        self.processes.append(WorkerProcess(self.redis_url, self.prefix, *worker, extra_env=env).start())
        beat = ("beat", "--loglevel", "WARNING", "--state", f"/tmp/{self.prefix}beat")
        self.processes.append(WorkerProcess(self.redis_url, self.prefix, *beat).start())

    def cli(self, *args: str, allow: str = LOOPBACK) -> subprocess.CompletedProcess[str]:
        """``cardarena ARGS`` with the opt-in ``allow`` (``CARDARENA_NOTIFY_ALLOW_INTERNAL``)."""
        env = {"REDIS_URL": self.redis_url, "CARDARENA_PREFIX": self.prefix, "CARDARENA_NOTIFY_ALLOW_INTERNAL": allow}
        return subprocess.run(
            [sys.executable, "-m", "cardarena.cli", *args],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=120,
        )

    def start_tournament(self, tid: str) -> None:
        from cardarena_tournament.celery_app import make_app

        make_app(self.redis_url).send_task("cardarena_tournament.tasks.start_tournament", args=[tid])

    def report(self, tid: str, player: LocalMatchPlayer | None = None) -> str:
        """Where the tournament and its deliveries stand (for a time-out)."""
        players = [player] if player is not None else []
        state = tournament_report(self.ts, self.ms, tid, workers=self.processes, players=players)
        return f"{state}\nnotify: {notify.summary(self.notes, tid)}"


@pytest.fixture
def arena(stores: Stores, redis_url: str, key_prefix: str, processes: list[WorkerProcess], hook: Hook) -> Arena:
    return Arena(*stores, redis_url, key_prefix, processes, hook)


def _register(ts: TournamentStore, *names: str) -> None:
    bots = BotStore(ts.r)
    for name in names:
        bots.register(name)


def _tournament(ts: TournamentStore, tid: str, targets: list[str], bots: tuple[str, ...] = ("a", "b")) -> Tournament:
    t = lifecycle.new_tournament(
        game="glaves", players=2, entrants=bots, deal_sets=1, options={"deals": 1}, seed="s0", tid=tid
    )
    ts.create(t, notify=targets)
    return t


# ---------------------------------------------------------------------- with a worker
def test_a_finished_tournament_posts_one_message_and_its_url_shows_nowhere(
    arena: Arena, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ts, notes, hook = arena.ts, arena.notes, arena.hook
    monkeypatch.setenv("CARDARENA_TEST_LOGS", str(tmp_path / "logs"))  # the worker logs there
    odd = "<!channel> @here"  # a bot name that would ping a whole chat channel if passed on as it is
    _register(ts, "heuristic-1", odd)
    done = arena.cli(
        "tournament", "create", "--game", "glaves", "--players", "2",
        "--bots", f"heuristic-1,{odd}", "--deal-sets", "2", "--options", '{"deals": 1}',
        "--name", "Friday Glaves", "--notify", hook.url("class"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    tid = done.stdout.strip()
    assert SECRET not in done.stdout + done.stderr
    assert f"its end is posted to 1 target (127.0.0.1:{hook.port})" in done.stderr
    arena.start(level="INFO")
    with LocalMatchPlayer(arena.redis_url, arena.prefix) as player:
        wait_for(
            lambda: len(hook.received("class")) == 1,
            90,
            "the message",
            report=lambda: arena.report(tid, player),
        )
    time.sleep(2.5)  # a reconcile period and more: nothing is posted twice
    [(_, body)] = hook.received("class")
    t, snap = ts.require(tid), ts.standings(tid)
    assert t.status == "finished" and snap is not None and snap["status"] == "finished"
    rows = snap["rows"]
    assert body["tournament"] == tid and body["status"] == "finished" and body["name"] == "Friday Glaves"
    assert body["standings"] == [
        {"bot": r["bot"], "rank": r["rank"], "mean": r["mean"], "ci": [r["ci_low"], r["ci_high"]], "matches": 4}
        for r in rows
    ]
    assert body["url"] == f"{PUBLIC}/tournaments/{tid}" and body["counted"] == body["total_matches"] == 4
    line = body["content"]
    winner = rows[0]["bot"].replace("@", "@\u2060")
    assert line.startswith(f"Friday Glaves (Glaves, 2 players) finished: winner `{winner}`")
    assert f"1. `{winner}` {rows[0]['mean']:.2f} [{rows[0]['ci_low']:.2f}, {rows[0]['ci_high']:.2f}]" in line
    assert line.endswith(f" {PUBLIC}/tournaments/{tid}") and "Top 2 by mean deal margin" in line
    # no pings: Slack's escaping in text, a word joiner after @, Discord's mentions off
    assert "`<!channel> @\u2060here`" in line and "`&lt;!channel&gt; @\u2060here`" in body["text"]
    assert body["text"] == line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert body["allowed_mentions"] == {"parse": []}
    [d] = notes.deliveries(tid)
    assert (d.state, d.attempts, d.error) == ("delivered", 1, None) and notes.waiting() == []

    status = arena.cli("tournament", "status", tid)
    assert f"notify: 1 target (127.0.0.1:{hook.port})" in status.stdout
    assert f"  1. 127.0.0.1:{hook.port}: delivered" in status.stdout
    as_json = arena.cli("tournament", "status", tid, "--json")
    assert json.loads(as_json.stdout)["notify"][0]["state"] == "delivered"
    listing = arena.cli("tournament", "list", "--json")
    app = create_app({"REDIS_URL": arena.redis_url, "TESTING": True, "ADMIN_TOKEN": "s3cret-admin"})
    client = app.test_client()
    shown = [status.stdout, status.stderr, as_json.stdout, listing.stdout]
    for page in ("/", "/tournaments", f"/tournaments/{tid}", "/api/v1/tournaments", f"/api/v1/tournaments/{tid}"):
        response = client.get(page)
        assert response.status_code == 200, page
        shown.append(response.get_data(as_text=True))
    admin = client.get(f"/api/v1/admin/tournaments/{tid}/notifications", headers=ADMIN)
    assert admin.get_json()["targets"][0]["host"] == f"127.0.0.1:{hook.port}"
    shown.append(admin.get_data(as_text=True))
    logs = "".join(p.read_text(errors="replace") for p in (tmp_path / "logs").iterdir())
    assert f"notify {tid}: target 1 (http://127.0.0.1:{hook.port}): delivered" in logs
    for text in [*shown, logs]:
        assert SECRET not in text and "/services/" not in text


def test_retries_network_errors_5xx_and_429_but_not_404(arena: Arena) -> None:
    ts, notes, hook = arena.ts, arena.notes, arena.hook
    ok, error = (200, {}, 0.0), (500, {}, 0.0)
    hook.answer("flaky", error, error, ok)  # 3 attempts, delivered
    hook.answer("gone", (404, {}, 0.0))  # 1 attempt, failed, not retried
    hook.answer("hung", (200, {}, 3.0), ok)  # times out after 1 s, delivered on the second attempt
    hook.answer("busy", (429, {"Retry-After": "1"}, 0.0), ok)  # waits as asked, not the 0.25 s back-off
    hook.answer("down", *[error] * 6)  # given up after 5
    hook.answer("drip", (DRIP, {}, 0.5), ok)  # a byte every 0.5 s: no read times out, the deadline ends it
    names = ("flaky", "gone", "hung", "busy", "down", "drip")
    metadata = f"http://169.254.169.254/latest/{SECRET}"  # stored before the check at creation existed
    tid = _tournament(ts, "tr", [*(hook.url(n) for n in names), metadata]).id
    arena.start()
    with LocalMatchPlayer(arena.redis_url, arena.prefix) as player:
        arena.start_tournament(tid)
        wait_for(
            lambda: notes.waiting() == [],
            90,
            "every delivery to conclude",
            report=lambda: arena.report(tid, player),
        )
    time.sleep(1.0)
    got = {n: [at for at, _ in hook.received(n)] for n in names}
    counts = {"flaky": 3, "gone": 1, "hung": 2, "busy": 2, "down": 5, "drip": 2}
    assert {n: len(v) for n, v in got.items()} == counts
    gaps = {n: [b - a for a, b in itertools.pairwise(v)] for n, v in got.items()}
    assert gaps["flaky"][0] >= BACKOFF_S * 0.9 and gaps["flaky"][1] >= 2 * BACKOFF_S * 0.9
    assert gaps["hung"][0] >= 1.0  # the time-out, then the back-off
    assert gaps["busy"][0] >= 0.95
    assert all(a >= b * 0.9 for a, b in zip(gaps["down"], [0.25, 0.5, 1.0, 2.0], strict=True))
    assert DEADLINE_S <= gaps["drip"][0] < 30 * 0.5  # cut at the deadline, not after the whole answer
    states = {
        n: (d["state"], d["attempts"]) for n, d in zip([*names, "metadata"], notify.summary(notes, tid), strict=True)
    }
    assert states == {
        "flaky": ("delivered", 3),
        "gone": ("failed", 1),
        "hung": ("delivered", 2),
        "busy": ("delivered", 2),
        "down": ("failed", 5),
        "drip": ("delivered", 2),
        "metadata": ("failed", 1),
    }
    lines = arena.cli("tournament", "status", tid).stdout
    where = f"127.0.0.1:{hook.port}"
    assert f"notify: 7 targets ({', '.join([where] * 6)}, 169.254.169.254)" in lines
    # the 404's answer echoes the URL's path: the error keeps it without the token
    assert (
        f"  2. {where}: failed" in lines and "after 1 attempt; last error: HTTP 404 Not Found: Cannot POST …\n" in lines
    )
    assert (
        f"  5. {where}: failed" in lines and "after 5 attempts; last error: HTTP 500 Internal Server Error: ok" in lines
    )
    assert (
        "  7. 169.254.169.254: failed" in lines
        and (
            "after 1 attempt; last error: refused: 169.254.169.254 is internal (link-local): a webhook may reach "
            "public addresses only, unless CARDARENA_NOTIFY_ALLOW_INTERNAL lists it\n"
        )
        in lines
    )
    assert SECRET not in lines


def test_a_cancelled_tournament_is_announced_as_cancelled(arena: Arena) -> None:
    ts, notes, hook = arena.ts, arena.notes, arena.hook
    tid = _tournament(ts, "tc", [hook.url("class")]).id
    arena.start()
    arena.start_tournament(tid)  # no match player: nothing is played
    wait_for(lambda: ts.require(tid).status == "running", 30, "the tournament to start")
    time.sleep(2.5)  # running, announced to nobody
    assert hook.received("class") == []
    done = arena.cli("tournament", "cancel", tid)
    assert done.returncode == 0, done.stderr
    assert f"a worker posts the cancellation to 1 target (127.0.0.1:{hook.port})" in done.stdout
    wait_for(lambda: len(hook.received("class")) == 1, 30, "the message")
    time.sleep(2.5)
    [(_, body)] = hook.received("class")
    assert body["status"] == "cancelled" and body["standings"] == [] and body["url"] == f"{PUBLIC}/tournaments/tc"
    line = (
        f"Tournament tc (Glaves, 2 players) was cancelled after 0 of 2 matches (none counted). {PUBLIC}/tournaments/tc"
    )
    assert body["content"] == line
    assert notes.deliveries(tid)[0].state == "delivered"


def test_each_run_of_a_schedule_notifies_once(arena: Arena) -> None:
    ts, notes, hook = arena.ts, arena.notes, arena.hook
    _register(ts, "a", "b")
    done = arena.cli(
        "tournament", "create", "--game", "glaves", "--players", "2", "--bots", "a,b",
        "--options", '{"deals": 1}', "--schedule", "every 2s", "--notify", hook.url("class"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    sid = done.stdout.split()[1]
    listed = arena.cli("tournament", "schedules")
    assert f"    each run's end is posted to 1 target (127.0.0.1:{hook.port})" in listed.stdout
    as_json = arena.cli("tournament", "schedules", "--json")
    assert json.loads(as_json.stdout)["schedules"][0]["notify"] == [f"127.0.0.1:{hook.port}"]
    app = create_app({"REDIS_URL": arena.redis_url, "TESTING": True})
    shown = [app.test_client().get(page).get_data(as_text=True) for page in ("/api/v1/schedules", "/tournaments")]
    assert all(SECRET not in text for text in [listed.stdout, as_json.stdout, *shown])
    arena.start()
    with LocalMatchPlayer(arena.redis_url, arena.prefix):
        wait_for(lambda: len(hook.received("class")) >= 2, 90, "two runs' messages")
        assert arena.cli("tournament", "unschedule", sid).returncode == 0
        wait_for(lambda: not ts.list(("upcoming", "running")), 60, "the last run to end")
        wait_for(lambda: notes.waiting() == [], 30, "the last run's message")
    time.sleep(2.5)
    runs = {t.id for t in ts.list()}
    posted = Counter(body["tournament"] for _, body in hook.received("class"))
    assert len(runs) >= 2 and set(posted) == runs and set(posted.values()) == {1}
    assert all(t.schedule_id == sid and t.status == "finished" for t in ts.list())


# ---------------------------------------------------------------------- without one
def test_an_attempt_posts_once_however_often_its_task_runs(stores: Stores, hook: Hook) -> None:
    """A redelivered or duplicated task (or a second announcement) never posts again."""
    ts, _, notes = stores
    tid = _tournament(ts, "t1", [hook.url("a"), hook.url("b")]).id
    ts.cancel(tid)
    sent: list[tuple[str, int, int, float]] = []

    def send(*args: Any) -> None:
        sent.append(args)

    assert notify.dispatch(notes, tid, send) == 2 and notify.dispatch(notes, tid, send) == 0
    assert sent == [(tid, 0, 1, 0.0), (tid, 1, 1, 0.0)]
    settings = notify.Settings(timeout_s=2, backoff_s=BACKOFF_S, allow=ON_LOOPBACK)
    hook.answer("b", (503, {}, 0.0))
    assert notify.deliver(notes, ts, tid, 0, 1, settings).outcome == "delivered"
    assert notify.deliver(notes, ts, tid, 0, 1, settings).outcome == "skipped"  # the same task again
    assert notify.deliver(notes, ts, tid, 0, 2, settings).outcome == "skipped"  # delivered: nothing follows
    step = notify.deliver(notes, ts, tid, 1, 1, settings)
    assert step == notify.Step("retrying", BACKOFF_S, 2)
    assert notify.deliver(notes, ts, tid, 1, 1, settings).outcome == "skipped"  # attempt 1 was made
    assert len(hook.received("a")) == 1 and len(hook.received("b")) == 1
    assert notes.waiting() == [tid]
    # the task of attempt 2 was lost with its worker: the sweep sends it again once overdue
    sent.clear()
    assert notify.sweep(notes, ts, send, time.time()) == 0
    assert notify.sweep(notes, ts, send, time.time() + notify.STALE_S + 1) == 1 and sent == [(tid, 1, 2, 0.0)]
    assert notify.deliver(notes, ts, tid, 1, 2, settings).outcome == "delivered"
    assert notes.waiting() == [] and len(hook.received("b")) == 2


def test_an_attempt_whose_worker_died_is_made_again_after_its_lease(
    stores: Stores,
) -> None:
    ts, _, notes = stores
    tid = _tournament(ts, "t2", ["https://example.org/x"]).id
    assert notes.claim(tid, 0, 1, lease_s=60) == 0.0
    busy = notes.claim(tid, 0, 1, lease_s=60)  # the same attempt while it posts
    assert busy is not None and 0 < busy <= 60
    # its worker died: the lease lapses (now, not after a wait a loaded machine could outlast)
    lease = notes._lease(tid, 0)
    notes.r.pexpire(lease, 1)
    deadline = time.monotonic() + 5
    while notes.r.exists(lease):
        assert time.monotonic() < deadline, "the lease did not lapse"
        time.sleep(0.005)
    assert notes.lease_left(tid, 0) == 0.0
    assert notes.claim(tid, 0, 1, lease_s=0.3) == 0.0  # the attempt never concluded: made again
    notes.conclude(tid, 0, "retrying", error="HTTP 502", next_at=time.time())
    assert notes.claim(tid, 0, 1, lease_s=0.3) is None and notes.claim(tid, 0, 2, lease_s=0.3) == 0.0


def test_redirects_are_followed_to_the_same_host_only(hook: Hook) -> None:
    hook.answer("moved", (308, {"Location": hook.path("here")}, 0.0))
    answer = webhook.post_json(hook.url("moved"), b'{"text": "hi"}', timeout=2, allow=ON_LOOPBACK)
    assert answer.ok and [b for _, b in hook.received("here")] == [{"text": "hi"}]
    hook.answer("away", (302, {"Location": hook.url("there", host="localhost")}, 0.0))
    answer = webhook.post_json(hook.url("away"), b"{}", timeout=2, allow=ON_LOOPBACK)
    assert answer == webhook.Answer(
        ok=False, error=f"HTTP 302: a redirect to http://localhost:{hook.port} (not followed)"
    )
    assert hook.received("there") == []


def test_a_redirect_from_https_to_http_is_not_followed(
    tls_hook: tuple[Hook, trustme.CA], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An https target redirecting to http on the same host would send the message (and a
    private channel's content) in clear: not followed."""
    hook, ca = tls_hook
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))  # how a worker trusts a private CA
    in_clear = hook.url("in-clear", host="hooks.test").replace("https:", "http:")
    hook.answer("moved", (301, {"Location": in_clear}, 0.0))
    answer = _post(hook.url("moved", host="hooks.test"), resolve=Resolver(hooks_test=["127.0.0.1"]))
    assert _error(answer) == f"HTTP 301: a redirect to http://hooks.test:{hook.port} (not followed)"
    assert len(hook.received("moved")) == 1 and hook.received("in-clear") == []


# ---------------------------------------------------------------------- where a webhook may go
RULE = "a webhook may reach public addresses only, unless CARDARENA_NOTIFY_ALLOW_INTERNAL lists it"
INTERNAL = [
    ("http://127.0.0.1:6379/", "127.0.0.1 is internal (loopback)"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is internal (link-local)"),
    (f"https://10.1.2.3/hooks/{SECRET}", "10.1.2.3 is internal (private)"),
    ("http://192.168.0.10:8065/", "192.168.0.10 is internal (private)"),
    ("http://100.100.100.200/", "100.100.100.200 is internal (not public)"),
    ("http://0.0.0.0:6379/", "0.0.0.0 is internal (unspecified)"),
    ("http://224.0.0.1/", "224.0.0.1 is internal (multicast)"),
    ("http://[::1]:6379/", "::1 is internal (loopback)"),
    ("http://[fe80::1]/", "fe80::1 is internal (link-local)"),
    ("http://[fd00::5]/", "fd00::5 is internal (private)"),
    ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1 is internal (IPv4-mapped 127.0.0.1: loopback)"),
    ("http://[2002:a9fe:a9fe::1]/", "2002:a9fe:a9fe::1 is internal (6to4 169.254.169.254: link-local)"),
    ("http://[64:ff9b::a00:5]/", "64:ff9b::a00:5 is internal (NAT64 10.0.0.5: private)"),
    ("http://0x7f.1:6379/", "0x7f.1 is internal (loopback)"),
    ("http://2130706433/", "2130706433 is internal (loopback)"),
    ("http://localhost:6379/", "localhost resolves to 127.0.0.1, internal (loopback)"),
    ("http://LocalHost./", "localhost resolves to 127.0.0.1, internal (loopback)"),
    ("http://redis.localhost/", "redis.localhost resolves to 127.0.0.1, internal (loopback)"),
]


@pytest.mark.parametrize(("url", "why"), INTERNAL, ids=[u.split("/")[2] for u, _ in INTERNAL])
def test_an_internal_address_or_localhost_is_refused_when_created_and_when_posted_to(url: str, why: str) -> None:
    with pytest.raises(notify.TargetError) as refused:
        notify.check_targets([url])
    setting = "an operator's setting, on the workers and where tournaments are created"
    assert str(refused.value) == f"--notify: {why}: {RULE} ({setting})" and SECRET not in str(refused.value)
    # a target stored before the check (or before the setting changed): nothing is connected to
    answer = webhook.post_json(url, b"{}", timeout=2, resolve=Resolver())
    assert answer == webhook.Answer(ok=False, retry=False, error=f"refused: {why}: {RULE}")


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.slack.com/services/T0/B0/x",
        "http://8.8.8.8/x",
        "https://[2606:4700::1111]/x",
        "http://[::ffff:8.8.8.8]/x",
        "https://[64:ff9b::808:808]/x",
        "https://localhost.example.org/x",
    ],
)
def test_public_addresses_and_names_pass_the_check_at_creation(url: str) -> None:
    assert notify.check_targets([url]) == [url]


def test_the_allow_list_lets_its_networks_and_names_through_and_nothing_else(hook: Hook) -> None:
    allow = webhook.AllowList.parse(" 10.0.0.0/24, mm.internal ")
    assert allow == webhook.AllowList((ipaddress.ip_network("10.0.0.0/24"),), frozenset({"mm.internal"}))
    assert notify.Settings.from_env({"CARDARENA_NOTIFY_ALLOW_INTERNAL": "10.0.0.0/24,mm.internal"}).allow == allow
    listed, outside, name, local = (
        "http://10.0.0.5:8065/x",
        "http://10.0.1.5/x",
        "https://mm.internal/x",
        "http://localhost/x",
    )
    assert notify.check_targets([listed, name], allow=allow) == [listed, name]  # a name is checked once resolved
    for url in (outside, local):
        with pytest.raises(notify.TargetError, match="CARDARENA_NOTIFY_ALLOW_INTERNAL"):
            notify.check_targets([url], allow=allow)
    assert notify.check_targets([local], allow=webhook.AllowList.parse("localhost")) == [local]

    # at delivery: the real webhook on 127.0.0.1, reached when its address (or name) is listed
    only_one = webhook.AllowList.parse("127.0.0.1")
    assert _post(hook.url("listed"), allow=only_one).ok
    resolve = Resolver(hooks_test=["127.0.0.1"], other_test=["127.0.0.2"], both_test=[["127.0.0.1", "10.0.0.9"]])
    for host, why in [
        ("other.test", "other.test resolves to 127.0.0.2, internal (loopback)"),
        ("both.test", "both.test resolves to 10.0.0.9, internal (private)"),  # every address is checked
        ("localhost", "localhost resolves to ::1, internal (loopback)"),
    ]:
        answer = _post(hook.url("unlisted", host=host), allow=only_one, resolve=resolve)
        assert not answer.retry and _error(answer) == f"refused: {why}: {RULE}"
    by_name = webhook.AllowList.parse("hooks.test")
    assert _post(hook.url("named", host="hooks.test"), allow=by_name, resolve=resolve).ok
    answer = _post(hook.url("unlisted", host="other.test"), allow=by_name, resolve=resolve)
    assert _error(answer).startswith("refused: other.test resolves to 127.0.0.2")
    assert len(hook.received("listed")) == len(hook.received("named")) == 1 and hook.received("unlisted") == []


@pytest.mark.parametrize("raw", ["http://10.0.0.5", "10.0.0.0/33", "mm.internal:8065", "*.internal", "10.0.0.5;x"])
def test_a_bad_allow_list_is_refused_naming_the_setting(raw: str) -> None:
    with pytest.raises(ValueError, match=r"^CARDARENA_NOTIFY_ALLOW_INTERNAL must list networks") as bad:
        notify.Settings.from_env({"CARDARENA_NOTIFY_ALLOW_INTERNAL": raw})
    assert repr(raw) in str(bad.value)


def test_a_name_is_resolved_once_per_connection_and_reached_at_the_address_checked(hook: Hook) -> None:
    """DNS rebinding: a name that answers an allowed address when checked and another one when
    connected to must not get through.  The connection goes to the address checked (the name
    is not asked again), and a redirect, which is a new connection, is checked again."""
    allow = webhook.AllowList.parse("127.0.0.1")
    rebinding = Resolver(hooks_test=["127.0.0.1", "10.9.9.9"])
    assert _post(hook.url("first", host="hooks.test"), allow=allow, resolve=rebinding).ok
    assert rebinding.asked == ["hooks.test"] and len(hook.received("first")) == 1
    assert hook.hosts == [f"hooks.test:{hook.port}"]  # the request still names the host
    hook.answer("moved", (307, {"Location": hook.path("second")}, 0.0))
    rebinding = Resolver(hooks_test=["127.0.0.1", "10.9.9.9"])
    answer = _post(hook.url("moved", host="hooks.test"), allow=allow, resolve=rebinding)
    assert rebinding.asked == ["hooks.test", "hooks.test"]  # asked again for the redirect: now internal
    assert answer == webhook.Answer(
        ok=False, error=f"refused: hooks.test resolves to 10.9.9.9, internal (private): {RULE}"
    )
    assert len(hook.received("moved")) == 1 and hook.received("second") == []


def test_tls_verifies_the_host_name_while_connecting_to_the_address_checked(
    tls_hook: tuple[Hook, trustme.CA], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook, ca = tls_hook
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    resolve = Resolver(hooks_test=["127.0.0.1"], other_test=["127.0.0.1"])
    assert _post(hook.url("a", host="hooks.test"), resolve=resolve).ok  # SNI and certificate: hooks.test
    answer = _post(hook.url("b", host="other.test"), resolve=resolve)
    assert not answer.retry and _error(answer).startswith("TLS certificate not trusted: Hostname mismatch")
    assert "'other.test'" in _error(answer)
    answer = _post(hook.url("c"))  # by its address, which the certificate does not name
    assert _error(answer).startswith("TLS certificate not trusted: IP address mismatch")
    assert len(hook.received("a")) == 1 and hook.received("b") == hook.received("c") == []


def test_through_a_proxy_the_host_is_checked_by_name(hook: Hook, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``HTTP_PROXY`` the proxy connects to the webhook: the proxy's own address (the
    operator's choice, here loopback) is not checked; the URL's host is, by name."""
    for name in ("NO_PROXY", "no_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{hook.port}")  # the hook stands in for the proxy
    resolve = Resolver(internal_test=["10.0.0.5"])  # hooks.invalid: not resolvable here
    url = f"http://hooks.invalid/services/proxied/{SECRET}"
    answer = webhook.post_json(url, b'{"text": "hi"}', timeout=2, resolve=resolve)
    assert answer.ok  # the proxy resolves it
    assert [(path, body) for path, _, body in hook.posts] == [(url, {"text": "hi"})]
    assert hook.hosts == ["hooks.invalid"]
    for target, why in [
        ("http://10.0.0.5/x", "10.0.0.5 is internal (private)"),
        ("http://localhost:6379/x", "localhost resolves to 127.0.0.1, internal (loopback)"),
        ("http://internal.test/x", "internal.test resolves to 10.0.0.5, internal (private)"),
    ]:
        assert _error(_post(target, allow=webhook.PUBLIC_ONLY, resolve=resolve)) == f"refused: {why}: {RULE}"
    assert len(hook.posts) == 1
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")  # not through the proxy: checked (and refused) as usual
    answer = _post(hook.url("direct"), allow=webhook.PUBLIC_ONLY)
    assert _error(answer) == f"refused: 127.0.0.1 is internal (loopback): {RULE}"


class TunnelProxy:
    """An HTTPS proxy on loopback: it records each ``CONNECT`` head it is sent (the request line
    and headers, as text), answers ``status``, and on a 200 tunnels to ``to`` (the webhook on
    loopback, whatever host the ``CONNECT`` names: the proxy stands in for the route there)."""

    def __init__(self, to: tuple[str, int], status: str = "200 Connection established") -> None:
        self.heads: list[str] = []
        self.to, self.status = to, status
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(1)
                if not chunk:
                    return
                head += chunk
            self.heads.append(head.decode("latin-1"))
            client.sendall(f"HTTP/1.1 {self.status}\r\n\r\n".encode())
            if not self.status.startswith("200"):
                return
            with socket.create_connection(self.to) as upstream:
                pump = threading.Thread(target=self._pipe, args=(upstream, client), daemon=True)
                pump.start()
                self._pipe(client, upstream)
                pump.join(5)

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the other side is gone

    def close(self) -> None:
        self.listener.close()


@pytest.mark.parametrize(
    ("host", "connect"),
    [
        ("2001:db8::1", "CONNECT [2001:db8::1]:443 HTTP/1.1\r\nHost: [2001:db8::1]:443\r\n"),
        ("hooks.test", "CONNECT hooks.test:443 HTTP/1.1\r\nHost: hooks.test:443\r\n"),
    ],
)
def test_an_https_webhook_behind_a_proxy_is_tunnelled_to_its_host_in_brackets_if_ipv6(
    host: str, connect: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by an operator: a webhook at an IPv6 literal behind an HTTPS proxy always failed:
    Python 3.11's ``http.client`` wrote ``CONNECT 2001:db8::1:443``, with no brackets, which no
    proxy can split into host and port.  The ``CONNECT`` line and its ``Host`` header now carry
    ``[2001:db8::1]:443`` (a name as before), the proxy's credentials still go with it, and TLS
    inside the tunnel still verifies the URL's host (the certificate names it)."""
    ca = trustme.CA()
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    hook = Hook(tls=ca.issue_cert(host))
    proxy = TunnelProxy(("127.0.0.1", hook.port))
    refusing = TunnelProxy(("127.0.0.1", hook.port), status="403 Forbidden")
    try:
        for name in ("NO_PROXY", "no_proxy", "https_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTPS_PROXY", f"http://ops:s%3Acret@127.0.0.1:{proxy.port}")
        where = f"[{host}]" if ":" in host else host
        url = f"https://{where}{hook.path('tunnelled')}"
        allow = webhook.AllowList.parse("2001:db8::/32")  # the documentation prefix: internal, let through here
        answer = _post(url, allow=allow, resolve=Resolver())  # the name is the proxy's to resolve
        assert answer.ok, answer
        assert len(hook.received("tunnelled")) == 1 and hook.hosts == [where]  # the request inside names it too
        (head,) = proxy.heads
        assert head.startswith(connect)
        assert "\r\nProxy-Authorization: Basic b3BzOnM6Y3JldA==\r\n" in head  # ops:s:cret
        assert SECRET not in head  # the proxy sees the host and port only
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{refusing.port}")
        answer = _post(url, allow=allow, resolve=Resolver())
        assert answer == webhook.Answer(
            ok=False, retry=True, error="cannot connect: the proxy did not open a tunnel (403 Forbidden)"
        )
        assert refusing.heads[0].startswith(connect) and len(hook.received("tunnelled")) == 1
    finally:
        proxy.close()
        refusing.close()
        hook.close()


def test_the_deadline_ends_an_endpoint_that_answers_one_byte_a_second() -> None:
    """Each read gets a byte within the time-out, so only the attempt's deadline ends it; the
    endpoint sees its connection shut then."""
    listener = socket.create_server(("127.0.0.1", 0))
    ended: list[float] = []

    def drip() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            try:
                for byte in SLOW_ANSWER:
                    conn.sendall(bytes([byte]))
                    time.sleep(1.0)
            except OSError:
                ended.append(time.monotonic())

    server = threading.Thread(target=drip, daemon=True)
    server.start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/{SECRET}"
    began = time.monotonic()
    answer = _post(url, timeout=5, deadline_s=2.5)
    took = time.monotonic() - began
    assert answer == webhook.Answer(ok=False, retry=True, error="timed out: no complete answer within 2.5 s")
    assert 2.5 <= took < 15  # the whole answer would take about a minute
    server.join(15)
    assert ended and ended[0] - began < 15  # its connection was shut: it stopped sending
    listener.close()


def test_a_name_lookup_that_hangs_ends_with_the_time_out() -> None:
    def hanging(host: str, port: int) -> list[webhook.IPAddress]:
        time.sleep(30)  # a resolver that never answers (the attempt leaves its thread behind)
        return []

    began = time.monotonic()
    answer = _post("https://hooks.example.org/x", timeout=0.5, deadline_s=10, resolve=hanging)
    assert answer == webhook.Answer(ok=False, retry=True, error="timed out") and time.monotonic() - began < 10
    answer = _post("https://hooks.example.org/x", timeout=5, deadline_s=0.5, resolve=hanging)
    assert answer == webhook.Answer(ok=False, retry=True, error="timed out: no complete answer within 0.5 s")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "80",
            "CARDARENA_NOTIFY_DEADLINE_S must be a number of seconds below 80 (the notify task's time limit), not '80'",
        ),
        ("1m", "CARDARENA_NOTIFY_DEADLINE_S must be a number of seconds > 0 (e.g. 15), not '1m'"),
    ],
)
def test_the_deadline_stays_below_the_notify_tasks_time_limit(value: str, message: str) -> None:
    assert notify.Settings.from_env({}).deadline_s == 15.0 < notify.TASK_SOFT_TIME_LIMIT_S
    with pytest.raises(ValueError) as bad:
        notify.Settings.from_env({"CARDARENA_NOTIFY_DEADLINE_S": value})
    assert str(bad.value) == message


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (f"ftp://example.org/{SECRET}", "only http:// and https:// webhook URLs are accepted, not ftp://"),
        (f"hooks.example.org/{SECRET}", "(this one does not start with http://)"),
        (f"https://user:{SECRET}@example.org/x", "a URL with credentials (user@host) is not accepted"),
        (f"https://example.org:99999/{SECRET}", "port is not a number from 1 to 65535"),
        (f"https:///{SECRET}", "the URL has no host"),
    ],
    ids=["ftp", "no-scheme", "credentials", "port", "no-host"],
)
def test_create_refuses_a_bad_target_without_echoing_it(arena: Arena, url: str, message: str) -> None:
    ts = arena.ts
    _register(ts, "a", "b")
    base = ("tournament", "create", "--game", "glaves", "--players", "2", "--bots", "a,b")
    done = arena.cli(*base, "--notify", "https://example.org/fine", "--notify", url)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("cardarena: error: --notify (target 2): ") and message in done.stderr
    assert done.stderr.count("\n") == 1 and SECRET not in done.stderr
    assert ts.list() == [] and ts.schedules() == []


def test_create_refuses_an_internal_target_unless_the_operator_allows_it(arena: Arena) -> None:
    ts, notes = arena.ts, arena.notes
    _register(ts, "a", "b")
    base = ("tournament", "create", "--game", "glaves", "--players", "2", "--bots", "a,b", "--notify")
    url = f"http://10.0.0.5:8065/hooks/{SECRET}"  # a self-hosted Mattermost
    done = arena.cli(*base, url, allow="")
    assert done.returncode == 2 and done.stdout == "" and SECRET not in done.stderr
    assert done.stderr == (
        "cardarena: error: --notify: 10.0.0.5 is internal (private): a webhook may reach public addresses only, "
        "unless CARDARENA_NOTIFY_ALLOW_INTERNAL lists it (an operator's setting, on the workers and where "
        "tournaments are created)\n"
    )
    assert ts.list() == []
    done = arena.cli(*base, url, allow="10.0.0.0/8")
    assert done.returncode == 0, done.stderr
    assert notes.targets(done.stdout.strip()) == [url]
    done = arena.cli(*base, url, allow="10.0.0.0/8,http://x")
    assert done.returncode == 2 and "CARDARENA_NOTIFY_ALLOW_INTERNAL must list networks" in done.stderr


def test_plain_http_to_another_host_is_warned_about(arena: Arena) -> None:
    ts, notes = arena.ts, arena.notes
    _register(ts, "a", "b")
    base = ("tournament", "create", "--game", "glaves", "--players", "2", "--bots", "a,b")
    done = arena.cli(*base, "--notify", f"http://chat.example.org/{SECRET}", "--name", "w")
    assert done.returncode == 0
    assert "warning: --notify chat.example.org is plain http" in done.stderr and SECRET not in done.stderr
    assert notes.targets(done.stdout.strip()) == [f"http://chat.example.org/{SECRET}"]


def test_the_admin_api_takes_targets_and_shows_their_hosts_only(
    redis_url: str, key_prefix: str, stores: Stores
) -> None:
    ts, _, notes = stores
    _register(ts, "a", "b")
    client = create_app({"REDIS_URL": redis_url, "TESTING": True, "ADMIN_TOKEN": "s3cret-admin"}).test_client()
    base = {"game": "glaves", "players": 2, "entrants": ["a", "b"], "deal_sets": 1}
    internal = [f"http://169.254.169.254/{SECRET}"]
    for bad in ([f"ftp://x/{SECRET}"], f"https://x/{SECRET}", [1], [f"https://x/{i}" for i in range(11)], internal):
        response = client.post("/api/v1/admin/tournaments", json={**base, "id": "bad", "notify": bad}, headers=ADMIN)
        assert response.status_code == 400 and SECRET not in response.get_data(as_text=True), bad
        assert ts.get("bad") is None
    assert response.get_json()["error"]["message"].startswith(
        "notify: 169.254.169.254 is internal (link-local): a webhook may reach public addresses only, unless "
        "CARDARENA_NOTIFY_ALLOW_INTERNAL lists it"
    )
    config = {"REDIS_URL": redis_url, "TESTING": True, "ADMIN_TOKEN": "s3cret-admin"}
    allowing = create_app({**config, "NOTIFY_ALLOW_INTERNAL": "169.254.169.254"}).test_client()
    response = allowing.post(
        "/api/v1/admin/tournaments", json={**base, "id": "meta", "notify": internal}, headers=ADMIN
    )
    assert response.status_code == 201 and notes.targets("meta") == internal
    urls = [f"https://hooks.example.org/{SECRET}", f"https://chat.example.net:8443/{SECRET}"]
    response = client.post("/api/v1/admin/tournaments", json={**base, "id": "ok", "notify": urls}, headers=ADMIN)
    assert response.status_code == 201 and SECRET not in response.get_data(as_text=True)
    assert notes.targets("ok") == urls
    response = client.get("/api/v1/admin/tournaments/ok/notifications", headers=ADMIN)
    assert response.get_json() == {
        "tournament": "ok",
        "targets": [
            {"target": 1, "host": "hooks.example.org", "state": None, "attempts": 0, "last_error": None,
             "updated_at": None, "next_attempt_at": None},
            {"target": 2, "host": "chat.example.net:8443", "state": None, "attempts": 0, "last_error": None,
             "updated_at": None, "next_attempt_at": None},
        ],
    }  # fmt: skip
    assert client.get("/api/v1/admin/tournaments/ok/notifications").status_code == 401
    assert client.get("/api/v1/admin/tournaments/nope/notifications", headers=ADMIN).status_code == 404


def test_the_line_names_a_shared_first_place_and_a_close_call() -> None:
    t = Tournament(id="t9", game="glaves", players=2, entrants=("a", "b", "c"), deal_sets=1, status="finished")
    rows = [
        {"bot": "a", "rank": 1, "mean": 1.5, "ci_low": 0.5, "ci_high": 2.5, "separated_from_next": False},
        {"bot": "b", "rank": 2, "mean": 0.25, "ci_low": -1.0, "ci_high": 1.0, "separated_from_next": True},
        {"bot": "c", "rank": 3, "mean": -1.75, "ci_low": -2.5, "ci_high": -1.0, "separated_from_next": None},
    ]
    assert notify.line(t, rows, "margin", None) == (
        "Tournament t9 (Glaves, 2 players) finished: winner `a` (not separated from `b`). Top 3 by mean margin "
        "per deal set [95% CI]: 1. `a` 1.50 [0.50, 2.50]; 2. `b` 0.25 [-1.00, 1.00]; 3. `c` -1.75 [-2.50, -1.00]."
    )
    tied = [{**rows[0], "rank": 1}, {**rows[1], "rank": 1}]
    assert "finished: shared first place: `a`, `b`. Top 2" in notify.line(t, tied, "margin", None)
