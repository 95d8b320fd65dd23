"""The admin API (``/api/v1/admin``): the only way the dashboard changes anything.

Every request needs ``Authorization: Bearer <CARDARENA_ADMIN_TOKEN>``; the token is compared
with :func:`hmac.compare_digest` and never logged or echoed.  Without a configured token the
admin API is closed (503).

Wrong tokens are limited per client address (``ADMIN_FAILED_AUTHS_PER_MINUTE``, ``cardarena
dashboard --failed-auths-per-minute``, the gRPC service's limiter:
:mod:`cardarena.server.authlimit`): at the limit the address's admin requests are answered 429
with ``Retry-After`` for a minute, before their token is compared (the right one too).
"""

from __future__ import annotations

import hmac
import logging
import math
import threading
from dataclasses import dataclass, field
from typing import Any

from cardarena.server.authlimit import FailedAuthLimit, host_address, too_many_failures
from cardarena.store.bots import UnknownBot
from flask import Blueprint, Response, abort, current_app, jsonify, request

from . import reads
from .app import error_response, sources

bp = Blueprint("admin", __name__, url_prefix="/api/v1/admin")
log = logging.getLogger(__name__)

LIMIT_EXTENSION = "cardarena_admin_auth_limit"
"""The key of the app's :class:`AdminAuthLimit` in its ``extensions``."""


@dataclass
class AdminAuthLimit:
    """Wrong admin tokens per client address in this process (:class:`FailedAuthLimit`, used
    from the server's threads under ``lock``), and the requests refused for them."""

    limit: FailedAuthLimit
    lock: threading.Lock = field(default_factory=threading.Lock)
    failures: int = 0
    """Requests answered 401 (a missing or wrong token) since the app was made
    (``cardarena_dashboard_admin_auth_failures_total``)."""
    refused: int = 0
    """Requests answered 429 since the app was made (``cardarena_dashboard_admin_auth_refused_total``)."""

    def refused_for(self, address: str) -> float | None:
        """Seconds left of ``address``'s cool-down (counted as a refusal), else ``None``."""
        with self.lock:
            left = self.limit.refused_for(address, "")  # no token is known: the right one waits too
            if left is not None:
                self.refused += 1
        return left

    def failed(self, address: str) -> None:
        """Count a wrong token from ``address``; the one that starts its cool-down is logged."""
        with self.lock:
            self.failures += 1
            starts = self.limit.failed(address)
        if starts:
            fields = {"peer": address, "limit": self.limit.per_minute, "for_s": self.limit.cooldown_s}
            log.warning("admin_auth_failures_refused", extra={"fields": fields})


@bp.before_request
def _require_token() -> Response | None:
    expected = current_app.config.get("ADMIN_TOKEN")
    if not expected:
        return error_response(503, "the admin API is disabled (set CARDARENA_ADMIN_TOKEN)")
    limits: AdminAuthLimit = current_app.extensions[LIMIT_EXTENSION]
    address = host_address(request.remote_addr or "unknown")  # behind a proxy: the proxy's, for everyone
    left = limits.refused_for(address)
    if left is not None:
        response = error_response(429, too_many_failures(address, limits.limit.per_minute, left, admin=True))
        response.headers["Retry-After"] = str(max(1, math.ceil(left)))
        return response
    header = request.headers.get("Authorization", "")
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), str(expected).encode()):
        limits.failed(address)
        response = error_response(401, "missing or wrong admin token")
        response.headers["WWW-Authenticate"] = 'Bearer realm="cardarena-admin"'
        return response
    return None


@bp.errorhandler(reads.Unavailable)
def _unavailable(exc: reads.Unavailable) -> Response:
    return error_response(503, str(exc))


@bp.errorhandler(ValueError)
def _bad_value(exc: ValueError) -> Response:
    return error_response(400, str(exc)[:500])


@bp.errorhandler(UnknownBot)
def _unknown_bot(exc: UnknownBot) -> Response:
    """404 naming the registered bot it was probably meant to be (``BotStore.unknown``), for
    every admin call that names a bot."""
    return error_response(404, str(exc)[:500])


def _body() -> dict[str, Any]:
    if not request.is_json:  # e.g. curl -d without -H: a JSON text sent as a form
        abort(400, "the body must be a JSON object, sent with Content-Type: application/json")
    limit = request.max_content_length  # a larger Content-Length is answered 413 by werkzeug
    if request.content_length is None and limit is not None and len(request.get_data()) >= limit:
        abort(413)  # chunked: werkzeug stops reading at the limit, and the JSON would seem cut short
    try:
        data = request.get_json(silent=True)
    except RecursionError:  # nested deeper than the JSON parser goes: not a definition either
        data = None
    if not isinstance(data, dict):
        abort(400, "the body must be a JSON object")
    return data


def _text(data: dict[str, Any], name: str, *, required: bool = True, max_len: int = 64) -> str | None:
    value = data.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > max_len:
        abort(400, f"{name} must be a non-empty string of at most {max_len} characters")
    return value


MAX_ROSTER = 1000
"""Most names one ``{"names": [...]}`` registration may list."""


@bp.post("/bots")
def register_bot() -> tuple[Response, int]:
    """Register a bot (``{"name": ...}``; the answer carries its token, shown this once), or a
    roster (``{"names": [...], "skip_registered": false}``), as ``cardarena bot register A B C``
    does: every name is checked first and nothing is registered if one is bad or repeated
    (400) or, without ``skip_registered``, already registered (409)."""
    data = _body()
    store = sources().bots
    if store is None:
        raise reads.Unavailable("bots are not available in this installation")
    if "names" in data:
        return _register_roster(store, data)
    from cardarena.store.bots import BotExists

    name = str(_text(data, "name"))
    try:
        token = store.register(name)  # raises a ValueError subclass for a bad or look-alike name -> 400
    except BotExists:  # registered before, or meanwhile by another request
        abort(409, "a bot with this name is already registered")
    current_app.logger.info("admin: registered a bot")
    return jsonify({"bot": reads.bot(sources(), name), "token": token}), 201


def _register_roster(store: Any, data: dict[str, Any]) -> tuple[Response, int]:
    from cardarena.store.bots import RosterRefused

    names, skip = data["names"], data.get("skip_registered", False)
    if set(data) - {"names", "skip_registered"}:
        abort(400, "a roster registration has the fields names and skip_registered")
    if not isinstance(names, list) or not names or len(names) > MAX_ROSTER:
        abort(400, f"names must be a list of 1 to {MAX_ROSTER} bot names")
    if not all(isinstance(n, str) for n in names) or not isinstance(skip, bool):
        abort(400, "names must hold strings and skip_registered must be true or false")
    try:
        issued, taken = store.register_roster(names, skip_registered=skip)
    except RosterRefused as exc:
        abort(409 if exc.taken else 400, f"nothing was registered: {exc}"[:500])
    current_app.logger.info("admin: registered %d bots", len(issued))
    return jsonify({"bots": [{"name": n, "token": t} for n, t in issued], "skipped": taken}), 201


@bp.post("/bots/<path:name>/token")
def replace_token(name: str) -> Response:
    """Replace a bot's token (a lost or leaked one): the answer carries the new one, once; the
    old one stops working and the services end the sessions open with it; 404 for an unknown
    bot, with the registered name it was probably meant to be."""
    store = sources().bots
    if store is None:
        raise reads.Unavailable("bots are not available in this installation")
    token = store.rotate(name)
    current_app.logger.info("admin: replaced a bot's token")
    return jsonify({"bot": reads.bot(sources(), name), "token": token})


@bp.delete("/bots/<path:name>")
def delete_bot(name: str) -> Response:
    """Delete a bot registered by mistake, which never played (``cardarena bot delete``): its
    token stops working and the name can be registered again; 409 for a bot with a history
    (retire it), 404 for an unknown one (with the registered name it was probably meant to be)."""
    from cardarena.engine import games
    from cardarena.store.bots import BotHasHistory

    store = sources().bots
    if store is None:
        raise reads.Unavailable("bots are not available in this installation")
    try:
        store.delete(name, games=list(games()))
    except BotHasHistory as exc:
        abort(409, str(exc))
    current_app.logger.info("admin: deleted a bot that never played")
    return jsonify({"deleted": name})


TOURNAMENT_FIELDS = {
    "id": str,
    "name": str,
    "game": str,
    "players": int,
    "entrants": list,
    "deal_sets": int,
    "format": str,
    "seed": str,
    "options": dict,
    "time_control": dict,
    "fault_policy": dict,
    "rated": bool,
    "notify": list,
}
"""Fields a tournament definition may have, with their JSON types (``rated``: false for a
practice tournament, which leaves the ratings alone; default true; ``notify``: webhook URLs
told when it ends, kept apart from the tournament and never shown)."""
REQUIRED = ("id", "game", "players", "entrants", "deal_sets")


def tournament_from(data: dict[str, Any]) -> Any:
    """Check a tournament definition; raises ``ValueError`` (-> 400) naming the problem."""
    from dataclasses import asdict

    from cardarena.engine import get_game
    from cardarena.store.matches import FaultPolicy, TimeControl
    from cardarena.store.tournaments import Tournament, tournament_id_problem, tournament_name_problem

    unknown = sorted(set(data) - set(TOURNAMENT_FIELDS))
    if unknown:
        raise ValueError(f"unknown field(s): {', '.join(unknown)[:200]}; known: {', '.join(TOURNAMENT_FIELDS)}")
    missing = [f for f in REQUIRED if f not in data]
    if missing:
        raise ValueError(f"missing field(s): {', '.join(missing)}")
    for name, kind in TOURNAMENT_FIELDS.items():
        if name in data and (not isinstance(data[name], kind) or (kind is not bool and isinstance(data[name], bool))):
            raise ValueError(
                f"{name} must be a JSON "
                + kind.__name__.replace("str", "string").replace("dict", "object").replace("bool", "boolean")
            )
    tid = data["id"]
    if tournament_id_problem(tid) or len(tid) > 64 or not tid.isprintable():
        raise ValueError("id must be 1-64 printable characters without ':' or '/', and not '.' or '..'")
    name_problem = tournament_name_problem(data.get("name", ""))
    if name_problem:
        raise ValueError(name_problem.replace("a tournament name", "name", 1))
    if data.get("format", "auto") != "auto":
        raise ValueError(f"format must be 'auto' (the only one), not {data['format'][:64]!r}")
    entrants = data["entrants"]
    if not entrants or not all(isinstance(e, str) and 0 < len(e) <= 64 for e in entrants):
        raise ValueError("entrants must be a non-empty list of bot names")
    if len(set(entrants)) != len(entrants):
        raise ValueError("entrants must be distinct")
    game = get_game(data["game"])  # InvalidOptions is a ValueError
    players = data["players"]
    game.new_state(players, game.options(players, data.get("options") or {}))  # ranges too (InvalidOptions)
    if len(entrants) < players:
        raise ValueError(f"{len(entrants)} entrants cannot fill {players} seats")
    if not 1 <= data["deal_sets"] <= 10_000:
        raise ValueError("deal_sets must be between 1 and 10000")
    tc = asdict(TimeControl.checked(data.get("time_control")))  # ValueError naming the field
    policy = asdict(FaultPolicy.checked(data.get("fault_policy")))
    bots = sources().bots
    missing = bots.unregistered(entrants) if bots is not None else []
    if missing:  # with the registered name each was probably meant to be, as `tournament create` says
        raise ValueError(f"not registered: {', '.join(missing)[:300]}")
    from cardarena_tournament.lifecycle import new_seed

    # The defaults `cardarena tournament create` gives (lifecycle.new_tournament): the full
    # options, the name "<Game> <n>p" and a random secret seed (every deal follows from it),
    # so that no two tournaments share their deals unless a seed says so.
    return Tournament(
        **{
            **{k: v for k, v in data.items() if k != "notify"},
            "entrants": tuple(entrants),
            "name": data.get("name") or f"{game.name} {players}p",
            "seed": data.get("seed") or new_seed(),
            "options": game.options(players, data.get("options")),
            "time_control": tc,
            "fault_policy": policy,
        }
    )


@bp.post("/tournaments")
def create_tournament() -> tuple[Response, int]:
    """Create a tournament from a JSON definition (status ``upcoming``; the workers start it)."""
    from cardarena_tournament.notify import check_targets
    from cardarena_tournament.webhook import AllowList

    data = _body()
    store = sources().tournaments
    if store is None:
        raise reads.Unavailable("tournaments are not available in this installation")
    t = tournament_from(data)
    allow = AllowList.parse(current_app.config["NOTIFY_ALLOW_INTERNAL"])
    targets = check_targets(data.get("notify") or [], "notify", allow)  # a TargetError is a ValueError -> 400
    if not store.create(t, notify=targets, require_registered=sources().bots is not None):
        abort(409, "a tournament with this id exists")
    if targets:
        current_app.logger.info("admin: tournament created with %d notification target(s)", len(targets))
    return jsonify(reads.tournament(sources(), data["id"])), 201


@bp.get("/tournaments/<tournament_id>/notifications")
def tournament_notifications(tournament_id: str) -> Response:
    """The tournament's notification targets (their hosts, never their URLs) and how each
    delivery stands: state, attempts, last error."""
    from cardarena_tournament.notify import summary

    reads.tournament(sources(), tournament_id)  # 404 for an unknown tournament
    if sources().notifications is None:
        raise reads.Unavailable("notifications are not available in this installation")
    targets = summary(sources().notifications, tournament_id)
    return jsonify({"tournament": tournament_id, "targets": targets})


@bp.post("/tournaments/<tournament_id>/cancel")
def cancel_tournament(tournament_id: str) -> Response:
    """Cancel an upcoming or running tournament."""
    reads.tournament(sources(), tournament_id)
    if not sources().tournaments.cancel(tournament_id):
        abort(409, "only an upcoming or running tournament can be cancelled")
    return jsonify(reads.tournament(sources(), tournament_id))
