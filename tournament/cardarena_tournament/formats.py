"""Tournament formats: who plays whom, in which seat, on which deal, in what order.

A pure module (no IO, no clock): :func:`schedule` turns entrants, a player count and a number
of deal sets into a list of :class:`ScheduledMatch`, each with a deterministic, opaque id
``tournament:<16 hex digits>`` (:func:`match_id_for`): a hash of the tournament seed and the
match's coordinates, so a bot that sees its match ids (and the public match lists) cannot tell
which of them replay the same deal.  Ids ``tournament:round:table:seating:deal`` were used
before; :func:`deal_set_ids` still reads them.

* **Tables.** Two-player games: a round robin by the circle method (with a bye for an odd
  field).  ``k``-player games: every ``k``-subset of the entrants while that is affordable
  (at most ``max_tables``), otherwise seeded balanced groups: rounds of ``len // k`` tables up
  to ``max_tables`` in all, byes going to whoever has played least, and each round's tables
  formed so that their members have met as little as possible so far (greedy, then improving
  swaps), which spreads the meetings over as many pairs as the tables allow.  Solitaires:
  every bot alone.
* **Seatings.** Each table's deal is replayed with the seats permuted: every permutation for 2
  and 3 players, the cyclic rotations for 4 or more.  So every bot sits in every seat equally
  often at its table, and luck of the deal cancels out within a *deal set* (one deal at one
  table, in all its seatings; the resampling unit of the standings).
* **Deals.** ``deal_sets`` deals per table, each with a seed derived from the tournament seed.
  Solitaires: deal ``d`` has the same seed for every bot, so each deal set is all bots on one
  deal.
* **Order.** Interleaved: the matches are played in passes, pass ``p`` plays every deal set
  once in its ``p``-th seating, each pass in its own seeded shuffle, so a repeated deal never
  comes back within the same pass.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_MAX_TABLES = 120
"""Above this many ``k``-subsets, ``k``-player formats use seeded balanced groups."""


class FormatError(ValueError):
    """Entrants, player count or deal sets that make no tournament."""


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    """One match of a tournament's schedule."""

    match_id: str
    """``tournament:<16 hex digits>`` (:func:`match_id_for`): opaque without the seed."""
    round: int
    """Round number (circle-method round, subset number or group round)."""
    table: int
    """Table within the round (solitaires: the bot's index)."""
    seating: int
    """Which permutation of the table's bots this match uses."""
    deal: int
    """Deal number within the table, ``0 .. deal_sets-1``."""
    seats: tuple[str, ...]
    """The bot in each seat."""
    seed: int
    """The match seed: the same for every seating of one deal."""
    deal_set: str
    """Key of the deal set (``round:table:deal``; solitaires ``deal``): the resampling unit."""


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from a tournament seed and coordinates (stable across platforms)."""
    text = "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def match_id_for(tournament_id: str, seed: int | str, round_: int, table: int, seating: int, deal: int) -> str:
    """The id of the match at these coordinates: ``tournament:`` and 16 hex digits of a hash
    of the seed and the coordinates.  Deterministic (a task that runs twice queues the same
    ids), and without the tournament's secret seed nothing in it links the seatings of a deal:
    the interleaved order is what hides a repeat, and a readable id would give it away."""
    digest = hashlib.sha256(f"match-id/{seed}/{round_}/{table}/{seating}/{deal}".encode()).hexdigest()
    return f"{tournament_id}:{digest[:16]}"


def deal_set_members(tournament_id: str, seed: int | str, deal_set: str, players: int, entrants: int) -> list[str]:
    """Every match id of the deal set ``deal_set`` (a :attr:`ScheduledMatch.deal_set`:
    ``round:table:deal``, solitaires ``deal``) of a tournament with this seed, ``players``
    seats per match and ``entrants`` bots; ``[]`` if ``deal_set`` is not of that form."""
    parts = deal_set.split(":")
    if not all(p.isascii() and p.isdigit() and str(int(p)) == p for p in parts):
        return []
    if players == 1 and len(parts) == 1:
        (d,) = (int(p) for p in parts)
        return [match_id_for(tournament_id, seed, 0, bot, 0, d) for bot in range(entrants)]
    if players < 2 or len(parts) != 3:
        return []
    r, t, d = (int(p) for p in parts)
    count = len(seatings([str(p) for p in range(players)]))
    return [match_id_for(tournament_id, seed, r, t, s, d) for s in range(count)]


def seatings(table: Sequence[str]) -> list[tuple[str, ...]]:
    """The seat orders a table's deal is played in (permutations for 1-3, rotations for 4+)."""
    k = len(table)
    if k <= 3:
        return [tuple(p) for p in itertools.permutations(table)]
    return [tuple(table[(i + r) % k] for i in range(k)) for r in range(k)]


def circle_rounds(entrants: Sequence[str]) -> list[list[tuple[str, str]]]:
    """Round-robin pairings by the circle method; with an odd field one bot sits out per round."""
    field: list[str | None] = list(entrants)
    if len(field) % 2:
        field.append(None)
    n = len(field)
    rounds: list[list[tuple[str, str]]] = []
    for r in range(n - 1):
        pairs: list[tuple[str, str]] = []
        for i in range(n // 2):
            a, b = field[i], field[n - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b) if r % 2 == 0 else (b, a))
        rounds.append(pairs)
        field = [field[0], field[-1], *field[1:-1]]
    return rounds


def _balanced_groups(entrants: Sequence[str], k: int, seed: int | str, max_tables: int) -> list[list[tuple[str, ...]]]:
    rng = random.Random(derive_seed(seed, "groups"))
    per_round = len(entrants) // k
    rounds = max(1, math.ceil(max_tables / per_round))
    played = dict.fromkeys(entrants, 0)
    meets: dict[tuple[str, str], int] = {}
    out: list[list[tuple[str, ...]]] = []
    for _ in range(rounds):
        order = list(entrants)
        rng.shuffle(order)
        order.sort(key=lambda b: played[b])  # stable: fewest matches first, shuffled within
        chosen = order[: per_round * k]
        rng.shuffle(chosen)
        groups = _fresh_groups(chosen, k, meets, rng)
        for group in groups:
            for a, b in itertools.combinations(group, 2):
                meets[a, b] = meets[b, a] = meets.get((a, b), 0) + 1
        for bot in chosen:
            played[bot] += 1
        out.append([tuple(g) for g in groups])
    return out


def _fresh_groups(bots: list[str], k: int, meets: dict[tuple[str, str], int], rng: random.Random) -> list[list[str]]:
    """``bots`` cut into groups of ``k`` whose members have met as little as possible so far:
    each group grown greedily from the next bot (by fewest earlier meetings with the group),
    then random swaps between groups kept when they lower the repeat meetings."""

    def cost(group: Sequence[str]) -> int:
        return sum(meets.get((a, b), 0) for a, b in itertools.combinations(group, 2))

    free = list(bots)
    groups: list[list[str]] = []
    while free:
        group = [free.pop(0)]
        while len(group) < k:
            best = min(range(len(free)), key=lambda i: sum(meets.get((free[i], g), 0) for g in group))
            group.append(free.pop(best))
        groups.append(group)
    if len(groups) > 1:
        for _ in range(30 * len(groups)):
            i, j = rng.sample(range(len(groups)), 2)
            a, b = rng.randrange(k), rng.randrange(k)
            gi, gj = groups[i], groups[j]
            before = cost(gi) + cost(gj)
            gi[a], gj[b] = gj[b], gi[a]
            if cost(gi) + cost(gj) > before:
                gi[a], gj[b] = gj[b], gi[a]  # no better: undo
    return groups


def tables(
    entrants: Sequence[str], players: int, *, seed: int | str = 0, max_tables: int = DEFAULT_MAX_TABLES
) -> list[list[tuple[str, ...]]]:
    """Tables per round: who sits together (seat order still to be permuted)."""
    check_field(entrants, players)
    if players == 1:
        return [[(bot,) for bot in entrants]]
    if players == 2:
        return [list(r) for r in circle_rounds(entrants)]
    if math.comb(len(entrants), players) <= max_tables:
        return [[tuple(c)] for c in itertools.combinations(entrants, players)]
    return _balanced_groups(entrants, players, seed, max_tables)


def check_field(entrants: Sequence[str], players: int) -> None:
    """Raise :class:`FormatError` unless the entrants can fill tables of ``players``."""
    if players < 1:
        raise FormatError(f"players must be at least 1, not {players}")
    if len(set(entrants)) != len(entrants):
        dupes = sorted({b for b in entrants if list(entrants).count(b) > 1})
        raise FormatError(f"entrants must be distinct; repeated: {', '.join(dupes)}")
    for bot in entrants:
        if not bot or ":" in bot:
            raise FormatError(f"bad bot name {bot!r}: must be non-empty and contain no ':'")
    if players > 1 and len(entrants) < players:
        raise FormatError(f"{players}-player tables need at least {players} entrants, got {len(entrants)}")
    if not entrants:
        raise FormatError("no entrants")


def deal_set_ids(tournament_id: str, match_id: str, players: int, entrants: int) -> list[str] | None:
    """Every match id of the deal set ``match_id`` belongs to (the same cards: every seating of
    its deal; solitaires: every bot's match on its deal), itself included, in a tournament of
    ``players`` seats per match and ``entrants`` bots, for the readable ids
    ``tournament:round:table:seating:deal`` of tournaments started by earlier versions;
    ``None`` for any other id (today's opaque ids: :func:`deal_set_members`)."""
    prefix = f"{tournament_id}:"
    parts = match_id[len(prefix) :].split(":") if match_id.startswith(prefix) else []
    if len(parts) != 4 or not all(p.isascii() and p.isdigit() and str(int(p)) == p for p in parts):
        return None
    r, t, _, d = parts
    if players == 1:
        return [f"{tournament_id}:0:{bot}:0:{d}" for bot in range(entrants)]
    return [f"{tournament_id}:{r}:{t}:{s}:{d}" for s in range(len(seatings([str(p) for p in range(players)])))]


def schedule(
    tournament_id: str,
    entrants: Sequence[str],
    players: int,
    deal_sets: int,
    *,
    seed: int | str = 0,
    max_tables: int = DEFAULT_MAX_TABLES,
) -> list[ScheduledMatch]:
    """Every match of a tournament, in play order (interleaved; see the module docstring)."""
    if not tournament_id or ":" in tournament_id:
        raise FormatError(f"bad tournament id {tournament_id!r}: must be non-empty and contain no ':'")
    if deal_sets < 1:
        raise FormatError(f"deal sets must be at least 1, not {deal_sets}")
    layout = tables(entrants, players, seed=seed, max_tables=max_tables)
    # passes[p] holds the p-th seating of every deal set
    units: list[list[ScheduledMatch]] = []
    for r, round_tables in enumerate(layout):
        for t, table in enumerate(round_tables):
            orders = seatings(table)
            for d in range(deal_sets):
                if players == 1:
                    deal_seed, unit = derive_seed(seed, "deal", d), str(d)
                else:
                    deal_seed, unit = derive_seed(seed, r, t, d), f"{r}:{t}:{d}"
                units.append(
                    [
                        ScheduledMatch(
                            match_id=match_id_for(tournament_id, seed, r, t, s, d),
                            round=r,
                            table=t,
                            seating=s,
                            deal=d,
                            seats=order,
                            seed=deal_seed,
                            deal_set=unit,
                        )
                        for s, order in enumerate(orders)
                    ]
                )
    if len({m.match_id for unit in units for m in unit}) != sum(len(unit) for unit in units):
        raise FormatError("two matches hashed to one id: choose another seed")  # 64 bits: never seen
    rng = random.Random(derive_seed(seed, tournament_id, "order"))
    ordered: list[ScheduledMatch] = []
    for p in range(len(units[0]) if units else 0):
        this_pass = [unit[p] for unit in units]
        rng.shuffle(this_pass)
        ordered.extend(this_pass)
    return ordered
