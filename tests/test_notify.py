"""Tournament-end notifications (webhooks): a real Redis, real Celery worker and beat
subprocesses, the local match player standing in for the service, and a real HTTP server on
loopback as the webhook, whose answers each test scripts."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
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


class Hook:
    """A webhook endpoint: a real HTTP server on loopback; each path (a target) answers as
    scripted (``answer``), then 200, and every POST is recorded with its time and JSON body."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, float, dict[str, Any]]] = []
        self.script: dict[str, list[tuple[int, dict[str, str], float]]] = {}
        self.lock = threading.Lock()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with hook.lock:
                    hook.posts.append((self.path, time.monotonic(), json.loads(body)))
                    queue = hook.script.get(self.path) or []
                    status, headers, delay = queue.pop(0) if queue else (200, {}, 0.0)
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
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def path(self, name: str) -> str:
        return f"/services/{name}/{SECRET}"

    def url(self, name: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{self.path(name)}"

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
            "CARDARENA_PUBLIC_URL": PUBLIC + "/",
        }
        worker = ("worker", "--pool", "threads", "--concurrency", "3", "--hostname", "w1@%h", "--loglevel", level)
        self.processes.append(WorkerProcess(self.redis_url, self.prefix, *worker, extra_env=env).start())
        beat = ("beat", "--loglevel", "WARNING", "--state", f"/tmp/{self.prefix}beat")
        self.processes.append(WorkerProcess(self.redis_url, self.prefix, *beat).start())

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cardarena.cli", *args],
            env={**os.environ, "REDIS_URL": self.redis_url, "CARDARENA_PREFIX": self.prefix},
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
    names = ("flaky", "gone", "hung", "busy", "down")
    tid = _tournament(ts, "tr", [hook.url(n) for n in names]).id
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
    assert {n: len(v) for n, v in got.items()} == {"flaky": 3, "gone": 1, "hung": 2, "busy": 2, "down": 5}
    gaps = {n: [b - a for a, b in itertools.pairwise(v)] for n, v in got.items()}
    assert gaps["flaky"][0] >= BACKOFF_S * 0.9 and gaps["flaky"][1] >= 2 * BACKOFF_S * 0.9
    assert gaps["hung"][0] >= 1.0  # the time-out, then the back-off
    assert gaps["busy"][0] >= 0.95
    assert all(a >= b * 0.9 for a, b in zip(gaps["down"], [0.25, 0.5, 1.0, 2.0], strict=True))
    states = {n: (d["state"], d["attempts"]) for n, d in zip(names, notify.summary(notes, tid), strict=True)}
    assert states == {
        "flaky": ("delivered", 3),
        "gone": ("failed", 1),
        "hung": ("delivered", 2),
        "busy": ("delivered", 2),
        "down": ("failed", 5),
    }
    lines = arena.cli("tournament", "status", tid).stdout
    where = f"127.0.0.1:{hook.port}"
    assert f"notify: 5 targets ({', '.join([where] * 5)})" in lines
    # the 404's answer echoes the URL's path: the error keeps it without the token
    assert (
        f"  2. {where}: failed" in lines and "after 1 attempt; last error: HTTP 404 Not Found: Cannot POST …\n" in lines
    )
    assert (
        f"  5. {where}: failed" in lines and "after 5 attempts; last error: HTTP 500 Internal Server Error: ok" in lines
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
    settings = notify.Settings(timeout_s=2, backoff_s=BACKOFF_S)
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
    answer = webhook.post_json(hook.url("moved"), b'{"text": "hi"}', timeout=2)
    assert answer.ok and [b for _, b in hook.received("here")] == [{"text": "hi"}]
    hook.answer("away", (302, {"Location": hook.url("there", host="localhost")}, 0.0))
    answer = webhook.post_json(hook.url("away"), b"{}", timeout=2)
    assert answer == webhook.Answer(
        ok=False, error=f"HTTP 302: a redirect to http://localhost:{hook.port} (not followed)"
    )
    assert hook.received("there") == []


def test_a_redirect_from_https_to_http_is_not_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    """An https target redirecting to http on the same host would send the message (and a
    private channel's content) in clear: not followed.  The HTTPS server is faked at the opener
    (the IO boundary); the same-host rule itself is tested above against a real server."""
    import email.message
    import urllib.error

    opened: list[str] = []

    class Opener:
        def open(self, request: Any, timeout: float) -> Any:
            opened.append(request.full_url)
            headers = email.message.Message()
            headers["Location"] = "http://hooks.example.org/in-clear"
            raise urllib.error.HTTPError(request.full_url, 301, "Moved", headers, None)

    monkeypatch.setattr(webhook, "_OPENER", Opener())
    answer = webhook.post_json("https://hooks.example.org/secret", b"{}", timeout=2)
    assert opened == ["https://hooks.example.org/secret"]
    assert not answer.ok and answer.error == "HTTP 301: a redirect to http://hooks.example.org (not followed)"


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
    for bad in ([f"ftp://x/{SECRET}"], f"https://x/{SECRET}", [1], [f"https://x/{i}" for i in range(11)]):
        response = client.post("/api/v1/admin/tournaments", json={**base, "id": "bad", "notify": bad}, headers=ADMIN)
        assert response.status_code == 400 and SECRET not in response.get_data(as_text=True), bad
        assert ts.get("bad") is None
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
