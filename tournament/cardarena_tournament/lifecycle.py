"""Plain functions behind the Celery tasks and the CLI: create, start, count, reconcile, schedule.

Every function takes its repositories as arguments, re-reads state, and is idempotent, so a
task that runs twice (a redelivery after a worker was killed) changes nothing the second time.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import secrets
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict
from dataclasses import fields as dataclass_fields
from datetime import UTC, datetime
from typing import Any

from cardarena.engine import GameError, get_game
from cardarena.store.matches import RESULTS_GROUP, FaultPolicy, MatchSpec, MatchStore, TimeControl
from cardarena.store.tournaments import (
    Schedule,
    Tournament,
    TournamentError,
    TournamentStore,
    tournament_name_problem,
)

from . import formats, standings

RatingUpdate = Callable[[dict[str, dict[str, float]]], dict[str, dict[str, float]]]
"""Maps the seated bots' current ratings to their new ratings after one match."""
OnEnd = Callable[[str], None]
"""Called with a tournament's id when it has just been finished (the worker's: announce it to
its notification targets, :func:`.notify.dispatch`)."""

log = logging.getLogger(__name__)

_INTERVAL = re.compile(r"^(?:@?every\s+)?(\d+(?:\.\d+)?)\s*([smhd]?)$")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_schedule(text: str) -> tuple[str | None, float | None]:
    """``(cron, None)`` or ``(None, seconds)`` from ``"0 2 * * *"``, ``"30s"``, ``"every 10m"``.

    Raises :class:`TournamentError` for anything else.
    """
    text = text.strip()
    m = _INTERVAL.match(text)
    if m:
        seconds = float(m.group(1)) * _UNITS[m.group(2)]
        if seconds <= 0:
            raise TournamentError(f"schedule interval must be positive: {text!r}")
        return None, seconds
    from croniter import croniter

    if not croniter.is_valid(text):
        raise TournamentError(
            f"bad schedule {text!r}: use a cron expression ('0 2 * * *') or an interval ('30s', '10m', '1h')"
        )
    return text, None


def next_after(s: Schedule, after: float) -> float:
    """The first run time of ``s`` strictly after ``after`` (unix seconds)."""
    if s.every is not None:
        return after + s.every
    from croniter import croniter

    start = datetime.fromtimestamp(after, tz=UTC)
    return float(croniter(s.cron, start).get_next(float))


def new_seed() -> str:
    """A tournament seed nobody can guess.  Every deal follows from the seed and the match id
    (``formats.derive_seed``), so a bot that knew the seed would know every hidden card: it
    is kept secret (the dashboard shows it once the tournament has ended)."""
    return secrets.token_hex(16)


def new_tournament(
    *,
    game: str,
    players: int,
    entrants: Sequence[str],
    deal_sets: int,
    options: dict[str, Any] | None = None,
    time_control: dict[str, int] | None = None,
    fault_policy: dict[str, Any] | None = None,
    seed: str | None = None,
    name: str = "",
    tid: str | None = None,
    schedule_id: str | None = None,
    queue: str = "",
    rated: bool = True,
) -> Tournament:
    """A validated :class:`Tournament` (not stored); without ``seed``, a secret random one
    (:func:`new_seed`); ``rated=False`` makes a practice tournament (:attr:`Tournament.rated`).
    Raises ``GameError``, ``FormatError`` or ``TournamentError`` with a message naming the bad
    input."""
    g = get_game(game)
    full_options = g.options(players, options)
    g.new_state(players, full_options)  # some games check ranges only when they build a match
    formats.check_field(list(entrants), players)
    if deal_sets < 1:
        raise formats.FormatError(f"deal sets must be at least 1, not {deal_sets}")
    try:
        tc = asdict(TimeControl.checked(time_control))
        policy = asdict(FaultPolicy.checked(fault_policy))
    except ValueError as exc:
        raise formats.FormatError(str(exc)) from None
    tid = tid or f"t{uuid.uuid4().hex[:10]}"
    if seed is None:
        seed = new_seed()
    return Tournament(
        id=tid,
        game=g.id,
        players=players,
        entrants=tuple(entrants),
        deal_sets=deal_sets,
        name=name or f"{g.name} {players}p",
        seed=seed,
        options=full_options,
        time_control=tc,
        fault_policy=policy,
        schedule_id=schedule_id,
        queue=queue,
        rated=bool(rated),
        total_matches=len(expand_parts(tid, entrants, players, deal_sets, seed)),
    )


def expand_parts(
    tid: str, entrants: Sequence[str], players: int, deal_sets: int, seed: str
) -> list[formats.ScheduledMatch]:
    """The format expansion for these parameters."""
    return formats.schedule(tid, list(entrants), players, deal_sets, seed=seed)


def expand(t: Tournament) -> list[formats.ScheduledMatch]:
    """Every match of ``t`` in play order."""
    return expand_parts(t.id, t.entrants, t.players, t.deal_sets, t.seed)


def scheduled(ts: TournamentStore, t: Tournament) -> list[formats.ScheduledMatch]:
    """Every match of ``t`` as stored when it started, else as :func:`expand` gives them.

    A started tournament goes by its stored schedule, so an upgrade whose formats expand
    differently (other groups, other ids) cannot re-queue a running tournament's matches under
    new ids while its old ones still play."""
    stored = ts.schedule_of(t.id)
    fields = {f.name for f in dataclass_fields(formats.ScheduledMatch)}
    if not stored or not all(fields <= m.keys() for m in stored):  # none, or ids only
        return expand(t)
    return [formats.ScheduledMatch(**{**{k: m[k] for k in fields}, "seats": tuple(m["seats"])}) for m in stored]


def spec_for(t: Tournament, m: formats.ScheduledMatch) -> MatchSpec:
    """The match spec the service plays."""
    return MatchSpec(
        match_id=m.match_id,
        game=t.game,
        players=t.players,
        seats=m.seats,
        seed=m.seed,
        options=dict(t.options),
        time_control=TimeControl(**t.time_control),
        fault_policy=FaultPolicy(**t.fault_policy),
        tournament=t.id,
        queue=t.queue,
    )


def schedule_entry(m: formats.ScheduledMatch) -> dict[str, Any]:
    """A scheduled match as the tournament's stored schedule holds it (``ts.schedule_of``)."""
    return {
        "match_id": m.match_id,
        "seats": list(m.seats),
        "seed": m.seed,
        "deal_set": m.deal_set,
        "round": m.round,
        "table": m.table,
        "seating": m.seating,
        "deal": m.deal,
    }


def start_tournament(ts: TournamentStore, ms: MatchStore, tid: str) -> int:
    """Store the schedule, mark the tournament running and queue every match not yet known.

    Returns how many matches were queued now (0 on a repeat).  Finished or cancelled
    tournaments are left alone.
    """
    t = ts.require(tid)
    if t.status in ("finished", "cancelled"):
        return 0
    matches = scheduled(ts, t)
    ts.start(tid, [schedule_entry(m) for m in matches])
    return sum(ms.enqueue_many([spec_for(t, m) for m in matches]))


def outcomes_of(
    ts: TournamentStore, tid: str, results: dict[str, dict[str, Any]] | None = None
) -> list[standings.Outcome]:
    """The counted results of a tournament (``results``: as read by ``ts.results`` already) as
    :class:`~.standings.Outcome` records."""
    results = ts.results(tid) if results is None else results
    out = []
    for m in ts.schedule_of(tid):
        res = results.get(m["match_id"])
        if res is not None:
            out.append(outcome_of(m, res))
    return out


def outcome_of(entry: dict[str, Any], result: dict[str, Any]) -> standings.Outcome:
    """The :class:`~.standings.Outcome` of the scheduled match ``entry`` (:func:`schedule_entry`)
    with its counted ``result`` (:func:`counted_result`)."""
    return standings.Outcome(
        match_id=entry["match_id"],
        seats=tuple(entry["seats"]),
        scores=tuple(float(x) for x in result["scores"]),
        ranks=tuple(int(x) for x in result["ranks"]),
        deal_set=entry["deal_set"],
        won=tuple(bool(x) for x in result["won"]) if result.get("won") is not None else None,
        deal_scores=_deal_scores(result.get("deal_scores")),
        forfeited=tuple(int(x) for x in result.get("forfeited") or ()),
        no_show=tuple(int(x) for x in result.get("no_show") or ()),
        aborted=str(result.get("aborted") or ""),
    )


def _deal_scores(raw: Any) -> tuple[tuple[float, ...], ...] | None:
    """Per-deal scores of a stored result (``None`` when it was recorded without them)."""
    if not isinstance(raw, list):
        return None
    return tuple(tuple(float(x) for x in deal) for deal in raw)


def refresh_standings(ts: TournamentStore, tid: str) -> dict[str, Any]:
    """Recompute and store the standings snapshot (with current ratings; in ``faults``, each
    entrant's strikes and forfeits in the results it counts: :func:`snapshot_faults`; in
    ``aborted``, the matches stopped at their action limit: :func:`aborted_matches`); returns
    it."""
    t = ts.require(tid)
    results = ts.results(tid)
    outcomes = outcomes_of(ts, tid, results)
    snap = compute_standings(t, outcomes)
    cross = compute_crosstable(t, outcomes, [row["bot"] for row in snap["rows"]])
    ratings = ts.ratings(t.game)
    for row in snap["rows"]:
        row["rating"] = ratings.get(row["bot"])
    snap["tournament"] = tid
    snap["status"] = t.status
    snap["total_matches"] = t.total_matches
    snap[FAULTS] = standings.fault_totals(results.values())
    snap[ABORTED] = aborted_matches(results)
    ts.save_standings(tid, snap, cross)
    return snap


def compute_standings(t: Tournament, outcomes: Sequence[standings.Outcome]) -> dict[str, Any]:
    """The standings of ``t`` over ``outcomes`` (``Standings.to_json``: ``metric``, ``rows``
    ...), under the game's metric, with the bootstrap seeded from the tournament's seed."""
    game = get_game(t.game)
    return standings.compute(
        outcomes,
        t.entrants,
        solitaire=t.players == 1,
        higher_is_better=game.higher_is_better,
        deals_fixed_by_seed=game.deals_fixed_by_seed,
        seed=formats.derive_seed(t.seed, "bootstrap"),
    ).to_json()


def compute_crosstable(
    t: Tournament, outcomes: Sequence[standings.Outcome], order: Sequence[str]
) -> dict[str, Any] | None:
    """The crosstable of ``t`` over ``outcomes`` (``Crosstable.to_json``), its bots in the
    standings' ``order``, under the game's metric, with its bootstrap seeded from the
    tournament's seed; ``None`` for a solitaire (every bot plays alone)."""
    if t.players < 2:
        return None
    game = get_game(t.game)
    return standings.crosstable(
        outcomes,
        order,
        higher_is_better=game.higher_is_better,
        deals_fixed_by_seed=game.deals_fixed_by_seed,
        seed=formats.derive_seed(t.seed, "crosstable"),
    ).to_json()


SOLITAIRE_NO_CROSSTABLE = "a solitaire has no crosstable: every bot plays alone, on the same deals"
"""Why a solitaire tournament shows no crosstable."""
NOT_YET = (
    "not computed yet: these standings were computed by an earlier version; "
    "the crosstable comes with the next standings update"
)
"""Why a running tournament whose snapshot an earlier version stored shows no crosstable yet."""


def stored_crosstable(ts: TournamentStore, t: Tournament) -> tuple[dict[str, Any] | None, str | None]:
    """The crosstable of ``t`` in its stored form (``Crosstable.to_json``), as stored with its
    standings snapshot, or ``None`` and why not (:data:`SOLITAIRE_NO_CROSSTABLE`,
    :data:`NOT_YET`); before the first counted result, an empty one (its entrants, no pairs).  A
    tournament that ended with a snapshot an earlier version stored (no crosstable) gets it
    computed now, once, from its counted results, in the snapshot's order, and stored
    (:meth:`TournamentStore.fill_crosstable`): every later read is one ``GET``."""
    if t.players < 2:
        return None, SOLITAIRE_NO_CROSSTABLE
    found = ts.crosstable(t.id)
    if found is None:
        snap = ts.standings(t.id)
        if snap is None:
            return standings.Crosstable(tuple(t.entrants), {}, "", 0, 0).to_json(), None
        if t.status not in ("finished", "cancelled"):
            return None, NOT_YET
        found = compute_crosstable(t, outcomes_of(ts, t.id), [row["bot"] for row in snap.get("rows") or ()])
        if found is None:
            return None, SOLITAIRE_NO_CROSSTABLE
        ts.fill_crosstable(t.id, found)
    return found, None


def crosstable_of(ts: TournamentStore, t: Tournament) -> tuple[standings.Crosstable | None, str | None]:
    """:func:`stored_crosstable`, read back as a :class:`~.standings.Crosstable`."""
    found, why = stored_crosstable(ts, t)
    return (standings.Crosstable.from_json(found) if found is not None else None), why


def crosstable_report(cross: standings.Crosstable | None, why: str | None, bot: str | None = None) -> dict[str, Any]:
    """The crosstable as the API and ``tournament standings --crosstable --json`` give it:
    ``available`` (``false``, with ``reason``, for a solitaire or one not computed yet),
    ``metric``, ``counted``, ``resamples``, ``bots`` (standings order) and ``items``, every
    ordered pair that met (only ``bot``'s, given one: :meth:`.standings.Crosstable.items`)."""
    if cross is None:
        return {
            "available": False,
            "reason": why,
            "metric": None,
            "counted": 0,
            "resamples": 0,
            "bots": [],
            "items": [],
        }
    return {
        "available": True,
        "reason": None,
        "metric": cross.metric or None,
        "counted": cross.counted,
        "resamples": cross.resamples,
        "bots": list(cross.bots),
        "items": cross.items(bot),
    }


ABORTED = "aborted"
"""The standings snapshot's field listing the tournament's counted matches that the service
stopped at their action limit (:func:`aborted_matches`); absent from snapshots stored before it."""


def aborted_matches(results: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The counted ``results`` (by match id) of matches stopped before their end, with why
    (``action_limit``), in match id order: no contests, in nobody's standing (a game that loops,
    or bots that found a loop in it; their replays show where)."""
    return {mid: str(r["aborted"]) for mid, r in sorted(results.items()) if r.get("aborted")}


FAULTS = "faults"
"""The standings snapshot's field of fault totals (``standings.fault_totals``, bot -> ``strikes``,
``forfeits`` and ``no_shows``), counted from the same read of the results as its rows."""


def snapshot_faults(ts: TournamentStore, tid: str, snapshot: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Each bot's strikes and forfeits in the tournament's counted results, as of its standings
    ``snapshot``: the totals counted with it (a snapshot read on every standings request or poll
    costs one ``GET``, not a read of every result); a snapshot stored by an earlier version, which
    has none, reads them from the counted results (one ``HGETALL`` of the whole hash)."""
    found = snapshot.get(FAULTS)
    if isinstance(found, dict):
        return found
    return _fault_totals(ts, tid)


def fill_snapshot_faults(ts: TournamentStore) -> int:
    """Give the standings snapshot of every finished or cancelled tournament stored by an
    earlier version its fault totals (:data:`FAULTS`, counted from its results), so that a
    standings request reads the snapshot alone (:func:`snapshot_faults`); only that field is
    written.  Idempotent; returns how many snapshots it filled in."""
    filled = 0
    for status in ("finished", "cancelled"):
        for tid in ts.ids_in(status):
            if ts.fill_standings_field(tid, FAULTS, functools.partial(_fault_totals, ts, tid)):
                filled += 1
    return filled


def _fault_totals(ts: TournamentStore, tid: str) -> dict[str, dict[str, int]]:
    return standings.fault_totals(ts.results(tid).values())


def count_match(
    ts: TournamentStore, ms: MatchStore, match_id: str, known: dict[str, Tournament | None] | None = None
) -> str | None:
    """Count one completed match in its tournament (once) and apply it to the ratings (once).

    ``known`` caches tournaments across a batch.  Returns the tournament id if the match
    belongs to a live tournament, else ``None``.
    """
    return count_matches(ts, ms, [match_id], known)[0]


def count_matches(
    ts: TournamentStore, ms: MatchStore, match_ids: Sequence[str], known: dict[str, Tournament | None] | None = None
) -> list[str | None]:
    """:func:`count_match` for a batch, with a constant number of round trips: one read of the
    match records, one rating transaction per game, one counting pipeline per tournament.

    Ratings are applied before counting (once every match is counted, every rating is in); both
    steps are once per match id, so a redelivered batch changes nothing.  The matches of an
    unrated (practice) tournament are counted only: the ratings and their histories stay as
    they are.  Returns, per match id,
    its tournament id if it belongs to a live tournament, else ``None``.
    """
    cache = known if known is not None else {}
    out: list[str | None] = []
    ratings: dict[str, list[tuple[str, Sequence[str], RatingUpdate]]] = {}
    counts: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for match_id, info in zip(match_ids, ms.infos(match_ids), strict=True):
        out.append(None)
        if "result" not in info or "spec" not in info:
            continue
        spec = MatchSpec.from_json(json.loads(info["spec"]))
        result = json.loads(info["result"])
        if not spec.tournament:
            continue
        if spec.tournament not in cache:
            cache[spec.tournament] = ts.get(spec.tournament)
        t = cache[spec.tournament]
        if t is None or t.status not in ("running", "finished"):
            continue
        entry = counted_result(spec.seats, result)
        if len(spec.seats) > 1 and t.rated:
            rater = _rater(spec.seats, result["ranks"], result.get("no_show") or (), str(result.get("aborted") or ""))
            ratings.setdefault(t.game, []).append((match_id, spec.seats, rater))
        counts.setdefault(t.id, []).append((match_id, entry))
        out[-1] = t.id
    for game, items in ratings.items():  # rated first: once every match is counted, every rating is in
        ts.apply_ratings(game, items)
    for tid, entries in counts.items():
        ts.record_many(tid, entries)
    return out


def counted_result(seats: Sequence[str], result: dict[str, Any]) -> dict[str, Any]:
    """What a tournament counts of a match's recorded ``result`` (the service's, or a match
    played in-process), with the ``seats``."""
    entry: dict[str, Any] = {"scores": list(result["scores"]), "ranks": list(result["ranks"]), "seats": list(seats)}
    if result.get("won") is not None:  # set by games that define winning apart from rank (solitaires)
        entry["won"] = list(result["won"])
    if result.get("deal_scores") is not None:  # per deal and seat: the standings compare deal by deal
        entry["deal_scores"] = list(result["deal_scores"])
    for fault in ("forfeited", "no_show", "strikes"):  # the standings' forfeit rule; `tournament run` names the bots
        if result.get(fault) is not None:
            entry[fault] = list(result[fault])
    if result.get("aborted"):  # stopped at its action limit: a no contest (standings.Outcome.aborted)
        entry["aborted"] = str(result["aborted"])
    return entry


def _rater(seats: Sequence[str], ranks: Sequence[Any], no_show: Sequence[Any] = (), aborted: str = "") -> RatingUpdate:
    """The rating update of one match (none for a no contest, which is still marked applied)."""
    fixed, absent = [int(r) for r in ranks], [int(s) for s in no_show]
    return lambda cur: standings.rate_match(cur, seats, fixed, absent, aborted)


def consume_results(
    ts: TournamentStore, ms: MatchStore, consumer: str, *, batch: int = 500, on_end: OnEnd | None = None
) -> int:
    """Read the results stream (consumer group :data:`RESULTS_GROUP`): entries this group left
    unacknowledged for 30 s (a killed worker) first, then new ones.  Counts each match once,
    refreshes standings of the touched tournaments, finishes those that are complete (then
    ``on_end``, see :func:`settle`), and acknowledges.  Returns the number of entries handled."""
    ts.ensure_group(ms.STREAM, RESULTS_GROUP)
    handled = 0
    touched: set[str] = set()
    for pending in (True, False):
        entries = ts.read_group(ms.STREAM, RESULTS_GROUP, consumer, count=batch, pending=pending)
        done = [eid for eid, _ in entries]
        mids = [fields.get("match_id", "") for _, fields in entries]
        touched.update(tid for tid in count_matches(ts, ms, mids) if tid)
        for tid in sorted(touched):
            settle(ts, tid, on_end=on_end)
        ts.ack(ms.STREAM, RESULTS_GROUP, done)
        handled += len(done)
        touched.clear()
    return handled


STANDINGS_EVERY_S = 2.0
"""While a tournament runs, its standings snapshot is recomputed at most this often (the
bootstrap is the costly part; see :func:`standings_hold`); the final snapshot is always
computed."""
STANDINGS_SHARE = 0.1
"""Live standings take at most about this share of the time of the workers counting results."""


def standings_hold(elapsed: float) -> float:
    """How long after a refresh that took ``elapsed`` seconds the live standings are left alone:
    :data:`STANDINGS_EVERY_S`, or longer when a refresh is costly (40 bots, a few thousand
    matches: about a second), so that refreshing takes at most :data:`STANDINGS_SHARE`."""
    return max(STANDINGS_EVERY_S, elapsed / STANDINGS_SHARE)


def settle(ts: TournamentStore, tid: str, *, force: bool = False, on_end: OnEnd | None = None) -> None:
    """Finish the tournament if every match is counted, and refresh its standings: always when
    it finishes or ``force``; otherwise only if no worker process refreshed them within
    :func:`standings_hold` of its refresh (a lease in Redis, shared by every process).

    This is the one place a tournament becomes ``finished``: ``on_end(tid)`` is called here,
    once, by the call that finished it, after its final standings are stored."""
    t = ts.require(tid)
    complete = t.counted >= t.total_matches
    snap = None
    if complete or force or ts.claim_standings(tid):
        started = time.monotonic()
        snap = refresh_standings(ts, tid)  # before finishing, so a finished tournament always has standings
        ts.hold_standings(tid, standings_hold(time.monotonic() - started))
    if ts.finish(tid):
        if complete and snap is not None:  # computed from every result: only the status changes
            ts.save_standings(tid, {**snap, "status": "finished"})
        else:  # the last results were counted elsewhere after our read: compute again
            refresh_standings(ts, tid)
        if on_end is not None:
            on_end(tid)
    elif snap is not None and snap.get("status") != "finished" and ts.require(tid).status == "finished":
        # Another worker finished the tournament while we computed; our snapshot (saved as
        # "running") may have landed after its final one. Recompute: every result is counted.
        refresh_standings(ts, tid)


def reconcile(
    ts: TournamentStore, ms: MatchStore, *, upcoming_grace_s: float = 30.0, on_end: OnEnd | None = None
) -> dict[str, int]:
    """Repair whatever a crash left behind (idempotent):

    * running matches with an expired lease and queued matches missing from the queue are put
      back (:meth:`MatchStore.requeue_lost`);
    * every match of a running tournament missing from the match store is queued again;
    * completed matches of running tournaments not yet counted (or, in a rated tournament,
      rated) are counted (rated);
    * running tournaments with every match counted are finished; the standings of those it
      counted matches of are refreshed (the others' when their turn comes, see :func:`settle`,
      which calls ``on_end`` for each it finishes);
    * tournaments still ``upcoming`` ``upcoming_grace_s`` after creation (their start task was
      lost) are started.
    """
    report = {"requeued": len(ms.requeue_lost()), "enqueued": 0, "counted": 0, "started": 0}
    now = time.time()
    for t in ts.list("upcoming", limit=10_000):
        if now - t.created_at >= upcoming_grace_s:
            report["enqueued"] += start_tournament(ts, ms, t.id)
            report["started"] += 1
    for t in ts.list("running", limit=10_000):
        matches = scheduled(ts, t)
        infos = ms.infos([m.match_id for m in matches])  # one round trip per step, not per match
        missing = [spec_for(t, m) for m, info in zip(matches, infos, strict=True) if not info.get("status")]
        report["enqueued"] += sum(ms.enqueue_many(missing))
        done = [m.match_id for m, info in zip(matches, infos, strict=True) if info.get("status") == "done"]
        counted = ts.counted_among(t.id, done)
        rated = ts.rated_among(t.game, done) if t.players > 1 and t.rated else [True] * len(done)
        todo = [mid for mid, c, r in zip(done, counted, rated, strict=True) if not (c and r)]
        count_matches(ts, ms, todo)
        report["counted"] += len(todo)
        settle(ts, t.id, force=bool(todo), on_end=on_end)  # nothing repaired: the standings wait their turn
    return report


def check_template(template: dict[str, Any]) -> None:
    """Raise (``GameError``, ``FormatError`` or ``TournamentError``, naming the bad input)
    unless ``template`` (keyword arguments of :func:`new_tournament`) makes a tournament.  With
    ``entrants="all"`` the game, player count, deal sets and options are checked against a
    stand-in field.  The name is checked here, where a tournament or schedule is created, not
    in :func:`new_tournament`: the runs of a schedule stored before names were checked go on."""
    problem = tournament_name_problem(str(template.get("name") or ""))
    if problem:
        raise TournamentError(problem)
    check = dict(template)
    if check.get("entrants") == "all":
        check["entrants"] = [f"entrant-{i}" for i in range(max(2, int(check.get("players") or 1)))]
    new_tournament(**check, tid="check")


def create_schedule(
    ts: TournamentStore,
    schedule_text: str,
    template: dict[str, Any],
    *,
    sid: str | None = None,
    now: float,
    notify: Sequence[str] = (),
    require_registered: bool = False,
) -> Schedule:
    """Validate ``template`` (keyword arguments of :func:`new_tournament`) and store a recurring
    tournament (``notify``: webhook URLs, checked by the caller, that each run is given).  An
    interval schedule (``"every 1h"``) runs first at once, then every interval; a cron schedule
    runs first at its next cron time after ``now``.  ``entrants`` may be
    ``"all"``: every registered bot at the time of each run (the game, player count, deal sets
    and options are still checked now, against a stand-in field).  ``require_registered``: the
    entrants it names must be registered bots, checked in the step that stores it
    (:class:`~cardarena.store.tournaments.UnregisteredEntrants`)."""
    cron, every = parse_schedule(schedule_text)
    check_template(template)
    s = Schedule(id=sid or f"s{uuid.uuid4().hex[:8]}", template=template, cron=cron, every=every, created_at=now)
    first = now if every is not None else next_after(s, now)
    if not ts.create_schedule(s, first_run=first, notify=notify, require_registered=require_registered):
        raise TournamentError(f"schedule {s.id!r} exists")
    return s


def start_due_schedules(
    ts: TournamentStore, ms: MatchStore, now: float, all_bots: Callable[[], Sequence[str]] | None = None
) -> list[str]:
    """Create and start one run of every due schedule; returns the tournament ids started.

    The run's id is ``<schedule>-<due time>``, created *before* the schedule moves on, so a
    crash in between leaves a tournament that the next call (or :func:`reconcile`) starts,
    never a lost or doubled run.  State lives in Redis, so beat and worker restarts lose
    nothing; a run that was missed while everything was down happens once on restart.

    A run that cannot be created (say ``--all`` found fewer registered bots than a table
    needs) is skipped: the error is logged and kept on the schedule
    (:meth:`TournamentStore.schedule_info`), the schedule moves on to its next time, and the
    other schedules start as usual.
    """
    started = []
    for sid in ts.due(now):
        s = ts.get_schedule(sid)
        due = ts.next_run(sid)
        if s is None or due is None:
            continue
        tid = f"{sid}-{int(due)}"
        following = next_after(s, due)
        if following <= now:  # runs missed while nothing was up collapse into this one
            following = next_after(s, now)
        previous = ts.get(f"{sid}-{int(last)}") if (last := ts.last_run(sid)) is not None else None
        if previous is not None and previous.status in ("upcoming", "running"):
            # Runs never overlap: with a short interval (or a long tournament) the next one
            # would compete with this one for the same bots.
            if ts.claim_run(sid, now, following, started=False) is not None:
                at = f"{datetime.fromtimestamp(due, tz=UTC):%Y-%m-%d %H:%M:%S}"
                ts.schedule_failed(
                    sid, f"run due {at} UTC skipped: the previous run {previous.id} is still playing", now
                )
            continue
        template = dict(s.template)
        if template.get("entrants") == "all":
            template["entrants"] = list(all_bots()) if all_bots else []
        try:
            t = new_tournament(**template, tid=tid, schedule_id=sid)
        except (GameError, formats.FormatError, TournamentError, TypeError, ValueError) as exc:
            if ts.claim_run(sid, now, following, started=False) is not None:
                message = f"run due {datetime.fromtimestamp(due, tz=UTC):%Y-%m-%d %H:%M} UTC not created: {exc}"
                ts.schedule_failed(sid, message, now)
                log.error("schedule_run_failed", extra={"fields": {"schedule": sid, "error": str(exc)}})
            continue
        ts.create(t, notify=ts.schedule_targets(sid))
        if ts.claim_run(sid, now, following) is None:
            continue  # another beat/worker took this run; it starts it
        start_tournament(ts, ms, tid)
        started.append(tid)
    return started
