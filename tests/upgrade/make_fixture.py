"""Build a small deployment's data with an older cardarena and export it for ``tests/test_upgrade.py``.

Run it **with the older version's code** (its ``service``, ``tournament`` and
``clients/python`` first on ``PYTHONPATH``); it uses only that version's public APIs (the bot,
match and tournament repositories, the tournament lifecycle, a real ``cardarena service``
subprocess and real ``cardarena bot run random`` bot processes), so the data is what that
version really writes.  It imports nothing from ``tests/`` (whose helpers follow the current
code), so it has its own embedded Redis and first-legal player.  To regenerate the fixture of commit ``ad56bcb``::

    cd /work/main && git worktree add /tmp/cardarena-old ad56bcb
    cd /tmp/cardarena-old
    PYTHONPATH=$PWD/service:$PWD/tournament:$PWD/clients/python \\
        python /path/to/current/tests/upgrade/make_fixture.py --commit ad56bcb \\
        --out /path/to/current/tests/upgrade/fixture-ad56bcb.json.gz
    cd /work/main && git worktree remove /tmp/cardarena-old

(the same with ``49c59d0``, the commit before opaque match ids, for ``fixture-49c59d0.json.gz``:
its tournaments have readable match ids ``tournament:round:table:seating:deal``).  It starts a
private embedded Redis of its own and needs no ``REDIS_URL``; it takes a minute.

What it builds, under the key prefix ``ca:`` of a fresh Redis:

* bots ``alpha``, ``beta``, ``gamma``, ``delta`` and ``omega`` with tokens (kept in the
  fixture's metadata, as their owners keep them); ``omega`` is retired;
* ``glaves2``: a finished 2-player Glaves round robin of alpha, beta and gamma with two deal
  sets (every deal in both seatings), played by the real service: results, replays,
  standings, ratings and rating histories;
* ``knaves3``: a finished 3-player Knaves tournament of alpha, beta and delta (every seating);
* three standalone matches as ``cardarena match`` queues them (no tournament), and a fourth
  whose second seat (the retired bot, never connected) is a no-show;
* the dashboard started once (its first start marks the match indexes done);
* the schedule ``nightly`` (every hour, Glaves 2p, alpha and beta, two deal sets), created
  and first run two hours before the export (so it is due again whenever the fixture is
  read), and that run, ``nightly-<due>``: running, with two matches played and counted (here,
  by the engine, as the tests' local match player does) and two still queued;
* the schedule ``weekly`` (cron ``0 3 * * 1``, every registered bot), not run yet.

Every key under the prefix is exported, type by type (strings and hash values as base64,
sets, sorted sets with scores, lists, streams with entry ids and their consumer groups) with
its remaining time to live, into gzipped JSON with the metadata: the commit, the prefix, the
tokens, the tournament ids and the ids of the standalone matches.  The product's exporter
(``cardarena.store.dump``, ``cardarena data export``) writes each key the same way, but this
script keeps its own copy: it runs with the older version's code, which may not have that
module.  ``tests/upgrade_fixture.py`` loads the fixtures with the product's loader.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

PREFIX = "ca:"
BOTS = ("alpha", "beta", "gamma", "delta", "omega")
PLAYING = ("alpha", "beta", "gamma", "delta")
RETIRED = "omega"
GLAVES = "glaves2"
KNAVES = "knaves3"
SCHEDULE = "nightly"
CRON_SCHEDULE = "weekly"
STANDALONE = 3
PLAYED_OF_RUNNING = 2


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def export_keys(client: Any, prefix: str) -> dict[str, Any]:
    """Every key under ``prefix`` (named without it): type, value and TTL in ms (``-1``: none)."""
    out: dict[str, Any] = {}
    for raw_name in sorted(client.scan_iter(match=f"{prefix}*", count=1000)):
        name = raw_name.decode()
        kind = client.type(raw_name).decode()
        if kind == "none":  # expired since the scan found it
            continue
        entry: dict[str, Any] = {"type": kind, "ttl_ms": client.pttl(raw_name)}
        if kind == "string":
            entry["value"] = _b64(client.get(raw_name))
        elif kind == "hash":
            entry["value"] = {_b64(k): _b64(v) for k, v in sorted(client.hgetall(raw_name).items())}
        elif kind == "set":
            entry["value"] = sorted(_b64(m) for m in client.smembers(raw_name))
        elif kind == "zset":
            entry["value"] = [[_b64(m), s] for m, s in client.zrange(raw_name, 0, -1, withscores=True)]
        elif kind == "list":
            entry["value"] = [_b64(v) for v in client.lrange(raw_name, 0, -1)]
        elif kind == "stream":
            entries = client.xrange(raw_name)
            entry["value"] = [[i.decode(), {_b64(k): _b64(v) for k, v in f.items()}] for i, f in entries]
            groups = []
            for g in client.xinfo_groups(raw_name):
                pending = client.xpending_range(raw_name, g["name"], "-", "+", 10_000)
                groups.append(
                    {
                        "name": _s(g["name"]),
                        "last_delivered_id": _s(g["last-delivered-id"]),
                        "pending": [[_s(p["message_id"]), _s(p["consumer"])] for p in pending],
                    }
                )
            entry["groups"] = groups
        else:
            raise SystemExit(f"key {name}: type {kind} is not exported")
        out[name[len(prefix) :]] = entry
    return out


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _wait(predicate: Callable[[], bool], what: str, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.2)


def _play_locally(spec: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Play ``spec`` with the engine, every seat taking its first legal action; the result and
    replay as the service stores them."""
    from cardarena.engine import MatchRng, build_replay, get_game

    state = get_game(spec.game).new_state(spec.players, spec.options)
    rng = MatchRng(spec.seed)
    while state.to_act():
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[0])
    result: dict[str, Any] = state.result().to_json()
    by_deal = state.scores_by_deal()
    if by_deal is not None:
        result["deal_scores"] = by_deal
    return result, build_replay(state, seed=spec.seed, seats=list(spec.seats))


class _Service:
    """A real ``cardarena service`` and one ``cardarena bot run random`` per playing bot."""

    def __init__(self, url: str, tokens: dict[str, str]) -> None:
        from cardarena.server.commands import start_service

        self.env = {**os.environ, "REDIS_URL": url, "CARDARENA_PREFIX": PREFIX}
        self.proc, port = start_service(self.env)
        self.bots: list[subprocess.Popen[bytes]] = []
        for name in PLAYING:
            argv = [sys.executable, "-m", "cardarena.server", "bot", "run", "random"]
            argv += ["--server", f"127.0.0.1:{port}", "--name", name, "--seed", f"fixture/{name}"]
            env = {**self.env, "CARDARENA_TOKEN": tokens[name]}
            self.bots.append(subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def stop(self) -> None:
        from cardarena.server.commands import stop_process

        for proc in self.bots:
            proc.terminate()
            proc.wait(30)
        stop_process(self.proc)


def _dashboard_once(url: str) -> None:
    """Start the dashboard and read its front page, as a deployment's dashboard has (its first
    start indexes the matches stored before the match indexes existed, and marks it done)."""
    from cardarena_dashboard.app import create_app

    assert create_app({"REDIS_URL": url}).test_client().get("/").status_code == 200


def build(url: str) -> dict[str, Any]:
    """Build the deployment's data in the Redis at ``url``; returns the fixture's metadata."""
    from cardarena.store.bots import BotStore
    from cardarena.store.connection import client_for
    from cardarena.store.matches import FaultPolicy, MatchSpec, MatchStore
    from cardarena.store.tournaments import TournamentStore
    from cardarena_tournament import lifecycle

    client = client_for(url)
    bots, ms, ts = BotStore(client), MatchStore(client), TournamentStore(client)
    tokens = {name: bots.register(name) for name in BOTS}
    bots.retire(RETIRED)

    def count(until: Callable[[], bool], what: str) -> None:
        def step() -> bool:
            lifecycle.consume_results(ts, ms, "fixture-worker")
            return until()

        _wait(step, what)

    service = _Service(url, tokens)
    try:
        glaves = lifecycle.new_tournament(
            game="glaves",
            players=2,
            entrants=["alpha", "beta", "gamma"],
            deal_sets=2,
            options={"deals": 1},
            seed="fixture-glaves-seed",
            name="Glaves duplicate",
            tid=GLAVES,
        )
        knaves = lifecycle.new_tournament(
            game="knaves",
            players=3,
            entrants=["alpha", "beta", "delta"],
            deal_sets=1,
            seed="fixture-knaves-seed",
            tid=KNAVES,
        )
        for t in (glaves, knaves):
            ts.create(t)
            lifecycle.start_tournament(ts, ms, t.id)
        standalone = []
        for n in range(STANDALONE):
            spec = MatchSpec(
                match_id=f"match-fixture-{n + 1:05d}",
                game="glaves",
                players=2,
                seats=("gamma", "delta") if n % 2 else ("delta", "gamma"),
                seed=1000 + n,
                options={"deals": 1},
            )
            ms.enqueue(spec)
            standalone.append(spec.match_id)
        # one more whose second seat never comes (the retired bot): a no-show, forfeited
        no_show = MatchSpec(
            match_id=f"match-fixture-{STANDALONE + 1:05d}",
            game="glaves",
            players=2,
            seats=("gamma", RETIRED),
            seed=2000,
            options={"deals": 1},
            fault_policy=FaultPolicy(join_timeout_ms=300, no_show_attempts=1),
        )
        ms.enqueue(no_show)
        standalone.append(no_show.match_id)
        count(
            lambda: (
                all(ts.require(t).status == "finished" for t in (GLAVES, KNAVES))
                and all(ms.status(m) == "done" for m in standalone)
            ),
            "the finished tournaments",
        )
    finally:
        service.stop()
    _dashboard_once(url)

    # The schedule and its first run, left running with some matches played and some queued.
    template = {
        "game": "glaves",
        "players": 2,
        "entrants": ["alpha", "beta"],
        "deal_sets": 2,
        "options": {"deals": 1},
        "name": "Nightly Glaves",
    }
    # Created two hours ago and run then: due again an hour ago, so due whenever a test reads it.
    then = time.time() - 2 * 3600
    lifecycle.create_schedule(ts, "every 1h", template, sid=SCHEDULE, now=then)
    started = lifecycle.start_due_schedules(ts, ms, then)
    weekly = {**template, "entrants": "all", "name": "Weekly Glaves"}
    lifecycle.create_schedule(ts, "0 3 * * 1", weekly, sid=CRON_SCHEDULE, now=time.time())
    assert len(started) == 1, started
    running = started[0]
    for _ in range(PLAYED_OF_RUNNING):
        claimed = ms.claim("fixture-player", wait_s=1)
        assert claimed is not None and claimed.tournament == running, claimed
        result, replay = _play_locally(claimed)
        assert ms.complete(claimed.match_id, "fixture-player", result, replay)
    count(lambda: ts.require(running).counted == PLAYED_OF_RUNNING, "the running tournament's first matches")
    assert ts.require(running).status == "running"
    client.close()
    return {
        "tokens": tokens,
        "retired": RETIRED,
        "finished": [GLAVES, KNAVES],
        "running": running,
        "played_of_running": PLAYED_OF_RUNNING,
        "schedule": SCHEDULE,
        "cron_schedule": CRON_SCHEDULE,
        "standalone": standalone,
    }


@contextlib.contextmanager
def _embedded() -> Iterator[str]:
    from cardarena.store.connection import EmbeddedRedis

    with tempfile.TemporaryDirectory(prefix="cardarena-fixture-") as tmp:
        server = EmbeddedRedis(Path(tmp), persist=False).start()
        try:
            yield server.url
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", required=True, help="the commit whose code runs this (recorded)")
    parser.add_argument("--out", required=True, type=Path, help="the gzipped JSON file to write")
    args = parser.parse_args()
    os.environ["CARDARENA_PREFIX"] = PREFIX
    with _embedded() as url:
        meta = build(url)
        from cardarena.store.connection import client_for

        client = client_for(url)
        keys = export_keys(client, PREFIX)
        client.close()
    data = {
        "commit": args.commit,
        "generated_at": time.time(),
        "prefix": PREFIX,
        **meta,
        "keys": keys,
    }
    blob = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    args.out.write_bytes(gzip.compress(blob, mtime=0))
    print(f"{args.out}: {len(keys)} keys, {len(blob)} bytes of JSON, {args.out.stat().st_size} gzipped")


if __name__ == "__main__":
    main()
