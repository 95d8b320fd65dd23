"""Test Trumps: a tiny trick-taking game that exists only to prove "games registered later".

It is not a game of the product: it lives outside ``cardarena.games`` and is registered the
way a designer's own distribution registers one, through the ``cardarena.games`` entry point
group (``tests/conftest.py`` puts a distribution declaring it on the path of the test session
and of every process the session starts).  It has no typed wire view (its views travel as the
generic ``Struct``), no SDK strategy and no page in ``docs/games/``: what a new game has before
its designer adds the optional parts.  Every registry-driven test (the conformance suite,
golden playthroughs, the wire, the dashboard, whole matches over gRPC) plays it.

Rules: 24 cards (9 to ace of each suit); 5 cards each, the next card turned for trump (out of
play), the rest unused.  The dealer is drawn from the seed, then the deal passes left.  Left
of the dealer leads; must follow suit if able; the highest trump, else the highest card of
the suit led, wins the trick and leads the next.  +1 per trick.  ``deals`` hands (default 1);
the highest total wins, equal totals share.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from cardarena.engine import (
    CHANCE,
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
from cardarena.engine.core import JSON

RANKS = "9TJQKA"
DECK = tuple(rank + suit for suit in "CDHS" for rank in RANKS)
HAND = 5


class TestTrumpsView:
    """What one seat sees: any object with ``to_json()``."""

    def __init__(self, data: dict[str, JSON]) -> None:
        self._data = data

    def to_json(self) -> dict[str, JSON]:
        return dict(self._data)


class TestTrumpsState(State):
    """One Test Trumps match."""

    def __init__(self, game: TestTrumps, players: int, options: dict[str, JSON]) -> None:
        self.game, self.players, self.options = game, players, options
        self._records: list[DealRecord] = []
        self._dealer = -1
        self._hands: list[list[str]] = [[] for _ in range(players)]
        self._unused: list[str] = []
        self._trump_card: str | None = None
        self._trick: list[tuple[int, str]] = []
        self._turn: int | None = CHANCE  # None once the match is over
        self._tricks = [0] * players
        self._totals = [0] * players

    def to_act(self) -> tuple[int, ...]:
        return () if self._turn is None else (self._turn,)

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        if seat == CHANCE or self._turn != seat:
            return ()
        hand = self._hands[seat]
        led = self._trick[0][1][1] if self._trick else None
        follow = [card for card in hand if card[1] == led]
        return tuple(f"play:{card}" for card in follow or hand)

    def apply(self, seat: int, action: str) -> None:
        if seat == CHANCE or self._turn != seat:
            raise NotYourTurn(f"seat {seat} is not to act", seat=seat, action=action)
        kind, _, card = action.partition(":")
        if kind != "play" or card not in DECK:
            raise UnknownAction(f"{action!r} is not play:<card>", seat=seat, action=action)
        if action not in self.legal_actions(seat):
            reason = "must follow suit" if card in self._hands[seat] else f"{card} is not in your hand"
            raise IllegalAction(reason, seat=seat, action=action)
        self._hands[seat].remove(card)
        self._trick.append((seat, card))
        self._records[-1].actions.append((seat, action))
        if len(self._trick) < self.players:
            self._turn = (seat + 1) % self.players
            return
        trump = self._trump_card[1] if self._trump_card else ""
        winner, best = self._trick[0]
        for other, played in self._trick[1:]:
            higher = played[1] == best[1] and RANKS.index(played[0]) > RANKS.index(best[0])
            if higher or (played[1] != best[1] and played[1] == trump):
                winner, best = other, played
        self._tricks[winner] += 1
        self._trick = []
        self._turn = winner
        if not self._hands[winner]:
            self._records[-1].scores = [float(t) for t in self._tricks]
            self._totals = [total + t for total, t in zip(self._totals, self._tricks, strict=True)]
            self._turn = None if len(self._records) >= int(self.options["deals"]) else CHANCE

    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        n = self.players
        dealer = rng.below(n) if self._dealer < 0 else (self._dealer + 1) % n
        deck = list(DECK)
        rng.shuffle(deck)
        hands = [sorted(deck[i * HAND : (i + 1) * HAND], key=DECK.index) for i in range(n)]
        rest = deck[n * HAND :]
        return {"dealer": dealer, "hands": hands, "trump_card": rest[0], "unused": sorted(rest[1:], key=DECK.index)}

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        try:
            dealer = int(outcome["dealer"])
            hands = [[str(card) for card in hand] for hand in outcome["hands"]]
            trump = str(outcome["trump_card"])
            unused = [str(card) for card in outcome["unused"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidChance(f"not a Test Trumps deal: {exc!r}") from None
        cards = sorted([*(card for hand in hands for card in hand), trump, *unused])
        if len(hands) != self.players or cards != sorted(DECK) or any(len(hand) != HAND for hand in hands):
            raise InvalidChance("a deal is 5 cards to each seat, the trump card and the rest, from 24 cards")
        expected = (self._dealer + 1) % self.players if self._dealer >= 0 else dealer
        if dealer != expected or not 0 <= dealer < self.players:
            raise InvalidChance(f"dealer {dealer} does not fit (expected {expected})")
        self._dealer, self._hands, self._trump_card, self._unused = dealer, hands, trump, unused
        self._tricks = [0] * self.players
        self._turn = (dealer + 1) % self.players
        self._records.append(DealRecord(dealer=dealer, chance=dict(outcome)))

    def view(self, seat: int | None) -> TestTrumpsView:
        return TestTrumpsView(self.view_json(seat))

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return {
            "game": self.game.id,
            "seat": seat,
            "players": self.players,
            "to_act": self._turn if self._turn is not None and self._turn >= 0 else None,
            "dealer": self._dealer if self._dealer >= 0 else None,
            "trump_card": self._trump_card,
            "hand": list(self._hands[seat]) if seat is not None else [],
            "trick": [{"seat": s, "card": c} for s, c in self._trick],
            "seats": [
                {"seat": s, "hand_size": len(self._hands[s]), "tricks": self._tricks[s], "score": self._totals[s]}
                for s in range(self.players)
            ],
        }

    def result(self) -> Result:
        return Result(tuple(float(t) for t in self._totals), ranks_from_scores(self._totals))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def secrets(self, seat: int | None) -> frozenset[str]:
        hidden = set(self._unused)
        for other in range(self.players):
            if other != seat:
                hidden.update(self._hands[other])
        return frozenset(hidden)

    def clone(self) -> TestTrumpsState:
        other = type(self)(self.game, self.players, self.options)
        other._records = [record.copy() for record in self._records]
        other._dealer, other._trump_card, other._turn = self._dealer, self._trump_card, self._turn
        other._hands = [list(hand) for hand in self._hands]
        other._unused, other._trick = list(self._unused), list(self._trick)
        other._tricks, other._totals = list(self._tricks), list(self._totals)
        return other

    def invariants(self) -> list[str]:
        if not self._records:
            return []
        played = HAND * self.players - sum(len(hand) for hand in self._hands)
        if sum(self._tricks) * self.players + len(self._trick) != played:
            return [f"{played} cards played, but {sum(self._tricks)} tricks and {len(self._trick)} on the table"]
        return []


class TestTrumps(Game):
    """Static facts and the factory."""

    id: ClassVar[str] = "test_trumps"
    name: ClassVar[str] = "Test Trumps (test fixture)"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    summary: ClassVar[str] = "A test fixture, registered through an entry point: 5 cards each, a turned trump."
    state_class: ClassVar[type[TestTrumpsState]] = TestTrumpsState
    """The state class of its matches (tests register variants of the game with another one)."""

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"deals": 1}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"deals": OptionRange(1, 100)}

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> TestTrumpsState:
        return self.state_class(self, players, self.options(players, options))


GAME = TestTrumps()
