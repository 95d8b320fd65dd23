"""Geometry of the rating-history plot (the template draws it as inline SVG, autoescaped)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

WIDTH = 640
NARROW_WIDTH = 360
"""A phone's plot (``?narrow=1``): drawn this wide, it is shown about at its own size, so its
text stays as large as the wide plot's on a desktop (the wide one shrunk to a phone's width
would have 6-pixel labels)."""
HEIGHT = 260
PAD_LEFT = 48
PAD_RIGHT = 120
PAD_Y = 20
LABEL_GAP = 14.0
"""The least distance between two end labels' lines (their text is 12 px high): labels of
ratings that end close together are moved apart by :func:`spread`."""
LABEL_TOP = 10.0
LABEL_BOTTOM = HEIGHT - 14.0
"""The highest and lowest a label's line may be, so that its text stays inside the plot."""
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
    label_y: float
    """Where its label's line is: at ``last_y`` unless another label ends too close."""


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
        series.append(Series(name, COLOURS[n % len(COLOURS)], pts, x(last_i), y(last_v), last_v, y(last_v)))
    label_ys = spread([s.last_y for s in series], LABEL_GAP, LABEL_TOP, LABEL_BOTTOM)
    series = [replace(s, label_y=label_y) for s, label_y in zip(series, label_ys, strict=True)]
    ticks = [(y(low + (high - low) * k / 4), f"{low + (high - low) * k / 4:.1f}") for k in range(5)]
    return Plot(width, HEIGHT, series, ticks, x_label)


def spread(wanted: Sequence[float], gap: float, top: float, bottom: float) -> list[float]:
    """Where to put labels that want to be at ``wanted`` (in that order): at least ``gap``
    apart, all between ``top`` and ``bottom``, each as near where it wants to be as its
    neighbours allow (a run of labels that would overlap is centred on where its labels want
    to be, and its order kept).  When they cannot all fit ``gap`` apart, they share the height
    evenly.  Deterministic: equal wishes keep their order."""
    if not wanted:
        return []
    if len(wanted) > 1:
        gap = min(gap, (bottom - top) / (len(wanted) - 1))
    runs: list[list[int]] = []  # labels that touch, top to bottom
    starts: list[float] = []  # where each run's first label goes
    for i in sorted(range(len(wanted)), key=lambda i: wanted[i]):
        runs.append([i])
        starts.append(wanted[i])
        while True:
            span = (len(runs[-1]) - 1) * gap
            centre = sum(wanted[j] for j in runs[-1]) / len(runs[-1])
            starts[-1] = min(max(centre - span / 2, top), bottom - span)
            if len(runs) > 1 and starts[-2] + len(runs[-2]) * gap > starts[-1] + 1e-9:
                runs[-2].extend(runs.pop())  # it reaches the run above it: they move as one
                starts.pop()
                continue
            break
    out = [0.0] * len(wanted)
    for run, start in zip(runs, starts, strict=True):
        for k, i in enumerate(run):
            out[i] = start + k * gap
    return out
