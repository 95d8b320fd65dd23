"""Coup: bluffing with five characters, with the Inquisitor, for 2 to 6 players.

Rules (the Coup page of the original rules document and the team's rulings, not distributed
here; ``docs/games/coup.md``):

* The court deck: three each of J (Captain), Q (Contessa), K (Duke), A (Assassin) and 2
  (Inquisitor), as card codes ``JC JD JH QC ... 2H``.  Two cards and two coins each.
* On their turn a player takes one action: ``income`` (+1), ``foreign_aid`` (+2, blockable by
  a Duke), ``coup:<seat>`` (pay 7, the target loses a card; compulsory at 10 or more coins),
  or a character action, claimed and possibly bluffed: ``tax`` (Duke, +3),
  ``assassinate:<seat>`` (Assassin, pay 3, the target loses a card; blockable by the target's
  Contessa), ``steal:<seat>`` (Captain, take 2; blockable by the target's Captain or
  Inquisitor, naming which), ``exchange`` (Inquisitor: draw one card, put one of your cards
  or the drawn card back) or ``examine:<seat>`` (Inquisitor: the target shows you a card of
  their choice; you may force them to draw a new card and then shuffle the shown one back,
  in the seed's order, so the new card is never the shown one).
* Any claim (an action or a block) may be challenged.  A challenged player holding the
  claimed character shows it, the challenger loses a card, and the shown card is shuffled
  into the deck and replaced by a fresh draw; otherwise the bluffer loses a card of their
  choice and the claim fails.
* A lost card is placed face up (public).  A player without cards is out; the last player
  with cards wins (score 1, everyone else 0).
* Two players (the seed's variant, on by default at 2 players, options ``call_the_coup`` and
  ``five_lives``): a coup names a character (``coup:<seat>:<character>``); if the target holds
  it, that card dies; if not, the target shows their whole hand, loses nothing, draws two
  cards and puts two back (the 7 coins are spent either way).  Five lives: a player who loses
  a card draws a replacement, except for their 4th and 5th lost card.

Reaction windows (rulings): a claim or a blockable action opens a window offered to the
eligible players one at a time in turn order starting left of the actor (the player whose
turn it is; for the challenge of a block too, the blocker left out and the actor asked last);
each answers ``pass``, ``challenge`` (if the window allows it) or ``block:<character>`` (if
they may block); the first who does not pass takes the window.

Rulings made here where the seed and the rulings are silent (the standard club reading):

* The first dealer is drawn; the player left of the dealer moves first.
* One window per claim: blocks and challenges of an action share it, so a block taken before
  anyone challenged leaves the action's claim unchallenged.  After an action's claim survives
  a challenge, the eligible blockers are asked again (block or pass).  Anyone but the blocker
  may challenge a block.
* A challenged player who holds the claimed character always shows it (showing another card
  would only throw a life away); one who does not chooses which card to lose (``lose:<card>``).
  Wherever a player must lose, show or put back a card and all their options are the same
  character, the server does it without asking.
* A failed challenge of an action refunds its cost (the Assassin's 3 coins), unless the
  bluff cost the actor their last card; a blocked assassination keeps the coins spent.
  Stealing needs a target with at least one coin and takes at most what they have.  An
  eliminated player's coins return to the bank.
* The deck is shuffled whenever a card goes back, so every draw is a uniform pick from the
  deck's cards: a chance outcome ``{"seat": s, "draw": [cards]}``.  The opening deal is the
  chance outcome ``{"dealer": d, "hands": [...], "deck": [...]}``.
* The whole match is one record; draws are appended as chance outcomes.
* Turn limit (option ``max_turns``, default 200): a turn that would start after it ends the
  match; the players still in with the most cards left share first place (score 1), most
  coins breaking a tie.  Random play ends within about 40 turns; without a limit two players
  who keep calling a character the other does not hold (with the two-player variant) would
  play for ever, and the server's default action does exactly that for a forfeited seat.
* Public knowledge in the view: dead cards (face up), and a log of public events where a
  character shown and shuffled back is given by its name, never its card code.  The card an
  examined player shows is known only to the examiner (``known``) until it leaves that hand
  or that player puts cards back face down (an exchange, a missed called coup): nobody else
  can tell which card went back, so the knowledge ends whichever card it was.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from itertools import combinations
from typing import Any, ClassVar

from ..engine.core import (
    CHANCE,
    JSON,
    ActionInfo,
    DealRecord,
    Game,
    IllegalAction,
    InvalidChance,
    InvalidOptions,
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

CHARACTERS = ("captain", "contessa", "duke", "assassin", "inquisitor")
"""The five characters, in the order of their ranks J, Q, K, A, 2."""
RANK_OF = {"captain": "J", "contessa": "Q", "duke": "K", "assassin": "A", "inquisitor": "2"}
"""Each character's card rank."""
CODES: tuple[str, ...] = tuple(r + s for r in "JQKA2" for s in "CDH")
"""The fifteen cards of the court deck."""
INDEX = {c: i for i, c in enumerate(CODES)}
"""Card code to card index."""
CHARACTER_OF: dict[str, str] = {c: CHARACTERS["JQKA2".index(c[0])] for c in CODES}
"""Card code to its character."""
START_COINS = 2
COUP_COST = 7
ASSASSIN_COST = 3
FORCED_COUP = 10
MAX_TURNS = 200
"""Default turn limit (option ``max_turns``)."""
LIVES = 5
"""Cards a player may lose with the five-lives variant; the first three are replaced."""

CLAIM = {
    "tax": "duke",
    "assassinate": "assassin",
    "steal": "captain",
    "exchange": "inquisitor",
    "examine": "inquisitor",
}
"""The character each character action claims."""
BLOCKERS = {"foreign_aid": ("duke",), "steal": ("captain", "inquisitor"), "assassinate": ("contessa",)}
"""The characters that block each blockable action."""

# Stages.
DEAL = "deal"
DRAW = "draw"
TURN = "turn"
WINDOW = "window"
LOSE = "lose"
RETURN = "return"
SHOW = "show"
DECIDE = "decide"
OVER = "over"

_LOG_KEEP = 40

_MAX_SEATS = 6
_DISTINCT: dict[tuple[int, ...], tuple[int, ...]] = {}
"""Memo of _distinct by hand (at most 4 of the 15 cards, so it stays small)."""
_BASIC: tuple[str, ...] = ("income", "foreign_aid", "tax", "exchange")
_COUP: tuple[tuple[str, ...], ...] = tuple((f"coup:{t}",) for t in range(_MAX_SEATS))
_COUP_CALL: tuple[tuple[str, ...], ...] = tuple(tuple(f"coup:{t}:{ch}" for ch in CHARACTERS) for t in range(_MAX_SEATS))
_STEAL: tuple[str, ...] = tuple(f"steal:{t}" for t in range(_MAX_SEATS))
_EXAMINE: tuple[str, ...] = tuple(f"examine:{t}" for t in range(_MAX_SEATS))
_ASSASSINATE: tuple[str, ...] = tuple(f"assassinate:{t}" for t in range(_MAX_SEATS))
_PASS: tuple[str, ...] = ("pass",)
_SEAT: tuple[tuple[int, ...], ...] = tuple((s,) for s in range(_MAX_SEATS))
_CHANCE_ONLY: tuple[int, ...] = (CHANCE,)
_PASS_CHALLENGE: tuple[str, ...] = ("pass", "challenge")
_BLOCKS: dict[str, tuple[str, ...]] = {k: tuple("block:" + r for r in v) for k, v in BLOCKERS.items()}
_PARSED: dict[str, tuple[str, list[str]]] = {
    a: (a.split(":")[0], a.split(":"))
    for group in (
        _BASIC,
        _STEAL,
        _EXAMINE,
        _ASSASSINATE,
        ("pass", "challenge", "force", "leave"),
        *_COUP,
        *_COUP_CALL,
        *_BLOCKS.values(),
    )
    for a in group
}
"""Frequent action ids to (kind, the id split at colons); the lists are never mutated."""


def _char(card: int) -> str:
    return CHARACTER_OF[CODES[card]]


class CoupView(SnapshotView):
    """What one seat (``None``: a spectator) sees of a Coup match; ``to_json()`` is the wire form.

    Built as a snapshot tuple (copies of the few mutable pieces); the data is decoded on first
    access, so building a view is cheap.
    """

    def _decode(self) -> dict[str, JSON]:
        (
            state,
            seat,
            stage,
            waiting,
            dealer,
            actor,
            turns,
            hand_cards,
            drawn,
            deck_size,
            act,
            window_kind,
            winner,
            known,
            log,
            coins,
            sizes,
            dead,
            out,
            lost,
        ) = self._s
        n = state.players
        five = state._five
        own = seat is not None
        hand = sorted(hand_cards)
        to_act: list[JSON] = [waiting] if stage not in (DEAL, DRAW, OVER) and waiting >= 0 else []
        data: dict[str, JSON] = {
            "game": state.game.id,
            "seat": seat,
            "players": n,
            "to_act": to_act,
            "stage": stage,
            "dealer": dealer if dealer >= 0 else None,
            "turn": actor if actor >= 0 else None,
            "turns": turns,
            "max_turns": state._max_turns,
            "call_the_coup": state._call,
            "five_lives": five,
            "hand": [CODES[c] for c in hand],
            "hand_characters": [_char(c) for c in hand],
            "drawn": [CODES[c] for c in drawn],
            "deck_size": deck_size,
            "action": act.get("kind"),
            "action_target": act.get("target"),
            "action_character": act.get("character"),
            "claim": CLAIM.get(act.get("kind", "")),
            "challenger": act.get("challenger"),
            "blocker": act.get("blocker"),
            "block_character": act.get("role"),
            "window": window_kind if stage == WINDOW else None,
            "shown": CODES[act["shown"]] if own and "shown" in act and seat == actor else None,
            "winner": winner if winner >= 0 else None,
            "known": [
                {"seat": target, "card": CODES[card]} for (viewer, target), card in sorted(known) if viewer == seat
            ],
            "log": [dict(e) for e in log[0][max(0, log[1] - _LOG_KEEP) : log[1]]],
            "seats": [
                {
                    "seat": s,
                    "coins": coins[s],
                    "cards": sizes[s],
                    "dead": [CODES[c] for c in dead[s]],
                    "out": out[s],
                    "lives": (LIVES if five else 2) - lost[s],
                }
                for s in range(n)
            ],
        }
        self._data = data
        return data

    def to_json(self) -> dict[str, JSON]:
        """The view as a proto-compatible JSON object."""
        # the decoded data shares lists with the state: hand out a copy
        return json.loads(json.dumps(self._json()))  # type: ignore[no-any-return]


class CoupGame(Game):
    """Coup with the Inquisitor, 2 to 6 players (2: call the coup, five lives)."""

    id: ClassVar[str] = "coup"
    name: ClassVar[str] = "Coup"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    summary: ClassVar[str] = (
        "Bluffing for 2-6: claim Duke, Assassin, Captain, Contessa or Inquisitor powers, "
        "challenge and block; lose a card for each failed bluff or coup. Last player with "
        "cards wins. Two players: call the coup and five lives."
    )

    def option_defaults(self, players: int) -> dict[str, JSON]:
        return {"call_the_coup": players == 2, "five_lives": players == 2, "max_turns": MAX_TURNS}

    def option_ranges(self, players: int) -> dict[str, OptionRange]:
        return {"max_turns": OptionRange(2, 100_000, "turns before the match ends on cards then coins")}

    def options(self, players: int, options: Mapping[str, JSON] | None = None) -> dict[str, JSON]:
        merged = super().options(players, options)
        if players > 2 and (merged["call_the_coup"] or merged["five_lives"]):
            raise InvalidOptions("call_the_coup and five_lives are the two-player variant rules")
        return merged

    def new_state(self, players: int, options: Mapping[str, JSON] | None = None) -> CoupState:
        return CoupState(self, players, self.options(players, options))

    def describe(self, action: str) -> ActionInfo:
        parts = action.split(":")
        kind = parts[0]
        args = parts[1:]
        if kind in ("income", "foreign_aid", "tax", "exchange", "challenge", "pass", "force", "leave") and not args:
            claim = CLAIM.get(kind)
            return ActionInfo(id=action, kind=kind, label=kind.replace("_", " "), choice=claim)
        if kind in ("steal", "assassinate", "examine", "coup") and args and args[0].isdigit():
            choice = args[1] if len(args) > 1 else CLAIM.get(kind)
            label = f"{kind} seat {args[0]}" + (f" naming the {args[1]}" if len(args) > 1 else "")
            return ActionInfo(id=action, kind=kind, label=label, target=int(args[0]), choice=choice)
        if kind == "block" and len(args) == 1:
            return ActionInfo(id=action, kind="block", label=f"block as {args[0]}", choice=args[0])
        if kind in ("lose", "return", "show") and args and all(a in INDEX for a in args):
            choice = CHARACTER_OF[args[0]] if len(args) == 1 else None
            return ActionInfo(id=action, kind=kind, label=f"{kind} {' '.join(args)}", cards=tuple(args), choice=choice)
        return super().describe(action)


class CoupState(State):
    """A Coup match, from the deal to the last player with cards."""

    def __init__(self, game: CoupGame, players: int, options: dict[str, JSON]) -> None:
        self.game = game
        self.players = players
        self.options = options
        self._call = bool(options["call_the_coup"])
        self._five = bool(options["five_lives"])
        self._max_turns = int(options["max_turns"])
        self._final: tuple[float, ...] = ()
        n = players
        self._stage = DEAL
        self._waiting = -1
        self._dealer = -1
        self._actor = -1
        self._hands: list[list[int]] = [[] for _ in range(n)]
        self._deck: list[int] = []
        # Per-seat tuples (and the act dict) are replaced, never changed in place: views reference them.
        self._dead: tuple[tuple[int, ...], ...] = ((),) * n
        self._coins: tuple[int, ...] = (START_COINS,) * n
        self._lost: tuple[int, ...] = (0,) * n
        self._out: tuple[bool, ...] = (False,) * n
        self._drawn: list[int] = []
        self._known: dict[tuple[int, int], int] = {}
        """(viewer, target) -> a card the viewer saw in the target's hand (examine)."""
        self._act: dict[str, Any] = {}
        """The action of the current turn: kind, target, character, claim, blocker, role, paid."""
        self._window: dict[str, Any] = {}
        """The open reaction window: kind, claimant, queue of seats."""
        self._steps: list[tuple[Any, ...]] = []
        self._log: list[dict[str, JSON]] = []
        """Public events, the last _LOG_KEEP of which are shown (append-only; trimmed into a new list)."""
        self._turns = 0
        self._winner = -1
        self._records: list[DealRecord] = []
        self._orders = self._compute_orders()
        self._legal: tuple[int, tuple[str, ...]] | None = None
        """The last answer of legal_actions (seat, actions); reset whenever the state changes."""
        self._sampled: tuple[Mapping[str, JSON], list[int]] | None = None
        """The draw this state just sampled (the outcome and its cards), known to be valid."""

    # ------------------------------------------------------------- helpers
    def _alive(self, seat: int) -> bool:
        return not self._out[seat]

    def _alive_seats(self) -> list[int]:
        return [s for s in range(self.players) if not self._out[s]]

    def _order_from(self, seat: int) -> list[int]:
        return list(self._orders[seat])

    def _compute_orders(self) -> tuple[tuple[int, ...], ...]:
        """Per seat, the other seats still in, in turn order starting left of it."""
        n = self.players
        out = self._out
        return tuple(tuple((seat + i) % n for i in range(1, n) if not out[(seat + i) % n]) for seat in range(n))

    def _add_coins(self, seat: int, amount: int) -> None:
        coins = self._coins
        self._coins = coins[:seat] + (coins[seat] + amount,) + coins[seat + 1 :]

    def _record(self, seat: int, action: str) -> None:
        self._records[-1].actions.append((seat, action))

    def _event(self, seat: int, event: str, target: JSON = None, character: JSON = None, card: JSON = None) -> None:
        log = self._log
        log.append({"seat": seat, "event": event, "target": target, "character": character, "card": card})
        if len(log) > 2 * _LOG_KEEP:
            # Append-only between trims, and a trim makes a new list: a view keeps (list, length).
            self._log = log[-_LOG_KEEP:]

    def _distinct(self, cards: list[int]) -> list[int]:
        """One card per character (the lowest code), in hand order of characters."""
        key = tuple(cards)
        known = _DISTINCT.get(key)
        if known is None:
            seen: dict[str, int] = {}
            for c in sorted(cards):
                seen.setdefault(_char(c), c)
            known = _DISTINCT[key] = tuple(sorted(seen.values()))
        return list(known)

    def _remove_from_hand(self, seat: int, card: int) -> None:
        self._hands[seat].remove(card)
        for key in [k for k, v in self._known.items() if k[1] == seat and v == card]:
            del self._known[key]

    # ------------------------------------------------------------- queries
    def to_act(self) -> tuple[int, ...]:
        stage = self._stage
        if stage in (DEAL, DRAW):
            return _CHANCE_ONLY
        if stage == OVER:
            return ()
        return _SEAT[self._waiting]

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        cached = self._legal
        if cached is not None and cached[0] == seat:
            return cached[1]
        legal = self._legal_actions(seat)
        self._legal = (seat, legal)
        return legal

    def _legal_actions(self, seat: int) -> tuple[str, ...]:
        if self._stage in (DEAL, DRAW, OVER) or seat != self._waiting:
            return ()
        stage = self._stage
        if stage == TURN:
            return self._turn_actions(seat)
        if stage == WINDOW:
            return self._window_actions(seat)
        if stage == LOSE:
            return tuple("lose:" + CODES[c] for c in self._distinct(self._hands[seat]))
        if stage == SHOW:
            return tuple("show:" + CODES[c] for c in self._distinct(self._hands[seat]))
        if stage == DECIDE:
            return ("force", "leave")
        if stage == RETURN:
            keep = len(self._hands[seat]) - len(self._drawn)
            count = len(self._hands[seat]) - keep
            options = set()
            for combo in combinations(sorted(self._hands[seat]), count):
                options.add(tuple(sorted(combo, key=lambda c: (_char(c), c))))
            by_chars: dict[tuple[str, ...], tuple[int, ...]] = {}
            for combo in sorted(options):
                by_chars.setdefault(tuple(_char(c) for c in combo), combo)
            return tuple(sorted("return:" + ":".join(CODES[c] for c in combo) for combo in by_chars.values()))
        return ()

    def _turn_actions(self, seat: int) -> tuple[str, ...]:
        all_coins = self._coins
        coins = all_coins[seat]
        others = self._order_from(seat)
        coups: tuple[str, ...] = ()
        if coins >= COUP_COST:
            table = _COUP_CALL if self._call else _COUP
            for t in others:
                coups += table[t]
        if coins >= FORCED_COUP:
            return coups
        actions = _BASIC + tuple([_STEAL[t] for t in others if all_coins[t] > 0])
        actions += tuple([_EXAMINE[t] for t in others])
        if coins >= ASSASSIN_COST:
            actions += tuple([_ASSASSINATE[t] for t in others])
        return actions + coups

    def _window_actions(self, seat: int) -> tuple[str, ...]:
        window = self._window
        out = _PASS_CHALLENGE if window["challenge"] else _PASS
        if window["block"]:
            kind = self._act["kind"]
            if kind == "foreign_aid" or seat == self._act.get("target"):
                out += _BLOCKS[kind]
        return out

    def view(self, seat: int | None) -> CoupView:
        if seat is not None and not 0 <= seat < self.players:
            raise IllegalAction(f"no seat {seat} in a {self.players}-player match")
        # A snapshot of copies and immutable values; decoded on first access.
        own = seat is not None
        drawn = self._drawn
        known = self._known
        return CoupView(
            (
                self,
                seat,
                self._stage,
                self._waiting,
                self._dealer,
                self._actor,
                self._turns,
                tuple(self._hands[seat]) if seat is not None else (),
                tuple(drawn) if drawn and own and seat == self._drawer() else (),
                len(self._deck),
                self._act,
                self._window.get("kind"),
                self._winner,
                tuple(known.items()) if known else (),
                (self._log, len(self._log)),
                self._coins,
                tuple([len(h) for h in self._hands]),
                self._dead,
                self._out,
                self._lost,
            ),
            seat,
        )

    def _drawer(self) -> int:
        return self._waiting if self._stage == RETURN else -1

    def view_json(self, seat: int | None) -> dict[str, JSON]:
        return self.view(seat).to_json()

    def public_action(self, viewer: int | None, seat: int, action: str) -> str | None:
        kind = action.partition(":")[0]
        if kind == "return" and viewer != seat:
            return "return"
        if kind == "show" and viewer not in (seat, self._actor):
            return "show"
        return action

    def result(self) -> Result:
        if self._stage != OVER:
            raise IllegalAction("the match is not over")
        return Result(self._final, ranks_from_scores(self._final))

    def deal_records(self) -> list[DealRecord]:
        return self._records

    def clone(self) -> CoupState:
        other = object.__new__(CoupState)
        other.__dict__.update(self.__dict__)
        other._hands = [list(h) for h in self._hands]
        other._deck = list(self._deck)
        other._drawn = list(self._drawn)
        other._known = dict(self._known)
        other._window = {k: (list(v) if isinstance(v, list) else v) for k, v in self._window.items()}
        other._steps = list(self._steps)
        other._log = list(self._log)
        other._records = [r.copy() for r in self._records]
        return other

    # -------------------------------------------------------------- chance
    def sample_chance(self, rng: MatchRng) -> dict[str, JSON]:
        if self._stage == DEAL:
            n = self.players
            dealer = rng.below(n)
            deck = list(range(len(CODES)))
            rng.shuffle(deck)
            hands = [sorted(deck[2 * i : 2 * i + 2]) for i in range(n)]
            # Dealt from the dealer's left: the first pair goes to seat dealer + 1.
            first = (dealer + 1) % n
            hands = hands[n - first :] + hands[: n - first]
            deal: dict[str, JSON] = {
                "dealer": dealer,
                "hands": [[CODES[c] for c in h] for h in hands],
                "deck": [CODES[c] for c in deck[2 * n :]],
            }
            self._sampled = (deal, [dealer])
            return deal
        if self._stage == DRAW:
            seat, count = self._steps[0][1], self._steps[0][2]
            pool = list(self._deck)
            drawn = []
            for _ in range(count):
                drawn.append(pool.pop(rng.below(len(pool))))
            outcome: dict[str, JSON] = {"seat": seat, "draw": [CODES[c] for c in drawn]}
            self._sampled = (outcome, drawn)
            return outcome
        raise InvalidChance("no chance outcome is pending")

    def apply_chance(self, outcome: Mapping[str, JSON]) -> None:
        stage = self._stage
        if stage == DEAL:
            self._deal(outcome)
            self._legal = None
            return
        if stage != DRAW:
            raise InvalidChance("no chance outcome is pending")
        _, seat, count, purpose = self._steps[0]
        sampled = self._sampled
        self._sampled = None
        if sampled is not None and sampled[0] is outcome:
            # The draw this state just sampled itself: already known to be valid.
            drawn = list(sampled[1])
        else:
            try:
                got_seat = int(outcome["seat"])
                drawn = [INDEX[c] for c in outcome["draw"]]
            except (KeyError, TypeError, ValueError) as exc:
                raise InvalidChance(f"malformed draw: {exc!r}") from None
            if got_seat != seat or len(drawn) != count:
                raise InvalidChance(f"expected {count} card(s) drawn by seat {seat}")
            if len(set(drawn)) != count or any(c not in self._deck for c in drawn):
                raise InvalidChance("drawn cards must be distinct cards of the deck")
        # json.dumps({"seat": seat, "draw": [...]}, sort_keys=True), spelled out.
        self._record(
            CHANCE, '{"draw": [' + ", ".join(['"' + CODES[c] + '"' for c in drawn]) + '], "seat": ' + str(seat) + "}"
        )
        self._steps.pop(0)
        for c in drawn:
            self._deck.remove(c)
            self._hands[seat].append(c)
        if purpose in ("exchange", "call"):
            self._drawn = drawn
            self._steps.insert(0, ("return", seat))
        self._advance()
        self._legal = None

    def _deal(self, outcome: Mapping[str, JSON]) -> None:
        n = self.players
        try:
            dealer = int(outcome["dealer"])
            hands = [[INDEX[c] for c in h] for h in outcome["hands"]]
            deck = [INDEX[c] for c in outcome["deck"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidChance(f"malformed deal: {exc!r}") from None
        sampled = self._sampled
        self._sampled = None
        if sampled is None or sampled[0] is not outcome:
            # (A deal this state just sampled itself is known to be valid.)
            if not 0 <= dealer < n or len(hands) != n or any(len(h) != 2 for h in hands):
                raise InvalidChance("a deal needs a dealer seat and two cards for each player")
            cards = [c for h in hands for c in h] + deck
            if sorted(cards) != list(range(len(CODES))):
                raise InvalidChance("the deal does not hold each of the 15 cards exactly once")
        self._dealer = dealer
        self._hands = [sorted(h) for h in hands]
        self._deck = sorted(deck)
        chance: dict[str, JSON] = {
            "dealer": dealer,
            "hands": [[CODES[c] for c in h] for h in hands],
            "deck": [CODES[c] for c in deck],
        }
        self._records.append(DealRecord(dealer=dealer, chance=chance))
        self._start_turn((dealer + 1) % n)

    # -------------------------------------------------------------- actions
    def _reject(self, seat: int, action: str) -> IllegalAction:
        stage = self._stage
        if stage == OVER:
            return NotYourTurn("the match is over", seat=seat, action=action)
        if stage in (DEAL, DRAW):
            return NotYourTurn("it is not your turn: waiting for a chance outcome", seat=seat, action=action)
        if seat != self._waiting:
            if not 0 <= seat < self.players or self._out[seat]:
                return NotYourTurn("you are out of the game", seat=seat, action=action)
            return NotYourTurn(f"it is not your turn: waiting for seat {self._waiting}", seat=seat, action=action)
        info = self.game.describe(action)
        known_kinds = {
            "income",
            "foreign_aid",
            "tax",
            "exchange",
            "steal",
            "examine",
            "assassinate",
            "coup",
            "pass",
            "challenge",
            "block",
            "lose",
            "return",
            "show",
            "force",
            "leave",
        }
        if info.kind not in known_kinds or (info.kind == "block" and info.choice not in CHARACTERS):
            return UnknownAction(
                f"unknown action {action!r}: expected income, foreign_aid, tax, exchange, steal:<seat>, "
                "examine:<seat>, assassinate:<seat>, coup:<seat>[:<character>], pass, challenge, "
                "block:<character>, lose:<card>, return:<card>[:<card>], show:<card>, force or leave",
                seat=seat,
                action=action,
            )
        legal = self.legal_actions(seat)
        hint = f"; legal now: {', '.join(legal[:12])}{' ...' if len(legal) > 12 else ''}"
        kind = info.kind
        if stage == TURN:
            coins = self._coins[seat]
            if coins >= FORCED_COUP and kind != "coup":
                return IllegalAction(f"with {coins} coins you must coup", seat=seat, action=action)
            if kind == "coup" and coins < COUP_COST:
                return IllegalAction(f"a coup costs {COUP_COST} coins, you have {coins}", seat=seat, action=action)
            if kind == "assassinate" and coins < ASSASSIN_COST:
                return IllegalAction(f"an assassination costs 3 coins, you have {coins}", seat=seat, action=action)
            if kind == "coup" and self._call and info.choice is None:
                return IllegalAction("with two players a coup names a character: coup:<seat>:<character>" + hint)
            if info.target is not None and (not 0 <= info.target < self.players or info.target == seat):
                return IllegalAction(f"seat {info.target} is not another player" + hint, seat=seat, action=action)
            if info.target is not None and self._out[info.target]:
                return IllegalAction(f"seat {info.target} is out of the game", seat=seat, action=action)
            if kind == "steal":
                return IllegalAction(f"seat {info.target} has no coins to steal", seat=seat, action=action)
            return IllegalAction("not an action for your turn" + hint, seat=seat, action=action)
        if stage == WINDOW:
            if kind == "challenge":
                return IllegalAction("this window cannot be challenged (no character is claimed)" + hint)
            if kind == "block":
                return IllegalAction("you may not block this action with that character" + hint)
            return IllegalAction("you are answering a reaction window" + hint, seat=seat, action=action)
        if (
            kind in ("lose", "show", "return")
            and info.cards
            and any(INDEX.get(c) not in self._hands[seat] for c in info.cards)
        ):
            return IllegalAction(f"{' '.join(info.cards)} is not in your hand" + hint, seat=seat, action=action)
        return IllegalAction(f"you must answer the {stage} step" + hint, seat=seat, action=action)

    def apply(self, seat: int, action: str) -> None:
        if action not in self.legal_actions(seat):
            raise self._reject(seat, action)
        self._records[-1].actions.append((seat, action))
        stage = self._stage
        parsed = _PARSED.get(action)
        if parsed is None:
            parts = action.split(":")
            kind = parts[0]
        else:
            kind, parts = parsed
        if stage == TURN:
            self._declare(seat, kind, parts[1:])
        elif stage == WINDOW:
            self._answer(seat, kind, parts[1:])
        elif stage == LOSE:
            self._steps.pop(0)
            self._kill(seat, INDEX[parts[1]])
        elif stage == SHOW:
            self._steps.pop(0)
            self._show(seat, INDEX[parts[1]])
        elif stage == DECIDE:
            self._steps.pop(0)
            self._decide(kind == "force")
        elif stage == RETURN:
            self._steps.pop(0)
            self._return(seat, [INDEX[c] for c in parts[1:]])
        self._advance()
        self._legal = None

    # ------------------------------------------------------------ turn flow
    def _start_turn(self, seat: int) -> None:
        if self._turns >= self._max_turns:
            self._finish_at_limit()
            return
        self._turns += 1
        self._actor = seat
        self._act = {}
        self._window = {}
        self._steps = []
        self._stage = TURN
        self._waiting = seat

    def _declare(self, seat: int, kind: str, args: list[str]) -> None:
        target = int(args[0]) if args else None
        character = args[1] if len(args) > 1 else None
        act: dict[str, Any] = {"kind": kind, "paid": 0}
        if target is not None:
            act["target"] = target
        if character is not None:
            act["character"] = character
        self._act = act
        self._event(seat, kind, target, character or CLAIM.get(kind))
        cost = COUP_COST if kind == "coup" else ASSASSIN_COST if kind == "assassinate" else 0
        if cost:
            self._add_coins(seat, -cost)
            act["paid"] = cost
        claim = CLAIM.get(kind)
        blockable = kind in BLOCKERS
        if claim is None and not blockable:
            self._steps = [("resolve",), ("end",)]
            return
        self._open_window("action", seat, challenge=claim is not None, block=blockable)

    def _open_window(self, kind: str, claimant: int, *, challenge: bool, block: bool) -> None:
        act = self._act
        queue = self._order_from(claimant)
        if kind == "block" or (not challenge and block and act["kind"] != "foreign_aid"):
            queue = [s for s in queue if s == act.get("target")]
        if kind == "block_challenge":
            # Rulings: every reaction window, the challenge of a block included, starts left
            # of the actor; the blocker cannot challenge their own block.
            actor = self._actor
            queue = [s for s in self._order_from(actor) if s != claimant] + [actor]
        self._window = {"kind": kind, "claimant": claimant, "queue": queue, "challenge": challenge, "block": block}
        if kind == "action":
            after: tuple[Any, ...] = ("resolve",)
        elif kind == "block":
            after = ("resolve",)
        else:
            after = ("blocked",)
        self._steps = [("window",), after, ("end",)]

    def _answer(self, seat: int, kind: str, args: list[str]) -> None:
        window = self._window
        window["queue"] = window["queue"][1:]
        if kind == "pass":
            return
        # The window is taken: drop it and its continuation.
        self._steps = []
        if kind == "challenge":
            act = self._act = {**self._act, "challenger": seat}
            self._event(seat, "challenge", target=window["claimant"])
            if window["kind"] == "block_challenge":
                self._challenge(act["blocker"], seat, act["role"], on_block=True)
            else:
                self._challenge(self._actor, seat, CLAIM[act["kind"]], on_block=False)
            return
        # A block.
        self._act = {**self._act, "blocker": seat, "role": args[0]}
        self._event(seat, "block", target=self._actor, character=args[0])
        self._open_window("block_challenge", seat, challenge=True, block=False)

    def _challenge(self, claimant: int, challenger: int, character: str, *, on_block: bool) -> None:
        holding = [c for c in sorted(self._hands[claimant]) if _char(c) == character]
        if holding:
            card = holding[0]
            self._event(claimant, "proved", character=character)
            if on_block:
                then: list[tuple[Any, ...]] = [("blocked",), ("end",)]
            else:
                then = [("after_claim",), ("end",)]
            self._steps = [("lose", challenger), ("replace", claimant, card), ("draw", claimant, 1, "replace"), *then]
            return
        self._event(claimant, "bluffed", character=character)
        if on_block:
            self._steps = [("lose", claimant), ("resolve",), ("end",)]
        else:
            self._steps = [("lose", claimant), ("refund",), ("end",)]

    def _advance(self) -> None:
        """Run automatic steps until a decision or a chance outcome is needed."""
        while self._stage != OVER:
            if not self._steps:
                return
            step = self._steps[0]
            name = step[0]
            if name == "window":
                queue = self._window["queue"]
                while queue and self._out[queue[0]]:
                    queue.pop(0)
                if queue:
                    self._stage = WINDOW
                    self._waiting = queue[0]
                    return
                self._steps.pop(0)
                continue
            if name == "lose":
                seat = step[1]
                if self._out[seat]:
                    self._steps.pop(0)
                    continue
                options = self._distinct(self._hands[seat])
                if len(options) == 1:
                    self._steps.pop(0)
                    self._kill(seat, options[0])
                    continue
                self._stage = LOSE
                self._waiting = seat
                return
            if name == "draw":
                self._stage = DRAW
                self._waiting = CHANCE
                return
            if name == "return":
                seat = step[1]
                self._stage = RETURN
                self._waiting = seat
                if len(self.legal_actions(seat)) == 1:
                    action = self.legal_actions(seat)[0]
                    self._steps.pop(0)
                    self._return(seat, [INDEX[c] for c in action.split(":")[1:]])
                    continue
                return
            if name == "show":
                seat = step[1]
                options = self._distinct(self._hands[seat])
                if not options:
                    self._steps.pop(0)
                    continue
                if len(options) == 1:
                    self._steps.pop(0)
                    self._show(seat, options[0])
                    continue
                self._stage = SHOW
                self._waiting = seat
                return
            if name == "decide":
                self._stage = DECIDE
                self._waiting = self._actor
                return
            self._steps.pop(0)
            if name == "replace":
                seat, card = step[1], step[2]
                self._remove_from_hand(seat, card)
                self._deck.append(card)
                self._deck.sort()
            elif name == "after_claim":
                self._after_claim()
            elif name == "resolve":
                self._resolve()
            elif name == "refund":
                # A bluffer whose caught bluff cost their last card is out: an eliminated
                # player's coins return to the bank, so the cost is not refunded to them.
                if not self._out[self._actor] and self._act["kind"] == "assassinate":
                    self._add_coins(self._actor, self._act.get("paid", 0))
            elif name == "blocked":
                self._event(self._actor, "blocked", target=self._act.get("blocker"))
            elif name == "end":
                self._start_turn(self._order_from(self._actor)[0])
                return

    def _after_claim(self) -> None:
        """The action's claim survived a challenge: blockers may still block."""
        act = self._act
        kind = act["kind"]
        if kind in ("steal", "assassinate") and self._alive(act["target"]) and self._alive(self._actor):
            self._open_window("block", self._actor, challenge=False, block=True)
            return
        self._steps = [("resolve",), ("end",)]

    def _resolve(self) -> None:
        act = self._act
        actor = self._actor
        kind = act["kind"]
        target = act.get("target")
        if self._out[actor]:
            return
        if target is not None and self._out[target]:
            return
        front: list[tuple[Any, ...]] = []
        if kind == "income":
            self._add_coins(actor, 1)
        elif kind == "foreign_aid":
            self._add_coins(actor, 2)
        elif kind == "tax":
            self._add_coins(actor, 3)
        elif kind == "steal":
            assert target is not None
            taken = min(2, self._coins[target])
            self._add_coins(target, -taken)
            self._add_coins(actor, taken)
        elif kind == "assassinate":
            front = [("lose", target)]
        elif kind == "exchange":
            front = [("draw", actor, 1, "exchange")]
        elif kind == "examine":
            front = [("show", target), ("decide",)]
        elif kind == "coup":
            assert target is not None
            named = act.get("character")
            if named is None:
                front = [("lose", target)]
            else:
                matching = [c for c in sorted(self._hands[target]) if _char(c) == named]
                if matching:
                    self._event(target, "called", character=named)
                    self._kill(target, matching[0])
                else:
                    shown = sorted(_char(c) for c in self._hands[target])
                    self._event(target, "missed", character=" ".join(shown))
                    front = [("draw", target, 2, "call")]
        self._steps[0:0] = front

    def _kill(self, seat: int, card: int) -> None:
        self._remove_from_hand(seat, card)
        self._dead = replaced(self._dead, seat, self._dead[seat] + (card,))
        self._lost = replaced(self._lost, seat, self._lost[seat] + 1)
        self._event(seat, "lost", card=CODES[card], character=_char(card))
        if self._five and self._lost[seat] <= LIVES - 2:
            self._steps.insert(0, ("draw", seat, 1, "life"))
        if not self._hands[seat] and not (self._five and self._lost[seat] <= LIVES - 2):
            self._coins = replaced(self._coins, seat, 0)
            self._out = replaced(self._out, seat, True)
            self._orders = self._compute_orders()
            self._event(seat, "out")
            alive = self._alive_seats()
            if len(alive) == 1:
                self._finish(alive[0])

    def _show(self, seat: int, card: int) -> None:
        self._act = {**self._act, "shown": card}
        self._known[(self._actor, seat)] = card
        self._event(seat, "showed", target=self._actor)

    def _decide(self, force: bool) -> None:
        act = self._act
        target = act["target"]
        card = act["shown"]
        self._event(self._actor, "force" if force else "leave", target=target)
        if force:
            # The seed's order: "draw a new card and shuffle the revealed card back into the
            # deck", so the new card is never the one shown.
            self._steps[0:0] = [("draw", target, 1, "force"), ("replace", target, card)]

    def _return(self, seat: int, cards: list[int]) -> None:
        # Cards go back face down: nobody else can tell which, so what others knew of this
        # hand (an examined card) is no longer known, whether that card went back or not.
        for key in [k for k in self._known if k[1] == seat]:
            del self._known[key]
        for c in cards:
            self._remove_from_hand(seat, c)
            self._deck.append(c)
        self._deck.sort()
        self._hands[seat].sort()
        self._drawn = []
        self._event(seat, "returned", character=None)

    def _finish(self, winner: int) -> None:
        self._end((winner,))
        self._event(winner, "won")

    def _finish_at_limit(self) -> None:
        """The turn limit: the players still in with the most cards left, then coins, share first."""
        lives = LIVES if self._five else 2
        best = max((lives - self._lost[s], self._coins[s]) for s in self._alive_seats())
        leaders = tuple(s for s in self._alive_seats() if (lives - self._lost[s], self._coins[s]) == best)
        self._end(leaders)
        for s in leaders:
            self._event(s, "won at the turn limit")

    def _end(self, winners: tuple[int, ...]) -> None:
        self._winner = winners[0] if len(winners) == 1 else -1
        self._stage = OVER
        self._waiting = -2
        self._steps = []
        self._final = tuple(1.0 if s in winners else 0.0 for s in range(self.players))
        self._records[-1].scores = list(self._final)

    # ----------------------------------------------------------- invariants
    def invariants(self) -> list[str]:
        problems: list[str] = []
        if self._stage == DEAL:
            return problems
        cards = [c for h in self._hands for c in h] + [c for d in self._dead for c in d] + self._deck
        if sorted(cards) != list(range(len(CODES))):
            problems.append(f"cards not conserved: {sorted(cards)}")
        for s in range(self.players):
            if self._coins[s] < 0:
                problems.append(f"seat {s} has {self._coins[s]} coins")
            limit = 4 if self._stage in (RETURN, DRAW) else 2
            if len(self._hands[s]) > limit:
                problems.append(f"seat {s} holds {len(self._hands[s])} cards")
            if len(self._dead[s]) != self._lost[s] or self._lost[s] > (LIVES if self._five else 2):
                problems.append(f"seat {s}: lost {self._lost[s]} cards, {len(self._dead[s])} dead")
        for (viewer, target), card in self._known.items():
            if card not in self._hands[target]:
                problems.append(f"seat {viewer} 'knows' {CODES[card]} in seat {target}'s hand, which is gone")
        if self._stage != OVER and len(self._alive_seats()) < 2:
            problems.append("the match goes on with fewer than two players")
        return problems

    def secrets(self, seat: int | None) -> frozenset[str]:
        if self._stage == DEAL:
            return frozenset()
        hidden = {CODES[c] for c in self._deck}
        for other, hand in enumerate(self._hands):
            if other == seat:
                continue
            known = self._known.get((seat, other), -1) if seat is not None else -1
            hidden.update(CODES[c] for c in hand if c != known)
        return frozenset(hidden)


GAME = CoupGame()
