"""Gridcannon: a one-player score attack on a 3x3 grid of number cards (id ``gridcannon``).

Rules ("Gridcannon rules" of the original rules document and the team's rulings, not distributed
here; ``docs/games/gridcannon.md``):

* 54 cards: the 52 plus two jokers, coded ``RJ`` (red joker) and ``BJ`` (black joker).
  Values: numbers 2-10 face value, J 11, Q 12, K 13, aces and jokers are ploys.
* Setup: draw from the top; number cards fill the grid row by row (positions 0-8, row-major),
  royals (J, Q, K) drawn are set aside and then placed in the order drawn, aces and jokers
  become ploys.  Then the player may replace one grid card (``replace:<pos>``; ``keep`` not
  to): it goes to the bottom of the draw pile and the next number card replaces it (royals,
  aces and jokers drawn meanwhile are handled as in setup).
* Royal placement: in one of the 12 slots around the grid (``T0-T2`` above the columns,
  ``B0-B2`` below, ``L0-L2`` left of the rows, ``R0-R2`` right), next to the edge grid
  card most similar to it: highest card of the same suit, else of the same colour, else the
  highest card.  Ties and corners give a choice (``royal:<slot>``); a unique spot is taken
  automatically unless a ploy could be used first.  A slot holding a dead royal stays taken.
* Turn: the top card is drawn.  A royal is placed; an ace or joker becomes a ploy; a number
  card must be placed (``place:<pos>``) on a stack whose top is the same or lower value.
* Attack: placing a card on an edge so that two grid cards lie between it and a living royal
  on the opposite side attacks that royal with those two cards: J (11) counts any suit, Q (12)
  only cards of its colour, K (13) only cards of its suit; armour adds its value to the
  health.  The attack kills when the counted sum is at least the health.  A corner placement
  attacks along its row and its column.  Reassigning a card (joker) attacks the same way.
* Ploys, used once each, "at any time" (set-up ploys "whenever you like"): ace
  ``extract:<pos>`` puts a whole stack face down at the bottom of the draw pile; joker
  ``reassign:<from>:<to>`` moves a stack's top card to a spot where it could be placed.  They
  are offered at every decision: the set-up replacement, a royal waiting to be placed (set-up
  royals included), a drawn number card, and an empty draw pile.
* A number card that fits nowhere may be added as armour (``armour:<slot>``) to the living
  royal most similar to it: lowest royal of the same suit, else of the same colour, else the
  lowest; ties give a choice.  With no ploys left that is the only option.
* No living royal on the table (and not all 12 dead): cards are drawn onto a face-up pile
  until a royal comes; it is placed and the pile goes to the bottom of the draw pile.
* Win: all 12 slots hold dead royals.  Loss: a royal's health reaches 20 (kings 19), or the
  draw pile is empty with no ploy left (with ploys left the player may use them or
  ``concede``).

Rulings where the seed is silent (also in ``docs/games/gridcannon.md``):

* **Score.** A win scores the ploys held unspent (0-6; ploys still in the draw pile do not
  count).  A loss scores ``royals killed - 12`` (-12 to -1), so every win ranks above every
  loss and a loss still ranks by progress.  ``outcome`` in the view says ``won``/``lost``.
  A win completed with ploys after the draw pile ran out is scored the same.
* The natural loss uses the seed's thresholds (20+, kings 19+) as written, although two 10s
  could still beat a health of exactly 20.
* An empty grid spot (after an extraction) takes any number card; in an attack it counts 0.
  For royal placement only spots with cards compete; if every free slot is beside an empty
  spot, any free slot may be chosen.
* An extracted stack is turned face down as a whole, so its bottom card is drawn first.
* Cards put at the bottom of the draw pile (the set-up replacement, extractions, the cycled
  pile) are public knowledge: the view lists them in ``deck_known_bottom``; the rest of the
  deck is secret.
* Ploys are not offered between a placement and the next draw: the next card comes from the
  top of the draw pile either way, and the next decision (the card drawn, or the royal that
  ends a cycling) offers them again with that card known, which is never worse.
* Royal placement: only edge cards with a free slot beside them compete (the centre card has
  no slot beside it; a card whose slots are all taken gives way to the next most similar).
* While no living royal is on the table every card drawn, ploys included, goes to the face-up
  pile (the seed's "placing the cards in a face-up pile as you go").
* Royals drawn during the replacement draw are placed like setup royals.
* If a joker kills the last living royal while a drawn card waits, that card joins the
  face-up cycling pile (it could neither attack nor armour anything).
* The game always ends: every turn uses a card of the draw pile, and the pile only grows by
  the four extractions and by cycling, which ends at each of the twelve royals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..engine.cards import CODES, label
from ..engine.core import JSON, ActionInfo, Game, IllegalAction
from ..engine.rng import MatchRng
from .solitaire import PLAYER, JsonView, SolitaireState, base_json, deck_codes, shuffled, unknown

JOKERS = ("RJ", "BJ")
"""The two jokers: red and black."""
DECK: tuple[str, ...] = (*CODES, *JOKERS)
"""The 54 cards of a Gridcannon deck."""
ROYAL_HEALTH = {"J": 11, "Q": 12, "K": 13}
"""Base health of each royal rank."""
NATURAL_LOSS = {"J": 20, "Q": 20, "K": 19}
"""Health at which a royal can no longer be killed (the seed's thresholds)."""
SLOTS: tuple[str, ...] = ("T0", "T1", "T2", "R0", "R1", "R2", "B0", "B1", "B2", "L0", "L1", "L2")
"""The twelve royal slots: above (T), right of (R), below (B) and left of (L) the grid."""
SLOT_NEXT_TO: dict[str, int] = {}
"""Slot to the edge grid position beside it."""
for _i in range(3):
    SLOT_NEXT_TO[f"T{_i}"] = _i
    SLOT_NEXT_TO[f"B{_i}"] = 6 + _i
    SLOT_NEXT_TO[f"L{_i}"] = 3 * _i
    SLOT_NEXT_TO[f"R{_i}"] = 3 * _i + 2
SLOTS_BESIDE: dict[int, tuple[str, ...]] = {p: tuple(s for s in SLOTS if SLOT_NEXT_TO[s] == p) for p in range(9)}
"""Grid position to the slots beside it (none for the centre)."""


def _attacks(pos: int) -> tuple[tuple[str, int, int], ...]:
    """``(slot, between, between)`` for each royal a card placed at ``pos`` attacks."""
    r, c = divmod(pos, 3)
    out: list[tuple[str, int, int]] = []
    if c == 0:
        out.append((f"R{r}", 3 * r + 1, 3 * r + 2))
    if c == 2:
        out.append((f"L{r}", 3 * r + 1, 3 * r))
    if r == 0:
        out.append((f"B{c}", 3 + c, 6 + c))
    if r == 2:
        out.append((f"T{c}", 3 + c, c))
    return tuple(out)


ATTACKS: tuple[tuple[tuple[str, int, int], ...], ...] = tuple(_attacks(p) for p in range(9))
"""Grid position to the attacks a card placed there makes."""


def value(card: str) -> int:
    """Numeric value: 2-10, J 11, Q 12, K 13, ace 1, joker 0."""
    known = _VALUE.get(card)
    if known is not None:
        return known
    if card in JOKERS:
        return 0
    return "A23456789TJQK".index(card[0]) + 1


_VALUE: dict[str, int] = {c: 0 if c in JOKERS else "A23456789TJQK".index(c[0]) + 1 for c in DECK}
"""Card to its :func:`value`."""
_PLACE: tuple[str, ...] = tuple(f"place:{p}" for p in range(9))
_EXTRACT: tuple[str, ...] = tuple(f"extract:{p}" for p in range(9))
_REASSIGN: tuple[tuple[str, ...], ...] = tuple(tuple(f"reassign:{a}:{b}" for b in range(9)) for a in range(9))
_REPLACE: tuple[str, ...] = ("keep", *(f"replace:{p}" for p in range(9)))


def is_number(card: str) -> bool:
    """Whether the card is a number card (2-10)."""
    return card not in JOKERS and card[0] in "23456789T"


def is_royal(card: str) -> bool:
    """Whether the card is a royal (J, Q, K)."""
    return card not in JOKERS and card[0] in "JQK"


def colour(card: str) -> str:
    """``red`` or ``black``."""
    return "red" if card[1] in "DH" else "black"


def card_label(card: str) -> str:
    """A human label (jokers included)."""
    return {"RJ": "red joker", "BJ": "black joker"}.get(card) or label(card)


_SUIT: dict[str, str] = {c: c[1] for c in DECK}
"""Card to its suit letter (``J`` for the jokers, which never meet a suit test)."""
_COLOUR: dict[str, str] = {c: colour(c) for c in DECK}
"""Card to its :func:`colour`."""
_NUMBER: frozenset[str] = frozenset(c for c in DECK if is_number(c))
_ROYAL_CARDS: frozenset[str] = frozenset(c for c in DECK if is_royal(c))
_EDGES: tuple[tuple[int, tuple[str, ...]], ...] = tuple((p, SLOTS_BESIDE[p]) for p in range(9) if SLOTS_BESIDE[p])
"""The edge grid positions in order, each with the slots beside it."""
_ROYAL_ACTIONS: dict[str, str] = {s: f"royal:{s}" for s in SLOTS}
_ARMOUR_ACTIONS: dict[str, str] = {s: f"armour:{s}" for s in SLOTS}
_KEEP, _REPLACE_KIND, _PLACE_KIND, _ARMOUR_KIND, _EXTRACT_KIND, _REASSIGN_KIND, _ROYAL_KIND, _CONCEDE = range(8)
_PARSE: dict[str, tuple[int, Any]] = {
    "keep": (_KEEP, None),
    "concede": (_CONCEDE, None),
    **{f"replace:{p}": (_REPLACE_KIND, p) for p in range(9)},
    **{_PLACE[p]: (_PLACE_KIND, p) for p in range(9)},
    **{_EXTRACT[p]: (_EXTRACT_KIND, p) for p in range(9)},
    **{_REASSIGN[a][b]: (_REASSIGN_KIND, (a, b)) for a in range(9) for b in range(9)},
    **{a: (_ROYAL_KIND, s) for s, a in _ROYAL_ACTIONS.items()},
    **{a: (_ARMOUR_KIND, s) for s, a in _ARMOUR_ACTIONS.items()},
}
"""Every action id to its kind and argument (only legal ids reach :meth:`GridcannonState._do`)."""


class GridcannonState(SolitaireState):
    """A game of Gridcannon.

    The grid is a list of stacks (tuples); the stacks, the royal and armour dicts, the set
    of dead slots and the card rows are replaced (never mutated) when they change, so that a
    view keeps references to them instead of copies.
    """

    def __init__(self, game: Game, players: int, options: dict[str, JSON]) -> None:
        super().__init__(game, players, options)
        self._deck: list[str] = []
        self._unknown = 0
        self._grid: list[Sequence[str]] = [() for _ in range(9)]
        self._royal: dict[str, str] = {}
        self._dead: set[str] = set()
        self._armour: dict[str, tuple[str, ...]] = dict.fromkeys(SLOTS, ())
        self._ploys: tuple[str, ...] = ()
        self._spent: tuple[str, ...] = ()
        self._pending: str | None = None
        self._queue: tuple[str, ...] = ()
        self._cycle: tuple[str, ...] = ()
        self._setup = True
        self._sampled_deck: list[str] | None = None
        """A copy of the deck this state last drew itself (known valid)."""

    # ------------------------------------------------------------ chance
    def _sample(self, rng: MatchRng) -> dict[str, JSON]:
        deck = shuffled(rng, DECK)
        self._sampled_deck = deck[:]
        return {"dealer": 0, "deck": deck}

    def _apply_outcome(self, outcome: Mapping[str, JSON]) -> None:
        sampled = self._sampled_deck
        if sampled is not None and type(outcome) is dict and outcome.get("deck") == sampled:
            deck = sampled  # what deck_codes would return for the deck this state drew
            self._sampled_deck = None
        else:
            deck = deck_codes(outcome, "deck", DECK)
        self._deck = deck
        self._unknown = len(deck)
        filled = 0
        grid = self._grid
        while filled < 9:
            card = self._draw()
            if card in _NUMBER:
                grid[filled] = (*grid[filled], card)
                filled += 1
            else:
                self._set_aside(card)
        self._advance()

    # ------------------------------------------------------------ helpers
    def _draw(self) -> str:
        card = self._deck.pop(0)
        if self._unknown:
            self._unknown -= 1
        return card

    def _set_aside(self, card: str) -> None:
        if card in _ROYAL_CARDS:
            self._queue += (card,)
        else:
            self._ploys += (card,)

    def _top(self, pos: int) -> str | None:
        stack = self._grid[pos]
        return stack[-1] if stack else None

    def _top_value(self, pos: int) -> int:
        stack = self._grid[pos]
        return _VALUE[stack[-1]] if stack else 0

    def _living(self) -> list[str]:
        royal, dead = self._royal, self._dead
        return [s for s in SLOTS if s in royal and s not in dead]

    def _any_living(self) -> bool:
        return not self._royal.keys() <= self._dead

    def health(self, slot: str) -> int:
        """Current health of the royal in ``slot`` (base plus armour)."""
        card = self._royal[slot]
        return ROYAL_HEALTH[card[0]] + sum([_VALUE[c] for c in self._armour[slot]])

    def royal_spots(self, royal: str) -> list[str]:
        """The free slots where ``royal`` may be placed (most similar edge card)."""
        taken = self._royal
        free = [s for s in SLOTS if s not in taken]
        grid = self._grid
        suit, col = _SUIT[royal], _COLOUR[royal]
        best_key = -1
        best: list[int] = []
        for pos, beside in _EDGES:
            stack = grid[pos]
            if not stack:
                continue
            for s in beside:
                if s not in taken:
                    break
            else:
                continue
            top = stack[-1]
            # (tier, value) as one int: values are below 16.
            key = (32 if _SUIT[top] == suit else 16 if _COLOUR[top] == col else 0) + _VALUE[top]
            if key > best_key:
                best_key, best = key, [pos]
            elif key == best_key:
                best.append(pos)
        if not best:
            return free
        return [s for s in free if SLOT_NEXT_TO[s] in best]

    def armour_targets(self, card: str) -> list[str]:
        """The living royals ``card`` would armour (most similar, lowest)."""
        best_key = -100
        best: list[str] = []
        suit, col = _SUIT[card], _COLOUR[card]
        royals = self._royal
        for slot in self._living():
            royal = royals[slot]
            # (tier, -value) as one int: values are below 16.
            key = (32 if _SUIT[royal] == suit else 16 if _COLOUR[royal] == col else 0) - _VALUE[royal]
            if key > best_key:
                best_key, best = key, [slot]
            elif key == best_key:
                best.append(slot)
        return best

    def _fits(self, card: str, pos: int) -> bool:
        return self._top_value(pos) <= _VALUE[card]

    def _place_on(self, card: str, pos: int) -> None:
        grid = self._grid
        grid[pos] = (*grid[pos], card)
        royals, dead = self._royal, self._dead
        for slot, a, b in ATTACKS[pos]:
            royal = royals.get(slot)
            if royal is None or slot in dead:
                continue
            kind = royal[0]
            strength = 0
            for between in (a, b):
                stack = grid[between]
                if not stack:
                    continue
                top = stack[-1]
                if kind == "K":
                    if _SUIT[top] != _SUIT[royal]:
                        continue
                elif kind == "Q" and _COLOUR[top] != _COLOUR[royal]:
                    continue
                strength += _VALUE[top]
            if strength >= self.health(slot):
                self._dead = dead = dead | {slot}

    def _place_royal(self, slot: str) -> None:
        queue = self._queue
        self._royal = {**self._royal, slot: queue[0]}
        self._queue = queue = queue[1:]
        if not queue and self._cycle:
            self._deck.extend(self._cycle)
            self._cycle = ()

    def _advance(self) -> None:
        """Run the automatic steps (draws, forced royal spots) up to the next decision."""
        while not self._over:
            if self._queue:
                spots = self.royal_spots(self._queue[0])
                ploys = self._ploy_actions() if self._ploys else []
                if len(spots) > 1 or ploys:
                    # The legal actions (what :meth:`_legal` would compute): a ploy may be
                    # used before the royal is placed, which may move its spot.
                    self._legal_cache = tuple([*[_ROYAL_ACTIONS[s] for s in spots], *ploys])
                    return
                self._place_royal(spots[0])
                continue
            if self._setup:
                return
            if len(self._dead) == 12:
                self._finish(True, "all twelve royals are dead")
                return
            if self._pending is not None:
                if self._any_living():
                    return
                self._cycle += (self._pending,)
                self._pending = None
            if not self._deck:
                if self._ploys:
                    return
                self._finish(False, "the draw pile ran out with royals alive and no ploys left")
                return
            card = self._draw()
            if not self._any_living():
                if card in _ROYAL_CARDS:
                    self._queue += (card,)
                else:
                    self._cycle += (card,)
            elif card in _NUMBER:
                # A number card waits for a living royal's table: the next pass would stop.
                self._pending = card
                return
            else:
                self._set_aside(card)

    def _use(self, kind: str) -> None:
        ploys = self._ploys
        for i, card in enumerate(ploys):
            if (kind == "ace") == (card not in JOKERS):
                self._ploys = ploys[:i] + ploys[i + 1 :]
                self._spent += (card,)
                return

    def _has(self, kind: str) -> bool:
        return any((kind == "ace") == (c not in JOKERS) for c in self._ploys)

    @property
    def phase(self) -> str:
        """``chance``, ``royal``, ``replace``, ``place``, ``out_of_cards`` or ``over``."""
        if self._over:
            return "over"
        if self._chance_pending:
            return "chance"
        if self._queue:
            return "royal"
        if self._setup:
            return "replace"
        if self._pending is not None:
            return "place"
        return "out_of_cards"

    # ------------------------------------------------------------ actions
    def _ploy_actions(self, tops: list[int] | None = None) -> list[str]:
        out: list[str] = []
        ace = joker = False
        for c in self._ploys:
            if c in JOKERS:
                joker = True
            else:
                ace = True
        grid = self._grid
        if ace:
            out += [_EXTRACT[p] for p in range(9) if grid[p]]
        if joker:
            if tops is None:
                tops = [_VALUE[stack[-1]] if stack else 0 for stack in grid]
            for a in range(9):
                if not grid[a]:
                    continue
                top = tops[a]
                row = _REASSIGN[a]
                out += [row[b] for b in range(9) if b != a and tops[b] <= top]
        return out

    def _legal(self) -> list[str]:
        # The phases of :attr:`phase`.
        if self._over or self._chance_pending:
            return []
        if self._queue:
            return [*[_ROYAL_ACTIONS[s] for s in self.royal_spots(self._queue[0])], *self._ploy_actions()]
        if self._setup:
            grid = self._grid
            return [_REPLACE[0], *[_REPLACE[p + 1] for p in range(9) if grid[p]], *self._ploy_actions()]
        card = self._pending
        if card is not None:
            v = _VALUE[card]
            if self._ploys:
                tops = [_VALUE[stack[-1]] if stack else 0 for stack in self._grid]
                places = [_PLACE[p] for p in range(9) if tops[p] <= v]
                if not places:
                    places = [_ARMOUR_ACTIONS[s] for s in self.armour_targets(card)]
                return places + self._ploy_actions(tops)
            grid = self._grid
            places = [_PLACE[p] for p in range(9) if not grid[p] or _VALUE[grid[p][-1]] <= v]
            return places or [_ARMOUR_ACTIONS[s] for s in self.armour_targets(card)]
        return [*self._ploy_actions(), "concede"]

    def apply(self, seat: int, action: str) -> None:
        # SolitaireState.apply, with its no-op end check left out.
        if self._over or seat != PLAYER or self._chance_pending:
            super().apply(seat, action)  # raises the error
            return
        legal = self._legal_cache
        if legal is None:
            legal = self._legal_cache = tuple(self._legal())
        if action not in legal:
            error = self._why_illegal(action)
            error.seat, error.action = seat, action
            raise error
        self._legal_cache = None
        self._records[-1].actions.append((PLAYER, action))
        self._do(action)

    def _do(self, action: str) -> None:
        kind, arg = _PARSE[action]
        if kind == _PLACE_KIND:
            drawn = self._pending
            assert drawn is not None
            self._pending = None
            self._place_on(drawn, arg)
        elif kind == _ROYAL_KIND:
            self._place_royal(arg)
        elif kind == _KEEP:
            self._setup = False
        elif kind == _REPLACE_KIND:
            grid = self._grid
            stack = grid[arg]
            self._deck.append(stack[-1])
            grid[arg] = stack[:-1]
            while True:
                card = self._draw()
                if card in _NUMBER:
                    grid[arg] = (*grid[arg], card)
                    break
                self._set_aside(card)
            self._setup = False
        elif kind == _ARMOUR_KIND:
            drawn = self._pending
            assert drawn is not None
            self._pending = None
            self._armour = {**self._armour, arg: (*self._armour[arg], drawn)}
            royal = self._royal[arg]
            if self.health(arg) >= NATURAL_LOSS[royal[0]]:
                self._finish(False, f"{card_label(royal)} has {self.health(arg)} health and cannot be killed")
        elif kind == _EXTRACT_KIND:
            self._use("ace")
            self._deck.extend(self._grid[arg])
            self._grid[arg] = ()
        elif kind == _REASSIGN_KIND:
            a, b = arg
            self._use("joker")
            grid = self._grid
            stack = grid[a]
            grid[a] = stack[:-1]
            self._place_on(stack[-1], b)
        elif kind == _CONCEDE:
            self._finish(False, "conceded with the draw pile empty")
        self._advance()

    def _why_illegal(self, action: str) -> IllegalAction:
        kind = action.partition(":")[0]
        forms = (
            "place:<pos>, armour:<slot>, royal:<slot>, extract:<pos>, reassign:<from>:<to>, replace:<pos>, "
            "keep or concede"
        )
        if kind not in {"place", "armour", "royal", "extract", "reassign", "replace", "keep", "concede"}:
            return unknown(action, forms)
        phase = self.phase
        wanted = {
            "royal": f"place the royal {self._queue[0] if self._queue else ''} with royal:<slot>",
            "replace": "choose replace:<pos> or keep",
            "place": f"place {self._pending} with place:<pos> (or armour / a ploy)",
            "out_of_cards": "the draw pile is empty: use a ploy or concede",
        }.get(phase, phase)
        if kind == "royal" and phase == "royal":
            return IllegalAction(f"{self._queue[0]} must go beside the most similar card: {self._legal()}")
        if kind == "place" and phase == "place":
            return IllegalAction(
                f"{self._pending} can only go on an empty spot or a stack whose top has the same or lower value"
            )
        if kind == "armour" and phase == "place":
            if any(a.startswith("place:") for a in self._legal()):
                return IllegalAction("armour only when the card fits nowhere on the grid")
            return IllegalAction(f"{self._pending} must armour the most similar royal: {self._legal()}")
        if kind == "extract" and not self._has("ace"):
            return IllegalAction("no unspent ace (extraction) ploy")
        if kind == "reassign" and not self._has("joker"):
            return IllegalAction("no unspent joker (reassignment) ploy")
        if kind in {"extract", "reassign"}:
            return IllegalAction(
                "extract needs a non-empty stack; reassign needs a stack top that fits the target spot"
            )
        return IllegalAction(f"not now: {wanted}")

    def score(self) -> int:
        if self._over and self._won:
            return len(self._ploys)
        return len(self._dead) - 12

    # ------------------------------------------------------------ views
    def view(self, seat: int | None) -> JsonView:
        if seat is not None and seat != PLAYER:
            self._check_seat(seat)
        # References, not copies: everything but the grid list and the deck is replaced,
        # never mutated, when it changes.
        snap = (
            self.game.id,
            self._over,
            self._chance_pending,
            self._won,
            self._end_reason,
            tuple(self._grid),
            self._royal,
            self._dead,
            self._armour,
            self._pending,
            self._queue,
            self._setup,
            self._ploys,
            self._spent,
            len(self._deck),
            self._deck[self._unknown :],
            self._cycle,
        )
        return JsonView(seat, None, _view_json, snap)

    def invariants(self) -> list[str]:
        if not self._records:
            return []
        zones = [*self._deck, *self._ploys, *self._spent, *self._queue, *self._cycle, *self._royal.values()]
        zones += [c for stack in self._grid for c in stack] + [c for a in self._armour.values() for c in a]
        if self._pending is not None:
            zones.append(self._pending)
        problems: list[str] = []
        if sorted(zones) != sorted(DECK):
            problems.append(f"cards not conserved: {len(zones)} placed, {len(set(zones))} distinct")
        for p in range(9):
            stack = self._grid[p]
            if any(not is_number(c) for c in stack):
                problems.append(f"a non-number card on grid spot {p}")
        if not self._dead <= set(self._royal):
            problems.append("a dead royal in an empty slot")
        if len(self._ploys) + len(self._spent) > 6:
            problems.append("more than six ploys")
        return problems

    def secrets(self, seat: int | None) -> frozenset[str]:
        return frozenset(self._deck[: self._unknown])


def _view_json(seat: int | None, snap: tuple[Any, ...]) -> dict[str, JSON]:
    """The JSON form of a view snapshot (see :meth:`GridcannonState.view`)."""
    (
        game,
        over,
        pending_chance,
        won,
        end_reason,
        grid,
        royal,
        dead,
        armour,
        pending,
        queue,
        setup,
        ploys,
        spent,
        deck_size,
        known_bottom,
        cycle,
    ) = snap
    score = len(ploys) if over and won else len(dead) - 12
    data = base_json(game, seat, over, pending_chance, won, end_reason, score)
    if over:
        phase = "over"
    elif pending_chance:
        phase = "chance"
    elif queue:
        phase = "royal"
    elif setup:
        phase = "replace"
    elif pending is not None:
        phase = "place"
    else:
        phase = "out_of_cards"
    grid_json: list[JSON] = [
        {
            "pos": p,
            "cards": list(grid[p]),
            "top": grid[p][-1] if grid[p] else None,
            "value": value(grid[p][-1]) if grid[p] else 0,
        }
        for p in range(9)
    ]
    royals: list[JSON] = []
    for slot in SLOTS:
        card = royal.get(slot)
        worn = armour[slot]
        royals.append(
            {
                "slot": slot,
                "beside": SLOT_NEXT_TO[slot],
                "card": card,
                "alive": card is not None and slot not in dead,
                "dead": slot in dead,
                "armour": list(worn),
                "health": ROYAL_HEALTH[card[0]] + sum(value(c) for c in worn) if card is not None else 0,
            }
        )
    data.update(
        {
            "phase": phase,
            "grid": grid_json,
            "royals": royals,
            "pending": pending,
            "royal_to_place": queue[0] if queue and not pending_chance else None,
            "royals_waiting": list(queue),
            "ploys": list(ploys),
            "spent_ploys": list(spent),
            "deck_size": deck_size,
            "deck_known_bottom": list(known_bottom),
            "cycled": list(cycle),
            "killed": len(dead),
            "won": over and won,
        }
    )
    return data


class Gridcannon(Game):
    """Gridcannon: kill the twelve royals around a 3x3 grid."""

    id: ClassVar[str] = "gridcannon"
    name: ClassVar[str] = "Gridcannon"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 1
    summary: ClassVar[str] = (
        "Solitaire score attack: place number cards on a 3x3 grid to shoot the royals around it "
        "(J any suit, Q same colour, K same suit); aces and jokers are ploys. A win scores the "
        "unspent ploys (0-6), a loss scores royals killed - 12."
    )

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> GridcannonState:
        return GridcannonState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        kind, _, rest = action.partition(":")
        if kind == "place":
            return ActionInfo(
                id=action, kind=kind, label=f"place the drawn card on spot {rest}", target=None, choice=rest
            )
        if kind == "armour":
            return ActionInfo(
                id=action, kind=kind, label=f"add the drawn card as armour to the royal at {rest}", choice=rest
            )
        if kind == "royal":
            return ActionInfo(id=action, kind=kind, label=f"place the royal at {rest}", choice=rest)
        if kind == "extract":
            return ActionInfo(id=action, kind=kind, label=f"ace: extract stack {rest} to the bottom", choice=rest)
        if kind == "reassign":
            a, _, b = rest.partition(":")
            return ActionInfo(id=action, kind=kind, label=f"joker: move the top of {a} to {b}", choice=rest)
        if kind == "replace":
            return ActionInfo(id=action, kind=kind, label=f"replace grid card {rest}", choice=rest)
        if kind == "keep":
            return ActionInfo(id=action, kind=kind, label="keep the grid as dealt")
        if kind == "concede":
            return ActionInfo(id=action, kind=kind, label="concede (draw pile empty)")
        return super().describe(action)


GAME = Gridcannon()
