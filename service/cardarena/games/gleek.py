"""Gleek: a 17th-century showdown and trick-taking game for 3 players (id ``gleek``).

Rules (the original rules document and the team's rulings, not distributed here; ``docs/games/gleek.md``):

* 44 cards (no 2s or 3s), aces high.  12 cards each; of the 8 left the top one is turned for
  trump and stays out of play (the dealer counts it if it is a trump honour); the other 7
  are the stock bought in the auction.  A turned 4/5/6 earns the dealer 4/5/6 stakes from
  each other player.
* Auction: the player left of the dealer must open at 12 (``bid:12``); then each player in
  turn raises (``bid:<n>``, any higher whole number up to 40) or passes (``pass``); a player
  who passed cannot re-enter.  When two have passed, the third pays the bid to each other
  player, discards 7 cards one at a time (``discard:<card>``) and takes the 7 stock cards.
* Ruff: a hand's ruff is its highest single-suit sum (A 11, K/Q/J 10, numerals face value);
  four aces beat any ruff.  From the dealer's left each player may ``open`` (2 stakes) or
  ``pass``; once opened, players in turn ``call``, ``raise:<n>`` (n more stakes, 1 to 10; at
  most three raises per ruff) or ``fold``.  Betting ends when two have folded (the third
  takes the bets) or when every player still in has called the last bet; then the best ruff
  takes every stake bet (ties split).  If nobody opens, the next deal's ruff stakes are
  doubled (open 4, raises x2).
* Gleeks (three of a rank J-A) and mournivals (all four) are declared automatically after
  the ruff: each other player pays A 4, K 3, Q 2, J 1 stakes (doubled for a mournival).
  The declared cards are public knowledge until played.
* Tricks (12): the player left of the dealer leads; follow suit if able, else any card;
  highest trump, else highest card of the suit led, wins; the winner leads.  Playing the
  4/5/6 of trumps earns that many stakes from each other player.
* Score: 3 per trick won, plus the honour values of the trumps the player played (A 15,
  K 3, Q 3, J 9), plus, for the dealer, the turned card's honour value.  Each player then
  receives (score - 22) from the pot, or pays it if negative.  The pot is a running balance
  carried from deal to deal (it may go negative).  The scores of a deal sum to 36 + trump
  honours played + turned honour: 66 unless the auction winner discarded a trump honour.
* A match is a fixed number of deals (option ``deals``, default 3, one per dealer); ranking
  by stake balance (everyone starts at 0).  Stakes are conserved: balances + pot + stakes
  bet in an unfinished ruff are always 0.

Rulings made here where seed and rulings are silent:

* The opener's 12 is forced (``bid:12`` is their only action); bids are capped at 40 and a
  ruff raise at 10 stakes (x2 when doubled) so the action list is finite.
* A ruff allows the opening bet and at most three raises (the standard limit-betting cap);
  after the third raise the players still in may only ``call`` or ``fold``.  Without a cap
  two players could raise each other for ever (balances may go negative, so no stack stops
  them) and the match would never end.
* "A bet has been called with no raise since" is read the poker way: the betting ends when
  every player still in has answered the last bet or raise by calling.  A player who passed
  before the opening may still call, raise or fold afterwards.
* Doubling is not cumulative: a deal is doubled when the deal before it had no ruff opening.
* A tied ruff showdown splits the bets equally; an odd stake goes to the tied player first
  clockwise from the dealer's left.
* At a showdown each player still in shows the cards of their ruff (the first best suit in
  clubs, diamonds, hearts, spades order; four aces show the aces): public until played.  The
  view's ``ruff_value`` is the shown suit's sum; for four aces it stays unset (the aces are
  in ``known_cards``), since their best suit sum was not shown.
* A deal record's ``scores`` are the deal's points (3 per trick plus honours), the numbers
  the rulings' 66 refers to; stake changes are in the view.

Hidden information: each seat sees its own hand, the turned card, every card played, and the
cards declared in gleeks and mournivals or shown at a ruff showdown (``known_cards``, until
played).  The stock and the auction winner's discards are seen by nobody else: other viewers
learn a discard as ``discard`` without the card (``public_action``).

Pure: no IO, no clock, no RNG of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..engine.cards import BIT, CODES, INDEX, SUIT_MASK, SUIT_NAMES, SUITS, codes_of, label
from ..engine.core import (
    CHANCE,
    JSON,
    ActionInfo,
    DealRecord,
    Game,
    IllegalAction,
    InvalidChance,
    NotYourTurn,
    OptionRange,
    Result,
    SnapshotView,
    State,
    UnknownAction,
    ranks_from_scores,
    replaced,
)
from ..engine.rng import MatchRng
from .trick_taking import plays_of

PLAYERS = 3
HAND = 12
STOCK = 7
OPENING_BID = 12
MAX_BID = 40
"""The highest auction bid offered (a ruling: keeps the action list finite)."""
MAX_RAISE = 10
"""The largest ruff raise, in stakes before doubling."""
MAX_RAISES = 3
"""Raises allowed in one ruff after the opening ("a bet and three raises", a ruling: without
it two players could raise each other for ever and the match would never end)."""
RUFF_OPEN = 2
PAR = 22
"""Each player receives (score - 22) from the pot."""
OVER = -2

DECK: tuple[int, ...] = tuple(c for c in range(52) if c % 13 >= 2)
"""The 44 cards: no 2s or 3s."""
DECK_MASK = sum(BIT[c] for c in DECK)
HONOUR: dict[int, int] = {12: 15, 11: 3, 10: 3, 9: 9}
"""Trump honour values by rank index: A 15, K 3, Q 3, J 9."""
GLEEK: dict[int, int] = {12: 4, 11: 3, 10: 2, 9: 1}
"""Gleek value by rank index (paid by each other player; doubled for a mournival)."""
RANK_NAME = "23456789TJQKA"


def ruff_points(card: int) -> int:
    """A card's ruff value: A 11, K/Q/J 10, numerals face value."""
    rank = card % 13
    if rank == 12:
        return 11
    if rank >= 8:
        return 10
    return rank + 2


def _suit_ruff_table() -> tuple[int, ...]:
    points = [ruff_points(r) for r in range(13)]
    table = [0] * (1 << 13)
    for mask in range(1, 1 << 13):
        low = (mask & -mask).bit_length() - 1
        table[mask] = table[mask & (mask - 1)] + points[low]
    return tuple(table)


_SUIT_RUFF: tuple[int, ...] = _suit_ruff_table()
"""Ruff value of a 13-bit suit mask (rank bits)."""
_ACES = sum(BIT[13 * s + 12] for s in range(4))


def ruff_of(hand: int) -> tuple[int, int, int]:
    """``(four_aces, value, suit)`` of a hand's best ruff (compare the first two)."""
    best, best_suit = -1, 0
    for s in range(4):
        value = _SUIT_RUFF[hand >> (13 * s) & 0x1FFF]
        if value > best:
            best, best_suit = value, s
    return (1 if hand & _ACES == _ACES else 0, best, best_suit)


def _shown_ruff_value(hand: int) -> int | None:
    """The ruff value a showdown makes public: the shown suit's sum; ``None`` for four aces,
    which show the aces, not a suit (their best suit sum stays hidden)."""
    four, value, _ = ruff_of(hand)
    return None if four else value


_SEAT: tuple[tuple[int, ...], ...] = tuple((s,) for s in range(PLAYERS))
_NOBODY: tuple[int, ...] = ()
_CHANCE_ONLY: tuple[int, ...] = (CHANCE,)
_OPENING: tuple[str, ...] = (f"bid:{OPENING_BID}",)
_RAISES: tuple[tuple[str, ...], ...] = tuple(
    ("pass", *(f"bid:{b}" for b in range(bid + 1, MAX_BID + 1))) for bid in range(MAX_BID + 1)
)
"""The auction's actions after a bid of ``bid`` (index 0 unused: the opener's bid is forced)."""
_RUFF_OPEN: tuple[str, ...] = ("open", "pass")
_RUFF_ANSWER: tuple[str, ...] = ("call", *(f"raise:{r}" for r in range(1, MAX_RAISE + 1)), "fold")
_RUFF_CAPPED: tuple[str, ...] = ("call", "fold")
"""The answers once the ruff has had its :data:`MAX_RAISES` raises."""
_PLAY: dict[str, tuple[int, int, int]] = {"play:" + CODES[c]: (c, BIT[c], c // 13) for c in DECK}
_DISCARD: dict[str, tuple[int, int]] = {"discard:" + CODES[c]: (c, BIT[c]) for c in DECK}
_DISCARD_OF: dict[str, str] = {"play:" + CODES[c]: "discard:" + CODES[c] for c in range(52)}
_KNOWN_KINDS = frozenset({"bid", "pass", "discard", "open", "call", "raise", "fold", "play"})


class GleekView(SnapshotView):
    """What one seat (or a spectator) sees; :meth:`to_json` is the wire form.

    Built as one snapshot tuple of the state's (immutable) parts; the JSON form is decoded
    on first access, so building a view is cheap.
    """

    __slots__ = ()

    def __init__(self, state: GleekState, seat: int | None) -> None:
        self.seat = seat
        self._data = None
        self._s = (
            state.game.id,
            state.players,
            state._turn,
            state._phase,
            state._dealer,
            len(state._records),
            state._deals,
            state._turned,
            state._pot,
            len(state._stock),
            state._hands,
            state._discards,
            state._bid,
            state._bidder,
            state._winner,
            state._doubled,
            state._next_doubled,
            state._ruff_bet,
            state._ruff_pool,
            state._ruff_opener,
            state._ruff_winners,
            state._trick,
            state._leader,
            state._last_trick,
            state._last_winner,
            state._played,
            state._balances,
            state._known,
            state._passed,
            state._ruff_status,
            state._ruff_bets,
            state._ruff_shown,
            state._hands_at_showdown,
            state._gleeks,
            state._mournivals,
            state._tricks,
            state._honours,
            state._deal_points,
            state._deal_stakes,
            state._ruff_raises,
        )

    def _decode(self) -> dict[str, JSON]:
        seat = self.seat
        (
            game,
            n,
            turn,
            phase,
            dealer,
            deal_number,
            deals,
            turned,
            pot,
            stock_size,
            hands,
            discards,
            bid,
            bidder,
            winner,
            doubled,
            next_doubled,
            ruff_bet,
            ruff_pool,
            ruff_opener,
            ruff_winners,
            trick,
            leader,
            last_trick,
            last_winner,
            played,
            balances,
            known,
            passed,
            ruff_status,
            ruff_bets,
            ruff_shown,
            hands_at_showdown,
            gleeks,
            mournivals,
            tricks,
            honours,
            deal_points,
            deal_stakes,
            ruff_raises,
        ) = self._s
        hand = hands[seat] if seat is not None else 0
        own_ruff = ruff_of(hand) if seat is not None and hand else None
        turned_honour = HONOUR.get(turned % 13, 0) if turned >= 0 else 0
        return {
            "game": game,
            "seat": seat,
            "players": n,
            "to_act": turn if turn >= 0 else None,
            "phase": phase if turn != OVER else "over",
            "dealer": dealer if dealer >= 0 else None,
            "deal_number": deal_number,
            "deals": deals,
            "trump_suit": SUITS[turned // 13] if turned >= 0 else None,
            "turned_card": CODES[turned] if turned >= 0 else None,
            "pot": pot,
            "stock_size": stock_size,
            "hand": list(codes_of(hand)),
            "my_discards": list(codes_of(discards)) if seat is not None and seat == winner else [],
            "my_ruff": own_ruff[1] if own_ruff else None,
            "my_four_aces": bool(own_ruff and own_ruff[0]),
            "bid": bid,
            "high_bidder": bidder if bidder >= 0 else None,
            "auction_winner": winner if winner >= 0 and phase != "auction" else None,
            "ruff_doubled": doubled,
            "next_ruff_doubled": next_doubled,
            "ruff_bet": ruff_bet,
            "ruff_pool": ruff_pool,
            "ruff_opener": ruff_opener if ruff_opener >= 0 else None,
            "ruff_winners": list(ruff_winners),
            "ruff_raises": ruff_raises,
            "ruff_raises_left": MAX_RAISES - ruff_raises,
            "trick": [{"seat": s, "card": CODES[c]} for s, c in trick],
            "leader": leader if leader >= 0 else None,
            "last_trick": [{"seat": s, "card": CODES[c]} for s, c in last_trick],
            "last_winner": last_winner if last_winner >= 0 else None,
            "played_cards": list(codes_of(played)),
            "seats": [
                {
                    "seat": s,
                    "balance": balances[s],
                    "hand_size": hands[s].bit_count(),
                    "known_cards": list(codes_of(known[s])),
                    "passed": passed[s],
                    "ruff_status": ruff_status[s] or "waiting",
                    "ruff_stake": ruff_bets[s],
                    "ruff_value": _shown_ruff_value(hands_at_showdown[s]) if ruff_shown[s] else None,
                    "gleeks": list(gleeks[s]),
                    "mournivals": list(mournivals[s]),
                    "tricks": tricks[s],
                    "honours": honours[s] + (turned_honour if s == dealer else 0),
                    "points": (3 * tricks[s] + honours[s] + (turned_honour if s == dealer else 0))
                    if dealer >= 0
                    else 0,
                    "deal_points": deal_points[s],
                    "deal_stakes": deal_stakes[s],
                }
                for s in range(n)
            ],
        }


class GleekState(State):
    """A Gleek match.

    Per-seat data are tuples, replaced (never mutated) when they change, so that a view can
    keep references to them instead of copies.
    """

    def __init__(self, game: Gleek, players: int, options: dict[str, JSON]) -> None:
        self.game = game
        self.players = players
        self.options = options
        self._deals = int(options["deals"])
        n = players
        zeros = (0,) * n
        self._balances: tuple[int, ...] = zeros
        self._pot = 0
        self._doubled = False
        self._next_doubled = False
        self._dealer = -1
        self._phase = "deal"
        self._turn = CHANCE
        self._hands: tuple[int, ...] = zeros
        self._known: tuple[int, ...] = zeros
        self._turned = -1
        self._stock: list[int] = []
        self._discards = 0
        # auction
        self._bid = 0
        self._bidder = -1
        self._passed: tuple[bool, ...] = (False,) * n
        self._winner = -1
        # ruff
        self._ruff_status: tuple[str, ...] = ("",) * n
        self._ruff_bets: tuple[int, ...] = zeros
        self._ruff_bet = 0
        self._ruff_opener = -1
        self._ruff_answered: set[int] = set()
        self._ruff_raises = 0
        self._ruff_pool = 0
        self._ruff_winners: tuple[int, ...] = ()
        self._ruff_shown: tuple[bool, ...] = (False,) * n
        self._hands_at_showdown: tuple[int, ...] = zeros
        self._gleeks: tuple[tuple[str, ...], ...] = ((),) * n
        self._mournivals: tuple[tuple[str, ...], ...] = ((),) * n
        # play
        self._trick: tuple[tuple[int, int], ...] = ()
        self._leader = -1
        self._played = 0
        self._tricks: tuple[int, ...] = zeros
        self._honours: tuple[int, ...] = zeros
        self._last_trick: tuple[tuple[int, int], ...] = ()
        self._last_winner = -1
        self._start_balances: tuple[int, ...] = zeros
        self._deal_stakes: tuple[int, ...] = zeros
        self._deal_points: tuple[int, ...] = zeros
        self._records: list[DealRecord] = []
        self._actions: list[tuple[int, str]] = []
        self._sampled: tuple[Any, ...] | None = None

    # ----------------------------------------------------------------- helpers
    @property
    def _trump(self) -> int:
        return self._turned // 13

    def _pay(self, payer: int, payee: int, amount: int) -> None:
        balances = list(self._balances)
        balances[payer] -= amount
        balances[payee] += amount
        self._balances = tuple(balances)

    def _points(self, seat: int) -> int:
        points = 3 * self._tricks[seat] + self._honours[seat]
        if seat == self._dealer:
            points += self._turned_honour()
        return points

    def _turned_honour(self) -> int:
        return HONOUR.get(self._turned % 13, 0) if self._turned >= 0 else 0

    def _in_ruff(self) -> list[int]:
        return [s for s in range(self.players) if self._ruff_status[s] != "folded"]

    # ----------------------------------------------------------------- queries
    def to_act(self) -> tuple[int, ...]:
        turn = self._turn
        if turn >= 0:
            return _SEAT[turn]
        return _NOBODY if turn == OVER else _CHANCE_ONLY

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        if seat != self._turn or seat < 0:
            return ()
        phase = self._phase
        if phase == "play":
            hand = self._hands[seat]
            if self._trick:
                follow = hand & SUIT_MASK[self._trick[0][1] // 13]
                if follow:
                    return plays_of(follow)
            return plays_of(hand)
        if phase == "auction":
            bid = self._bid
            return _RAISES[bid] if bid else _OPENING
        if phase == "discard":
            return tuple(map(_DISCARD_OF.__getitem__, plays_of(self._hands[seat])))
        if phase == "ruff":
            if self._ruff_opener < 0:
                return _RUFF_OPEN
            return _RUFF_ANSWER if self._ruff_raises < MAX_RAISES else _RUFF_CAPPED
        return ()

    def _legal_play_mask(self, seat: int) -> int:
        hand = self._hands[seat]
        if self._trick:
            follow = hand & SUIT_MASK[self._trick[0][1] // 13]
            if follow:
                return follow
        return hand

    def view(self, seat: int | None) -> GleekView:
        if seat is not None and not 0 <= seat < self.players:
            raise IllegalAction(f"no seat {seat} in a {self.players}-player match")
        return GleekView(self, seat)

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return self.view(seat).to_json()

    def public_action(self, viewer: int | None, seat: int, action: str) -> str | None:
        """The auction winner's discards go face down: other viewers learn ``discard`` only."""
        if viewer != seat and action.startswith("discard:"):
            return "discard"
        return action

    def result(self) -> Result:
        if self._turn != OVER:
            raise IllegalAction("the match is not over")
        return Result(tuple(self._balances), ranks_from_scores(self._balances))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def clone(self) -> GleekState:
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._stock = list(self._stock)
        other._ruff_answered = set(self._ruff_answered)
        other._records = [r.copy() for r in self._records]
        other._actions = other._records[-1].actions if other._records else []
        return other

    # ------------------------------------------------------------------ chance
    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        n = self.players
        dealer = rng.below(n) if self._dealer < 0 else (self._dealer + 1) % n
        deck = list(DECK)
        rng.shuffle(deck)
        # Dealt in batches of three from the dealer's left.
        hands: list[list[int]] = [[] for _ in range(n)]
        pos = 0
        for _ in range(HAND // 3):
            for i in range(n):
                hands[(dealer + 1 + i) % n].extend(deck[pos : pos + 3])
                pos += 3
        rest = deck[pos:]
        outcome: dict[str, JSON] = {
            "dealer": dealer,
            "hands": [[CODES[c] for c in sorted(h)] for h in hands],
            "turned_card": CODES[rest[0]],
            "stock": [CODES[c] for c in rest[1:]],
        }
        masks = [sum(BIT[c] for c in h) for h in hands]
        self._sampled = (outcome, dealer, masks, rest[0], rest[1:])
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
        try:
            dealer = int(outcome["dealer"])
            hands = [[INDEX[c] for c in h] for h in outcome["hands"]]
            turned = INDEX[outcome["turned_card"]]
            stock = [INDEX[c] for c in outcome["stock"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidChance(f"malformed deal: {exc!r}") from None
        expected = (self._dealer + 1) % n if self._dealer >= 0 else dealer
        if not 0 <= dealer < n or dealer != expected:
            raise InvalidChance(f"dealer {dealer} does not fit (expected {expected})")
        if len(hands) != n or any(len(h) != HAND for h in hands) or len(stock) != STOCK:
            raise InvalidChance(f"need {n} hands of {HAND} cards and a stock of {STOCK}")
        cards = [c for h in hands for c in h] + stock + [turned]
        if len(set(cards)) != len(DECK) or set(cards) != set(DECK):
            raise InvalidChance("the deal does not hold each of the 44 cards (no 2s or 3s) exactly once")
        masks = [sum(BIT[c] for c in h) for h in hands]
        self._start_deal(outcome, dealer, masks, turned, stock)

    def _start_deal(
        self, outcome: Mapping[str, JSON], dealer: int, masks: list[int], turned: int, stock: list[int]
    ) -> None:
        self._sampled = None
        n = self.players
        zeros = (0,) * n
        self._dealer = dealer
        self._hands = tuple(masks)
        self._known = zeros
        self._turned = turned
        self._stock = list(stock)
        self._discards = 0
        self._bid = 0
        self._bidder = -1
        self._passed = (False,) * n
        self._winner = -1
        self._doubled = self._next_doubled
        self._next_doubled = False
        self._ruff_status = ("",) * n
        self._ruff_bets = zeros
        self._ruff_bet = 0
        self._ruff_opener = -1
        self._ruff_answered = set()
        self._ruff_raises = 0
        self._ruff_pool = 0
        self._ruff_winners = ()
        self._ruff_shown = (False,) * n
        self._hands_at_showdown = zeros
        self._gleeks = ((),) * n
        self._mournivals = ((),) * n
        self._trick = ()
        self._leader = -1
        self._played = 0
        self._tricks = zeros
        self._honours = zeros
        self._last_trick = ()
        self._last_winner = -1
        self._start_balances = self._balances
        record = DealRecord(dealer=dealer, chance=dict(outcome))
        self._records.append(record)
        self._actions = record.actions
        rank = turned % 13
        if 2 <= rank <= 4:
            for s in range(n):
                if s != dealer:
                    self._pay(s, dealer, rank + 2)
        self._phase = "auction"
        self._turn = (dealer + 1) % n

    # ------------------------------------------------------------------ action
    def apply(self, seat: int, action: str) -> None:
        if seat == self._turn and seat >= 0:
            # Fast paths for the legal card actions; anything else takes the checked path.
            phase = self._phase
            if phase == "play":
                play = _PLAY.get(action)
                if play is not None:
                    card, bit, suit = play
                    hand = self._hands[seat]
                    if hand & bit:
                        trick = self._trick
                        if not trick or suit == trick[0][1] // 13 or not hand & SUIT_MASK[trick[0][1] // 13]:
                            self._play(seat, action, card, bit, suit)
                            return
            elif phase == "discard":
                discard = _DISCARD.get(action)
                if discard is not None and self._hands[seat] & discard[1]:
                    self._discard(seat, action, discard[1])
                    return
        self._apply_checked(seat, action)

    def _apply_checked(self, seat: int, action: str) -> None:
        if self._turn == OVER:
            raise NotYourTurn("the match is over", seat=seat, action=action)
        if seat != self._turn or seat < 0:
            whom = "the deal (a chance outcome)" if self._turn == CHANCE else f"seat {self._turn}"
            raise NotYourTurn(f"it is not your turn: waiting for {whom}", seat=seat, action=action)
        phase = self._phase
        kind, _, arg = action.partition(":")
        if phase == "auction":
            expected = "pass or bid:<n>"
        elif phase == "discard":
            expected = "discard:<card>"
        elif phase == "ruff":
            if self._ruff_opener < 0:
                expected = "open or pass"
            elif self._ruff_raises < MAX_RAISES:
                expected = "call, raise:<n> or fold"
            else:
                expected = "call or fold"
        elif phase == "play":
            expected = "play:<card>"
        else:
            raise KeyError(phase)
        if kind not in _KNOWN_KINDS:
            raise UnknownAction(f"unknown action {action!r}: expected {expected}", seat=seat, action=action)
        if phase == "auction":
            self._apply_auction(seat, action, kind, arg, expected)
        elif phase == "discard":
            self._apply_discard(seat, action, kind, arg, expected)
        elif phase == "ruff":
            self._apply_ruff(seat, action, kind, arg, expected)
        else:
            self._apply_play(seat, action, kind, arg, expected)

    def _number(self, seat: int, action: str, arg: str) -> int:
        if not (arg.isascii() and arg.isdigit()) or str(int(arg)) != arg:  # one spelling per number: no 040
            raise UnknownAction(f"{action!r} needs a whole number, e.g. bid:13 or raise:2", seat=seat, action=action)
        return int(arg)

    def _card(self, seat: int, action: str, arg: str) -> int:
        card = INDEX.get(arg)
        if card is None or not DECK_MASK & BIT[card]:
            raise UnknownAction(f"unknown card {arg!r} in {action!r} (no 2s or 3s in Gleek)", seat=seat, action=action)
        if not self._hands[seat] & BIT[card]:
            raise IllegalAction(f"{arg} is not in your hand", seat=seat, action=action)
        return card

    def _apply_auction(self, seat: int, action: str, kind: str, arg: str, expected: str) -> None:
        if kind not in ("bid", "pass") or (kind == "pass" and action != "pass"):
            raise IllegalAction(f"now is the auction: {expected}", seat=seat, action=action)
        if kind == "pass":
            if self._bid == 0:
                raise IllegalAction(
                    f"the player left of the dealer must open at {OPENING_BID}", seat=seat, action=action
                )
            self._actions.append((seat, action))
            self._passed = replaced(self._passed, seat, True)
        else:
            amount = self._number(seat, action, arg)
            if self._bid == 0 and amount != OPENING_BID:
                raise IllegalAction(
                    f"the auction opens at exactly {OPENING_BID}: bid:{OPENING_BID}", seat=seat, action=action
                )
            if self._bid and not self._bid < amount <= MAX_BID:
                raise IllegalAction(f"bid between {self._bid + 1} and {MAX_BID}, or pass", seat=seat, action=action)
            self._actions.append((seat, action))
            self._bid = amount
            self._bidder = seat
        if sum(self._passed) == 2:
            winner = self._bidder
            self._winner = winner
            for s in range(self.players):
                if s != winner:
                    self._pay(winner, s, self._bid)
            self._phase = "discard"
            self._turn = winner
            return
        nxt = (seat + 1) % self.players
        while self._passed[nxt]:
            nxt = (nxt + 1) % self.players
        self._turn = nxt

    def _apply_discard(self, seat: int, action: str, kind: str, arg: str, expected: str) -> None:
        if kind != "discard":
            raise IllegalAction(
                f"you won the auction: discard 7 cards one at a time ({expected})", seat=seat, action=action
            )
        card = self._card(seat, action, arg)
        self._discard(seat, action, BIT[card])

    def _discard(self, seat: int, action: str, bit: int) -> None:
        self._actions.append((seat, action))
        hand = self._hands[seat] & ~bit
        self._discards |= bit
        if self._discards.bit_count() < STOCK:
            self._hands = replaced(self._hands, seat, hand)
            return
        for c in self._stock:
            hand |= BIT[c]
        self._hands = replaced(self._hands, seat, hand)
        self._stock = []
        self._phase = "ruff"
        self._turn = (self._dealer + 1) % self.players

    def _apply_ruff(self, seat: int, action: str, kind: str, arg: str, expected: str) -> None:
        opened = self._ruff_opener >= 0
        if (opened and kind not in ("call", "raise", "fold")) or (not opened and kind not in ("open", "pass")):
            raise IllegalAction(f"now is the ruff betting: {expected}", seat=seat, action=action)
        if kind != "raise" and action != kind:  # "pass:" is not "pass"
            raise UnknownAction(f"unknown action {action!r}: expected {expected}", seat=seat, action=action)
        mult = 2 if self._doubled else 1
        n = self.players
        if kind == "raise":
            amount = self._number(seat, action, arg)
            if self._ruff_raises >= MAX_RAISES:
                raise IllegalAction(f"the ruff has had its {MAX_RAISES} raises: call or fold", seat=seat, action=action)
            if not 1 <= amount <= MAX_RAISE:
                raise IllegalAction(f"raise by 1 to {MAX_RAISE} stakes", seat=seat, action=action)
        self._actions.append((seat, action))
        if kind == "pass":
            self._ruff_status = replaced(self._ruff_status, seat, "passed")
            if seat == self._dealer:
                self._next_doubled = True
                self._after_ruff()
                return
            self._turn = (seat + 1) % n
            return
        if kind == "fold":
            self._ruff_status = replaced(self._ruff_status, seat, "folded")
            if len(self._in_ruff()) == 1:
                self._settle_ruff(self._in_ruff())
                return
        elif kind == "open":
            self._ruff_opener = seat
            self._stake(seat, RUFF_OPEN * mult)
            self._ruff_answered = {seat}
        elif kind == "call":
            self._stake(seat, self._ruff_bet - self._ruff_bets[seat])
            self._ruff_answered.add(seat)
        else:
            self._stake(seat, self._ruff_bet - self._ruff_bets[seat] + int(arg) * mult)
            self._ruff_answered = {seat}
            self._ruff_raises += 1
        live = self._in_ruff()
        if all(s in self._ruff_answered and self._ruff_bets[s] == self._ruff_bet for s in live):
            self._showdown(live)
            return
        nxt = (seat + 1) % n
        while self._ruff_status[nxt] == "folded":
            nxt = (nxt + 1) % n
        self._turn = nxt

    def _stake(self, seat: int, amount: int) -> None:
        self._balances = replaced(self._balances, seat, self._balances[seat] - amount)
        self._ruff_pool += amount
        self._ruff_bets = replaced(self._ruff_bets, seat, self._ruff_bets[seat] + amount)
        self._ruff_bet = max(self._ruff_bet, self._ruff_bets[seat])
        self._ruff_status = replaced(self._ruff_status, seat, "in")

    def _showdown(self, live: list[int]) -> None:
        best = max(ruff_of(self._hands[s])[:2] for s in live)
        winners = [s for s in live if ruff_of(self._hands[s])[:2] == best]
        shown = list(self._ruff_shown)
        at_showdown = list(self._hands_at_showdown)
        known = list(self._known)
        for s in live:
            shown[s] = True
            at_showdown[s] = self._hands[s]
            four, _, suit = ruff_of(self._hands[s])
            cards = _ACES if four else self._hands[s] & SUIT_MASK[suit]
            known[s] |= cards
        self._ruff_shown = tuple(shown)
        self._hands_at_showdown = tuple(at_showdown)
        self._known = tuple(known)
        self._settle_ruff(winners)

    def _settle_ruff(self, winners: list[int]) -> None:
        n = self.players
        pool = self._ruff_pool
        share, odd = divmod(pool, len(winners))
        order = sorted(winners, key=lambda s: (s - self._dealer - 1) % n)
        balances = list(self._balances)
        for i, s in enumerate(order):
            balances[s] += share + (1 if i < odd else 0)
        self._balances = tuple(balances)
        self._ruff_pool = 0
        self._ruff_winners = tuple(order)
        self._after_ruff()

    def _after_ruff(self) -> None:
        n = self.players
        known = list(self._known)
        gleeks = list(self._gleeks)
        mournivals = list(self._mournivals)
        for s in range(n):
            hand = self._hands[s]
            for rank, value in GLEEK.items():
                cards = [13 * x + rank for x in range(4) if hand & BIT[13 * x + rank]]
                if len(cards) < 3:
                    continue
                pay = value * (2 if len(cards) == 4 else 1)
                if len(cards) == 4:
                    mournivals[s] += (RANK_NAME[rank],)
                else:
                    gleeks[s] += (RANK_NAME[rank],)
                for c in cards:
                    known[s] |= BIT[c]
                for o in range(n):
                    if o != s:
                        self._pay(o, s, pay)
        self._known = tuple(known)
        self._gleeks = tuple(gleeks)
        self._mournivals = tuple(mournivals)
        self._phase = "play"
        self._leader = (self._dealer + 1) % n
        self._turn = self._leader

    def _apply_play(self, seat: int, action: str, kind: str, arg: str, expected: str) -> None:
        if kind != "play":
            raise IllegalAction(f"now the tricks are played: {expected}", seat=seat, action=action)
        card = self._card(seat, action, arg)
        if not self._legal_play_mask(seat) & BIT[card]:
            lead = SUITS[self._trick[0][1] // 13]
            raise IllegalAction(f"must follow {SUIT_NAMES[lead]}", seat=seat, action=action)
        self._play(seat, action, card, BIT[card], card // 13)

    def _play(self, seat: int, action: str, card: int, bit: int, suit: int) -> None:
        """Play a legal card."""
        self._actions.append((seat, action))
        n = self.players
        hands = self._hands
        self._hands = hands[:seat] + (hands[seat] & ~bit,) + hands[seat + 1 :]
        known = self._known
        if known[seat] & bit:
            self._known = known[:seat] + (known[seat] & ~bit,) + known[seat + 1 :]
        trick = self._trick = self._trick + ((seat, card),)
        trump = self._turned // 13
        if suit == trump:
            rank = card % 13
            honour = HONOUR.get(rank, 0)
            if honour:
                self._honours = replaced(self._honours, seat, self._honours[seat] + honour)
            if 2 <= rank <= 4:
                for o in range(n):
                    if o != seat:
                        self._pay(o, seat, rank + 2)
        if len(trick) < n:
            self._turn = (seat + 1) % n
            return
        best_seat, best = trick[0]
        for s, c in trick[1:]:
            if (c // 13 == best // 13 and c > best) or (c // 13 == trump and best // 13 != trump):
                best_seat, best = s, c
        played = self._played
        for _, c in trick:
            played |= BIT[c]
        self._played = played
        tricks = self._tricks = replaced(self._tricks, best_seat, self._tricks[best_seat] + 1)
        self._last_trick = trick
        self._last_winner = best_seat
        self._trick = ()
        if sum(tricks) == HAND:
            self._finish_deal()
            return
        self._leader = best_seat
        self._turn = best_seat

    def _finish_deal(self) -> None:
        n = self.players
        points = [self._points(s) for s in range(n)]
        balances = list(self._balances)
        for s in range(n):
            balances[s] += points[s] - PAR
            self._pot -= points[s] - PAR
        self._balances = tuple(balances)
        self._deal_points = tuple(points)
        self._deal_stakes = tuple(self._balances[s] - self._start_balances[s] for s in range(n))
        self._records[-1].scores = [float(p) for p in points]
        self._phase = "deal"
        self._turn = OVER if len(self._records) >= self._deals else CHANCE

    # -------------------------------------------------------------- invariants
    def expected_points(self) -> int:
        """What the deal's points sum to: 66 less the trump honours the auction winner discarded."""
        lost = sum(HONOUR.get(c % 13, 0) for c in range(52) if self._discards & BIT[c] and c // 13 == self._trump)
        return 36 + sum(HONOUR.values()) - lost

    def invariants(self) -> list[str]:
        problems: list[str] = []
        if sum(self._balances) + self._pot + self._ruff_pool != 0:
            problems.append(f"stakes not conserved: {list(self._balances)}, pot {self._pot}, ruff {self._ruff_pool}")
        if self._dealer < 0:
            return problems
        zones = [*self._hands, self._played, self._discards, BIT[self._turned]]
        zones.append(sum(BIT[c] for c in self._stock))
        zones.append(sum(BIT[c] for _, c in self._trick))
        seen = 0
        count = 0
        for z in zones:
            seen |= z
            count += z.bit_count()
        if seen != DECK_MASK or count != len(DECK):
            problems.append(f"cards not conserved: {count} placed, {seen.bit_count()} distinct")
        for s in range(self.players):
            if self._known[s] & ~self._hands[s]:
                problems.append(f"seat {s}: known cards not in hand")
        if self._phase == "deal" and self._records[-1].scores is not None:
            total = sum(self._deal_points)
            if total != self.expected_points():
                problems.append(f"deal points sum to {total}, not {self.expected_points()}")
        if self._ruff_pool != sum(self._ruff_bets) and self._phase == "ruff":
            problems.append("ruff pool does not match the bets")
        return problems

    def secrets(self, seat: int | None) -> frozenset[str]:
        if self._dealer < 0:
            return frozenset()
        hidden = 0
        for other, hand in enumerate(self._hands):
            if other != seat:
                hidden |= hand & ~self._known[other]
        for c in self._stock:
            hidden |= BIT[c]
        if seat != self._winner:
            hidden |= self._discards
        return frozenset(codes_of(hidden))


class Gleek(Game):
    """Gleek for 3 players: auction, ruff betting, gleeks, tricks, a running pot."""

    id: ClassVar[str] = "gleek"
    name: ClassVar[str] = "Gleek"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 3
    summary: ClassVar[str] = (
        "Three-player stakes game of 44 cards: auction for the 7-card stock, ruff betting (best "
        "single-suit sum), gleeks and mournivals paid at once, then 12 tricks scoring 3 each plus "
        "trump honours played; each player takes score - 22 from a running pot. 3 deals, stake balance."
    )

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"deals": 3}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"deals": OptionRange(1, 1000)}

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> GleekState:
        return GleekState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        kind, _, arg = action.partition(":")
        if kind in ("play", "discard") and arg in INDEX:
            return ActionInfo(id=action, kind=kind, label=f"{kind} {label(arg)}", cards=(arg,))
        if kind in ("bid", "raise") and arg.isdigit():
            text = f"bid {arg}" if kind == "bid" else f"raise the ruff by {arg}"
            return ActionInfo(id=action, kind=kind, label=text, amount=int(arg))
        labels = {
            "pass": "pass",
            "open": "open the ruff betting",
            "call": "call",
            "fold": "fold the ruff",
        }
        if action in labels:
            return ActionInfo(id=action, kind=action, label=labels[action])
        return super().describe(action)


GAME = Gleek()
