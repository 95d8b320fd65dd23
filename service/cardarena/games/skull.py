"""Skull: the bluffing game of roses and skulls, for 3 to 6 players.

Rules (the Skull page of the original rules document and the team's rulings, not distributed
here; ``docs/games/skull.md``):

* Each player has four cards: three roses (red number cards) and one skull (a black face
  card).  Only the type matters, so cards are the words ``rose`` and ``skull``.
* A round starts with every player who still has cards placing one card face down, all at
  once: ``to_act()`` returns every seat that has not placed yet and nothing about the
  choices is revealed until all have placed.
* Then, clockwise from the round's first player, each player either places another card on
  top of their pile or bids a number of cards they will reveal without meeting a skull
  (1 up to the number of cards on the table).  A player with no card left in hand must bid.
* After the first bid nobody places any more: in turn each player raises or passes; a player
  who passed is out of the bidding for the round.  When all others have passed, the highest
  bidder reveals cards.
* Revealing: first the bidder's own pile, top down, then the top card of any other pile
  (``flip:<seat>``).  A skull stops the reveal at once.  Revealing as many roses as bid
  scores the bidder a point.
* A skull in the bidder's own pile: the bidder chooses which of their cards to lose
  (``lose:rose`` / ``lose:skull``).  A skull in another pile: one of the bidder's cards is
  lost at random, drawn by the server RNG (a chance node ``{"seat": s, "card": "rose"}``).
  A lost card is removed face down: only its owner learns which one it was.
* Next round's first player: the bidder after a success; the skull's owner after a failure,
  or, if that player is out, the next player clockwise who still has cards.
* Win: two points, or being the last player with cards.  The winner scores 1, everyone
  else 0 (they share second place).

Rulings made here where the seed and the rulings are silent (the standard club reading):

* The first player of the first round is drawn by the match RNG (the opening chance outcome
  ``{"dealer": s, "first_player": s}``; there is no deal, so ``dealer`` is that player).
* The bidder's own cards are revealed automatically (there is no choice in it), from the
  top, until the bid is reached, a skull shows or the pile is exhausted; only the choice of
  other piles is a decision (``flip:<seat>``).
* A bid equal to the number of cards on the table cannot be raised: the reveal starts at
  once (the others could only pass).
* When the bidder must lose a card after their own skull and all their cards are of one
  type, that card is lost without asking (there is nothing to choose).
* The whole match is one record (one "deal"): the random discards are appended as chance
  outcomes.  The rulings make Skull a single game, so there is no ``deals`` option.
* Player actions are public except the type of a placed or lost card: other viewers see
  ``place`` and ``lose`` (``public_action``).

Cards of one type are indistinguishable, so ``secrets()`` is empty (``hidden_information =
"own_tests"``); ``tests/test_skull.py`` checks hiding by comparing views of states that differ
only in a hidden card.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from ..engine.core import (
    CHANCE,
    JSON,
    ActionInfo,
    DealRecord,
    Game,
    HiddenInformation,
    IllegalAction,
    InvalidChance,
    NotYourTurn,
    Result,
    SnapshotView,
    State,
    UnknownAction,
    ranks_from_scores,
    replaced,
)
from ..engine.rng import MatchRng

ROSE = "rose"
"""A rose: safe to reveal."""
SKULL = "skull"
"""A skull: ends a reveal in failure."""
CARD_TYPES = (ROSE, SKULL)
"""The two card types."""
ROSES_EACH = 3
"""Roses each player starts with."""
POINTS_TO_WIN = 2
"""Successful challenges that win the match."""

_OVER = -2

# Phases of a round.
PLACE_FIRST = "place_first"
"""Everyone still in places their first card, simultaneously."""
PLACE = "place"
"""Clockwise: place another card or open the bidding."""
BID = "bid"
"""Clockwise: raise or pass."""
FLIP = "flip"
"""The bidder reveals the top card of other piles."""
LOSE = "lose"
"""The bidder chooses which card to lose after their own skull."""
DISCARD = "discard"
"""Chance: a random card of the bidder is lost after another player's skull."""
START = "start"
"""Chance: the first player is drawn."""
OVER = "over"
"""The match is over."""


_SEAT: tuple[tuple[int, ...], ...] = tuple((s,) for s in range(8))
_CHANCE_ONLY: tuple[int, ...] = (CHANCE,)
_PASS: tuple[str, ...] = ("pass",)
_BIDS: tuple[str, ...] = tuple(f"bid:{b}" for b in range(0, 4 * 8 + 1))
"""``bid:<b>`` by b (index 0 unused)."""
_PLACES: dict[tuple[bool, bool], tuple[str, ...]] = {
    (rose, skull): tuple("place:" + t for t, has in ((ROSE, rose), (SKULL, skull)) if has)
    for rose in (False, True)
    for skull in (False, True)
}
"""(a rose in hand, the skull in hand) to the place actions, in the order of CARD_TYPES."""


class SkullView(SnapshotView):
    """What one seat (``None``: a spectator) sees of a Skull match; ``to_json()`` is the wire form.

    Built as a snapshot tuple (copies of the few mutable pieces); the data is decoded on first
    access, so building a view is cheap.
    """

    def _decode(self) -> dict[str, JSON]:
        (
            state,
            seat,
            to_act,
            phase,
            round_,
            first,
            turn,
            bid,
            bidder,
            winner,
            last,
            piles,
            revealed,
            roses,
            skull,
            points,
            placed_first,
            passed,
            lost,
        ) = self._s
        n = state.players

        def hand_of(s: int) -> list[str]:
            pile = piles[s]
            count = roses[s] - pile.count(ROSE)
            has_skull = skull[s] and SKULL not in pile
            return [ROSE] * count + ([SKULL] if has_skull else [])

        seats: list[dict[str, JSON]] = []
        last_revealed = last.get("revealed", {})
        for s in range(n):
            pile = piles[s]
            shown = revealed[s]
            cards = roses[s] + (1 if skull[s] else 0)
            seats.append(
                {
                    "seat": s,
                    "cards": cards,
                    "hand_size": len(hand_of(s)),
                    "pile_size": len(pile),
                    "revealed": [pile[len(pile) - 1 - i] for i in range(shown)],
                    "points": points[s],
                    "out": not cards > 0,
                    "passed": passed[s],
                    "placed": placed_first[s] if phase == PLACE_FIRST else bool(pile),
                    "last_revealed": list(last_revealed.get(s, [])),
                }
            )
        own = seat is not None
        data: dict[str, JSON] = {
            "game": state.game.id,
            "seat": seat,
            "players": n,
            "to_act": [s for s in to_act if s >= 0],
            "phase": phase,
            "round": round_,
            "first_player": first if first >= 0 else None,
            "turn": turn if phase in (PLACE, BID, FLIP, LOSE) else None,
            "bid": bid if bidder >= 0 else None,
            "bidder": bidder if bidder >= 0 else None,
            "max_bid": sum(len(p) for p in piles),
            "flipped": sum(revealed),
            "hand": hand_of(seat) if own and seat is not None else [],
            "pile": list(piles[seat]) if own and seat is not None else [],
            "lost": list(lost) if own and seat is not None else [],
            "winner": winner if winner >= 0 else None,
            "last_bidder": last.get("bidder"),
            "last_bid": last.get("bid"),
            "last_success": last.get("success"),
            "last_skull_owner": last.get("skull_owner"),
            "seats": seats,
        }
        self._data = data
        return data

    @property
    def hand(self) -> list[str]:
        """The seat's own cards in hand (not on the table, not lost)."""
        hand: list[str] = self["hand"]
        return hand

    def to_json(self) -> dict[str, JSON]:
        """The view as a proto-compatible JSON object."""
        # the decoded data shares lists with the state: hand out a copy
        return json.loads(json.dumps(self._json()))  # type: ignore[no-any-return]


class SkullGame(Game):
    """Skull for 3 to 6 players (the seed says 4 to 6; 3 is allowed by the rulings)."""

    id: ClassVar[str] = "skull"
    name: ClassVar[str] = "Skull"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 6
    summary: ClassVar[str] = (
        "Bluffing for 3-6: place roses or your skull face down, bid how many cards you can "
        "reveal without a skull, reveal your own pile first. Two successful bids or being the "
        "last player with cards wins; a failed bid costs a card."
    )
    hidden_information: ClassVar[HiddenInformation] = "own_tests"
    """Placed and lost cards are hidden, but all roses look alike, so no token names a hidden
    card: ``tests/test_skull.py`` compares views of matches that differ only in a hidden card."""

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> SkullState:
        return SkullState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        kind, _, arg = action.partition(":")
        if kind == "place" and arg in CARD_TYPES:
            return ActionInfo(id=action, kind="place", label=f"place a {arg}", choice=arg)
        if kind == "lose" and arg in CARD_TYPES:
            return ActionInfo(id=action, kind="lose", label=f"lose a {arg}", choice=arg)
        if kind == "bid" and arg.isdigit():
            return ActionInfo(id=action, kind="bid", label=f"bid {arg}", amount=int(arg))
        if kind == "flip" and arg.isdigit():
            return ActionInfo(id=action, kind="flip", label=f"reveal seat {arg}'s top card", target=int(arg))
        if action == "pass":
            return ActionInfo(id=action, kind="pass", label="pass")
        return super().describe(action)


class SkullState(State):
    """A Skull match, from the draw of the first player to the winner."""

    def __init__(self, game: SkullGame, players: int, options: dict[str, JSON]) -> None:
        self.game = game
        self.players = players
        self.options = options
        n = players
        self._phase = START
        self._round = 0
        self._first = -1
        self._turn = -1
        # Per-seat tuples are replaced, never changed in place: views reference them.
        self._roses: tuple[int, ...] = (ROSES_EACH,) * n
        """Roses each seat owns (hand + pile)."""
        self._skull: tuple[bool, ...] = (True,) * n
        """Whether each seat still owns its skull."""
        self._lost: list[list[str]] = [[] for _ in range(n)]
        self._piles: tuple[tuple[str, ...], ...] = ((),) * n
        """Each seat's pile, bottom first."""
        self._revealed: tuple[int, ...] = (0,) * n
        """Cards revealed from the top of each pile this round."""
        self._points: tuple[int, ...] = (0,) * n
        self._placed_first: tuple[bool, ...] = (False,) * n
        self._passed: tuple[bool, ...] = (False,) * n
        self._bid = 0
        self._bidder = -1
        self._skull_owner = -1
        self._winner = -1
        self._last: dict[str, Any] = {}
        self._records: list[DealRecord] = []
        self._to_act: tuple[int, ...] | None = None
        self._legal: tuple[int, tuple[str, ...]] | None = None
        """Answers of to_act and legal_actions (seat, actions); reset whenever the state changes."""

    # ------------------------------------------------------------- helpers
    def _cards(self, seat: int) -> int:
        return self._roses[seat] + (1 if self._skull[seat] else 0)

    def _hand(self, seat: int) -> list[str]:
        pile = self._piles[seat]
        roses = self._roses[seat] - pile.count(ROSE)
        skull = self._skull[seat] and SKULL not in pile
        return [ROSE] * roses + ([SKULL] if skull else [])

    def _alive(self, seat: int) -> bool:
        return self._cards(seat) > 0

    def _next_alive(self, seat: int) -> int:
        n = self.players
        for step in range(1, n + 1):
            other = (seat + step) % n
            if self._alive(other):
                return other
        return seat

    def _on_table(self) -> int:
        return sum(len(p) for p in self._piles)

    def _record(self, seat: int, action: str) -> None:
        self._records[-1].actions.append((seat, action))

    # ------------------------------------------------------------- queries
    def to_act(self) -> tuple[int, ...]:
        cached = self._to_act
        if cached is None:
            cached = self._to_act = self._compute_to_act()
        return cached

    def _compute_to_act(self) -> tuple[int, ...]:
        phase = self._phase
        if phase in (START, DISCARD):
            return _CHANCE_ONLY
        if phase == OVER:
            return ()
        if phase == PLACE_FIRST:
            roses, skull, placed = self._roses, self._skull, self._placed_first
            return tuple([s for s in range(self.players) if (roses[s] or skull[s]) and not placed[s]])
        return _SEAT[self._turn]

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        cached = self._legal
        if cached is not None and cached[0] == seat:
            return cached[1]
        legal = self._legal_actions(seat)
        self._legal = (seat, legal)
        return legal

    def _legal_actions(self, seat: int) -> tuple[str, ...]:
        if seat not in self.to_act() or seat < 0:
            return ()
        phase = self._phase
        hand = self._hand(seat)
        places = _PLACES[(ROSE in hand, SKULL in hand)]
        if phase == PLACE_FIRST:
            return places
        if phase == PLACE:
            return places + _BIDS[1 : self._on_table() + 1]
        if phase == BID:
            return _PASS + _BIDS[self._bid + 1 : self._on_table() + 1]
        if phase == FLIP:
            return tuple(
                f"flip:{s}" for s in range(self.players) if s != seat and self._revealed[s] < len(self._piles[s])
            )
        if phase == LOSE:
            owned = []
            if self._roses[seat]:
                owned.append("lose:" + ROSE)
            if self._skull[seat]:
                owned.append("lose:" + SKULL)
            return tuple(owned)
        return ()

    def view(self, seat: int | None) -> SkullView:
        if seat is not None and not 0 <= seat < self.players:
            raise IllegalAction(f"no seat {seat} in a {self.players}-player match")
        # A snapshot of copies and immutable values; decoded on first access.
        return SkullView(
            (
                self,
                seat,
                self.to_act(),
                self._phase,
                self._round,
                self._first,
                self._turn,
                self._bid,
                self._bidder,
                self._winner,
                self._last,
                self._piles,
                self._revealed,
                self._roses,
                self._skull,
                self._points,
                self._placed_first,
                self._passed,
                tuple(self._lost[seat]) if seat is not None else (),
            ),
            seat,
        )

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return self.view(seat).to_json()

    def public_action(self, viewer: int | None, seat: int, action: str) -> str | None:
        if viewer == seat:
            return action
        kind = action.partition(":")[0]
        if kind in ("place", "lose"):
            return kind
        return action

    def result(self) -> Result:
        if self._phase != OVER:
            raise IllegalAction("the match is not over")
        scores = tuple(1.0 if s == self._winner else 0.0 for s in range(self.players))
        return Result(scores, ranks_from_scores(scores))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def secrets(self, seat: int | None) -> frozenset[str]:
        """Empty: a hidden card is a ``rose`` or a ``skull`` like the cards everyone may see, so
        no token can name it (``SkullGame.hidden_information == "own_tests"``)."""
        return frozenset()

    def clone(self) -> SkullState:
        other = object.__new__(SkullState)
        other.__dict__.update(self.__dict__)
        other._lost = [list(x) for x in self._lost]
        other._last = self._last  # replaced, never changed in place
        other._records = [r.copy() for r in self._records]
        return other

    # -------------------------------------------------------------- chance
    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        if self._phase == START:
            first = rng.below(self.players)
            return {"dealer": first, "first_player": first}
        if self._phase == DISCARD:
            seat = self._bidder
            pick = rng.below(self._cards(seat))
            return {"seat": seat, "card": SKULL if pick < (1 if self._skull[seat] else 0) else ROSE}
        raise InvalidChance("no chance outcome is pending")

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        self._apply_chance(outcome)
        self._to_act = None
        self._legal = None

    def _apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        if self._phase == START:
            try:
                first = int(outcome["first_player"])
                dealer = int(outcome["dealer"])
            except (KeyError, TypeError, ValueError) as exc:
                raise InvalidChance(f"malformed opening outcome: {exc!r}") from None
            if not 0 <= first < self.players or dealer != first:
                raise InvalidChance(f"first player {first} (dealer {dealer}) does not fit")
            self._records.append(DealRecord(dealer=first, chance={"dealer": first, "first_player": first}))
            self._start_round(first)
            return
        if self._phase == DISCARD:
            try:
                seat = int(outcome["seat"])
                card = str(outcome["card"])
            except (KeyError, TypeError, ValueError) as exc:
                raise InvalidChance(f"malformed discard outcome: {exc!r}") from None
            if seat != self._bidder:
                raise InvalidChance(f"the discard is the bidder's (seat {self._bidder}), not seat {seat}'s")
            if (
                card not in CARD_TYPES
                or (card == SKULL and not self._skull[seat])
                or (card == ROSE and not self._roses[seat])
            ):
                raise InvalidChance(f"seat {seat} has no {card} to lose")
            # json.dumps({"seat": seat, "card": card}, sort_keys=True), spelled out (card is rose or skull).
            self._record(CHANCE, '{"card": "' + card + '", "seat": ' + str(seat) + "}")
            self._lose(seat, card)
            return
        raise InvalidChance("no chance outcome is pending")

    # -------------------------------------------------------------- actions
    def _reject(self, seat: int, action: str) -> IllegalAction:
        if self._phase == OVER:
            return NotYourTurn("the match is over", seat=seat, action=action)
        seats = self.to_act()
        if seat not in seats:
            if seats == (CHANCE,):
                return NotYourTurn("it is not your turn: waiting for a chance outcome", seat=seat, action=action)
            if self._phase == PLACE_FIRST:
                why = "you have no cards left" if not self._alive(seat) else "you have placed your first card"
                return NotYourTurn(f"it is not your turn: {why}", seat=seat, action=action)
            return NotYourTurn(f"it is not your turn: waiting for seat {self._turn}", seat=seat, action=action)
        kind, _, arg = action.partition(":")
        known = (
            (kind in ("place", "lose") and arg in CARD_TYPES)
            or (kind in ("bid", "flip") and arg.isdigit())
            or action == "pass"
        )
        if not known:
            return UnknownAction(
                f"unknown action {action!r}: expected place:rose, place:skull, bid:<n>, pass, flip:<seat>, "
                "lose:rose or lose:skull",
                seat=seat,
                action=action,
            )
        phase = self._phase
        if kind == "place":
            if phase not in (PLACE_FIRST, PLACE):
                return IllegalAction(
                    "no more cards may be placed once the bidding has started", seat=seat, action=action
                )
            return IllegalAction(f"you have no {arg} in hand", seat=seat, action=action)
        if kind == "bid":
            if phase == PLACE_FIRST:
                return IllegalAction("everyone places a first card before anyone may bid", seat=seat, action=action)
            if phase not in (PLACE, BID):
                return IllegalAction("the bidding is over", seat=seat, action=action)
            low = self._bid + 1 if phase == BID else 1
            return IllegalAction(
                f"a bid must be from {low} to {self._on_table()} (the cards on the table)", seat=seat, action=action
            )
        if kind == "pass":
            return IllegalAction("you may pass only after a bid has been made", seat=seat, action=action)
        if kind == "flip":
            if phase != FLIP:
                return IllegalAction("only the bidder reveals cards, after the bidding", seat=seat, action=action)
            return IllegalAction(
                f"seat {arg} has no unrevealed card to flip (your own pile is revealed automatically)",
                seat=seat,
                action=action,
            )
        if phase != LOSE:
            return IllegalAction("you lose a card only after revealing your own skull", seat=seat, action=action)
        return IllegalAction(f"you have no {arg} left", seat=seat, action=action)

    def apply(self, seat: int, action: str) -> None:
        if action not in self.legal_actions(seat):
            raise self._reject(seat, action)
        self._to_act = None
        self._legal = None
        self._apply(seat, action)
        self._to_act = None
        self._legal = None

    def _apply(self, seat: int, action: str) -> None:
        kind, _, arg = action.partition(":")
        self._record(seat, action)
        phase = self._phase
        if phase == PLACE_FIRST:
            self._piles = replaced(self._piles, seat, self._piles[seat] + (arg,))
            self._placed_first = replaced(self._placed_first, seat, True)
            if not self.to_act():
                self._phase = PLACE
                self._turn = self._first
            return
        if phase == PLACE:
            if kind == "place":
                self._piles = replaced(self._piles, seat, self._piles[seat] + (arg,))
                self._turn = self._next_alive(seat)
                return
            self._open_bid(seat, int(arg))
            return
        if phase == BID:
            if kind == "pass":
                self._passed = replaced(self._passed, seat, True)
                self._next_bidder(seat)
            else:
                self._open_bid(seat, int(arg))
            return
        if phase == FLIP:
            self._flip(int(arg))
            return
        self._lose(seat, arg)

    def _open_bid(self, seat: int, amount: int) -> None:
        self._bid = amount
        self._bidder = seat
        self._phase = BID
        if amount >= self._on_table():
            self._start_reveal()
            return
        self._next_bidder(seat)

    def _next_bidder(self, seat: int) -> None:
        n = self.players
        for step in range(1, n + 1):
            other = (seat + step) % n
            if other == self._bidder:
                self._start_reveal()
                return
            if self._alive(other) and not self._passed[other]:
                self._turn = other
                return
        self._start_reveal()  # pragma: no cover - the bidder is always found first

    def _start_reveal(self) -> None:
        bidder = self._bidder
        self._turn = bidder
        self._phase = FLIP
        pile = self._piles[bidder]
        while self._revealed[bidder] < len(pile):
            card = pile[len(pile) - 1 - self._revealed[bidder]]
            self._revealed = replaced(self._revealed, bidder, self._revealed[bidder] + 1)
            if card == SKULL:
                self._fail(bidder)
                return
            if sum(self._revealed) >= self._bid:
                self._succeed()
                return

    def _flip(self, target: int) -> None:
        pile = self._piles[target]
        card = pile[len(pile) - 1 - self._revealed[target]]
        self._revealed = replaced(self._revealed, target, self._revealed[target] + 1)
        if card == SKULL:
            self._fail(target)
        elif sum(self._revealed) >= self._bid:
            self._succeed()

    def _note_round(self, success: bool, skull_owner: int | None) -> None:
        revealed = {}
        for s, pile in enumerate(self._piles):
            revealed[s] = [pile[len(pile) - 1 - i] for i in range(self._revealed[s])]
        self._last = {
            "bidder": self._bidder,
            "bid": self._bid,
            "success": success,
            "skull_owner": skull_owner,
            "revealed": revealed,
        }

    def _succeed(self) -> None:
        bidder = self._bidder
        self._note_round(True, None)
        self._points = replaced(self._points, bidder, self._points[bidder] + 1)
        if self._points[bidder] >= POINTS_TO_WIN:
            self._finish(bidder)
            return
        self._start_round(bidder)

    def _fail(self, owner: int) -> None:
        bidder = self._bidder
        self._note_round(False, owner)
        self._skull_owner = owner
        if owner != bidder:
            self._phase = DISCARD
            self._turn = CHANCE
            return
        if self._roses[bidder] and self._skull[bidder]:
            self._phase = LOSE
            self._turn = bidder
            return
        self._lose(bidder, ROSE if self._roses[bidder] else SKULL)

    def _lose(self, seat: int, card: str) -> None:
        # Every card goes back to its owner's hand before the loss.
        self._piles = ((),) * self.players
        self._revealed = (0,) * self.players
        if card == SKULL:
            self._skull = replaced(self._skull, seat, False)
        else:
            self._roses = replaced(self._roses, seat, self._roses[seat] - 1)
        self._lost[seat].append(card)
        alive = [s for s in range(self.players) if self._alive(s)]
        if len(alive) == 1:
            self._finish(alive[0])
            return
        owner = self._skull_owner
        self._start_round(owner if self._alive(owner) else self._next_alive(owner))

    def _start_round(self, first: int) -> None:
        n = self.players
        self._round += 1
        self._first = first
        self._piles = ((),) * n
        self._revealed = (0,) * n
        self._placed_first = (False,) * n
        self._passed = (False,) * n
        self._bid = 0
        self._bidder = -1
        self._skull_owner = -1
        self._turn = -1
        self._phase = PLACE_FIRST

    def _finish(self, winner: int) -> None:
        self._winner = winner
        self._phase = OVER
        self._turn = _OVER
        record = self._records[-1]
        record.scores = [1.0 if s == winner else 0.0 for s in range(self.players)]

    # ----------------------------------------------------------- invariants
    def invariants(self) -> list[str]:
        problems: list[str] = []
        for s in range(self.players):
            pile = self._piles[s]
            lost = self._lost[s]
            if self._roses[s] + lost.count(ROSE) != ROSES_EACH:
                problems.append(f"seat {s}: roses not conserved")
            if self._skull[s] == (SKULL in lost) or lost.count(SKULL) > 1:
                problems.append(f"seat {s}: skull not conserved")
            if pile.count(ROSE) > self._roses[s] or (SKULL in pile and not self._skull[s]):
                problems.append(f"seat {s}: pile holds cards the seat does not own")
            if not 0 <= self._revealed[s] <= len(pile):
                problems.append(f"seat {s}: more cards revealed than placed")
            if not 0 <= self._points[s] <= POINTS_TO_WIN:
                problems.append(f"seat {s}: {self._points[s]} points")
        if self._phase not in (START, OVER) and sum(1 for s in range(self.players) if self._alive(s)) < 2:
            problems.append("the match goes on with fewer than two players holding cards")
        if self._phase in (BID, FLIP) and self._bid > self._on_table():
            problems.append("the bid exceeds the cards on the table")
        return problems


GAME = SkullGame()
