"""``cardarena tournament run``: one complete tournament locally, end to end.

Everything is real: Redis (the user's shared embedded default unless ``REDIS_URL``, so
``cardarena dashboard`` shows the tournament afterwards; with an external Redis the run gets
its own key prefix, whose keys are deleted when it ends unless ``--keep-data``), the gRPC
match service (``cardarena service``), each bot as its own process (``cardarena bot run
KIND``), one Celery worker and beat.  The tournament is created and started through the
worker exactly as ``tournament create`` does; this command only watches the counted matches
(a progress bar on stderr) and prints the final standings.

With ``--in-process`` none of that starts: the same schedule is played here, match by match,
by the SDK's local match runner (:mod:`.inprocess`), for a quick and reproducible comparison
of bots over many duplicate deal sets; the standings are computed and printed the same way.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from cardarena.engine import GameError
from cardarena.store.bots import BotError
from cardarena.store.tournaments import Tournament, TournamentError
from cardarena.summary import how_many

from .export import export_rows
from .formats import FormatError
from .standings import fault_totals

START_TASK = "cardarena_tournament.tasks.start_tournament"


def bot_names(specs: str) -> list[tuple[str, str]]:
    """``(kind, name)`` per spec: ``random,random,heuristic`` → ``random-1, random-2, heuristic-1``.

    A spec may already carry a number (``heuristic-2``), which is kept if it is free.
    """
    out: list[tuple[str, str]] = []
    seen: Counter[str] = Counter()
    taken: set[str] = set()
    for raw in (s.strip() for s in specs.split(",")):
        if not raw:
            continue
        stem = Path(raw).stem if raw.endswith(".py") else raw
        base, _, number = stem.rpartition("-")
        kind = raw if not (base and number.isdigit()) else (base if not raw.endswith(".py") else raw)
        label = base if base and number.isdigit() else stem
        if base and number.isdigit() and stem not in taken:
            name = stem
        else:
            seen[label] += 1
            name = f"{label}-{seen[label]}"
            while name in taken:
                seen[label] += 1
                name = f"{label}-{seen[label]}"
        taken.add(name)
        out.append((kind, name))
    if not out:
        raise TournamentError("--bots names no bot")
    return out


class Interrupted(Exception):
    """Ctrl-C during a run; the tournament was cancelled."""


def _run(args: argparse.Namespace) -> int:
    from cardarena.processes import sigterm_as_keyboard_interrupt

    try:
        with sigterm_as_keyboard_interrupt():  # SIGTERM cleans up as Ctrl-C does
            return _run_checked(args)
    except (TournamentError, FormatError, GameError, BotError) as exc:
        print(f"cardarena: error: {exc}", file=sys.stderr)
        return 2
    except Interrupted as exc:
        print(f"cardarena: interrupted: {exc}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:  # before anything started
        print("cardarena: interrupted", file=sys.stderr)
        return 130


def _run_checked(args: argparse.Namespace) -> int:
    from cardarena.server.commands import issue_token, run_namespace, spawn, start_service, stop_process
    from cardarena.store.bots import BotStore
    from cardarena.store.connection import client_for
    from cardarena.store.tournaments import TournamentStore

    from . import lifecycle
    from .celery_app import make_app
    from .commands import match_rules, render_standings
    from .platform import check_bot_specs, new_log_dir

    if args.jobs is not None and not args.in_process:
        raise TournamentError("--jobs is for --in-process runs")
    if args.in_process and (args.redis_url or args.keep_data):
        raise TournamentError("--in-process uses no Redis and stores nothing: drop --redis-url and --keep-data")
    rules = match_rules(args)
    bots = bot_names(args.bots)
    check_bot_specs(bots)
    names = [n for _, n in bots]
    if args.in_process:
        return _run_in_process(args, bots, rules)
    # validate everything before starting a single process
    lifecycle.new_tournament(
        game=args.game, players=args.players, entrants=names, deal_sets=args.deal_sets, **rules, tid="check"
    )
    run_id = uuid.uuid4().hex[:8]
    procs: list[Any] = []
    logs = None if args.verbose else new_log_dir(None, "tournament-run")
    files: dict[str, IO[bytes]] = {}

    def log(part: str) -> Any:
        """Where ``part`` logs: stderr with ``--verbose``, else its file in the run's log directory."""
        if logs is None:
            return sys.stderr
        files[part] = (logs / f"{part}.log").open("wb")
        return files[part]

    with (
        run_namespace("run", run_id, keep=args.keep_data, url=args.redis_url) as (url, prefix),
        tempfile.TemporaryDirectory(prefix="cardarena-run-") as tmp,
    ):
        env = {**os.environ, "REDIS_URL": url, "CARDARENA_PREFIX": prefix, "CARDARENA_TICK_S": "0.5"}
        client = client_for(url)
        ts = TournamentStore(client)
        tid = ""
        try:
            # No grace: when the run ends every match is done; when it is aborted the
            # tournament is cancelled first, so a match the service voids is withdrawn.
            # its own lane: a platform's service on the same Redis never plays these matches
            lane = f"run-{run_id}"
            service, port = start_service(env, extra=["--grace", "0", "--queue", lane], log=log("service"))
            procs.append(service)
            registry = BotStore(client)
            for kind, name in bots:
                token = issue_token(registry, name)
                argv = [sys.executable, "-m", "cardarena.server", "bot", "run", kind, "--server", f"127.0.0.1:{port}"]
                argv += ["--name", name, "--seed", f"{run_id}/{name}", "--max-matches", "8"]
                procs.append(spawn(argv, {**env, "CARDARENA_TOKEN": token}, log=log(name)))
            cli = [sys.executable, "-m", "cardarena.cli"]
            level = "INFO" if args.verbose else "WARNING"
            worker = [*cli, "worker", "--pool", "threads", "--concurrency", "2", "--loglevel", level]
            procs.append(spawn(worker, env, log=log("worker")))
            procs.append(
                spawn([*cli, "beat", "--state", str(Path(tmp) / "beat"), "--loglevel", level], env, log=log("beat"))
            )
            t = lifecycle.new_tournament(
                game=args.game,
                players=args.players,
                entrants=names,
                deal_sets=args.deal_sets,
                **rules,
                seed=args.seed,
                name=f"local run {run_id}",
                queue=lane,
                rated=not args.unrated,
            )
            ts.create(t)
            tid = t.id
            make_app(url).send_task(START_TASK, args=[t.id])
            # each part's log file, in the order they were started (one ``log`` call each)
            where = {p.pid: Path(f.name) for p, f in zip(procs, files.values(), strict=True)} if logs else None
            _watch(ts, t.id, t.total_matches, procs, args.timeout, where)
            snap = lifecycle.refresh_standings(ts, t.id)
            matches = ts.matches(t.id)
        except BaseException as exc:
            # An aborted run leaves nothing to be played later by another run's service and
            # bots, which share the embedded default: its tournament is cancelled and its
            # unplayed matches withdrawn.
            if tid and ts.cancel(tid):
                note = f"tournament {tid} cancelled"
                if isinstance(exc, TournamentError):
                    raise TournamentError(f"{exc}; {note}") from exc
                if isinstance(exc, KeyboardInterrupt):
                    raise Interrupted(note) from None
            if isinstance(exc, KeyboardInterrupt):
                raise Interrupted("stopped before the tournament was created") from None
            raise
        finally:
            for proc in reversed(procs):
                stop_process(proc)
            for f in files.values():
                f.close()
            client.close()
    if args.json:
        print(json.dumps(run_json(t, snap, matches)))
    else:
        render_standings(snap)
        for line in fault_lines(matches, logs):
            print(line)
    return 0


def run_json(t: Tournament, snap: dict[str, Any], matches: list[dict[str, Any]]) -> dict[str, Any]:
    """``tournament run --json``: the tournament ``t``, its standings snapshot and its
    ``matches`` (as ``TournamentStore.matches`` lists them)."""
    return {
        "tournament": t.id,
        "game": t.game,
        "players": t.players,
        "deal_sets": t.deal_sets,
        "rated": t.rated,
        "metric": snap["metric"],
        "standings": export_rows(snap["rows"], t.players),
        "matches": [
            {
                "match_id": m["match_id"],
                "seats": m["seats"],
                "deal_set": m["deal_set"],
                "seed": m["seed"],
                "scores": (m["result"] or {}).get("scores"),
                "ranks": (m["result"] or {}).get("ranks"),
                "won": (m["result"] or {}).get("won"),
                "deal_scores": (m["result"] or {}).get("deal_scores"),
                "forfeited": (m["result"] or {}).get("forfeited"),
                "strikes": (m["result"] or {}).get("strikes"),
                "aborted": (m["result"] or {}).get("aborted"),
            }
            for m in matches
        ],
    }


def _run_in_process(args: argparse.Namespace, bots: list[tuple[str, str]], rules: dict[str, Any]) -> int:
    """``tournament run --in-process``: the same tournament played here (see :mod:`.inprocess`)."""
    from . import inprocess, lifecycle
    from .commands import render_standings
    from .platform import new_log_dir

    seed = args.seed if args.seed is not None else lifecycle.new_seed()
    t = lifecycle.new_tournament(
        game=args.game,
        players=args.players,
        entrants=[n for _, n in bots],
        deal_sets=args.deal_sets,
        **rules,
        seed=seed,
        tid=inprocess.tournament_id(seed),
        name="in-process run",
        rated=not args.unrated,
    )
    play_rules = inprocess.Rules.of(t, bots)
    matches = lifecycle.expand(t)
    jobs = min(1 if args.jobs is None else args.jobs or os.cpu_count() or 1, len(matches))
    directory = functools.partial(new_log_dir, None, "tournament-run-in-process")
    log = inprocess.BotsLog(sys.stderr if args.verbose else None, directory)
    progress = _progress_bar(disable=args.json)
    bar = progress.add_task(f"in-process {t.id}", total=len(matches))

    def played(p: inprocess.Played) -> None:
        progress.advance(bar)
        log.write(p)

    try:
        with progress:
            results = inprocess.play(play_rules, matches, jobs=jobs, on_played=played, timeout=args.timeout)
    except KeyboardInterrupt:
        done = int(progress.tasks[0].completed)
        raise Interrupted(
            f"in-process run stopped after {done} of {how_many(len(matches), 'match')}; nothing stored"
        ) from None
    finally:
        log.close()
    records = [p.record for p in results]
    snap = inprocess.standings_of(t, records)
    if args.json:
        print(json.dumps({**run_json(t, snap, records), "in_process": True}))
        return 0
    workers = "in this process" if jobs == 1 else f"by {jobs} worker processes"
    count = how_many(len(results), "match")
    print(f"in-process: {count} played {workers} with the SDK's local match runner: {inprocess.NOTE}")
    render_standings(snap, ratings_over="this run's matches (in schedule order)")
    for line in fault_lines(records, log.directory, log_name=lambda bot: inprocess.BotsLog.NAME):
        print(line)
    return 0


def _progress_bar(*, disable: bool = False) -> Any:
    """The run's progress bar, on stderr as it is now (a bot's output, collected during its
    matches, never reaches it)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
        redirect_stdout=False,
        redirect_stderr=False,
        transient=False,
        disable=disable,
    )


def fault_lines(
    matches: list[dict[str, Any]], logs: Path | None, log_name: Callable[[str], str] = lambda bot: f"{bot}.log"
) -> list[str]:
    """Per bot that had any: its strikes (time-outs, disconnects, illegal-answer runs) and
    forfeits over the tournament, with where its log is (``log_name(bot)`` in ``logs``); then
    the matches stopped at their action limit (:func:`.commands.aborted_lines`)."""
    from .commands import aborted_lines
    from .lifecycle import aborted_matches

    totals = fault_totals({"seats": m["seats"], **(m.get("result") or {})} for m in matches)
    bots = sorted(b for b, t in totals.items() if t["strikes"] or t["forfeits"])
    lines = ["faults (a bot's own log says why):"] if bots else []
    played = Counter(bot for m in matches for bot in m["seats"])
    for bot in bots:
        where = f"; log: {logs / log_name(bot)}" if logs else ""
        t = totals[bot]
        counts = f"{how_many(t['strikes'], 'strike')}, forfeited {t['forfeits']} of {how_many(played[bot], 'match')}"
        lines.append(f"  {bot}: {counts}{where}")
    stopped = {m["match_id"]: m["result"] for m in matches if (m.get("result") or {}).get("aborted")}
    return lines + aborted_lines(aborted_matches(stopped))


def _watch(
    ts: Any, tid: str, total: int, procs: list[Any], timeout: float, logs: dict[int, Path] | None = None
) -> None:
    """Follow the tournament to its end with a progress bar; ``logs``: each child's log file by
    pid (``None``: they log to the terminal)."""
    deadline = time.monotonic() + timeout
    with _progress_bar() as progress:
        bar = progress.add_task(f"tournament {tid}", total=total)
        while True:
            t = ts.require(tid)
            progress.update(bar, completed=t.counted)
            if t.status == "finished":
                return
            for proc in procs:
                if proc.poll() is not None:
                    raise TournamentError(_exited(proc, logs))
            if time.monotonic() > deadline:
                raise TournamentError(f"tournament {tid} did not finish in {timeout:.0f} s ({t.counted}/{total})")
            time.sleep(0.2)


def _exited(proc: Any, logs: dict[int, Path] | None) -> str:
    """What to say about a child process that exited: which one, and the end of its log."""
    from .platform import tail

    said = f"a child process exited with {proc.returncode}: {' '.join(str(a) for a in proc.args)}"
    if logs is None:
        return said + " (its log is above)"
    path = logs.get(proc.pid)
    end = tail(path) if path else ""
    return f"{said}; the end of its log ({path}):\n{end}" if end else f"{said} (log: {path})"
