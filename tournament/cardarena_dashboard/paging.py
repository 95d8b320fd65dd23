"""Pagination of lists: ``limit`` and ``offset`` query parameters, checked once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MAX_OFFSET = 1_000_000


class BadQuery(ValueError):
    """A query parameter that is not acceptable; the message says which and why."""


@dataclass(frozen=True)
class Page:
    """A requested page: ``offset`` items skipped, at most ``limit`` returned."""

    offset: int
    limit: int

    def envelope(self, items: list[object], more: bool) -> dict[str, object]:
        """The list body every paged endpoint returns."""
        return {
            "items": items,
            "offset": self.offset,
            "limit": self.limit,
            "next_offset": self.offset + self.limit if more else None,
        }


def _int(args: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw, 10)
    except ValueError:
        raise BadQuery(f"{name} must be an integer, got {raw[:40]!r}") from None
    if not low <= value <= high:
        raise BadQuery(f"{name} must be between {low} and {high}, got {value}")
    return value


def page_from(args: Mapping[str, str], default_limit: int = DEFAULT_LIMIT) -> Page:
    """The page a request asks for; raises :class:`BadQuery` on bad values."""
    return Page(
        offset=_int(args, "offset", 0, 0, MAX_OFFSET),
        limit=_int(args, "limit", default_limit, 1, MAX_LIMIT),
    )


def text_arg(args: Mapping[str, str], name: str, max_len: int = 200) -> str | None:
    """An optional text filter; empty means unset; raises :class:`BadQuery` if too long."""
    raw = args.get(name)
    if raw is None or raw == "":
        return None
    if len(raw) > max_len or "\x00" in raw:
        raise BadQuery(f"{name} is too long or contains NUL")
    return raw


def flag_arg(args: Mapping[str, str], name: str) -> bool:
    """An optional on/off switch: ``1`` on, ``0`` or absent off; raises :class:`BadQuery` otherwise."""
    raw = args.get(name, "0")
    if raw not in ("0", "1"):
        raise BadQuery(f"{name} must be 0 or 1, got {raw[:40]!r}")
    return raw == "1"


def count_arg(args: Mapping[str, str], name: str) -> int:
    """An optional non-negative integer (absent: 0); raises :class:`BadQuery` otherwise."""
    return _int(args, name, 0, 0, MAX_OFFSET)
