"""Loot the Loop: a one-player score attack in a looping temple (id ``loot_the_loop``).

Rules ("Loot the Loop rules" of the original rules document and the team's rulings, not distributed
here; ``docs/games/loot_the_loop.md``):

* 53 cards: the 52 and one joker (``JK``, the exit).  Aces are jewels, 2-10 trinkets, J Q K
  traps.  The deck is held face down; the top of the deck is the player's room.
* Setup: the shuffled deck is cut into three face-down piles, the top two cards of each are
  turned face up, and the player stacks the piles in a chosen order (``stack:<a><b><c>``,
  pile ``a`` on top, e.g. ``stack:201``).
* Each turn exactly one action:

  - ``look`` (top card face down): turn the top two cards face up (only the top one if the
    second is already face up);
  - ``explore:<n>`` (a face-up trinket of value ``n`` among the top two cards): move ``n``
    cards, one at a time, from the top to the bottom, then look at the new top card: face
    down, nothing; a face-up trap, the game is lost; a face-up jewel or trinket goes to the
    score pile; the face-up exit with all four jewels in the score pile wins the game
    (otherwise nothing);
  - ``mark`` (face-up trinket on top, fewer than three notes): move it to the notes;
  - ``return:<card>``: put a note back on top of the deck, face up.

* The game is lost when the player cannot act, or when every action left is an exploration
  that lands on a trap.

Rulings where the seed is silent (also in ``docs/games/loot_the_loop.md``):

* **Score.** The seed's score, the number of cards in the score pile, counts whether the
  game is won or lost (the seed states it unconditionally).  The view's ``outcome`` says
  ``won`` (escaped with the four jewels) or ``lost`` (trap, stuck, or the turn limit);
  ``escaped`` is true only after a win.
* **Piles.** 53 cards do not cut into three equal piles: the piles hold 18, 18 and 17 cards
  (the top 18, the next 18, the last 17 of the shuffled deck).
* **Turn limit.** Marking and returning the same card can cycle forever, so a game ends after
  ``max_turns`` actions (option, default 300, counting the setup choice) as a loss: the
  player did not escape.  The score pile still counts.
* Exploring more cards than the deck holds wraps around (the count is taken modulo the deck
  size); landing on the explored card itself nabs it.
* The deck's face-down cards are secret; every face-up card and its position is public (the
  seed lets the player look through the deck).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..engine.cards import CODES, label
from ..engine.core import JSON, ActionInfo, Game, IllegalAction, OptionRange
from ..engine.rng import MatchRng
from .solitaire import JsonView, SolitaireState, base_json, deck_codes, shuffled, unknown

JOKER = "JK"
"""The exit."""
DECK: tuple[str, ...] = (*CODES, JOKER)
"""The 53 cards."""
PILE_SIZES = (18, 18, 17)
"""How the deck is cut into three piles."""
ORDERS = ("012", "021", "102", "120", "201", "210")
"""The six ways to stack the three piles (first digit on top)."""
MAX_NOTES = 3


def trinket(card: str) -> int:
    """The value of a trinket (2-10), 0 for any other card."""
    if card == JOKER:
        return 0
    return "..23456789T".find(card[0]) if card[0] in "23456789T" else 0


def is_trap(card: str) -> bool:
    """Whether the card is a trap (J, Q, K)."""
    return card != JOKER and card[0] in "JQK"


def is_jewel(card: str) -> bool:
    """Whether the card is a jewel (an ace)."""
    return card != JOKER and card[0] == "A"


class LootTheLoopState(SolitaireState):
    """A game of Loot the Loop."""

    def __init__(self, game: Game, players: int, options: dict[str, JSON]) -> None:
        super().__init__(game, players, options)
        self._max_turns = int(options["max_turns"])
        self._deck: list[str] = []
        self._up: list[bool] = []
        self._piles: list[list[str]] = []
        self._notes: list[str] = []
        self._pile: list[str] = []
        self._turns = 0
        self._last_landing: str | None = None

    # ------------------------------------------------------------ chance
    def _sample(self, rng: MatchRng) -> dict[str, JSON]:
        return {"dealer": 0, "deck": shuffled(rng, DECK)}

    def _apply_outcome(self, outcome: Mapping[str, JSON]) -> None:
        deck = deck_codes(outcome, "deck", DECK)
        a, b = PILE_SIZES[0], PILE_SIZES[0] + PILE_SIZES[1]
        self._piles = [deck[:a], deck[a:b], deck[b:]]

    # ------------------------------------------------------------ helpers
    def _explore_values(self) -> list[int]:
        values: list[int] = []
        for i in range(min(2, len(self._deck))):
            v = trinket(self._deck[i])
            if self._up[i] and v and v not in values:
                values.append(v)
        return sorted(values)

    def landing(self, n: int) -> tuple[str, bool]:
        """The card (and whether it is face up) an exploration of ``n`` lands on."""
        i = n % len(self._deck)
        return self._deck[i], self._up[i]

    def _legal_all(self) -> list[str]:
        if self._piles:
            return [f"stack:{o}" for o in ORDERS]
        out: list[str] = []
        deck, up = self._deck, self._up
        if deck and not up[0]:
            out.append("look")
        out += [f"explore:{v}" for v in self._explore_values()]
        if deck and up[0] and trinket(deck[0]) and len(self._notes) < MAX_NOTES:
            out.append("mark")
        out += [f"return:{c}" for c in self._notes]
        return out

    def _legal(self) -> list[str]:
        return self._legal_all()

    def _fatal(self, action: str) -> bool:
        if not action.startswith("explore:"):
            return False
        card, face_up = self.landing(int(action[8:]))
        return face_up and is_trap(card)

    def _stuck(self) -> bool:
        """Whether every legal action is fatal (``all(self._fatal(a) for a in self._legal_all())``)."""
        deck, up = self._deck, self._up
        if self._notes:
            return False  # return:<card> is never fatal
        if deck and (not up[0] or (trinket(deck[0]) and len(self._notes) < MAX_NOTES)):
            return False  # look or mark is never fatal
        n = len(deck)
        for v in self._explore_values():
            i = v % n
            if not (up[i] and is_trap(deck[i])):
                return False
        return True

    def _check_end(self) -> None:
        if self._over or self._chance_pending or self._piles:
            return
        if self._stuck():
            self._finish(False, "stuck: no move that does not land on a trap")
        elif self._turns >= self._max_turns:
            self._finish(False, f"the turn limit ({self._max_turns} actions) was reached")

    def _do(self, action: str) -> None:
        self._turns += 1
        kind, _, rest = action.partition(":")
        if kind == "stack":
            for digit in rest:
                pile = self._piles[int(digit)]
                self._deck += pile
                self._up += [i < 2 for i in range(len(pile))]
            self._piles = []
        elif kind == "look":
            self._up[0] = True
            if len(self._deck) > 1:
                self._up[1] = True
        elif kind == "explore":
            rot = int(rest) % len(self._deck)
            self._deck = self._deck[rot:] + self._deck[:rot]
            self._up = self._up[rot:] + self._up[:rot]
            card, face_up = self._deck[0], self._up[0]
            self._last_landing = card if face_up else None
            if not face_up:
                return
            if is_trap(card):
                self._finish(False, f"landed on a trap ({label(card)})")
            elif card == JOKER:
                if sum(1 for c in self._pile if is_jewel(c)) == 4:
                    self._finish(True, "escaped through the exit with the four jewels")
            else:
                self._pile.append(self._deck.pop(0))
                self._up.pop(0)
        elif kind == "mark":
            self._notes.append(self._deck.pop(0))
            self._up.pop(0)
        elif kind == "return":
            self._notes.remove(rest)
            self._deck.insert(0, rest)
            self._up.insert(0, True)

    def _why_illegal(self, action: str) -> IllegalAction:
        kind, _, rest = action.partition(":")
        if kind not in {"stack", "look", "explore", "mark", "return"}:
            return unknown(action, "stack:<order>, look, explore:<n>, mark or return:<card>")
        if self._piles:
            return IllegalAction("first stack the three piles: stack:012, stack:021, ... (first digit on top)")
        if kind == "stack":
            return IllegalAction("the piles are already stacked")
        if kind == "look":
            return IllegalAction("look only when the top card is face down")
        if kind == "explore":
            return IllegalAction(
                f"explore needs a face-up trinket of that value on top two cards: {self._explore_values()}"
            )
        if kind == "mark":
            if len(self._notes) >= MAX_NOTES:
                return IllegalAction("your notes are full (three paths)")
            return IllegalAction("mark only a face-up trinket (2-10) on top of the deck")
        return IllegalAction(f"{rest} is not in your notes {self._notes}")

    def score(self) -> int:
        return len(self._pile)

    @property
    def phase(self) -> str:
        """``chance``, ``stack``, ``play`` or ``over``."""
        if self._over:
            return "over"
        if self._chance_pending:
            return "chance"
        return "stack" if self._piles else "play"

    # ------------------------------------------------------------ views
    def view(self, seat: int | None) -> JsonView:
        self._check_seat(seat)
        snap = (
            self.game.id,
            self._over,
            self._chance_pending,
            self._won,
            self._end_reason,
            tuple(map(tuple, self._piles)),
            tuple(self._deck),
            tuple(self._up),
            tuple(self._notes),
            tuple(self._pile),
            self._turns,
            self._max_turns,
            self._last_landing,
        )
        return JsonView(seat, build=_view_json, snap=snap)

    def invariants(self) -> list[str]:
        if not self._records:
            return []
        cards = [c for p in self._piles for c in p] + self._deck + self._notes + self._pile
        problems: list[str] = []
        if sorted(cards) != sorted(DECK):
            problems.append(f"cards not conserved: {len(cards)} placed, {len(set(cards))} distinct")
        if len(self._up) != len(self._deck):
            problems.append("face-up flags out of step with the deck")
        if len(self._notes) > MAX_NOTES:
            problems.append("more than three notes")
        if any(not trinket(c) for c in self._notes):
            problems.append("a note that is not a trinket")
        if any(is_trap(c) or c == JOKER for c in self._pile):
            problems.append("a trap or the exit in the score pile")
        return problems

    def secrets(self, seat: int | None) -> frozenset[str]:
        hidden = {c for p in self._piles for c in p[2:]}
        hidden |= {c for c, u in zip(self._deck, self._up, strict=True) if not u}
        return frozenset(hidden)


def _view_json(seat: int | None, snap: tuple[Any, ...]) -> dict[str, JSON]:
    """The JSON form of a view snapshot (see :meth:`LootTheLoopState.view`)."""
    game, over, pending, won, end_reason, piles, deck, up, notes, pile, turns, max_turns, last_landing = snap
    data = base_json(game, seat, over, pending, won, end_reason, len(pile))
    jewels = sum(1 for c in pile if is_jewel(c))
    data.update(
        {
            "phase": "over" if over else "chance" if pending else "stack" if piles else "play",
            "piles": [{"pile": i, "size": len(p), "face_up": list(p[:2])} for i, p in enumerate(piles)],
            "deck": [
                {"pos": i, "face_up": u, "card": c if u else None}
                for i, (c, u) in enumerate(zip(deck, up, strict=True))
            ],
            "deck_size": len(deck),
            "notes": list(notes),
            "score_pile": list(pile),
            "jewels": jewels,
            "turns": turns,
            "max_turns": max_turns,
            "last_landing": last_landing,
            "escaped": over and won,
        }
    )
    return data


class LootTheLoop(Game):
    """Loot the Loop: loot the four jewels from a looping temple and escape."""

    id: ClassVar[str] = "loot_the_loop"
    name: ClassVar[str] = "Loot the Loop"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 1
    summary: ClassVar[str] = (
        "Solitaire score attack: move through a looping deck by trinket values, nab the cards "
        "you land on, avoid the face-card traps, escape through the joker with the four aces. "
        "Score: cards in the score pile."
    )

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"max_turns": 300}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"max_turns": OptionRange(1, 100_000)}

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> LootTheLoopState:
        return LootTheLoopState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        kind, _, rest = action.partition(":")
        if kind == "stack":
            return ActionInfo(
                id=action, kind=kind, label=f"stack the piles {'/'.join(rest)} (first on top)", choice=rest
            )
        if kind == "look":
            return ActionInfo(id=action, kind=kind, label="look around (turn the top two cards up)")
        if kind == "explore" and rest.isdigit():
            return ActionInfo(id=action, kind=kind, label=f"explore {rest} cards", amount=int(rest))
        if kind == "mark":
            return ActionInfo(id=action, kind=kind, label="mark a path (top card to the notes)")
        if kind == "return":
            return ActionInfo(id=action, kind=kind, label=f"return to the path {rest}", cards=(rest,))
        return super().describe(action)


GAME = LootTheLoop()
