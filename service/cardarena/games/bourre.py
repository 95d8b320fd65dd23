"""Bourré: a trick-taking gambling game for 3 to 8 players (id ``bourre``).

Rules (the Bourré page of the original rules document and the team's rulings, not distributed
here; ``docs/games/bourre.md``):

* 52 cards, aces high, 5 cards each.  Every player antes 1 chip into the pot, which is a
  running balance carried from deal to deal.  The last card dealt to the dealer is turned
  face up: it fixes trump and is one of the dealer's five cards (public knowledge while held).
* Stay or fold in turn from the dealer's left (``stay``/``fold``); a folded player can neither
  win the pot nor lose more chips that deal.  A turned ace forces the dealer to stay.
* Then every player who stays, in turn from the dealer's left, may exchange up to 5 cards
  (3 with 7 or 8 players): ``exchange`` (keep all) or ``exchange:<card>[:<card>...]``.
  Draws come from the rest of the deck; when it runs out, the discards are gathered and
  shuffled into a new deck (a chance outcome in the replay).  The dealer may exchange the
  turned card: it is set aside face up, out of play, and still fixes trump.
* If nobody stays the pot carries and everyone antes again; if one player stays they win
  all five tricks.  Otherwise the first player staying to the dealer's left leads.
* Strict play: follow suit if able; else trump if able; and, within that, play a card that
  would currently win the trick if able.  A player *sure to win three tricks* (ruling: tricks
  already won plus the count of the highest outstanding trumps they hold reaches 3) must lead
  their highest trump, and must play their highest trump when following (unless last to play
  to the trick) if the rules above allow it.
* Payments: the player with most tricks takes the pot (at most the chip limit; the rest
  stays).  If several tie for most, nobody takes it.  A player who stayed and took no trick
  has gone *bourré* and pays the pot as it stood (at most the chip limit) into the pot.
  Bourré players and players tied for most do not ante for the next deal.
* A match is a fixed number of deals (option ``deals``, default 10); option ``chip_limit``
  (default 20; 0: no limit).  Ranking by chip balance (everyone starts at 0; the pot left at
  the end is nobody's).  Chips are conserved: the balances plus the pot are always 0.

Rulings made here where seed and rulings are silent:

* Everyone decides stay/fold first, then the stayers exchange in turn (the standard order).
* Nobody staying voids the deal: no payments beyond the antes, the pot carries, all ante.
* "Outstanding" trumps (for one player) are trumps not yet played, not the turned card set
  aside face up, and not that player's own discards still in the discard pile (out of play
  once the exchange is over, and the player knows it).  Cards in the deck, other players'
  discards, own discards gathered into a reshuffle and folded hands count as outstanding:
  the player cannot know they are dead.
* A player's own discards are not gathered into the reshuffle that interrupts their draw;
  they join the discard pile after it.  The turned card set aside is never reshuffled.
* Antes are paid at the start of each deal, so nothing is anted after the last deal.
* Revokes cannot happen (the server offers only legal plays), so their penalty is not
  implemented.

Pure: no IO, no clock, no RNG of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from itertools import combinations
from typing import Any, ClassVar

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
    OptionRange,
    Result,
    SnapshotView,
    State,
    UnknownAction,
    ranks_from_scores,
)
from ..engine.rng import MatchRng
from .trick_taking import plays_of

HAND = 5
"""Cards per hand (and tricks per deal)."""
ACE = 12
"""Rank index of the ace."""
OVER = -2
"""``_turn`` once the match is over."""

_PLAY: dict[str, int] = {"play:" + c: i for i, c in enumerate(CODES)}
_SEAT: tuple[tuple[int, ...], ...] = (*((s,) for s in range(8)), (CHANCE,))
"""Seat to its ``to_act`` tuple (index -1, that is CHANCE: chance)."""


_PLANS: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}
"""(cards in hand, max exchange) to how to spell each exchange id in order: every subset of at most
max-exchange cards, smallest first, as (position of the id of the subset without its last card,
index of that last card in the hand); the first entry (``exchange``) is a placeholder."""


def _plan(size: int, max_ex: int) -> tuple[tuple[int, int], ...]:
    combos = [combo for k in range(max_ex + 1) for combo in combinations(range(size), k)]
    position = {combo: i for i, combo in enumerate(combos)}
    return tuple((position[combo[:-1]], combo[-1]) if combo else (0, 0) for combo in combos)


def _exchanges(hand: int, max_ex: int) -> tuple[str, ...]:
    """The exchange ids for ``hand``: every subset of at most ``max_ex`` cards, smallest first."""
    codes = [":" + CODES[c] for c in range(52) if hand & BIT[c]]
    key = (len(codes), max_ex)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = _plan(*key)
    out = ["exchange"]
    append = out.append
    for parent, last in plan[1:]:
        append(out[parent] + codes[last])
    return tuple(out)


def max_exchange(players: int) -> int:
    """How many cards a player may exchange: 5, or 3 with 7 or 8 players."""
    return 3 if players >= 7 else 5


def exchange_id(cards: list[int] | tuple[int, ...]) -> str:
    """The canonical action id of discarding ``cards`` (``exchange`` for none)."""
    if not cards:
        return "exchange"
    return "exchange:" + ":".join(CODES[c] for c in sorted(cards))


def beats(card: int, best: int, trump: int) -> bool:
    """Whether ``card`` would beat ``best`` (the card now winning the trick)."""
    cs, bs = card // 13, best // 13
    if cs == bs:
        return card > best
    return cs == trump


def _sure_to_win(
    tricks: int, trump: int, played: int, trick: Any, aside: bool, turned: int, hand: int, discarded: int
) -> bool:
    """Tricks won + top outstanding trumps held >= 3 (see :meth:`BourreState.sure_to_win`);
    ``discarded``: the player's own cards in the discard pile, known to be out of play."""
    if tricks >= 3:
        return True
    gone = played | discarded
    for _, c in trick:
        gone |= BIT[c]
    if aside:
        gone |= BIT[turned]
    count = 0
    for rank in range(ACE, -1, -1):
        card = 13 * trump + rank
        if gone & BIT[card]:
            continue
        if not hand & BIT[card]:
            break
        count += 1
    return tricks + count >= 3


class BourreView(SnapshotView):
    """What one seat (or a spectator) sees; :meth:`to_json` is the wire form.

    Built as a snapshot tuple (copies of the few mutable pieces); the data is decoded on first
    access, so building a view is cheap.
    """

    def _decode(self) -> dict[str, JSON]:
        (
            state,
            seat,
            turn,
            phase,
            dealer,
            deal_number,
            pot,
            turned_index,
            aside,
            owners,
            hands,
            deck_size,
            pile_size,
            played,
            trick,
            leader,
            last_trick,
            last_winner,
            winner,
            balances,
            status,
            exchanged,
            tricks,
            bourre,
            exempt,
            last_deal_scores,
        ) = self._s
        n = state.players
        turned = CODES[turned_index] if turned_index >= 0 else None
        hand = hands[seat] if seat is not None else 0
        mine = sorted(c for c, s in owners if s == seat)
        in_hand_turned = turned_index >= 0 and not aside and bool(hands[dealer] & BIT[turned_index])
        trump = turned_index // 13
        data: dict[str, JSON] = {
            "game": state.game.id,
            "seat": seat,
            "players": n,
            "to_act": turn if turn >= 0 else None,
            "phase": phase if turn != OVER else "over",
            "dealer": dealer if dealer >= 0 else None,
            "deal_number": deal_number,
            "deals": state._deals,
            "chip_limit": state._limit,
            "max_exchange": state._max_ex,
            "pot": pot,
            "trump_suit": SUITS[trump] if turned_index >= 0 else None,
            "turned_card": turned,
            "turned_card_in_hand": in_hand_turned,
            "turned_card_set_aside": aside,
            "hand": list(codes_of(hand)),
            "my_discards": [CODES[c] for c in mine],
            "sure_to_win": seat is not None
            and phase == "play"
            and _sure_to_win(tricks[seat], trump, played, trick, aside, turned_index, hand, _mask(mine)),
            "deck_size": deck_size,
            "discard_pile_size": pile_size,
            "played_cards": list(codes_of(played)),
            "trick": [{"seat": s, "card": CODES[c]} for s, c in trick],
            "leader": leader if leader >= 0 else None,
            "last_trick": [{"seat": s, "card": CODES[c]} for s, c in last_trick],
            "last_winner": last_winner if last_winner >= 0 else None,
            "pot_winner": winner if winner >= 0 else None,
            "seats": [
                {
                    "seat": s,
                    "balance": balances[s],
                    "status": status[s] or "undecided",
                    "exchanged": exchanged[s] if exchanged[s] >= 0 else None,
                    "hand_size": hands[s].bit_count(),
                    "tricks": tricks[s],
                    "bourre": bourre[s],
                    "ante_exempt": exempt[s],
                    "deal_score": last_deal_scores[s],
                }
                for s in range(n)
            ],
        }
        self._data = data
        return data


class BourreState(State):
    """A Bourré match."""

    def __init__(self, game: Bourre, players: int, options: dict[str, JSON]) -> None:
        self.game = game
        self.players = players
        self.options = options
        self._deals = int(options["deals"])
        self._limit = int(options["chip_limit"])
        self._max_ex = max_exchange(players)
        n = players
        self._balances = [0] * n
        self._pot = 0
        self._exempt = [False] * n
        self._dealer = -1
        self._phase = "deal"
        self._turn = CHANCE
        self._hands = [0] * n
        self._status = [""] * n
        self._exchanged = [-1] * n
        self._deck: list[int] = []
        self._deck_pos = 0
        self._pile: list[int] = []
        self._pile_owner: dict[int, int] = {}
        self._turned = -1
        self._aside = False
        self._pending: tuple[int, tuple[int, ...], int] | None = None
        self._trick: list[tuple[int, int]] = []
        self._leader = -1
        self._played = 0
        self._tricks = [0] * n
        self._bourre = [False] * n
        self._winner = -1
        self._last_trick: list[tuple[int, int]] = []
        self._last_winner = -1
        self._start_balances = [0] * n
        self._last_deal_scores = [0] * n
        self._records: list[DealRecord] = []
        self._actions: list[tuple[int, str]] = []
        self._stayer_cache: list[int] | None = None
        """The answer of _stayers(); reset whenever the dealer or a status changes."""
        self._legal: tuple[int, tuple[str, ...]] | None = None
        """The last answer of legal_actions (seat, actions); reset whenever the state changes."""
        self._sampled: tuple[Mapping[str, JSON], int, list[int], int, list[int]] | None = None
        """The deal this state just sampled (outcome, dealer, hand masks, turned card, deck), known valid."""

    # ----------------------------------------------------------------- helpers
    @property
    def _trump(self) -> int:
        return self._turned // 13

    def _stayers(self) -> list[int]:
        """The seats that stay, from the dealer's left (cached; never change the list)."""
        cached = self._stayer_cache
        if cached is None:
            n = self.players
            cached = self._stayer_cache = [
                (self._dealer + 1 + i) % n for i in range(n) if self._status[(self._dealer + 1 + i) % n] == "stay"
            ]
        return cached

    def _next_stayer(self, seat: int) -> int:
        n = self.players
        for i in range(1, n + 1):
            s = (seat + i) % n
            if self._status[s] == "stay":
                return s
        raise AssertionError("no player stays")

    def sure_to_win(self, seat: int) -> bool:
        """The ruling's "sure to win 3 tricks": tricks won + top outstanding trumps held >= 3.

        Outstanding: not played, not the turned card set aside, and not one of the seat's own
        discards still in the discard pile (out of play once the exchange is over, and the seat
        knows it); anything else may be in another hand as far as the seat can know."""
        own = _mask(c for c, s in self._pile_owner.items() if s == seat)
        return _sure_to_win(
            self._tricks[seat],
            self._trump,
            self._played,
            self._trick,
            self._aside,
            self._turned,
            self._hands[seat],
            own,
        )

    def _highest_trump(self, hand: int) -> int:
        trumps = hand & SUIT_MASK[self._trump]
        return trumps.bit_length() - 1 if trumps else -1

    def _legal_play_mask(self, seat: int) -> int:
        hand = self._hands[seat]
        trump = self._trump
        sure = self.sure_to_win(seat)
        if not self._trick:
            if sure and hand & SUIT_MASK[trump]:
                return BIT[self._highest_trump(hand)]
            return hand
        lead = self._trick[0][1] // 13
        allowed = hand & SUIT_MASK[lead]
        if not allowed:
            allowed = hand & SUIT_MASK[trump] or hand
        best = self._trick_best()
        winners = 0
        m = allowed
        while m:
            low = m & -m
            c = low.bit_length() - 1
            if beats(c, best, trump):
                winners |= low
            m ^= low
        if winners:
            allowed = winners
        last = len(self._trick) == len(self._stayers()) - 1
        if sure and not last:
            top = self._highest_trump(hand)
            if top >= 0 and allowed & BIT[top]:
                return BIT[top]
        return allowed

    def _trick_best(self) -> int:
        trump = self._trump
        best = self._trick[0][1]
        for _, c in self._trick[1:]:
            if beats(c, best, trump):
                best = c
        return best

    # ----------------------------------------------------------------- queries
    def to_act(self) -> tuple[int, ...]:
        turn = self._turn
        if turn == OVER:
            return ()
        return _SEAT[turn]

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        cached = self._legal
        if cached is not None and cached[0] == seat:
            return cached[1]
        legal = self._legal_actions(seat)
        self._legal = (seat, legal)
        return legal

    def _legal_actions(self, seat: int) -> tuple[str, ...]:
        if seat != self._turn or seat < 0:
            return ()
        phase = self._phase
        if phase == "stay":
            if seat == self._dealer and self._turned % 13 == ACE:
                return ("stay",)
            return ("stay", "fold")
        if phase == "exchange":
            return _exchanges(self._hands[seat], self._max_ex)
        if phase == "play":
            return plays_of(self._legal_play_mask(seat))
        return ()

    def view(self, seat: int | None) -> BourreView:
        if seat is not None and not 0 <= seat < self.players:
            raise IllegalAction(f"no seat {seat} in a {self.players}-player match")
        # A snapshot of copies and immutable values; decoded on first access.
        owners = self._pile_owner
        return BourreView(
            (
                self,
                seat,
                self._turn,
                self._phase,
                self._dealer,
                len(self._records),
                self._pot,
                self._turned,
                self._aside,
                tuple(owners.items()) if owners else (),
                tuple(self._hands),
                len(self._deck) - self._deck_pos,
                len(self._pile),
                self._played,
                tuple(self._trick),
                self._leader,
                tuple(self._last_trick),
                self._last_winner,
                self._winner,
                tuple(self._balances),
                tuple(self._status),
                tuple(self._exchanged),
                tuple(self._tricks),
                tuple(self._bourre),
                tuple(self._exempt),
                tuple(self._last_deal_scores),
            ),
            seat,
        )

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return self.view(seat).to_json()

    def public_action(self, viewer: int | None, seat: int, action: str) -> str | None:
        """Discards go face down: other viewers learn how many cards were exchanged
        (``exchange:<n>``, as a table sees the draw), not which; keeping all is ``exchange``."""
        if viewer != seat and action.startswith("exchange:"):
            return f"exchange:{action.count(':')}"
        return action

    def result(self) -> Result:
        if self._turn != OVER:
            raise IllegalAction("the match is not over")
        return Result(tuple(self._balances), ranks_from_scores(self._balances))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def clone(self) -> BourreState:
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        for name in ("_balances", "_exempt", "_hands", "_status", "_exchanged", "_deck", "_pile", "_trick"):
            setattr(other, name, list(getattr(self, name)))
        for name in ("_tricks", "_bourre", "_last_trick", "_start_balances", "_last_deal_scores"):
            setattr(other, name, list(getattr(self, name)))
        other._pile_owner = dict(self._pile_owner)
        other._records = [r.copy() for r in self._records]
        other._actions = other._records[-1].actions if other._records else []
        return other

    # ------------------------------------------------------------------ chance
    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        if self._phase == "reshuffle":
            pile = list(self._pile)
            rng.shuffle(pile)
            return {"reshuffle": [CODES[c] for c in pile]}
        n = self.players
        dealer = rng.below(n) if self._dealer < 0 else (self._dealer + 1) % n
        deck = list(range(52))
        rng.shuffle(deck)
        hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(HAND * n):
            hands[(dealer + 1 + i) % n].append(deck[i])
        turned = hands[dealer][-1]
        outcome: dict[str, JSON] = {
            "dealer": dealer,
            "hands": [[CODES[c] for c in sorted(h)] for h in hands],
            "turned_card": CODES[turned],
            "deck": [CODES[c] for c in deck[HAND * n :]],
        }
        masks = []
        for h in hands:
            m = 0
            for c in h:
                m |= BIT[c]
            masks.append(m)
        self._sampled = (outcome, dealer, masks, turned, deck[HAND * n :])
        return outcome

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        self._legal = None
        if self._phase == "reshuffle":
            self._apply_reshuffle(outcome)
            return
        sampled = self._sampled
        self._sampled = None
        if sampled is not None and sampled[0] is outcome:
            # The deal this state just sampled itself: already known to be valid.
            self._start_deal(outcome, sampled[1], sampled[2], sampled[3], sampled[4])
            return
        n = self.players
        try:
            dealer = int(outcome["dealer"])
            hands = [[INDEX[c] for c in h] for h in outcome["hands"]]
            turned = INDEX[outcome["turned_card"]]
            deck = [INDEX[c] for c in outcome["deck"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidChance(f"malformed deal: {exc!r}") from None
        expected = (self._dealer + 1) % n if self._dealer >= 0 else dealer
        if not 0 <= dealer < n or dealer != expected:
            raise InvalidChance(f"dealer {dealer} does not fit (expected {expected})")
        if len(hands) != n or any(len(h) != HAND for h in hands):
            raise InvalidChance(f"need {n} hands of {HAND} cards")
        if turned not in hands[dealer]:
            raise InvalidChance("the turned card must be in the dealer's hand")
        masks = []
        seen = 0
        count = 0
        for h in hands:
            m = 0
            for c in h:
                m |= BIT[c]
            masks.append(m)
            seen |= m
            count += len(h)
        for c in deck:
            seen |= BIT[c]
        count += len(deck)
        if seen != FULL_DECK or count != 52:
            raise InvalidChance("the deal does not hold each of the 52 cards exactly once")
        self._start_deal(outcome, dealer, masks, turned, deck)

    def _apply_reshuffle(self, outcome: Mapping[str, JSON]) -> None:
        try:
            order = [INDEX[c] for c in outcome["reshuffle"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidChance(f"malformed reshuffle: {exc!r}") from None
        if len(order) != len(self._pile) or sorted(order) != sorted(self._pile):
            raise InvalidChance("a reshuffle must order exactly the cards of the discard pile")
        assert self._pending is not None
        seat, discards, need = self._pending
        self._pending = None
        self._actions.append((CHANCE, _dumps({"reshuffle": [CODES[c] for c in order]})))
        self._deck = order
        self._deck_pos = 0
        self._pile = []
        self._pile_owner = {}
        self._draw(seat, need)
        self._finish_exchange(seat, discards)

    def _start_deal(
        self, outcome: Mapping[str, JSON], dealer: int, masks: list[int], turned: int, deck: list[int]
    ) -> None:
        n = self.players
        self._dealer = dealer
        self._hands = list(masks)
        self._turned = turned
        self._aside = False
        self._deck = list(deck)
        self._deck_pos = 0
        self._pile = []
        self._pile_owner = {}
        self._status = [""] * n
        self._stayer_cache = None
        self._exchanged = [-1] * n
        self._trick = []
        self._leader = -1
        self._played = 0
        self._tricks = [0] * n
        self._bourre = [False] * n
        self._winner = -1
        self._last_trick = []
        self._last_winner = -1
        self._start_balances = list(self._balances)
        for s in range(n):
            if not self._exempt[s]:
                self._balances[s] -= 1
                self._pot += 1
        self._exempt = [False] * n
        record = DealRecord(dealer=dealer, chance=dict(outcome))
        self._records.append(record)
        self._actions = record.actions
        self._phase = "stay"
        self._turn = (dealer + 1) % n

    # ------------------------------------------------------------------ action
    def _parse_exchange(self, seat: int, action: str) -> tuple[int, ...]:
        _, _, rest = action.partition(":")
        codes = rest.split(":") if rest else []
        cards: list[int] = []
        for code in codes:
            card = INDEX.get(code)
            if card is None:
                raise UnknownAction(
                    f"unknown card {code!r} in {action!r}: expected exchange:<card>[:<card>...], e.g. exchange:2C:7H",
                    seat=seat,
                    action=action,
                )
            if not self._hands[seat] & BIT[card]:
                raise IllegalAction(f"{code} is not in your hand", seat=seat, action=action)
            if card in cards:
                raise IllegalAction(f"{code} is named twice", seat=seat, action=action)
            cards.append(card)
        if len(cards) > self._max_ex:
            raise IllegalAction(
                f"you may exchange at most {self._max_ex} cards with {self.players} players", seat=seat, action=action
            )
        return tuple(sorted(cards))

    def apply(self, seat: int, action: str) -> None:
        if self._phase == "play" and action in self.legal_actions(seat):
            # A legal play (legal_actions offers exactly the plays the checks below accept).
            self._legal = None
            self._actions.append((seat, action))
            self._play(seat, _PLAY[action])
            return
        self._legal = None
        if self._turn == OVER:
            raise NotYourTurn("the match is over", seat=seat, action=action)
        if seat != self._turn or seat < 0:
            whom = "a chance outcome (the deal or a reshuffle)" if self._turn == CHANCE else f"seat {self._turn}"
            raise NotYourTurn(f"it is not your turn: waiting for {whom}", seat=seat, action=action)
        kind = action.partition(":")[0]
        phase = self._phase
        expected = {"stay": "stay or fold", "exchange": "exchange[:<card>...]", "play": "play:<card>"}[phase]
        if kind not in ("stay", "fold", "exchange", "play") or (kind in ("stay", "fold") and action != kind):
            raise UnknownAction(f"unknown action {action!r}: expected {expected}", seat=seat, action=action)
        if phase == "stay":
            if kind not in ("stay", "fold"):
                raise IllegalAction(f"now each player decides to stay or fold, not {kind}", seat=seat, action=action)
            if kind == "fold" and seat == self._dealer and self._turned % 13 == ACE:
                raise IllegalAction("the turned card is an ace: the dealer must stay", seat=seat, action=action)
            self._actions.append((seat, action))
            self._status[seat] = kind
            self._stayer_cache = None
            self._after_stay(seat)
            return
        if phase == "exchange":
            if kind != "exchange":
                raise IllegalAction(
                    f"now you exchange (exchange, or exchange:<card>... to discard), not {kind}",
                    seat=seat,
                    action=action,
                )
            discards = self._parse_exchange(seat, action)
            canonical = exchange_id(discards)
            if action != canonical:  # apply accepts exactly the ids legal_actions lists
                raise IllegalAction(
                    f"write this exchange as {canonical!r} (the cards in legal_actions' order), not {action!r}",
                    seat=seat,
                    action=action,
                )
            self._actions.append((seat, canonical))
            self._exchange(seat, discards)
            return
        if kind != "play":
            raise IllegalAction(f"now you play a card (play:<card>), not {kind}", seat=seat, action=action)
        card = _PLAY.get(action)
        if card is None:
            raise UnknownAction(
                f"unknown card in {action!r}: expected play:<card>, e.g. play:QH", seat=seat, action=action
            )
        if not self._hands[seat] & BIT[card]:
            raise IllegalAction(f"{CODES[card]} is not in your hand", seat=seat, action=action)
        legal = self._legal_play_mask(seat)
        if not legal & BIT[card]:
            raise IllegalAction(self._why_not(seat, card, legal), seat=seat, action=action)
        self._actions.append((seat, action))
        self._play(seat, card)

    def _why_not(self, seat: int, card: int, legal: int) -> str:
        hand = self._hands[seat]
        trump = self._trump
        allowed = ", ".join(codes_of(legal))
        if not self._trick:
            return f"you are sure to win three tricks: you must lead your highest trump ({allowed})"
        lead = self._trick[0][1] // 13
        if hand & SUIT_MASK[lead] and card // 13 != lead:
            return f"must follow {SUIT_NAMES[SUITS[lead]]} ({allowed})"
        if not hand & SUIT_MASK[lead] and hand & SUIT_MASK[trump] and card // 13 != trump:
            return f"cannot follow {SUIT_NAMES[SUITS[lead]]}: must play a trump ({allowed})"
        if legal.bit_count() == 1 and self.sure_to_win(seat) and legal == BIT[self._highest_trump(hand)]:
            return f"you are sure to win three tricks: you must play your highest trump ({allowed})"
        return f"must play a card that wins the trick if able ({allowed})"

    def _after_stay(self, seat: int) -> None:
        if seat != self._dealer:
            self._turn = (seat + 1) % self.players
            return
        stayers = self._stayers()
        if len(stayers) <= 1:
            if stayers:
                self._tricks[stayers[0]] = HAND
            self._finish_deal()
            return
        self._phase = "exchange"
        self._turn = stayers[0]

    def _draw(self, seat: int, count: int) -> None:
        for _ in range(count):
            self._hands[seat] |= BIT[self._deck[self._deck_pos]]
            self._deck_pos += 1

    def _exchange(self, seat: int, discards: tuple[int, ...]) -> None:
        for c in discards:
            self._hands[seat] &= ~BIT[c]
        self._exchanged[seat] = len(discards)
        left = len(self._deck) - self._deck_pos
        now = min(left, len(discards))
        self._draw(seat, now)
        if now < len(discards):
            self._pending = (seat, discards, len(discards) - now)
            self._phase = "reshuffle"
            self._turn = CHANCE
            return
        self._finish_exchange(seat, discards)

    def _finish_exchange(self, seat: int, discards: tuple[int, ...]) -> None:
        for c in discards:
            if c == self._turned and seat == self._dealer:
                self._aside = True
                continue
            self._pile.append(c)
            self._pile_owner[c] = seat
        self._phase = "exchange"
        stayers = self._stayers()
        if seat != stayers[-1]:
            self._turn = self._next_stayer(seat)
            return
        self._phase = "play"
        self._leader = stayers[0]
        self._turn = stayers[0]

    def _play(self, seat: int, card: int) -> None:
        self._hands[seat] &= ~BIT[card]
        self._trick.append((seat, card))
        stayers = self._stayers()
        if len(self._trick) < len(stayers):
            self._turn = self._next_stayer(seat)
            return
        best = self._trick_best()
        winner = next(s for s, c in self._trick if c == best)
        for _, c in self._trick:
            self._played |= BIT[c]
        self._tricks[winner] += 1
        self._last_trick = self._trick
        self._last_winner = winner
        self._trick = []
        if sum(self._tricks) == HAND:
            self._finish_deal()
            return
        self._leader = winner
        self._turn = winner

    def _finish_deal(self) -> None:
        n = self.players
        stayers = self._stayers()
        pot = self._pot
        cap = min(pot, self._limit) if self._limit > 0 else pot
        exempt = [False] * n
        if stayers:
            most = max(self._tricks[s] for s in stayers)
            top = [s for s in stayers if self._tricks[s] == most]
            if len(top) == 1:
                self._winner = top[0]
                self._balances[top[0]] += cap
                self._pot -= cap
            else:
                for s in top:
                    exempt[s] = True
            for s in stayers:
                if self._tricks[s] == 0:
                    self._bourre[s] = True
                    exempt[s] = True
                    self._balances[s] -= cap
                    self._pot += cap
        self._exempt = exempt
        scores = [self._balances[s] - self._start_balances[s] for s in range(n)]
        self._last_deal_scores = scores
        self._records[-1].scores = [float(x) for x in scores]
        self._phase = "deal"
        self._turn = OVER if len(self._records) >= self._deals else CHANCE

    # -------------------------------------------------------------- invariants
    def invariants(self) -> list[str]:
        problems: list[str] = []
        if sum(self._balances) + self._pot != 0:
            problems.append(f"chips not conserved: balances {self._balances} and pot {self._pot}")
        if self._dealer < 0:
            return problems
        zones = [*self._hands, self._played]
        zones.append(sum(BIT[c] for c in self._deck[self._deck_pos :]))
        zones.append(sum(BIT[c] for c in self._pile))
        zones.append(sum(BIT[c] for _, c in self._trick))
        if self._aside:
            zones.append(BIT[self._turned])
        seen = 0
        count = 0
        for z in zones:
            seen |= z
            count += z.bit_count()
        pending = len(self._pending[1]) if self._pending else 0
        if seen | _pending_mask(self._pending) != FULL_DECK or count + pending != 52:
            problems.append(f"cards not conserved: {count + pending} placed, {seen.bit_count()} distinct")
        if self._played.bit_count() != sum(self._tricks) * len(self._stayers()) and self._phase == "play":
            problems.append("played cards do not match the tricks won")
        if self._phase == "play":
            for s in self._stayers():
                played_now = 1 if any(p == s for p, _ in self._trick) else 0
                if self._hands[s].bit_count() != HAND - sum(self._tricks) - played_now:
                    problems.append(f"seat {s} holds {self._hands[s].bit_count()} cards")
        return problems

    def secrets(self, seat: int | None) -> frozenset[str]:
        if self._dealer < 0:
            return frozenset()
        hidden = 0
        for other, hand in enumerate(self._hands):
            if other != seat:
                hidden |= hand
        if not self._aside:
            hidden &= ~BIT[self._turned]
        for c in self._deck[self._deck_pos :]:
            hidden |= BIT[c]
        for c in self._pile:
            if self._pile_owner.get(c) != seat:
                hidden |= BIT[c]
        return frozenset(codes_of(hidden))


def _mask(cards: Iterable[int]) -> int:
    """The bit mask of card indices."""
    mask = 0
    for c in cards:
        mask |= BIT[c]
    return mask


def _pending_mask(pending: tuple[int, tuple[int, ...], int] | None) -> int:
    if pending is None:
        return 0
    mask = 0
    for c in pending[1]:
        mask |= BIT[c]
    return mask


def _dumps(obj: JSON) -> str:
    return json.dumps(obj, sort_keys=True)


class Bourre(Game):
    """Bourré for 3 to 8 players: chips, a running pot, going bourré."""

    id: ClassVar[str] = "bourre"
    name: ClassVar[str] = "Bourré"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 8
    summary: ClassVar[str] = (
        "Trick-taking gambling for 3-8: 5 cards, the dealer's turned card fixes trump; stay or fold, "
        "exchange up to 5 (3 with 7-8), strict play (follow, trump, head the trick). Most tricks takes "
        "the pot, ties carry it, no trick pays the pot (going bourré). 10 deals, chip balance."
    )

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"deals": 10, "chip_limit": 20}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"deals": OptionRange(1, 1000), "chip_limit": OptionRange(0, 100_000, "0: no limit")}

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> BourreState:
        return BourreState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        kind, _, rest = action.partition(":")
        if kind == "play" and action in _PLAY:
            return ActionInfo(id=action, kind="play", label="play " + label(rest), cards=(rest,))
        if kind == "exchange":
            cards = tuple(rest.split(":")) if rest else ()
            text = "exchange " + " ".join(label(c) if c in INDEX else c for c in cards) if cards else "keep all cards"
            return ActionInfo(id=action, kind="exchange", label=text, cards=cards, amount=len(cards))
        if action == "stay":
            return ActionInfo(id=action, kind="stay", label="stay in")
        if action == "fold":
            return ActionInfo(id=action, kind="fold", label="fold")
        return super().describe(action)


GAME = Bourre()
