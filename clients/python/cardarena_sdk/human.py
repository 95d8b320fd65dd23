"""A person in one seat of a local match, at the keyboard (``cardarena play``).

To the SDK's local match runner (:func:`cardarena_sdk.local.play_match`) the person is a
:class:`~cardarena_sdk.bot.Bot`, :class:`HumanSeat`: at each decision it is given what a bot in
that seat is given (the seat's view and legal actions through the wire codec) and between
decisions each action in the form the seat may see it (``State.public_action``, as the service
sends ``Event``\\ s).  Nothing else reaches this module, so the person sees no more than a bot in
their seat would: no other seat's hand, never the state itself.

What the person sees at a decision: the public events since their last one (each as its
action's label, ``heuristic-2: play Q♥``), their view rendered from its JSON (card codes as
``Q♥``, seat numbers as the players' names, lists of records as tables), and the numbered
legal actions.  They answer with a number or an action id (:func:`interpret`); anything else is
answered with what to type, and asked again.  ``q`` (or the end of the input) raises
:class:`Quit`.

Output goes through :class:`Screen`: rich text with coloured suits on a terminal, plain text
(no escape codes, no trailing blanks) otherwise, so a piped session reads as a transcript.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from cardarena.engine import Game
from cardarena.engine.cards import SUIT_NAMES, SUIT_SYMBOLS, is_card_code, label
from rich import box
from rich.console import Console, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from .bot import Bot, LegalAction

PROMPT = "your move> "
"""What the person is asked with (a test splits a transcript at it)."""

HELP = """\
Answer with the number of one of your moves, or with its id (e.g. play:QH; a card code such as
QH does too when one move plays that card alone).
  v, view   show your view and your moves again
  ?, help   this help
  q, quit   stop playing: the match is abandoned and nothing of it is recorded
At the prompt, Ctrl-D quits as q does; Ctrl-C stops at once."""

SEAT_KEYS = frozenset(
    {
        "seat",
        "seats",
        "dealer",
        "leader",
        "starter",
        "first_player",
        "to_act",
        "winner",
        "last_winner",
        "pot_winner",
        "ruff_winners",
        "bidder",
        "last_bidder",
        "high_bidder",
        "auction_winner",
        "ruff_opener",
        "challenger",
        "blocker",
        "action_target",
        "closed_by",
        "offered_by",
        "ender",
        "last_skull_owner",
    }
)
"""Keys of the games' views whose whole numbers are seats: shown as the players' names."""

DEALT = "(deal {number} dealt)"
"""The line among the events where a new deal begins."""

LEFT_OUT = frozenset({"game", "seat", "players", "to_act"})
"""Top-level keys of a view said once in the heading instead (or always the person: ``to_act``)."""

SUITED_KEYS = ("suit", "trump", "marriage")
"""A one-letter value ``C``/``D``/``H``/``S`` under a key containing one of these is a suit."""


class Quit(BaseException):
    """The person quit (``q``, or the input ended); ``reason`` says which.  Not an
    ``Exception``: the match runner answers a bot's exception with a default action and plays
    on, and this must stop the match."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Reply:
    """What a line typed at the prompt means (:func:`interpret`)."""

    kind: str
    """``action`` (``text`` is its id), ``help``, ``view``, ``quit``, or ``again``: not an
    answer (``text`` says what to type)."""
    text: str = ""


def interpret(line: str, legal: Sequence[LegalAction]) -> Reply:
    """The meaning of ``line`` typed when ``legal`` are the moves: a move by its number (from
    1), its id (in any case), or a card code that exactly one move plays alone; a command; or
    why it is none of these."""
    text = line.strip()
    if not text:
        return Reply("again", f"type the number of a move (1 to {len(legal)}), or ? for help")
    word = text.lower()
    for kind, words in (("quit", ("q", "quit")), ("help", ("?", "h", "help")), ("view", ("v", "view"))):
        if word in words and not any(a.id.lower() == word for a in legal):
            return Reply(kind)
    if re.fullmatch(r"[+-]?[0-9]+", text):
        number = int(text)
        if 1 <= number <= len(legal):
            return Reply("action", legal[number - 1].id)
        return Reply("again", f"there is no move {number}: type a number from 1 to {len(legal)}")
    by_id = [a.id for a in legal if a.id.lower() == word]
    if by_id:
        return Reply("action", by_id[0])
    by_card = [a.id for a in legal if len(a.cards) == 1 and a.cards[0].lower() == word]
    if len(by_card) == 1:
        return Reply("action", by_card[0])
    return Reply(
        "again", f"{text!r} is not one of your moves: type its number (1 to {len(legal)}) or its id, e.g. {legal[0].id}"
    )


class Screen:
    """Where the person reads and types: ``out`` (rich colours when it is a terminal, else
    plain text) and ``inp`` (a line per answer; typed lines are echoed when ``inp`` is not a
    terminal, so a piped session reads as a transcript)."""

    def __init__(self, out: IO[str], inp: IO[str]) -> None:
        self.out, self.inp = out, inp
        self.rich = out.isatty()
        self.echo = not inp.isatty()
        # Plain text is laid out wide (tables of many columns stay whole) and its lines are
        # written without the blanks rich pads them with.
        self.console = (
            Console(file=out, highlight=False, emoji=False, markup=False)
            if self.rich
            else Console(file=io.StringIO(), width=160, highlight=False, emoji=False, markup=False, color_system=None)
        )

    def show(self, *items: RenderableType) -> None:
        """Print ``items``, one after the other."""
        if self.rich:
            for item in items:
                self.console.print(item)
            return
        with self.console.capture() as captured:
            for item in items:
                self.console.print(item)
        self.out.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))
        self.out.flush()

    def heading(self, text: str) -> None:
        """A rule with ``text`` in it (plain: ``--- text ---``)."""
        self.show(Rule(Text(text), style="bold") if self.rich else Text(f"--- {text} ---"))

    def ask(self, prompt: str) -> str:
        """One line typed after ``prompt`` (without its line break); :class:`Quit` at the end
        of the input."""
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.out.write("\n")
            raise Quit("the input ended")
        if self.echo:
            self.out.write(line if line.endswith("\n") else line + "\n")
        return line.rstrip("\r\n")


class HumanSeat(Bot):
    """A person at the keyboard in one seat (see the module docstring).  :meth:`start` before
    each match, :meth:`end` after it."""

    name = "you"

    def __init__(self, game: Game, screen: Screen) -> None:
        self.game = game
        self.screen = screen
        self.seat = 0
        self.names: list[str] = []
        self.heading = ""
        self._events: list[Text] = []
        """What happened since the person's last decision, a line each."""

    def start(self, seat: int, names: Sequence[str], heading: str) -> None:
        """A new match: the person's ``seat``, every seat's name, and the heading of each
        decision (the game, which match)."""
        self.seat, self.names, self.heading = seat, list(names), heading
        self._events = []

    def choose(self, view: dict[str, Any], legal: list[LegalAction]) -> str:
        self._catch_up("your move")
        self._show(view, legal)
        while True:
            reply = interpret(self.screen.ask(PROMPT), legal)
            if reply.kind == "action":
                return reply.text
            if reply.kind == "quit":
                raise Quit("you quit")
            if reply.kind == "help":
                self.screen.show(Text(HELP))
            elif reply.kind == "view":
                self._show(view, legal)
            else:
                self.screen.show(Text(reply.text, style="yellow"))

    def on_event(self, match_id: str, seat: int, action: str) -> None:
        if seat != self.seat and action:  # "": the seat learns nothing of it
            self._events.append(Text(f"  {self._name(seat)}: ") + self._action_label(action))

    def dealt(self, number: int) -> None:
        """Deal ``number`` (from 1) has been dealt: a line among the events from the second on,
        so that the last deal's actions are not taken for this one's."""
        if number > 1:
            self._events.append(Text(f"  {DEALT.format(number=number)}", style="bold"))

    def end(self, view: Mapping[str, Any]) -> None:
        """The match is over: what happened since the person's last decision, and ``view``,
        their seat's view of the end (the result is the caller's to show)."""
        self._catch_up("over")
        self.screen.show(Text("Your view at the end:", style="bold"), view_table(view, self.names, self.rich))

    def _catch_up(self, what: str) -> None:
        """The heading of a decision (or of the end), and the other seats' actions since the
        person's last decision (then forgotten)."""
        self.screen.heading(f"{self.heading} · {what}")
        events, self._events = self._events, []
        if events:
            self.screen.show(Text("Since your last move:", style="bold"), *events)

    def _show(self, view: Mapping[str, Any], legal: Sequence[LegalAction]) -> None:
        self.screen.show(
            Text(f"Your view (you play seat {self.seat}):", style="bold"), view_table(view, self.names, self.rich)
        )
        moves = Table.grid(padding=(0, 2))
        for _ in range(3):
            moves.add_column()
        for number, action in enumerate(legal, 1):
            moves.add_row(Text(f"{number:>3}"), self._action_label(action.id, action.label), Text(action.id, "dim"))
        self.screen.show(Text("Your moves:", style="bold"), moves)

    @property
    def rich(self) -> bool:
        return self.screen.rich

    def _name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def _action_label(self, action: str, known: str = "") -> Text:
        """An action (or the form of it a seat sees) as its label, its cards coloured."""
        text = known
        if not text:
            try:
                text = self.game.describe(action).label
            except Exception:  # a form the game does not describe: its id, readable
                text = action.replace(":", " ")
        return suit_coloured(text)


def suit_coloured(text: str) -> Text:
    """``text`` with each suit symbol and the card before it red for hearts and diamonds."""
    out = Text(text)
    for at, char in enumerate(text):
        if char in ("\u2665", "\u2666"):
            start = at
            while start > 0 and text[start - 1] not in " ,:()":
                start -= 1
            out.stylize("red", start, at + 1)
    return out


def card_text(code: str) -> Text:
    """A card code as its label (``QH`` as ``Q♥``, red for hearts and diamonds)."""
    return Text(label(code), "red" if code[1] in "DH" else "")


def value_text(key: str, value: Any, names: Sequence[str]) -> Text:
    """One value of a view under ``key``: a card's label, a seat's name, a suit's symbol and
    name, ``yes``/``no``, ``-`` for none, list items separated by spaces (cards) or commas."""
    if value is None:
        return Text("-")
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    if isinstance(value, int) and key in SEAT_KEYS and 0 <= value < len(names):
        return Text(names[value], "bold" if names[value] == "you" else "")
    if isinstance(value, float):
        return Text(f"{value:g}")
    if isinstance(value, str):
        if is_card_code(value):
            return card_text(value)
        if value in SUIT_SYMBOLS and any(part in key for part in SUITED_KEYS):
            return Text(f"{SUIT_SYMBOLS[value]} {SUIT_NAMES[value]}", "red" if value in "DH" else "")
        return Text(value)
    if isinstance(value, list):
        if not value:
            return Text("-")
        if all(isinstance(item, dict) for item in value):
            return Text(", ").join(record_text(item, names) for item in value)
        cards = all(is_card_code(item) for item in value)
        return Text(" " if cards else ", ").join(value_text(key, item, names) for item in value)
    if isinstance(value, dict):
        return record_text(value, names)
    return Text(str(value))


def record_text(record: Mapping[str, Any], names: Sequence[str]) -> Text:
    """A record on one line: its seats as names and its cards as labels alone, any other field
    as ``key value`` (``heuristic-2 Q♥``, ``J♥ used yes``)."""
    parts = []
    for key, value in record.items():
        shown = value_text(key, value, names)
        plain = (key in SEAT_KEYS and isinstance(value, int)) or (isinstance(value, str) and is_card_code(value))
        parts.append(shown if plain else Text(key.replace("_", " ") + " ") + shown)
    return Text(" ").join(parts)


def view_table(view: Mapping[str, Any], names: Sequence[str], rich: bool = False, depth: int = 0) -> Table:
    """A view (or a record inside one) as a two-column table: each key and its value; a list
    of records with more than two fields is a table of its own, one row per record."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold" if rich else "", no_wrap=True)
    grid.add_column()
    for key, value in view.items():
        if depth == 0 and key in LEFT_OUT:
            continue
        shown: RenderableType
        if isinstance(value, list) and value and all(isinstance(i, dict) and len(i) > 2 for i in value):
            shown = records_table(value, names, rich)
        elif isinstance(value, dict) and value and depth < 2:
            shown = view_table(value, names, rich, depth + 1)
        else:
            shown = value_text(key, value, names)
        grid.add_row(Text(key.replace("_", " ")), shown)
    return grid


def records_table(records: Sequence[Mapping[str, Any]], names: Sequence[str], rich: bool = False) -> Table:
    """Records (the seats, a game's log) as a table: a column per field, a row per record."""
    table = Table(
        box=box.SIMPLE_HEAD if rich else None,
        show_edge=False,
        pad_edge=False,
        header_style="bold" if rich else "",
    )
    columns = list(dict.fromkeys(key for record in records for key in record))
    for key in columns:
        table.add_column(key.replace("_", " "))
    for record in records:
        table.add_row(*(value_text(key, record.get(key), names) if key in record else Text("") for key in columns))
    return table
