"""Play a bot locally against built-in bots with the engine: no server, no network.

The bot sees exactly what it would see over the wire, and is called as the network client
calls it (see :mod:`cardarena_sdk.client` and the service's match runner):

* ``choose(view, legal)`` with the view and legal actions passed through the wire codec;
* an illegal answer is met by ``on_rejected(view, legal, rejected, reason)`` with the engine's
  reason, until ``max_rejections`` illegal answers to one request: the default action (the
  first legal action, or with ``default_action="random"`` a random one drawn as the service
  draws it) is then played and the fault ``illegal`` recorded (a strike; ``max_strikes``
  strikes forfeit the seat, which is then played by default actions without being asked and
  ranks last); the log has the first illegal answers of each match in full and then one
  summary line (:class:`~cardarena_sdk.bot.IllegalAnswers`), as over the wire;
* ``on_event(match_id, seat, action)`` for every action, in the form the bot's seat may see it
  (``State.public_action``; ``""`` when it sees nothing);
* ``on_match_end(match_id, "completed", scores, ranks)`` at the end, per seat in table order,
  then ``on_result(result)`` (:class:`~cardarena_sdk.bot.MatchResult`: the same with the bot's
  seats and place).

An error in ``choose`` or ``on_rejected`` is logged with its traceback, and the default action
is played for that request with the fault ``error`` recorded (a strike), as over the wire
where the client hands the request back (``HandBack``).  An error in ``on_event``,
``on_match_end`` or ``on_result`` is logged with its traceback and play goes on, as over the
wire.  There are no clocks.

A match still going after ``max_actions`` player actions (the service's default,
:data:`~cardarena.engine.MAX_ACTIONS`, unless told) is stopped as the service stops it: a no
contest (``aborted`` ``action_limit`` in the result: every seat scores 0 and shares place 1,
and tournaments count it for nobody), the bots told ``on_match_end(match_id, "aborted", [], [])``
and ``on_result`` (status ``aborted``, its ``reason``), an ERROR line logged; its replay is
the match so far (``result: null``).

With ``replays=DIR`` each match's replay is written there (``docs/replay-format.md``, with its
faults as the service records them, without ``seq``): ``cardarena replay`` asks the bot its
decisions again (:mod:`cardarena_sdk.replay`).

:func:`play` plays one bot against others, match after match; :func:`play_match` plays one
match of seated bots on a given seed, reported per seat as the service records a result
(``cardarena tournament run --in-process`` plays every match of a tournament with it).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardarena.engine import (
    ACTION_LIMIT,
    ACTION_LIMIT_REASON,
    MAX_ACTIONS,
    Game,
    MatchRng,
    State,
    build_replay,
    forfeit_ranks,
    get_game,
    public_forms,
)
from cardarena.engine.core import JSON
from cardarena.wire import codec

from .bot import Bot, IllegalAnswers, LegalAction, MatchResult, builtin_bot, check_bot, not_an_id

log = logging.getLogger("cardarena_sdk")

MAX_REJECTIONS = 10
"""Illegal answers to one request before the default action is played (as the service's
default fault policy, ``FaultPolicy.max_rejections``)."""
MAX_STRIKES = 3
"""Faults before a seat forfeits (as the service's default ``FaultPolicy.max_strikes``)."""
DEFAULT_ACTIONS = ("first", "random")
"""What is played for a seat that faulted or forfeited (the service's
``FaultPolicy.default_action``): the first legal action, or a random one drawn from the match's
own generator for default actions (``MatchRng(f"{seed}/default")``, as the service draws it)."""


@dataclass(frozen=True)
class LocalFault:
    """A fault in a local match, as the service records it in a replay."""

    player: int
    """Whose: an index into :attr:`LocalResult.scores` (0: the bot); in a
    :class:`TableResult`, the seat."""
    fault: str
    """``illegal``: ``max_rejections`` illegal answers to one request; ``error``: ``choose`` or
    ``on_rejected`` raised (the request was handed back)."""
    action_index: int
    """The match's action (counted from 0, chance outcomes excluded) played by default instead."""
    forfeit: bool = False
    """Whether this fault forfeited the seat (its ``max_strikes``-th)."""


@dataclass(frozen=True)
class LocalResult:
    """One local match, from the bot's point of view: index 0 of ``scores``, ``ranks`` and
    ``won`` is the bot, the others follow in table order."""

    seed: int | str
    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    """Places, forfeiting seats last (as the service ranks them)."""
    won: tuple[bool, ...] | None = None
    """The engine's ``Result.won`` (set by games that define winning apart from rank, e.g.
    solitaires; ``None``: the game does not say)."""
    faults: tuple[LocalFault, ...] = ()
    match_id: str = ""
    """The id the bot's hooks were given."""
    seat: int = 0
    """The bot's seat at the table."""
    replay: str = ""
    """The file its replay was written to (``play(..., replays=DIR)``; ``""``: none)."""
    aborted: str = ""
    """``action_limit`` if the match was stopped at its action limit (a no contest: the scores
    are 0 and the ranks all 1, as the service records it); ``""`` when it ended."""


@dataclass(frozen=True)
class TableResult:
    """One local match per seat in table order, as the service records its result."""

    match_id: str
    seed: int | str
    scores: tuple[float, ...]
    """The engine's final scores."""
    ranks: tuple[int, ...]
    """Places, forfeiting seats last (as the service ranks them)."""
    won: tuple[bool, ...] | None
    """The engine's ``Result.won`` (``None``: the game does not say)."""
    deal_scores: tuple[tuple[float, ...], ...] | None
    """Each deal's scores per seat (``State.scores_by_deal``; ``None``: the game does not
    score deals)."""
    forfeited: tuple[int, ...]
    """The seats that forfeited, in order."""
    strikes: tuple[int, ...]
    """Each seat's strikes (faults)."""
    faults: tuple[LocalFault, ...]
    """Every fault, in the order they happened (``player``: the seat)."""
    replay: dict[str, JSON] | None = None
    """The match's replay (``docs/replay-format.md``), when :func:`play_match` was given
    ``replay_seats``; else ``None``."""
    aborted: str = ""
    """``action_limit`` if the match was stopped at its action limit (a no contest: the scores
    are 0 and the ranks all 1, as the service records it); ``""`` when it ended."""


def play(
    bot: Bot,
    game: str,
    players: int,
    *,
    opponents: Sequence[Bot | str] = (),
    matches: int = 1,
    seed: int | str = 0,
    seat: int | None = None,
    options: dict[str, Any] | None = None,
    max_rejections: int = MAX_REJECTIONS,
    max_strikes: int = MAX_STRIKES,
    replays: str | Path | None = None,
    max_actions: int = MAX_ACTIONS,
) -> list[LocalResult]:
    """Play ``matches`` matches; ``bot`` sits in ``seat`` (default: rotating), the other
    seats are ``opponents`` (bots or built-in names; default ``random``).

    ``max_rejections`` (at least 1), ``max_strikes`` (0: never forfeit) and ``max_actions``
    (at least 1) are the fault policy, as on the service (see the module docstring).
    ``replays``: a directory (made if missing) to write each match's replay into,
    ``<game>-00001.json`` and on, as ``cardarena simulate --replays`` does."""
    others = list(opponents) or ["random"] * (players - 1)
    if len(others) != players - 1:
        raise ValueError(f"need {players - 1} opponents, got {len(others)}")
    _check_policy(max_rejections, "first", max_actions)
    check_bot(bot)
    rules = get_game(game)
    out = Path(replays) if replays is not None else None
    if out is not None:
        if out.exists() and not out.is_dir():
            raise ValueError(f"replays={str(out)!r}: exists and is not a directory")
        out.mkdir(parents=True, exist_ok=True)
    master = random.Random(seed)
    results = []
    for m in range(matches):
        match_seed = master.getrandbits(63)
        mine = m % players if seat is None else seat
        seated = [builtin_bot(o, f"{match_seed}/{i}") if isinstance(o, str) else o for i, o in enumerate(others)]
        seated.insert(mine, bot)
        match = _Match(rules, players, seated, match_seed, f"local-{m + 1}-{match_seed}", options)
        match.play(max_rejections, max_strikes, max_actions=max_actions)
        written = ""
        if out is not None:
            names = [_seat_name(o) for o in others]
            names.insert(mine, _seat_name(bot))
            path = out / f"{rules.id}-{m + 1:05d}.json"
            path.write_text(json.dumps(match.replay([f"{n}-{s + 1}" for s, n in enumerate(names)])))
            written = str(path)
        # Report from the bot's point of view: rotate so index 0 is the bot.
        order = [mine] + [s for s in range(players) if s != mine]
        player = {s: i for i, s in enumerate(order)}
        results.append(
            LocalResult(
                match_seed,
                tuple(match.scores[s] for s in order),
                tuple(match.ranks[s] for s in order),
                None if match.won is None else tuple(match.won[s] for s in order),
                tuple(LocalFault(player[s], fault, index, forfeit) for s, fault, index, forfeit in match.faults),
                match.match_id,
                mine,
                written,
                match.aborted,
            )
        )
    return results


def _seat_name(bot: Bot | str) -> str:
    """A seat's bot in a local replay's ``seats`` (before its seat number): a built-in's name,
    else the bot's ``name`` or class name."""
    return bot if isinstance(bot, str) else bot.name or type(bot).__name__


def play_match(
    game: str,
    seated: Sequence[Bot],
    seed: int | str,
    *,
    match_id: str = "",
    options: dict[str, Any] | None = None,
    max_rejections: int = MAX_REJECTIONS,
    max_strikes: int = MAX_STRIKES,
    default_action: str = "first",
    replay_seats: Sequence[str] | None = None,
    on_deal: Callable[[int], None] | None = None,
    max_actions: int = MAX_ACTIONS,
) -> TableResult:
    """Play one match of ``game`` with ``seated[s]`` in seat ``s`` (one bot object may hold
    several seats), chance drawn from ``MatchRng(seed)`` as on the service, so a seed deals the
    same cards here as there; the hooks are given ``match_id`` (default ``local-<seed>``).

    ``max_rejections`` (at least 1), ``max_strikes`` (0: never forfeit), ``default_action``
    (:data:`DEFAULT_ACTIONS`) and ``max_actions`` (at least 1) are the fault policy, as on the
    service (see the module docstring).  The bots are called as over the wire; a bot's state
    carries over from match to match as it does in one ``cardarena bot run`` process.

    For ``cardarena play``: ``replay_seats``, a name per seat, has the result carry the match's
    replay with them; ``on_deal`` is called with each deal's number (from 1) as it is dealt,
    before anyone acts in it (public: every seat sees a new deal dealt)."""
    _check_policy(max_rejections, default_action, max_actions)
    if replay_seats is not None and len(replay_seats) != len(seated):
        raise ValueError(f"replay_seats names {len(replay_seats)} seats, the match has {len(seated)}")
    for bot in {id(b): b for b in seated}.values():
        check_bot(bot)
    match = _Match(get_game(game), len(seated), list(seated), seed, match_id or f"local-{seed}", options)
    match.on_deal = on_deal
    match.play(max_rejections, max_strikes, default_action, max_actions)
    return TableResult(
        match.match_id,
        seed,
        match.scores,
        match.ranks,
        match.won,
        match.deal_scores,
        tuple(sorted(match.forfeited)),
        tuple(match.strikes),
        tuple(LocalFault(s, fault, index, forfeit) for s, fault, index, forfeit in match.faults),
        None if replay_seats is None else match.replay(list(replay_seats)),
        match.aborted,
    )


@contextlib.contextmanager
def captured() -> Iterator[io.StringIO]:
    """Within the block, ``sys.stdout``, ``sys.stderr`` and the root logger write to the
    yielded buffer (and nowhere else): what bots write while they play (their prints, the
    SDK's lines about their faults), kept from the caller's own output (``cardarena tournament
    run --in-process``, ``cardarena play``)."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    handlers = root.handlers[:]
    root.handlers[:] = [handler]
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            yield buffer
    finally:
        root.handlers[:] = handlers


def _check_policy(max_rejections: int, default_action: str, max_actions: int = MAX_ACTIONS) -> None:
    """Raise ``ValueError`` unless the fault policy can be applied without clocks."""
    if max_actions < 1:
        raise ValueError("max_actions must be at least 1 (every match needs a limit)")
    if max_rejections < 1:
        raise ValueError("max_rejections must be at least 1 (there is no clock to end the retries)")
    if default_action not in DEFAULT_ACTIONS:
        raise ValueError(f"default_action is 'first' or 'random', not {default_action!r}")


def seat_request(game: Game, state: State, seat: int) -> tuple[dict[str, Any], list[LegalAction]]:
    """What ``seat`` is asked with now, as its bot's ``choose(view, legal)`` receives it: its
    view and its legal actions passed through the wire codec (over the wire, in local play and
    when ``cardarena replay`` asks a bot again)."""
    view = codec.decode_view(codec.encode_view(game.id, state.view_json(seat)))
    legal: list[LegalAction] = codec.decode_legal(codec.encode_legal(game, state.legal_actions(seat)))
    return view, legal


class _Match:
    """One local match played as the service's match runner plays it."""

    def __init__(
        self,
        game: Game,
        players: int,
        seated: list[Bot],
        seed: int | str,
        match_id: str,
        options: dict[str, Any] | None,
    ) -> None:
        self.game = game
        self.seated = seated
        self.seed = seed
        self.match_id = match_id
        self.state: State = game.new_state(players, options)
        # One "session" per distinct bot object, with its seats (a bot may hold several).
        self.sessions: list[tuple[Bot, list[int]]] = []
        for s, b in enumerate(seated):
            found = next((seats for other, seats in self.sessions if other is b), None)
            if found is None:
                self.sessions.append((b, [s]))
            else:
                found.append(s)
        self.strikes = [0] * players
        self.forfeited: set[int] = set()
        self.faults: list[tuple[int, str, int, bool]] = []
        self.notes: dict[int, dict[str, JSON]] = {}
        """The replay's annotation of each action the bot did not choose (by action index)."""
        self.actions = 0
        self.aborted = ""
        """:data:`~cardarena.engine.ACTION_LIMIT` once stopped at the action limit."""
        self.scores: tuple[float, ...] = ()
        self.ranks: tuple[int, ...] = ()
        self.won: tuple[bool, ...] | None = None
        self.deal_scores: tuple[tuple[float, ...], ...] | None = None
        self.default_action = "first"
        self.default_rng = MatchRng(f"{seed}/default")  # as the service's runner draws them
        self.illegal = IllegalAnswers(log)  # the first few illegal answers in full, then a summary
        self.on_deal: Callable[[int], None] | None = None
        """Called with a deal's number (from 1) when it is dealt (:func:`play_match`)."""

    def play(
        self, max_rejections: int, max_strikes: int, default_action: str = "first", max_actions: int = MAX_ACTIONS
    ) -> None:
        self.default_action = default_action
        try:
            self._play(max_rejections, max_strikes, max_actions)
        finally:
            self.illegal.end(self.match_id)

    def _play(self, max_rejections: int, max_strikes: int, max_actions: int) -> None:
        state, rng = self.state, MatchRng(self.seed)
        while True:
            seats = state.to_act()
            if not seats:
                break
            if state.is_chance():
                dealt = len(state.deal_records()) if self.on_deal is not None else 0
                state.apply_chance(state.sample_chance(rng))
                if self.on_deal is not None and len(state.deal_records()) > dealt:
                    self.on_deal(dealt + 1)
                continue
            if self.actions >= max_actions:  # as the service's runner: a no contest, told "aborted"
                self._abort(max_actions)
                return
            # Every seat asked at once is asked before any answer is applied, as on the service.
            decisions = [(s, s in self.forfeited, self._decide(s, max_rejections)) for s in seats]
            for s, was_forfeited, (action, fault) in decisions:
                if was_forfeited:  # not asked: the service's annotation
                    self.notes[self.actions] = {"fault": "forfeited", "default": True}
                if fault:
                    self.strikes[s] += 1
                    forfeit = bool(max_strikes and self.strikes[s] >= max_strikes and s not in self.forfeited)
                    if forfeit:
                        self.forfeited.add(s)
                    self.faults.append((s, fault, self.actions, forfeit))
                    note: dict[str, JSON] = {"fault": fault, "default": True}
                    if forfeit:
                        note["forfeit"] = True
                    self.notes[self.actions] = note
                state.apply(s, action)
                self.actions += 1
                self._announce(s, action)
        end = state.result()
        self.scores, self.won = end.scores, end.won
        by_deal = state.scores_by_deal()
        self.deal_scores = None if by_deal is None else tuple(tuple(deal) for deal in by_deal)
        self.ranks = forfeit_ranks(end.ranks, end.scores, self.forfeited, self.game.higher_is_better)
        scores = tuple(float(x) for x in self.scores)  # as MatchEnd carries them
        forfeited = tuple(sorted(self.forfeited))
        for b, held in self.sessions:
            _hook(
                "on_match_end",
                self.match_id,
                b.on_match_end,
                self.match_id,
                "completed",
                list(scores),
                list(self.ranks),
            )
            result = MatchResult(self.match_id, "completed", tuple(held), scores, self.ranks, forfeited)
            _hook("on_result", self.match_id, b.on_result, result)

    def _abort(self, max_actions: int) -> None:
        """Stop the match at its action limit, as the service does (see the module docstring)."""
        players = self.state.players
        self.aborted = ACTION_LIMIT
        self.scores, self.ranks = (0.0,) * players, (1,) * players
        reason = ACTION_LIMIT_REASON.format(limit=max_actions)
        log.error("match %s (%s, seed %r) aborted: %s", self.match_id, self.game.id, self.seed, reason)
        forfeited = tuple(sorted(self.forfeited))
        for b, held in self.sessions:
            _hook("on_match_end", self.match_id, b.on_match_end, self.match_id, "aborted", [], [])
            result = MatchResult(self.match_id, "aborted", tuple(held), (), (), forfeited, reason)
            _hook("on_result", self.match_id, b.on_result, result)

    def replay(self, seats: list[str]) -> dict[str, JSON]:
        """The replay of the match played (``seats``: a name per seat), its faults recorded as
        the service records them (without ``seq``)."""
        faults: list[JSON] = [{"seat": s, "action_index": index, **self.notes[index]} for s, _, index, _ in self.faults]
        extra: dict[str, JSON] = {
            "match_id": self.match_id,
            "faults": faults,
            "forfeited": sorted(self.forfeited),
            "final_ranks": list(self.ranks),
        }
        if self.aborted:
            extra["aborted"] = self.aborted
        return build_replay(self.state, seed=self.seed, seats=seats, extra=extra, annotations=self.notes)

    def _decide(self, seat: int, max_rejections: int) -> tuple[str, str]:
        """The seat's action and its fault (``""``: none): the bot's legal answer, else the
        default action once the bot has given ``max_rejections`` illegal answers or raised."""
        try:
            return self._ask(seat, max_rejections)
        except _Raised as raised:
            step, exc = raised.args
            tb = exc.__traceback__
            log.error(
                "%s raised %s in %s (seat %d): handed back; playing the default action (an error fault; "
                "enough faults forfeit the seat)",
                step,
                type(exc).__name__,
                self.match_id,
                seat,
                exc_info=(type(exc), exc, tb.tb_next if tb is not None else None),  # from the bot's frame on
            )
            return self._default(self.state.legal_actions(seat)), "error"

    def _default(self, legal: Sequence[str]) -> str:
        """The default action among ``legal`` under the fault policy (as the service's runner)."""
        if self.default_action == "random":
            return legal[self.default_rng.below(len(legal))]
        return legal[0]

    def _ask(self, seat: int, max_rejections: int) -> tuple[str, str]:
        """:meth:`_decide` up to the bot's error (:class:`_Raised`)."""
        state, game = self.state, self.game
        legal_ids = state.legal_actions(seat)
        if seat in self.forfeited:
            return self._default(legal_ids), ""
        bot = self.seated[seat]
        view, legal = seat_request(game, state, seat)
        offered = frozenset(legal_ids)
        where = f"{self.match_id} (seat {seat})"
        answer = _as_id(
            "choose", _call("choose", bot.choose, view, legal), legal, where, self.illegal.quiet(self.match_id)
        )
        rejections = 0
        while answer not in offered:
            rejections += 1
            # The service's reason: the engine's, or that an id it would take in another
            # spelling is not one of the ids offered.
            reason = state.check(seat, answer) or f"{answer[:64]!r} is not one of the {len(legal_ids)} legal action ids"
            final = rejections >= max_rejections
            default = self._default(legal_ids) if final else ""
            loud = self.illegal.note(self.match_id)
            self.illegal.rejected(self.match_id, answer, reason, final=final)
            if loud and final:
                log.warning(
                    "action %r rejected in %s (seat %d): %s; %d rejections: playing %r (fault illegal)",
                    answer,
                    self.match_id,
                    seat,
                    reason,
                    rejections,
                    default,
                )
            elif loud:
                log.warning(
                    "action %r rejected in %s (seat %d): %s; asking the bot again", answer, self.match_id, seat, reason
                )
            if final:
                return default, "illegal"
            given = _call("on_rejected", bot.on_rejected, view, legal, answer, reason)
            answer = _as_id("on_rejected", given, legal, where, self.illegal.quiet(self.match_id))
        return answer, ""

    def _announce(self, seat: int, action: str) -> None:
        """``on_event`` for each bot: once per distinct form of the action its seats see (the
        acting seat's own view first), as the service sends ``Event``s per session."""
        for b, seats in self.sessions:
            for seen in public_forms(self.state, seat, action, seats):
                _hook("on_event", self.match_id, b.on_event, self.match_id, seat, seen)


class _Raised(Exception):
    """``(step, exc)``: the bot's ``step`` (``choose``, ``on_rejected``) raised ``exc``."""


def _call(step: str, method: Callable[..., object], *args: Any) -> object:
    """``method(*args)``, a bot's ``step``; its error wrapped in :class:`_Raised`."""
    try:
        return method(*args)
    except Exception as exc:
        raise _Raised(step, exc) from exc


def _as_id(step: str, answer: object, legal: list[LegalAction], where: str, quiet: bool = False) -> str:
    """The answer as sent over the wire (the network client sends ``str()`` of a non-string),
    logged as the network client logs an answer that is not a legal id (``where``: the match
    and seat); ``quiet``: the match's illegal answers are no longer logged one by one."""
    if not quiet and not (isinstance(answer, str) and any(a.id == answer for a in legal)):
        log.error("%s", not_an_id(step, answer, legal, where))
    return str(answer)


def _hook(name: str, match_id: str, call: Callable[..., None], *args: Any) -> None:
    """``call(*args)``: a notification hook of a bot in ``match_id``; its error is logged, as by
    the network client."""
    try:
        call(*args)
    except Exception:
        log.exception("%s failed in %s", name, match_id)
