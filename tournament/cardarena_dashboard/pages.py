"""HTML pages: games, matches, the replay viewer and move list, tournaments, standings, bots, the
API reference."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cardarena.engine import games, no_contest
from cardarena.engine.cards import is_card_code, label
from cardarena.engine.replay import annotation_text
from cardarena.store.retention import pruned_note
from cardarena.think import has_bank, seconds_text
from cardarena_tournament.standings import MIN_DEAL_SETS, Crosstable, PairRecord, row_absent
from flask import Blueprint, Response, abort, current_app, make_response, render_template, request, url_for
from markupsafe import Markup, escape

from . import reads
from .apiref import reference
from .app import sources
from .crosstable_cache import CrosstableCache
from .openapi import openapi_document
from .paging import BadQuery, count_arg, flag_arg, page_from, text_arg
from .plot import NARROW_WIDTH, WIDTH, Sampled, layout
from .replay_cache import ReplayCache
from .replay_steps import OPEN, Move, ReplayError, is_finished, viewer_seats
from .result_cache import ResultCache
from .review import (
    action_steps,
    bot_match_rows,
    by_version,
    final_ranks,
    head_to_head,
    match_faults,
    match_think,
    no_show_seats,
    step_think,
)
from .sources import MatchFilter, list_matches, match_summary

bp = Blueprint("pages", __name__)


@bp.app_template_test("card")
def _is_card(value: object) -> bool:
    return is_card_code(value)


@bp.app_template_filter("card_label")
def _card_label(code: str) -> str:
    return label(code)


@bp.app_template_filter("action_text")
def _action_text(action: str) -> Markup:
    """An action id as a reader sees it: ``play:QH`` as ``play Q♥`` (card codes as suit-coloured
    labels, ``:`` as spaces); the id itself stays in the page (``title``, the log's ``code``)."""
    parts = []
    for token in str(action).split(":"):
        if is_card_code(token):
            parts.append(Markup('<span class="card-text suit-{}">{}</span>').format(token[1], label(token)))
        else:
            parts.append(escape(token))
    return Markup(" ").join(parts)


bp.add_app_template_filter(annotation_text, "annotation_text")
bp.add_app_template_filter(seconds_text, "seconds_text")


@bp.app_template_filter("doc_text")
def _doc_text(text: str) -> Markup:
    """A description of the API document as a reader sees it: escaped, with `backticked` parts
    as ``<code>`` (the document's only markup)."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: shown as it is
        return escape(text)
    code = Markup("<code>{}</code>")
    return Markup("").join(escape(p) if i % 2 == 0 else code.format(p) for i, p in enumerate(parts))


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
    rows = list_matches(sources(), MatchFilter(), 0, 10).rows
    tournaments = reads.tournaments(sources(), limit=10) if sources().tournaments is not None else []
    rated = [reads.game_info(g) for g in games().values() if not g.solitaire]
    return render_template("index.html", matches=rows, tournaments=tournaments, rated_games=rated)


@bp.get("/api")
def api_reference() -> str:
    """The REST API's reference, rendered from its OpenAPI document (served as JSON beside it)."""
    return render_template("api.html", ref=reference(openapi_document()))


@bp.get("/games")
def game_list() -> str:
    """Every registered game with its player counts and rules summary."""
    return render_template("games.html", games=[reads.game_info(g) for g in games().values()])


LEADERBOARD_PER_PAGE = 50
"""Bots per page of a game's leaderboard (``limit`` changes it)."""


@bp.get("/games/<game_id>")
def game_page(game_id: str) -> str:
    """A game's leaderboard: its rated bots ranked by OpenSkill ordinal, a page at a time;
    retired bots left out unless ``retired=1`` (then shown, marked); ``min_matches=N`` shows
    only bots with at least N rated matches, ranked among themselves."""
    game = reads.rated_game(game_id)
    page = page_from(request.args, LEADERBOARD_PER_PAGE)
    retired = flag_arg(request.args, "retired")
    least = count_arg(request.args, "min_matches")
    rows, total = reads.leaderboard(sources(), game_id, page.offset, page.limit, retired=retired, min_matches=least)
    for r in rows:
        r.update({f"{k}_text": _fmt(r[k]) for k in ("ordinal", "mu", "sigma")})
    kept: dict[str, Any] = {"min_matches": least} if least else {}
    shown: dict[str, Any] = {**kept, "retired": 1} if retired else kept
    more = len(rows) == page.limit if total is None else page.offset + len(rows) < total

    def at(offset: int, **args: Any) -> str:
        return url_for(".game_page", game_id=game_id, offset=offset, limit=page.limit, **args)

    return render_template(
        "game.html",
        game=reads.game_info(game),
        rows=rows,
        total=total,
        first=page.offset + 1,
        retired=retired,
        min_matches=least,
        limit=page.limit,
        toggle_url=at(0, **kept) if retired else at(0, retired=1, **kept),
        prev_url=at(max(0, page.offset - page.limit), **shown) if page.offset else None,
        next_url=at(page.offset + page.limit, **shown) if more else None,
    )


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
        "matches.html",
        matches=rows,
        flt=flt,
        games=list(games()),
        prev_url=prev_url,
        next_url=next_url,
    )


LOG_LENGTH = 12
"""Steps in the replay viewer's action log (the move list page has them all)."""


@dataclass(frozen=True)
class _Shown:
    """A replay that may be shown, with the point of view asked for."""

    match: dict[str, Any]
    replay: Mapping[str, Any]
    pov: str
    povs: list[str]


def _version(match: Mapping[str, Any]) -> str:
    """Which stored replay a match has (the replay cache's key, with its id): a replay is
    written once, when the match finishes."""
    return str(match["finished_at"])


def result_cache() -> ResultCache:
    """The running app's cache of finished matches' places (:mod:`result_cache`)."""
    cache: ResultCache = current_app.extensions["cardarena_result_cache"]
    return cache


def replay_cache() -> ReplayCache:
    """The running app's replay cache (:mod:`replay_cache`)."""
    cache: ReplayCache = current_app.extensions["cardarena_replay_cache"]
    return cache


def _shown_replay(match_id: str, *, refuse: bool) -> _Shown | tuple[str, int]:
    """The replay of a match for a replay page, or the page saying why it is not shown: not
    finished, withheld (duplicate deals) or pruned.  ``refuse``: a page that is nothing but the
    replay (the move list) answers those 409, 409 and 410; the match page answers 200 (it shows
    the match's status instead).  An unknown match is 404 and a ``pov`` not offered 400."""
    row = match_summary(sources(), match_id)
    if row is None:
        abort(404, "unknown match")
    replay: Mapping[str, Any] | None = None
    if row["status"] != "done" or row["replay_pruned"]:
        replay_cache().drop(match_id)  # a pruned replay is never served from the cache
    else:
        replay = replay_cache().replay(match_id, _version(row)) or sources().matches.replay(match_id)
    finished = is_finished(row["status"], replay)
    pruned = row["replay_pruned"]
    if replay is None and pruned is None and row["status"] == "done":  # pruned since the row was read?
        pruned = pruned_note(sources().matches.info(match_id))
    if replay is None and pruned:  # the result is kept, with each seat's think times
        spec = sources().matches.spec(match_id)
        banked = spec is not None and spec.time_control.bank_ms > 0  # the replay's time control
        think = match_think(row["result"], row["seats"], None)
        page = render_template("match_pending.html", match=row, pruned=pruned, think=think, banked=banked)
        return page, 410 if refuse else 200
    if replay is None or not finished:
        return render_template("match_pending.html", match=row), 409 if refuse else 200
    withheld = reads.replay_withheld(sources(), match_id, row["tournament"])
    if withheld:
        return render_template("match_pending.html", match=row, withheld=withheld), 409 if refuse else 200
    pov = request.args.get("pov", "spectator")
    allowed = viewer_seats(int(replay.get("players") or len(replay.get("seats") or [])), finished)
    if pov not in allowed:
        abort(400, f"pov must be one of {', '.join(allowed)}")
    return _Shown(row, replay, pov, allowed)


def _unreadable(exc: ReplayError) -> tuple[str, int]:
    return render_template("error.html", status=422, title="Unreadable replay", message=str(exc)), 422


@bp.get("/matches/<match_id>")
def match_page(match_id: str) -> str | tuple[str, int]:
    """A match and, once it is finished, its replay stepped through with the engine."""
    shown = _shown_replay(match_id, refuse=False)
    if not isinstance(shown, _Shown):
        return shown
    row, replay, pov = shown.match, shown.replay, shown.pov
    try:
        index = int(request.args.get("step", "0"))
    except ValueError:
        abort(400, "step must be an integer")
    try:
        at = replay_cache().position(match_id, _version(shown.match), replay, index, pov, log=LOG_LENGTH)
        acted = action_steps(replay)
        faults = match_faults(replay, acted)
        think = match_think(row["result"], replay.get("seats") or row["seats"], acted)
    except ReplayError as exc:
        return _unreadable(exc)
    now = at.situation
    # The step's action as this point of view was told it (the log's last entry is this step):
    # a seat's or the spectator's page must not show another seat's secret choice here either.
    told = at.log[-1].text if pov != OPEN and at.log and at.log[-1].index == at.step.index else None
    absent = no_show_seats(replay)
    return render_template(
        "replay.html",
        match=row,
        replay=replay,
        step=at.step,
        action=at.step.action if told is None else told,
        last=at.last,
        pov=pov,
        povs=shown.povs,
        shown=at.views,
        log=at.log[-LOG_LENGTH:],
        result=replay.get("result"),
        ranks=final_ranks(replay),
        now=now,
        deal_totals=[sum(col) for col in zip(*now.deal_scores, strict=True)],
        deal_start=at.deal_start,
        deals=len(replay.get("deals") or []),
        faults=faults,
        think=think,
        banked=has_bank(replay),
        step_think=step_think(replay, at.step),
        forfeited=set(replay.get("forfeited") or []),
        no_show=absent,
        no_contest=no_contest(len(replay.get("seats") or ()), absent),
        aborted=replay.get("aborted") or "",
        max_actions=(replay.get("fault_policy") or {}).get("max_actions"),
        version_changes=replay.get("version_changes") or [],
    )


@bp.get("/matches/<match_id>/moves")
def match_moves(match_id: str) -> str | tuple[str, int]:
    """Every step of a finished match's replay, grouped by deal, as ``pov`` was told it (the
    rule of the replay viewer's action log: :func:`replay_steps.moves`); each links its step."""
    shown = _shown_replay(match_id, refuse=True)
    if not isinstance(shown, _Shown):
        return shown
    try:
        told = replay_cache().moves(match_id, _version(shown.match), shown.replay, shown.pov)
    except ReplayError as exc:
        return _unreadable(exc)
    by_deal: dict[int, list[Move]] = {}
    for move in told:
        by_deal.setdefault(move.deal, []).append(move)
    return render_template(
        "moves.html",
        match=shown.match,
        replay=shown.replay,
        pov=shown.pov,
        povs=shown.povs,
        deals=[(number, rows, sum(m.seat is not None for m in rows)) for number, rows in by_deal.items()],
        total=sum(m.seat is not None for m in told),
    )


LIVE = ("running", "upcoming")
"""Tournament statuses the tournaments page always lists in full (the others are paged)."""
ENDED_PER_PAGE = 25
"""Finished and cancelled tournaments per page of ``/tournaments`` (``limit`` changes it)."""


@bp.get("/tournaments")
def tournament_list() -> str:
    """Tournaments by status: every running and upcoming one (with its next run), the finished
    and cancelled ones newest first, a page at a time; then the recurring schedules."""
    page = page_from(request.args, ENDED_PER_PAGE)
    live = reads.tournaments(sources(), LIVE)
    ended = reads.tournaments(sources(), reads.ENDED, limit=page.limit + 1, offset=page.offset)
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in [*live, *ended[: page.limit]]:
        groups.setdefault(str(row.get("status", "unknown")), []).append(row)
    prev_url = (
        url_for(".tournament_list", offset=max(0, page.offset - page.limit), limit=page.limit) if page.offset else None
    )
    next_url = (
        url_for(".tournament_list", offset=page.offset + page.limit, limit=page.limit)
        if len(ended) > page.limit
        else None
    )
    return render_template(
        "tournaments.html",
        groups=groups,
        schedules=reads.schedules(sources()),
        prev_url=prev_url,
        next_url=next_url,
        ended_from=page.offset + 1,
        ended_shown=min(len(ended), page.limit),
    )


BAR_WIDTH = 160
RECENT_ON_STANDINGS = 8
"""Recent matches listed under the standings (read in one batch; the list page has more)."""


def _fmt(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _standings_context(tournament_id: str) -> dict[str, Any]:
    tournament = reads.tournament(sources(), tournament_id)
    as_of = reads.rating_as_of(tournament)
    players = tournament.get("players")
    snapshot = reads.standings_snapshot(sources(), tournament_id)  # read once: the rows and the aborted matches
    rows = reads.standings(sources(), tournament_id, tournament.get("game"), as_of, players=players, snapshot=snapshot)
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
        r["absent"] = row_absent(r)  # never joined one of its matches
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
        "aborted": reads.aborted(sources(), tournament_id, snapshot),  # stopped at their action limit: no contests
        "rating_as_of_text": reads.when_text(as_of),  # None: current ratings
        "poll_ms": current_app.config["POLL_MS"],
    }


@bp.get("/tournaments/<tournament_id>")
def tournament_page(tournament_id: str) -> str:
    """A tournament's standings (live), crosstable, rating history and recent matches."""
    ctx = _standings_context(tournament_id)
    standings, etag = _standings_fragment(ctx)
    stored, why = reads.crosstable(sources(), tournament_id)
    cross_etag = _crosstable_etag(stored, why)
    matches = list_matches(sources(), MatchFilter(tournament=tournament_id), 0, RECENT_ON_STANDINGS).rows
    # The page carries the fragments' ETags, so the first live poll is a 304 unless a result
    # arrived meanwhile (no needless re-render of the table under the reader's eyes).
    return render_template(
        "tournament.html",
        matches=matches,
        standings_html=Markup(standings),
        standings_etag=etag,
        crosstable_html=Markup(_crosstable_fragment(tournament_id, stored, why, cross_etag)),
        crosstable_etag=cross_etag,
        crosstable_metric=stored.get("metric") if stored is not None else None,
        min_deal_sets=MIN_DEAL_SETS,
        live=ctx["tournament"].get("status") in LIVE,
        **ctx,
    )


def _crosstable_cell(bot: str, opponent: str, rec: PairRecord | None) -> str:
    """One cell of the crosstable, as HTML: ``bot`` (the row, escaped) against ``opponent`` (the
    column, escaped): its colour (``x-win``, ``x-loss``, ``x-even``, strong with ``x-sig``; ``x-none``
    for a pair that never met), its two lines and its title with every number.  Written here
    rather than in the template: a 40-bot matrix has 1,560 cells, which Jinja renders several
    times slower; the names come escaped and everything else is digits and fixed text."""
    if rec is None:
        return f'<td class="x x-none" title="{bot} and {opponent} never met">·</td>'
    shown = 0.0 if rec.significant else 0.005  # what reads as 0.00 is even, unless significant
    kind = "win" if rec.mean > shown else "loss" if rec.mean < -shown else "even"
    mean = "0.00" if kind == "even" else f"{rec.mean:+.2f}"
    if rec.significant:
        verdict = "significant"
    elif rec.deal_sets < MIN_DEAL_SETS:
        verdict = f"not significant (under {MIN_DEAL_SETS} deal sets)"
    else:
        verdict = "not significant"
    sets = f"{rec.deal_sets} deal set{'' if rec.deal_sets == 1 else 's'}"
    title = (
        f"{bot} v {opponent}: {rec.matches} matches, ahead {rec.ahead}, behind {rec.behind}, level {rec.level}; "
        f"{mean} per deal set, 95 % CI [{rec.ci_low:+.2f}, {rec.ci_high:+.2f}], {sets}: {verdict}"
    )
    strong, star = (" x-sig", "*") if rec.significant else ("", "")
    return (
        f'<td class="x x-{kind}{strong}" title="{title}">{mean}{star}'
        f"<small>{rec.ahead}–{rec.behind}–{rec.level}</small></td>"
    )


def _crosstable_context(cross: Crosstable | None, why: str | None) -> dict[str, Any]:
    """The crosstable fragment's context (``reads.crosstable``): rows in the standings' order,
    each with its cells' HTML (:func:`_crosstable_cell`)."""
    if cross is None:
        return {"reason": why, "rows": [], "counted": 0}
    names = [str(escape(bot)) for bot in cross.bots]
    rows = []
    for i, bot in enumerate(cross.bots):
        cells = [
            f'<td class="x x-self" title="{names[i]} itself"><span aria-hidden="true">—</span></td>'
            if i == j
            else _crosstable_cell(names[i], names[j], cross.at(i, j))
            for j in range(len(names))
        ]
        rows.append({"n": i + 1, "bot": bot, "cells": Markup("".join(cells))})
    return {"reason": None, "rows": rows, "counted": cross.counted}


CROSSTABLE_FRAGMENT = "1"
"""The crosstable fragment's markup version, part of its ETag: change it with
``_crosstable.html`` or :func:`_crosstable_cell`, so that open pages fetch the new markup."""


def _crosstable_etag(stored: Mapping[str, Any] | None, why: str | None) -> str:
    """The crosstable fragment's ETag (quoted), from the stored crosstable (``reads.crosstable``)
    without rendering it.  A crosstable is a function of the counted results (a set that only
    grows, so their number names it) and the bots' order (its bootstrap is seeded), so those,
    with why there is none, name what the fragment shows."""
    shown = [CROSSTABLE_FRAGMENT, why] if stored is None else [CROSSTABLE_FRAGMENT, stored["counted"], stored["bots"]]
    return f'"x-{hashlib.sha256(json.dumps(shown).encode()).hexdigest()[:32]}"'


def crosstable_cache() -> CrosstableCache:
    """The running app's cache of rendered crosstables (:mod:`crosstable_cache`)."""
    cache: CrosstableCache = current_app.extensions["cardarena_crosstable_cache"]
    return cache


def _crosstable_fragment(tournament_id: str, stored: Mapping[str, Any] | None, why: str | None, etag: str) -> str:
    """The crosstable fragment named by ``etag``: rendered once per snapshot and process."""

    def render() -> str:
        cross = Crosstable.from_json(stored) if stored is not None else None
        return render_template("_crosstable.html", **_crosstable_context(cross, why))

    return crosstable_cache().fragment(tournament_id, etag, render)


@bp.get("/tournaments/<tournament_id>/ratings.svg")
def tournament_ratings(tournament_id: str) -> Response:
    """The entrants' rating histories as a server-rendered SVG plot."""
    t = reads.tournament(sources(), tournament_id)
    as_of = reads.rating_as_of(t)
    ended = None if as_of is None else (tournament_id, as_of)  # a finished tournament's plot ends with it
    return _svg(reads.rating_lines(sources(), list(t.get("entrants") or []), str(t.get("game")), ended))


@bp.get("/bots/<path:name>/ratings/<game_id>.svg")
def bot_ratings(name: str, game_id: str) -> Response:
    """One bot's rating history in one game as an SVG plot."""
    reads.bot(sources(), name)
    return _svg(reads.rating_lines(sources(), [name], game_id))


def _svg(lines: Mapping[str, Sampled]) -> Response:
    """The plot of ``lines``; ``?narrow=1``: the phone's layout (``plot.NARROW_WIDTH``)."""
    width = NARROW_WIDTH if flag_arg(request.args, "narrow") else WIDTH
    plot = layout(lines, width=width)
    response = make_response(render_template("rating_plot.svg", plot=plot, width=width))
    response.mimetype = "image/svg+xml"
    response.headers["Cache-Control"] = "no-cache"
    return response


def _standings_fragment(ctx: dict[str, Any]) -> tuple[str, str]:
    """The standings table (the live region's content) and its ETag (quoted, as sent)."""
    body = render_template("_standings.html", **ctx)
    return body, f'"{hashlib.sha256(body.encode()).hexdigest()[:32]}"'


def _polled(body: str, etag: str) -> Response:
    """A live region's content with its ETag: 304 to a poll that has it already."""
    response = make_response(body)
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = "no-cache"
    response.make_conditional(request)
    return response


@bp.get("/tournaments/<tournament_id>/standings.part")
def standings_part(tournament_id: str) -> Response:
    """The standings table alone, with an ETag, for live polling."""
    return _polled(*_standings_fragment(_standings_context(tournament_id)))


@bp.get("/tournaments/<tournament_id>/crosstable.part")
def crosstable_part(tournament_id: str) -> Response:
    """The crosstable alone, with an ETag, for live polling (while the tournament runs); a poll
    that has it already is answered 304 before anything is rendered."""
    stored, why = reads.crosstable(sources(), tournament_id)
    etag = _crosstable_etag(stored, why)
    if request.if_none_match.contains(etag.strip('"')):
        return _polled("", etag)
    return _polled(_crosstable_fragment(tournament_id, stored, why, etag), etag)


STAT_NOTES = {
    "matches": "matches played to the end (a no-show plays none)",
    "timeouts": "decisions not answered in time (the server played a default action for the bot)",
    "illegal_actions": "answers refused as illegal (each refused answer counts)",
    "errors": "decisions the bot handed back unanswered, its code having failed (the server played a default action)",
    "disconnects": "connections lost while the bot was seated in a match",
    "forfeits": "seats given up in a match: too many strikes, a resignation or a no-show",
}
"""What each of a bot's statistics counts (``BotStore`` counters), as the pages say it."""


RECENT_ON_BOT = 20
"""Recent matches listed on a bot's page (its index, newest first; the match list pages on)."""
HEAD_TO_HEAD_MATCHES = 200
"""The bot's most recent matches its page's head-to-head table counts (their places kept in
the :mod:`result_cache` once read: a view reads the records of matches it has not seen)."""


@bp.get("/bots")
def bot_list() -> str:
    """Registered bots in the order people look for their names (``name_order``), paged: matches,
    rated games, whether connected now."""
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
    """A bot: games, rating, recent matches (its seat, place, margin and strikes in each),
    head-to-head against each opponent, time-outs and illegal actions."""
    bot = reads.bot(sources(), name)
    recent = list_matches(sources(), MatchFilter(bot=name), 0, RECENT_ON_BOT)
    ids = sources().matches.listed(0, HEAD_TO_HEAD_MATCHES, bot=name) if recent.more else [r["id"] for r in recent.rows]
    matches = result_cache().rows(sources(), ids, known=recent.rows)
    stats: dict[str, Any] = bot.get("stats") or {}
    names = [*STAT_NOTES, *sorted(set(stats) - set(STAT_NOTES))]  # a counter added later shows too
    counters = [(k, stats.get(k, 0), STAT_NOTES.get(k, "")) for k in names]
    return render_template(
        "bot.html",
        bot=bot,
        matches=bot_match_rows(recent.rows, name),  # whole rows: the cache keeps only part of one
        versions=by_version(bot_match_rows(matches, name)),
        all_matches_url=url_for(".match_list", bot=name) if recent.more else None,
        rivals=head_to_head(matches, name),
        rivals_over=len(matches),
        games=list(bot.get("ratings", {})),
        counters=counters,
    )
