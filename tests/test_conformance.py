"""One conformance suite for every registered game: random playouts over many seeds.

Checks after every transition: the right seats act, illegal input is rejected with a reason
and changes nothing, the game's invariants hold (cards conserved ...), views hide the
seat's secrets; at the end: the match terminates with a consistent result, and the replay
reproduces the match both from its recorded chance outcomes and from its seed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

import pytest
from cardarena.engine import (
    CHANCE,
    IllegalAction,
    InvalidChance,
    InvalidOptions,
    MatchRng,
    NotYourTurn,
    State,
    build_replay,
    get_game,
    rerun,
    rerun_from_seed,
)
from cardarena.engine.cards import CODES
from cardarena.engine.replay import DEAL_KEYS, opening_outcome
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import game_seatings, play_first_legal

SEATINGS = list(game_seatings())
SEEDS = range(12)
MAX_STEPS = 20000


def check_rejections(state: State, rng: MatchRng, seen: str = "pass") -> None:
    """Every seat not asked to act, and the chance pseudo-seat always, has no legal action and
    is refused one (a legal one of the seat to act, else ``seen``: an id that was legal earlier
    in the match), without a change to the state."""
    seats = state.to_act()
    before = json.dumps(state.view_json(None), sort_keys=True)
    for seat in [CHANCE, *range(state.players)]:
        if seat in seats and seat != CHANCE:
            with pytest.raises(IllegalAction) as info:
                state.apply(seat, "no-such-action:XX")
            assert info.value.reason
        else:
            assert state.legal_actions(seat) == (), seat
            legal_elsewhere = state.legal_actions(seats[0]) if seats and seats[0] >= 0 else ()
            action = legal_elsewhere[0] if legal_elsewhere else seen
            with pytest.raises(IllegalAction) as info:
                state.apply(seat, action)
            assert info.value.reason
            if seat != CHANCE:
                assert isinstance(info.value, NotYourTurn)
            assert state.check(seat, action)
    assert json.dumps(state.view_json(None), sort_keys=True) == before


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
    for any other (tried on copies: ids near the legal ones)."""
    candidates: set[str] = set()
    for action in {*legal[:3], *legal[-3:]}:  # the first and the last (Bourré: the longest exchanges)
        candidates |= perturbations(action, rng)
    for action in sorted(candidates - set(legal)):
        reason = state.check(seat, action)
        assert reason, f"check() finds no reason against {action!r}, not in {legal[:8]}"
        with pytest.raises(IllegalAction):
            state.clone().apply(seat, action)
    for action in legal[:4]:
        assert state.check(seat, action) is None


_WORD = re.compile(r"[0-9A-Za-z]+")


def visible_tokens(value: object) -> set[str]:
    """Every string of a view (keys and values) and every word inside one: ``"5D,6H"`` shows
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


def check_views(state: State) -> None:
    """No view shows one of its seat's secrets (the check relies on ``secrets()`` alone)."""
    for seat in [None, *range(state.players)]:
        leaked = sorted(state.secrets(seat) & visible_tokens(state.view_json(seat)))
        assert not leaked, f"seat {seat} sees {leaked}"


def check_events(state: State, seat: int, action: str, kept: Mapping[int | None, frozenset[str]]) -> None:
    """What another seat (or a spectator) is told of ``seat``'s ``action`` names none of its
    secrets from before the action that are still secret after it (a card the action made
    public may be named; a discard face down may not).  ``kept``: the secrets before."""
    for viewer, before in kept.items():
        still = before & state.secrets(viewer)
        told = state.public_action(viewer, seat, action)
        leaked = visible_tokens(told or "") & still
        assert not leaked, f"seat {viewer} is told {told!r} of seat {seat}'s {action!r}: {sorted(leaked)}"


def check_chance_as_replayed(before: State, after: State, outcome: dict[str, object]) -> None:
    """A chance outcome, in the form a replay gives it back, has the same effect: an opening
    outcome is re-run as the replay's deal without ``actions`` and ``scores`` (with ``dealer``
    from the deal record), an outcome inside a deal as its JSON.  So a game whose
    ``apply_chance`` refuses what the replay passes fails here, not when a replay is re-run."""
    assert json.loads(json.dumps(outcome)) == outcome, "a chance outcome must be JSON (lists, not tuples)"
    records = after.deal_records()
    if len(records) > len(before.deal_records()):
        record = records[-1]
        assert not set(DEAL_KEYS) & set(outcome), f"an opening outcome may not use the keys {DEAL_KEYS}"
        assert outcome.get("dealer") == record.dealer, "an opening outcome names its dealer (the deal record's)"
        replay = json.loads(json.dumps(build_replay(after, seed=0, seats=["x"] * after.players)))
        again = opening_outcome(replay["deals"][-1])
    else:
        again = json.loads(json.dumps(outcome))
    replayed = before.clone()
    replayed.apply_chance(again)
    for seat in [None, *range(after.players)]:
        assert replayed.view_json(seat) == after.view_json(seat)


def playout(game_id: str, players: int, seed: int) -> State:
    game = get_game(game_id)
    state = game.new_state(players)
    rng = MatchRng(seed)
    picker = MatchRng(f"pick/{seed}")
    steps = decisions = chances = 0
    hidden = False
    seen = "pass"
    while not state.is_terminal():
        steps += 1
        assert steps < MAX_STEPS, "the match does not terminate"
        seats = state.to_act()
        assert seats, "nobody to act in a live match"
        if seats == (CHANCE,):
            if chances % 5 == 0:
                check_rejections(state, picker, seen)
            chances += 1
            before = state.clone()
            outcome = state.sample_chance(rng)
            state.apply_chance(outcome)
            check_chance_as_replayed(before, state, outcome)
        else:
            assert all(0 <= s < players for s in seats)
            if steps % 7 == 1 or decisions == 0:
                check_rejections(state, picker, seen)
                check_views(state)
                check_exact_ids(state, seats[0], state.legal_actions(seats[0]), MatchRng(f"ids/{seed}/{steps}"))
            decisions += 1
            hidden = hidden or any(state.secrets(s) for s in [None, *range(players)])
            for seat in seats:
                legal = state.legal_actions(seat)
                assert legal, f"seat {seat} is asked to act but has no legal action"
                assert len(set(legal)) == len(legal)
                for action in legal[:3]:
                    info = game.describe(action)
                    assert info.id == action and info.kind and info.label
                seen = picker.choice(legal)
                viewers = [None, *(v for v in range(players) if v != seat)]
                kept = {v: state.secrets(v) for v in viewers}
                state.apply(seat, seen)
                check_events(state, seat, seen, kept)
        problems = state.invariants()
        assert not problems, problems
    declared = game.hidden_information
    if declared == "secrets":
        assert hidden, f"{game_id} says State.secrets() lists what it hides, but it was always empty"
    else:
        assert not hidden, f"{game_id} says hidden_information = {declared!r}, but secrets() is not empty"
    return state


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_random_playouts(game_id: str, players: int) -> None:
    for seed in SEEDS:
        state = playout(game_id, players, seed)
        result = state.result()
        assert len(result.scores) == len(result.ranks) == players
        assert min(result.ranks) == 1
        for a in range(players):
            for b in range(players):
                if result.scores[a] == result.scores[b]:
                    assert result.ranks[a] == result.ranks[b]
        replay = build_replay(state, seed=seed, seats=[f"bot-{i}" for i in range(players)])
        replay = json.loads(json.dumps(replay))
        again = rerun(replay)
        assert again.view_json(None) == state.view_json(None)
        from_seed = rerun_from_seed(replay)
        assert from_seed.result() == state.result()
        assert build_replay(from_seed, seed=seed, seats=replay["seats"]) == replay


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_a_match_of_default_actions_ends(game_id: str, players: int) -> None:
    """The server plays the first legal action for every forfeited seat (the default
    ``default_action``), so a match where everybody forfeited, or a bot that always takes the
    first action, must still end: a game that could cycle needs a rule that ends it (Coup's
    turn limit)."""
    game = get_game(game_id)
    for seed in SEEDS:
        state = game.new_state(players)
        play_first_legal(state, seed)
        assert len(state.result().scores) == players


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_options_are_validated(game_id: str, players: int) -> None:
    game = get_game(game_id)
    with pytest.raises(ValueError, match="unknown option"):
        game.new_state(players, {"no_such_option": 1})
    with pytest.raises(ValueError, match="players"):
        game.new_state(game.max_players + 1)


def _first_decision(state: State) -> None:
    """Deal (from a fixed seed) until a seat is asked to act; it has something to do."""
    rng = MatchRng("options")
    while state.is_chance():
        state.apply_chance(state.sample_chance(rng))
    if not state.is_terminal():
        assert state.legal_actions(state.to_act()[0])


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_options_refuses_bad_values_by_name_and_range(game_id: str, players: int) -> None:
    """``options()`` alone validates (the platform checks options with it before a match is
    queued): every integer option has a range, and values outside it or of the wrong type are
    refused naming the option; the ends of each range and the defaults make playable matches."""
    game = get_game(game_id)
    defaults = game.option_defaults(players)
    ranges = game.option_ranges(players)
    assert set(ranges) <= set(defaults)
    for key, default in defaults.items():
        assert type(default) in (int, bool), f"{key}: an option of another type needs its own checks here"
        bad: list[object] = [None, "1", 1.5, [1]]
        if type(default) is int:
            bounds = ranges.get(key)
            assert bounds is not None, f"integer option {key} has no range in option_ranges()"
            assert bounds.low <= default <= bounds.high
            assert bounds.low >= 0 and bounds.high < 2**31  # counts; views carry them as int32
            for value in (-1, -5, bounds.low - 1, bounds.high + 1):
                with pytest.raises(InvalidOptions, match=rf"option {key} must be {re.escape(str(bounds))}, got"):
                    game.options(players, {key: value})
            bad.append(True)
            for good in {bounds.low, bounds.high, default}:
                _first_decision(game.new_state(players, game.options(players, {key: good})))
        else:
            bad.append(1)
        for value in bad:
            with pytest.raises(InvalidOptions, match=rf"option {key} must be"):
                game.options(players, {key: value})


_OPTION_VALUES = st.one_of(
    st.integers(-3, 1200),
    st.integers(),
    st.sampled_from([0, 1, 2, 1000, 100_000, 2**31]),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
    st.floats(allow_nan=False),
)


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(data=st.data())
def test_options_that_options_accepts_make_a_match(game_id: str, players: int, data: st.DataObject) -> None:
    game = get_game(game_id)
    keys = sorted(game.option_defaults(players))
    given_options = data.draw(st.dictionaries(st.sampled_from(keys), _OPTION_VALUES) if keys else st.just({}))
    try:
        options = game.options(players, given_options)
    except InvalidOptions:
        return
    assert game.options(players, options) == options  # validated options validate again unchanged
    state = game.new_state(players, options)
    assert state.options == options
    _first_decision(state)


def test_the_leak_check_sees_card_codes_inside_strings() -> None:
    state = get_game("glaves").new_state(3)
    state.apply_chance(state.sample_chance(MatchRng(1)))
    other = state.view_json(1)["hand"]
    assert set(other) <= state.secrets(0)

    class Leaky(type(state)):
        def view_json(self, seat: int | None) -> dict[str, object]:
            return {**super().view_json(seat), "note": f"seat 1 holds {','.join(other)}"}

    state.__class__ = Leaky
    with pytest.raises(AssertionError, match=rf"seat None sees \[.*'{other[0]}'"):
        check_views(state)


def _first_deal(state: State) -> None:
    before = state.clone()
    outcome = state.sample_chance(MatchRng(1))
    state.apply_chance(outcome)
    check_chance_as_replayed(before, state, outcome)


def test_the_chance_check_catches_a_deal_a_replay_cannot_give_back() -> None:
    """Two ways a game breaks re-runs: its ``apply_chance`` refuses the ``dealer`` the replay
    adds, or its deal record keeps less than the outcome it needs."""
    base = type(get_game("glaves").new_state(3))

    class NoDealerKey(base):
        def sample_chance(self, rng: MatchRng) -> dict[str, object]:
            return {k: v for k, v in super().sample_chance(rng).items() if k != "dealer"}

        def apply_chance(self, outcome: Mapping[str, object]) -> None:
            if "dealer" in outcome:
                raise InvalidChance("unknown key 'dealer'")
            super().apply_chance({**outcome, "dealer": 0})

    class ForgetfulRecord(base):
        def apply_chance(self, outcome: Mapping[str, object]) -> None:
            super().apply_chance(outcome)
            record = self.deal_records()[-1]
            record.chance = {k: v for k, v in record.chance.items() if k != "trump_card"}

    _first_deal(base(get_game("glaves"), 3, get_game("glaves").options(3)))
    state = NoDealerKey(get_game("glaves"), 3, get_game("glaves").options(3))
    with pytest.raises(AssertionError, match="names its dealer"):
        _first_deal(state)
    state = ForgetfulRecord(get_game("glaves"), 3, get_game("glaves").options(3))
    with pytest.raises(InvalidChance):
        _first_deal(state)


def test_a_game_cannot_leave_its_secrets_undeclared() -> None:
    """``secrets`` has no silent default: a state class that does not implement it cannot be
    made, and a game that hides nothing says so (``hidden_information``)."""
    assert "secrets" in State.__abstractmethods__
    from cardarena.engine import games

    for game in games().values():
        assert game.hidden_information in ("secrets", "none", "own_tests")


def test_registry_ids_are_snake_case() -> None:
    from cardarena.engine import games

    for game_id, game in games().items():
        assert game_id == game.id
        assert game_id.replace("_", "").isalpha() and game_id.islower()
        assert game.summary
