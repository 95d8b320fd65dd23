"""Shared machinery of the whist family: Glaves, Knaves and German Whist.

One 52-card deck, aces high, must follow suit if able, highest trump else highest card of the
suit led wins, the winner leads next.  Games differ in the layout of a deal (hand size, a
drawing stock, where trump comes from), in how a deal is scored and in when the match ends;
a game supplies those through :class:`TrickLayout` and by overriding
:meth:`TrickState._deal_scores` and :meth:`TrickState._match_over`.

The state keeps hands and card sets as 52-bit masks (see :mod:`cardarena.engine.cards`);
views decode them to card codes on access.  Pure: no IO, no clock, no RNG of its own.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from ..engine.cards import BIT, CODES, FULL_DECK, INDEX, SUIT_MASK, SUIT_NAMES, SUITS, codes_of, label
from ..engine.core import (
    CHANCE,
    JSON,
    ActionInfo,
    DealRecord,
    Game,
    IllegalAction,
    InvalidChance,
    NotYourTurn,
    Result,
    State,
    UnknownAction,
    ranks_from_scores,
)
from ..engine.rng import MatchRng

PLAY_ACTION: tuple[str, ...] = tuple("play:" + c for c in CODES)
"""Card index to its action id ``play:<card>``."""
_ACTION_CARD: dict[str, int] = {a: i for i, a in enumerate(PLAY_ACTION)}
_SUIT_OF: tuple[int, ...] = tuple(i // 13 for i in range(52))
_PLAY: dict[str, tuple[int, int, int]] = {a: (i, 1 << i, i // 13) for i, a in enumerate(PLAY_ACTION)}
_RANK_OF: tuple[int, ...] = tuple(i % 13 for i in range(52))


def _suit_table(suit: int) -> tuple[tuple[str, ...], ...]:
    table: list[tuple[str, ...]] = [()]
    for mask in range(1, 1 << 13):
        low = (mask & -mask).bit_length() - 1
        table.append((PLAY_ACTION[13 * suit + low],) + table[mask & (mask - 1)])
    return tuple(table)


_SUIT_PLAYS: tuple[tuple[tuple[str, ...], ...], ...] = tuple(_suit_table(s) for s in range(4))
_C, _D, _H, _S = _SUIT_PLAYS
_SEAT: tuple[tuple[int, ...], ...] = tuple((s,) for s in range(8))
_NOBODY: tuple[int, ...] = ()
_CHANCE_ONLY: tuple[int, ...] = (CHANCE,)

JACKS = BIT[INDEX["JC"]] | BIT[INDEX["JD"]] | BIT[INDEX["JH"]] | BIT[INDEX["JS"]]
"""Mask of the four jacks."""
JACK_PENALTY: dict[int, int] = {INDEX["JH"]: 4, INDEX["JD"]: 3, INDEX["JC"]: 2, INDEX["JS"]: 1}
"""Card index of each jack to its penalty (scored negative)."""


def plays_of(mask: int) -> tuple[str, ...]:
    """The ``play:<card>`` action ids of the cards in ``mask`` (cached per suit)."""
    return _C[mask & 0x1FFF] + _D[mask >> 13 & 0x1FFF] + _H[mask >> 26 & 0x1FFF] + _S[mask >> 39]


def jack_penalty(mask: int) -> int:
    """The total jack penalty (positive) of the jacks in ``mask``."""
    return sum(p for c, p in JACK_PENALTY.items() if mask & BIT[c])


@dataclass(frozen=True, slots=True)
class TrickLayout:
    """How one deal is laid out for a player count."""

    hand_size: int
    """Cards dealt to each player."""
    stock: int
    """Cards in the drawing stock after the deal (0: no drawing)."""
    trump_set_aside: bool = False
    """Trump is fixed by a card taken from the bottom of the stock and put out of play."""
    trump_turned_out: bool = False
    """Trump is fixed by the next card of the deck, which stays out of play (Knaves)."""


class TrickView:
    """What one seat (or a spectator, ``seat is None``) sees of a whist-family match.

    Built as one snapshot tuple (only the seat's own hand among the hidden cards); card sets
    are decoded to card codes on access, so building a view is cheap.
    """

    __slots__ = ("_d", "_f", "_p", "seat")

    def __init__(self, state: TrickState, seat: int | None) -> None:
        self.seat = seat
        # The state's public tuple changes at most once per trick, so it is shared, not copied;
        # only what changes with every action is captured here.
        self._p = state._pub
        self._d = (
            state._turn,
            state._hands[seat] if seat is not None and state._hands else 0,
            state._trick,
            state._leader,
            state._known,
        )
        self._f: tuple[Any, ...] | None = None

    @property
    def _s(self) -> tuple[Any, ...]:
        # (game, players, dealer, deal_number, turn, hand, trick, leader, trump, trump_card,
        #  stock, stock_pos, tricks, jacks, known, totals, last_deal_scores, target, deals,
        #  phase_tricks, last_trick, hand_size, played), assembled on first access.
        full = self._f
        if full is None:
            p = self._p
            d = self._d
            full = self._f = (*p[:4], *d[:4], *p[4:10], d[4], *p[10:])
        return full

    @property
    def game(self) -> str:
        """The game id."""
        return cast("str", self._s[0])

    @property
    def players(self) -> int:
        """Number of seats."""
        return cast("int", self._s[1])

    @property
    def dealer(self) -> int:
        """The dealer of the current deal."""
        return cast("int", self._s[2])

    @property
    def deal_number(self) -> int:
        """How many deals have been dealt (1 during the first deal)."""
        return cast("int", self._s[3])

    @property
    def to_act(self) -> int | None:
        """The seat to play, or ``None`` (between deals, or over)."""
        turn: int = self._s[4]
        return turn if turn >= 0 else None

    @property
    def hand(self) -> tuple[str, ...]:
        """The seat's own hand (empty for a spectator)."""
        return codes_of(self._s[5])

    @property
    def leader(self) -> int:
        """The seat that leads (led) the current trick."""
        return cast("int", self._s[7])

    @property
    def trick(self) -> tuple[tuple[int, str], ...]:
        """The trick in progress as ``(seat, card)`` from its leader."""
        n, leader = self._s[1], self._s[7]
        return tuple(((leader + i) % n, CODES[c]) for i, c in enumerate(self._s[6]))

    @property
    def trump_suit(self) -> str | None:
        """The trump suit letter."""
        trump: int = self._s[8]
        return SUITS[trump] if trump >= 0 else None

    @property
    def trump_card(self) -> str | None:
        """The card that fixed trump."""
        card: int = self._s[9]
        return CODES[card] if card >= 0 else None

    @property
    def stock_size(self) -> int:
        """Cards left in the stock (including the face-up card)."""
        pos: int = self._s[11]
        return len(self._s[10]) - pos

    @property
    def stock_face_up(self) -> str | None:
        """The face-up top card of the stock, if any."""
        stock, pos = self._s[10], self._s[11]
        return CODES[stock[pos]] if pos < len(stock) else None

    @property
    def phase(self) -> int:
        """1 while the stock lasts (drawing), 2 after."""
        return 1 if self.stock_size else 2

    @property
    def tricks_taken(self) -> tuple[int, ...]:
        """Per seat, tricks taken this deal."""
        return cast("tuple[int, ...]", self._s[12])

    @property
    def jacks_taken(self) -> tuple[tuple[str, ...], ...]:
        """Per seat, the jacks it has taken in tricks this deal."""
        return tuple(codes_of(m) for m in self._s[13])

    @property
    def known_cards(self) -> tuple[tuple[str, ...], ...]:
        """Per seat, cards publicly known to be in its hand (face-up stock cards it took)."""
        return tuple(codes_of(m) for m in self._s[14])

    @property
    def scores(self) -> tuple[float, ...]:
        """Match totals per seat."""
        return cast("tuple[float, ...]", self._s[15])

    @property
    def deal_scores(self) -> tuple[float, ...]:
        """The previous deal's score per seat (zeros before the first deal ends)."""
        return cast("tuple[float, ...]", self._s[16])

    @property
    def target(self) -> int | None:
        """The total that ends the match, if the match is played to a target."""
        return cast("int | None", self._s[17])

    @property
    def deals(self) -> int:
        """A fixed number of deals for the match (0: play to the target)."""
        return cast("int", self._s[18])

    @property
    def phase_tricks(self) -> tuple[int, ...]:
        """Per seat, tricks taken after the stock ran out (German Whist's phase 2)."""
        return cast("tuple[int, ...]", self._s[19])

    @property
    def last_trick(self) -> tuple[tuple[int, str], ...]:
        """The previous completed trick of this deal as ``(seat, card)``."""
        last = self._s[20]
        if not last:
            return ()
        leader, cards, _ = last
        n = self._s[1]
        return tuple(((leader + i) % n, CODES[c]) for i, c in enumerate(cards))

    @property
    def last_winner(self) -> int | None:
        """Who won the previous trick of this deal."""
        last = self._s[20]
        return last[2] if last else None

    @property
    def played_cards(self) -> tuple[str, ...]:
        """Cards played in the completed tricks of this deal (every play is seen by all)."""
        return codes_of(self._s[22])

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards in each seat's hand."""
        s = self._s
        n: int = s[1]
        turn, trick, leader, stock, pos = s[4], s[6], s[7], s[10], s[11]
        if s[3] == 0 or (turn < 0 and not trick and sum(s[12]) * n >= n * s[21] + len(stock)):
            return (0,) * n
        done = sum(s[12])
        base = s[21] + pos // n - done
        played = {(leader + i) % n for i in range(len(trick))}
        return tuple(base - (1 if seat in played else 0) for seat in range(n))

    def to_json(self) -> dict[str, JSON]:
        """The view as a JSON object (proto-compatible: no lists of lists, per-seat data in ``seats``).

        Reads the snapshot once (the properties above give the same values one by one; this is
        on the path of every request the service sends)."""
        s = self._s
        n: int = s[1]
        turn: int = s[4]
        leader: int = s[7]
        trump: int = s[8]
        trump_card: int = s[9]
        stock, pos = s[10], s[11]
        tricks, jacks, known, totals, deal_scores, phase_tricks = s[12], s[13], s[14], s[15], s[16], s[19]
        last = s[20]
        stock_size = len(stock) - pos
        sizes = self.hand_sizes
        return {
            "game": s[0],
            "seat": self.seat,
            "players": n,
            "dealer": s[2],
            "deal_number": s[3],
            "to_act": turn if turn >= 0 else None,
            "hand": list(codes_of(s[5])),
            "trick": [{"seat": (leader + i) % n, "card": CODES[c]} for i, c in enumerate(s[6])],
            "leader": leader,
            "last_trick": [{"seat": (last[0] + i) % n, "card": CODES[c]} for i, c in enumerate(last[1])]
            if last
            else [],
            "last_winner": last[2] if last else None,
            "played_cards": list(codes_of(s[22])),
            "trump_suit": SUITS[trump] if trump >= 0 else None,
            "trump_card": CODES[trump_card] if trump_card >= 0 else None,
            "stock_size": stock_size,
            "stock_face_up": CODES[stock[pos]] if pos < len(stock) else None,
            "phase": 1 if stock_size else 2,
            "target": s[17],
            "deals": s[18],
            "seats": [
                {
                    "seat": i,
                    "hand_size": sizes[i],
                    "tricks_taken": tricks[i],
                    "jacks_taken": list(codes_of(jacks[i])),
                    "known_cards": list(codes_of(known[i])),
                    "phase_tricks": phase_tricks[i],
                    "score": totals[i],
                    "deal_score": deal_scores[i],
                }
                for i in range(n)
            ],
        }


class TrickGame(Game):
    """A whist-family game: subclasses give the layout and the state class."""

    state_class: type[TrickState]
    deals_fixed_by_seed: ClassVar[bool] = True
    """Each deal opens with one shuffle (and, for the first, the dealer's draw); no chance
    during a deal; the totals are the sums of the deals' scores."""

    def layout(self, players: int) -> TrickLayout:
        """The deal layout for ``players``."""
        raise NotImplementedError

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> TrickState:
        return self.state_class(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        card = _ACTION_CARD.get(action)
        if card is None:
            return super().describe(action)
        return ActionInfo(id=action, kind="play", label="play " + label(CODES[card]), cards=(CODES[card],))


class TrickState(State):
    """A whist-family match.  Subclasses override scoring and the end of the match."""

    def __init__(self, game: TrickGame, players: int, options: dict[str, JSON]) -> None:
        self.game = game
        self.players = players
        self.options = options
        self._layout = game.layout(players)
        self._target: int | None = options.get("target")
        self._deals: int = int(options.get("deals") or 0)
        self._dealer = -1
        self._turn = CHANCE
        self._hands: list[int] = []
        self._stock: list[int] = []
        self._stock_pos = 0
        self._trump = -1
        self._trump_card = -1
        self._out_of_play = 0
        zeros = (0,) * players
        self._known: tuple[int, ...] = zeros
        self._trick: tuple[int, ...] = ()
        self._leader = -1
        self._lead_suit = -1
        self._best_card = -1
        self._best_offset = 0
        self._tricks: tuple[int, ...] = zeros
        self._phase2: tuple[int, ...] = zeros
        self._taken: list[int] = [0] * players
        self._jacks: tuple[int, ...] = zeros
        self._totals: tuple[float, ...] = zeros
        self._last_deal_scores: tuple[float, ...] = zeros
        self._last_trick: tuple[int, tuple[int, ...], int] | tuple[()] = ()
        self._records: list[DealRecord] = []
        self._actions: list[tuple[int, str]] = []
        self._sampled: tuple[Any, ...] | None = None
        self._pub: tuple[Any, ...] = ()
        self._refresh_public()

    def _refresh_public(self) -> None:
        """Rebuild the public tuple views share (after a deal starts or a trick or deal
        ends): everything a view shows but the turn, hand, trick and public knowledge."""
        self._pub = (
            self.game.id,
            self.players,
            self._dealer,
            len(self._records),
            self._trump,
            self._trump_card,
            self._stock,
            self._stock_pos,
            self._tricks,
            self._jacks,
            self._totals,
            self._last_deal_scores,
            self._target,
            self._deals,
            self._phase2,
            self._last_trick,
            self._layout.hand_size,
            functools.reduce(operator.or_, self._taken, 0),  # this deal's completed tricks: every card taken
        )

    # ----------------------------------------------------------------- queries
    def to_act(self) -> tuple[int, ...]:
        turn = self._turn
        if turn >= 0:
            return _SEAT[turn]
        return _CHANCE_ONLY if turn == CHANCE else _NOBODY

    def _legal_mask(self, seat: int) -> int:
        hand = self._hands[seat]
        if self._trick:
            follow = hand & SUIT_MASK[self._lead_suit]
            if follow:
                return follow
        return hand

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        if seat != self._turn or seat < 0:  # nobody's turn at a chance node or the end
            return ()
        hand = self._hands[seat]
        if self._trick:
            lead = self._lead_suit
            follow = hand >> (13 * lead) & 0x1FFF
            if follow:
                return _SUIT_PLAYS[lead][follow]
        return _C[hand & 0x1FFF] + _D[hand >> 13 & 0x1FFF] + _H[hand >> 26 & 0x1FFF] + _S[hand >> 39]

    def view(self, seat: int | None) -> TrickView:
        if seat is not None and not 0 <= seat < self.players:
            raise IllegalAction(f"no seat {seat} in a {self.players}-player match")
        return TrickView(self, seat)

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return self.view(seat).to_json()

    def result(self) -> Result:
        if self._turn != -2:
            raise IllegalAction("the match is not over")
        return Result(tuple(self._totals), ranks_from_scores(self._totals))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def clone(self) -> TrickState:
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._hands = list(self._hands)
        other._taken = list(self._taken)
        other._records = [r.copy() for r in self._records]
        other._actions = other._records[-1].actions if other._records else []
        return other

    # ------------------------------------------------------------------ chance
    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        n = self.players
        dealer = rng.below(n) if self._dealer < 0 else (self._dealer + 1) % n
        deck = list(range(52))
        rng.shuffle(deck)
        lay = self._layout
        hs = lay.hand_size
        # Deal one at a time clockwise from the dealer's left.
        hands = [sorted(deck[i::n][:hs]) for i in range(n)]
        hands = hands[n - (dealer + 1) % n :] + hands[: n - (dealer + 1) % n]
        rest = deck[n * hs :]
        code = CODES.__getitem__
        outcome: dict[str, JSON] = {"dealer": dealer, "hands": [list(map(code, h)) for h in hands]}
        if lay.trump_turned_out:
            outcome["stock"] = []
            outcome["trump_card"] = CODES[rest[0]]
            outcome["unused"] = list(map(code, rest[1:]))
        elif lay.trump_set_aside:
            outcome["stock"] = list(map(code, rest[:-1]))
            outcome["trump_card"] = CODES[rest[-1]]
        else:
            outcome["stock"] = list(map(code, rest))
            outcome["trump_card"] = CODES[rest[0]]
        bit = BIT.__getitem__
        masks = [sum(map(bit, hand)) for hand in hands]  # distinct bits: the sum is the union
        out_of_play = 0
        if lay.trump_turned_out or lay.trump_set_aside:
            out_of_play = sum(map(bit, rest[lay.stock :] if lay.trump_set_aside else rest))
        stock = rest[1 : 1 + lay.stock] if lay.trump_turned_out else rest[: lay.stock]
        self._sampled = (outcome, dealer, masks, stock, INDEX[outcome["trump_card"]], out_of_play)
        return outcome

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        sampled = self._sampled
        if sampled is not None and sampled[0] is outcome:
            # The outcome this state just drew itself: already known to be a valid deal.
            self._start_deal(outcome, *sampled[1:])
            return
        n = self.players
        lay = self._layout
        try:
            dealer = int(outcome["dealer"])
            hands = [[INDEX[c] for c in h] for h in outcome["hands"]]
            stock = [INDEX[c] for c in outcome["stock"]]
            trump_card = INDEX[outcome["trump_card"]]
            unused = [INDEX[c] for c in outcome.get("unused", [])]
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidChance(f"malformed deal: {exc!r}") from None
        expected_dealer = (self._dealer + 1) % n if self._dealer >= 0 else dealer
        if not 0 <= dealer < n or dealer != expected_dealer:
            raise InvalidChance(f"dealer {dealer} does not fit (expected {expected_dealer})")
        if len(hands) != n or any(len(h) != lay.hand_size for h in hands):
            raise InvalidChance("wrong number of hands or hand sizes")
        if len(stock) != lay.stock:
            raise InvalidChance(f"stock must hold {lay.stock} cards, not {len(stock)}")
        out_of_play = 0
        if lay.trump_turned_out or lay.trump_set_aside:
            out_of_play = BIT[trump_card]
        elif not stock or stock[0] != trump_card:
            raise InvalidChance("the trump card must be the face-up top card of the stock")
        for c in unused:
            out_of_play |= BIT[c]
        seen = out_of_play
        count = out_of_play.bit_count()
        masks = []
        for h in hands:
            m = 0
            for c in h:
                m |= BIT[c]
            masks.append(m)
            seen |= m
            count += len(h)
        for c in stock:
            seen |= BIT[c]
        count += len(stock)
        if seen != FULL_DECK or count != 52:
            raise InvalidChance("the deal does not hold each of the 52 cards exactly once")
        self._start_deal(outcome, dealer, masks, stock, trump_card, out_of_play)

    def _start_deal(
        self,
        outcome: Mapping[str, JSON],
        dealer: int,
        masks: list[int],
        stock: list[int],
        trump_card: int,
        out_of_play: int,
    ) -> None:
        self._sampled = None
        n = self.players
        self._dealer = dealer
        self._hands = list(masks)
        self._stock = list(stock)
        self._stock_pos = 0
        self._trump_card = trump_card
        self._trump = _SUIT_OF[trump_card]
        self._out_of_play = out_of_play
        zeros = (0,) * n
        self._known = zeros
        self._trick = ()
        self._tricks = zeros
        self._phase2 = zeros
        self._taken = [0] * n
        self._jacks = zeros
        self._last_trick = ()
        self._leader = (dealer + 1) % n
        self._turn = self._leader
        record = DealRecord(dealer=dealer, chance=dict(outcome))
        self._records.append(record)
        self._actions = record.actions
        self._refresh_public()

    # ------------------------------------------------------------------ action
    def _reject(self, seat: int, action: str) -> IllegalAction:
        if self._turn == -2:
            return NotYourTurn("the match is over", seat=seat, action=action)
        if seat != self._turn or seat < 0:
            whom = "the dealer (a chance outcome)" if self._turn == CHANCE else f"seat {self._turn}"
            return NotYourTurn(f"it is not your turn: waiting for {whom}", seat=seat, action=action)
        card = _ACTION_CARD.get(action)
        if card is None:
            return UnknownAction(
                f"unknown action {action!r}: expected play:<card>, e.g. play:QH", seat=seat, action=action
            )
        if not self._hands[seat] & BIT[card]:
            return IllegalAction(f"{CODES[card]} is not in your hand", seat=seat, action=action)
        return IllegalAction(f"must follow {SUIT_NAMES[SUITS[self._lead_suit]]}", seat=seat, action=action)

    def apply(self, seat: int, action: str) -> None:
        play = _PLAY.get(action)
        if seat != self._turn or play is None or seat < 0:
            raise self._reject(seat, action)
        card, bit, suit = play
        hands = self._hands
        hand = hands[seat]
        trick = self._trick
        if not hand & bit:
            raise self._reject(seat, action)
        if trick:
            lead = self._lead_suit
            if suit != lead and hand & SUIT_MASK[lead]:
                raise self._reject(seat, action)
            best = self._best_card
            best_suit = _SUIT_OF[best]
            if (suit == best_suit and card > best) or (suit == self._trump and best_suit != suit):
                self._best_card = card
                self._best_offset = len(trick)
        else:
            self._lead_suit = suit
            self._best_card = card
            self._best_offset = 0
        hands[seat] = hand ^ bit
        known = self._known
        if known[seat] & bit:
            self._known = known[:seat] + (known[seat] ^ bit,) + known[seat + 1 :]
        trick = self._trick = trick + (card,)
        self._actions.append((seat, action))
        n = self.players
        if len(trick) < n:
            self._turn = seat + 1 if seat + 1 < n else 0
            return
        self._finish_trick()

    def _finish_trick(self) -> None:
        n = self.players
        trick = self._trick
        winner = (self._leader + self._best_offset) % n
        won = sum(map(BIT.__getitem__, trick))  # distinct bits: the sum is the union
        after = winner + 1
        self._taken[winner] |= won
        jacks = won & JACKS
        if jacks:
            js = self._jacks
            self._jacks = js[:winner] + (js[winner] | jacks,) + js[after:]
        tricks = self._tricks
        self._tricks = tricks[:winner] + (tricks[winner] + 1,) + tricks[after:]
        stock = self._stock
        pos = self._stock_pos
        if pos < len(stock):
            hands = self._hands
            face_up = stock[pos]
            hands[winner] |= BIT[face_up]
            known = self._known
            self._known = known[:winner] + (known[winner] | BIT[face_up],) + known[after:]
            for i in range(1, n):
                hands[(winner + i) % n] |= BIT[stock[pos + i]]
            self._stock_pos = pos + n
        else:
            p2 = self._phase2
            self._phase2 = p2[:winner] + (p2[winner] + 1,) + p2[after:]
        self._last_trick = (self._leader, trick, winner)
        self._trick = ()
        self._leader = winner
        if self._hands[winner]:
            self._turn = winner
            self._refresh_public()
            return
        self._finish_deal()

    def _finish_deal(self) -> None:
        scores = self._deal_scores()
        record = self._records[-1]
        record.scores = scores
        self._last_deal_scores = tuple(scores)
        self._totals = tuple(t + s for t, s in zip(self._totals, scores, strict=True))
        self._turn = -2 if self._match_over() else CHANCE
        self._refresh_public()

    # -------------------------------------------------------------- game hooks
    def _deal_scores(self) -> list[float]:
        """Each seat's score for the deal just finished."""
        raise NotImplementedError

    def _match_over(self) -> bool:
        """Whether the match ends after the deal just scored (totals are updated)."""
        if self._deals:
            return len(self._records) >= self._deals
        target = self._target
        return target is not None and max(self._totals) >= target

    # -------------------------------------------------------------- invariants
    def invariants(self) -> list[str]:
        problems: list[str] = []
        if not self._hands:
            return problems
        zones = list(self._hands)
        zones += [sum(BIT[c] for c in self._stock[self._stock_pos :]), sum(BIT[c] for c in self._trick)]
        zones += list(self._taken) + [self._out_of_play]
        seen = 0
        count = 0
        for z in zones:
            seen |= z
            count += z.bit_count()
        if seen != FULL_DECK or count != 52:
            problems.append(f"cards not conserved: {count} placed, {seen.bit_count()} distinct")
        for seat, known in enumerate(self._known):
            if known & ~self._hands[seat]:
                problems.append(f"seat {seat}: known cards {codes_of(known)} not all in hand")
        if sum(self._tricks) * self.players != sum(t.bit_count() for t in self._taken):
            problems.append("taken cards do not match the tricks won")
        return problems

    def secrets(self, seat: int | None) -> frozenset[str]:
        if not self._hands:
            return frozenset()
        hidden = 0
        for other, hand in enumerate(self._hands):
            if other != seat:
                hidden |= hand & ~self._known[other]
        for c in self._stock[self._stock_pos + 1 :]:
            hidden |= BIT[c]
        if self._layout.trump_turned_out:
            hidden |= self._out_of_play & ~BIT[self._trump_card]
        return frozenset(codes_of(hidden))
