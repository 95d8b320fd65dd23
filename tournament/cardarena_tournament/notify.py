"""Telling a chat channel that a tournament ended: targets, the message, delivery, the sweep.

A tournament (or a schedule, for each run) may carry webhook URLs (``tournament create
--notify URL``, the admin API's ``notify``): Slack, Mattermost, Discord and Teams all take an
HTTP POST of JSON.  When it ends (finished or cancelled), one POST per target carries
:func:`message`: a readable line (``text``, and ``content`` for Discord) and the data
(``tournament``, ``status``, ``standings`` ...).

* **Who sends.** :func:`dispatch` announces the end: the worker that finishes the tournament
  calls it (``lifecycle.settle``, through its ``on_end``), and :func:`sweep` (run with every
  reconcile) catches the rest: a cancelled tournament, or an announcement or retry lost with a
  killed worker.  Each target's first attempt is sent once (``NotificationStore.mark_queued``).
* **Delivery** (:func:`deliver`, one attempt of one target, the ``notify`` task): attempts are
  numbered; an attempt posts only if it claims its number (``NotificationStore.claim``), so a
  task delivered twice never posts twice, and a delivered target is never posted to again.
  A network error, a time-out, 429 or 5xx is tried again after :meth:`Settings.delay`
  (``Retry-After`` honoured up to a cap), :data:`ATTEMPTS` attempts in all (about 10 minutes
  by default); another 4xx is not, nor a target refused for its address.  The last error is
  kept for ``tournament status`` and the admin API.
* **Where a webhook may go.** Public addresses only, unless the operator allows internal ones
  (:data:`webhook.ALLOW_SETTING <.webhook.ALLOW_SETTING>`, :class:`.webhook.AllowList`):
  :func:`check_targets` refuses at creation what shows without DNS (an internal address or
  ``localhost`` in the URL), and every delivery checks the addresses it connects to
  (:mod:`.webhook`).  Each attempt ends within :attr:`Settings.deadline_s`.
* **Secrets.** A webhook URL embeds a token: it is stored apart from the tournament (never on
  the dashboard or the public API), logged as ``scheme://host`` only, and shown as its host.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple
from urllib.parse import quote, urlsplit

from cardarena.store.notifications import CONCLUDED, Delivery, NotificationStore
from cardarena.store.tournaments import Tournament, TournamentStore
from cardarena.summary import how_many

from . import webhook

log = logging.getLogger(__name__)

MAX_TARGETS = 10
"""Targets one tournament or schedule may have."""
MAX_URL = 2000
"""Longest webhook URL accepted."""
ATTEMPTS = 5
"""Attempts per target before it is given up."""
LEASE_S = 120.0
"""How long an attempt holds its target (longer than the ``notify`` task's time limit)."""
TASK_TIME_LIMIT_S = int(LEASE_S) - 30
"""The ``notify`` task's hard time limit (its soft one is 10 s less)."""
TASK_SOFT_TIME_LIMIT_S = TASK_TIME_LIMIT_S - 10
"""The ``notify`` task's soft time limit: :attr:`Settings.deadline_s` must be below it."""
STALE_S = 60.0
"""The sweep sends again an attempt due (or announced) this long ago that has not run."""
ENDED = ("finished", "cancelled")
"""The statuses that are announced."""
TOP = 3
"""Bots named in the message's line."""

Send = Callable[[str, int, int, float], None]
"""Queue attempt ``attempt`` of target ``target`` of tournament ``tid`` to run in ``countdown``
seconds: ``send(tid, target, attempt, countdown)`` (the ``notify`` task)."""


class TargetError(ValueError):
    """A notification target that is refused (the message names it by position, never whole)."""


def check_targets(
    urls: Sequence[Any], what: str = "--notify", allow: webhook.AllowList = webhook.PUBLIC_ONLY
) -> list[str]:
    """``urls`` if every one is an http(s) URL with a host (no credentials, spaces or control
    characters, at most :data:`MAX_URL` long) that is not an internal address or ``localhost``
    (unless ``allow`` lets it through: :func:`.webhook.refusal`), none repeated, at most
    :data:`MAX_TARGETS`; else :class:`TargetError` naming ``what`` and the target's position
    (not the URL: it is a secret)."""
    if len(urls) > MAX_TARGETS:
        raise TargetError(f"{what}: at most {MAX_TARGETS} targets, not {len(urls)}")
    out: list[str] = []
    for n, url in enumerate(urls, 1):
        where = f"{what} (target {n})" if len(urls) > 1 else what
        if not isinstance(url, str) or not url:
            raise TargetError(f"{where}: give a webhook URL (http:// or https://)")
        if len(url) > MAX_URL:
            raise TargetError(f"{where}: a URL of at most {MAX_URL} characters, not {len(url)}")
        if any(c.isspace() or not c.isprintable() for c in url):
            raise TargetError(f"{where}: the URL has spaces or control characters")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            given = f", not {parts.scheme[:20]}://" if "://" in url else " (this one does not start with http://)"
            raise TargetError(f"{where}: only http:// and https:// webhook URLs are accepted{given}")
        if "@" in parts.netloc:
            raise TargetError(f"{where}: a URL with credentials (user@host) is not accepted")
        if not parts.hostname:
            raise TargetError(f"{where}: the URL has no host")
        try:
            port = parts.port  # raises for a bad one
        except ValueError:
            port = 0
        if port == 0:
            raise TargetError(f"{where}: the URL's port is not a number from 1 to 65535")
        refused = webhook.refusal(url, allow)
        if refused:
            setting = "an operator's setting, on the workers and where tournaments are created"
            raise TargetError(f"{where}: {refused} ({setting})")
        if url in out:
            raise TargetError(f"{where}: the same URL is given twice")
        out.append(url)
    return out


def in_clear(urls: Sequence[str]) -> list[str]:
    """The hosts of the targets that would carry their token in clear (``http://`` to a host
    that is not this machine)."""
    local = ("localhost", "127.0.0.1", "::1")
    return [webhook.host(u) for u in urls if urlsplit(u).scheme == "http" and urlsplit(u).hostname not in local]


def hosts(urls: Sequence[str]) -> str:
    """``N target(s) (host, host ...)``: what is shown of a list of targets."""
    return f"{how_many(len(urls), 'target')} ({', '.join(webhook.host(u) for u in urls)})"


DEADLINE = "CARDARENA_NOTIFY_DEADLINE_S"
"""The environment variable of :attr:`Settings.deadline_s`."""
PUBLIC_URL = "CARDARENA_PUBLIC_URL"
"""The environment variable of the dashboard's public address (the messages' link)."""


def public_url(environ: Mapping[str, str] | None = None) -> str | None:
    """The dashboard's public base URL from :data:`PUBLIC_URL` (no trailing ``/``), ``None``
    when unset; ``ValueError`` naming the variable for anything but an http(s) URL with a host."""
    raw = (os.environ if environ is None else environ).get(PUBLIC_URL, "").strip()
    if not raw:
        return None
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(
            f"{PUBLIC_URL} must be the dashboard's address, an http:// or https:// URL "
            f"(e.g. https://arena.example.org), not {raw!r}"
        )
    return raw.rstrip("/")


@dataclass(frozen=True)
class Settings:
    """How deliveries are made (the worker's environment, :meth:`from_env`)."""

    timeout_s: float = 5.0
    """Connect and read time-out of one POST (``CARDARENA_NOTIFY_TIMEOUT_S``)."""
    deadline_s: float = webhook.DEADLINE_S
    """The longest one attempt takes in all, redirects and a slow answer included
    (``CARDARENA_NOTIFY_DEADLINE_S``); below :data:`TASK_SOFT_TIME_LIMIT_S`."""
    backoff_s: float = 40.0
    """Wait before the second attempt, doubling for each after it (``CARDARENA_NOTIFY_BACKOFF_S``);
    with the default, attempts 2-5 come 40, 120, 280 and 600 s after the first."""
    public_url: str | None = None
    """The dashboard's public base URL (:func:`public_url`); ``None``: messages have no link."""
    allow: webhook.AllowList = webhook.PUBLIC_ONLY
    """The internal destinations webhooks may reach (``CARDARENA_NOTIFY_ALLOW_INTERNAL``)."""

    @property
    def max_delay_s(self) -> float:
        """The longest wait between two attempts, also for a longer ``Retry-After``."""
        return 8 * self.backoff_s

    def delay(self, attempt: int, asked: float | None = None) -> float:
        """Seconds to wait after failed attempt ``attempt`` (1 = the first): what the server
        asked (``Retry-After``) if it did, else ``backoff_s * 2 ** (attempt - 1)``; at most
        :attr:`max_delay_s`."""
        wanted = asked if asked is not None else self.backoff_s * 2 ** (attempt - 1)
        return min(max(0.0, wanted), self.max_delay_s)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings in ``environ`` (default: this process's); ``ValueError`` naming a bad one."""
        from .celery_app import seconds_setting

        deadline = seconds_setting(DEADLINE, cls.deadline_s, environ)
        if deadline >= TASK_SOFT_TIME_LIMIT_S:
            raw = (os.environ if environ is None else environ).get(DEADLINE, "").strip()
            raise ValueError(
                f"{DEADLINE} must be a number of seconds below {TASK_SOFT_TIME_LIMIT_S} "
                f"(the notify task's time limit), not {raw!r}"
            )
        return cls(
            timeout_s=seconds_setting("CARDARENA_NOTIFY_TIMEOUT_S", cls.timeout_s, environ),
            deadline_s=deadline,
            backoff_s=seconds_setting("CARDARENA_NOTIFY_BACKOFF_S", cls.backoff_s, environ),
            public_url=public_url(environ),
            allow=webhook.AllowList.from_env(environ),
        )


# ---------------------------------------------------------------------- the message
_METRICS = {"deal_margin": "mean deal margin", "margin": "mean margin", "score": "mean score"}


def _quiet(text: str) -> str:
    """``text`` that mentions nobody: ``@channel`` becomes ``@⁠channel`` (a word joiner)."""
    return text.replace("@", "@\u2060")


def _bot(name: str) -> str:
    """A bot name as code (no formatting, link or mention inside it renders)."""
    return "`" + _quiet(name.replace("`", "'")) + "`"


def _finite(x: Any) -> float | None:
    """``x`` as a number, ``None`` for anything else (a bot with no counted match has NaN)."""
    return float(x) if isinstance(x, int | float) and math.isfinite(x) else None


def _num(x: Any) -> str:
    value = _finite(x)
    return "?" if value is None else f"{value:.2f}"


def _slack(text: str) -> str:
    """Slack's (and Mattermost's) escaping of ``&``, ``<`` and ``>``."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def link(base: str | None, tid: str) -> str | None:
    """The tournament's page on the dashboard at ``base``, or ``None`` without one."""
    return f"{base}/tournaments/{quote(tid, safe='')}" if base else None


def line(t: Tournament, rows: Sequence[Mapping[str, Any]], metric: str, url: str | None) -> str:
    """The one readable line: the tournament, how it ended, the winner, the top
    :data:`TOP` with their mean and 95 % interval, the link."""
    from cardarena.engine import games

    game = games().get(t.game)
    game_name = game.name if game is not None else t.game
    title = t.name if t.name and t.name != f"{game_name} {t.players}p" else f"Tournament {t.id}"
    seats = "solitaire" if t.players == 1 else f"{t.players} players"
    head = f"{_quiet(title)} ({game_name}, {seats})"
    label = _METRICS.get(metric, metric.replace("_", " "))
    top = "; ".join(
        f"{r.get('rank')}. {_bot(str(r.get('bot')))} {_num(r.get('mean'))} "
        f"[{_num(r.get('ci_low'))}, {_num(r.get('ci_high'))}]"
        for r in rows[:TOP]
    )
    table = f"Top {min(TOP, len(rows))} by {label} per deal set [95% CI]: {top}."
    if t.status == "finished":
        first = [str(r.get("bot")) for r in rows if r.get("rank") == 1]
        if len(first) == 1:
            winner = f"winner {_bot(first[0])}"
            if len(rows) > 1 and rows[0].get("separated_from_next") is False:
                winner += f" (not separated from {_bot(str(rows[1].get('bot')))})"
        elif first:
            winner = "shared first place: " + ", ".join(_bot(b) for b in first)
        else:
            winner = "no results"
        text = f"{head} finished: {winner}. {table}" if rows else f"{head} finished with no results."
    else:
        text = f"{head} was {t.status} after {t.counted} of {how_many(t.total_matches, 'match')}"
        text += f". Standings then: {table}" if rows else " (none counted)."
    return f"{text} {url}" if url else text


def message(t: Tournament, snapshot: Mapping[str, Any] | None, public: str | None) -> dict[str, Any]:
    """The JSON posted to each target: ``text`` (the :func:`line`, escaped as Slack wants)
    and ``content`` (the same line, for Discord, with ``allowed_mentions`` empty: no pings),
    ``tournament``, ``name``, ``game``, ``players``, ``status``, ``counted``, ``total_matches``,
    ``metric``, ``standings`` (a row per bot with a counted match: ``bot``, ``rank``, ``mean``,
    ``ci`` [low, high, ``null`` when unknown], ``matches``) and ``url`` (the dashboard page,
    ``null`` without :data:`PUBLIC_URL`)."""
    counted = bool((snapshot or {}).get("counted"))  # before any result, the rows are empty shells
    rows = [r for r in (snapshot or {}).get("rows") or [] if counted and _finite(r.get("mean")) is not None]
    metric = str((snapshot or {}).get("metric") or "margin")
    url = link(public, t.id)
    text = line(t, rows, metric, url)
    return {
        "text": _slack(text),
        "content": text,
        "allowed_mentions": {"parse": []},
        "tournament": t.id,
        "name": t.name,
        "game": t.game,
        "players": t.players,
        "status": t.status,
        "counted": t.counted,
        "total_matches": t.total_matches,
        "metric": metric,
        "standings": [
            {
                "bot": r.get("bot"),
                "rank": r.get("rank"),
                "mean": _finite(r.get("mean")),
                "ci": [_finite(r.get("ci_low")), _finite(r.get("ci_high"))],
                "matches": r.get("matches"),
            }
            for r in rows
        ],
        "url": url,
    }


# ---------------------------------------------------------------------- delivery
class Step(NamedTuple):
    """What one run of the ``notify`` task did, and what follows."""

    outcome: str
    """``delivered``, ``retrying``, ``failed``, ``busy`` (another attempt holds the target),
    ``skipped`` (concluded, or a duplicate of an attempt made)."""
    retry_in: float | None = None
    """Run attempt :attr:`next_attempt` after this many seconds (``None``: nothing follows)."""
    next_attempt: int = 0


Post = Callable[..., webhook.Answer]


def deliver(
    notes: NotificationStore,
    ts: TournamentStore,
    tid: str,
    target: int,
    attempt: int,
    settings: Settings,
    post: Post = webhook.post_json,
) -> Step:
    """Make attempt ``attempt`` of target ``target`` (0-based) of tournament ``tid``, if it is
    still to be made (:meth:`NotificationStore.claim`), and record how it went."""
    targets = notes.targets(tid)
    if not 0 <= target < len(targets):
        return Step("skipped")
    held = notes.claim(tid, target, attempt, LEASE_S)
    if held is None:
        return Step("skipped")
    if held > 0:  # posting elsewhere; if that worker died, this attempt is made once its lease lapses
        return Step("busy", retry_in=held + 1.0, next_attempt=attempt)
    url = targets[target]
    where = f"notify {tid}: target {target + 1} ({webhook.origin(url)})"
    t = ts.get(tid)
    if t is None:
        notes.conclude(tid, target, "failed", error="the tournament no longer exists")
        return Step("failed")
    body = json.dumps(message(t, ts.standings(tid), settings.public_url), allow_nan=False).encode()
    try:
        answer = post(url, body, timeout=settings.timeout_s, deadline_s=settings.deadline_s, allow=settings.allow)
    except Exception as exc:  # post_json does not raise; anything else must still free the target
        answer = webhook.Answer(ok=False, retry=True, error=f"internal error: {type(exc).__name__}")
    if answer.ok:
        notes.conclude(tid, target, "delivered")
        log.info("%s: delivered (%s, attempt %d)", where, t.status, attempt)
        return Step("delivered")
    error = webhook.redact(answer.error or "failed", url)
    if answer.retry and attempt < ATTEMPTS:
        wait = settings.delay(attempt, answer.retry_after)
        notes.conclude(tid, target, "retrying", error=error, next_at=time.time() + wait)
        log.warning("%s: attempt %d of %d failed (%s); next in %.3g s", where, attempt, ATTEMPTS, error, wait)
        return Step("retrying", retry_in=wait, next_attempt=attempt + 1)
    notes.conclude(tid, target, "failed", error=error)
    tried = "not tried again" if not answer.retry else f"given up after {attempt} attempts"
    log.error("%s: attempt %d failed (%s); %s", where, attempt, error, tried)
    return Step("failed")


def dispatch(notes: NotificationStore, tid: str, send: Send) -> int:
    """Announce the end of tournament ``tid``: queue the first attempt of every target not
    announced yet (each once, whoever calls); returns how many were queued."""
    queued = 0
    for d in notes.deliveries(tid):
        if d.state is None and notes.mark_queued(tid, d.index):
            send(tid, d.index, 1, 0.0)
            queued += 1
    return queued


def sweep(notes: NotificationStore, ts: TournamentStore, send: Send, now: float) -> int:
    """For every ended tournament with a target not concluded: announce what was not
    (a cancelled tournament; an end whose announcement was lost), and send again an attempt
    announced or due :data:`STALE_S` ago that did not run, or one whose worker died while it
    posted (its lease lapsed).  Tournaments that no longer exist are forgotten.  Returns how
    many attempts were sent."""
    sent = 0
    for tid in notes.waiting():
        t = ts.get(tid)
        if t is None:
            notes.forget(tid)
            continue
        if t.status not in ENDED:
            continue
        for d in notes.deliveries(tid):
            if d.state is None and notes.mark_queued(tid, d.index):
                send(tid, d.index, 1, 0.0)
            elif _lost(d, now) and (d.state != "sending" or not notes.lease_left(tid, d.index)):
                # queued: attempt 1 again; retrying: the next one; sending (its worker died): the same one
                attempt = d.attempts if d.state == "sending" else d.attempts + 1
                notes.requeued(tid, d.index, retrying=d.state == "retrying")
                send(tid, d.index, attempt, 0.0)
            else:
                continue
            sent += 1
    return sent


def _lost(d: Delivery, now: float) -> bool:
    """Whether the target's pending attempt should have run :data:`STALE_S` ago."""
    if d.state in CONCLUDED or d.state is None:
        return False
    due = d.next_at if d.state == "retrying" else d.at
    return (due or 0.0) + STALE_S < now


def summary(notes: NotificationStore, tid: str) -> list[dict[str, Any]]:
    """Each target of the tournament as an organiser may see it: ``target`` (1-based),
    ``host`` (never the URL), ``state`` (``null`` until the end is announced), ``attempts``,
    ``last_error``, ``updated_at`` and ``next_attempt_at`` (unix times)."""
    return [
        {
            "target": d.index + 1,
            "host": webhook.host(d.url),
            "state": d.state,
            "attempts": d.attempts,
            "last_error": d.error,
            "updated_at": d.at,
            "next_attempt_at": d.next_at if d.state == "retrying" else None,
        }
        for d in notes.deliveries(tid)
    ]
