"""``cardarena tournament ...``, ``cardarena prune``, ``cardarena worker`` and ``cardarena beat``
(their arguments: :mod:`.arguments`)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cardarena.names import name_order
from cardarena.store.bots import BotStore
from cardarena.store.connection import DEFAULT_DATA_DIR, client_for
from cardarena.store.matches import MatchStore
from cardarena.store.retention import PruneReport
from cardarena.store.tournaments import Tournament, TournamentError, TournamentStore
from cardarena.summary import how_many

from . import lifecycle, notify, standings, webhook
from .formats import FormatError
from .standings import row_absent

START_TASK = "cardarena_tournament.tasks.start_tournament"


@contextlib.contextmanager
def _stores(args: argparse.Namespace) -> Iterator[tuple[TournamentStore, MatchStore, str]]:
    """The repositories on ``--redis-url``, else ``REDIS_URL``, else the user's shared embedded
    default (the one ``cardarena up``, ``demo`` and ``dashboard`` use), and its URL."""
    from cardarena.store.connection import chosen_redis

    with chosen_redis(args.redis_url) as url:
        client = client_for(url)
        try:
            yield TournamentStore(client), MatchStore(client), url
        finally:
            client.close()


def printable(text: str) -> str:
    """``text`` for a terminal: each character that is not printable (a control character,
    which a terminal acts on, such as ESC starting an escape sequence; an invisible formatting
    one, such as the bidirectional override U+202E, which reorders the text around it) as its
    Python escape (``\\x1b``, ``\\u202e``).  Names are refused such characters when they are
    stored, but older or imported data may still hold them."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _fail(message: str) -> int:
    print(f"cardarena: error: {message}", file=sys.stderr)
    return 2


def json_object(text: str | None, flag: str) -> dict[str, Any] | None:
    """The JSON object given to ``flag`` (``None`` if not given); ``TournamentError`` naming
    the problem."""
    from cardarena.cliargs import json_object as parse

    try:
        return parse(text, flag)
    except ValueError as exc:
        raise TournamentError(str(exc)) from None


def match_rules(args: argparse.Namespace) -> dict[str, Any]:
    """The ``options``, ``time_control`` and ``fault_policy`` keywords of ``new_tournament``."""
    clocks = json_object(args.time_control, "--time-control")
    for flag, field in (("--move-ms", "move_ms"), ("--bank-ms", "bank_ms")):
        value = getattr(args, field, None)
        if value is None:
            continue
        if clocks is not None and field in clocks:
            raise TournamentError(f"{flag} and --time-control both set {field}: give it once")
        clocks = {**(clocks or {}), field: value}
    return {
        "options": json_object(args.options, "--options"),
        "time_control": clocks,
        "fault_policy": json_object(args.fault_policy, "--fault-policy"),
    }


def _create(args: argparse.Namespace) -> int:
    try:
        if args.all:
            entrants: Any = "all"
        else:
            entrants = [b.strip() for b in (args.bots or "").split(",") if b.strip()]
            if not entrants:
                raise TournamentError("name the entrants with --bots A,B,C or use --all")
        template: dict[str, Any] = {
            "game": args.game,
            "players": args.players,
            "entrants": entrants,
            "deal_sets": args.deal_sets,
            **match_rules(args),
            "name": args.name or "",
            "rated": not args.unrated,  # a schedule's runs inherit it
        }
        lifecycle.check_template(template)  # the bad input first, before the bots are looked up
        if args.schedule:
            lifecycle.parse_schedule(args.schedule)
        targets = notify.check_targets(args.notify or [], allow=webhook.AllowList.from_env())
        for where in notify.in_clear(targets):
            print(
                f"warning: --notify {where} is plain http: its URL, token included, travels in clear", file=sys.stderr
            )
        with _stores(args) as (ts, _, url):
            if entrants != "all":
                missing = BotStore(ts.r).unregistered(entrants)
                if missing:
                    raise TournamentError(
                        f"not registered: {', '.join(missing)} (register a bot with `cardarena bot register NAME`)"
                    )
            if args.schedule:
                now = time.time()
                s = lifecycle.create_schedule(
                    ts, args.schedule, template, now=now, notify=targets, require_registered=True
                )
                when = f"every {s.every:g}s" if s.every else f"cron {s.cron!r} (UTC)"
                first = ts.next_run(s.id) or now
                at = "now" if first <= now else f"{_utc(first)} UTC"
                print(f"schedule {s.id} ({when}); first run {at} (beat starts it)")
                return 0
            if entrants == "all":
                template["entrants"] = BotStore(ts.r).entrants()
            t = lifecycle.new_tournament(**template)
            ts.create(t, notify=targets, require_registered=True)  # a bot deleted meanwhile is not entered
            from .celery_app import make_app

            make_app(url).send_task(START_TASK, args=[t.id])
        print(t.id)
        if targets:
            print(f"its end is posted to {notify.hosts(targets)}", file=sys.stderr)
        return 0
    except (TournamentError, FormatError, ValueError, RuntimeError) as exc:
        return _fail(str(exc))


def _utc(t: float) -> str:
    from datetime import UTC, datetime

    return f"{datetime.fromtimestamp(t, tz=UTC):%Y-%m-%d %H:%M}"


def _status(args: argparse.Namespace) -> int:
    from cardarena.store.notifications import NotificationStore

    try:
        with _stores(args) as (ts, _, _url):
            t = ts.require(args.id)
            targets = notify.summary(NotificationStore(ts.r), t.id)
            aborted = (ts.standings(t.id) or {}).get(lifecycle.ABORTED) or {}
    except (TournamentError, RuntimeError) as exc:
        return _fail(str(exc))
    data = t.to_json()
    if aborted:
        data["aborted"] = aborted
    if args.json:
        print(json.dumps({**data, "notify": targets} if targets else data))
    else:
        for line in [*status_lines(t), *aborted_lines(aborted), *notify_lines(targets)]:
            print(line)
    return 0


def aborted_lines(aborted: dict[str, str]) -> list[str]:
    """``tournament status``: the counted matches the service stopped at their action limit
    (the standings snapshot's ``aborted``), which count for nobody, and where to see why."""
    if not aborted:
        return []
    out = [
        f"aborted: {how_many(len(aborted), 'match')} stopped at the action limit (fault policy max_actions): "
        "no contests, in nobody's standing; the game loops, or the bots found a loop in it (its replay shows where; "
        "`cardarena conformance GAME` looks for loops)"
    ]
    out += [f"  {printable(mid)}: {printable(why)}" for mid, why in aborted.items()]
    return out


def notify_lines(targets: list[dict[str, Any]]) -> list[str]:
    """``tournament status``: how many notification targets, their hosts (never their URLs)
    and, once the end was announced, how each delivery stands."""
    if not targets:
        return []
    out = [f"notify: {how_many(len(targets), 'target')} ({', '.join(d['host'] for d in targets)})"]
    for d in targets:
        state, tries = d["state"], how_many(d["attempts"], "attempt")
        if state is None:
            continue  # not ended (or not announced yet): the line above says it all
        when = f" {_utc(d['updated_at'])} UTC" if d.get("updated_at") else ""
        text = {
            "queued": "queued",
            "sending": f"posting (attempt {d['attempts']})",
            "retrying": f"{tries} failed; next at {_utc(d['next_attempt_at'] or 0.0)} UTC",
            "delivered": f"delivered{when} ({tries})",
            "failed": f"failed{when} after {tries}",
        }.get(state, state)
        error = f"; last error: {d['last_error']}" if d.get("last_error") and state != "delivered" else ""
        out.append(f"  {d['target']}. {d['host']}: {text}{error}")
    return out


def _list(args: argparse.Namespace) -> int:
    try:
        with _stores(args) as (ts, _, _url):
            found = ts.list(args.status, limit=args.limit + 1, offset=args.offset)
    except (TournamentError, RuntimeError) as exc:
        return _fail(str(exc))
    more, found = len(found) > args.limit, found[: args.limit]
    if args.json:
        print(json.dumps({"tournaments": [t.to_json() for t in found]}))
        return 0
    if not found:
        print("no tournaments" + (f" {args.status}" if args.status else "") + (" this far back" if args.offset else ""))
    if more:  # on stderr: stdout stays one line per tournament
        print(f"(older ones: --offset {args.offset + args.limit})", file=sys.stderr)
    for t in found:
        name = f"  {t.name!r}" if t.name and t.name != _default_name(t.game, t.players) else ""
        when = _utc(t.created_at) + " UTC" if t.created_at else "-"
        print(
            f"{printable(t.id)}{name}  [{t.status}]  {t.game} {t.players}p  {how_many(len(t.entrants), 'bot')}  "
            f"{t.counted}/{t.total_matches} matches counted  created {when}" + ("" if t.rated else "  practice")
        )
    return 0


def _default_name(game: str, players: int) -> str:
    """The name a tournament gets without ``--name`` (``Glaves 3p``)."""
    from cardarena.engine import games

    g = games().get(game)
    return f"{g.name if g is not None else game} {players}p"


def _fields(values: dict[str, Any]) -> str:
    return "  ".join(f"{k}={v}" for k, v in values.items())


def status_lines(t: Tournament) -> list[str]:
    """``tournament status``: the id (and the name unless it is the default ``<Game> <n>p``),
    status, game, players and counted matches; entrants; the time control; the fault policy;
    rated or practice."""
    from dataclasses import asdict

    from cardarena.store.matches import FaultPolicy, TimeControl

    name = f"  {t.name!r}" if t.name and t.name != _default_name(t.game, t.players) else ""
    return [
        f"{printable(t.id)}{name}  [{t.status}]  {t.game}  {how_many(t.players, 'player')}  "
        f"{t.counted}/{t.total_matches} matches counted",
        f"entrants: {printable(', '.join(t.entrants))}  deal sets: {t.deal_sets}",
        f"time control: {_fields({**asdict(TimeControl()), **t.time_control})}",  # empty: the defaults
        f"fault policy: {_fields({**asdict(FaultPolicy()), **t.fault_policy})}",
        "rated: yes (its matches update the bots' ratings)" if t.rated else "rated: no (practice: ratings left alone)",
    ]


def _cancel(args: argparse.Namespace) -> int:
    from cardarena.store.notifications import NotificationStore

    try:
        with _stores(args) as (ts, _, _url):
            status = ts.require(args.id).status
            if not ts.cancel(args.id):
                return _fail(f"tournament {args.id!r} is {status}: nothing to cancel")
            targets = NotificationStore(ts.r).targets(args.id)
    except (TournamentError, RuntimeError) as exc:
        return _fail(str(exc))
    print(f"cancelled {args.id}; its unplayed matches are withdrawn")
    if targets:  # the workers' reconcile announces it (notify.sweep)
        when = "at its next reconcile (CARDARENA_RECONCILE_S, default 15 s)"
        print(f"a worker posts the cancellation to {notify.hosts(targets)} {when}")
    return 0


def _schedules(args: argparse.Namespace) -> int:
    try:
        with _stores(args) as (ts, _, _url):
            infos = [i for i in (ts.schedule_info(s.id) for s in ts.schedules()) if i is not None]
            for i in infos:
                i["notify"] = ts.schedule_targets(i["id"])
    except RuntimeError as exc:
        return _fail(str(exc))
    if args.json:  # of the targets, their hosts only
        shown = [{**i, "notify": [webhook.host(u) for u in i["notify"]]} for i in infos]
        print(json.dumps({"schedules": shown}))
        return 0
    if not infos:
        print("no schedules")
    for i in infos:
        tpl = i["template"]
        who = "all registered bots" if tpl.get("entrants") == "all" else printable(", ".join(tpl.get("entrants") or []))
        when = f"every {i['every']:g}s" if i.get("every") else f"cron {i['cron']!r} (UTC)"
        nxt = _utc(i["next_run"]) + " UTC" if i.get("next_run") is not None else "-"
        name = f"  {tpl['name']!r}" if tpl.get("name") else ""
        game = f"{tpl.get('game')} {tpl.get('players')}p"
        print(f"{printable(i['id'])}{name}  {game}  {when}  next run: {nxt}  entrants: {who}")
        if i.get("last_tournament"):
            print(f"    last run: {i['last_tournament']}")
        if i.get("last_error"):
            print(f"    last error ({_utc(i['last_error_at'])} UTC): {i['last_error']}")
        if i.get("notify"):
            print(f"    each run's end is posted to {notify.hosts(i['notify'])}")
    return 0


def _unschedule(args: argparse.Namespace) -> int:
    try:
        with _stores(args) as (ts, _, _url):
            if not ts.delete_schedule(args.id):
                return _fail(f"unknown schedule {args.id!r}")
    except RuntimeError as exc:
        return _fail(str(exc))
    print(f"schedule {args.id} removed (tournaments it already started are unaffected)")
    return 0


def render_standings(
    snapshot: dict[str, Any], ratings_over: str = "all of the bot's matches of the game (every tournament)"
) -> None:
    """Print a standings snapshot as a table; ``ratings_over``: which matches the ratings count
    (for the caption).  The tournament id and the bot names are shown as written, never read as
    rich markup or ``:emoji:`` codes, and with their non-printable characters escaped
    (:func:`printable`); a value a bot with nothing counted lacks (its mean) as ``-``."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    metric = snapshot.get("metric", "points")
    solitaire = metric == "score"  # solitaires show the win rate where others show places
    table = Table(
        title=Text(
            f"{printable(str(snapshot.get('tournament', '')))} standings "
            f"({how_many(int(snapshot.get('counted', 0)), 'match')} counted)"
        ),
        caption=None
        if solitaire
        else f"rating: OpenSkill ordinal over {ratings_over}, when these standings were computed",
    )
    last = ("win rate",) if solitaire else ("win share", "places", "rating")
    for col in ("#", "bot", f"mean {metric.replace('_', ' ')}/deal set", "95% CI", "sep.", "matches", *last):
        table.add_column(col)
    for row in snapshot["rows"]:
        rating = row.get("rating")
        sep = {True: "yes", False: "no", None: ""}[row.get("separated_from_next")]
        tail: tuple[str, ...]
        if solitaire:
            rate, wins = row.get("win_rate"), row.get("wins", 0)
            tail = (f"{rate:.1%} ({wins}/{wins + row.get('losses', 0)})" if rate is not None else "-",)
        else:
            places = " ".join(f"{k}:{v}" for k, v in sorted(row["places"].items(), key=lambda kv: int(kv[0])))
            share = row.get("win_share")
            tail = (f"{share:.1%}" if share is not None else "-", places, f"{rating['ordinal']:.1f}" if rating else "")
        table.add_row(
            str(row["rank"]),
            Text(printable(row["bot"])),
            _number(row["mean"]),
            f"[{_number(row['ci_low'])}, {_number(row['ci_high'])}]" if _known(row["ci_low"]) else "-",
            sep,
            str(row["matches"]),
            *tail,
        )
    # Piped output (logs, CI) gets room for every column rather than rich's 80-column default.
    Console(width=None if sys.stdout.isatty() else 200).print(table)


def _known(value: Any) -> bool:
    """Whether a standings value is a number (``None`` in a snapshot, ``NaN`` in one stored by an
    earlier version: nothing counted)."""
    return isinstance(value, int | float) and value == value


def _number(value: Any) -> str:
    return f"{value:.3f}" if _known(value) else "-"


def render_crosstable(cross: standings.Crosstable | None, why: str | None) -> None:
    """Print a crosstable (:func:`lifecycle.crosstable_of`) as a text matrix: rows and columns
    in the standings' order (the columns numbered as the rows), each cell the row bot's mean
    difference per deal set against the column bot (``*``: significant) above its
    ahead-behind-level count; ``·`` for a pair that never met.  Names as :func:`render_standings`
    shows them."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    if cross is None:
        print(f"crosstable: {why}")
        return
    if not cross.counted:
        print("crosstable: no results counted yet")
        return
    table = Table(
        title="crosstable: each row against each column, over the matches both played",
        caption=f"cell: the row's mean {cross.metric.replace('_', ' ')} difference per deal set (+: the row did "
        f"better; * significant at 95 %, at least {standings.MIN_DEAL_SETS} deal sets together), then matches "
        "it finished ahead-behind-level; · never met",
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("bot", overflow="fold")
    for n in range(1, len(cross.bots) + 1):
        table.add_column(str(n), justify="right", no_wrap=True)
    for i, bot in enumerate(cross.bots):
        cells = []
        for j in range(len(cross.bots)):
            rec = cross.at(i, j)
            if i == j:
                cells.append("-")
            elif rec is None:
                cells.append("·")
            else:
                mean = "0.00" if abs(rec.mean) < 0.005 else f"{rec.mean:+.2f}"
                cells.append(f"{mean}{'*' if rec.significant else ''}\n{rec.ahead}-{rec.behind}-{rec.level}")
        table.add_row(str(i + 1), Text(printable(bot)), *cells)
    # Piped output gets room for every column (as render_standings does).
    width = None if sys.stdout.isatty() else max(200, 30 + 9 * len(cross.bots))
    Console(width=width).print(table)


def _standings(args: argparse.Namespace) -> int:
    from .export import export_rows, write_standings_csv

    if (args.id is None) == (args.schedule is None):
        return _fail("name a tournament ID, or --schedule SCHEDULE_ID for every finished run of a schedule")
    if args.crosstable and args.csv:
        return _fail("--crosstable has no CSV form: use it alone (a table) or with --json")
    if args.crosstable and args.schedule is not None:
        return _fail("--crosstable is for one tournament: name its ID (a schedule's runs are <schedule>-<due time>)")
    runs: list[tuple[Tournament, dict[str, Any] | None, dict[str, dict[str, int]]]] = []
    cross: standings.Crosstable | None = None
    why: str | None = None
    try:
        with _stores(args) as (ts, _, _url):
            tournaments = [ts.require(args.id)] if args.id is not None else schedule_runs(ts, args.schedule)
            for t in tournaments:
                snap = ts.standings(t.id)
                runs.append((t, snap, lifecycle.snapshot_faults(ts, t.id, snap) if snap is not None else {}))
            if args.crosstable:
                cross, why = lifecycle.crosstable_of(ts, tournaments[0])
    except (TournamentError, RuntimeError) as exc:
        return _fail(str(exc))
    if args.schedule is not None:
        return _schedule_standings(args, runs)
    ((t, snap, faults),) = runs
    extra = {"crosstable": lifecycle.crosstable_report(cross, why)} if args.crosstable else {}
    if snap is None:
        if args.json:
            print(json.dumps({"standings": [], "counted": 0, **extra}))
        elif args.csv:
            write_standings_csv(t.id, t.game, t.players, [], sys.stdout)
        else:
            print("no results counted yet")
        return 0
    rows = export_rows(snap["rows"], t.players, faults)
    if args.json:
        fields = {k: v for k, v in snap.items() if k not in ("rows", lifecycle.FAULTS)}
        print(json.dumps({"standings": rows, **fields, **extra}))
    elif args.csv:
        write_standings_csv(t.id, t.game, t.players, rows, sys.stdout)
    else:
        render_standings(snap)
        for line in standings_fault_lines(rows):
            print(line)
        if args.crosstable:
            render_crosstable(cross, why)
    return 0


def schedule_runs(ts: TournamentStore, schedule_id: str) -> list[Tournament]:
    """Every finished run of the schedule ``schedule_id``, oldest first (also after it was
    removed with ``unschedule``); ``TournamentError`` when there is none."""
    runs = [t for t in ts.list("finished", limit=1_000_000) if t.schedule_id == schedule_id]
    if not runs:
        known = any(s.id == schedule_id for s in ts.schedules())
        raise TournamentError(
            f"schedule {schedule_id!r} has no finished run yet"
            if known
            else f"unknown schedule {schedule_id!r} (no finished run names it; `tournament schedules` lists them)"
        )
    return sorted(runs, key=lambda t: (t.created_at, t.id))


def _schedule_standings(
    args: argparse.Namespace, runs: list[tuple[Tournament, dict[str, Any] | None, dict[str, dict[str, int]]]]
) -> int:
    """``standings --schedule``: the finished runs' standings one after another; ``--csv``
    under one header (each row names its run in ``tournament``), ``--json`` as ``{"schedule",
    "runs": [{"tournament", "standings", ...}]}``."""
    from .export import export_rows, write_standings_csv

    if args.csv:
        for n, (run, snap, faults) in enumerate(runs):
            rows = export_rows(snap["rows"], run.players, faults) if snap is not None else []
            write_standings_csv(run.id, run.game, run.players, rows, sys.stdout, header=n == 0)
    elif args.json:
        out = []
        for run, snap, faults in runs:
            rows = export_rows(snap["rows"], run.players, faults) if snap is not None else []
            rest = {k: v for k, v in (snap or {"counted": 0}).items() if k not in ("rows", lifecycle.FAULTS)}
            out.append({"tournament": run.id, "standings": rows, **rest})
        print(json.dumps({"schedule": args.schedule, "runs": out}))
    else:
        for n, (run, snap, faults) in enumerate(runs):
            if n:
                print()
            if snap is None:
                print(f"{printable(run.id)}: no results counted")
                continue
            render_standings(snap)
            for line in standings_fault_lines(export_rows(snap["rows"], run.players, faults)):
                print(line)
    return 0


def standings_fault_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The lines below the standings table: the bots that never joined any match they were
    counted in (absent: ``standings.row_absent``), then each other bot with strikes, forfeits or
    no-shows, with its counts in this tournament; none when nobody had any.  Names as
    :func:`printable` shows them, in the order people look for them (``name_order``, as ``bot
    list``)."""
    rows = sorted(rows, key=lambda r: name_order(str(r["bot"])))
    absent = [r for r in rows if row_absent(r)]
    faulty = [r for r in rows if r not in absent and any(r.get(f) for f in ("strikes", "forfeits", "no_shows"))]
    lines = []
    if absent:
        names = ", ".join(printable(str(r["bot"])) for r in absent)
        lines.append(f"absent (never joined one of its matches): {names}")
    if faulty:
        lines.append("faults (strikes: time-outs, disconnects, runs of illegal answers, handed-back requests):")
        for r in faulty:
            counts = f"{how_many(r.get('strikes', 0), 'strike')}, forfeited {r.get('forfeits', 0)} of "
            counts += how_many(r["matches"], "match")
            line = f"  {printable(str(r['bot']))}: {counts}"
            if r.get("no_shows"):
                line += f" (never joined {r['no_shows']})"
            lines.append(line)
    return lines


def _prune(args: argparse.Namespace) -> int:
    from cardarena.store import retention

    try:
        days = (
            retention.checked_days(args.older_than, "--older-than")
            if args.older_than is not None
            else retention.retention_days()
        )
        with _stores(args) as (ts, _, _url):
            report = retention.prune(ts.r, older_than_days=days, dry_run=args.dry_run)
    except (ValueError, RuntimeError) as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps(report.to_json()))
        return 0
    for line in prune_lines(report):
        print(line)
    return 0


def prune_lines(report: PruneReport) -> list[str]:
    """``cardarena prune``: what was (or would be) dropped and what was kept."""
    verb = "would drop" if report.dry_run else "dropped"
    out = []
    if report.older_than_days is None:
        out.append(
            "replays: kept for ever (set CARDARENA_REPLAY_RETENTION_DAYS or pass --older-than DAYS to drop old ones)"
        )
    else:
        out.append(
            f"replays of tournaments (and matches) that ended before {_utc(report.cutoff or 0.0)} UTC "
            f"({report.older_than_days:g} days ago): {verb} {report.replays} "
            f"({report.replay_bytes / 1e6:.1f} MB)"
        )
        since = (
            "the first run: every older match"
            if report.resumed_after is None
            else f"those created after {_utc(report.resumed_after)} UTC and those held before"
        )
        out.append(
            f"  {how_many(report.examined, 'match')} examined ({since}); kept: {report.kept_live} of tournaments still "
            f"upcoming or running, {report.kept_recent} that ended later or have not ended; "
            f"{report.never_played} never played (withdrawn: no replay); {report.already_pruned} pruned before"
        )
    st = report.stream
    if not st.groups:
        entries = how_many(st.length, "entry", "entries")
        out.append(f"results stream: {entries}, no consumer group yet: nothing trimmed")
    else:
        entries = how_many(st.length, "entry", "entries")
        out.append(f"results stream: {verb} {st.trimmed} of {entries} (acknowledged by every consumer group)")
    if report.dry_run:
        out.append("dry run: nothing was changed")
    return out


def settings_problem(role: str) -> str | None:
    """What is wrong with the settings ``cardarena worker`` or ``beat`` (``role``) reads from
    its environment, in one line, or ``None``: ``REDIS_URL`` unset, a period that is not a
    number of seconds > 0 (``CARDARENA_TICK_S``, ``CARDARENA_PRUNE_S`` ...) and, for the
    worker, which runs the ``prune`` task, a bad ``CARDARENA_REPLAY_RETENTION_DAYS``, and for
    the notifications it posts a bad ``CARDARENA_PUBLIC_URL`` or ``CARDARENA_NOTIFY_*_S``.  Checked
    before the process starts, so that a typo is one line at deploy time rather than a
    traceback, or a retention that is never applied with one error in the log an hour."""
    try:
        from . import beat, watchdog  # noqa: F401 (their periods are read when imported)
        from .celery_app import redis_url

        redis_url()
        if role == "worker":
            from cardarena.store.retention import retention_days

            retention_days()
            notify.Settings.from_env()  # CARDARENA_PUBLIC_URL, CARDARENA_NOTIFY_*
    except (RuntimeError, ValueError) as exc:
        return str(exc)
    return None


def _worker(args: argparse.Namespace) -> int:
    problem = settings_problem("worker")
    if problem:
        return _fail(problem)
    if not args.no_supervise:
        # Run the Celery worker as a supervised child: it is restarted if it crashes (kombu can
        # die on a Redis connection loss) or if the watchdog ends it (exit status 70).
        import sys

        from cardarena.processes import supervise

        child = [
            sys.executable,
            "-m",
            "cardarena.cli",
            "worker",
            "--no-supervise",
            "--loglevel",
            args.loglevel,
            "--pool",
            args.pool,
            "--concurrency",
            str(args.concurrency),
        ]
        if args.hostname:
            child += ["--hostname", args.hostname]
        return supervise(child, name="celery worker")
    argv = ["worker", f"--loglevel={args.loglevel}", "--pool", args.pool, "-c", str(args.concurrency)]
    if args.hostname:
        argv += ["-n", args.hostname]
    return _run_celery(argv)


def _beat(args: argparse.Namespace) -> int:
    from cardarena.store.keys import prefix

    problem = settings_problem("beat")
    if problem:
        return _fail(problem)
    state = Path(args.state) if args.state else DEFAULT_DATA_DIR / f"celerybeat-{prefix().strip(':') or 'ca'}"
    state.parent.mkdir(parents=True, exist_ok=True)
    if not args.no_supervise:
        # Like the worker, beat runs as a supervised child: restarted if it dies (for example on
        # a Redis connection loss); schedules live in Redis, so a restarted beat resumes them.
        from cardarena.processes import supervise

        child = [
            sys.executable,
            "-m",
            "cardarena.cli",
            "beat",
            "--no-supervise",
            "--loglevel",
            args.loglevel,
            "--state",
            str(state),
        ]
        return supervise(child, name="celery beat")
    return _run_celery(["beat", f"--loglevel={args.loglevel}", "-s", str(state)])


def _run_celery(argv: list[str]) -> int:
    """Run the Celery command ``argv`` on our app in this process; return its exit status.

    The status is what the supervisor reads: a worker that Celery stops after an
    "Unrecoverable error" (kombu's, when Redis goes away) ends with status 1 and is
    restarted.  ``app.start`` and ``app.worker_main`` drop it (they return nothing), so such a
    worker used to exit 0, which the supervisor took for a requested stop."""
    from celery.bin.celery import celery

    code = celery.main(
        args=["-A", "cardarena_tournament.celery_app:app", *argv], prog_name="celery", standalone_mode=False
    )
    if code is None:
        return 0
    return code if isinstance(code, int) else 1
