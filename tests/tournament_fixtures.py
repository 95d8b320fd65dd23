"""Stand-ins at the IO boundary for tournament tests: a local match player and worker processes.

:class:`LocalMatchPlayer` stands in for the gRPC service (until it is used directly): it claims
jobs from the real :class:`MatchStore`, plays them with the engine, and completes them exactly as
the service does (``MatchStore.complete`` with the result and replay).  Seat policies are chosen
by bot name: ``random*`` plays uniformly at random; ``heuristic*`` uses the game's SDK strategy
if one exists, else a rollout player (tries each legal action on a copy of the true state and
plays one random rollout, so it is much stronger than random; it is only a test stand-in).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest
from cardarena.engine import MatchRng, State, build_replay, get_game
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchSpec, MatchStore
from cardarena.store.tournaments import TournamentStore
from cardarena_tournament.formats import derive_seed

Chooser = Callable[[State, int], str]
ROLLOUTS = 4


def _random_chooser(rng: random.Random) -> Chooser:
    def choose(state: State, seat: int) -> str:
        legal = state.legal_actions(seat)
        return legal[rng.randrange(len(legal))]

    return choose


def _rollout_value(state: State, seat: int, rng: random.Random) -> float:
    mrng = MatchRng(rng.getrandbits(62))
    while True:
        seats = state.to_act()
        if not seats:
            ranks = state.result().ranks
            return -ranks[seat]
        if state.is_chance():
            state.apply_chance(state.sample_chance(mrng))
            continue
        for s in seats:
            legal = state.legal_actions(s)
            state.apply(s, legal[rng.randrange(len(legal))])


def _heuristic_chooser(game_id: str, rng: random.Random) -> Chooser:
    try:
        strategy: Any = importlib.import_module(f"cardarena_sdk.strategies.{game_id}")
    except ModuleNotFoundError:
        strategy = None
    if strategy is not None:

        def choose_sdk(state: State, seat: int) -> str:
            return str(strategy.choose(state.view_json(seat), list(state.legal_actions(seat)), rng))

        return choose_sdk

    def choose(state: State, seat: int) -> str:
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        best, best_value = legal[0], float("-inf")
        for action in legal:
            value = 0.0
            for _ in range(ROLLOUTS):
                copy = state.clone()
                copy.apply(seat, action)
                value += _rollout_value(copy, seat, rng)
            if value > best_value:
                best, best_value = action, value
        return best

    return choose


def chooser_for(bot: str, game_id: str, seed: int) -> Chooser:
    """The policy a bot name stands for (``random*`` or ``heuristic*``; anything else: random)."""
    rng = random.Random(seed)
    if bot.startswith("heuristic"):
        return _heuristic_chooser(game_id, rng)
    return _random_chooser(rng)


def play_spec(spec: MatchSpec) -> tuple[dict[str, Any], dict[str, Any]]:
    """Play a match spec locally; returns ``(result, replay)`` as the service would store them."""
    game = get_game(spec.game)
    state = game.new_state(spec.players, spec.options)
    choosers = [chooser_for(bot, spec.game, derive_seed(spec.match_id, i)) for i, bot in enumerate(spec.seats)]
    rng = MatchRng(spec.seed)
    while True:
        seats = state.to_act()
        if not seats:
            break
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        for seat in seats:
            state.apply(seat, choosers[seat](state, seat))
    result = state.result().to_json()  # scores, ranks and, where the game sets it, won
    assert state.result().won is None or result["won"] == list(state.result().won)
    by_deal = state.scores_by_deal()
    if by_deal is not None:  # as the service's runner stores it
        result["deal_scores"] = by_deal
    return result, build_replay(state, seed=spec.seed, seats=list(spec.seats))


class LocalMatchPlayer:
    """Claims and plays matches in a background thread (the service's stand-in)."""

    def __init__(self, redis_url: str, prefix: str, *, instance: str = "local-player", threads: int = 1) -> None:
        self.redis_url = redis_url
        self.prefix = prefix
        self.instance = instance
        self.stop_event = threading.Event()
        self.played: list[str] = []
        self.threads = [threading.Thread(target=self._loop, daemon=True) for _ in range(threads)]

    def __enter__(self) -> LocalMatchPlayer:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_event.set()
        for t in self.threads:
            t.join(10)

    def _loop(self) -> None:
        client = client_for(self.redis_url)
        ms = MatchStore(client)
        try:
            while not self.stop_event.is_set():
                spec = ms.claim(self.instance, wait_s=0.2)
                if spec is None:
                    continue
                result, replay = play_spec(spec)
                if ms.complete(spec.match_id, self.instance, result, replay):
                    self.played.append(spec.match_id)
        finally:
            client.close()


class WorkerProcess:
    """A real ``cardarena worker`` (or ``beat``) subprocess in its own process group."""

    def __init__(self, redis_url: str, prefix: str, *args: str, extra_env: Mapping[str, str] | None = None) -> None:
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "CARDARENA_PREFIX": prefix,
            "CARDARENA_TICK_S": "0.3",
            "CARDARENA_RECONCILE_S": "2",
            "CARDARENA_WATCHDOG_SHUTDOWN_S": "10",  # a worker wedged in shutdown is restarted sooner
            **(extra_env or {}),
        }
        self.argv: Sequence[str] = [sys.executable, "-m", "cardarena.cli", *args]
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self._logfile: Any = None

    def start(self) -> WorkerProcess:
        self.proc = subprocess.Popen(
            list(self.argv),
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=self._log(),
            start_new_session=True,
        )
        if self._logfile is not None:
            self._logfile.close()  # the child has its own descriptor
        return self

    def _log(self) -> Any:
        """Worker output goes to ``$CARDARENA_TEST_LOGS/<pid>.log`` if that is set, else nowhere."""
        where = os.environ.get("CARDARENA_TEST_LOGS")
        if not where:
            return subprocess.DEVNULL
        os.makedirs(where, exist_ok=True)
        self._logfile = open(os.path.join(where, f"{self.argv[3]}-{time.time_ns()}.log"), "ab")  # noqa: SIM115
        return self._logfile

    def kill(self, sig: int = signal.SIGKILL) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        else:  # the main process is gone; make sure no pool child survives it
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        self.proc = None


@pytest.fixture
def processes() -> Iterator[list[WorkerProcess]]:
    """The worker and beat subprocesses a test starts (append them): killed when it ends."""
    started: list[WorkerProcess] = []
    yield started
    for p in started:
        p.kill()


def wait_for(
    predicate: Callable[[], bool], timeout: float, what: str, *, report: Callable[[], str] | None = None
) -> None:
    """Poll ``predicate`` until true; fail with ``what`` after ``timeout`` seconds (and, if
    given, what ``report`` says about the state at that moment)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    detail = ""
    if report is not None:
        try:
            detail = "\n" + report()
        except Exception as exc:  # the report must not hide the time-out
            detail = f"\n(no report: {exc!r})"
    raise AssertionError(f"timed out after {timeout}s waiting for {what}{detail}")


def tournament_report(
    ts: TournamentStore,
    ms: MatchStore,
    tid: str,
    *,
    workers: Sequence[WorkerProcess] = (),
    players: Sequence[LocalMatchPlayer] = (),
) -> str:
    """Where a tournament stands and what could be holding it up: its counts, its matches by
    status, the job queue, the Celery backlog, the results stream and its consumer group, the
    worker heartbeats, and whether the worker processes and match players are alive."""
    from cardarena.store.keys import key
    from cardarena_tournament.lifecycle import RESULTS_GROUP

    r = ts.r
    t = ts.require(tid)
    mids = [m["match_id"] for m in ts.schedule_of(tid)]
    by_status: dict[str, int] = {}
    for info in ms.infos(mids):
        status = info.get("status", "missing")
        by_status[status] = by_status.get(status, 0) + 1
    try:
        pending = r.xpending(ms.STREAM, RESULTS_GROUP)
    except Exception as exc:  # no group yet
        pending = repr(exc)
    now = time.time()
    beats = {}
    for raw in r.scan_iter(match=key("heartbeat", "*")):
        name = raw.decode()
        value = r.get(name)
        beats[name[len(key("heartbeat", "")) :]] = round(now - float(value), 1) if value else None
    lines = [
        f"tournament {tid}: status {t.status}, counted {t.counted} of {t.total_matches}",
        f"its matches by status: {by_status}",
        f"job queue {r.llen(ms.QUEUE)}, running {r.scard(ms.RUNNING)}, queued set {r.scard(ms.QUEUED)}",
        f"celery backlog {ts.celery_backlog()}, results stream {r.xlen(ms.STREAM)} entries, group: {pending}",
        f"heartbeats (seconds ago): {beats}",
    ]
    for w in workers:
        proc = w.proc
        if proc is None:
            state = "not started or killed"
        else:
            state = "alive" if proc.poll() is None else f"exited {proc.returncode}"
        lines.append(f"{' '.join(w.argv[3:5])}: {state}")
    for p in players:
        alive = sum(t.is_alive() for t in p.threads)
        lines.append(f"match player {p.instance}: {alive} of {len(p.threads)} threads alive, {len(p.played)} played")
    return "\n".join(lines)


def registered(redis_url: str, bots: Sequence[str]) -> tuple[Any, TournamentStore, MatchStore]:
    """A client of ``redis_url`` (close it), its tournament and match stores, with ``bots``
    registered (those not registered yet)."""
    from cardarena.store.bots import BotStore

    client = client_for(redis_url)
    registry = BotStore(client)
    for bot in bots:
        if not registry.exists(bot):
            registry.register(bot)
    return client, TournamentStore(client), MatchStore(client)


def counted_tournament(
    redis_url: str,
    tid: str,
    bots: Sequence[str],
    *,
    players: int | None = None,
    deal_sets: int = 1,
    scores: Callable[[MatchSpec], list[float]] | None = None,
    skip: Callable[[MatchSpec], bool] | None = None,
) -> list[MatchSpec]:
    """A Glaves tournament of ``players`` (default ``len(bots)``) among ``bots`` (registered
    here), of one deal per match, every match counted with a fixed result: by default the bots
    finish in the order given (scores ``players - place``), else with ``scores(spec)`` per seat
    (places follow them, equal scores sharing one), and the last bot had a strike in each match.
    The matches ``skip`` picks are claimed (instance ``i``) and left unplayed, so the tournament
    keeps running: they are returned, to be completed later.  Its seed is its id."""
    from cardarena_tournament import lifecycle

    client, ts, ms = registered(redis_url, bots)
    players = players or len(bots)
    t = lifecycle.new_tournament(
        game="glaves",
        players=players,
        entrants=list(bots),
        deal_sets=deal_sets,
        options={"deals": 1},
        tid=tid,
        seed=tid,
    )
    ts.create(t)
    total = lifecycle.start_tournament(ts, ms, tid)
    left = []
    for _ in range(total):
        spec = ms.claim("i", wait_s=0)
        assert spec is not None
        if skip is not None and skip(spec):
            left.append(spec)
            continue
        ms.complete(spec.match_id, "i", fixed_result(spec, bots, scores), {})
    assert lifecycle.reconcile(ts, ms)["counted"] == total - len(left)
    client.close()
    return left


def fixed_result(
    spec: MatchSpec, bots: Sequence[str], scores: Callable[[MatchSpec], list[float]] | None = None
) -> dict[str, Any]:
    """A match result as :func:`counted_tournament` makes it (one deal: its scores are the deal's)."""
    given = scores(spec) if scores is not None else [float(spec.players - 1 - list(bots).index(b)) for b in spec.seats]
    ranks = [1 + sum(other > mine for other in given) for mine in given]
    strikes = [int(b == bots[-1]) for b in spec.seats]
    return {"scores": given, "ranks": ranks, "deal_scores": [given], "forfeited": [], "strikes": strikes}


def played_tournament(
    redis_url: str, tid: str, bots: Sequence[str], *, players: int, deal_sets: int, options: dict[str, Any]
) -> None:
    """A Glaves tournament among ``bots`` (registered here), every match played by the engine
    with the bots' policies (:func:`play_spec`: ``heuristic*``, ``random*``) and counted by
    ``lifecycle.reconcile``, as the workers count a service's results: it is finished, its
    standings and crosstable stored.  Its seed is its id: the same id plays the same matches."""
    from cardarena_tournament import lifecycle

    client, ts, ms = registered(redis_url, bots)
    t = lifecycle.new_tournament(
        game="glaves", players=players, entrants=list(bots), deal_sets=deal_sets, options=options, tid=tid, seed=tid
    )
    ts.create(t)
    total = lifecycle.start_tournament(ts, ms, tid)
    while (spec := ms.claim("i", wait_s=0)) is not None:
        assert ms.complete(spec.match_id, "i", *play_spec(spec))
    assert lifecycle.reconcile(ts, ms)["counted"] == total
    assert ts.require(tid).status == "finished"
    client.close()


def no_show_tournament(
    redis_url: str, tid: str, bots: Sequence[str], absent: Sequence[str], unplayed: Sequence[str] = ()
) -> None:
    """A two-player Glaves round robin among ``bots`` (registered here) whose ``absent`` bots
    never join: each of their seats is a no-show, as the service records it (a match between two
    of them is a no contest).  The matches between the two ``unplayed`` bots are claimed and
    left unfinished (not counted yet); every other match is counted."""
    from cardarena.engine import forfeit_ranks
    from cardarena_tournament import lifecycle

    client, ts, ms = registered(redis_url, bots)
    t = lifecycle.new_tournament(
        game="glaves", players=2, entrants=list(bots), deal_sets=1, options={"deals": 1}, tid=tid
    )
    ts.create(t)
    counted = 0
    for _ in range(lifecycle.start_tournament(ts, ms, tid)):
        spec = ms.claim("i", wait_s=0)
        assert spec is not None
        if unplayed and set(spec.seats) == set(unplayed):
            continue
        no_show = [s for s, bot in enumerate(spec.seats) if bot in absent]
        scores = [1.0, 0.0]  # the default actions' luck
        ranks = list(forfeit_ranks([1, 2], scores, no_show, True, no_show))
        result = {"scores": scores, "ranks": ranks, "deal_scores": [scores], "strikes": [0, 0]}
        ms.complete(spec.match_id, "i", {**result, "forfeited": no_show, "no_show": no_show}, {})
        counted += 1
    assert lifecycle.reconcile(ts, ms)["counted"] == counted
    client.close()
