"""Crazy Eights for cardarena, 2 to 4 players: the rules as pure code.

The rules are stated in full, with every choice, in this distribution's ``README.md``
("Rules"); in short:

* 52 cards.  7 cards each with 2 players, 5 each with 3 or 4.  The first card of the rest
  that is not an 8 is turned as the starter (an 8 turned first goes back into the stock);
  the others are the stock, face down.  The first dealer is drawn by chance; the deal passes
  to the left (seat + 1).
* From the dealer's left, clockwise: play a card of the suit to follow (the top card's, or the
  suit named with the last 8) or of the top card's rank (``play:QH``), or any 8, naming a
  suit (``play:8H:S``); or draw the top card of the stock (``draw``), allowed even when you
  could play, and go on with your turn.  With the stock empty and no card to play: ``pass``.
* The deal ends when a player has played their last card (that player scores the points
  left in the other hands: 8 = 50, K Q J 10 = 10, A = 1, 2-7 and 9 their pips), or when
  every player in turn has passed (blocked: whoever holds the fewest points scores the
  differences to each other hand; equal fewest each score theirs).
* Deals until a player has ``target`` points (default 100) at the end of a deal, or exactly
  ``deals`` deals when that option is set; the highest total wins, equal totals share.

The module imports ``cardarena.engine`` and a few standard modules: no IO, clock or RNG of its
own (``cardarena conformance crazy_eights`` checks it).  The order of the
stock is not part of the state: every draw is a chance node, whose outcome (the card drawn) the
match driver samples with the match's RNG and the replay records.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from cardarena.engine import (
    CHANCE,
    ActionInfo,
    DealRecord,
    Game,
    IllegalAction,
    InvalidChance,
    MatchRng,
    NotYourTurn,
    OptionRange,
    Result,
    State,
    UnknownAction,
    ranks_from_scores,
)
from cardarena.engine.cards import CODES, INDEX, SUIT_NAMES, SUITS, label
from cardarena.engine.core import JSON

HAND_SIZE: dict[int, int] = {2: 7, 3: 5, 4: 5}
"""Cards dealt to each player, by player count."""
TARGET = 100
"""The default of the option ``target``: the score that ends the match."""
EIGHT = "8"
"""The wild rank."""
FORMS = "play:<card>, play:<8 of a suit>:<C|D|H|S> (an 8 names a suit), draw or pass"
"""The spellings of the actions, for a bot author reading a refusal."""


def card_points(card: str) -> int:
    """What a card left in hand counts at the end of a deal: 8 = 50, K Q J 10 = 10, A = 1,
    any other card its pips."""
    rank = card[0]
    if rank == EIGHT:
        return 50
    if rank in "TJQK":
        return 10
    if rank == "A":
        return 1
    return int(rank)


def hand_points(hand: Sequence[str]) -> int:
    """The points of a hand (:func:`card_points` summed)."""
    return sum(card_points(card) for card in hand)


def deal_scores(hands: Sequence[Sequence[str]], out: int | None) -> list[int]:
    """Each seat's score for a deal that ended with these hands.

    ``out`` is the seat that played its last card: it scores the points of every other hand,
    the others 0.  ``None``: the deal was blocked; each seat holding the fewest points scores
    the differences between its points and every other hand's, the others 0."""
    points = [hand_points(hand) for hand in hands]
    if out is not None:
        return [sum(points) if seat == out else 0 for seat in range(len(hands))]
    fewest = min(points)
    return [sum(p - fewest for p in points) if points[seat] == fewest else 0 for seat in range(len(hands))]


def in_deck_order(cards: list[str]) -> list[str]:
    """``cards`` sorted clubs first, two to ace within a suit (how hands and the stock are kept)."""
    return sorted(cards, key=INDEX.__getitem__)


@dataclass(frozen=True, slots=True)
class CrazyEightsView:
    """What one seat (``None``: a spectator) may see.  The engine asks only for ``to_json()``,
    whose keys are what every bot gets (README, "What a bot sees")."""

    game: str
    seat: int | None
    players: int
    to_act: int | None
    """The seat to act; ``None`` while a card is dealt or drawn, and once the match is over."""
    dealer: int | None
    """``None`` before the first deal."""
    deal_number: int
    """The deal in play (or the last one), from 1; 0 before the first."""
    target: int
    deals: int
    hand: tuple[str, ...]
    """The seat's own cards, in deck order (none for a spectator)."""
    top_card: str | None
    suit: str | None
    """The suit to follow: the top card's, or the one named with the 8 on top."""
    discard_pile: tuple[str, ...]
    """Every card played this deal, bottom to top, the starter first."""
    stock_size: int
    passes: int
    """Passes in a row (only with the stock empty); as many as players block the deal."""
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    """Each seat's match total."""
    deal_scores: tuple[int, ...]
    """Each seat's score in the last deal that ended."""

    def to_json(self) -> dict[str, JSON]:
        """The view as JSON, per-seat data in ``seats`` (the wire's rule for lists)."""
        seats: list[JSON] = [
            {"seat": seat, "hand_size": size, "score": score, "deal_score": deal}
            for seat, (size, score, deal) in enumerate(zip(self.hand_sizes, self.scores, self.deal_scores, strict=True))
        ]
        return {
            "game": self.game,
            "seat": self.seat,
            "players": self.players,
            "to_act": self.to_act,
            "dealer": self.dealer,
            "deal_number": self.deal_number,
            "target": self.target,
            "deals": self.deals,
            "hand": list(self.hand),
            "top_card": self.top_card,
            "suit": self.suit,
            "discard_pile": list(self.discard_pile),
            "stock_size": self.stock_size,
            "passes": self.passes,
            "seats": seats,
        }


class CrazyEightsState(State):
    """One match of Crazy Eights, from its first deal to its result."""

    def __init__(self, game: Game, players: int, options: dict[str, JSON]) -> None:
        self.game, self.players, self.options = game, players, options
        self._records: list[DealRecord] = []
        self._dealer = -1  # -1 until the first deal
        self._hands: list[list[str]] = [[] for _ in range(players)]
        self._stock: list[str] = []  # a set in deck order: which card a draw takes is chance
        self._discard: list[str] = []  # bottom to top
        self._suit = ""  # the suit to follow: the top card's, or the one named with an 8
        self._turn: int | None = CHANCE  # a seat, CHANCE, or None once the match is over
        self._drawer: int | None = None  # the seat whose draw is the pending chance outcome
        self._passes = 0  # passes in a row (only with the stock empty)
        self._totals = [0] * players
        self._deal_scores = [0] * players  # of the last deal that ended

    # -- whose turn, and what they may do ---------------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        return () if self._turn is None else (self._turn,)

    def _matches(self, card: str) -> bool:
        """Whether ``card`` may be played on the discard pile now."""
        return card[0] == EIGHT or card[1] == self._suit or card[0] == self._discard[-1][0]

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        if seat == CHANCE or self._turn != seat:
            return ()
        actions: list[str] = []
        for card in self._hands[seat]:
            if card[0] == EIGHT:
                actions.extend(f"play:{card}:{suit}" for suit in SUITS)
            elif self._matches(card):
                actions.append(f"play:{card}")
        if self._stock:
            actions.append("draw")
        elif not actions:
            actions.append("pass")
        return tuple(actions)

    def apply(self, seat: int, action: str) -> None:
        if self._turn is None:
            raise NotYourTurn("the match is over", seat=seat, action=action)
        if seat == CHANCE or self._turn != seat:
            waiting = "a card to be dealt or drawn" if self._turn == CHANCE else f"seat {self._turn}"
            raise NotYourTurn(f"it is not your turn: waiting for {waiting}", seat=seat, action=action)
        if action not in self.legal_actions(seat):
            raise self._refusal(seat, action)
        self._records[-1].actions.append((seat, action))
        if action == "draw":
            self._drawer, self._turn = seat, CHANCE
        elif action == "pass":
            self._passes += 1
            if self._passes == self.players:
                self._end_deal(out=None)
            else:
                self._turn = (seat + 1) % self.players
        else:
            _, card, *named = action.split(":")
            self._hands[seat].remove(card)
            self._discard.append(card)
            self._suit = named[0] if named else card[1]
            self._passes = 0
            if self._hands[seat]:
                self._turn = (seat + 1) % self.players
            else:
                self._end_deal(out=seat)

    def _refusal(self, seat: int, action: str) -> IllegalAction:
        """The error for an action that is not one of ``seat``'s legal ids."""
        error, reason = self._refusal_reason(seat, action)
        return error(reason, seat=seat, action=action)

    def _refusal_reason(self, seat: int, action: str) -> tuple[type[IllegalAction], str]:
        """Why ``action`` is refused, for a bot author: ``UnknownAction`` for an id of no form
        this game knows, else ``IllegalAction``.  The reason names no card the seat may not
        see, only the cards the id names."""
        kind, *args = action.split(":")
        if kind in ("draw", "pass") and args:
            return UnknownAction, f"{kind} takes no argument ({FORMS})"
        if kind == "draw":
            return IllegalAction, "the stock is empty"
        if kind == "pass":
            why = "the stock still has cards (draw)" if self._stock else "you have a card to play"
            return IllegalAction, f"you may pass only with the stock empty and no card to play: {why}"
        if kind != "play" or not 1 <= len(args) <= 2 or args[0] not in INDEX:
            return UnknownAction, f"{action!r} is not an action of Crazy Eights ({FORMS})"
        card = args[0]
        if len(args) == 2 and card[0] == EIGHT and args[1] not in SUIT_NAMES:
            return UnknownAction, f"{args[1]!r} is not a suit: C, D, H or S"
        if card not in self._hands[seat]:
            return IllegalAction, f"{card} is not in your hand"
        if card[0] == EIGHT:
            return IllegalAction, f"an 8 names the suit to follow: play:{card}:<C|D|H|S>"
        if len(args) == 2:
            return IllegalAction, f"only an 8 names a suit: play:{card}"
        top, follow = self._discard[-1], SUIT_NAMES[self._suit]
        if top[0] == EIGHT:
            return IllegalAction, f"{card} is neither a card of {follow} (named with the 8) nor an 8"
        return IllegalAction, f"{card} matches neither {follow} nor the rank of {top}, and is not an 8"

    def _end_deal(self, out: int | None) -> None:
        scores = deal_scores(self._hands, out)
        self._records[-1].scores = [float(score) for score in scores]
        self._deal_scores = scores
        self._totals = [total + score for total, score in zip(self._totals, scores, strict=True)]
        deals = int(self.options["deals"])
        over = len(self._records) >= deals if deals else max(self._totals) >= int(self.options["target"])
        self._turn = None if over else CHANCE

    # -- chance: the deal, and each draw ----------------------------------------------------

    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        if self._drawer is not None:
            return {"card": self._stock[rng.below(len(self._stock))]}
        n = self.players
        dealer = rng.below(n) if self._dealer < 0 else (self._dealer + 1) % n
        deck = list(CODES)
        rng.shuffle(deck)
        size = HAND_SIZE[n]
        hands = [in_deck_order(deck[seat * size : (seat + 1) * size]) for seat in range(n)]
        rest = deck[n * size :]
        starter = next(card for card in rest if card[0] != EIGHT)  # an 8 turned goes back
        stock = in_deck_order([card for card in rest if card != starter])
        return {"dealer": dealer, "hands": hands, "starter": starter, "stock": stock}

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        if self._drawer is not None:
            self._apply_draw(outcome)
        else:
            self._apply_deal(outcome)

    def _apply_draw(self, outcome: Mapping[str, JSON]) -> None:
        card = outcome.get("card")
        if set(outcome) != {"card"} or not isinstance(card, str) or card not in self._stock:
            raise InvalidChance(f"a draw is {{'card': <a card of the stock>}}, got {dict(outcome)!r}")
        drawer = self._drawer
        assert drawer is not None
        self._stock.remove(card)
        self._hands[drawer] = in_deck_order([*self._hands[drawer], card])
        self._records[-1].actions.append((CHANCE, json.dumps({"card": card})))
        self._turn, self._drawer = drawer, None

    def _apply_deal(self, outcome: Mapping[str, JSON]) -> None:
        n = self.players
        if set(outcome) != {"dealer", "hands", "starter", "stock"}:
            raise InvalidChance(f"a deal is dealer, hands, starter and stock, got {sorted(outcome)}")
        dealer, hands, starter, stock = outcome["dealer"], outcome["hands"], outcome["starter"], outcome["stock"]
        expected = (self._dealer + 1) % n if self._dealer >= 0 else dealer
        if type(dealer) is not int or not 0 <= dealer < n or dealer != expected:
            raise InvalidChance(f"dealer {dealer!r} does not fit (the deal passes to the left)")
        if not isinstance(hands, list) or len(hands) != n or not all(_card_list(hand, HAND_SIZE[n]) for hand in hands):
            raise InvalidChance(f"hands must be {n} lists of {HAND_SIZE[n]} cards")
        if not isinstance(starter, str) or starter not in INDEX or starter[0] == EIGHT:
            raise InvalidChance(f"the starter must be a card other than an 8, got {starter!r}")
        if not _card_list(stock, 52 - n * HAND_SIZE[n] - 1):
            raise InvalidChance("the stock must list the other cards")
        assert isinstance(stock, list)
        if sorted([*(card for hand in hands for card in hand), starter, *stock], key=INDEX.__getitem__) != list(CODES):
            raise InvalidChance("the hands, the starter and the stock must hold each of the 52 cards once")
        self._dealer = dealer
        self._hands = [in_deck_order(list(hand)) for hand in hands]
        self._stock = in_deck_order(list(stock))
        self._discard, self._suit, self._passes = [starter], starter[1], 0
        self._turn = (dealer + 1) % n
        self._records.append(DealRecord(dealer=dealer, chance=dict(outcome)))

    # -- what each seat sees ----------------------------------------------------------------

    def view(self, seat: int | None) -> CrazyEightsView:
        return CrazyEightsView(
            game=self.game.id,
            seat=seat,
            players=self.players,
            to_act=self._turn if self._turn is not None and self._turn >= 0 else None,
            dealer=self._dealer if self._dealer >= 0 else None,
            deal_number=len(self._records),
            target=int(self.options["target"]),
            deals=int(self.options["deals"]),
            hand=tuple(self._hands[seat]) if seat is not None else (),
            top_card=self._discard[-1] if self._discard else None,
            suit=self._suit or None,
            discard_pile=tuple(self._discard),
            stock_size=len(self._stock),
            passes=self._passes,
            hand_sizes=tuple(len(hand) for hand in self._hands),
            scores=tuple(self._totals),
            deal_scores=tuple(self._deal_scores),
        )

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return self.view(seat).to_json()

    def secrets(self, seat: int | None) -> frozenset[str]:
        hidden = set(self._stock)
        for other in range(self.players):
            if other != seat:
                hidden.update(self._hands[other])
        return frozenset(hidden)

    # -- the record and the result ----------------------------------------------------------

    def result(self) -> Result:
        return Result(tuple(float(total) for total in self._totals), ranks_from_scores(self._totals))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def clone(self) -> CrazyEightsState:
        other = CrazyEightsState(self.game, self.players, self.options)
        other._records = [record.copy() for record in self._records]
        other._dealer, other._turn, other._drawer = self._dealer, self._turn, self._drawer
        other._hands = [list(hand) for hand in self._hands]
        other._stock, other._discard = list(self._stock), list(self._discard)
        other._suit, other._passes = self._suit, self._passes
        other._totals, other._deal_scores = list(self._totals), list(self._deal_scores)
        return other

    def invariants(self) -> list[str]:
        broken: list[str] = []
        if not self._records:
            return broken
        cards = [*(card for hand in self._hands for card in hand), *self._stock, *self._discard]
        if sorted(cards, key=INDEX.__getitem__) != list(CODES):
            broken.append(f"{len(cards)} cards in hands, stock and discard pile, not each of the 52 once")
        top = self._discard[-1]
        if top[0] != EIGHT and self._suit != top[1]:
            broken.append(f"the suit to follow is {self._suit}, but the top card is {top}, not an 8")
        if self._discard[0][0] == EIGHT:
            broken.append(f"the starter {self._discard[0]} is an 8")
        if self._passes and self._stock:
            broken.append(f"{self._passes} passes in a row with {len(self._stock)} cards in the stock")
        scored = [sum(int(r.scores[s]) for r in self._records if r.scores) for s in range(self.players)]
        if scored != self._totals:
            broken.append(f"totals {self._totals} are not the sums of the deals' scores {scored}")
        return broken


def _card_list(value: JSON, size: int) -> bool:
    """Whether ``value`` is a list of ``size`` card codes."""
    return isinstance(value, list) and len(value) == size and all(isinstance(c, str) and c in INDEX for c in value)


class CrazyEights(Game):
    """Static facts about Crazy Eights, its options, and the factory of its matches."""

    id: ClassVar[str] = "crazy_eights"
    name: ClassVar[str] = "Crazy Eights"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    summary: ClassVar[str] = (
        "Shed your hand on the discard pile by matching suit or rank; eights are wild and name the suit. "
        "The first out scores the cards left in the other hands."
    )

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"target": TARGET, "deals": 0}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"target": OptionRange(1, 1000), "deals": OptionRange(0, 1000, "0: play to the target")}

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> CrazyEightsState:
        return CrazyEightsState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        kind, *args = action.split(":")
        if kind == "play" and len(args) == 2 and args[1] in SUIT_NAMES:
            card, suit = args
            return ActionInfo(action, "play", f"play {label(card)}, name {SUIT_NAMES[suit]}", (card,), choice=suit)
        if kind == "play" and len(args) == 1 and args[0] in INDEX:
            return ActionInfo(action, "play", f"play {label(args[0])}", (args[0],))
        if action == "draw":
            return ActionInfo(action, "draw", "draw a card from the stock")
        return ActionInfo(action, kind, action.replace(":", " "))


GAME = CrazyEights()
"""The game, as the entry point ``crazy_eights = crazy_eights.game:GAME`` names it."""
