"""The Emissary: a one-player score attack of exact trick counts in eight kingdoms (id ``emissary``).

Rules ("The Emissary rules" of the original rules document and the team's rulings, not distributed
here; ``docs/games/emissary.md``):

* 52 cards, no jokers.  The eight 9s and 10s are kingdom placeholders (out of play); the four
  kings and four queens are shuffled and dealt one per kingdom, left to right (kingdom 1 to
  8); the four jacks are the player's advisors; the other 32 cards (A-8, aces low) are the
  deck.
* Kingdom loop: draw eight cards, then choose an unvisited kingdom (``visit:<k>``).  Kingdom
  ``k`` needs exactly ``k`` debates won.  Its ruler's suit is trump there.
* Debate: the top card of the deck is turned face up onto the discard pile; the player
  answers with a card (``play:<card>``), following suit if able.  The answer wins with a
  higher card of the same suit, or with a trump against a non-trump card.  A winning card goes
  to the scoring pile, a losing one to the discard pile.  Debates go on until the hand is
  empty; then the kingdom is won if the debates won equal ``k`` (its ruler joins the
  supporters), else the game is lost at once.
* Abilities, before the first debate or between two debates (``ability:<card>``): each jack
  once per kingdom, each supporting king or queen once per game.  Hearts: discard every trump
  in hand.  Clubs: draw a card per club in hand.  Spades: swap the current ruler with the
  ruler of an unvisited kingdom (``ability:<card>:<k>``).  Diamonds: draw two cards, then
  discard two (``discard:<card>``, twice).
* An empty deck is refilled by shuffling the discard pile.  After each kingdom the discard
  pile, scoring pile and deck are shuffled together and the jacks are turned back up.
* Score, won or lost: kingdoms won plus supporting kings/queens whose ability is unused
  (at most 16).  The view's ``outcome`` is ``won`` once all eight kingdoms are won, ``lost``
  after a failed kingdom.

Rulings where the seed is silent (also in ``docs/games/emissary.md``):

* The debate card is turned automatically when no ability can be used (a ``debate`` action
  turns it otherwise), so the player is only asked when there is a choice.
* The spades ability is offered only while another unvisited kingdom exists (at the final
  kingdom it "does nothing", and spending a supporter on nothing is never useful).
* The diamonds ability discards two cards, or every card if fewer than two are in hand; if
  the deck and the discard pile are both empty, draws stop short.
* If no debate card can be turned (deck and discard pile both empty, which needs many club
  draws), the kingdom's debates end: the cards left in hand are discarded and the debates won
  so far are counted.
* A hand emptied by an ability (hearts) ends the kingdom just as the last debate does.
* The game always ends: at most eight kingdoms, and each kingdom's hand only grows through
  the once-per-kingdom jacks and once-per-game rulers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..engine.cards import CODES, SUIT_NAMES
from ..engine.core import JSON, ActionInfo, Game, IllegalAction, InvalidChance
from ..engine.rng import MatchRng
from .solitaire import JsonView, SolitaireState, base_json, deck_codes, shuffled, unknown

RULERS: tuple[str, ...] = ("KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS")
"""The eight rulers."""
ADVISORS: tuple[str, ...] = ("JH", "JC", "JS", "JD")
"""The four advisors: diplomacy, military, politics, commerce."""
PLACEHOLDERS: tuple[str, ...] = tuple(c for c in CODES if c[0] in "9T")
"""The 9s and 10s: kingdom placeholders, out of play."""
DEBATE_CARDS: tuple[str, ...] = tuple(c for c in CODES if c[0] in "A2345678")
"""The 32 cards of the deck."""
ABILITY = {"H": "diplomacy", "C": "military", "S": "politics", "D": "commerce"}
"""Suit to the ability it gives."""


_ABILITY_ID: dict[str, str] = {c: f"ability:{c}" for c in ADVISORS + RULERS}
_TARGETS: dict[str, tuple[str, ...]] = {c: tuple(f"ability:{c}:{k + 1}" for k in range(8)) for c in ADVISORS + RULERS}


def rank(card: str) -> int:
    """Debate rank: ace 1 to 8."""
    return "A2345678".index(card[0]) + 1


class EmissaryState(SolitaireState):
    """A game of The Emissary."""

    def __init__(self, game: Game, players: int, options: dict[str, JSON]) -> None:
        super().__init__(game, players, options)
        self._rulers: list[str] = []
        self._visited: list[bool] = [False] * 8
        self._conquered: list[bool] = [False] * 8
        self._deck: list[str] = []
        self._hand: list[str] = []
        self._discard: list[str] = []
        self._scoring: list[str] = []
        self._current = -1
        self._debate: str | None = None
        self._used_jacks: set[str] = set()
        self._supporters: list[str] = []
        self._spent: set[str] = set()
        self._to_discard = 0
        self._to_draw = 0
        self._need_debate = False
        self._shuffle_all = False

    # ------------------------------------------------------------ chance
    def _sample(self, rng: MatchRng) -> dict[str, JSON]:
        if not self._records:
            return {"dealer": 0, "rulers": shuffled(rng, RULERS), "deck": shuffled(rng, DEBATE_CARDS)}
        return {"deck": shuffled(rng, self._shuffle_pool())}

    def _shuffle_pool(self) -> list[str]:
        if self._shuffle_all:
            return sorted(self._deck + self._discard + self._scoring)
        return sorted(self._discard)

    def _apply_outcome(self, outcome: Mapping[str, JSON]) -> None:
        if not self._rulers:
            self._rulers = deck_codes(outcome, "rulers", RULERS)
            self._deck = deck_codes(outcome, "deck", DEBATE_CARDS)
            self._to_draw = 8
        else:
            if set(outcome) != {"deck"}:
                raise InvalidChance("a reshuffle outcome holds only 'deck'")
            pool = self._shuffle_pool()
            order = deck_codes(outcome, "deck", pool)
            if self._shuffle_all:
                self._scoring = []
                self._shuffle_all = False
                self._to_draw = 8
            self._discard = []
            self._deck = order
        self._advance()

    # ------------------------------------------------------------ flow
    def _advance(self) -> None:
        """Automatic steps (draws, turning the debate card, ending a kingdom) up to a decision."""
        while not self._over and not self._chance_pending:
            if self._to_draw:
                if not self._deck:
                    if self._discard:
                        self._need_chance()
                        return
                    self._to_draw = 0
                    continue
                self._hand.append(self._deck.pop(0))
                self._to_draw -= 1
                continue
            if self._to_discard:
                if len(self._hand) > 0:
                    return
                self._to_discard = 0
                continue
            if self._current < 0:
                return  # choose a kingdom
            if self._debate is not None:
                return  # answer the debate
            if not self._hand:
                self._end_kingdom()
                continue
            if not self._need_debate and self._has_ability():
                return  # use an ability or turn the debate card
            if not self._deck:
                if self._discard:
                    self._need_chance()
                    return
                self._need_debate = False
                self._discard += self._hand
                self._hand = []
                continue
            self._need_debate = False
            self._debate = self._deck.pop(0)

    def _end_kingdom(self) -> None:
        k = self._current
        wins = len(self._scoring)
        self._current = -1
        if wins != k + 1:
            self._finish(False, f"kingdom {k + 1} needed exactly {k + 1} debates won, not {wins}")
            return
        self._conquered[k] = True
        self._supporters.append(self._rulers[k])
        self._used_jacks = set()
        if all(self._conquered):
            self._finish(True, "all eight kingdoms support you")
            return
        self._shuffle_all = True
        self._need_chance()

    def _abilities(self) -> list[str]:
        if self._current < 0 or self._debate is not None or self._to_discard or not self._hand:
            return []
        used, spent = self._used_jacks, self._spent
        cards = [j for j in ADVISORS if j not in used]
        cards += [r for r in self._supporters if r not in spent]
        out: list[str] = []
        visited = self._visited
        for card in cards:
            if card[1] == "S":
                targets = _TARGETS[card]
                out += [targets[k] for k in range(8) if not visited[k]]
            else:
                out.append(_ABILITY_ID[card])
        return out

    def _has_ability(self) -> bool:
        """Whether :meth:`_abilities` is not empty (without building it)."""
        if self._current < 0 or self._debate is not None or self._to_discard or not self._hand:
            return False
        used, spent = self._used_jacks, self._spent
        others = not all(self._visited)
        for card in ADVISORS:
            if card not in used and (others or card[1] != "S"):
                return True
        return any(card not in spent and (others or card[1] != "S") for card in self._supporters)

    @property
    def trump(self) -> str | None:
        """The trump suit of the kingdom being visited."""
        return self._rulers[self._current][1] if self._current >= 0 else None

    def _legal(self) -> list[str]:
        if self._to_discard:
            return [f"discard:{c}" for c in self._hand]
        if self._current < 0:
            return [f"visit:{k + 1}" for k in range(8) if not self._visited[k]]
        if self._debate is not None:
            suit = self._debate[1]
            follow = [c for c in self._hand if c[1] == suit]
            return [f"play:{c}" for c in (follow or self._hand)]
        return [*self._abilities(), "debate"]

    def _do(self, action: str) -> None:
        kind, _, rest = action.partition(":")
        if kind == "visit":
            self._current = int(rest) - 1
            self._visited[self._current] = True
        elif kind == "debate":
            self._need_debate = True
        elif kind == "play":
            debate = self._debate
            assert debate is not None
            self._hand.remove(rest)
            trump = self.trump
            win = (rest[1] == debate[1] and rank(rest) > rank(debate)) or (debate[1] != trump and rest[1] == trump)
            self._discard.append(debate)
            (self._scoring if win else self._discard).append(rest)
            self._debate = None
        elif kind == "discard":
            self._hand.remove(rest)
            self._discard.append(rest)
            self._to_discard -= 1
        elif kind == "ability":
            card, _, target = rest.partition(":")
            if card[0] == "J":
                self._used_jacks.add(card)
            else:
                self._spent.add(card)
            suit = card[1]
            if suit == "H":
                trump = self.trump
                self._discard += [c for c in self._hand if c[1] == trump]
                self._hand = [c for c in self._hand if c[1] != trump]
            elif suit == "C":
                self._to_draw = sum(1 for c in self._hand if c[1] == "C")
            elif suit == "S":
                k = int(target) - 1
                r = self._rulers
                r[k], r[self._current] = r[self._current], r[k]
            else:
                self._to_draw = 2
                self._to_discard = 2
        self._advance()

    def _why_illegal(self, action: str) -> IllegalAction:
        kind, _, rest = action.partition(":")
        if kind not in {"visit", "debate", "play", "ability", "discard"}:
            return unknown(action, "visit:<k>, debate, play:<card>, ability:<card>[:<k>] or discard:<card>")
        if self._to_discard:
            return IllegalAction(f"discard {self._to_discard} more card(s) from your hand first (commerce)")
        if self._current < 0:
            return IllegalAction("choose an unvisited kingdom first: visit:<k>")
        if self._debate is not None:
            if kind == "play" and rest in self._hand:
                return IllegalAction(f"must follow {SUIT_NAMES[self._debate[1]]}")
            if kind == "play":
                return IllegalAction(f"{rest} is not in your hand")
            return IllegalAction(f"answer the debate card {self._debate} with play:<card> (no abilities in response)")
        if kind == "ability":
            return IllegalAction(
                "that ability is not available: jacks once per kingdom, kings/queens once per game, "
                "spades name an unvisited kingdom"
            )
        return IllegalAction("use an ability or turn the debate card with debate")

    def score(self) -> int:
        return sum(self._conquered) + sum(1 for r in self._supporters if r not in self._spent)

    @property
    def phase(self) -> str:
        """``chance``, ``visit``, ``between``, ``respond``, ``discard`` or ``over``."""
        if self._over:
            return "over"
        if self._chance_pending:
            return "chance"
        if self._to_discard:
            return "discard"
        if self._current < 0:
            return "visit"
        return "respond" if self._debate is not None else "between"

    # ------------------------------------------------------------ views
    def view(self, seat: int | None) -> JsonView:
        self._check_seat(seat)
        snap = (
            self.game.id,
            self._over,
            self._chance_pending,
            self._won,
            self._end_reason,
            tuple(self._rulers),
            tuple(self._visited),
            tuple(self._conquered),
            self._current,
            tuple(self._hand),
            self._debate,
            tuple(self._discard),
            tuple(self._scoring),
            len(self._deck),
            frozenset(self._used_jacks),
            tuple(self._supporters),
            frozenset(self._spent),
            self._to_discard,
        )
        return JsonView(seat, build=_view_json, snap=snap)

    def invariants(self) -> list[str]:
        if not self._records:
            return []
        cards = self._deck + self._hand + self._discard + self._scoring
        if self._debate is not None:
            cards.append(self._debate)
        problems: list[str] = []
        if sorted(cards) != sorted(DEBATE_CARDS):
            problems.append(f"debate cards not conserved: {len(cards)} placed, {len(set(cards))} distinct")
        if sorted(self._rulers) != sorted(RULERS):
            problems.append("rulers not conserved")
        if sum(self._conquered) != len(self._supporters):
            problems.append("supporters do not match the kingdoms won")
        return problems

    def secrets(self, seat: int | None) -> frozenset[str]:
        return frozenset(self._deck)


def _hand_order(card: str) -> tuple[int, int]:
    return ("CDHS".index(card[1]), rank(card))


def _view_json(seat: int | None, snap: tuple[Any, ...]) -> dict[str, JSON]:
    """The JSON form of a view snapshot (see :meth:`EmissaryState.view`)."""
    (
        game,
        over,
        pending,
        won,
        end_reason,
        rulers,
        visited,
        conquered,
        current,
        hand,
        debate,
        discard,
        scoring,
        deck_size,
        used_jacks,
        supporters,
        spent,
        to_discard,
    ) = snap
    score = sum(conquered) + sum(1 for r in supporters if r not in spent)
    data = base_json(game, seat, over, pending, won, end_reason, score)
    if over:
        phase = "over"
    elif pending:
        phase = "chance"
    elif to_discard:
        phase = "discard"
    elif current < 0:
        phase = "visit"
    else:
        phase = "respond" if debate is not None else "between"
    data.update(
        {
            "phase": phase,
            "kingdoms": [
                {
                    "kingdom": k + 1,
                    "target": k + 1,
                    "ruler": rulers[k] if rulers else None,
                    "trump": rulers[k][1] if rulers else None,
                    "visited": visited[k],
                    "won": conquered[k],
                }
                for k in range(8)
            ],
            "current": current + 1 if current >= 0 else None,
            "target": current + 1 if current >= 0 else None,
            "trump": rulers[current][1] if current >= 0 else None,
            "wins": len(scoring) if current >= 0 else 0,
            "hand": sorted(hand, key=_hand_order),
            "debate_card": debate,
            "discard_pile": list(discard),
            "scoring_pile": list(scoring),
            "deck_size": deck_size,
            "advisors": [{"card": j, "used": j in used_jacks} for j in ADVISORS],
            "supporters": [{"card": r, "used": r in spent} for r in supporters],
            "kingdoms_won": sum(conquered),
            "discards_left": to_discard,
        }
    )
    return data


class Emissary(Game):
    """The Emissary: win exactly k debates in kingdom k, for all eight kingdoms."""

    id: ClassVar[str] = "emissary"
    name: ClassVar[str] = "The Emissary"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 1
    summary: ClassVar[str] = (
        "Solitaire score attack: visit eight kingdoms and win exactly 1..8 debates (tricks) "
        "against each ruler, helped by the jacks' and won rulers' abilities. Score: kingdoms "
        "won plus unused supporting rulers (max 16)."
    )

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> EmissaryState:
        return EmissaryState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        kind, _, rest = action.partition(":")
        if kind == "visit" and rest.isdigit():
            return ActionInfo(id=action, kind=kind, label=f"visit kingdom {rest}", amount=int(rest))
        if kind == "debate":
            return ActionInfo(id=action, kind=kind, label="turn the debate card")
        if kind in {"play", "discard"}:
            return ActionInfo(id=action, kind=kind, label=f"{kind} {rest}", cards=(rest,))
        if kind == "ability":
            card, _, target = rest.partition(":")
            name = ABILITY.get(card[1:2], "ability")
            where = f" with kingdom {target}" if target else ""
            return ActionInfo(
                id=action,
                kind=kind,
                label=f"{name} ({card}){where}",
                cards=(card,),
                amount=int(target) if target.isdigit() else None,
                choice=name,
            )
        return super().describe(action)


GAME = Emissary()
