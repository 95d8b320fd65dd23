"""Le Truc: a suitless three-card bluffing and trick-taking game for 2 players or 2 teams of 2.

Rules ("Le Truc rules" of the original rules document and the team's rulings, not distributed
here; ``docs/games/le_truc.md``):

* 32 cards A K Q J 10 9 8 7 (codes ``AC`` ... ``7S``); suits exist on the cards but are
  irrelevant: only the rank counts (A high, 7 low).  4 players play in two teams, partners
  opposite: seats 0/2 against 1/3.  With 2 players each seat is its own side.
* Each round the dealer deals 3 cards to each player; the player left of the dealer leads the
  first trick; play goes clockwise; any card may be played; the highest rank wins the trick
  and its winner leads the next.  If the highest cards are tied nobody wins the trick and its
  leader leads again.
* A side that wins two tricks wins the round at once (the other cards go back unseen).  After
  three tricks the side with more tricks won wins the round; equal: nobody scores.
* Re-deal: before the first card of the round the first leader may propose a re-deal
  (``redeal``), also after a double (a double is not a card); the dealer accepts (``accept``:
  new hands are dealt) or refuses (``refuse``).  At most one re-deal per round.
* Doubling: before playing a card a player may offer to double (``double``).  The other side
  answers (with teams: the next opponent in turn order, i.e. the seat to the offerer's left):
  ``accept`` doubles the round's value (1, 2, 4, 8, 16) and the offerer then plays;
  ``decline`` ends the round and the offerer's side scores the value before the offer.  Once a
  double was accepted only the accepting side may offer the next one.
* The round winner's side scores the round's value in full.  Race to 16 (option ``target``):
  the match ends after a round in which a side has 16 or more; the higher side wins, equal
  totals share.  Option ``deals`` (> 0) plays exactly that many rounds instead.
* Team table talk: with 4 players the seat to act may also send a public message
  ``say:<phrase>`` from a fixed list (:data:`PHRASES`); it is shown to every seat, has no
  effect on the rules and does not pass the turn (the same seat is still asked to act), at most
  once per seat per trick.

Rulings made here where the seed and the rulings are silent:

* At most one re-deal *proposal* per round: a refused proposal closes the window (otherwise
  propose/refuse could repeat forever).  After a re-deal the same leader leads, and the round
  keeps its value and the cube (a double accepted before the re-deal stands).
* A tie for the highest card voids the trick even between partners.
* The round value stops at 16 (the seed's "2, 4, 8, 16"): no double is offered beyond it.
  With the default target a round worth 16 decides the match from any score; a higher
  ``target`` option does not raise the cap.
* A trick counts for the one-``say``-per-trick cap even when it is tied; the re-deal and the
  answers to a double belong to the trick in progress.
* The first dealer is drawn by the match RNG; the deal passes to the left after each round.
"""

from __future__ import annotations

import json
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

RANKS = "789TJQKA"
"""Rank letters from low (7) to high (ace)."""
SUITS = "CDHS"
CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
"""Card index (``suit * 8 + rank``) to card code."""
INDEX: dict[str, int] = {c: i for i, c in enumerate(CODES)}
"""Card code to card index."""
FULL = (1 << 32) - 1
MAX_VALUE = 16
"""The round value stops here."""
PHRASES: tuple[str, ...] = (
    "strong",
    "weak",
    "have_ace",
    "have_high",
    "double",
    "no_double",
    "play_high",
    "play_low",
    "trust_me",
)
"""The fixed phrases of ``say:<phrase>`` (team play only)."""
PHRASE_LABELS: dict[str, str] = {
    "strong": "I have a strong hand",
    "weak": "I have a weak hand",
    "have_ace": "I have an ace",
    "have_high": "I have a high card",
    "double": "let's double",
    "no_double": "don't double",
    "play_high": "play high",
    "play_low": "play low",
    "trust_me": "trust me",
}
OVER = -2

PLAY, ANSWER_DOUBLE, ANSWER_REDEAL = "play", "double_offered", "redeal_offered"


def _rank(card: int) -> int:
    return card % 8


def codes_of(mask: int) -> list[str]:
    """Card codes of a 32-bit mask."""
    return [CODES[i] for i in range(32) if mask >> i & 1]


def _label(code: str) -> str:
    return ("10" if code[0] == "T" else code[0]) + {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}[code[1]]


def _suit_plays(suit: int) -> tuple[tuple[str, ...], ...]:
    """Per 8-bit mask of one suit's ranks, its ``play:<card>`` ids from low to high."""
    return tuple(tuple("play:" + CODES[8 * suit + r] for r in range(8) if mask >> r & 1) for mask in range(256))


_PLAYS: tuple[tuple[tuple[str, ...], ...], ...] = tuple(_suit_plays(s) for s in range(4))
_SEAT: tuple[tuple[int, ...], ...] = tuple((s,) for s in range(4))
_CHANCE_ONLY: tuple[int, ...] = (CHANCE,)
_ACCEPT_DECLINE: tuple[str, ...] = ("accept", "decline")
_ACCEPT_REFUSE: tuple[str, ...] = ("accept", "refuse")
_REDEAL: tuple[str, ...] = ("redeal",)
_DOUBLE: tuple[str, ...] = ("double",)
_SAYS: tuple[str, ...] = tuple("say:" + p for p in PHRASES)


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """A completed trick of the round."""

    number: int
    leader: int
    cards: tuple[tuple[int, str], ...]
    winner: int | None

    def to_json(self, players: int) -> dict[str, JSON]:
        return {
            "number": self.number,
            "leader": self.leader,
            "cards": [{"seat": s, "card": c} for s, c in self.cards],
            "winner": self.winner,
            "winner_team": None if self.winner is None else self.winner % (2 if players == 4 else players),
        }


class LeTrucView(FieldsView):
    """What one seat (or a spectator, ``seat is None``) sees.

    Built as one snapshot tuple of immutable state values (the state replaces its tuples rather
    than changing them); fields are decoded on access, so building a view is cheap.
    """

    __slots__ = ("_s", "seat")
    _FIELDS = (
        "game",
        "seat",
        "players",
        "to_act",
        "phase",
        "dealer",
        "deal_number",
        "hand",
        "leader",
        "trick_number",
        "trick",
        "tricks",
        "value",
        "offered_by",
        "offered_value",
        "double_holder",
        "redeal_proposed",
        "redealt",
        "redeal_open",
        "talk",
        "hand_sizes",
        "team_tricks",
        "team_scores",
        "team_deal_scores",
        "target",
        "deals",
    )

    def __init__(self, state: LeTrucState, seat: int | None) -> None:
        self.seat = seat
        self._s = (
            state,
            state._turn,
            state._phase,
            state._dealer,
            len(state._records),
            state._hands,
            state._leader,
            state._trick,
            state._tricks,
            state._value,
            state._offer,
            state._holder,
            state._redeal_proposed,
            state._redealt,
            state._talk,
            state._team_tricks,
            state._totals,
            state._last_scores,
            state._redeal_open,
        )

    @property
    def game(self) -> str:
        """The game id."""
        return str(self._s[0].game.id)

    @property
    def players(self) -> int:
        """Number of seats."""
        return int(self._s[0].players)

    @property
    def to_act(self) -> int | None:
        """The seat to act, or ``None`` (chance, or over)."""
        turn: int = self._s[1]
        return turn if turn >= 0 else None

    @property
    def phase(self) -> str:
        """``play``, ``double_offered``, ``redeal_offered``, ``chance`` or ``over``."""
        turn: int = self._s[1]
        phase: str = self._s[2]
        return phase if turn >= 0 else ("chance" if turn == CHANCE else "over")

    @property
    def dealer(self) -> int:
        """The dealer of the current round."""
        return int(self._s[3])

    @property
    def deal_number(self) -> int:
        """How many rounds have been dealt."""
        return int(self._s[4])

    @property
    def hand(self) -> tuple[str, ...]:
        """The seat's own hand (empty for a spectator)."""
        seat = self.seat
        return tuple(codes_of(self._s[5][seat])) if seat is not None else ()

    @property
    def leader(self) -> int:
        """The seat that leads (led) the current trick."""
        return int(self._s[6])

    @property
    def trick_number(self) -> int:
        """The number of the current trick (1 to 3)."""
        return len(self._s[8]) + 1

    @property
    def trick(self) -> tuple[tuple[int, str], ...]:
        """The trick in progress as ``(seat, card)``."""
        return tuple((s, CODES[c]) for s, c in self._s[7])

    @property
    def tricks(self) -> tuple[TrickRecord, ...]:
        """The completed tricks of the round."""
        tricks: tuple[TrickRecord, ...] = self._s[8]
        return tricks

    @property
    def value(self) -> int:
        """What the round is worth."""
        return int(self._s[9])

    @property
    def offered_by(self) -> int | None:
        """The seat offering a double, if one is offered."""
        offer: int = self._s[10]
        return offer if offer >= 0 else None

    @property
    def offered_value(self) -> int | None:
        """The value the round would have if the double is accepted."""
        return 2 * int(self._s[9]) if self._s[10] >= 0 else None

    @property
    def double_holder(self) -> int | None:
        """The side that accepted the last double."""
        holder: int = self._s[11]
        return holder if holder >= 0 else None

    @property
    def redeal_proposed(self) -> bool:
        """Whether a re-deal is proposed (and awaits an answer)."""
        return bool(self._s[12])

    @property
    def redealt(self) -> bool:
        """Whether the round was re-dealt."""
        return bool(self._s[13])

    @property
    def redeal_open(self) -> bool:
        """Whether the first leader may still propose a re-deal this round (no card played
        and no proposal made yet: one proposal per round, accepted or refused); false once the
        round is over."""
        return bool(self._s[18]) and self._s[1] >= 0

    @property
    def talk(self) -> tuple[tuple[int, str, int], ...]:
        """Table talk of the round as ``(seat, phrase, trick)``."""
        talk: tuple[tuple[int, str, int], ...] = self._s[14]
        return talk

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards in each seat's hand."""
        return tuple(h.bit_count() for h in self._s[5])

    @property
    def team_tricks(self) -> tuple[int, ...]:
        """Per side, tricks won this round."""
        won: tuple[int, ...] = self._s[15]
        return won

    @property
    def team_scores(self) -> tuple[int, ...]:
        """Per side, the match total."""
        totals: tuple[int, ...] = self._s[16]
        return totals

    @property
    def team_deal_scores(self) -> tuple[int, ...]:
        """Per side, the previous round's score."""
        last: tuple[int, ...] = self._s[17]
        return last

    @property
    def target(self) -> int:
        """The total that ends the match."""
        return int(self._s[0]._target)

    @property
    def deals(self) -> int:
        """A fixed number of rounds (0: play to the target)."""
        return int(self._s[0]._deals)

    def to_json(self) -> dict[str, JSON]:
        """Proto-compatible JSON (field names as in ``view_le_truc.proto``)."""
        n = self.players
        sides = len(self.team_scores)
        return {
            "game": self.game,
            "seat": self.seat,
            "players": n,
            "to_act": self.to_act,
            "phase": self.phase,
            "dealer": self.dealer,
            "deal_number": self.deal_number,
            "hand": list(self.hand),
            "leader": self.leader,
            "trick_number": self.trick_number,
            "trick": [{"seat": s, "card": c} for s, c in self.trick],
            "tricks": [t.to_json(n) for t in self.tricks],
            "value": self.value,
            "offered_by": self.offered_by,
            "offered_value": self.offered_value,
            "double_holder_team": self.double_holder,
            "redeal_proposed": self.redeal_proposed,
            "redealt": self.redealt,
            "redeal_open": self.redeal_open,
            "talk": [{"seat": s, "phrase": p, "trick": t} for s, p, t in self.talk],
            "target": self.target,
            "deals": self.deals,
            "teams": [
                {
                    "team": t,
                    "seats": [s for s in range(n) if s % sides == t],
                    "tricks_won": self.team_tricks[t],
                    "score": self.team_scores[t],
                    "deal_score": self.team_deal_scores[t],
                }
                for t in range(sides)
            ],
            "seats": [
                {
                    "seat": s,
                    "team": s % sides,
                    "hand_size": self.hand_sizes[s],
                    "score": self.team_scores[s % sides],
                }
                for s in range(n)
            ],
        }


class LeTruc(Game):
    """Le Truc for 2 players or two teams of two."""

    id: ClassVar[str] = "le_truc"
    name: ClassVar[str] = "Le Truc"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4

    @property
    def player_counts(self) -> tuple[int, ...]:
        """2 players, or 4 in two teams; 3 is not a Le Truc table."""
        return (2, 4)

    summary: ClassVar[str] = (
        "Suitless bluffing trick-taker with 3 cards each (A high, 7 low), 2 players or two teams: "
        "win 2 of 3 tricks, offer to double the round's value (backgammon-cube style), "
        "propose a re-deal. First side to 16 wins."
    )

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"target": 16, "deals": 0}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"target": OptionRange(1, 1000), "deals": OptionRange(0, 1000, "0: play to the target")}

    def teams(self, players: int, options: Mapping[str, JSON]) -> tuple[int, ...] | None:
        return (0, 1, 0, 1) if players == 4 else None

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> LeTrucState:
        return LeTrucState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        kind, _, arg = action.partition(":")
        if kind == "play" and arg in INDEX:
            return ActionInfo(id=action, kind="play", label="play " + _label(arg), cards=(arg,))
        if action == "double":
            return ActionInfo(id=action, kind="double", label="offer to double the round's value")
        if action in ("accept", "refuse", "decline"):
            label = {"accept": "accept", "refuse": "refuse the re-deal", "decline": "decline the double"}[action]
            return ActionInfo(id=action, kind=action, label=label, choice=action)
        if action == "redeal":
            return ActionInfo(id=action, kind="redeal", label="propose a re-deal")
        if kind == "say" and arg in PHRASE_LABELS:
            return ActionInfo(id=action, kind="say", label=f'say "{PHRASE_LABELS[arg]}"', choice=arg)
        return super().describe(action)


class LeTrucState(State):
    """A Le Truc match."""

    def __init__(self, game: LeTruc, players: int, options: dict[str, JSON]) -> None:
        self.game = game
        self.players = players
        self.options = options
        self._target = int(options["target"])
        self._deals = int(options["deals"])
        self._dealer = -1
        self._turn = CHANCE
        self._phase = PLAY
        # Tuples are replaced, never changed in place: views reference them.
        self._hands: tuple[int, ...] = (0,) * players
        self._undealt = 0
        self._leader = -1
        self._trick: tuple[tuple[int, int], ...] = ()
        self._tricks: tuple[TrickRecord, ...] = ()
        self._sides = 2 if players == 4 else players
        self._team_tricks: tuple[int, ...] = (0,) * self._sides
        self._value = 1
        self._holder = -1
        self._offer = -1
        self._redeal_open = False
        self._redealt = False
        self._redeal_proposed = False
        self._redeal_wait = False
        self._talk: tuple[tuple[int, str, int], ...] = ()
        self._said = [-1] * players
        self._totals: tuple[int, ...] = (0,) * self._sides
        self._last_scores: tuple[int, ...] = (0,) * self._sides
        self._records: list[DealRecord] = []
        self._actions: list[tuple[int, str]] = []
        self._legal: tuple[int, tuple[str, ...]] | None = None
        """The last answer of legal_actions (seat, actions); reset whenever the state changes."""
        self._sampled: tuple[Mapping[str, JSON], tuple[int, ...], int] | None = None
        """The deal this state just sampled (the outcome, hands and undealt masks), known to be valid."""

    # ----------------------------------------------------------------- queries
    def to_act(self) -> tuple[int, ...]:
        t = self._turn
        if t >= 0:
            return _SEAT[t]
        return _CHANCE_ONLY if t == CHANCE else ()

    def _trick_number(self) -> int:
        return len(self._tricks) + 1

    def _can_double(self, seat: int) -> bool:
        return self._value < MAX_VALUE and (self._holder < 0 or self._holder == seat % self._sides)

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
        out: tuple[str, ...]
        if self._phase == ANSWER_DOUBLE:
            out = _ACCEPT_DECLINE
        elif self._phase == ANSWER_REDEAL:
            out = _ACCEPT_REFUSE
        else:
            out = _REDEAL if self._redeal_open else ()
            if self._can_double(seat):
                out += _DOUBLE
            hand = self._hands[seat]
            out += _PLAYS[0][hand & 0xFF] + _PLAYS[1][hand >> 8 & 0xFF]
            out += _PLAYS[2][hand >> 16 & 0xFF] + _PLAYS[3][hand >> 24 & 0xFF]
        if self.players == 4 and self._said[seat] != self._trick_number():
            out += _SAYS
        return out

    def view(self, seat: int | None) -> LeTrucView:
        if seat is not None and not 0 <= seat < self.players:
            raise IllegalAction(f"no seat {seat} in a {self.players}-player match")
        return LeTrucView(self, seat)

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return self.view(seat).to_json()

    def result(self) -> Result:
        if self._turn != OVER:
            raise IllegalAction("the match is not over")
        scores = tuple(float(self._totals[s % self._sides]) for s in range(self.players))
        return Result(scores, ranks_from_scores(scores))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def clone(self) -> LeTrucState:
        other = object.__new__(LeTrucState)
        other.__dict__.update(self.__dict__)
        other._said = list(self._said)
        other._records = [r.copy() for r in self._records]
        other._actions = other._records[-1].actions if other._records else []
        return other

    # ------------------------------------------------------------------ chance
    def _redeal_pending(self) -> bool:
        return self._redeal_wait

    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        n = self.players
        redeal = self._redeal_pending()
        dealer = self._dealer if redeal else rng.below(n) if self._dealer < 0 else (self._dealer + 1) % n
        deck = list(range(32))
        rng.shuffle(deck)
        # One card at a time clockwise from the dealer's left.
        hands: list[list[str]] = [[] for _ in range(n)]
        for i in range(3 * n):
            hands[(dealer + 1 + i) % n].append(CODES[deck[i]])
        outcome: dict[str, JSON] = {
            "dealer": dealer,
            "hands": [sorted(h, key=INDEX.__getitem__) for h in hands],
            "undealt": [CODES[c] for c in deck[3 * n :]],
        }
        if redeal:
            outcome = {"redeal": True, **outcome}
        masks = [0] * n
        for i in range(3 * n):
            masks[(dealer + 1 + i) % n] |= 1 << deck[i]
        undealt = 0
        for c in deck[3 * n :]:
            undealt |= 1 << c
        self._sampled = (outcome, tuple(masks), undealt)
        return outcome

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        if self._turn != CHANCE:
            raise InvalidChance("no chance outcome is pending")
        self._legal = None
        n = self.players
        redeal = self._redeal_pending()
        sampled = self._sampled
        self._sampled = None
        if sampled is not None and sampled[0] is outcome:
            # The deal this state just sampled itself: already known to be valid.
            dealer = outcome["dealer"]
            assert isinstance(dealer, int)
            self._hands = sampled[1]
            self._undealt = sampled[2]
        else:
            if bool(outcome.get("redeal", False)) != redeal:
                raise InvalidChance("expected a re-deal" if redeal else "expected a new round's deal, not a re-deal")
            try:
                dealer = outcome["dealer"]
                hands = [[INDEX[c] for c in h] for h in outcome["hands"]]
                undealt = [INDEX[c] for c in outcome["undealt"]]
            except (KeyError, TypeError) as exc:
                raise InvalidChance(f"malformed deal: {exc!r}") from None
            if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n:
                raise InvalidChance(f"bad dealer {dealer!r}")
            expected = self._dealer if redeal else (self._dealer + 1) % n if self._dealer >= 0 else dealer
            if dealer != expected:
                raise InvalidChance(f"dealer {dealer} does not fit (expected {expected})")
            if len(hands) != n or any(len(h) != 3 for h in hands) or len(undealt) != 32 - 3 * n:
                raise InvalidChance("a deal is 3 cards per player and the rest undealt")
            if len({c for h in hands for c in h} | set(undealt)) != 32:
                raise InvalidChance("the deal does not hold each of the 32 cards exactly once")
            self._hands = tuple(sum(1 << c for c in h) for h in hands)
            self._undealt = sum(1 << c for c in undealt)
        if redeal:
            self._actions.append((CHANCE, json.dumps(dict(outcome), sort_keys=True)))
            self._redeal_wait = False
            self._turn = self._leader
            return
        self._dealer = dealer
        self._leader = (dealer + 1) % n
        self._turn = self._leader
        self._phase = PLAY
        self._trick = ()
        self._tricks = ()
        self._team_tricks = (0,) * self._sides
        self._value = 1
        self._holder = -1
        self._offer = -1
        self._redeal_open = True
        self._redealt = False
        self._redeal_proposed = False
        self._talk = ()
        self._said = [-1] * n
        record = DealRecord(dealer=dealer, chance=dict(outcome))
        self._records.append(record)
        self._actions = record.actions

    # ------------------------------------------------------------------ action
    def _why_not(self, seat: int, action: str) -> IllegalAction | None:
        if self._turn == OVER:
            return NotYourTurn("the match is over", seat=seat, action=action)
        if seat != self._turn:
            whom = "a chance outcome (the deal)" if self._turn == CHANCE else f"seat {self._turn}"
            return NotYourTurn(f"it is not your turn: waiting for {whom}", seat=seat, action=action)
        kind, _, arg = action.partition(":")
        phase = self._phase
        if kind == "say" and arg in PHRASE_LABELS:
            if self.players != 4:
                return IllegalAction("table talk (say) is for team play with 4 players", seat=seat, action=action)
            if self._said[seat] == self._trick_number():
                return IllegalAction("you already spoke during this trick", seat=seat, action=action)
            return None
        if action in ("accept", "decline", "refuse"):
            if phase == ANSWER_DOUBLE and action != "refuse":
                return None
            if phase == ANSWER_REDEAL and action != "decline":
                return None
            if phase == PLAY:
                return IllegalAction(f"nothing to {action}: play a card or double", seat=seat, action=action)
            want = "accept or decline the double" if phase == ANSWER_DOUBLE else "accept or refuse the re-deal"
            return IllegalAction(f"{action} does not answer this: {want}", seat=seat, action=action)
        if action in ("double", "redeal") or (kind == "play" and arg in INDEX):
            if phase != PLAY:
                want = "accept or decline the double" if phase == ANSWER_DOUBLE else "accept or refuse the re-deal"
                return IllegalAction(f"answer first: {want}", seat=seat, action=action)
            if action == "redeal":
                if self._redeal_open:
                    return None
                if self._redealt:
                    why = "only one re-deal per round"
                elif self._trick or self._tricks:
                    why = "a re-deal is proposed only by the first leader, before the first card"
                else:
                    why = "only one re-deal proposal per round (the dealer refused it)"
                return IllegalAction(why, seat=seat, action=action)
            if action == "double":
                if self._value >= MAX_VALUE:
                    return IllegalAction(f"the round is already worth {MAX_VALUE}", seat=seat, action=action)
                if not self._can_double(seat):
                    return IllegalAction(
                        "only the side that accepted the last double may offer the next", seat=seat, action=action
                    )
                return None
            if not self._hands[seat] >> INDEX[arg] & 1:
                return IllegalAction(f"{arg} is not in your hand", seat=seat, action=action)
            return None
        return UnknownAction(
            f"unknown action {action!r}: expected play:<card> (e.g. play:AH), double, accept, decline, redeal, "
            "refuse" + (" or say:<phrase>" if self.players == 4 else ""),
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
        self._actions.append((seat, action))
        kind, _, arg = action.partition(":")
        n = self.players
        if kind == "say":
            self._said[seat] = self._trick_number()
            self._talk = self._talk + ((seat, arg, self._trick_number()),)
            return
        if self._phase == ANSWER_REDEAL:
            self._phase = PLAY
            self._redeal_proposed = False
            if action == "accept":
                self._redealt = True
                self._redeal_wait = True
                self._turn = CHANCE
            else:
                self._turn = self._leader
            return
        if self._phase == ANSWER_DOUBLE:
            offerer = self._offer
            self._offer = -1
            self._phase = PLAY
            if action == "accept":
                self._value *= 2
                self._holder = seat % self._sides
                self._turn = offerer
            else:
                scores = [0] * self._sides
                scores[offerer % self._sides] = self._value
                self._finish_round(scores)
            return
        if action == "redeal":
            self._redeal_open = False
            self._redeal_proposed = True
            self._phase = ANSWER_REDEAL
            self._turn = self._dealer
            return
        if action == "double":
            # A double is not a card: the first leader's re-deal stays open (rulings).
            self._offer = seat
            self._phase = ANSWER_DOUBLE
            self._turn = (seat + 1) % n
            return
        self._redeal_open = False
        card = INDEX[arg]
        hands = self._hands
        self._hands = hands[:seat] + (hands[seat] & ~(1 << card),) + hands[seat + 1 :]
        trick = self._trick = self._trick + ((seat, card),)
        if len(trick) < n:
            self._turn = (seat + 1) % n
            return
        self._finish_trick()

    def _finish_trick(self) -> None:
        trick = self._trick
        top = max(_rank(c) for _, c in trick)
        best = [s for s, c in trick if _rank(c) == top]
        winner = best[0] if len(best) == 1 else None
        self._tricks = self._tricks + (
            TrickRecord(len(self._tricks) + 1, self._leader, tuple((s, CODES[c]) for s, c in trick), winner),
        )
        self._trick = ()
        if winner is not None:
            side = winner % self._sides
            won = self._team_tricks
            self._team_tricks = won[:side] + (won[side] + 1,) + won[side + 1 :]
            self._leader = winner
        won = self._team_tricks
        if max(won) >= 2 or len(self._tricks) == 3:
            scores = [0] * self._sides
            top = max(won)
            if won.count(top) == 1:
                scores[won.index(top)] = self._value
            self._finish_round(scores)
            return
        self._turn = self._leader

    def _finish_round(self, team_scores: list[int]) -> None:
        for h in self._hands:
            self._undealt |= h
        self._hands = (0,) * self.players
        self._last_scores = tuple(team_scores)
        self._totals = tuple([t + s for t, s in zip(self._totals, team_scores, strict=True)])
        self._records[-1].scores = [float(team_scores[s % self._sides]) for s in range(self.players)]
        over = len(self._records) >= self._deals if self._deals else max(self._totals) >= self._target
        self._turn = OVER if over else CHANCE

    # -------------------------------------------------------------- invariants
    def invariants(self) -> list[str]:
        problems: list[str] = []
        if not self._records:
            return problems
        zones = [*self._hands, self._undealt]
        zones += [1 << c for _, c in self._trick]
        zones += [1 << INDEX[c] for t in self._tricks for _, c in t.cards]
        seen = 0
        for z in zones:
            seen |= z
        if seen != FULL or sum(z.bit_count() for z in zones) != 32:
            problems.append("cards not conserved")
        if self._value not in (1, 2, 4, 8, 16):
            problems.append(f"round value {self._value} is not a power of two up to 16")
        if sum(self._team_tricks) != sum(1 for t in self._tricks if t.winner is not None):
            problems.append("team tricks do not match the tricks won")
        if self._turn >= 0 and self._phase == PLAY:
            played = len(self._tricks)
            in_trick = {s for s, _ in self._trick}
            for s, h in enumerate(self._hands):
                if h.bit_count() != 3 - played - (1 if s in in_trick else 0):
                    problems.append(f"seat {s} holds {h.bit_count()} cards")
        if any(
            v > 1
            for v in (
                sum(1 for s, _, t in self._talk if s == seat and t == tn)
                for seat in range(self.players)
                for tn in (1, 2, 3)
            )
        ):
            problems.append("more than one say per seat per trick")
        return problems

    def secrets(self, seat: int | None) -> frozenset[str]:
        if not self._records:
            return frozenset()
        hidden = self._undealt
        for other, hand in enumerate(self._hands):
            if other != seat:
                hidden |= hand
        return frozenset(codes_of(hidden))


GAME = LeTruc()
