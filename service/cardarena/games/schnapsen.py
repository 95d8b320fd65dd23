"""Schnapsen, the seed's variant: two players, 20 cards, race to 7 game points.

Rules ("Schnapsen rules" of the original rules document and the team's rulings, not distributed
here; ``docs/games/schnapsen.md``):

* 20 cards: 2, 3, 4, 10 and ace of each suit (the 2, 3, 4 stand for jack, queen, king).
  Card codes ``2C 3C 4C TC AC`` ... ``AS``.  Rank A > 10 > 4 > 3 > 2; card points 11, 10, 4,
  3, 2 (120 in the deck).
* A round: the dealer gives 5 cards each; the other 10 form the stock, whose bottom card is
  face up and fixes trump.  The non-dealer leads the first trick, the trick winner the next.
  Highest trump wins, else the highest card of the suit led.  While the stock is open any card
  may be played.  After each trick the winner draws the top stock card, then the loser (so the
  loser of the fifth trick draws the face-up trump card, which is then known to be in their
  hand until played).
* Once the stock is exhausted or closed: the follower must follow suit and beat the led card
  if able; if unable to follow, must trump if able.
* Before leading, the leader (only the leader) may, in this order: exchange the 2 of trumps
  for the face-up trump card while the stock is open (also before the first trick); meld one
  marriage (3 and 4 of a suit: 40 in trumps, 20 otherwise), then lead one of its two cards;
  close the stock (while it is open).  At most one marriage per lead.  Marriage points count
  only once the melder has won a trick in the round.
* Closing: no more drawing, the strict rules apply, and the opponent's points at that moment
  are recorded.  The round is played until both hands are empty.
* Round scoring.  Not closed: the winner of the last trick scores 1 game point.  Closed: if
  the closer has 66 or more (card points plus counted marriages) at the end, the closer scores
  3 if the opponent had 0 points at the close, 2 if 32 or fewer, 1 if 33 or more; otherwise
  the opponent scores 3 if they had 0 points at the close, else 2.
* First to 7 game points wins (the deal alternates).  Option ``target`` (default 7) and
  ``deals`` (> 0: exactly that many rounds; most game points wins, ties share).

Rulings made here where the seed and the rulings are silent:

* "Points at the close" are the opponent's card points plus the marriage points that already
  count (they have won a trick); so 0 points means they have won no trick yet.
* The exchange is allowed whenever the stock is open, including when it holds only two cards.
  Closing is allowed whenever the stock is open, including before the first trick.
* Melding is allowed at any lead, also once the stock is exhausted or closed (the seed: "A
  marriage can be declared during any point in the round").
* After closing, the turned-down trump card stays known (everyone saw it): the view shows it
  as ``stock_bottom``.  Cards won in tricks are face down, but every card was played face up,
  so each seat's card points and the cards played in completed tricks (``played``) are public
  in the view (what a player with a perfect memory knows).
* The first dealer is drawn by the match RNG; the deal then alternates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from ..engine.core import (
    CHANCE,
    JSON,
    ActionInfo,
    DealRecord,
    FieldsView,
    Game,
    IllegalAction,
    InvalidChance,
    NotYourTurn,
    OptionRange,
    Result,
    State,
    UnknownAction,
    ranks_from_scores,
)
from ..engine.rng import MatchRng

SUITS = "CDHS"
"""Suit letters in index order."""
RANKS = "234TA"
"""Rank letters from low to high."""
POINTS = (2, 3, 4, 10, 11)
"""Card points by rank index."""
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
_SYMBOL = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
"""Card index (``suit * 5 + rank``) to card code."""
INDEX: dict[str, int] = {c: i for i, c in enumerate(CODES)}
"""Card code to card index."""
FULL = (1 << 20) - 1
SUIT_MASK: tuple[int, ...] = tuple(0b11111 << (5 * s) for s in range(4))
TARGET_POINTS = 66
"""Card points the closer needs."""
OVER = -2

_CARD_POINTS: tuple[int, ...] = tuple(POINTS[i % 5] for i in range(20))


def codes_of(mask: int) -> list[str]:
    """Card codes of a 20-bit mask, clubs first, low to high."""
    return [CODES[i] for i in range(20) if mask >> i & 1]


def card_label(code: str) -> str:
    """A human label, e.g. ``10♥``."""
    return ("10" if code[0] == "T" else code[0]) + _SYMBOL[code[1]]


def _suit(card: int) -> int:
    return card // 5


def _marriage(suit: int) -> int:
    return 1 << (5 * suit + 1) | 1 << (5 * suit + 2)


_SEAT: tuple[tuple[int, ...], ...] = ((0,), (1,))
_CHANCE_ONLY: tuple[int, ...] = (CHANCE,)
_SUIT_PLAYS: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(tuple("play:" + CODES[5 * s + r] for r in range(5) if m >> r & 1) for m in range(32)) for s in range(4)
)
"""Per suit, per 5-bit mask of its ranks, the ``play:<card>`` ids from low to high."""


def _plays_of(mask: int) -> tuple[str, ...]:
    """The ``play:<card>`` ids of a 20-bit mask, in card index order."""
    c, d, h, s = _SUIT_PLAYS
    return c[mask & 31] + d[mask >> 5 & 31] + h[mask >> 10 & 31] + s[mask >> 15]


@dataclass(frozen=True, slots=True)
class SeatView:
    """Per-seat public facts (plus nothing secret)."""

    seat: int
    hand_size: int
    known_cards: tuple[str, ...]
    tricks_won: int
    card_points: int
    marriage_points: int
    marriages: tuple[str, ...]
    round_points: int
    score: int
    deal_score: int

    def to_json(self) -> dict[str, JSON]:
        return {
            "seat": self.seat,
            "hand_size": self.hand_size,
            "known_cards": list(self.known_cards),
            "tricks_won": self.tricks_won,
            "card_points": self.card_points,
            "marriage_points": self.marriage_points,
            "marriages": list(self.marriages),
            "round_points": self.round_points,
            "score": self.score,
            "deal_score": self.deal_score,
        }


class SchnapsenView(FieldsView):
    """What one seat (or a spectator, ``seat is None``) sees.

    Built as one snapshot tuple (the two-seat counters copied as tuples); fields are decoded on
    access, so building a view is cheap.
    """

    __slots__ = ("_s", "seat")
    _FIELDS = (
        "game",
        "seat",
        "players",
        "to_act",
        "dealer",
        "deal_number",
        "leader",
        "hand",
        "trick",
        "last_trick",
        "last_winner",
        "played",
        "trump_suit",
        "trump_card",
        "stock_size",
        "stock_bottom",
        "closed",
        "closed_by",
        "closed_opponent_points",
        "strict",
        "marriage_pending",
        "target",
        "deals",
        "seats",
    )

    def __init__(self, state: SchnapsenState, seat: int | None) -> None:
        self.seat = seat
        records = state._records
        stock = state._stock
        stock_left = len(stock) - state._pos
        self._s = (
            state,
            state._turn,
            state._dealer,
            len(records),
            state._leader,
            state._hands[seat] if seat is not None else 0,
            state._lead,
            state._last_trick,
            state._taken[0] | state._taken[1],
            state._trump,
            records[-1].chance if records else None,
            stock_left,
            stock[-1] if stock_left > 0 else -1,
            state._closed_by,
            state._closed_points,
            bool(records) and state._strict(),
            state._meld,
            (state._hands[0], state._hands[1]),
            (state._known[0], state._known[1]),
            (state._tricks[0], state._tricks[1]),
            (state._points[0], state._points[1]),
            (state._marriage[0], state._marriage[1]),
            (state._melds[0], state._melds[1]),
            (state._totals[0], state._totals[1]),
            (state._last_scores[0], state._last_scores[1]),
        )

    @property
    def game(self) -> str:
        """The game id."""
        return str(self._s[0].game.id)

    @property
    def players(self) -> int:
        """Always 2."""
        return 2

    @property
    def to_act(self) -> int | None:
        """The seat to act, or ``None`` (chance, or over)."""
        turn: int = self._s[1]
        return turn if turn >= 0 else None

    @property
    def dealer(self) -> int:
        """The dealer of the current deal."""
        return int(self._s[2])

    @property
    def deal_number(self) -> int:
        """How many deals have been dealt."""
        return int(self._s[3])

    @property
    def leader(self) -> int:
        """The seat that leads (led) the current trick."""
        return int(self._s[4])

    @property
    def hand(self) -> tuple[str, ...]:
        """The seat's own hand (empty for a spectator)."""
        return tuple(codes_of(self._s[5])) if self.seat is not None else ()

    @property
    def trick(self) -> tuple[tuple[int, str], ...]:
        """The trick in progress as ``(seat, card)``."""
        lead: int = self._s[6]
        return ((self._s[4], CODES[lead]),) if lead >= 0 else ()

    @property
    def last_trick(self) -> tuple[tuple[int, str], ...]:
        """The previous trick of this deal as ``(seat, card)``."""
        last = self._s[7]
        if last is None:
            return ()
        ld, a, b, _ = last
        return ((ld, CODES[a]), (1 - ld, CODES[b]))

    @property
    def last_winner(self) -> int | None:
        """Who won the previous trick of this deal."""
        last = self._s[7]
        return None if last is None else int(last[3])

    @property
    def played(self) -> tuple[str, ...]:
        """Cards taken in tricks this deal."""
        return tuple(codes_of(self._s[8]))

    @property
    def trump_suit(self) -> str | None:
        """The trump suit letter."""
        return SUITS[self._s[9]] if self._s[3] else None

    @property
    def trump_card(self) -> str | None:
        """The deal's original face-up trump card."""
        chance = self._s[10]
        return str(chance["trump_card"]) if chance is not None else None

    @property
    def stock_size(self) -> int:
        """Cards left in the stock."""
        return int(self._s[11])

    @property
    def stock_bottom(self) -> str | None:
        """The face-up bottom card of the stock."""
        return CODES[self._s[12]] if self._s[11] > 0 else None

    @property
    def closed(self) -> bool:
        """Whether the stock is closed."""
        return bool(self._s[13] >= 0)

    @property
    def closed_by(self) -> int | None:
        """Who closed the stock."""
        closer: int = self._s[13]
        return closer if closer >= 0 else None

    @property
    def closed_opponent_points(self) -> int | None:
        """The closer's opponent's round points when the stock was closed."""
        return int(self._s[14]) if self._s[13] >= 0 else None

    @property
    def strict(self) -> bool:
        """Whether strict rules apply (stock closed or exhausted)."""
        return bool(self._s[15])

    @property
    def marriage_pending(self) -> str | None:
        """The suit of a marriage just melded (its 3 or 4 must be led)."""
        meld: int = self._s[16]
        return SUITS[meld] if meld >= 0 else None

    @property
    def target(self) -> int:
        """The game points that end the match."""
        return int(self._s[0]._target)

    @property
    def deals(self) -> int:
        """A fixed number of deals (0: play to the target)."""
        return int(self._s[0]._deals)

    @property
    def seats(self) -> tuple[SeatView, ...]:
        """Per-seat public facts."""
        hands, known, tricks, points, marriage, melds, totals, last = self._s[17:25]
        return tuple(
            SeatView(
                seat=s,
                hand_size=hands[s].bit_count(),
                known_cards=tuple(codes_of(known[s])),
                tricks_won=tricks[s],
                card_points=points[s],
                marriage_points=marriage[s],
                marriages=tuple(SUITS[i] for i in range(4) if melds[s] >> i & 1),
                round_points=points[s] + (marriage[s] if tricks[s] else 0),
                score=totals[s],
                deal_score=last[s],
            )
            for s in range(2)
        )

    def to_json(self) -> dict[str, JSON]:
        """Proto-compatible JSON (field names as in ``view_schnapsen.proto``)."""
        return {
            "game": self.game,
            "seat": self.seat,
            "players": self.players,
            "to_act": self.to_act,
            "dealer": self.dealer,
            "deal_number": self.deal_number,
            "leader": self.leader,
            "hand": list(self.hand),
            "trick": [{"seat": s, "card": c} for s, c in self.trick],
            "last_trick": [{"seat": s, "card": c} for s, c in self.last_trick],
            "last_winner": self.last_winner,
            "played": list(self.played),
            "trump_suit": self.trump_suit,
            "trump_card": self.trump_card,
            "stock_size": self.stock_size,
            "stock_bottom": self.stock_bottom,
            "closed": self.closed,
            "closed_by": self.closed_by,
            "closed_opponent_points": self.closed_opponent_points,
            "strict": self.strict,
            "marriage_pending": self.marriage_pending,
            "target": self.target,
            "deals": self.deals,
            "seats": [s.to_json() for s in self.seats],
        }


class Schnapsen(Game):
    """The seed's 20-card Schnapsen for two players."""

    id: ClassVar[str] = "schnapsen"
    name: ClassVar[str] = "Schnapsen"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    deals_fixed_by_seed: ClassVar[bool] = True
    """Each deal opens with one shuffle (and, for the first, the dealer's draw); no chance
    during a deal; the game points are the sums of the deals'."""
    summary: ClassVar[str] = (
        "Two-player trick-taking with 20 cards (2,3,4,10,A; points 2/3/4/10/11): exchange the "
        "trump 2, meld marriages (20/40), close the stock and reach 66 for 3/2/1 game points, "
        "or win the last trick for 1. First to 7 game points."
    )

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"target": 7, "deals": 0}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"target": OptionRange(1, 1000), "deals": OptionRange(0, 1000, "0: play to the target")}

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> SchnapsenState:
        return SchnapsenState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        kind, _, arg = action.partition(":")
        if kind == "play" and arg in INDEX:
            return ActionInfo(id=action, kind="play", label="play " + card_label(arg), cards=(arg,))
        if kind == "exchange" and arg in INDEX:
            return ActionInfo(
                id=action,
                kind="exchange",
                label=f"exchange {card_label(arg)} for the face-up trump card",
                cards=(arg,),
            )
        if kind == "meld" and len(arg) == 1 and arg in SUITS:
            return ActionInfo(
                id=action,
                kind="meld",
                label=f"meld the {SUIT_NAMES[arg]} marriage",
                cards=("3" + arg, "4" + arg),
                choice=arg,
            )
        if action == "close":
            return ActionInfo(id=action, kind="close", label="close the stock")
        return super().describe(action)


class SchnapsenState(State):
    """A Schnapsen match."""

    def __init__(self, game: Schnapsen, players: int, options: dict[str, JSON]) -> None:
        self.game = game
        self.players = players
        self.options = options
        self._target = int(options["target"])
        self._deals = int(options["deals"])
        self._dealer = -1
        self._turn = CHANCE
        self._hands = [0, 0]
        self._stock: list[int] = []
        self._pos = 0
        self._trump = -1
        self._trump_card = -1
        self._closed_by = -1
        self._closed_points = -1
        self._leader = -1
        self._lead = -1
        self._stage = 0
        self._meld = -1
        self._taken = [0, 0]
        self._points = [0, 0]
        self._marriage = [0, 0]
        self._melds = [0, 0]
        self._tricks = [0, 0]
        self._known = [0, 0]
        self._totals = [0, 0]
        self._last_scores = [0, 0]
        self._last_trick: tuple[int, int, int, int] | None = None
        self._records: list[DealRecord] = []
        self._actions: list[tuple[int, str]] = []
        self._legal: tuple[int, tuple[str, ...]] | None = None
        """The last answer of legal_actions (seat, actions); reset whenever the state changes."""
        self._sampled: tuple[Mapping[str, JSON], int, list[int], list[int], int] | None = None
        """The deal this state just sampled (outcome, dealer, hand masks, stock, trump card), known valid."""

    # ----------------------------------------------------------------- queries
    def to_act(self) -> tuple[int, ...]:
        t = self._turn
        if t >= 0:
            return _SEAT[t]
        return _CHANCE_ONLY if t == CHANCE else ()

    def _open(self) -> bool:
        return self._closed_by < 0 and self._pos < len(self._stock)

    def _strict(self) -> bool:
        return self._closed_by >= 0 or self._pos >= len(self._stock)

    def round_points(self, seat: int) -> int:
        """Card points plus the marriage points that count (the seat has won a trick)."""
        return self._points[seat] + (self._marriage[seat] if self._tricks[seat] else 0)

    def _follow_mask(self, seat: int) -> int:
        hand = self._hands[seat]
        if not self._strict():
            return hand
        lead = self._lead
        suit = hand & SUIT_MASK[_suit(lead)]
        if suit:
            higher = suit & ~((1 << (lead + 1)) - 1)
            return higher or suit
        trumps = hand & SUIT_MASK[self._trump]
        return trumps or hand

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        cached = self._legal
        if cached is not None and cached[0] == seat:
            return cached[1]
        legal = self._legal_actions(seat)
        self._legal = (seat, legal)
        return legal

    def _legal_actions(self, seat: int) -> tuple[str, ...]:
        if seat != self._turn:
            return ()
        if self._lead >= 0:
            return _plays_of(self._follow_mask(seat))
        hand = self._hands[seat]
        out: list[str] = []
        trump_two = 5 * self._trump
        if self._stage < 1 and self._open() and hand >> trump_two & 1:
            out.append("exchange:" + CODES[trump_two])
        if self._stage < 2:
            for s in range(4):
                m = _marriage(s)
                if hand & m == m:
                    out.append("meld:" + SUITS[s])
        if self._stage < 3 and self._open():
            out.append("close")
        mask = hand & _marriage(self._meld) if self._meld >= 0 else hand
        return tuple(out) + _plays_of(mask)

    def view(self, seat: int | None) -> SchnapsenView:
        if seat is not None and not 0 <= seat < 2:
            raise IllegalAction(f"no seat {seat} in a 2-player match")
        return SchnapsenView(self, seat)

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return self.view(seat).to_json()

    def result(self) -> Result:
        if self._turn != OVER:
            raise IllegalAction("the match is not over")
        scores = tuple(float(t) for t in self._totals)
        return Result(scores, ranks_from_scores(scores))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def clone(self) -> SchnapsenState:
        other = object.__new__(SchnapsenState)
        other.__dict__.update(self.__dict__)
        for name in ("_hands", "_stock", "_taken", "_points", "_marriage", "_melds", "_tricks", "_known"):
            setattr(other, name, list(getattr(self, name)))
        other._totals = list(self._totals)
        other._last_scores = list(self._last_scores)
        other._records = [r.copy() for r in self._records]
        other._actions = other._records[-1].actions if other._records else []
        return other

    # ------------------------------------------------------------------ chance
    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        dealer = rng.below(2) if self._dealer < 0 else 1 - self._dealer
        deck = list(range(20))
        rng.shuffle(deck)
        hands: list[list[str]] = [[], []]
        hands[1 - dealer] = [CODES[c] for c in sorted(deck[0:5])]
        hands[dealer] = [CODES[c] for c in sorted(deck[5:10])]
        stock = [CODES[c] for c in deck[10:]]
        outcome: dict[str, JSON] = {"dealer": dealer, "hands": hands, "stock": stock, "trump_card": stock[-1]}
        masks = [0, 0]
        for c in deck[0:5]:
            masks[1 - dealer] |= 1 << c
        for c in deck[5:10]:
            masks[dealer] |= 1 << c
        self._sampled = (outcome, dealer, masks, deck[10:], deck[-1])
        return outcome

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        self._legal = None
        sampled = self._sampled
        self._sampled = None
        if sampled is not None and sampled[0] is outcome:
            # The deal this state just sampled itself: already known to be valid.
            self._start_deal(outcome, sampled[1], sampled[2], sampled[3], sampled[4])
            return
        try:
            dealer = outcome["dealer"]
            hands = [[INDEX[c] for c in h] for h in outcome["hands"]]
            stock = [INDEX[c] for c in outcome["stock"]]
            trump_card = INDEX[outcome["trump_card"]]
        except (KeyError, TypeError) as exc:
            raise InvalidChance(f"malformed deal: {exc!r}") from None
        if not isinstance(dealer, int) or isinstance(dealer, bool) or dealer not in (0, 1):
            raise InvalidChance(f"dealer must be 0 or 1, not {dealer!r}")
        if self._dealer >= 0 and dealer != 1 - self._dealer:
            raise InvalidChance(f"dealer {dealer} does not fit: the deal alternates (expected {1 - self._dealer})")
        if len(hands) != 2 or any(len(h) != 5 for h in hands) or len(stock) != 10:
            raise InvalidChance("a deal is two hands of 5 cards and a stock of 10")
        if stock[-1] != trump_card:
            raise InvalidChance("the trump card must be the face-up bottom card of the stock")
        cards = hands[0] + hands[1] + stock
        if len(set(cards)) != 20:
            raise InvalidChance("the deal does not hold each of the 20 cards exactly once")
        self._start_deal(outcome, dealer, [sum(1 << c for c in h) for h in hands], stock, trump_card)

    def _start_deal(
        self, outcome: Mapping[str, JSON], dealer: int, masks: list[int], stock: list[int], trump_card: int
    ) -> None:
        self._dealer = dealer
        self._hands = masks
        self._stock = stock
        self._pos = 0
        self._trump = _suit(trump_card)
        self._trump_card = trump_card
        self._closed_by = -1
        self._closed_points = -1
        self._leader = 1 - dealer
        self._lead = -1
        self._stage = 0
        self._meld = -1
        self._taken = [0, 0]
        self._points = [0, 0]
        self._marriage = [0, 0]
        self._melds = [0, 0]
        self._tricks = [0, 0]
        self._known = [0, 0]
        self._last_trick = None
        self._turn = self._leader
        record = DealRecord(dealer=dealer, chance=dict(outcome))
        self._records.append(record)
        self._actions = record.actions

    # ------------------------------------------------------------------ action
    def _why_not(self, seat: int, action: str) -> IllegalAction | None:
        """The error for ``action`` by ``seat`` now, or ``None`` if it is legal."""
        if self._turn == OVER:
            return NotYourTurn("the match is over", seat=seat, action=action)
        if seat != self._turn:
            whom = "a chance outcome (the deal)" if self._turn == CHANCE else f"seat {self._turn}"
            return NotYourTurn(f"it is not your turn: waiting for {whom}", seat=seat, action=action)
        kind, _, arg = action.partition(":")
        hand = self._hands[seat]
        leading = self._lead < 0
        if kind == "play" and arg in INDEX:
            card = INDEX[arg]
            if not hand >> card & 1:
                return IllegalAction(f"{arg} is not in your hand", seat=seat, action=action)
            if leading:
                if self._meld >= 0 and not _marriage(self._meld) >> card & 1:
                    s = SUITS[self._meld]
                    return IllegalAction(
                        f"after melding {SUIT_NAMES[s]} you must lead 3{s} or 4{s}", seat=seat, action=action
                    )
                return None
            if self._follow_mask(seat) >> card & 1:
                return None
            lead = self._lead
            ls = SUITS[_suit(lead)]
            why = "closed" if self._closed_by >= 0 else "exhausted"
            if hand & SUIT_MASK[_suit(lead)]:
                allowed = codes_of(self._follow_mask(seat))
                beat = f" and beat {CODES[lead]} if able" if _suit(CODES.index(allowed[0])) == _suit(lead) else ""
                return IllegalAction(
                    f"the stock is {why}: you must follow {SUIT_NAMES[ls]}{beat} (play {' or '.join(allowed)})",
                    seat=seat,
                    action=action,
                )
            return IllegalAction(
                f"you cannot follow {SUIT_NAMES[ls]}, so you must trump ({SUIT_NAMES[SUITS[self._trump]]})",
                seat=seat,
                action=action,
            )
        if kind == "exchange" and arg in INDEX:
            if not leading:
                return IllegalAction("only the leader may exchange, before leading", seat=seat, action=action)
            two = CODES[5 * self._trump]
            if arg != two:
                return IllegalAction(f"only the 2 of trumps can be exchanged: exchange:{two}", seat=seat, action=action)
            if self._stage >= 1:
                done = {1: "you already exchanged", 2: "you already melded", 3: "you already closed"}[self._stage]
                return IllegalAction(f"{done}: exchange must come before melding and closing", seat=seat, action=action)
            if not self._open():
                return IllegalAction(
                    f"the stock is {'closed' if self._closed_by >= 0 else 'exhausted'}: no exchange",
                    seat=seat,
                    action=action,
                )
            if not hand >> (5 * self._trump) & 1:
                return IllegalAction(f"you do not hold {two}", seat=seat, action=action)
            return None
        if kind == "meld" and len(arg) == 1 and arg in SUITS:
            if not leading:
                return IllegalAction("only the leader may meld, before leading", seat=seat, action=action)
            if self._stage >= 2:
                why = (
                    "at most one marriage per lead" if self._stage == 2 else "you closed: melding comes before closing"
                )
                return IllegalAction(why, seat=seat, action=action)
            m = _marriage(SUITS.index(arg))
            if hand & m != m:
                return IllegalAction(f"a marriage needs 3{arg} and 4{arg} in your hand", seat=seat, action=action)
            return None
        if action == "close":
            if not leading:
                return IllegalAction("only the leader may close, before leading", seat=seat, action=action)
            if self._closed_by >= 0:
                return IllegalAction("the stock is already closed", seat=seat, action=action)
            if not self._open():
                return IllegalAction("the stock is exhausted: nothing to close", seat=seat, action=action)
            return None
        return UnknownAction(
            f"unknown action {action!r}: expected play:<card> (e.g. play:TH), exchange:<2 of trumps>, "
            "meld:<suit letter> or close",
            seat=seat,
            action=action,
        )

    def apply(self, seat: int, action: str) -> None:
        if action not in self.legal_actions(seat):
            # legal_actions and _why_not agree; the latter explains a refusal.
            error = self._why_not(seat, action)
            if error is not None:
                raise error
        self._legal = None
        kind, _, arg = action.partition(":")
        self._actions.append((seat, action))
        if kind == "play":
            self._play(seat, INDEX[arg])
        elif kind == "exchange":
            two = 5 * self._trump
            face_up = self._stock[-1]
            self._hands[seat] ^= 1 << two | 1 << face_up
            self._known[seat] = (self._known[seat] & ~(1 << two)) | 1 << face_up
            self._stock[-1] = two
            self._trump_card = two
            self._stage = 1
        elif kind == "meld":
            suit = SUITS.index(arg)
            self._meld = suit
            self._marriage[seat] += 40 if suit == self._trump else 20
            self._melds[seat] |= 1 << suit
            self._known[seat] |= _marriage(suit)
            self._stage = 2
        else:
            self._closed_by = seat
            self._closed_points = self.round_points(1 - seat)
            self._stage = 3

    def _play(self, seat: int, card: int) -> None:
        bit = 1 << card
        self._hands[seat] ^= bit
        self._known[seat] &= ~bit
        lead = self._lead
        if lead < 0:
            self._lead = card
            self._meld = -1
            self._turn = 1 - seat
            return
        leader = self._leader
        ls, fs = _suit(lead), _suit(card)
        winner = (seat if card > lead else leader) if fs == ls else (seat if fs == self._trump else leader)
        loser = 1 - winner
        self._taken[winner] |= bit | 1 << lead
        self._points[winner] += _CARD_POINTS[card] + _CARD_POINTS[lead]
        self._tricks[winner] += 1
        self._last_trick = (leader, lead, card, winner)
        self._lead = -1
        self._stage = 0
        if self._open():
            pos = self._pos
            self._hands[winner] |= 1 << self._stock[pos]
            self._hands[loser] |= 1 << self._stock[pos + 1]
            if pos + 2 == len(self._stock):
                self._known[loser] |= 1 << self._stock[pos + 1]
            self._pos = pos + 2
        self._leader = winner
        if self._hands[winner]:
            self._turn = winner
            return
        self._finish_deal(winner)

    def deal_scores(self, last_winner: int) -> list[int]:
        """Game points per seat for the round just played out (``last_winner`` took the last trick)."""
        scores = [0, 0]
        closer = self._closed_by
        if closer < 0:
            scores[last_winner] = 1
            return scores
        recorded = self._closed_points
        if self.round_points(closer) >= TARGET_POINTS:
            scores[closer] = 3 if recorded == 0 else 2 if recorded <= 32 else 1
        else:
            scores[1 - closer] = 3 if recorded == 0 else 2
        return scores

    def _finish_deal(self, last_winner: int) -> None:
        scores = self.deal_scores(last_winner)
        self._records[-1].scores = [float(s) for s in scores]
        self._last_scores = scores
        self._totals = [t + s for t, s in zip(self._totals, scores, strict=True)]
        over = len(self._records) >= self._deals if self._deals else max(self._totals) >= self._target
        self._turn = OVER if over else CHANCE

    # -------------------------------------------------------------- invariants
    def invariants(self) -> list[str]:
        problems: list[str] = []
        if not self._records:
            return problems
        zones = [*self._hands, *self._taken, sum(1 << c for c in self._stock[self._pos :])]
        if self._lead >= 0:
            zones.append(1 << self._lead)
        seen = 0
        for z in zones:
            seen |= z
        if seen != FULL or sum(z.bit_count() for z in zones) != 20:
            problems.append("cards not conserved")
        for s in range(2):
            if self._known[s] & ~self._hands[s]:
                problems.append(f"seat {s}: known cards {codes_of(self._known[s])} not all in hand")
            if self._points[s] != sum(_CARD_POINTS[c] for c in range(20) if self._taken[s] >> c & 1):
                problems.append(f"seat {s}: card points do not match the cards taken")
            if self._taken[s].bit_count() != 2 * self._tricks[s]:
                problems.append(f"seat {s}: taken cards do not match tricks won")
        if sum(self._points) > 120:
            problems.append("more than 120 card points")
        if self._turn >= 0 and abs(self._hands[0].bit_count() - self._hands[1].bit_count()) > 1:
            problems.append("hand sizes differ by more than one")
        if self._stock and _suit(self._stock[-1]) != self._trump and self._pos < len(self._stock):
            problems.append("the stock's bottom card is not a trump")
        return problems

    def secrets(self, seat: int | None) -> frozenset[str]:
        if not self._records:
            return frozenset()
        hidden = 0
        for other in range(2):
            if other != seat:
                hidden |= self._hands[other] & ~self._known[other]
        for c in self._stock[self._pos : -1]:
            hidden |= 1 << c
        return frozenset(codes_of(hidden))


GAME = Schnapsen()
