"""One HTTP POST of a JSON message to a webhook: all of the notifications' network IO.

Standard library only (``urllib.request``: it honours ``HTTPS_PROXY``/``NO_PROXY``).  A webhook
URL embeds a token, so nothing here puts the URL in a message: errors name the answer or the
failure (:class:`Answer`) and, for a person, :func:`origin` (scheme, host and port) only.

* Time-outs: ``timeout`` seconds to connect and for each read, so a hung endpoint holds a
  worker for about that long, not for ever.
* Redirects are followed only to the same host (at most :data:`MAX_REDIRECTS`, posting the
  same body again); one to another host, or from https to http, is not followed and fails the
  attempt.
* An answer's body is read up to :data:`BODY_CAP` bytes, kept (shortened, the URL's secret
  parts taken out) in the error of an attempt that failed.
"""

from __future__ import annotations

import email.utils
import http.client
import re
import ssl
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

BODY_CAP = 2048
"""Bytes of an answer's body read at most."""
MAX_REDIRECTS = 3
"""Same-host redirects followed at most."""
ERROR_CHARS = 300
"""Longest error text kept."""
_REDIRECTS = (301, 302, 303, 307, 308)


@dataclass(frozen=True)
class Answer:
    """How one POST went."""

    ok: bool
    """A 2xx answer."""
    retry: bool = False
    """Worth another attempt: a network error, a time-out, 429 or 5xx."""
    error: str | None = None
    """What went wrong, one line without the URL's secret parts."""
    retry_after: float | None = None
    """Seconds the server asked to wait (``Retry-After``), if it said."""


def origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``: what may be shown or logged of a webhook URL."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def host(url: str) -> str:
    """The host name of ``url`` (and its port, if it names one)."""
    return origin(url).split("://", 1)[1]


def redact(text: str, url: str) -> str:
    """``text`` with every secret part of ``url`` (user info, path, query, fragment) replaced
    by ``…``, on one line of at most :data:`ERROR_CHARS` characters."""
    parts = urlsplit(url)
    secrets = [url, parts.netloc.rpartition("@")[0], parts.query, parts.fragment]
    secrets += [p for p in parts.path.split("/") if len(p) >= 4]
    secrets.append(parts.path if len(parts.path) > 1 else "")
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, "…")
    text = re.sub(r"\s+", " ", "".join(c if c.isprintable() else " " for c in text)).strip()
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 1] + "…"


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds, or an HTTP date), or ``None``."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A 3xx comes back as an ``HTTPError``; :func:`post_json` decides whether to follow it."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def _body(response: Any) -> str:
    try:
        raw = response.read(BODY_CAP)
    except (OSError, http.client.HTTPException):
        return ""
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else ""


def _failed(exc: BaseException) -> Answer:
    """An attempt that got no HTTP answer."""
    reason: Any = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, TimeoutError):
        return Answer(ok=False, retry=True, error="timed out")
    if isinstance(reason, ssl.SSLCertVerificationError):
        return Answer(ok=False, error=f"TLS certificate not trusted: {reason.verify_message}")
    if isinstance(reason, OSError) and reason.strerror:
        return Answer(ok=False, retry=True, error=f"cannot connect: {reason.strerror}")
    return Answer(ok=False, retry=True, error=f"connection failed: {type(reason).__name__}")


def post_json(url: str, body: bytes, *, timeout: float, user_agent: str = "cardarena") -> Answer:
    """POST ``body`` (JSON) to ``url``; never raises for what the network or the server does."""
    start = urlsplit(url).hostname
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        request = urllib.request.Request(
            current,
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "User-Agent": user_agent},
        )
        try:
            with _OPENER.open(request, timeout=timeout) as response:
                _body(response)
                return Answer(ok=True)
        except urllib.error.HTTPError as exc:
            code, phrase, headers, text = exc.code, str(exc.reason), exc.headers, _body(exc)
            exc.close()
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            return _failed(exc)
        except ValueError:  # a URL urllib cannot use (checked when the target was stored)
            return Answer(ok=False, error="not a URL that can be posted to")
        if code in _REDIRECTS:
            location = urljoin(current, headers.get("Location") or "")
            parts = urlsplit(location)
            downgrade = urlsplit(current).scheme == "https" and parts.scheme != "https"  # the body in clear
            if parts.scheme in ("http", "https") and parts.hostname == start and location != current and not downgrade:
                current = location
                continue
            return Answer(ok=False, error=f"HTTP {code}: a redirect to {origin(location)} (not followed)")
        text = redact(redact(f"{phrase}: {text}" if text else phrase, url), current)
        error = f"HTTP {code} {text}".strip()
        retry = code == 429 or 500 <= code <= 599
        return Answer(ok=False, retry=retry, error=error, retry_after=retry_after(headers.get("Retry-After")))
    return Answer(ok=False, error=f"more than {MAX_REDIRECTS} redirects")
