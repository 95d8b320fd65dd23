"""The contract every game implements: :class:`Game` (static facts and a factory) and
:class:`State` (one match, from the first deal to the result), plus the typed errors.

The contract covers all games of the product:

* **Turns.** :meth:`State.to_act` returns the seats whose decision is awaited *now*.  One
  seat for ordinary turns; several seats at once for simultaneous secret choices (each seat
  answers independently and nothing is revealed until all have answered); an empty tuple
  once the match is over.  Reaction windows (Coup's challenges) are modelled as a sequence of
  single-seat decisions in turn order, or as several seats at once where any may answer.
* **Chance.** When the rules need randomness (a deal, a random discard) the state stops at a
  chance node: ``to_act() == (CHANCE,)``.  The driver calls :meth:`State.sample_chance` with
  the match's :class:`~cardarena.engine.rng.MatchRng` and feeds the outcome (a JSON-able
  dict) back through :meth:`State.apply_chance`.  Rules never hold an RNG, and a replay
  carries every outcome, so it re-runs without the seed.
* **Actions** are stable strings (``play:QH``, ``bid:13``, ``pass``).  :meth:`State.legal_actions`
  lists what is allowed, each in its one spelling, and :meth:`State.apply` accepts exactly those
  ids: it checks the action before any state changes and raises :class:`IllegalAction` with a
  reason a bot author can act on for any other (``exchange:3H:2D`` when the legal id is
  ``exchange:2D:3H``, ``bid:040``, ``pass:``); :meth:`State.check` returns that reason.
* **Views.** :meth:`State.view` is everything one seat may see (its hand, public cards,
  public knowledge); a spectator view (``seat=None``) shows public information only.
* **Log.** Every applied action and chance outcome is recorded per deal; replays, spectator
  streams and tests read the same record.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar

from .rng import MatchRng

CHANCE = -1
"""The pseudo-seat that acts at a chance node."""

JSON = Any
"""A JSON-compatible value (dict, list, str, int, float, bool or None)."""

HiddenInformation = Literal["secrets", "none", "own_tests"]
"""How a game declares what it hides (:attr:`Game.hidden_information`)."""


class GameError(ValueError):
    """Base class of the errors the rules raise on bad input."""


class IllegalAction(GameError):
    """An action that the rules do not allow now; ``reason`` says why."""

    def __init__(self, reason: str, *, seat: int | None = None, action: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        self.action = action


class NotYourTurn(IllegalAction):
    """The seat is not among the seats asked to act."""


class UnknownAction(IllegalAction):
    """The action id is not of any form this game knows."""


class InvalidOptions(GameError):
    """Match options or player count that the game does not support."""


class InvalidChance(GameError):
    """A chance outcome that is inconsistent with the state (a corrupt replay)."""


@dataclass(frozen=True, slots=True)
class ActionInfo:
    """The typed payload of an action id, as sent to bots next to the id."""

    id: str
    """The stable action id, e.g. ``play:QH``."""
    kind: str
    """What sort of action it is: ``play``, ``bid``, ``pass``, ``double`` ..."""
    label: str
    """A short human label, e.g. ``play Q\u2665``."""
    cards: tuple[str, ...] = ()
    """Cards the action names, as card codes."""
    amount: int | None = None
    """A number the action carries (a bid, a raise, a count of stakes)."""
    target: int | None = None
    """A seat the action names (a Coup target, a Skull pile)."""
    choice: str | None = None
    """Any other named option (a Coup character, a Truc answer)."""


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of a finished match."""

    scores: tuple[float, ...]
    """Each seat's final score (match points, chips, stakes ...)."""
    ranks: tuple[int, ...]
    """Each seat's place: 1 is first; tied seats share a place (1, 1, 3)."""
    won: tuple[bool, ...] | None = None
    """Per seat, whether the seat won the game by the game's own standard; set by games that
    define winning apart from rank, e.g. solitaires (``None``: the game does not say)."""

    def to_json(self) -> dict[str, JSON]:
        """The JSON form used in replays (``won`` only when set)."""
        out: dict[str, JSON] = {"scores": list(self.scores), "ranks": list(self.ranks)}
        if self.won is not None:
            out["won"] = list(self.won)
        return out


@dataclass(frozen=True, slots=True)
class OptionRange:
    """The inclusive range of an integer option, and what a special value means."""

    low: int
    high: int
    note: str = ""
    """What a value means beyond its number, e.g. ``0: play to the target``."""

    def __str__(self) -> str:
        text = f"from {self.low} to {self.high}"
        return f"{text} ({self.note})" if self.note else text


def ranks_from_scores(scores: Sequence[float], *, higher_is_better: bool = True) -> tuple[int, ...]:
    """Competition ranks (1, 1, 3 ...) from scores; equal scores share a place."""
    sign = -1 if higher_is_better else 1
    return tuple(1 + sum(1 for o in scores if sign * o < sign * s) for s in scores)


def forfeit_ranks(
    ranks: Sequence[int],
    scores: Sequence[float],
    forfeited: Collection[int],
    higher_is_better: bool = True,
    no_show: Collection[int] = (),
) -> tuple[int, ...]:
    """A match's ranks with its forfeiting seats last (a platform rule, shared by the service and
    the SDK's local mode): the other seats keep their order, the forfeiting ones follow, ordered
    among themselves by score, and the ``no_show`` seats (forfeited from the start: their bot
    never joined, so the default actions alone played them) come last and share that place, as
    nothing they did tells them apart.  When no seat joined, every seat shares the one place."""
    sign = -1 if higher_is_better else 1
    keys = [
        (True, True, 0, 0.0)
        if s in no_show
        else (s in forfeited, False, ranks[s], sign * scores[s] if s in forfeited else 0.0)
        for s in range(len(ranks))
    ]
    return tuple(1 + sum(1 for other in keys if other < mine) for mine in keys)


MAX_ACTIONS = 100_000
"""The platform's default limit on the player actions of one match (a platform rule, shared by
the service's ``FaultPolicy.max_actions``, the SDK's local mode, ``cardarena simulate`` and the
conformance suite): a match still going after that many is stopped, a no contest with the
reason :data:`ACTION_LIMIT`.  Far above any real match (the longest games play a few thousand
actions), so only a match that loops reaches it."""
ACTION_LIMIT = "action_limit"
"""Why a match was stopped before its end (a result's ``aborted``): it reached its action limit."""
ACTION_LIMIT_REASON = (
    ACTION_LIMIT + ": the match did not end within its {limit} actions (max_actions): the game loops, or the "
    "bots found a loop in it; it was stopped and recorded as a no contest (its replay is kept) and is not played "
    "again"
)
"""What the bots are told of a match stopped at its action limit (``MatchEnd.reason``, status
``aborted``; ``{limit}``: the limit): :data:`ACTION_LIMIT`, a colon, then why."""


def no_contest(players: int, no_show: Collection[int], aborted: object = None) -> bool:
    """Whether a match of ``players`` seats is a *no contest*, which ranks nobody (tournaments
    leave it out of their standings and ratings): no bot at all joined it (every seat in
    ``no_show``: it was played out by default actions only so that it ends), or it was stopped
    before its end (``aborted``, the recorded result's reason, e.g. :data:`ACTION_LIMIT`)."""
    return bool(aborted) or (players > 0 and len(set(no_show)) >= players)


@dataclass(slots=True)
class DealRecord:
    """One deal of a match as the replay stores it."""

    dealer: int
    """The seat that dealt."""
    chance: dict[str, JSON]
    """The outcome that opened the deal (hands, stock, trump card ...)."""
    actions: list[tuple[int, str]] = field(default_factory=list)
    """``(seat, action)`` in order; ``seat == CHANCE`` for a later chance outcome (JSON text)."""
    scores: list[float] | None = None
    """That deal's score per seat, once it is over."""

    def copy(self) -> DealRecord:
        """An independent copy (for :meth:`State.clone`); the chance outcome is shared, as it
        is never changed once applied."""
        return DealRecord(
            self.dealer, self.chance, list(self.actions), None if self.scores is None else list(self.scores)
        )


class Game(ABC):
    """Static facts about a game and the factory of its states."""

    id: ClassVar[str]
    """Lowercase snake-case game id, e.g. ``glaves``."""
    name: ClassVar[str]
    """Display name."""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    summary: ClassVar[str] = ""
    """A short rules summary for people (the dashboard's games page)."""
    higher_is_better: ClassVar[bool] = True
    """Whether a higher final score is better (Golf: lower)."""
    hidden_information: ClassVar[HiddenInformation] = "secrets"
    """How the game declares what it hides (:meth:`State.secrets` is required either way):
    ``"secrets"`` (the default): :meth:`State.secrets` lists the hidden tokens (card codes) and
    the conformance suite checks that no view shows one, alone or inside a string, and that the
    list is not always empty; ``"none"``: nothing is hidden, ``secrets()`` is always empty;
    ``"own_tests"``: hidden information that tokens cannot name (Skull: every rose looks
    alike), so ``secrets()`` is empty and the game's own tests compare the views of states that
    differ only in a hidden card (the module docstring says which)."""
    deals_fixed_by_seed: ClassVar[bool] = False
    """Whether the ``k``-th deal of a match (its cards and its dealer) is a function of the match
    seed and ``k`` alone, whatever is played: the match RNG is drawn from only when a deal
    opens, the same draws for every deal, and never during a deal.  Then every seating of a
    duplicate deal set is dealt the same ``k``-th deal, the hands following the seats.  It also
    promises that the final scores are the sums of the deals' scores (:meth:`State.scores_by_deal`),
    so a deal's score is its share of the result.  Tournaments compare such matches deal by deal
    (``cardarena_tournament.standings``).
    ``False`` (the default) for games that draw during a deal (a reshuffle, a random discard)
    or whose draws depend on play; set only where a test checks it (``tests/test_duplicate_deals.py``)."""

    @property
    def player_counts(self) -> tuple[int, ...]:
        """Every supported player count (default: ``min_players`` to ``max_players``).

        A game with gaps (Le Truc: 2 or 4) overrides it; everything that lists seatings (the
        conformance suite, tournaments, benchmarks) uses this, never the range.
        """
        return tuple(range(self.min_players, self.max_players + 1))

    @property
    def solitaire(self) -> bool:
        """Whether this is a one-player score attack."""
        return self.max_players == 1

    def check_players(self, players: int) -> None:
        """Raise :class:`InvalidOptions` unless the player count is supported."""
        counts = self.player_counts
        if players not in counts:
            if len(counts) == 1:
                span = str(counts[0])
            elif counts == tuple(range(counts[0], counts[-1] + 1)):
                span = f"{counts[0]} to {counts[-1]}"
            else:
                span = ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}"
            raise InvalidOptions(f"{self.name} is played by {span} players, not {players}")

    def options(self, players: int, options: Mapping[str, JSON] | None = None) -> dict[str, JSON]:
        """The full, validated options for a match (defaults filled in).

        The platform validates a match's options with this method alone before the match is
        queued, so it must reject everything :meth:`new_state` would not play: unknown keys,
        wrong types (``None`` included) and values out of range (:meth:`option_ranges`).  A
        game with further constraints (options that only go together) extends it.
        """
        self.check_players(players)
        defaults = self.option_defaults(players)
        given = dict(options or {})
        unknown = sorted(set(given) - set(defaults))
        if unknown:
            raise InvalidOptions(
                f"unknown option(s) for {self.id}: {', '.join(unknown)}; known: {', '.join(sorted(defaults)) or 'none'}"
            )
        merged = {**defaults, **given}
        for key, value in merged.items():
            default = defaults[key]
            if default is not None and type(value) is not type(default):
                raise InvalidOptions(f"option {key} must be a {type(default).__name__}, got {value!r}")
        for key, bounds in self.option_ranges(players).items():
            value = merged[key]
            if isinstance(value, int) and not bounds.low <= value <= bounds.high:
                raise InvalidOptions(f"option {key} must be {bounds}, got {value!r}")
        return merged

    def option_defaults(self, players: int) -> dict[str, JSON]:
        """Every option this game knows, with its default for ``players``."""
        return {}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        """The allowed range of every integer option (the conformance suite requires one for
        each); :meth:`options` rejects a value outside it."""
        return {}

    def teams(self, players: int, options: Mapping[str, JSON]) -> tuple[int, ...] | None:
        """Team number per seat for team games, else ``None``."""
        return None

    @abstractmethod
    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> State:
        """A fresh match, stopped at its first chance node (the first deal)."""

    def describe(self, action: str) -> ActionInfo:
        """The typed payload of an action id (default: ``kind:card[:card...]`` or ``kind``)."""
        kind, _, rest = action.partition(":")
        parts = tuple(p for p in rest.split(":") if p) if rest else ()
        return ActionInfo(id=action, kind=kind, label=action.replace(":", " "), cards=parts)


class State(ABC):
    """One match in progress.  Mutable; every change goes through ``apply*``."""

    game: Game
    players: int
    options: dict[str, JSON]

    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """Seats whose decision is awaited: ``(CHANCE,)`` at a chance node, ``()`` when over."""

    def is_terminal(self) -> bool:
        """Whether the match is over."""
        return not self.to_act()

    def is_chance(self) -> bool:
        """Whether the state waits for a chance outcome."""
        return self.to_act() == (CHANCE,)

    @abstractmethod
    def legal_actions(self, seat: int) -> tuple[str, ...]:
        """The action ids ``seat`` may choose now (empty if it is not asked to act)."""

    @abstractmethod
    def apply(self, seat: int, action: str) -> None:
        """Check and apply one action; raises :class:`IllegalAction` and changes nothing then.

        Accepts exactly the ids of :meth:`legal_actions` (never another spelling of one)."""

    @abstractmethod
    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        """Draw the pending chance outcome from ``rng`` (does not apply it)."""

    @abstractmethod
    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        """Apply a chance outcome; raises :class:`InvalidChance` if it does not fit."""

    @abstractmethod
    def view(self, seat: int | None) -> Any:
        """What ``seat`` may see now (``None``: a spectator's public view)."""

    @abstractmethod
    def view_json(self, seat: int | None) -> dict[str, JSON]:
        """:meth:`view` as JSON."""

    @abstractmethod
    def result(self) -> Result:
        """The final result; only once :meth:`is_terminal`."""

    @abstractmethod
    def deal_records(self) -> list[DealRecord]:
        """The match so far, deal by deal (the replay's source)."""

    def scores_by_deal(self) -> list[list[float]] | None:
        """Each deal's score per seat, in the order dealt (from :meth:`deal_records`); ``None``
        unless every deal so far has its scores (a game that does not score deals, or a deal
        still in play)."""
        records = self.deal_records()
        if not records or any(r.scores is None for r in records):
            return None
        return [[float(x) for x in r.scores or ()] for r in records]

    def public_action(self, viewer: int | None, seat: int, action: str) -> str | None:
        """What ``viewer`` learns when ``seat`` takes ``action``.

        The default is the action itself (trick play is public); games with secret choices
        return a redacted form (``place``) or ``None``.
        """
        return action

    def check(self, seat: int, action: str) -> str | None:
        """The reason ``action`` is illegal for ``seat`` now, or ``None`` if it is legal, i.e.
        one of :meth:`legal_actions` (the only ids :meth:`apply` accepts)."""
        if action in self.legal_actions(seat):
            return None
        try:
            clone = self.clone()
            clone.apply(seat, action)
        except IllegalAction as exc:
            return exc.reason
        # apply breaking the contract (accepting an id legal_actions does not list) is a bug of
        # the game, which the conformance suite catches; the id is still not legal
        return f"{action!r} is not one of the legal actions"

    @abstractmethod
    def clone(self) -> State:
        """An independent copy."""

    def invariants(self) -> list[str]:
        """Broken invariants of the current state (cards conserved ...); empty when sound.

        The conformance suite calls it after every transition of every game.
        """
        return []

    @abstractmethod
    def secrets(self, seat: int | None) -> frozenset[str]:
        """Tokens (card codes ...) that ``seat`` must not be able to see now.

        The information-leak check of the conformance suite relies on it alone: it fails when
        one of them occurs in ``view_json(seat)``, as a value or inside a string (``"5D,6H"``).
        Every game implements it, so hidden information is never left undeclared by a
        default; a game that hides nothing returns ``frozenset()`` and says so with
        :attr:`Game.hidden_information` ``= "none"``.
        """


class FieldsView:
    """Base of views whose public fields are properties: equality, hash and repr come from the
    values of the names in ``_FIELDS`` (declared once per view class)."""

    __slots__ = ()
    _FIELDS: ClassVar[tuple[str, ...]] = ()

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        pairs = ", ".join(f"{k}={v!r}" for k, v in zip(self._FIELDS, self._fields(), strict=True))
        return f"{type(self).__name__}({pairs})"


_T = TypeVar("_T")


def replaced(values: tuple[_T, ...], index: int, value: _T) -> tuple[_T, ...]:
    """``values`` with the item at ``index`` replaced by ``value`` (states that keep per-seat
    data in tuples, so views can share them)."""
    return values[:index] + (value,) + values[index + 1 :]


class SnapshotView:
    """Base of views built cheaply from a snapshot tuple and decoded on first access.

    ``view()`` is called for every decision, so a game's view captures only references to
    immutable parts of the state (``_s``) and builds its JSON form in :meth:`_decode` the
    first time it is read; :meth:`to_json` and ``view[key]`` share that one decoding.  A
    subclass whose decoded data shares mutable objects with the state overrides
    :meth:`to_json` to return a copy.
    """

    __slots__ = ("_data", "_s", "seat")

    def __init__(self, snapshot: tuple[Any, ...], seat: int | None) -> None:
        self._s = snapshot
        self._data: dict[str, JSON] | None = None
        self.seat = seat

    def _decode(self) -> dict[str, JSON]:
        """Build the JSON form from the snapshot."""
        raise NotImplementedError

    def _json(self) -> dict[str, JSON]:
        data = self._data
        if data is None:
            data = self._data = self._decode()
        return data

    def __getitem__(self, key: str) -> Any:
        return self._json()[key]

    def to_json(self) -> dict[str, JSON]:
        """The view as a JSON object."""
        return self._json()


def public_forms(state: State, seat: int, action: str, viewers: Sequence[int]) -> list[str]:
    """The distinct forms of ``seat``'s ``action`` that the seats ``viewers`` (held by one
    client) see, each once, the acting seat's own form first if it is among them: what one
    bot session is told of an action (a platform rule, shared by the service and the SDK's
    local mode)."""
    order = [seat, *(v for v in viewers if v != seat)] if seat in viewers else list(viewers)
    forms: list[str] = []
    for viewer in order:
        seen = state.public_action(viewer, seat, action) or ""
        if seen not in forms:
            forms.append(seen)
    return forms
