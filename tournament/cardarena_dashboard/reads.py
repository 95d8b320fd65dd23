"""Plain read functions shared by pages and the API: store records in, JSON-able dicts out."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from cardarena.engine import Game, games
from cardarena.store.retention import pruned_note
from cardarena_tournament.formats import deal_set_ids, deal_set_members
from werkzeug.exceptions import BadRequest, Conflict, Gone, NotFound

from .plot import Sampled, kept
from .replay_steps import is_finished
from .sources import Sources, plain


class Unavailable(RuntimeError):
    """A store module this installation does not have (yet)."""


def game_info(game: Game) -> dict[str, Any]:
    """A registered game as the games page and API show it."""
    return {
        "id": game.id,
        "name": game.name,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "summary": game.summary,
        "higher_is_better": game.higher_is_better,
        "solitaire": game.solitaire,
    }


def finished_replay(sources: Sources, match_id: str) -> dict[str, Any]:
    """The stored replay of a finished match; 404 if unknown, 409 if not finished or withheld
    (:func:`replay_withheld`), 410 if the retention policy dropped it (``pruned_note``)."""
    info = sources.matches.info(match_id)
    status = info.get("status")
    if status is None:
        raise NotFound("unknown match")
    replay = sources.matches.replay(match_id) if status == "done" else None
    if replay is None and (pruned := pruned_note(info)):
        raise Gone(pruned)
    if not is_finished(status, replay) or replay is None:
        raise Conflict(f"match is {status}; its replay is shown once it is finished")
    withheld = replay_withheld(sources, match_id, info.get("tournament"))
    if withheld:
        raise Conflict(withheld)
    return replay


def replay_withheld(sources: Sources, match_id: str, tournament_id: Any) -> str | None:
    """Why the replay of a finished match is not shown yet, or ``None``.

    Duplicate deals: every match of a deal set plays the same cards (the other seatings of its
    deal; in a solitaire, every bot's match on it).  While one of them is still to be played,
    the replays of the others would show its cards to any bot reading the dashboard: they are
    withheld until the whole deal set has finished (or been withdrawn), or the tournament has
    ended."""
    store = sources.tournaments
    if not tournament_id or store is None:
        return None
    t = store.get(str(tournament_id))
    if t is None or t.status in ENDED:
        return None
    ids = deal_set_ids(t.id, match_id, t.players, len(t.entrants))  # readable ids (earlier versions)
    if ids is None:
        unit = store.deal_set_of(t.id, match_id)
        if unit is None:
            return None
        ids = deal_set_members(t.id, t.seed, unit, t.players, len(t.entrants))
    waiting = sum(info.get("status") not in ("done", "withdrawn") for info in sources.matches.infos(ids))
    if not waiting:
        return None
    return (
        f"its replay is withheld while tournament {t.id} runs: the same deal is still to be played "
        f"in {waiting} other match(es) of its deal set"
    )


def _tournament_store(sources: Sources) -> Any:
    if sources.tournaments is None:
        raise Unavailable("tournaments are not available in this installation")
    return sources.tournaments


def _bot_store(sources: Sources) -> Any:
    if sources.bots is None:
        raise Unavailable("bots are not available in this installation")
    return sources.bots


def tournaments(
    sources: Sources, status: str | tuple[str, ...] | None = None, *, limit: int = 10_000, offset: int = 0
) -> list[dict[str, Any]]:
    """Tournaments (optionally of one status, or of any of several), newest first, from the
    ``offset``-th, at most ``limit``, each with its next scheduled run; only those records are
    read."""
    store = _tournament_store(sources)
    try:
        found = store.list(status, limit=limit, offset=offset)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    next_runs: dict[str, float | None] = {}  # a schedule's runs share its next run: read it once
    return [_with_next_run(store, plain(t), next_runs) for t in found]


def _with_next_run(store: Any, row: dict[str, Any], known: dict[str, float | None] | None = None) -> dict[str, Any]:
    """The row with ``next_run`` (of its schedule) and the ``*_text`` (UTC) of its times; its
    ``seed`` only once it has ended (every deal follows from the seed: never while its bots,
    which can read the dashboard, still play)."""
    if row.get("status") not in ENDED:
        row["seed"] = None
    sid = row.get("schedule_id")
    known = {} if known is None else known
    if sid and sid not in known:
        known[sid] = store.next_run(sid)
    when = known[sid] if sid else None
    row["next_run"] = when
    row["next_run_text"] = _when(when) if when else None
    for name in ("created_at", "started_at", "finished_at"):
        row[f"{name}_text"] = when_text(row.get(name))
    return row


def _when(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")


def when_text(stamp: Any) -> str | None:
    """A unix time as ``2026-03-01 14:05 UTC``; ``None`` for a missing (or zero) time."""
    value = _float(stamp)
    return _when(value) if value else None


ALL_BOTS = "all"
"""A schedule template's ``entrants`` when every registered bot (at run time) takes part."""


def schedules(sources: Sources) -> list[dict[str, Any]]:
    """Every recurring schedule (:func:`schedule` rows), soonest next run first."""
    store = _tournament_store(sources)
    rows = [row for s in store.schedules() if (row := _schedule_row(store, s.id)) is not None]
    return sorted(rows, key=lambda r: (r["next_run"] is None, r["next_run"] or 0.0, r["id"]))


def schedule(sources: Sources, schedule_id: str) -> dict[str, Any]:
    """One recurring schedule; 404 if unknown.

    ``TournamentStore.schedule_info`` (``id``, ``template``, ``cron``, ``every``,
    ``created_at``, ``enabled``, ``next_run``, ``last_run``, ``last_tournament``,
    ``last_error``, ``last_error_at``) plus readable texts (``*_text``, UTC).
    ``last_tournament`` is ``null`` unless that run's tournament exists (a run that could not
    be created has ``last_error`` instead).
    """
    row = _schedule_row(_tournament_store(sources), schedule_id)
    if row is None:
        raise NotFound("unknown schedule")
    return row


def _schedule_row(store: Any, schedule_id: str) -> dict[str, Any] | None:
    info = store.schedule_info(schedule_id)
    if info is None:
        return None
    row: dict[str, Any] = plain(info)
    found = row.get("template")
    template: dict[str, Any] = found if isinstance(found, dict) else {}
    row["template"] = template
    last = row.get("last_tournament")
    if last and store.get(last) is None:
        row["last_tournament"] = None
    entrants = template.get("entrants")
    if entrants == ALL_BOTS:
        row["entrants_text"] = "all registered bots"
    elif isinstance(entrants, list):
        row["entrants_text"] = ", ".join(map(str, entrants))
    else:
        row["entrants_text"] = "–"
    if row.get("cron"):
        row["timing_text"] = f"cron {row['cron']} (UTC)"
    elif row.get("every"):
        row["timing_text"] = f"every {_duration(float(row['every']))}"
    else:
        row["timing_text"] = "–"
    for name in ("next_run", "last_run", "last_error_at"):
        stamp = row.get(name)
        row[f"{name}_text"] = _when(float(stamp)) if isinstance(stamp, int | float) else None
    return row


def _duration(seconds: float) -> str:
    """``90`` → ``1m 30s``, ``3600`` → ``1h``, ``86400`` → ``1d``."""
    left = round(seconds)
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if left >= size:
            parts.append(f"{left // size}{unit}")
            left %= size
    return " ".join(parts) or f"{seconds:g}s"


def tournament(sources: Sources, tournament_id: str) -> dict[str, Any]:
    """One tournament; 404 if unknown."""
    store = _tournament_store(sources)
    found = store.get(tournament_id)
    if found is None:
        raise NotFound("unknown tournament")
    return _with_next_run(store, plain(found))


def _first(row: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if row.get(name) is not None:
            return row[name]
    return None


def _float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if value == value and abs(value) != float("inf") else None
    if isinstance(value, Mapping):
        return _float(_first(value, "ordinal", "value", "mu"))
    return None


def standing_row(row: Mapping[str, Any], position: int) -> dict[str, Any]:
    """One standings row in the dashboard's shape (tolerant of the snapshot's field names)."""
    ci = _first(row, "ci", "ci95", "interval")
    low = _float(_first(row, "ci_low", "low", "lower"))
    high = _float(_first(row, "ci_high", "high", "upper"))
    if isinstance(ci, list | tuple) and len(ci) == 2:
        low, high = _float(ci[0]), _float(ci[1])
    elif isinstance(ci, Mapping):
        low, high = _float(_first(ci, "low", "lower")), _float(_first(ci, "high", "upper"))
    separated = _first(row, "separated", "separated_from_next", "separated_next")
    return {
        "rank": int(_first(row, "rank", "place") or position),
        "bot": str(_first(row, "bot", "name", "entrant") or "?"),
        "points": _float(_first(row, "points", "total", "score")),
        "mean": _float(_first(row, "mean", "mean_per_deal_set", "mean_score")),
        "ci_low": low,
        "ci_high": high,
        "separated": bool(separated) if separated is not None else None,
        "rating": _float(_first(row, "rating", "ordinal")),
        "matches": _first(row, "matches", "played", "deal_sets"),
        "win_rate": _float(row.get("win_rate")),
        "win_share": _float(row.get("win_share")),
    }


ENDED = ("finished", "cancelled")
"""Tournament statuses whose page shows ratings as they stood at the end (:func:`rating_as_of`)."""


def rating_as_of(tournament: Mapping[str, Any]) -> float | None:
    """When the ratings on a tournament's page (standings and plot) are taken: its end
    (``finished_at``) once it is finished or cancelled, so that the page stays as it was;
    ``None`` (now: the bot's current rating) while it is upcoming or running."""
    if tournament.get("status") in ENDED:
        return _float(tournament.get("finished_at")) or None
    return None


def standings(
    sources: Sources,
    tournament_id: str,
    game: str | None = None,
    as_of: float | None = None,
    players: int | None = None,
    snapshot: Any = None,
) -> list[dict[str, Any]]:
    """A tournament's standings rows, best first (empty before the first counted result).
    ``snapshot``: its standings snapshot as :func:`standings_snapshot` read it (else read here).

    ``rating`` is the bot's OpenSkill ordinal in ``game`` over all of its rated matches: the
    current one (the ratings store the bot page reads) when ``as_of`` is ``None``, else the one
    it had at ``as_of`` (the tournament's end: :func:`rating_as_of`), the same value the
    tournament's rating plot ends on.  The snapshot's own rating (taken whenever the standings
    were last computed) is not shown: it would disagree with both.

    Given the tournament's ``players`` (the API, not the page), each row also has what
    ``tournament standings --json`` shows: ``deal_sets``, ``mean_score``, ``places``, the
    win/draw/loss counts where ``players`` defines them (``cardarena_tournament.export``), the
    bot's ``strikes``, ``forfeits`` and ``no_shows`` in this tournament (counted with the
    snapshot: ``lifecycle.snapshot_faults``) and whether it is ``absent`` (joined none of its
    matches: ``standings.row_absent``).
    """
    store = _tournament_store(sources)
    if snapshot is None:
        snapshot = standings_snapshot(sources, tournament_id)
    if snapshot is None:
        return []
    rows: Any = snapshot
    if isinstance(snapshot, Mapping):
        rows = _first(snapshot, "rows", "standings", "entries", "items", "table") or []
    if not isinstance(rows, list):
        return []
    raw = [r for r in rows if isinstance(r, Mapping)]
    out = [standing_row(r, n + 1) for n, r in enumerate(raw)]
    if players is not None:
        from cardarena_tournament.export import ALL_RECORD_FIELDS, export_rows
        from cardarena_tournament.lifecycle import snapshot_faults

        fields = ("deal_sets", "mean_score", "places", *ALL_RECORD_FIELDS, "matches", "absent")
        picked = [{"bot": r["bot"], **{k: row[k] for k in fields if k in row}} for r, row in zip(out, raw, strict=True)]
        faults = snapshot_faults(store, tournament_id, snapshot if isinstance(snapshot, dict) else {})
        for r, extra in zip(out, export_rows(picked, players, faults), strict=True):
            r.update(extra)
            r["mean_score"] = _float(r.get("mean_score"))
    if not game:
        return out
    if as_of is None:
        current = store.ratings(game)
        for r in out:
            r["rating"] = _float(current.get(r["bot"]))
    else:
        at_end = ratings_at_end(sources, [r["bot"] for r in out], game, (tournament_id, as_of))
        for r in out:
            r["rating"] = at_end.get(r["bot"])
    return out


def standings_snapshot(sources: Sources, tournament_id: str) -> Any:
    """A tournament's standings snapshot as stored (``None`` before the first counted result):
    one GET, for a page that shows both :func:`standings` and :func:`aborted`."""
    return plain(_tournament_store(sources).standings(tournament_id))


def aborted(sources: Sources, tournament_id: str, snapshot: Any = None) -> dict[str, str]:
    """The tournament's counted matches that the service stopped at their action limit, with
    why (``action_limit``), as its standings snapshot lists them (``lifecycle.aborted_matches``;
    empty before the first snapshot and for one stored before the list).  ``snapshot``: as
    :func:`standings_snapshot` read it (else read here)."""
    if snapshot is None:
        snapshot = standings_snapshot(sources, tournament_id)
    found = snapshot.get("aborted") if isinstance(snapshot, Mapping) else None
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, Mapping) else {}


def crosstable(sources: Sources, tournament_id: str) -> tuple[dict[str, Any] | None, str | None]:
    """A tournament's crosstable in its stored form (``Crosstable.to_json``), as stored with its
    standings snapshot (``lifecycle.stored_crosstable``), or ``None`` and why there is none (a
    solitaire, not computed yet); 404 if the tournament is unknown."""
    from cardarena_tournament.lifecycle import stored_crosstable

    store = _tournament_store(sources)
    found = store.get(tournament_id)
    if found is None:
        raise NotFound("unknown tournament")
    return stored_crosstable(store, found)


def _value(point: Mapping[str, Any]) -> float | None:
    return _float(_first(point, "ordinal", "rating", "mu"))


def _history_ends(store: Any, bots: list[str], game: str, ended: tuple[str, float] | None) -> dict[str, int]:
    """How many points of each bot's history count: all of them, or (``ended=(tournament id,
    t)``) those up to that tournament's end."""
    if ended is None:
        lengths: dict[str, int] = store.rating_lengths(game, bots)
        return lengths
    tid, t = ended
    marks: dict[str, int] | None = store.rating_end(tid)
    if marks is not None:  # noted when it finished or was cancelled
        return {b: marks.get(b, 0) for b in bots}
    # Ended before the end was noted (an earlier version): read the whole history and keep the
    # points up to the later of the last one at or before ``t`` and the last one of the
    # tournament's own matches (so a clock difference between workers cannot drop its last one).
    own = f"{tid}:"
    out = {}
    for b in bots:
        end = 0
        for n, p in enumerate(store.rating_history(b, game)):
            stamp = _float(p.get("t"))
            if (stamp is not None and stamp <= t) or str(p.get("match_id", "")).startswith(own):
                end = n + 1
        out[b] = end
    return out


def rating_lines(
    sources: Sources, bots: list[str], game: str, ended: tuple[str, float] | None = None
) -> dict[str, Sampled]:
    """Each bot's rating (OpenSkill ordinal) after each rated match of ``game``, as plot lines:
    the points a plot draws (:func:`~.plot.kept`, about :data:`~.plot.MAX_POINTS`), read
    without the rest of the history, which grows with every match the bot plays.

    ``ended=(tournament id, finished_at)``: only up to the end of that tournament (where each
    history stood when it finished or was cancelled: ``TournamentStore.rating_end``)."""
    store = sources.tournaments
    if store is None or not bots:
        return {}
    ends = _history_ends(store, bots, game, ended)
    wanted = {b: kept(n) for b, n in ends.items()}
    got = store.rating_points(game, wanted)
    return {
        b: Sampled(
            ends[b],
            [(i, v) for i, p in zip(wanted[b], got[b], strict=True) if p is not None and (v := _value(p)) is not None],
        )
        for b in bots
    }


def ratings_at_end(sources: Sources, bots: list[str], game: str, ended: tuple[str, float]) -> dict[str, float | None]:
    """Each bot's rating when the tournament ``ended=(tournament id, finished_at)`` ended: the last
    point of its history up to then (:func:`rating_lines`), read alone; ``None`` if it had none."""
    store = sources.tournaments
    if store is None or not bots:
        return {}
    ends = _history_ends(store, bots, game, ended)
    got = store.rating_points(game, {b: [n - 1] for b, n in ends.items() if n > 0})
    out: dict[str, float | None] = dict.fromkeys(bots)
    for b, points in got.items():
        if points and points[-1] is not None:
            out[b] = _value(points[-1])
    return out


def bots(sources: Sources, offset: int = 0, limit: int | None = None) -> tuple[list[dict[str, Any]], bool]:
    """A page of registered bots in the order people look for them (``name_order``: case,
    accents and punctuation aside, numbers by value), public fields only, with ``connected``,
    and whether more follow; only the page's records are read."""
    store = _bot_store(sources)
    names = store.listed()
    page = names[offset:] if limit is None else names[offset : offset + limit]
    found = [b for b in (store.get(n) for n in page) if b is not None]
    online = connected_bots(sources)
    rows = []
    for b in found:
        row = _public_bot(plain(b))
        row["connected"] = None if online is None else row["name"] in online
        rows.append(row)
    return rows, limit is not None and len(names) > offset + limit


def connected_bots(sources: Sources) -> set[str] | None:
    """Bots connected to a live service instance now (``None`` without the presence store)."""
    if sources.presence is None:
        return None
    return {bot for _, here in sources.presence.snapshot().values() for bot in here}


def rated_games(sources: Sources, names: list[str]) -> dict[str, dict[str, float | None]]:
    """Per bot in ``names``: game id -> current rating (OpenSkill ordinal) in each game it is rated in.

    One ratings read per game, whatever the number of bots."""
    out: dict[str, dict[str, float | None]] = {n: {} for n in names}
    if sources.tournaments is None or not names:
        return out
    for game_id in games():
        current = sources.tournaments.ratings(game_id)
        for name in names:
            if name in current:
                out[name][game_id] = _float(current[name])
    return out


def rated_game(game_id: str) -> Game:
    """A registered game, for its leaderboard; 404 if unknown."""
    game = games().get(game_id)
    if game is None:
        raise NotFound(f"unknown game {game_id[:60]!r}")
    return game


def leaderboard(
    sources: Sources, game_id: str, offset: int, limit: int, *, retired: bool = False, min_matches: int = 0
) -> tuple[list[dict[str, Any]], int | None]:
    """A page of the bots rated in ``game_id``, best OpenSkill ordinal first (equal ordinals
    share a rank: 1, 1, 3), and how many bots the whole board has; 404 for an unknown game.

    Retired bots (``BotStore.retire``) are left out, and not counted in the ranks, unless
    ``retired`` (then they are ranked with the others and marked ``retired``).  Each row:
    ``rank``, ``bot``, ``ordinal``, ``mu``, ``sigma``, ``matches`` (rated matches),
    ``last_match_id`` and ``last_rated_at`` (the last point of its rating history) with its
    text, ``retired``.  Two round trips per page, whatever the number of rated bots
    (``TournamentStore.leaderboard``, then the last history points of the page).

    ``min_matches``: only bots with at least that many rated matches, ranked among those shown;
    the index is then read in batches until the page is full (at most
    ``TournamentStore.LEADERBOARD_SCAN`` bots), and the total is ``None`` unless that reading
    reached the end of the board."""
    rated_game(game_id)
    store = _tournament_store(sources)
    bots = sources.bots
    found, total = store.leaderboard(
        game_id,
        offset,
        limit,
        leave_out=None if retired or bots is None else bots.RETIRED,
        min_matches=min_matches,
    )
    gone = set(bots.retired()) if retired and bots is not None else set()
    last = store.rating_points(game_id, {r["bot"]: [-1] for r in found})
    rows = []
    for r in found:
        point = (last.get(r["bot"]) or [None])[0] or {}
        at = _float(point.get("t"))
        rows.append(
            {
                "rank": r["rank"],
                "bot": r["bot"],
                "ordinal": _float(r.get("ordinal")),
                "mu": _float(r.get("mu")),
                "sigma": _float(r.get("sigma")),
                "matches": int(_float(r.get("matches")) or 0),
                "last_match_id": point.get("match_id"),
                "last_rated_at": at,
                "last_rated_at_text": when_text(at),
                "retired": r["bot"] in gone,
            }
        )
    return rows, total


def bot(sources: Sources, name: str) -> dict[str, Any]:
    """One bot's public record and statistics; 404 if unknown."""
    found = _bot_store(sources).get(name)
    if found is None:
        raise NotFound("unknown bot")
    row = _public_bot(plain(found))
    online = connected_bots(sources)
    row["connected"] = None if online is None else name in online
    ratings: dict[str, Any] = {}
    if sources.tournaments is not None:
        for game_id in games():
            current = sources.tournaments.ratings(game_id).get(name)
            if current is not None:
                ratings[game_id] = current
    row["ratings"] = ratings
    return row


def _public_bot(row: dict[str, Any]) -> dict[str, Any]:
    public = {k: v for k, v in row.items() if "token" not in k and "hash" not in k and "secret" not in k}
    public["created_at_text"] = when_text(public.get("created_at"))  # registered (UTC)
    return public
