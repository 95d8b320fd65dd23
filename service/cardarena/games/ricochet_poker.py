"""Ricochet Poker: poker without bluffing for 3 to 6 players; the lowest hand buys or folds.

Rules (the "Ricochet Poker" page of the original rules document and the team's rulings, not distributed
here; ``docs/games/ricochet_poker.md``):

* One 52-card deck, aces high.  Each round every player antes 1 chip and gets 1 card face
  up (one at a time from the dealer's left).  All cards are dealt face up.
* The player with the lowest hand acts: ``fold`` (out of the round) or ``buy:<k>``: pay k
  chips into the pot, then the dealer deals face-up cards one at a time and **stops as soon
  as the hand is no longer the lowest**, so fewer than k cards may arrive (the k chips are
  paid anyway).  A hand holds at most 5 cards.  A buyer still lowest after all k cards is
  out of the round.  Then the (new) lowest hand acts.
* Hands are poker hands of 1 to 5 cards: straight flush, four of a kind, full house, flush,
  straight, three of a kind, two pair, pair, high card (straights and flushes need 5 cards;
  A-2-3-4-5 is the lowest straight).  Equal categories compare the ranks that make them,
  then kickers; a hand with a kicker beats the same hand without (K+3 beats K, K+8 beats
  K+3).  Suits (clubs < diamonds < hearts < spades) break exact ties **only to decide who is
  lowest** (who acts, when a deal stops, who is out), never who wins the pot.
* The round ends when one player is left in (they take the pot) or when every player still
  in holds an equal hand ignoring suits (a tie for the best hand: the pot is split).
* A match is a fixed number of rounds (option ``deals``, default 10); ranking by chips.
  Chips are conserved.

Rulings made here (the seed and ``rulings.md`` are silent):

* **Starting chips**: option ``chips``, default 20 each.
* **Broke players**: a player with no chips at the start of a round cannot ante and sits the
  round out (no cards).  If fewer than two players have chips, the match ends early.  A
  player may buy only as many cards as they have chips (with none left: ``fold`` only).
* **Tie for the best hand** ("play continues until there's 1 player left, or if there is a
  tie for the best hand") is read as: every player still in holds an equal hand ignoring
  suits.  While one of them is lower than another, the lowest (by suits if need be) keeps
  acting, even when the two best hands tie; this can end a round right at the deal (every
  player gets a seven).
* **Suit order for identical hands**: cards are ordered by group size, then rank, then suit
  (highest first) and the suits are compared in that order; so the hand holding the highest
  suit on the most important card is the higher one (in a wheel, A-2-3-4-5, the ace is
  compared first).
* **Odd chips of a split pot** go one each to the tied players in turn from the dealer's left.
* **Dealer**: the first dealer is drawn by chance; the deal passes left each round.  The whole
  deck order of a round is its one chance outcome (``{"dealer", "deck"}``, top card first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, ClassVar

from ..engine.cards import CODES, INDEX
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
    State,
    UnknownAction,
    ranks_from_scores,
)
from ..engine.rng import MatchRng

MAX_HAND = 5
CATEGORY_NAMES: tuple[str, ...] = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
"""Hand categories from low to high (index = category)."""
BUY_ACTIONS: tuple[str, ...] = tuple(f"buy:{k}" for k in range(1, MAX_HAND))
_BUY: dict[str, int] = {a: k for k, a in enumerate(BUY_ACTIONS, start=1)}
IN, FOLDED, OUT, SITTING = "in", "folded", "out", "sitting"

HandKey = tuple[int, tuple[int, ...]]
"""A hand's strength ignoring suits: (category, ranks that make it then kickers)."""


def hand_key(cards: Sequence[int]) -> HandKey:
    """The strength of 1 to 5 cards (card indices) ignoring suits (cached); higher is better."""
    return _hand_key(tuple(sorted(cards)))


@lru_cache(maxsize=1 << 16)
def _hand_key(cards: tuple[int, ...]) -> HandKey:
    """The strength of 1 to 5 cards (card indices) ignoring suits; higher is better.

    Longer rank tuples beat their prefixes, so a hand with a kicker beats the same hand
    without one.
    """
    counts: dict[int, int] = {}
    for c in cards:
        r = c % 13
        counts[r] = counts.get(r, 0) + 1
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    reps = tuple(r for _, r in groups)
    shape = tuple(n for n, _ in groups)
    if len(cards) == MAX_HAND and len(groups) == MAX_HAND:
        flush = len({c // 13 for c in cards}) == 1
        high = reps[0]
        straight = reps[0] - reps[4] == 4
        if reps == (12, 3, 2, 1, 0):
            straight, high = True, 3
        if straight:
            return (8 if flush else 4, (high,))
        if flush:
            return (5, reps)
        return (0, reps)
    if shape[0] == 4:
        return (7, reps)
    if shape[0] == 3:
        return (6 if len(shape) > 1 and shape[1] == 2 else 3, reps)
    if shape[0] == 2:
        return (2 if len(shape) > 1 and shape[1] == 2 else 1, reps)
    return (0, reps)


def act_key(cards: Sequence[int]) -> tuple[HandKey, tuple[int, ...]]:
    """:func:`hand_key` with suits breaking exact ties (only to decide who is lowest)."""
    return _act_key(tuple(sorted(cards)))


@lru_cache(maxsize=1 << 16)
def _act_key(cards: tuple[int, ...]) -> tuple[HandKey, tuple[int, ...]]:
    """:func:`act_key` of a sorted tuple (cached)."""
    counts: dict[int, int] = {}
    for c in cards:
        counts[c % 13] = counts.get(c % 13, 0) + 1
    order = sorted(cards, key=lambda c: (counts[c % 13], c % 13, c // 13), reverse=True)
    return _hand_key(cards), tuple(c // 13 for c in order)


def hand_name(cards: Sequence[int]) -> str:
    """The hand's category name, e.g. ``two pair`` (empty for no cards)."""
    return CATEGORY_NAMES[hand_key(cards)[0]] if cards else ""


def describe_hand(codes: Sequence[str]) -> HandKey:
    """:func:`hand_key` of card codes (for tests and bots)."""
    return hand_key([INDEX[c] for c in codes])


# ----------------------------------------------------------------- integer keys
# Inside the state a hand's strength is one int that orders exactly as :func:`act_key`:
# ``hand << 10 | suits``.  ``hand`` encodes :func:`hand_key` as the category then five
# base-14 digits (rank + 1, padded with 0, so that a hand with a kicker beats the same hand
# without); ``suits`` is five base-4 digits (the suits in :func:`act_key` order, padded with
# 0: equal ``hand`` parts always hold the same number of cards).  ``key >> 10`` compares
# hands ignoring suits.
_SUIT_BITS = 10
_RANK3: tuple[int, ...] = tuple(3 * (c % 13) for c in range(52))
"""Card index to the shift of its rank's 3-bit count in a rank-count int."""
_RANK_ONE: tuple[int, ...] = tuple(1 << s for s in _RANK3)
"""Card index to its increment of a rank-count int."""
_ORDER_BASE: tuple[int, ...] = tuple((c % 13) * 4 + c // 13 for c in range(52))
"""Card index to ``rank * 4 + suit``: with ``count * 64`` added, the :func:`act_key` card order."""
_HAND_PART: dict[int, tuple[int, int]] = {}
"""Rank-count int to the encoded :func:`hand_key` (not a flush, a flush); filled lazily."""
_SMALL: dict[int, int] = {}
"""Card mask of a hand of at most 3 cards to its key (at most 23,478 entries)."""


def _encode_hand(key: HandKey) -> int:
    """The integer form of a :func:`hand_key`, shifted above the suit digits."""
    category, reps = key
    out = category
    for i in range(MAX_HAND):
        out = out * 14 + (reps[i] + 1 if i < len(reps) else 0)
    return out << _SUIT_BITS


def _hand_part(counts: int, cards: Sequence[int]) -> tuple[int, int]:
    """The encoded hand part for the rank multiset of ``cards`` (plain, flush)."""
    found = _HAND_PART.get(counts)
    if found is None:
        ranks = sorted(c % 13 for c in cards)
        plain = _encode_hand(_hand_key(tuple(r + 13 * (i % 2) for i, r in enumerate(ranks))))
        flush = _encode_hand(_hand_key(tuple(ranks))) if len(set(ranks)) == MAX_HAND else plain
        found = _HAND_PART[counts] = (plain, flush)
    return found


def _key(cards: Sequence[int]) -> int:
    """The integer key (ordered as :func:`act_key`) of 1 to 5 distinct card indices."""
    counts = 0
    for c in cards:
        counts += _RANK_ONE[c]
    plain, flush = _hand_part(counts, cards)
    if plain != flush:
        suit = cards[0] // 13
        if all(c // 13 == suit for c in cards):
            plain = flush
    order = sorted([((counts >> _RANK3[c]) & 7) * 64 + _ORDER_BASE[c] for c in cards], reverse=True)
    suits = 0
    for v in order:
        suits = suits * 4 + (v & 3)
    return plain | suits << 2 * (MAX_HAND - len(order))


def _small_key(mask: int, cards: Sequence[int]) -> int:
    """:func:`_key` of a hand of at most 3 cards, cached by its card mask."""
    key = _SMALL.get(mask)
    if key is None:
        key = _SMALL[mask] = _key(cards)
    return key


class RicochetPoker(Game):
    """Ricochet Poker, 3-6 players, fixed rounds, ranked by chips."""

    id: ClassVar[str] = "ricochet_poker"
    name: ClassVar[str] = "Ricochet Poker"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 6
    summary: ClassVar[str] = (
        "Poker without bluffing for 3-6: everybody antes and gets one face-up card; the "
        "lowest hand folds or buys cards, dealt until it is no longer lowest (still lowest: "
        "out). Last player in, or a tie for best, takes the pot. 10 rounds, most chips wins."
    )

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"deals": 10, "chips": 20}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"deals": OptionRange(1, 1000), "chips": OptionRange(1, 100_000)}

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> PokerState:
        return PokerState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        k = _BUY.get(action)
        if k is not None:
            return ActionInfo(id=action, kind="buy", label=f"buy {k} card{'s' if k > 1 else ''}", amount=k)
        if action == "fold":
            return ActionInfo(id=action, kind="fold", label="fold")
        return super().describe(action)


class PokerView:
    """What one seat (or a spectator) sees: a snapshot, turned into JSON by :meth:`to_json`.

    Every dealt card is face up, so all seats see the same; only the deck order is hidden.
    """

    __slots__ = ("_game", "_s", "seat")

    def __init__(self, game: str, snapshot: tuple[Any, ...], seat: int | None) -> None:
        self._game = game
        self._s = snapshot
        self.seat = seat

    def to_json(self) -> dict[str, JSON]:
        """The view as a JSON object (proto-compatible)."""
        n, turn, dealer, rounds_dealt, rounds, start, pot, deck_size, last, chips, status, hands, paid, won, past = (
            self._s
        )
        live = [s for s in range(n) if status[s] == IN]
        keys = [hand_key(h) if h else None for h in hands]
        best = max((k for s in live if (k := keys[s]) is not None), default=None)
        seats: list[JSON] = [
            {
                "seat": s,
                "chips": chips[s],
                "status": status[s],
                "hand": [CODES[c] for c in hands[s]],
                "hand_name": hand_name(hands[s]),
                "paid": paid[s],
                "won": won[s],
                "leading": best is not None and s in live and keys[s] == best,
                "round_scores": [r[s] for r in past],
            }
            for s in range(n)
        ]
        return {
            "game": self._game,
            "seat": self.seat,
            "players": n,
            "to_act": turn if turn >= 0 else None,
            "dealer": dealer if dealer >= 0 else None,
            "round": rounds_dealt,
            "rounds": rounds,
            "start_chips": start,
            "pot": pot,
            "deck_size": deck_size,
            "max_hand": MAX_HAND,
            "last_action": dict(last) if last is not None else None,
            "seats": seats,
        }

    def __getitem__(self, key: str) -> JSON:
        return self.to_json()[key]


_TURN: tuple[tuple[int, ...], ...] = tuple((t,) for t in range(-1, 8))
"""``_TURN[turn + 1]`` is ``(turn,)``."""
_LEGAL: tuple[tuple[str, ...], ...] = tuple(("fold", *BUY_ACTIONS[:most]) for most in range(MAX_HAND))
"""The legal actions when at most ``most`` cards can be bought."""
_SINGLE: tuple[tuple[int], ...] = tuple((c,) for c in range(52))
"""Card index to the one-card hand."""
_SINGLE_KEY: tuple[int, ...] = tuple(_key(h) for h in _SINGLE)
"""Card index to the key of the one-card hand."""
_SMALL_HAND = 3
"""Hands of at most this many cards have their keys cached (by card mask)."""
_FOLDED: tuple[str] = (FOLDED,)
_DEAL_ORDER: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple((dealer + i) % n for i in range(1, n + 1)) for dealer in range(n)) for n in range(8)
)
"""``_DEAL_ORDER[players][dealer]``: the seats from the dealer's left, the dealer last."""
_SEATS: tuple[tuple[int, ...], ...] = tuple(tuple(range(n)) for n in range(8))
_ALL_IN: tuple[tuple[str, ...], ...] = tuple((IN,) * n for n in range(8))
_ALL_PAID: tuple[tuple[int, ...], ...] = tuple((1,) * n for n in range(8))
_NO_WINS: tuple[tuple[int, ...], ...] = tuple((0,) * n for n in range(8))
_OUT: tuple[str] = (OUT,)


class PokerState(State):
    """One Ricochet Poker match.

    Per-seat data are tuples, replaced (never mutated) when they change, so that a view can
    keep references to them instead of copies.
    """

    def __init__(self, game: RicochetPoker, players: int, options: dict[str, JSON]) -> None:
        self.game = game
        self.players = players
        self.options = options
        self._rounds = int(options["deals"])
        self._start = int(options["chips"])
        self._chips: tuple[int, ...] = (self._start,) * players
        self._pot = 0
        self._dealer = -1
        self._turn = CHANCE
        self._over = False
        self._deck: list[str] = []
        """The round's deck order as card codes (top first); ``_pos`` cards are dealt."""
        self._pos = 0
        self._hands: tuple[tuple[int, ...], ...] = ((),) * players
        self._masks: list[int] = [0] * players
        """Per seat, the card mask of its hand."""
        self._keys: list[int] = [0] * players
        """Per seat, the integer key of its hand (ordered as :func:`act_key`; 0 for no cards)."""
        self._status: tuple[str, ...] = (SITTING,) * players
        self._live: tuple[int, ...] = ()
        """The seats whose status is ``in``, in seat order."""
        self._paid: tuple[int, ...] = (0,) * players
        self._won: tuple[int, ...] = (0,) * players
        self._last: dict[str, JSON] | None = None
        """The last action's summary; replaced, never mutated (views keep a reference)."""
        self._past: tuple[tuple[int, ...], ...] = ()
        """The chip changes of each finished round."""
        self._records: list[DealRecord] = []
        self._actions: list[tuple[int, str]] = []
        """The actions of the current round's record."""
        self._sampled: tuple[Any, ...] | None = None

    # ----------------------------------------------------------------- queries
    def to_act(self) -> tuple[int, ...]:
        if self._over:
            return ()
        return _TURN[self._turn + 1]

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        if self._over or seat != self._turn or seat < 0:
            return ()
        most = min(MAX_HAND - len(self._hands[seat]), self._chips[seat])
        if 0 <= most < MAX_HAND:
            return _LEGAL[most]
        return ("fold", *BUY_ACTIONS[:most])

    # ------------------------------------------------------------------ chance
    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        if self._over or self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        dealer = rng.below(self.players) if self._dealer < 0 else (self._dealer + 1) % self.players
        # Shuffling the codes moves them exactly as it would move the card indices.
        deck = list(CODES)
        rng.shuffle(deck)
        outcome: dict[str, JSON] = {"dealer": dealer, "deck": deck}
        self._sampled = (outcome, dealer, deck[:])
        return outcome

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        if self._over or self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        n = self.players
        sampled = self._sampled
        if sampled is not None and sampled[0] is outcome:
            # The outcome this state just drew itself: already known to be a valid deal (the
            # deck list is never mutated, so it may be shared with a clone).
            dealer, deck = sampled[1], sampled[2]
        else:
            try:
                dealer = int(outcome["dealer"])
                cards = [INDEX[c] for c in outcome["deck"]]
            except (KeyError, TypeError, ValueError) as exc:
                raise InvalidChance(f"malformed deal: {exc!r}") from None
            expected = (self._dealer + 1) % n if self._dealer >= 0 else dealer
            if not 0 <= dealer < n or dealer != expected:
                raise InvalidChance(f"dealer {dealer} does not fit (expected {expected})")
            if len(cards) != 52 or len(set(cards)) != 52:
                raise InvalidChance("the deck must hold each of the 52 cards exactly once")
            deck = [CODES[c] for c in cards]
        self._sampled = None
        record = DealRecord(dealer, dict(outcome))
        self._records.append(record)
        self._actions = record.actions
        self._dealer = dealer
        self._deck = deck
        # Every seat with chips antes 1 and gets one card, from the dealer's left.
        chips = self._chips
        if 0 in chips:
            dealt: tuple[int, ...] = tuple([s for s in _DEAL_ORDER[n][dealer] if chips[s]])
            self._status = tuple([IN if c else SITTING for c in chips])
            self._paid = tuple([1 if c else 0 for c in chips])
            self._chips = tuple([c - 1 if c else c for c in chips])
            self._live = tuple([s for s in range(n) if chips[s]])
        else:
            dealt = _DEAL_ORDER[n][dealer]
            self._status = _ALL_IN[n]
            self._paid = _ALL_PAID[n]
            self._chips = tuple([c - 1 for c in chips])
            self._live = _SEATS[n]
        self._pot += len(dealt)
        hands: list[tuple[int, ...]] = [()] * n
        masks = [0] * n
        keys = [0] * n
        for seat, code in zip(dealt, deck, strict=False):  # the deck is longer
            card = INDEX[code]
            hands[seat] = _SINGLE[card]
            masks[seat] = 1 << card
            keys[seat] = _SINGLE_KEY[card]
        self._pos = len(dealt)
        self._hands = tuple(hands)
        self._masks = masks
        self._keys = keys
        self._won = _NO_WINS[n]
        self._last = None
        self._next_turn()

    # ------------------------------------------------------------------ action
    def _reject(self, seat: int, action: str) -> IllegalAction:
        if self._over:
            return NotYourTurn("the match is over", seat=seat, action=action)
        if seat != self._turn or seat < 0:
            whom = "the deal (a chance outcome)" if self._turn == CHANCE else f"seat {self._turn} (the lowest hand)"
            return NotYourTurn(f"it is not your turn: waiting for {whom}", seat=seat, action=action)
        k = _BUY.get(action)
        if k is None:
            return UnknownAction(f"unknown action {action!r}: expected fold or buy:<n>", seat=seat, action=action)
        room = MAX_HAND - len(self._hands[seat])
        if k > room:
            return IllegalAction(
                f"a hand holds at most {MAX_HAND} cards: you may buy {room} more", seat=seat, action=action
            )
        return IllegalAction(
            f"buying {k} cards costs {k} chips and you have {self._chips[seat]}", seat=seat, action=action
        )

    def apply(self, seat: int, action: str) -> None:
        if self._over or seat != self._turn or seat < 0:
            raise self._reject(seat, action)
        after = seat + 1
        if action == "fold":
            self._actions.append((seat, action))
            status = self._status
            self._status = status[:seat] + _FOLDED + status[after:]
            self._live = tuple([s for s in self._live if s != seat])
            self._last = {"seat": seat, "action": action, "received": [], "outcome": FOLDED}
            self._next_turn()
            return
        k = _BUY.get(action)
        hand = self._hands[seat]
        chips = self._chips
        if k is None or k > MAX_HAND - len(hand) or k > chips[seat]:
            raise self._reject(seat, action)
        self._actions.append((seat, action))
        self._chips = chips[:seat] + (chips[seat] - k,) + chips[after:]
        paid = self._paid
        self._paid = paid[:seat] + (paid[seat] + k,) + paid[after:]
        self._pot += k
        keys = self._keys
        live = self._live
        floor = min([keys[s] for s in live if s != seat])
        escaped = False
        deck = self._deck
        pos = start = self._pos
        mask = self._masks[seat]
        key = keys[seat]
        for _ in range(k):
            card = INDEX[deck[pos]]
            pos += 1
            mask |= 1 << card
            hand += (card,)
            key = (_SMALL.get(mask) or _small_key(mask, hand)) if len(hand) <= _SMALL_HAND else _key(hand)
            if key > floor:
                escaped = True
                break
        self._pos = pos
        hands = self._hands
        self._hands = hands[:seat] + (hand,) + hands[after:]
        self._masks[seat] = mask
        keys[seat] = key
        if not escaped:
            status = self._status
            self._status = status[:seat] + _OUT + status[after:]
            self._live = tuple([s for s in live if s != seat])
        received: list[JSON] = deck[start:pos]
        self._last = {"seat": seat, "action": action, "received": received, "outcome": IN if escaped else OUT}
        self._next_turn()

    def _next_turn(self) -> None:
        live = self._live
        if len(live) == 1:
            self._settle(list(live))
            return
        keys = self._keys
        first = keys[live[0]] >> _SUIT_BITS
        for s in live:
            if keys[s] >> _SUIT_BITS != first:
                self._turn = min(live, key=keys.__getitem__)
                return
        self._settle(list(live))

    def _settle(self, winners: list[int]) -> None:
        n = self.players
        share, odd = divmod(self._pot, len(winners))
        won = [0] * n
        for s in winners:
            won[s] = share
        if odd:
            for s in [s for s in _DEAL_ORDER[n][self._dealer] if s in winners][:odd]:
                won[s] += 1
        chips = self._chips
        self._chips = chips = tuple([chips[s] + won[s] for s in range(n)])
        self._pot = 0
        self._won = tuple(won)
        paid = self._paid
        changes = tuple([won[s] - paid[s] for s in range(n)])
        self._records[-1].scores = [float(x) for x in changes]
        self._past += (changes,)
        funded = n - chips.count(0)
        self._over = len(self._records) >= self._rounds or funded < 2
        self._turn = -2 if self._over else CHANCE

    # ------------------------------------------------------------------- views
    def lowest(self) -> int | None:
        """The seat holding the lowest hand still in (the one to act), if a round is live."""
        return self._turn if self._turn >= 0 else None

    def view(self, seat: int | None) -> PokerView:
        if seat is not None and not 0 <= seat < self.players:
            raise IllegalAction(f"no seat {seat} in a {self.players}-player match")
        snapshot = (
            self.players,
            self._turn,
            self._dealer,
            len(self._records),
            self._rounds,
            self._start,
            self._pot,
            len(self._deck) - self._pos,
            self._last,
            self._chips,
            self._status,
            self._hands,
            self._paid,
            self._won,
            self._past,
        )
        return PokerView(self.game.id, snapshot, seat)

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return self.view(seat).to_json()

    # ------------------------------------------------------------------ result
    def result(self) -> Result:
        if not self._over:
            raise IllegalAction("the match is not over")
        scores = tuple(float(c) for c in self._chips)
        return Result(scores, ranks_from_scores(scores))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def clone(self) -> PokerState:
        other = object.__new__(PokerState)
        other.__dict__.update(self.__dict__)
        other._keys = list(self._keys)
        other._masks = list(self._masks)
        other._records = [r.copy() for r in self._records]
        other._actions = other._records[-1].actions if other._records else []
        return other

    # -------------------------------------------------------------- invariants
    def invariants(self) -> list[str]:
        problems: list[str] = []
        total = sum(self._chips) + self._pot
        if total != self._start * self.players:
            problems.append(f"chips not conserved: {total} != {self._start * self.players}")
        if any(c < 0 for c in self._chips):
            problems.append("a negative chip balance")
        if self._deck:
            dealt = [c for h in self._hands for c in h]
            if sorted(dealt) != sorted(INDEX[c] for c in self._deck[: self._pos]):
                problems.append("hands do not hold exactly the dealt cards")
            if any(len(h) > MAX_HAND for h in self._hands):
                problems.append("a hand holds more than 5 cards")
        for r in self._records:
            if r.scores is not None and sum(r.scores) != 0:
                problems.append("a round's chip changes do not sum to 0")
        if self._turn >= 0:
            live = [s for s in range(self.players) if self._status[s] == IN]
            if self._turn not in live or len(live) < 2:
                problems.append("the seat to act is not the lowest of two or more live hands")
            elif min(live, key=lambda s: act_key(self._hands[s])) != self._turn:
                problems.append("the seat to act does not hold the lowest hand")
        return problems

    def secrets(self, seat: int | None) -> frozenset[str]:
        if self._over or not self._deck:
            return frozenset()
        return frozenset(self._deck[self._pos :])


GAME = RicochetPoker()
