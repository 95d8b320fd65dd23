"""The read-only REST API under ``/api/v1`` (JSON). Views decode, call a plain function, encode."""

from __future__ import annotations

import io
from typing import Any

from cardarena.engine import games
from flask import Blueprint, Response, abort, jsonify, request

from . import reads
from .app import error_response, sources
from .openapi import TOURNAMENT_STATUSES as STATUSES
from .openapi import openapi_document
from .paging import BadQuery, count_arg, flag_arg, page_from, text_arg
from .sources import MatchFilter, list_matches, match_summary

bp = Blueprint("api", __name__, url_prefix="/api/v1")


@bp.errorhandler(BadQuery)
def _bad_query(exc: BadQuery) -> Response:
    return error_response(400, str(exc))


@bp.errorhandler(reads.Unavailable)
def _unavailable(exc: reads.Unavailable) -> Response:
    return error_response(503, str(exc))


@bp.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI 3 document of this API."""
    return jsonify(openapi_document())


@bp.get("/health")
def health() -> tuple[Response, int]:
    """Whether the dashboard can read its Redis: 200 ``{"status": "ok"}``, else 503 (a
    readiness probe: the pages need Redis, ``/api/v1/games`` does not)."""
    try:
        sources().client.ping()
    except Exception as exc:
        return jsonify({"status": "unavailable", "error": f"Redis: {exc}"[:200]}), 503
    return jsonify({"status": "ok"}), 200


@bp.get("/games")
def game_list() -> Response:
    """Every registered game."""
    return jsonify({"items": [reads.game_info(g) for g in games().values()]})


@bp.get("/games/<game_id>")
def game_detail(game_id: str) -> Response:
    """One game."""
    game = games().get(game_id)
    if game is None:
        abort(404, f"unknown game {game_id[:60]!r}")
    return jsonify(reads.game_info(game))


@bp.get("/games/<game_id>/leaderboard")
def game_leaderboard(game_id: str) -> Response:
    """A page of the game's leaderboard: its rated bots, best OpenSkill ordinal first
    (``reads.leaderboard``); retired bots only with ``retired=1``; only bots with at least
    ``min_matches`` rated matches if given."""
    page = page_from(request.args)
    retired = flag_arg(request.args, "retired")
    least = count_arg(request.args, "min_matches")
    rows, total = reads.leaderboard(sources(), game_id, page.offset, page.limit, retired=retired, min_matches=least)
    more = len(rows) == page.limit if total is None else page.offset + len(rows) < total
    body = page.envelope(list(rows), more)
    return _with_etag({"game": game_id, "total": total, "retired": retired, "min_matches": least, **body})


def _match_filter() -> MatchFilter:
    return MatchFilter(
        game=text_arg(request.args, "game"),
        tournament=text_arg(request.args, "tournament"),
        bot=text_arg(request.args, "bot"),
    )


@bp.get("/matches")
def match_list() -> Response:
    """Matches, newest first, filtered by game, tournament and bot."""
    page = page_from(request.args)
    found = list_matches(sources(), _match_filter(), page.offset, page.limit)
    return jsonify(page.envelope(list(found.rows), found.more))


@bp.get("/matches/<match_id>/replay")
def match_replay(match_id: str) -> Response:
    """The replay of a finished match (409 while it is not finished)."""
    replay = reads.finished_replay(sources(), match_id)
    return jsonify(replay)


@bp.get("/matches/<match_id>")
def match_detail(match_id: str) -> Response:
    """One match."""
    row = match_summary(sources(), match_id)
    if row is None:
        abort(404, "unknown match")
    return jsonify(row)


@bp.get("/tournaments")
def tournament_list() -> Response:
    """Tournaments, optionally filtered by status (upcoming, running, finished, cancelled)."""
    page = page_from(request.args)
    status = request.args.get("status")
    if status is not None and status not in STATUSES:
        raise BadQuery(f"status must be one of {', '.join(STATUSES)}")
    rows = reads.tournaments(sources(), status, limit=page.limit + 1, offset=page.offset)
    return jsonify(page.envelope(list(rows[: page.limit]), len(rows) > page.limit))


@bp.get("/tournaments/<tournament_id>")
def tournament_detail(tournament_id: str) -> Response:
    """One tournament."""
    return jsonify(reads.tournament(sources(), tournament_id))


@bp.get("/tournaments/<tournament_id>/standings")
def tournament_standings(tournament_id: str) -> Response:
    """A tournament's standings, best first: JSON, or with ``?format=csv`` the CSV of
    ``cardarena tournament standings ID --csv`` (one row per bot, the same columns)."""
    form = request.args.get("format", "json")
    if form not in ("json", "csv"):
        raise BadQuery("format must be json or csv")
    found = reads.tournament(sources(), tournament_id)
    as_of = reads.rating_as_of(found)
    players = int(found.get("players") or 0)
    rows = reads.standings(sources(), tournament_id, found.get("game"), as_of, players=players)
    if form == "csv":
        from cardarena_tournament.export import write_standings_csv

        text = io.StringIO()
        rows = [{**r, "separated_from_next": r["separated"]} for r in rows]
        write_standings_csv(tournament_id, str(found.get("game") or ""), players, rows, text)
        return _conditional(Response(text.getvalue(), mimetype="text/csv"))
    return _with_etag({"tournament": tournament_id, "items": rows, "rating_as_of": as_of})


@bp.get("/tournaments/<tournament_id>/crosstable")
def tournament_crosstable(tournament_id: str) -> Response:
    """A tournament's crosstable: every pair of bots' record against each other, computed
    with its standings snapshot (``lifecycle.crosstable_report``); ``?bot=NAME``: that bot's
    row only (404 if it is not in the table)."""
    from cardarena_tournament.lifecycle import crosstable_report
    from cardarena_tournament.standings import Crosstable

    bot = text_arg(request.args, "bot")
    stored, why = reads.crosstable(sources(), tournament_id)
    cross = Crosstable.from_json(stored) if stored is not None else None
    if bot is not None and cross is not None and bot not in cross.bots:
        abort(404, "no such bot in this tournament's crosstable")
    return _with_etag({"tournament": tournament_id, **crosstable_report(cross, why, bot)})


@bp.get("/tournaments/<tournament_id>/matches")
def tournament_matches(tournament_id: str) -> Response:
    """A tournament's matches."""
    reads.tournament(sources(), tournament_id)
    page = page_from(request.args)
    found = list_matches(sources(), MatchFilter(tournament=tournament_id), page.offset, page.limit)
    return jsonify(page.envelope(list(found.rows), found.more))


@bp.get("/schedules")
def schedule_list() -> Response:
    """Recurring tournaments, soonest next run first (with their last run and last error)."""
    page = page_from(request.args)
    rows = reads.schedules(sources())
    return jsonify(
        page.envelope(list(rows[page.offset : page.offset + page.limit]), len(rows) > page.offset + page.limit)
    )


@bp.get("/schedules/<schedule_id>")
def schedule_detail(schedule_id: str) -> Response:
    """One recurring tournament."""
    return jsonify(reads.schedule(sources(), schedule_id))


@bp.get("/bots")
def bot_list() -> Response:
    """Registered bots (never their tokens)."""
    page = page_from(request.args)
    rows, more = reads.bots(sources(), page.offset, page.limit)
    return jsonify(page.envelope(list(rows), more))


@bp.get("/bots/<path:name>")
def bot_detail(name: str) -> Response:
    """One bot: games, statistics, ratings."""
    return jsonify(reads.bot(sources(), name))


def _with_etag(body: dict[str, Any]) -> Response:
    return _conditional(jsonify(body))


def _conditional(response: Response) -> Response:
    response.add_etag()
    response.make_conditional(request)
    return response
