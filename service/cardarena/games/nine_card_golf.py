"""Nine Card Golf: 2 to 6 players draw and discard to minimise a 3x3 grid, over 4 rounds.

Rules (the "Nine Card Golf" page of the original rules document and the team's rulings, not distributed
here; ``docs/games/nine_card_golf.md``):

* One deck of 54 cards (52 + 2 jokers) for 2-3 players, two such decks (108 cards) for 4-6.
  Each player gets 9 cards face down as a 3x3 grid; the next card starts the face-up discard
  pile, the rest is the face-down draw pile.
* Opening: every player flips 3 cards of their grid.  The choice is **simultaneous and
  secret**: ``to_act()`` lists every seat that still has to choose (``open:a:b:c``), and no
  card is turned (for anyone, the chooser included) until all have chosen.
* A turn, from the starting player clockwise: either ``take:<pos>`` (the top discard replaces
  grid card ``pos``, face up; the replaced card is discarded face up), or ``draw`` (look at
  the top of the draw pile, only the drawer sees it) and then ``swap:<pos>`` (as ``take``) or
  ``discard`` (the drawn card goes face up on the discard pile), after which the player may
  ``flip:<pos>`` one face-down card or ``keep`` (flip nothing).  Face-up and face-down grid
  cards may be replaced; a new card always lies face up.
* A player whose grid is all face up at the end of their turn ends the round: every other
  player gets one more turn, clockwise, then the round is scored.
* Scoring: all cards are turned.  A 1, 2-10 face value, J and Q 10, K 0, joker -2.  A card
  orthogonally adjacent to a card of the same rank scores 0.  Four cards of the same rank in a
  2x2 block score -10 together (and not also 0 each).  The player who ended the round gets
  +10 if their score is strictly higher than the round's lowest score (ruling).
* 4 rounds (option ``deals``); the player with the most points in a round starts the next.
  Lowest total wins; equal totals share the place.

Rulings made here (the seed and ``rulings.md`` are silent):

* **Same value means same rank.**  Matching (adjacency and 2x2 blocks) compares ranks: two
  jacks match, a jack and a queen (both 10 points) do not, two jokers match (and then score
  0 each, like any adjacent pair).  Jokers form one rank.
* **One 2x2 block at most.**  Every 2x2 block of a 3x3 grid holds the centre card, and a
  card belongs to one block only, so at most one block scores -10; the other equal cards
  around it touch a block card and score 0.  (Two blocks are only possible with two decks.)
* **Who starts.**  The first dealer is drawn by chance and the player to the dealer's left
  starts round 1; the deal passes left each round.  Later rounds: the player with the highest
  score of the previous round (ender penalty included) starts; a tie goes to the tied seat
  first clockwise from the new dealer's left.
* **Draw pile refill.**  When the draw pile is empty at the end of a turn, all discards but the
  top one are shuffled into a new draw pile (a chance node) before the next turn.
* **Turn limit** (for bot matches, which must terminate).  If nobody has ended a round after
  ``turn_limit`` turns per player (option, default 30), the round is scored at once, with no
  ender and no penalty.
* ``take`` must place the card (it cannot go straight back to the discard pile).  ``flip`` is
  offered only after ``discard``; the opening flip needs three different positions.

Card codes: the standard ``<rank><suit>`` codes, ``XR`` for the red joker and ``XB`` for the
black joker.  With two decks every face exists twice; inside the rules each physical card is
``copy * 54 + face`` (face 0-51 the standard index, 52 ``XR``, 53 ``XB``), and views and
chance outcomes show faces only (a duplicate simply appears twice, e.g. two ``7H`` in the
discard pile).  When an outcome names a face twice, its first occurrence is copy 0.

Grid positions are 0-8, row by row: ``0 1 2 / 3 4 5 / 6 7 8``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import ClassVar

from ..engine.cards import CODES, label
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

FACES: tuple[str, ...] = (*CODES, "XR", "XB")
"""Face index (0-53) to card code; 52 and 53 are the red and the black joker."""
FACE_INDEX: dict[str, int] = {c: i for i, c in enumerate(FACES)}
DECK_SIZE = 54
JOKER_RANK = 13
RANK_OF: tuple[int, ...] = tuple(f % 13 if f < 52 else JOKER_RANK for f in range(DECK_SIZE))
"""Face index to its matching rank (0 = two .. 12 = ace, 13 = joker)."""
RANK_VALUE: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 0, 1, -2)
"""Matching rank to points: 2-10 face value, J Q 10, K 0, A 1, joker -2."""
BLOCKS: tuple[tuple[int, int, int, int], ...] = ((0, 1, 3, 4), (1, 2, 4, 5), (3, 4, 6, 7), (4, 5, 7, 8))
"""The four 2x2 blocks of the grid."""
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(q for q in range(9) if (abs(q // 3 - p // 3) + abs(q % 3 - p % 3)) == 1) for p in range(9)
)
"""Orthogonal neighbours of each grid position."""
ALL_UP = (1 << 9) - 1
ENDER_PENALTY = 10
BLOCK_SCORE = -10

OPEN_ACTIONS: tuple[str, ...] = tuple(f"open:{a}:{b}:{c}" for a, b, c in itertools.combinations(range(9), 3))
_OPEN_POS: dict[str, tuple[int, int, int]] = {
    f"open:{a}:{b}:{c}": (a, b, c) for a, b, c in itertools.combinations(range(9), 3)
}
TAKE_ACTIONS: tuple[str, ...] = tuple(f"take:{p}" for p in range(9))
SWAP_ACTIONS: tuple[str, ...] = tuple(f"swap:{p}" for p in range(9))
FLIP_ACTIONS: tuple[str, ...] = tuple(f"flip:{p}" for p in range(9))
_POS_ACTION: dict[str, tuple[str, int]] = {
    a: (a.partition(":")[0], int(a.partition(":")[2])) for a in TAKE_ACTIONS + SWAP_ACTIONS + FLIP_ACTIONS
}
CHOOSE_ACTIONS: tuple[str, ...] = ("draw", *TAKE_ACTIONS)
DRAWN_ACTIONS: tuple[str, ...] = (*SWAP_ACTIONS, "discard")

_SEAT: tuple[tuple[int, ...], ...] = tuple((s,) for s in range(8))
_CHANCE_ONLY: tuple[int, ...] = (CHANCE,)
_FLIPS: tuple[tuple[str, ...], ...] = tuple(
    (*(FLIP_ACTIONS[p] for p in range(9) if not up >> p & 1), "keep") for up in range(1 << 9)
)
"""Face-up mask of a grid to the flip step's actions."""

# Steps of a round.
_OPENING, _CHOOSE, _DRAWN, _FLIP = "opening", "choose", "drawn", "flip"
_DEAL, _RESHUFFLE, _OVER = "deal", "reshuffle", "over"


def card_label(code: str) -> str:
    """A human label for a card code (jokers included)."""
    if code == "XR":
        return "red joker"
    if code == "XB":
        return "black joker"
    return label(code)


def score_ranks(ranks: Sequence[int]) -> int:
    """The score of a grid given as 9 matching ranks (see :data:`RANK_OF`)."""
    block: tuple[int, int, int, int] | None = None
    for b in BLOCKS:
        r = ranks[b[0]]
        if ranks[b[1]] == r and ranks[b[2]] == r and ranks[b[3]] == r:
            block = b
            break
    total = BLOCK_SCORE if block is not None else 0
    for p in range(9):
        if block is not None and p in block:
            continue
        r = ranks[p]
        if any(ranks[q] == r for q in NEIGHBOURS[p]):
            continue
        total += RANK_VALUE[r]
    return total


def score_grid(codes: Sequence[str]) -> int:
    """The score of a grid of 9 card codes, positions row by row."""
    if len(codes) != 9:
        raise ValueError("a grid holds 9 cards")
    return score_ranks([RANK_OF[FACE_INDEX[c]] for c in codes])


class GolfView(SnapshotView):
    """What one seat (or a spectator) sees; :meth:`to_json` is the wire form.

    Built as a snapshot tuple (copies of the few mutable pieces); the data is decoded on first
    access, so building a view is cheap.
    """

    def _decode(self) -> dict[str, JSON]:
        (
            state,
            seat,
            to_act,
            step,
            round_,
            dealer,
            starter,
            turn,
            ender,
            final_left,
            turns,
            draw_size,
            discard,
            drawn,
            pending,
            grids,
            ups,
            totals,
            history,
        ) = self._s
        n = state.players
        opened = {s for s, _ in pending}
        seats: list[JSON] = []
        for s in range(n):
            grid: list[JSON] = []
            up = ups[s]
            cards = grids[s] if grids else []
            for p in range(9):
                face_up = bool(cards) and bool(up >> p & 1)
                grid.append({"pos": p, "card": FACES[cards[p] % DECK_SIZE] if face_up else None, "face_up": face_up})
            visible = score_ranks([RANK_OF[cards[p] % DECK_SIZE] for p in range(9)]) if cards and up == ALL_UP else None
            seats.append(
                {
                    "seat": s,
                    "grid": grid,
                    "face_down": 9 - up.bit_count() if cards else 0,
                    "opened": step != _OPENING or s in opened,
                    "grid_score": visible,
                    "total": totals[s],
                    "round_scores": list(history[s]),
                }
            )
        opening: list[JSON] = list(dict(pending).get(seat, ())) if seat is not None else []
        data: dict[str, JSON] = {
            "game": state.game.id,
            "seat": seat,
            "players": n,
            "to_act": [s for s in to_act if s >= 0],
            "phase": step,
            "round": round_,
            "rounds": state._rounds,
            "decks": state._decks,
            "dealer": dealer if dealer >= 0 else None,
            "starter": starter if starter >= 0 else None,
            "turn": turn if turn >= 0 else None,
            "ender": ender if ender >= 0 else None,
            "final_turns_left": final_left,
            "turns_played": turns,
            "turn_limit": state._turn_limit,
            "draw_pile_size": draw_size,
            "discard_top": FACES[discard[-1] % DECK_SIZE] if discard else None,
            "discard_pile": [FACES[c % DECK_SIZE] for c in discard],
            "drawn_card": (FACES[drawn % DECK_SIZE] if drawn >= 0 and seat is not None and seat == turn else None),
            "my_opening": opening,
            "seats": seats,
        }
        self._data = data
        return data


class NineCardGolf(Game):
    """Nine Card Golf, 2-6 players, 4 rounds, lowest total wins."""

    id: ClassVar[str] = "nine_card_golf"
    name: ClassVar[str] = "Nine Card Golf"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    higher_is_better: ClassVar[bool] = False
    summary: ClassVar[str] = (
        "Golf for 2-6: a face-down 3x3 grid, three cards flipped at once by everybody; draw or "
        "take the discard to replace grid cards. Adjacent equal ranks score 0, a 2x2 block of "
        "equal ranks -10, jokers -2, kings 0. Revealing your whole grid ends the round (+10 "
        "if you are not lowest). Lowest total after 4 rounds wins."
    )

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"deals": 4, "turn_limit": 30}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"deals": OptionRange(1, 1000), "turn_limit": OptionRange(1, 1000)}

    def decks(self, players: int) -> int:
        """How many 54-card decks a match of ``players`` uses."""
        return 1 if players <= 3 else 2

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> GolfState:
        return GolfState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        if action == "draw":
            return ActionInfo(id=action, kind="draw", label="draw from the draw pile")
        if action == "discard":
            return ActionInfo(id=action, kind="discard", label="discard the drawn card")
        if action == "keep":
            return ActionInfo(id=action, kind="keep", label="flip nothing")
        pos = _POS_ACTION.get(action)
        if pos is not None:
            kind, p = pos
            what = {
                "take": "take the discard into",
                "swap": "place the drawn card at",
                "flip": "flip",
            }[kind]
            return ActionInfo(id=action, kind=kind, label=f"{what} position {p}", amount=p)
        opened = _OPEN_POS.get(action)
        if opened is not None:
            text = ",".join(str(p) for p in opened)
            return ActionInfo(id=action, kind="open", label=f"flip positions {text}", choice=text)
        return super().describe(action)


class GolfState(State):
    """One Nine Card Golf match."""

    def __init__(self, game: NineCardGolf, players: int, options: dict[str, JSON]) -> None:
        self.game = game
        self.players = players
        self.options = options
        self._decks = game.decks(players)
        self._cards = DECK_SIZE * self._decks
        self._rounds = int(options["deals"])
        self._turn_limit = int(options["turn_limit"])
        self._step = _DEAL
        self._dealer = -1
        self._starter = -1
        self._turn = -1
        self._grids: list[list[int]] = []
        self._up: list[int] = [0] * players
        self._draw: list[int] = []
        self._discard: list[int] = []
        self._drawn = -1
        self._pending: dict[int, tuple[int, int, int]] = {}
        self._ender = -1
        self._final_left = 0
        self._turns = 0
        self._totals: list[int] = [0] * players
        self._last_scores: list[int] | None = None
        self._history: list[list[int]] = [[] for _ in range(players)]
        self._records: list[DealRecord] = []
        self._everyone = tuple(range(players))

    # ----------------------------------------------------------------- queries
    def to_act(self) -> tuple[int, ...]:
        step = self._step
        if step in (_DEAL, _RESHUFFLE):
            return _CHANCE_ONLY
        if step == _OVER:
            return ()
        if step == _OPENING:
            pending = self._pending
            return tuple([s for s in range(self.players) if s not in pending]) if pending else self._everyone
        return _SEAT[self._turn]

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        step = self._step
        if step == _OPENING:
            return OPEN_ACTIONS if 0 <= seat < self.players and seat not in self._pending else ()
        if seat != self._turn or step not in (_CHOOSE, _DRAWN, _FLIP):
            return ()
        if step == _CHOOSE:
            return CHOOSE_ACTIONS
        if step == _DRAWN:
            return DRAWN_ACTIONS
        return _FLIPS[self._up[seat]]

    def round_number(self) -> int:
        """The current round, 1-based (0 before the first deal)."""
        return len(self._records)

    # ------------------------------------------------------------------ chance
    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        if self._step == _RESHUFFLE:
            pile = [FACES[c % DECK_SIZE] for c in self._discard[:-1]]
            rng.shuffle(pile)
            return {"reshuffle": pile}
        if self._step != _DEAL:
            raise InvalidChance("no chance outcome is pending")
        n = self.players
        dealer = rng.below(n) if self._dealer < 0 else (self._dealer + 1) % n
        deck = list(range(self._cards))
        rng.shuffle(deck)
        faces = [FACES[c % DECK_SIZE] for c in deck]
        return {
            "dealer": dealer,
            "grids": [faces[9 * s : 9 * s + 9] for s in range(n)],
            "discard": faces[9 * n],
            "draw_pile": faces[9 * n + 1 :],
        }

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        if self._step == _RESHUFFLE:
            self._apply_reshuffle(outcome)
        elif self._step == _DEAL:
            self._apply_deal(outcome)
        else:
            raise InvalidChance("no chance outcome is pending")

    def _apply_deal(self, outcome: Mapping[str, JSON]) -> None:
        n = self.players
        try:
            dealer = int(outcome["dealer"])
            grids = [[FACE_INDEX[c] for c in g] for g in outcome["grids"]]
            discard = FACE_INDEX[outcome["discard"]]
            draw = [FACE_INDEX[c] for c in outcome["draw_pile"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidChance(f"malformed deal: {exc!r}") from None
        expected = (self._dealer + 1) % n if self._dealer >= 0 else dealer
        if not 0 <= dealer < n or dealer != expected:
            raise InvalidChance(f"dealer {dealer} does not fit (expected {expected})")
        if len(grids) != n or any(len(g) != 9 for g in grids):
            raise InvalidChance(f"the deal needs {n} grids of 9 cards")
        copies = [0] * DECK_SIZE

        def physical(face: int) -> int:
            copy = copies[face]
            if copy >= self._decks:
                raise InvalidChance(f"{FACES[face]} appears more than {self._decks} time(s)")
            copies[face] = copy + 1
            return copy * DECK_SIZE + face

        ids = [[physical(f) for f in g] for g in grids]
        top = physical(discard)
        pile = [physical(f) for f in draw]
        if len(pile) != self._cards - 9 * n - 1:
            raise InvalidChance(f"the deal must hold all {self._cards} cards")
        record = DealRecord(dealer=dealer, chance=dict(outcome))
        self._records.append(record)
        self._dealer = dealer
        self._grids = ids
        self._up = [0] * n
        self._draw = pile[::-1]  # top of the pile last
        self._discard = [top]
        self._drawn = -1
        self._pending = {}
        self._ender = -1
        self._final_left = 0
        self._turns = 0
        if self._last_scores is None:
            self._starter = (dealer + 1) % n
        else:
            high = max(self._last_scores)
            self._starter = next(s for s in ((dealer + 1 + i) % n for i in range(n)) if self._last_scores[s] == high)
        self._turn = -1
        self._step = _OPENING

    def _apply_reshuffle(self, outcome: Mapping[str, JSON]) -> None:
        try:
            faces = [FACE_INDEX[c] for c in outcome["reshuffle"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidChance(f"malformed reshuffle: {exc!r}") from None
        pool: dict[int, list[int]] = {}
        for c in sorted(self._discard[:-1], reverse=True):
            pool.setdefault(c % DECK_SIZE, []).append(c)
        if len(faces) != len(self._discard) - 1:
            raise InvalidChance("the reshuffle must hold every discard but the top one")
        pile: list[int] = []
        for f in faces:
            ids = pool.get(f)
            if not ids:
                raise InvalidChance(f"{FACES[f]} is not among the discards to reshuffle")
            pile.append(ids.pop())
        self._draw = pile[::-1]
        self._discard = self._discard[-1:]
        self._records[-1].actions.append((CHANCE, json.dumps({"reshuffle": [FACES[f] for f in faces]}, sort_keys=True)))
        self._step = _CHOOSE

    # ------------------------------------------------------------------ action
    def _reject(self, seat: int, action: str) -> IllegalAction:
        step = self._step
        if step == _OVER:
            return NotYourTurn("the match is over", seat=seat, action=action)
        if step in (_DEAL, _RESHUFFLE):
            return NotYourTurn(
                "it is not your turn: waiting for a chance outcome (the shuffle)", seat=seat, action=action
            )
        if step == _OPENING:
            if not 0 <= seat < self.players or seat in self._pending:
                return NotYourTurn(
                    "it is not your turn: waiting for the other players' opening flips", seat=seat, action=action
                )
            if action.startswith("open:"):
                return IllegalAction(
                    "open needs three different positions 0-8 in increasing order, e.g. open:0:4:8",
                    seat=seat,
                    action=action,
                )
            return UnknownAction(
                f"unknown action {action!r}: the opening needs open:a:b:c (three grid positions)",
                seat=seat,
                action=action,
            )
        if seat != self._turn:
            return NotYourTurn(f"it is not your turn: waiting for seat {self._turn}", seat=seat, action=action)
        known = action in ("draw", "discard", "keep") or action in _POS_ACTION or action in _OPEN_POS
        if not known:
            return UnknownAction(
                f"unknown action {action!r}: expected draw, take:<pos>, swap:<pos>, discard, flip:<pos> or keep",
                seat=seat,
                action=action,
            )
        if step == _CHOOSE:
            return IllegalAction("start your turn with draw or take:<pos>", seat=seat, action=action)
        if step == _DRAWN:
            return IllegalAction(
                "you hold a drawn card: place it with swap:<pos> or discard it", seat=seat, action=action
            )
        if action.startswith("flip:"):
            return IllegalAction("that card is already face up", seat=seat, action=action)
        return IllegalAction("after discarding, flip:<pos> a face-down card or keep", seat=seat, action=action)

    def apply(self, seat: int, action: str) -> None:
        step = self._step
        if step == _OPENING:
            chosen = _OPEN_POS.get(action)
            if chosen is None or not 0 <= seat < self.players or seat in self._pending:
                raise self._reject(seat, action)
            self._pending[seat] = chosen
            self._records[-1].actions.append((seat, action))
            if len(self._pending) == self.players:
                for s, positions in self._pending.items():
                    for p in positions:
                        self._up[s] |= 1 << p
                self._pending = {}
                self._turn = self._starter
                self._step = _CHOOSE
            return
        if seat != self._turn or step not in (_CHOOSE, _DRAWN, _FLIP):
            raise self._reject(seat, action)
        if step == _CHOOSE:
            if action == "draw":
                self._drawn = self._draw.pop()
                self._step = _DRAWN
                self._records[-1].actions.append((seat, action))
                return
            pos = _POS_ACTION.get(action)
            if pos is None or pos[0] != "take":
                raise self._reject(seat, action)
            self._records[-1].actions.append((seat, action))
            card = self._discard.pop()
            self._place(seat, pos[1], card)
            self._end_turn(seat)
            return
        if step == _DRAWN:
            if action == "discard":
                self._records[-1].actions.append((seat, action))
                self._discard.append(self._drawn)
                self._drawn = -1
                if self._up[seat] == ALL_UP:
                    self._end_turn(seat)
                else:
                    self._step = _FLIP
                return
            pos = _POS_ACTION.get(action)
            if pos is None or pos[0] != "swap":
                raise self._reject(seat, action)
            self._records[-1].actions.append((seat, action))
            card = self._drawn
            self._drawn = -1
            self._place(seat, pos[1], card)
            self._end_turn(seat)
            return
        # _FLIP
        if action == "keep":
            self._records[-1].actions.append((seat, action))
            self._end_turn(seat)
            return
        pos = _POS_ACTION.get(action)
        if pos is None or pos[0] != "flip" or self._up[seat] >> pos[1] & 1:
            raise self._reject(seat, action)
        self._records[-1].actions.append((seat, action))
        self._up[seat] |= 1 << pos[1]
        self._end_turn(seat)

    def _place(self, seat: int, pos: int, card: int) -> None:
        grid = self._grids[seat]
        self._discard.append(grid[pos])
        grid[pos] = card
        self._up[seat] |= 1 << pos

    def _end_turn(self, seat: int) -> None:
        n = self.players
        self._turns += 1
        if self._ender < 0:
            if self._up[seat] == ALL_UP:
                self._ender = seat
                self._final_left = n - 1
            elif self._turns >= self._turn_limit * n:
                self._score_round()
                return
        else:
            self._final_left -= 1
            if self._final_left == 0:
                self._score_round()
                return
        self._turn = (seat + 1) % n
        self._step = _CHOOSE if self._draw else _RESHUFFLE

    def _score_round(self) -> None:
        n = self.players
        for s in range(n):
            self._up[s] = ALL_UP
        scores = [score_ranks([RANK_OF[c % DECK_SIZE] for c in self._grids[s]]) for s in range(n)]
        ender = self._ender
        if ender >= 0 and scores[ender] > min(scores):
            scores[ender] += ENDER_PENALTY
        self._records[-1].scores = [float(x) for x in scores]
        self._last_scores = scores
        for s in range(n):
            self._totals[s] += scores[s]
            self._history[s].append(scores[s])
        self._turn = -1
        self._step = _OVER if len(self._records) >= self._rounds else _DEAL

    # ------------------------------------------------------------------- views
    def view(self, seat: int | None) -> GolfView:
        if seat is not None and not 0 <= seat < self.players:
            raise IllegalAction(f"no seat {seat} in a {self.players}-player match")
        # A snapshot of copies and immutable values; decoded on first access.
        pending = self._pending
        return GolfView(
            (
                self,
                seat,
                self.to_act(),
                self._step,
                len(self._records),
                self._dealer,
                self._starter,
                self._turn,
                self._ender,
                self._final_left,
                self._turns,
                len(self._draw),
                tuple(self._discard),
                self._drawn,
                tuple(pending.items()) if pending else (),
                tuple([tuple(g) for g in self._grids]),
                tuple(self._up),
                tuple(self._totals),
                tuple([tuple(h) for h in self._history]),
            ),
            seat,
        )

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return self.view(seat).to_json()

    def public_action(self, viewer: int | None, seat: int, action: str) -> str | None:
        if action.startswith("open:") and viewer != seat:
            return "open"
        return action

    # ------------------------------------------------------------------ result
    def result(self) -> Result:
        if self._step != _OVER:
            raise IllegalAction("the match is not over")
        scores = tuple(float(t) for t in self._totals)
        return Result(scores, ranks_from_scores(scores, higher_is_better=False))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def clone(self) -> GolfState:
        other = object.__new__(GolfState)
        other.__dict__.update(self.__dict__)
        other._grids = [list(g) for g in self._grids]
        other._up = list(self._up)
        other._draw = list(self._draw)
        other._discard = list(self._discard)
        other._pending = dict(self._pending)
        other._totals = list(self._totals)
        other._history = [list(h) for h in self._history]
        other._last_scores = None if self._last_scores is None else list(self._last_scores)
        other._records = [r.copy() for r in self._records]
        return other

    # -------------------------------------------------------------- invariants
    def invariants(self) -> list[str]:
        problems: list[str] = []
        if not self._grids:
            return problems
        placed = [c for g in self._grids for c in g] + self._draw + self._discard
        if self._drawn >= 0:
            placed.append(self._drawn)
        if len(placed) != self._cards or set(placed) != set(range(self._cards)):
            problems.append(f"cards not conserved: {len(placed)} placed, {len(set(placed))} distinct")
        if any(len(g) != 9 for g in self._grids):
            problems.append("a grid does not hold 9 cards")
        if self._step not in (_DEAL, _OVER) and not self._discard:
            problems.append("the discard pile is empty during a round")
        if self._step == _CHOOSE and not self._draw:
            problems.append("a turn starts with an empty draw pile")
        recorded = [0.0] * self.players
        for r in self._records:
            if r.scores is not None:
                recorded = [a + b for a, b in zip(recorded, r.scores, strict=True)]
        if recorded != [float(t) for t in self._totals]:
            problems.append("totals differ from the sum of the round scores")
        if (self._drawn >= 0) != (self._step == _DRAWN):
            problems.append("a drawn card is held outside the drawn step")
        return problems

    def secrets(self, seat: int | None) -> frozenset[str]:
        """Faces of cards ``seat`` cannot see, unless a duplicate of the face is visible to it.

        With one deck every face is unique, so these are exactly the hidden cards.  With two
        decks a face whose twin lies face up cannot be told apart by its code, so it is left
        out here (``tests/test_nine_card_golf.py`` checks hiding of duplicates by identity).
        """
        if not self._grids:
            return frozenset()
        hidden: set[int] = set()
        visible: set[int] = set()
        for s, grid in enumerate(self._grids):
            up = self._up[s]
            for p, c in enumerate(grid):
                (visible if up >> p & 1 else hidden).add(c % DECK_SIZE)
        hidden.update(c % DECK_SIZE for c in self._draw)
        visible.update(c % DECK_SIZE for c in self._discard)
        if self._drawn >= 0:
            (visible if seat is not None and seat == self._turn else hidden).add(self._drawn % DECK_SIZE)
        return frozenset(FACES[f] for f in hidden - visible)

    def hidden_cards(self, seat: int | None) -> list[int]:
        """Physical ids of the cards ``seat`` cannot see (for tests of duplicate hiding)."""
        out: list[int] = []
        for s, grid in enumerate(self._grids):
            up = self._up[s]
            out.extend(c for p, c in enumerate(grid) if not up >> p & 1)
        out.extend(self._draw)
        if self._drawn >= 0 and (seat is None or seat != self._turn):
            out.append(self._drawn)
        return out


GAME = NineCardGolf()
