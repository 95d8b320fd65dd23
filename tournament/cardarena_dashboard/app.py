"""The Flask app factory: configuration, security headers, error pages, the blueprints."""

from __future__ import annotations

import os
from typing import Any

import redis
from cardarena.cliargs import DEFAULT_FAILED_AUTHS_PER_MINUTE
from cardarena.server.authlimit import FailedAuthLimit
from cardarena.store.connection import configured_url
from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from .crosstable_cache import CrosstableCache
from .replay_cache import DEFAULT_MATCHES, DEFAULT_MB, MATCHES_ENV, MB_ENV, ReplayCache, setting
from .result_cache import ResultCache
from .sources import Sources

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
"""The Content-Security-Policy of every response: no inline scripts or styles, nothing remote."""


MAX_BODY_BYTES = 1024 * 1024
"""The largest request body the app reads (``MAX_CONTENT_LENGTH``; larger: 413).  Only the
admin API takes bodies; its largest is a roster of 1,000 bot names of 64 characters, at most
about 780 KB even when every character is sent as a ``\\ud83d\\ude00`` surrogate pair."""


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the dashboard.

    Configuration (``test_config`` overrides the environment):

    * ``REDIS_URL`` — the Redis to read (env ``REDIS_URL``); required.
    * ``ADMIN_TOKEN`` — the admin API's bearer token (env ``CARDARENA_ADMIN_TOKEN``); when
      unset the admin API answers 503 to everyone.
    * ``POLL_MS`` — how often standings pages poll for changes (default 2000).
    * ``MAX_CONTENT_LENGTH`` — the largest request body read (default :data:`MAX_BODY_BYTES`);
      a larger one (by its ``Content-Length``, or once that much of a chunked one was read)
      is answered 413 without reading the rest.
    * ``REPLAY_CACHE_MATCHES`` — replays the replay viewer keeps stepped through (env
      ``CARDARENA_REPLAY_CACHE_MATCHES``, default 64; 0: none), ``REPLAY_CACHE_MB`` — their
      estimated memory at most (env ``CARDARENA_REPLAY_CACHE_MB``, default 64): see
      :mod:`replay_cache`.
    * ``NOTIFY_ALLOW_INTERNAL`` — the internal destinations the admin API accepts as a
      tournament's webhooks (env ``CARDARENA_NOTIFY_ALLOW_INTERNAL``, default none:
      :class:`cardarena_tournament.webhook.AllowList`).
    * ``ADMIN_FAILED_AUTHS_PER_MINUTE`` — wrong admin tokens one client address may send in a
      minute before its admin requests are answered 429 for a minute (default 30, ``cardarena
      dashboard --failed-auths-per-minute``; 0: no limit): :mod:`admin`.
    """
    app = Flask(__name__)
    app.config.from_mapping(
        REDIS_URL=configured_url(),
        ADMIN_TOKEN=os.environ.get("CARDARENA_ADMIN_TOKEN") or None,
        POLL_MS=2000,
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        JSON_SORT_KEYS=False,
        REPLAY_CACHE_MATCHES=setting(MATCHES_ENV, DEFAULT_MATCHES),
        REPLAY_CACHE_MB=setting(MB_ENV, DEFAULT_MB),
        ADMIN_FAILED_AUTHS_PER_MINUTE=DEFAULT_FAILED_AUTHS_PER_MINUTE,
        NOTIFY_ALLOW_INTERNAL=os.environ.get("CARDARENA_NOTIFY_ALLOW_INTERNAL", ""),
    )
    if test_config:
        app.config.from_mapping(test_config)
    url = app.config["REDIS_URL"]
    if not url:
        raise RuntimeError("the dashboard needs REDIS_URL (or start it with `cardarena dashboard`)")
    app.extensions["cardarena_sources"] = found = Sources.from_url(str(url))
    app.extensions["cardarena_replay_cache"] = ReplayCache.from_config(app.config)
    app.extensions["cardarena_result_cache"] = ResultCache()
    app.extensions["cardarena_crosstable_cache"] = CrosstableCache()
    try:  # matches stored by an earlier version join the match indexes (once per Redis)
        indexed = found.index_matches()
        if indexed:
            app.logger.info("indexed %d matches stored before the match indexes existed", indexed)
    except redis.RedisError as exc:  # done by the first filtered match list instead
        app.logger.warning("match indexes not checked at start (Redis: %s)", exc)
    app.json.sort_keys = False  # type: ignore[attr-defined]

    from .admin import LIMIT_EXTENSION, AdminAuthLimit
    from .admin import bp as admin_bp
    from .api import bp as api_bp
    from .metrics import bp as metrics_bp
    from .pages import bp as pages_bp

    app.extensions[LIMIT_EXTENSION] = AdminAuthLimit(FailedAuthLimit(int(app.config["ADMIN_FAILED_AUTHS_PER_MINUTE"])))
    app.register_blueprint(pages_bp)
    app.register_blueprint(api_bp)
    app.register_blueprint(admin_bp)
    app.register_blueprint(metrics_bp)

    app.after_request(_security_headers)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected_error)
    return app


def sources() -> Sources:
    """The repositories of the running app."""
    found: Sources = current_app.extensions["cardarena_sources"]
    return found


def _security_headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    return response


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def error_response(status: int, message: str) -> Response:
    """A JSON error body ``{"error": {"status": ..., "message": ...}}``."""
    response = jsonify({"error": {"status": status, "message": message}})
    response.status_code = status
    return response


def _http_error(exc: HTTPException) -> Any:
    status = exc.code or 500
    if status < 400:  # redirects (a missing trailing slash) are not errors
        return exc.get_response()
    message = exc.description or exc.name
    if status == 413:
        message = f"the request body is over {request.max_content_length} bytes, the most this server reads"
    if _wants_json():
        response = error_response(status, message)
        if status == 405 and exc.get_response().headers.get("Allow"):
            response.headers["Allow"] = exc.get_response().headers["Allow"]
        return response
    return render_template("error.html", status=status, title=exc.name, message=message), status


def _unexpected_error(exc: Exception) -> Response | tuple[str, int]:
    current_app.logger.exception("unexpected error on %s %s", request.method, request.path)
    if _wants_json():
        return error_response(500, "internal error")
    return render_template("error.html", status=500, title="Internal error", message="internal error"), 500
