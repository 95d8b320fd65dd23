"""Geometry of the rating-history plot (the template draws it as inline SVG, autoescaped)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

WIDTH = 640
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


def layout(history: Mapping[str, Sequence[float]], x_label: str = "matches") -> Plot | None:
    """Lay out rating histories (bot → ratings in order); ``None`` when there is nothing."""
    values = [v for seq in history.values() for v in seq]
    if not values:
        return None
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    longest = max(len(seq) for seq in history.values())
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    inner_h = HEIGHT - 2 * PAD_Y

    def x(i: int) -> float:
        return PAD_LEFT + (inner_w * i / (longest - 1) if longest > 1 else inner_w / 2)

    def y(v: float) -> float:
        return PAD_Y + inner_h * (high - v) / (high - low)

    series = []
    for n, (name, seq) in enumerate(sorted(history.items())):
        if not seq:
            continue
        every = max(1, len(seq) // MAX_POINTS)
        kept = [i for i in range(0, len(seq), every)]
        if kept[-1] != len(seq) - 1:
            kept.append(len(seq) - 1)
        pts = " ".join(f"{x(i):.1f},{y(seq[i]):.1f}" for i in kept)
        series.append(Series(name, COLOURS[n % len(COLOURS)], pts, x(len(seq) - 1), y(seq[-1]), seq[-1]))
    ticks = [(y(low + (high - low) * k / 4), f"{low + (high - low) * k / 4:.1f}") for k in range(5)]
    return Plot(WIDTH, HEIGHT, series, ticks, x_label)
