"""HTML pages: games, matches, the replay viewer, tournaments, standings, bots."""

from __future__ import annotations

import hashlib
from typing import Any

from cardarena.engine import games
from cardarena.engine.cards import is_card_code, label
from flask import Blueprint, Response, abort, current_app, make_response, render_template, request, url_for
from markupsafe import Markup

from . import reads
from .app import sources
from .paging import BadQuery, page_from, text_arg
from .plot import Plot, layout
from .replay_steps import OPEN, ReplayError, is_finished, state_at, transitions, viewer_seats, views
from .sources import MatchFilter, list_matches, match_summary

bp = Blueprint("pages", __name__)


@bp.app_template_test("card")
def _is_card(value: object) -> bool:
    return is_card_code(value)


@bp.app_template_filter("card_label")
def _card_label(code: str) -> str:
    return label(code)


@bp.app_template_test("mapping")
def _is_mapping(value: object) -> bool:
    return isinstance(value, dict)


@bp.app_template_test("sequence_of_mappings")
def _is_rows(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


@bp.app_template_test("list")
def _is_list(value: object) -> bool:
    return isinstance(value, list)


@bp.app_template_filter("columns")
def _columns(rows: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        for k in row:
            seen.setdefault(k, None)
    return list(seen)


@bp.errorhandler(BadQuery)
def _bad_query(exc: BadQuery) -> tuple[str, int]:
    return render_template("error.html", status=400, title="Bad request", message=str(exc)), 400


@bp.errorhandler(reads.Unavailable)
def _unavailable(exc: reads.Unavailable) -> tuple[str, int]:
    return render_template("error.html", status=503, title="Not available", message=str(exc)), 503


@bp.get("/")
def index() -> str:
    """Overview: tournaments and recent matches."""
    rows, _ = list_matches(sources(), MatchFilter(), 0, 10)
    tournaments = reads.tournaments(sources(), limit=10) if sources().tournaments is not None else []
    return render_template("index.html", matches=rows, tournaments=tournaments)


@bp.get("/games")
def game_list() -> str:
    """Every registered game with its player counts and rules summary."""
    return render_template("games.html", games=[reads.game_info(g) for g in games().values()])


@bp.get("/matches")
def match_list() -> str:
    """Matches with filters and pagination."""
    page = page_from(request.args, 25)
    flt = MatchFilter(
        game=text_arg(request.args, "game"),
        tournament=text_arg(request.args, "tournament"),
        bot=text_arg(request.args, "bot"),
    )
    rows, more = list_matches(sources(), flt, page.offset, page.limit)
    args: dict[str, Any] = {
        k: v for k, v in (("game", flt.game), ("tournament", flt.tournament), ("bot", flt.bot)) if v
    }
    prev_url = (
        url_for(".match_list", **args, offset=max(0, page.offset - page.limit), limit=page.limit)
        if page.offset
        else None
    )
    next_url = url_for(".match_list", **args, offset=page.offset + page.limit, limit=page.limit) if more else None
    return render_template(
        "matches.html", matches=rows, flt=flt, games=list(games()), prev_url=prev_url, next_url=next_url
    )


@bp.get("/matches/<match_id>")
def match_page(match_id: str) -> str:
    """A match and, once it is finished, its replay stepped through with the engine."""
    row = match_summary(sources(), match_id)
    if row is None:
        abort(404, "unknown match")
    replay = sources().matches.replay(match_id) if row["status"] == "done" else None
    finished = is_finished(row["status"], replay)
    if replay is None or not finished:
        return render_template("match_pending.html", match=row)
    withheld = reads.replay_withheld(sources(), match_id, row["tournament"])
    if withheld:
        return render_template("match_pending.html", match=row, withheld=withheld)
    pov = request.args.get("pov", "spectator")
    allowed = viewer_seats(int(replay.get("players") or len(replay.get("seats") or [])), finished)
    if pov not in allowed:
        abort(400, f"pov must be one of {', '.join(allowed)}")
    try:
        index = int(request.args.get("step", "0"))
    except ValueError:
        abort(400, "step must be an integer")
    try:
        state, step, last = state_at(replay, index)
        steps = transitions(replay)
    except ReplayError as exc:
        return render_template("error.html", status=422, title="Unreadable replay", message=str(exc)), 422  # type: ignore[return-value]
    shown = views(state, pov, finished)
    viewer = None if pov in ("spectator", OPEN) else int(pov)
    log = []
    for s in steps[max(0, step.index - 11) : step.index + 1]:
        if s.action is None or s.seat is None:
            text = "new deal" if s.index == 0 or steps[s.index].deal != steps[s.index - 1].deal else "chance"
        else:
            text = s.action if pov == OPEN else (state.public_action(viewer, s.seat, s.action) or "(hidden)")
        log.append({"index": s.index, "seat": s.seat, "text": text, "notes": s.annotations})
    return render_template(
        "replay.html",
        match=row,
        replay=replay,
        step=step,
        last=last,
        pov=pov,
        povs=allowed,
        shown=shown,
        log=log,
        result=replay.get("result"),
    )


@bp.get("/tournaments")
def tournament_list() -> str:
    """Tournaments by status (upcoming with their next run), then the recurring schedules."""
    rows = reads.tournaments(sources())
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(str(row.get("status", "unknown")), []).append(row)
    return render_template("tournaments.html", groups=groups, schedules=reads.schedules(sources()))


BAR_WIDTH = 160
RECENT_ON_STANDINGS = 8
"""Recent matches listed under the standings (read in one batch; the list page has more)."""


def _fmt(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _standings_context(tournament_id: str) -> dict[str, Any]:
    tournament = reads.tournament(sources(), tournament_id)
    as_of = reads.rating_as_of(tournament)
    rows = reads.standings(sources(), tournament_id, tournament.get("game"), as_of)
    bounds: list[float] = [v for r in rows for v in (r["ci_low"], r["ci_high"], r["mean"]) if v is not None] + [0.0]
    low, high = min(bounds), max(bounds)
    span = (high - low) or 1.0

    def x(v: float) -> float:
        return float(round(4 + (BAR_WIDTH - 8) * (v - low) / span, 1))

    for r in rows:
        r["win_rate_text"] = "–" if r["win_rate"] is None else f"{100 * r['win_rate']:.1f} %"
        r["points_text"] = _fmt(r["points"], 1)
        r["mean_text"] = _fmt(r["mean"])
        r["rating_text"] = _fmt(r["rating"])
        if r["ci_low"] is not None and r["ci_high"] is not None and r["mean"] is not None:
            r["bar"] = {"x1": x(r["ci_low"]), "w": max(1.0, x(r["ci_high"]) - x(r["ci_low"])), "xm": x(r["mean"])}
            r["ci_text"] = f"[{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}]"
        else:
            r["bar"] = None
            r["ci_text"] = ""
    game = games().get(str(tournament.get("game")))
    return {
        "tournament": tournament,
        "game_name": game.name if game is not None else tournament.get("game"),
        "standings": rows,
        "solitaire": tournament.get("players") == 1,  # shows the win rate column
        "bar_width": BAR_WIDTH,
        "zero_x": x(0.0),
        "finished_matches": tournament.get("counted", 0),
        "rating_as_of_text": reads.when_text(as_of),  # None: current ratings
        "poll_ms": current_app.config["POLL_MS"],
    }


@bp.get("/tournaments/<tournament_id>")
def tournament_page(tournament_id: str) -> str:
    """A tournament's standings (live), rating history and recent matches."""
    ctx = _standings_context(tournament_id)
    standings, etag = _standings_fragment(ctx)
    matches, _ = list_matches(sources(), MatchFilter(tournament=tournament_id), 0, RECENT_ON_STANDINGS)
    # The page carries the fragment's ETag, so the first live poll is a 304 unless a result
    # arrived meanwhile (no needless re-render of the table under the reader's eyes).
    return render_template(
        "tournament.html", matches=matches, standings_html=Markup(standings), standings_etag=etag, **ctx
    )


@bp.get("/tournaments/<tournament_id>/ratings.svg")
def tournament_ratings(tournament_id: str) -> Response:
    """The entrants' rating histories as a server-rendered SVG plot."""
    t = reads.tournament(sources(), tournament_id)
    as_of = reads.rating_as_of(t)
    ended = None if as_of is None else (tournament_id, as_of)  # a finished tournament's plot ends with it
    return _svg(layout(reads.rating_lines(sources(), list(t.get("entrants") or []), str(t.get("game")), ended)))


@bp.get("/bots/<path:name>/ratings/<game_id>.svg")
def bot_ratings(name: str, game_id: str) -> Response:
    """One bot's rating history in one game as an SVG plot."""
    reads.bot(sources(), name)
    return _svg(layout(reads.rating_lines(sources(), [name], game_id)))


def _svg(plot: Plot | None) -> Response:
    response = make_response(render_template("rating_plot.svg", plot=plot))
    response.mimetype = "image/svg+xml"
    response.headers["Cache-Control"] = "no-cache"
    return response


def _standings_fragment(ctx: dict[str, Any]) -> tuple[str, str]:
    """The standings table (the live region's content) and its ETag (quoted, as sent)."""
    body = render_template("_standings.html", **ctx)
    return body, f'"{hashlib.sha256(body.encode()).hexdigest()[:32]}"'


@bp.get("/tournaments/<tournament_id>/standings.part")
def standings_part(tournament_id: str) -> Response:
    """The standings table alone, with an ETag, for live polling."""
    body, etag = _standings_fragment(_standings_context(tournament_id))
    response = make_response(body)
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = "no-cache"
    response.make_conditional(request)
    return response


STAT_NOTES = {
    "matches": "matches played to the end (a no-show plays none)",
    "timeouts": "decisions not answered in time (the server played a default action for the bot)",
    "illegal_actions": "answers refused as illegal (each refused answer counts)",
    "disconnects": "connections lost while the bot was seated in a match",
    "forfeits": "seats given up in a match: too many strikes, a resignation or a no-show",
}
"""What each of a bot's statistics counts (``BotStore`` counters), as the pages say it."""


@bp.get("/bots")
def bot_list() -> str:
    """Registered bots in name order, paged: matches, rated games, whether connected now."""
    page = page_from(request.args, 50)
    rows, more = reads.bots(sources(), page.offset, page.limit)
    rated = reads.rated_games(sources(), [r["name"] for r in rows])
    for row in rows:
        row["rated"] = [{"game": g, "rating": _fmt(v)} for g, v in rated[row["name"]].items()]
    prev_url = url_for(".bot_list", offset=max(0, page.offset - page.limit), limit=page.limit) if page.offset else None
    next_url = url_for(".bot_list", offset=page.offset + page.limit, limit=page.limit) if more else None
    return render_template("bots.html", bots=rows, prev_url=prev_url, next_url=next_url, notes=STAT_NOTES)


@bp.get("/bots/<path:name>")
def bot_page(name: str) -> str:
    """A bot: games, rating, recent matches, time-outs and illegal actions."""
    bot = reads.bot(sources(), name)
    matches, _ = list_matches(sources(), MatchFilter(bot=name), 0, 20)
    stats: dict[str, Any] = bot.get("stats") or {}
    names = [*STAT_NOTES, *sorted(set(stats) - set(STAT_NOTES))]  # a counter added later shows too
    counters = [(k, stats.get(k, 0), STAT_NOTES.get(k, "")) for k in names]
    return render_template("bot.html", bot=bot, matches=matches, games=list(bot.get("ratings", {})), counters=counters)
