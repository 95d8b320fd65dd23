"""``cardarena tournament run --in-process``: a tournament's matches played in this process.

The same tournament as the real run, without the platform: the schedule comes from
:func:`.lifecycle.expand` (so the same tables, seatings, duplicate deals, order and match
seeds: a ``--seed`` deals the same cards here as over gRPC), each match is played by the SDK's
local match runner (:func:`cardarena_sdk.local.play_match`: the engine, with the bots called
as the network client calls them, and the tournament's fault policy), and the results go
through the same standings code.  No Redis, Celery, service or bot process is started; the
matches may be spread over ``jobs`` worker processes (``spawn``).

Each match is a function of its seed and the bots, whatever ``jobs`` is:

* a built-in bot (``random``, ``heuristic``) is made afresh for every match, seeded with the
  match seed and its name;
* a bot file is loaded once per entrant and process (in each worker, and in this process for
  one job) and that object plays every match given to it there, as one ``cardarena bot run``
  process does over the wire (one object, many matches); a bot whose play depends on earlier
  matches therefore depends on how they were spread over the workers;
* the ``random`` module is seeded from the match seed before the match, so a bot file that
  draws from it plays a match the same way every time (its own unseeded ``random.Random()``
  would not).

What the bots write (prints, logging, the SDK's lines about their faults) during a match is
collected per match and handed to the caller in match order.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import queue
import random
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from cardarena.engine import MAX_ACTIONS
from cardarena.store.tournaments import Tournament, TournamentError
from cardarena_sdk.local import captured

from . import lifecycle, standings
from .formats import ScheduledMatch, derive_seed

if TYPE_CHECKING:
    from cardarena_sdk import Bot

NOTE = "no gRPC, no Redis, no clocks (the time control does not apply: time-outs cannot happen); nothing is stored"
"""What an in-process run leaves out, as its output says."""


def tournament_id(seed: str) -> str:
    """The id of the in-process tournament with this seed (as ``tournament run``'s ids: ``t``
    and 10 hex digits), so that a seed gives the same match ids, order and output every time."""
    return "t" + hashlib.sha256(f"in-process/{seed}".encode()).hexdigest()[:10]


def standings_of(t: Tournament, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The standings snapshot of ``t`` over its played ``records`` (:attr:`Played.record`), as
    ``tournament run`` prints it: each row's ``rating`` is the bot's OpenSkill rating over this
    run's matches in schedule order (``None`` in a practice tournament or a solitaire)."""
    snap = lifecycle.compute_standings(t, [lifecycle.outcome_of(r, r["result"]) for r in records])
    ratings: dict[str, dict[str, float]] = {}
    if t.rated and t.players > 1:
        for r in records:
            result = r["result"]
            no_show, aborted = result.get("no_show") or (), str(result.get("aborted") or "")
            ratings.update(standings.rate_match(ratings, r["seats"], result["ranks"], no_show, aborted))
    for row in snap["rows"]:
        row["rating"] = ratings.get(row["bot"])
    snap["tournament"] = t.id
    return snap


@dataclass(frozen=True)
class Rules:
    """How every match of an in-process tournament is played (picklable: sent to workers)."""

    game: str
    options: dict[str, Any]
    bots: tuple[tuple[str, str], ...]
    """``(kind, name)`` per entrant: a built-in bot's name or a bot file, and its name."""
    max_rejections: int
    max_strikes: int
    default_action: str
    max_actions: int = MAX_ACTIONS
    """A match still going after this many actions is stopped: a no contest, as the service does."""

    @classmethod
    def of(cls, t: Tournament, bots: Sequence[tuple[str, str]]) -> Rules:
        """The rules of tournament ``t`` with its entrants' ``(kind, name)``; raises
        :class:`TournamentError` for a fault policy that needs clocks."""
        policy = t.fault_policy
        if int(policy["max_rejections"]) < 1:
            raise TournamentError(
                "--in-process: fault policy max_rejections 0 (retry until the clock runs out) needs clocks; "
                "give a number of illegal answers"
            )
        return cls(
            game=t.game,
            options=dict(t.options),
            bots=tuple(bots),
            max_rejections=int(policy["max_rejections"]),
            max_strikes=int(policy["max_strikes"]),
            default_action=str(policy["default_action"]),
            max_actions=int(policy.get("max_actions") or MAX_ACTIONS),  # absent: a tournament stored before it
        )


@dataclass(frozen=True)
class Played:
    """One match played in-process."""

    record: dict[str, Any]
    """The scheduled match (:func:`.lifecycle.schedule_entry`) with ``counted`` and ``result``
    (:func:`.lifecycle.counted_result`), as ``TournamentStore.matches`` lists a counted match."""
    output: str
    """What was written during the match (the bots' output, the SDK's log lines)."""


class BotsLog:
    """The bots' output of an in-process run, a block per match that wrote any (headed by the
    match id and its seats), as the matches end: to ``stream``, or else to :data:`NAME` in a
    log directory made (``make_directory()``) when the first block comes."""

    NAME = "bots.log"

    def __init__(self, stream: IO[str] | None, make_directory: Callable[[], Path]) -> None:
        self.stream = stream
        self.make_directory = make_directory
        self.directory: Path | None = None
        """Where the log is (``None``: nothing written to a file)."""
        self._file: IO[str] | None = None

    def write(self, played: Played) -> None:
        """Add the output of one match (nothing if it wrote nothing)."""
        if not played.output:
            return
        if self.stream is None and self._file is None:
            self.directory = self.make_directory()
            self._file = (self.directory / self.NAME).open("w")
        out = self.stream or self._file
        assert out is not None
        out.write(f"== match {played.record['match_id']}, seats {', '.join(played.record['seats'])} ==\n")
        out.write(played.output)
        out.flush()

    def close(self) -> None:
        """Close the log file (if one was opened)."""
        if self._file is not None:
            self._file.close()


class _Seating:
    """The bots of one process: file bots loaded once per entrant, built-ins made per match."""

    def __init__(self, rules: Rules) -> None:
        from cardarena_sdk.bot import BUILTIN, load_bot

        self.rules = rules
        self.kinds = {name: kind for kind, name in rules.bots}
        self.loaded: dict[str, Bot] = {}
        for kind, name in rules.bots:
            if kind not in BUILTIN:
                bot = load_bot(kind)
                bot.name = name  # as `bot run --name`
                self.loaded[name] = bot

    def play(self, m: ScheduledMatch) -> Played:
        from cardarena_sdk.bot import builtin_bot
        from cardarena_sdk.local import play_match

        rules = self.rules
        seated = [self.loaded.get(name) or builtin_bot(self.kinds[name], f"{m.seed}/{name}") for name in m.seats]
        random.seed(derive_seed(m.seed, "random"))
        with captured() as out:
            try:
                table = play_match(
                    rules.game,
                    seated,
                    m.seed,
                    match_id=m.match_id,
                    options=rules.options,
                    max_rejections=rules.max_rejections,
                    max_strikes=rules.max_strikes,
                    default_action=rules.default_action,
                    max_actions=rules.max_actions,
                )
            except SystemExit as exc:  # over the wire: the bot's process ends, and so does the run
                raise TournamentError(
                    f"a bot ended its process (SystemExit {exc.code!r}) in match {m.match_id} "
                    f"(seats {', '.join(m.seats)})"
                ) from None
        result: dict[str, Any] = {
            "scores": list(table.scores),
            "ranks": list(table.ranks),
            "forfeited": list(table.forfeited),
            "strikes": list(table.strikes),
        }
        if table.won is not None:
            result["won"] = list(table.won)
        if table.deal_scores is not None:
            result["deal_scores"] = [list(deal) for deal in table.deal_scores]
        if table.aborted:  # stopped at its action limit: a no contest
            result["aborted"] = table.aborted
        counted = lifecycle.counted_result(m.seats, result)
        return Played({**lifecycle.schedule_entry(m), "counted": True, "result": counted}, out.getvalue())


def play(
    rules: Rules,
    matches: Sequence[ScheduledMatch],
    *,
    jobs: int = 1,
    on_played: Callable[[Played], None] = lambda played: None,
    timeout: float = float("inf"),
) -> list[Played]:
    """Play ``matches`` (``jobs`` at a time, each in a worker process when ``jobs > 1``);
    ``on_played`` is called as each one ends (in the order they end).  Returns them in the
    order given.  Raises :class:`TournamentError` when a bot file does not load, a bot ends
    its process, a worker dies or ``timeout`` seconds pass (checked as matches end)."""
    deadline = time.monotonic() + timeout
    jobs = max(1, min(jobs, len(matches)))
    if jobs == 1:
        out = []
        with captured() as loading:
            seating = _load(rules)
        _print_loading(loading.getvalue())
        for m in matches:
            played = seating.play(m)
            out.append(played)
            on_played(played)
            if time.monotonic() > deadline and len(out) < len(matches):
                raise TournamentError(f"did not finish in {timeout:g} s ({len(out)}/{len(matches)} matches)")
        return out
    return _pooled(rules, list(matches), jobs, on_played, deadline, timeout)


def _load(rules: Rules) -> _Seating:
    try:
        return _Seating(rules)
    except ValueError as exc:  # the bot file changed since it was checked
        raise TournamentError(f"--bots: {exc}") from None


def _print_loading(text: str) -> None:
    """What loading the bot files wrote (a bot file should write nothing then): to stderr,
    never into the standings on stdout."""
    if text:
        sys.stderr.write(text)


def _pooled(
    rules: Rules,
    matches: list[ScheduledMatch],
    jobs: int,
    on_played: Callable[[Played], None],
    deadline: float,
    timeout: float,
) -> list[Played]:
    """:func:`play` over ``jobs`` worker processes: chunks of match indices handed out from a
    queue, each match's :class:`Played` sent back as it ends."""
    ctx = multiprocessing.get_context("spawn")
    todo: Any = ctx.Queue()
    done: Any = ctx.Queue()
    size = max(1, min(16, len(matches) // (jobs * 8)))
    for start in range(0, len(matches), size):
        todo.put((start, min(start + size, len(matches))))
    for _ in range(jobs):
        todo.put(None)
    workers = [ctx.Process(target=_work, args=(rules, matches, todo, done), daemon=True) for _ in range(jobs)]
    out: list[Played | None] = [None] * len(matches)
    got = 0
    try:
        for w in workers:
            w.start()
        while got < len(matches):
            try:
                kind, index, payload = done.get(timeout=0.2)
            except queue.Empty:
                for w in workers:
                    if w.exitcode not in (None, 0):
                        raise TournamentError(
                            f"a worker process exited with {w.exitcode} ({got}/{len(matches)} matches played): "
                            "did a bot end its process or crash the interpreter?"
                        ) from None
                if time.monotonic() > deadline:
                    raise TournamentError(f"did not finish in {timeout:g} s ({got}/{len(matches)} matches)") from None
                continue
            if kind == "error":
                raise TournamentError(payload)
            if kind == "loading":
                _print_loading(payload)
                continue
            out[index] = payload
            got += 1
            on_played(payload)
    finally:
        for w in workers:
            if w.pid is None:  # interrupted (Ctrl-C, SIGTERM) before this one was started
                continue
            if w.is_alive() and got < len(matches):
                w.terminate()
            w.join()
        todo.cancel_join_thread()
    return [p for p in out if p is not None]


def _work(rules: Rules, matches: list[ScheduledMatch], todo: Any, done: Any) -> None:
    """A worker process: play the chunks of ``matches`` taken from ``todo`` until ``None``,
    sending each match's :class:`Played` (or the error that stops the run) to ``done``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it ends the workers
    try:
        with captured() as loading:
            seating = _load(rules)
        if loading.getvalue():
            done.put(("loading", -1, loading.getvalue()))
        while (chunk := todo.get()) is not None:
            for index in range(*chunk):
                done.put(("played", index, seating.play(matches[index])))
    except TournamentError as exc:
        done.put(("error", -1, str(exc)))
