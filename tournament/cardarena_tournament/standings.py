"""Standings and ratings from counted match results (pure: no IO, no clock).

**Metric.** Multi-player games: each match gives a seat its *score margin*, its final score
minus the mean final score of the table (from the stored per-seat ``scores``), negated for
games where a lower score is better (``higher_is_better = False``), so a higher margin is
always better; a table's margins sum to zero.  Two players: half the score difference.  This
keeps the size of a win, which is what duplicate deals compare.  Solitaires: the game score
itself, better being lower where the game says so.

**Win share** (secondary).  Multi-player games: *points*, the share of its opponents a bot beat
in a match by the engine's ranks (a tie with one counts half; 1/0.5/0 for a two-player
win/draw/loss); ``points`` is their total and ``win_share`` their mean per match.  Solitaires:
``points`` is the total score and ``win_share`` is ``None``.

**Deal sets.** A deal set is one deal in all its seatings (see :mod:`.formats`).  A bot's value
for a deal set is its mean metric over its matches in it, and its standing is the mean over
its deal sets, with a 95 % percentile bootstrap confidence interval that resamples *deal sets*
(seeded, so a snapshot is reproducible).  Neighbouring ranks are *separated* when the paired
bootstrap of the difference of their means (the same resampled deal sets for both) has its
2.5th percentile above zero.

**Places.** Bots with equal means share a place (1, 1, 3).

**Win rate.** Solitaires: the share of a bot's matches that it *won* by the game's own standard
(the engine's ``Result.won``; matches recorded without it are left out of the rate, which is
``None`` while none has it); ``wins``/``losses`` count won/lost games.  Multi-player games: the
share of matches the bot finished first (a shared first place counts).

**Ratings.** OpenSkill Plackett–Luce per bot and game, updated once per counted match from the
engine's ranks; ``ordinal = mu - 3 sigma``.  Solitaire matches do not move ratings.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

Z_LEVEL = 0.95
"""Confidence level of the intervals."""
MIN_DEAL_SETS = 5
"""Neighbours are never called separated before both have played this many deal sets (the
percentile bootstrap is anti-conservative on a handful of units)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """One counted match as standings need it."""

    match_id: str
    seats: tuple[str, ...]
    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    deal_set: str
    won: tuple[bool, ...] | None = None
    """Per seat, whether it won by the game's own standard (the engine's ``Result.won``; solitaires)."""


@dataclass(slots=True)
class BotStanding:
    """One row of the standings."""

    bot: str
    rank: int
    """Place (1 is first; equal means share a place)."""
    mean: float
    """Mean metric per deal set (score margin, or the game score for solitaires)."""
    ci_low: float
    ci_high: float
    matches: int
    deal_sets: int
    points: float
    """Total points, the shares of opponents beaten (multi-player), or total score (solitaires)."""
    mean_score: float
    """Mean raw game score per match."""
    places: dict[str, int] = field(default_factory=dict)
    """How often the bot finished in each place (``"1"``, ``"2"`` ...)."""
    wins: int = 0
    draws: int = 0
    losses: int = 0
    separated_from_next: bool | None = None
    """Whether this bot is separated from the next rank at 95 % (``None`` for the last row)."""
    win_rate: float | None = None
    """Solitaires: won games / matches with a known outcome; multi-player: share of first
    places; ``None`` with no such match (see the module docstring)."""
    win_share: float | None = None
    """Multi-player: mean share of opponents beaten per match (``points / matches``); ``None``
    for solitaires and before the first match."""


@dataclass(slots=True)
class Standings:
    """The standings of one tournament."""

    rows: list[BotStanding]
    metric: str
    """``margin`` (multi-player) or ``score`` (solitaires)."""
    counted: int
    resamples: int

    def to_json(self) -> dict[str, Any]:
        """JSON form (stored as the snapshot, printed by ``--json``)."""
        return {
            "metric": self.metric,
            "counted": self.counted,
            "resamples": self.resamples,
            "rows": [asdict(r) for r in self.rows],
        }


def match_points(ranks: Sequence[int], seat: int) -> float:
    """The share of opponents ``seat`` beat (ties count half); 1.0 for a lone player."""
    others = [r for i, r in enumerate(ranks) if i != seat]
    if not others:
        return 1.0
    mine = ranks[seat]
    return sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in others) / len(others)


def match_margin(scores: Sequence[float], seat: int, higher_is_better: bool = True) -> float:
    """``seat``'s final score minus the table's mean score, negated when lower is better."""
    margin = float(scores[seat]) - sum(float(x) for x in scores) / len(scores)
    return margin if higher_is_better else -margin


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    idx = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[idx]


def compute(
    outcomes: Sequence[Outcome],
    entrants: Sequence[str],
    *,
    solitaire: bool = False,
    higher_is_better: bool = True,
    resamples: int = 1000,
    seed: int = 0,
) -> Standings:
    """Standings of ``entrants`` from counted ``outcomes`` (see the module docstring)."""
    sign = 1.0 if (higher_is_better or not solitaire) else -1.0
    per_unit: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    rows: dict[str, BotStanding] = {b: BotStanding(b, 0, 0.0, 0.0, 0.0, 0, 0, 0.0, 0.0) for b in entrants}
    raw_scores: dict[str, list[float]] = defaultdict(list)
    decided: dict[str, int] = defaultdict(int)  # matches that say whether the bot won
    firsts: dict[str, int] = defaultdict(int)
    for o in outcomes:
        for seat, bot in enumerate(o.seats):
            if bot not in rows:
                continue
            row = rows[bot]
            metric = float(o.scores[seat]) if solitaire else match_margin(o.scores, seat, higher_is_better)
            per_unit[o.deal_set][bot].append(metric)
            raw_scores[bot].append(float(o.scores[seat]))
            row.matches += 1
            row.points += metric if solitaire else match_points(o.ranks, seat)
            place = str(o.ranks[seat])
            row.places[place] = row.places.get(place, 0) + 1
            if solitaire:
                if o.won is not None:
                    decided[bot] += 1
                    if o.won[seat]:
                        firsts[bot] += 1
                        row.wins += 1
                    else:
                        row.losses += 1
            else:
                decided[bot] += 1
                firsts[bot] += o.ranks[seat] == 1
            if len(o.seats) == 2:
                other = o.ranks[1 - seat]
                if o.ranks[seat] < other:
                    row.wins += 1
                elif o.ranks[seat] == other:
                    row.draws += 1
                else:
                    row.losses += 1
    units = sorted(per_unit)
    # value[bot][unit index] = sign-adjusted mean metric in that deal set
    value: dict[str, dict[int, float]] = {b: {} for b in rows}
    for u, unit in enumerate(units):
        for bot, vals in per_unit[unit].items():
            value[bot][u] = sign * sum(vals) / len(vals)
    for bot, row in rows.items():
        vals = list(value[bot].values())
        row.deal_sets = len(vals)
        row.mean = sum(vals) / len(vals) if vals else float("nan")
        row.mean_score = sum(raw_scores[bot]) / len(raw_scores[bot]) if raw_scores[bot] else float("nan")
        row.win_rate = firsts[bot] / decided[bot] if decided[bot] else None
        row.win_share = row.points / row.matches if row.matches and not solitaire else None
    rng = random.Random(seed)
    boot: dict[str, list[float]] = {b: [] for b in rows}
    n = len(units)
    for _ in range(resamples if n else 0):
        counts = [0] * n
        for u in rng.choices(range(n), k=n):
            counts[u] += 1
        for bot, by_unit in value.items():
            weight = sum(counts[u] for u in by_unit)
            boot[bot].append(sum(counts[u] * v for u, v in by_unit.items()) / weight if weight else float("nan"))
    order = sorted(rows, key=lambda b: (-(rows[b].mean if rows[b].deal_sets else float("-inf")), b))
    lo_q, hi_q = (1 - Z_LEVEL) / 2, 1 - (1 - Z_LEVEL) / 2
    for i, bot in enumerate(order):
        row = rows[bot]
        samples = sorted(x for x in boot[bot] if x == x)
        row.ci_low, row.ci_high = _percentile(samples, lo_q), _percentile(samples, hi_q)
        prev = rows[order[i - 1]] if i else None
        row.rank = prev.rank if prev is not None and _same(prev.mean, row.mean) else i + 1
        if i + 1 < len(order):
            nxt = order[i + 1]
            diffs = sorted(a - b for a, b in zip(boot[bot], boot[nxt], strict=True) if a == a and b == b)
            enough = min(row.deal_sets, rows[nxt].deal_sets) >= MIN_DEAL_SETS
            row.separated_from_next = enough and bool(diffs) and _percentile(diffs, lo_q) > 0
    if sign < 0:  # report solitaire scores in the game's own units
        for row in rows.values():
            row.mean, row.ci_low, row.ci_high = -row.mean, -row.ci_high, -row.ci_low
    return Standings(
        rows=[rows[b] for b in order],
        metric="score" if solitaire else "margin",
        counted=len(outcomes),
        resamples=resamples,
    )


def _same(a: float, b: float) -> bool:
    return (a != a and b != b) or abs(a - b) <= 1e-9


# --------------------------------------------------------------------------- ratings
def rate_match(
    current: Mapping[str, Mapping[str, float]], seats: Sequence[str], ranks: Sequence[int]
) -> dict[str, dict[str, float]]:
    """New OpenSkill (Plackett–Luce) ratings of the seated bots after one match.

    ``current`` holds known ratings (``mu``, ``sigma``, ``matches``); unknown bots start at the
    model's defaults.  Returns ``{}`` for a one-player match (solitaires are not rated).
    """
    if len(seats) < 2:
        return {}
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = []
    for bot in seats:
        cur = current.get(bot)
        teams.append([model.rating(mu=cur["mu"], sigma=cur["sigma"], name=bot) if cur else model.rating(name=bot)])
    rated = model.rate(teams, ranks=[float(r) for r in ranks])
    out: dict[str, dict[str, float]] = {}
    for bot, team in zip(seats, rated, strict=True):
        r = team[0]
        out[bot] = {
            "mu": float(r.mu),
            "sigma": float(r.sigma),
            "ordinal": float(r.ordinal()),
            "matches": float(current.get(bot, {}).get("matches", 0)) + 1,
        }
    return out
