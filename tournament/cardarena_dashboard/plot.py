"""Geometry of the rating-history plot (the template draws it as inline SVG, autoescaped)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

WIDTH = 640
NARROW_WIDTH = 360
"""A phone's plot (``?narrow=1``): drawn this wide, it is shown about at its own size, so its
text stays as large as the wide plot's on a desktop (the wide one shrunk to a phone's width
would have 6-pixel labels)."""
HEIGHT = 260
PAD_LEFT = 48
PAD_RIGHT = 120
PAD_Y = 20
MAX_POINTS = 300
"""Longer histories are thinned to about this many points per line."""
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")


@dataclass(frozen=True)
class Series:
    """One bot's line: its name, colour, SVG points and the label position."""

    name: str
    colour: str
    points: str
    last_x: float
    last_y: float
    last_value: float


@dataclass(frozen=True)
class Plot:
    """A laid-out plot."""

    width: int
    height: int
    series: list[Series]
    ticks: list[tuple[float, str]]
    """``(y, label)`` of the horizontal grid lines."""
    x_label: str


@dataclass(frozen=True)
class Sampled:
    """A rating history read in part: how many points it has and the ``(index, value)`` pairs
    read (the indices :func:`kept` picks), so a long history is never read whole."""

    length: int
    points: Sequence[tuple[int, float]]


def kept(length: int) -> list[int]:
    """The indices of a history of ``length`` points that a plot line draws: about
    :data:`MAX_POINTS`, evenly spaced, always the first and the last."""
    if length <= 0:
        return []
    every = max(1, length // MAX_POINTS)
    out = list(range(0, length, every))
    if out[-1] != length - 1:
        out.append(length - 1)
    return out


def layout(
    history: Mapping[str, Sequence[float] | Sampled], x_label: str = "matches", width: int = WIDTH
) -> Plot | None:
    """Lay out rating histories (bot → ratings in order, or a :class:`Sampled` part of them)
    ``width`` pixels wide (the labels keep their room on the right); ``None`` when there is
    nothing."""
    lines = {
        name: seq if isinstance(seq, Sampled) else Sampled(len(seq), [(i, seq[i]) for i in kept(len(seq))])
        for name, seq in history.items()
    }
    values = [v for line in lines.values() for _, v in line.points]
    if not values:
        return None
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    longest = max(line.length for line in lines.values())
    inner_w = width - PAD_LEFT - PAD_RIGHT
    inner_h = HEIGHT - 2 * PAD_Y

    def x(i: int) -> float:
        return PAD_LEFT + (inner_w * i / (longest - 1) if longest > 1 else inner_w / 2)

    def y(v: float) -> float:
        return PAD_Y + inner_h * (high - v) / (high - low)

    series = []
    for n, (name, line) in enumerate(sorted(lines.items())):
        if not line.points:
            continue
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in line.points)
        last_i, last_v = line.points[-1]
        series.append(Series(name, COLOURS[n % len(COLOURS)], pts, x(last_i), y(last_v), last_v))
    ticks = [(y(low + (high - low) * k / 4), f"{low + (high - low) * k / 4:.1f}") for k in range(5)]
    return Plot(width, HEIGHT, series, ticks, x_label)
