"""Standings and ratings from counted match results (pure: no IO, no clock).

**Metric.** Multi-player games compare *score margins*: a seat's score minus the mean score of
its table, negated for games where a lower score is better (``higher_is_better = False``), so a
higher margin is always better and a table's margins sum to zero (two players: half the score
difference).  A margin keeps the size of a win, which is what duplicate deals compare.

* ``deal_margin`` (deal by deal, as duplicate bridge scores board by board): for games whose
  deals are fixed by the match seed (``Game.deals_fixed_by_seed``: the ``k``-th deal's cards
  and dealer do not depend on play, and the final scores are the sums of the deals' scores),
  when every counted result carries its per-deal scores (``Outcome.deal_scores``).  Within a
  deal set, ``L`` is the fewest deals any of its matches played (the *common prefix*: a match
  to a target score lasts longer in one seating than in another); a seat's value for a match
  is its mean margin over that match's deals ``0 .. L-1``, each deal's margin taken from that
  deal's scores.  So every deal compared was played with the same cards in every seating, and
  the part of a long match that its mirror never played does not count.  A deal set of a
  single match (a plain deal, not replayed, as in the plain arm of
  ``bench/ranking_quality.py``) uses all its deals.  With one-deal matches this equals
  ``margin``.
* ``margin`` (the fallback): the match's final scores.  Used for games without fixed deals
  and whenever some counted result has no per-deal scores (recorded before they were stored),
  so that one table never mixes the two scales.

**Forfeits.** A seat that forfeited a match (strikes, resignation, no-show: the server then
played default actions for it) never gains from it: the table's margins are handed out again,
the highest to the seats that did not forfeit (in their own order) and the lowest to those
that did (in theirs), the very lowest to the *no-shows* (seats whose bot never joined), which
then share theirs equally: nothing they did tells them apart.  The table still sums to zero, and
a match where nobody or everybody forfeited is unchanged.  (The default actions can outscore a
bot: without this a bot that never came could top the standings.)  Points, places and ratings
use the recorded ranks, which already put forfeiting seats last and the no-shows level last.

**No contest.** A match none of whose bots joined (every seat a no-show: the service played it
out with default actions so that the tournament ends) says nothing about any of them: it is
left out of the standings (rows, metric, points, places, W/D/L, faults) and of the ratings
(:func:`rate_match`), and is only counted as played.  Without this, two absent bots would
"beat" each other by the default actions' luck, and bots that never came would collect wins,
points, first places and ratings.  So is a match the service stopped at its action limit
(the result's ``aborted``: ``action_limit``, a game or bots that loop), which has no result at
all: nobody won it, and its bots are not absent (they came).

Solitaires: the game score itself (``score``), better being lower where the game says so.
Only the primary metric is deal by deal: points, W/D/L, places and ratings describe the
matches (their final ranks), and ``mean_score`` is the mean final score.

**Win share** (secondary).  Multi-player games: *points*, the share of its opponents a bot beat
in a match by the recorded ranks (a tie with one counts half; 1/0.5/0 for a two-player
win/draw/loss); ``points`` is their total and ``win_share`` their mean per match.  Solitaires:
``points`` is the total score and ``win_share`` is ``None``.

**Deal sets.** A deal set is one deal in all its seatings (see :mod:`.formats`).  A bot's value
for a deal set is its mean metric over its matches in it (while a tournament runs, over the
matches counted so far, so the common prefix may still shrink), and its standing is the mean over
its deal sets, with a 95 % percentile bootstrap confidence interval that resamples *deal sets*
(seeded, so a snapshot is reproducible).  Neighbouring ranks are *separated* when the paired
bootstrap of the difference of their means (the same resampled deal sets for both) has its
2.5th percentile above zero.

**Places.** Bots with equal means share a place (1, 1, 3), listed in the order people look for
names (:func:`cardarena.names.name_order`: case, accents and punctuation aside, numbers by
value), as every list of bots is.

**Absent bots.** A bot seated in counted matches that never joined one of them (a no-show in
each, whether the match was a no contest or not) is *absent* (``BotStanding.absent``): it ranks
after every bot that joined any, and all such bots share that last place whatever their means:
a mean made of forfeits measures how far the opponents beat the server's default play, not
anything the absent bot did.  A bot whose matches were all no contests has no counted match and
no mean, and is absent all the same; when no bot joined anything, every bot is absent and they
all share place 1.  A bot not yet seated in any counted match is not absent (it has not been
scheduled yet): it ranks after the bots with a mean, ahead of the absent ones.

**No value.** A bot with nothing counted has no mean, interval or mean score: ``NaN`` in a
:class:`BotStanding`, ``null`` in :meth:`Standings.to_json` (strict JSON) and in
:func:`finite_row`.

**Win rate.** Solitaires: the share of a bot's matches that it *won* by the game's own standard
(the engine's ``Result.won``; matches recorded without it are left out of the rate, which is
``None`` while none has it); ``wins``/``losses`` count won/lost games.  Multi-player games: the
share of matches the bot finished first (a shared first place counts).

**Crosstable** (multi-player games; a solitaire has none: every bot plays alone).  For each
pair of bots ``A``, ``B``, over the matches where both sat: how many they met in, how often ``A``
placed ahead of, behind or level with ``B`` (the recorded ranks, so a forfeiting seat is behind;
with 3–4 players these are *pairwise places*: the two bots' places at that table, whoever else
sat there), and ``A``'s mean *difference* against ``B`` per deal set: in each deal set where
both sat, the mean over those matches of ``A``'s metric minus ``B``'s (the standings' metric of
that match, taken as :func:`compute` takes it: deal by deal over the deal set's common prefix
where it is ``deal_margin``, forfeits last), then the mean over those deal sets.  Both bots
share the table's mean, so a match's difference is ``A``'s score minus ``B``'s (per deal with
``deal_margin``; turned for games where a lower score is better): positive means ``A`` did
better.  A deal set holds every seating of one deal, so its luck cancels as in the standings.
A 95 % percentile bootstrap over those deal sets gives the interval (exact up to
:data:`EXACT_UP_TO` deal sets, as a nightly run's pairs have; else seeded resamples, as the
standings draw them), and the difference
is *significant* when the interval excludes 0 and they met in at least :data:`MIN_DEAL_SETS`
deal sets (as neighbour separation asks).  ``B`` against ``A`` is the same record turned round.

**Ratings.** OpenSkill Plackett–Luce per bot and game, updated once per counted match from the
recorded ranks; ``ordinal = mu - 3 sigma``.  Solitaire matches do not move ratings.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import asdict, dataclass, field
from typing import Any

from cardarena.engine.core import no_contest
from cardarena.names import name_order

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
    deal_scores: tuple[tuple[float, ...], ...] | None = None
    """Each deal's score per seat, in the order dealt (the engine's ``State.scores_by_deal``);
    ``None`` for results recorded without them."""
    forfeited: tuple[int, ...] = ()
    """Seats that forfeited (strikes, resignation, no-show): see "Forfeits" in the module docstring."""
    no_show: tuple[int, ...] = ()
    """Seats whose bot never joined (also in ``forfeited``); all of them: a no contest."""
    aborted: str = ""
    """Why the service stopped the match before its end (``action_limit``): a no contest."""

    @property
    def no_contest(self) -> bool:
        """Whether no bot joined the match, or it was stopped before its end (see "No contest"
        in the module docstring)."""
        return no_contest(len(self.seats), self.no_show, self.aborted)


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
    absent: bool = False
    """Seated in counted matches and joined none of them (see "Absent bots" in the module docstring)."""


@dataclass(slots=True)
class Standings:
    """The standings of one tournament."""

    rows: list[BotStanding]
    metric: str
    """``deal_margin`` or ``margin`` (multi-player) or ``score`` (solitaires); see the module docstring."""
    counted: int
    resamples: int

    def to_json(self) -> dict[str, Any]:
        """JSON form (stored as the snapshot, printed by ``--json``)."""
        return {
            "metric": self.metric,
            "counted": self.counted,
            "resamples": self.resamples,
            "rows": [finite_row(asdict(r)) for r in self.rows],
        }


def finite_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """``row`` with ``None`` for each number that is not finite (a bot with nothing counted has
    no mean: ``NaN``, which is not JSON and no spreadsheet value; see "No value")."""
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in row.items()}


def row_absent(row: Mapping[str, Any]) -> bool:
    """Whether a standings row (:meth:`Standings.to_json`, with ``no_shows``) is of an absent
    bot: its ``absent``, or for a snapshot stored before rows had it, whether it was a no-show
    in each of its (at least one) matches."""
    if "absent" in row:
        return bool(row["absent"])
    matches = row.get("matches") or 0
    return bool(matches) and int(row.get("no_shows") or 0) >= int(matches)


FAULT_FIELDS = ("strikes", "forfeits", "no_shows")
"""What :func:`fault_totals` counts per bot."""


def fault_totals(results: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Per bot seated in ``results`` (counted results: ``seats``, and ``strikes`` per seat, the
    ``forfeited`` and the ``no_show`` seats when recorded): its ``strikes`` (time-outs,
    disconnects, runs of illegal answers, handed-back requests), ``forfeits`` (matches it
    forfeited) and ``no_shows`` (matches it never joined: absent) in them.  A result that does
    not name its seats (counted by an earlier version), and a no contest (no bot joined, or
    stopped at its action limit: it is not in the standings either), are left out."""
    totals: dict[str, dict[str, int]] = {}
    for result in results:
        seats = result.get("seats")
        if not isinstance(seats, list):
            continue
        absent = result.get("no_show") or ()
        if no_contest(len(seats), absent, result.get("aborted")):
            continue
        strikes = result.get("strikes") or [0] * len(seats)
        forfeited = result.get("forfeited") or ()
        for seat, bot in enumerate(seats):
            row = totals.setdefault(bot, dict.fromkeys(FAULT_FIELDS, 0))
            row["strikes"] += int(strikes[seat])
            row["forfeits"] += seat in forfeited
            row["no_shows"] += seat in absent
    return totals


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


def has_deal_scores(o: Outcome) -> bool:
    """Whether ``o`` carries usable per-deal scores (at least one deal, one score per seat)."""
    return bool(o.deal_scores) and all(len(deal) == len(o.seats) for deal in o.deal_scores or ())


def common_prefix(group: Sequence[Outcome]) -> int:
    """The number of deals every match of ``group`` (one deal set) played."""
    return min(len(o.deal_scores or ()) for o in group) if group else 0


def seat_metrics(
    group: Sequence[Outcome], *, metric: str = "deal_margin", higher_is_better: bool = True
) -> list[tuple[float, ...]]:
    """Each match's per-seat metric within its deal set ``group`` (see the module docstring).

    ``deal_margin``: the mean per-deal margin over the deals all matches of ``group`` played
    (every outcome must carry deal scores, see :func:`has_deal_scores`); ``margin``: the final
    score margin; ``score``: the final score.
    """
    if metric == "score":
        return [tuple(float(x) for x in o.scores) for o in group]
    if metric == "margin":
        values = [tuple(match_margin(o.scores, s, higher_is_better) for s in range(len(o.seats))) for o in group]
    elif metric == "deal_margin":
        deals = common_prefix(group)
        values = []
        for o in group:
            played = (o.deal_scores or ())[:deals]
            values.append(
                tuple(sum(match_margin(d, s, higher_is_better) for d in played) / deals for s in range(len(o.seats)))
            )
    else:
        raise ValueError(f"unknown metric {metric!r}")
    return [forfeits_last(v, o.forfeited, o.no_show) for v, o in zip(values, group, strict=True)]


def forfeits_last(
    values: tuple[float, ...], forfeited: Sequence[int], no_show: Sequence[int] = ()
) -> tuple[float, ...]:
    """A table's margins with forfeiting seats holding the lowest ones, the no-shows the very
    lowest, shared equally among them (see "Forfeits")."""
    gone, absent = set(forfeited) | set(no_show), set(no_show)
    if not gone or len(gone) >= len(values):
        return values
    # who gets the k-th best: those who did not forfeit, those who forfeited, the no-shows
    order = sorted(range(len(values)), key=lambda s: (s in gone, s in absent, -values[s]))
    ranked = sorted(values, reverse=True)
    out = [0.0] * len(values)
    for place, seat in enumerate(order):
        out[seat] = ranked[place]
    if absent:
        share = sum(out[s] for s in absent) / len(absent)
        for s in absent:
            out[s] = share
    return tuple(out)


def choose_metric(outcomes: Sequence[Outcome], *, solitaire: bool = False, deals_fixed_by_seed: bool = False) -> str:
    """The primary metric for these outcomes: ``score`` for solitaires; ``deal_margin`` when the
    game's deals are fixed by the seed and every outcome has deal scores; else ``margin``."""
    if solitaire:
        return "score"
    if deals_fixed_by_seed and all(has_deal_scores(o) for o in outcomes):
        return "deal_margin"
    return "margin"


def _metrics_by_outcome(
    outcomes: Sequence[Outcome], metric: str, higher_is_better: bool
) -> dict[int, tuple[float, ...]]:
    """Each outcome's per-seat ``metric`` (by ``id(outcome)``), taken within its deal set
    (:func:`seat_metrics`)."""
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[o.deal_set].append(o)
    metrics: dict[int, tuple[float, ...]] = {}
    for group in groups.values():
        values = seat_metrics(group, metric=metric, higher_is_better=higher_is_better)
        metrics.update((id(o), v) for o, v in zip(group, values, strict=True))
    return metrics


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
    deals_fixed_by_seed: bool = False,
    resamples: int = 1000,
    seed: int = 0,
) -> Standings:
    """Standings of ``entrants`` from counted ``outcomes`` (see the module docstring).

    ``deals_fixed_by_seed`` is the game's ``Game.deals_fixed_by_seed``: whether its matches may
    be compared deal by deal.
    """
    sign = 1.0 if (higher_is_better or not solitaire) else -1.0
    counted = len(outcomes)
    seated = {bot for o in outcomes for bot in o.seats}
    came = {bot for o in outcomes for seat, bot in enumerate(o.seats) if seat not in o.no_show}
    outcomes = [o for o in outcomes if not o.no_contest]  # "No contest": counted, ranks nobody
    metric_name = choose_metric(outcomes, solitaire=solitaire, deals_fixed_by_seed=deals_fixed_by_seed)
    metrics = _metrics_by_outcome(outcomes, metric_name, higher_is_better)
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
            metric = metrics[id(o)][seat]
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
    absent = {b for b in rows if b in seated and b not in came}  # see "Absent bots"
    order = _placed(rows, absent)
    lo_q, hi_q = (1 - Z_LEVEL) / 2, 1 - (1 - Z_LEVEL) / 2
    for i, bot in enumerate(order):
        row = rows[bot]
        samples = sorted(x for x in boot[bot] if x == x)
        row.ci_low, row.ci_high = _percentile(samples, lo_q), _percentile(samples, hi_q)
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
        metric=metric_name,
        counted=counted,
        resamples=resamples,
    )


def _placed(rows: Mapping[str, BotStanding], absent: Set[str]) -> list[str]:
    """The bots of ``rows`` in the standings' order, each row given its ``rank`` and ``absent``
    (see "Places" and "Absent bots"): best mean first, the bots without a mean next, the absent
    ones last; bots sharing a place in the order people look for names (:func:`name_order`)."""
    by_mean = sorted(rows, key=lambda b: (b in absent, -(rows[b].mean if rows[b].deal_sets else float("-inf")), b))
    for i, bot in enumerate(by_mean):
        row = rows[bot]
        row.absent = bot in absent
        prev = rows[by_mean[i - 1]] if i else None
        # an absent bot is level with the other absent ones only, whatever the means
        level = prev is not None and ({prev.bot, bot} <= absent or (bot not in absent and _same(prev.mean, row.mean)))
        row.rank = prev.rank if prev is not None and level else i + 1
    return sorted(by_mean, key=lambda b: (rows[b].rank, name_order(b)))


def _same(a: float, b: float) -> bool:
    return (a != a and b != b) or abs(a - b) <= 1e-9


# --------------------------------------------------------------------------- crosstable
@dataclass(frozen=True, slots=True)
class PairRecord:
    """How one bot did against one opponent over the matches where both sat (see "Crosstable"
    in the module docstring), from the first bot's side."""

    matches: int
    """Matches where both sat."""
    ahead: int
    """Of those, matches where the bot placed better than the opponent (by the recorded ranks)."""
    behind: int
    level: int
    """Matches where they shared a place."""
    deal_sets: int
    """Deal sets where both sat: the units of the mean and of its bootstrap."""
    mean: float
    """The bot's mean metric minus the opponent's, per deal set (positive: the bot did better)."""
    ci_low: float
    ci_high: float
    """95 % percentile bootstrap interval of ``mean`` over those deal sets."""
    significant: bool
    """Whether the interval excludes 0 and both played at least :data:`MIN_DEAL_SETS` deal sets together."""

    def flipped(self) -> PairRecord:
        """The same record from the opponent's side."""
        return PairRecord(
            self.matches,
            self.behind,
            self.ahead,
            self.level,
            self.deal_sets,
            0.0 - self.mean,  # 0.0, never -0.0
            0.0 - self.ci_high,
            0.0 - self.ci_low,
            self.significant,
        )


def significant(deal_sets: int, ci_low: float, ci_high: float) -> bool:
    """Whether a crosstable difference over ``deal_sets`` with this interval is significant."""
    return deal_sets >= MIN_DEAL_SETS and (ci_low > 0 or ci_high < 0)


@dataclass(frozen=True, slots=True)
class Crosstable:
    """Every pair of bots' record against each other (see "Crosstable" in the module docstring)."""

    bots: tuple[str, ...]
    """The bots in the standings' order."""
    pairs: Mapping[tuple[int, int], PairRecord]
    """``(i, j)`` with ``i < j``: ``bots[i]`` against ``bots[j]``; a pair that never met is absent."""
    metric: str
    """The standings' primary metric the differences are in (``deal_margin`` or ``margin``)."""
    counted: int
    resamples: int

    def at(self, i: int, j: int) -> PairRecord | None:
        """``bots[i]``'s record against ``bots[j]``; ``None`` if they never met (or ``i == j``)."""
        if i < j:
            return self.pairs.get((i, j))
        found = self.pairs.get((j, i)) if j < i else None
        return found.flipped() if found is not None else None

    def record(self, bot: str, opponent: str) -> PairRecord | None:
        """``bot``'s record against ``opponent``; ``None`` if they never met (or either is unknown)."""
        if bot not in self.bots or opponent not in self.bots:
            return None
        return self.at(self.bots.index(bot), self.bots.index(opponent))

    def items(self, bot: str | None = None) -> list[dict[str, Any]]:
        """Every ordered pair that met (only ``bot``'s, if given), by the bot's then the opponent's
        place in :attr:`bots`, as the API and ``tournament standings --crosstable --json`` give them."""
        out = []
        for i, a in enumerate(self.bots):
            if bot is not None and a != bot:
                continue
            for j, b in enumerate(self.bots):
                rec = self.at(i, j)
                if rec is None:
                    continue
                out.append(
                    {
                        "bot": a,
                        "opponent": b,
                        "matches": rec.matches,
                        "ahead": rec.ahead,
                        "behind": rec.behind,
                        "level": rec.level,
                        "deal_sets": rec.deal_sets,
                        "mean_diff": rec.mean,
                        "ci_low": rec.ci_low,
                        "ci_high": rec.ci_high,
                        "significant": rec.significant,
                    }
                )
        return out

    def to_json(self) -> dict[str, Any]:
        """The stored form, compact (one short list per unordered pair: ``[i, j, matches, ahead,
        behind, level, deal_sets, mean, ci_low, ci_high]``, rounded to 6 decimals)."""
        return {
            "metric": self.metric,
            "counted": self.counted,
            "resamples": self.resamples,
            "bots": list(self.bots),
            "pairs": [
                [
                    i,
                    j,
                    p.matches,
                    p.ahead,
                    p.behind,
                    p.level,
                    p.deal_sets,
                    *(round(x, 6) for x in (p.mean, p.ci_low, p.ci_high)),
                ]
                for (i, j), p in sorted(self.pairs.items())
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Crosstable:
        """The stored form back (:meth:`to_json`)."""
        pairs = {}
        for i, j, matches, ahead, behind, level, deal_sets, mean, low, high in data.get("pairs") or ():
            pairs[(int(i), int(j))] = PairRecord(
                int(matches),
                int(ahead),
                int(behind),
                int(level),
                int(deal_sets),
                float(mean),
                float(low),
                float(high),
                significant(int(deal_sets), float(low), float(high)),
            )
        return cls(
            bots=tuple(str(b) for b in data.get("bots") or ()),
            pairs=pairs,
            metric=str(data.get("metric", "")),
            counted=int(data.get("counted", 0)),
            resamples=int(data.get("resamples", 0)),
        )


EXACT_UP_TO = 5
"""Up to this many deal sets the crosstable's bootstrap is exact: every one of the ``n ** n``
equally likely resamples, weighted (at most 126 distinct ones), instead of random resamples."""


def bootstrap_interval(units: Sequence[float], resamples: int, rng: random.Random) -> tuple[float, float]:
    """The 95 % percentile bootstrap interval of the mean of ``units``: exact up to
    :data:`EXACT_UP_TO` units (the quantiles of the bootstrap distribution itself, which
    ``resamples`` random resamples only approach), else from ``resamples`` resamples drawn with
    ``rng``.  One unit (or no resamples): the mean itself."""
    n = len(units)
    mean = sum(units) / n
    lo_q, hi_q = (1 - Z_LEVEL) / 2, 1 - (1 - Z_LEVEL) / 2
    if n == 1 or resamples < 1:
        return mean, mean
    if n <= EXACT_UP_TO:
        weighted = []
        for combo in itertools.combinations_with_replacement(range(n), n):  # one resample's multiset
            ways = math.factorial(n)  # the orders it is drawn in
            for count in Counter(combo).values():
                ways //= math.factorial(count)
            weighted.append((sum(units[u] for u in combo) / n, ways))
        weighted.sort()
        total = n**n

        def quantile(q: float) -> float:
            seen = 0
            for value, ways in weighted:
                seen += ways
                if seen >= q * total:
                    return value
            return weighted[-1][0]

        return quantile(lo_q), quantile(hi_q)
    draws = iter(rng.choices(units, k=n * resamples))
    means = sorted(sum(resample) / n for resample in zip(*[draws] * n, strict=True))
    return _percentile(means, lo_q), _percentile(means, hi_q)


def crosstable(
    outcomes: Sequence[Outcome],
    bots: Sequence[str],
    *,
    higher_is_better: bool = True,
    deals_fixed_by_seed: bool = False,
    resamples: int = 1000,
    seed: int = 0,
) -> Crosstable:
    """The crosstable of ``bots`` (in the standings' order) from counted multi-player
    ``outcomes`` (see "Crosstable" in the module docstring): the metric is the standings'
    (:func:`choose_metric`), taken per match exactly as :func:`compute` takes it (deal sets'
    common prefixes, forfeits and no-shows last); a no contest says nothing about anyone and is
    left out, as there.  The bootstrap is seeded: the same outcomes give the same table."""
    counted = len(outcomes)
    outcomes = [o for o in outcomes if not o.no_contest]
    metric_name = choose_metric(outcomes, deals_fixed_by_seed=deals_fixed_by_seed)
    metrics = _metrics_by_outcome(outcomes, metric_name, higher_is_better)
    place = {b: i for i, b in enumerate(bots)}
    tallies: dict[tuple[int, int], list[int]] = {}  # matches, ahead, behind, level
    diffs: dict[tuple[int, int], dict[str, list[float]]] = {}  # per deal set, per match
    for o in outcomes:
        values = metrics[id(o)]
        seated = sorted((place[b], s) for s, b in enumerate(o.seats) if b in place)
        for n, (i, s) in enumerate(seated):
            for j, t in seated[n + 1 :]:
                if i == j:
                    continue
                tally = tallies.setdefault((i, j), [0, 0, 0, 0])
                tally[0] += 1
                tally[1 if o.ranks[s] < o.ranks[t] else 2 if o.ranks[s] > o.ranks[t] else 3] += 1
                diffs.setdefault((i, j), {}).setdefault(o.deal_set, []).append(values[s] - values[t])
    rng = random.Random(seed)
    pairs = {}
    for key in sorted(tallies):
        units = [sum(v) / len(v) for _, v in sorted(diffs[key].items())]
        n = len(units)
        mean = sum(units) / n
        low, high = bootstrap_interval(units, resamples, rng)
        matches, ahead, behind, level = tallies[key]
        pairs[key] = PairRecord(matches, ahead, behind, level, n, mean, low, high, significant(n, low, high))
    return Crosstable(tuple(bots), pairs, metric_name, counted, resamples)


# --------------------------------------------------------------------------- ratings
def rate_match(
    current: Mapping[str, Mapping[str, float]],
    seats: Sequence[str],
    ranks: Sequence[int],
    no_show: Sequence[int] = (),
    aborted: str = "",
) -> dict[str, dict[str, float]]:
    """New OpenSkill (Plackett–Luce) ratings of the seated bots after one match.

    ``current`` holds known ratings (``mu``, ``sigma``, ``matches``); unknown bots start at the
    model's defaults.  Returns ``{}`` for a one-player match (solitaires are not rated) and for
    a no contest (every seat in ``no_show``: no bot joined; or ``aborted``: stopped at its
    action limit; see the module docstring).
    """
    if len(seats) < 2 or no_contest(len(seats), no_show, aborted):
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
