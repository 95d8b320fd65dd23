"""One conformance suite for every registered game: the checks of ``cardarena.conformance``
(random playouts over many seeds, a match of first legal actions, the options), which
``cardarena conformance GAME`` runs on one game; here on every registered game, with the
tests that each check catches what it is for."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from cardarena.cli import main
from cardarena.conformance import (
    ConformanceError,
    check_chance_as_replayed,
    check_default_actions_end,
    check_options,
    check_purity,
    check_random_playouts,
    check_stubborn_play_ends,
    check_views,
    first_decision,
)
from cardarena.engine import InvalidChance, InvalidOptions, MatchRng, State, get_game
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import FIXTURE_GAME, RAISES_GAME, RENAMED, distribution, game_seatings

SEATINGS = list(game_seatings())


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_random_playouts(game_id: str, players: int) -> None:
    check_random_playouts(game_id, players)


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_a_match_of_default_actions_ends(game_id: str, players: int) -> None:
    check_default_actions_end(game_id, players)


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_matches_of_stubborn_bots_end(game_id: str, players: int) -> None:
    check_stubborn_play_ends(game_id, players)


def test_gleeks_raise_loop_is_found_by_the_stubborn_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found in Gleek: two bots that always raised the ruff never finished a match (fixed by
    capping a ruff at three raises).  Random playouts and a match of first legal actions end
    with the old rules, so the suite passed them; a seat that raises whenever it can does not."""
    from cardarena.games import gleek

    monkeypatch.setattr(gleek, "MAX_RAISES", 10**9)  # the rules before the cap
    check_random_playouts("gleek", 3, range(2))
    check_default_actions_end("gleek", 3, range(2))
    message = r"every seat taking a 'raise' action whenever it has one, seed 0: no end after 2000 actions"
    with pytest.raises(ConformanceError, match=message) as failed:
        check_stubborn_play_ends("gleek", 3, limit=2000)
    assert "seat 1 'raise:1', seat 2 'raise:1'" in str(failed.value)  # the loop, in the last actions played
    monkeypatch.undo()
    check_stubborn_play_ends("gleek", 3, limit=2000)


def test_a_game_without_a_cap_on_raises_fails_the_suite_on_its_stubborn_bots(
    raises_site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A designer's game whose raises never stop (the test fixture ``test_raises``): its random
    playouts and its match of first legal actions end, which is all the suite played before;
    ``cardarena conformance`` now fails it, naming the policy, the seed and the loop."""
    assert main(["conformance", RAISES_GAME, "--seeds", "2"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "  ok    2 players: random playouts" in out
    assert "  ok    2 players: a match of first legal actions ends" in out
    [fail] = [line for line in out if "FAIL" in line]
    assert fail.startswith(
        "  FAIL  2 players: matches of stubborn bots end: every seat taking a 'raise' action whenever it has one, "
        "seed 0: no end after 100000 actions, where the service stops a match (the last ones: "
    )
    assert "seat 0 'raise', seat 1 'raise'" in fail and fail.endswith("(a cap on raises, a turn limit)")
    assert out[-1].startswith("1 of 5 checks failed")


@pytest.mark.parametrize(("game_id", "players"), SEATINGS)
def test_options_are_validated_by_name_and_range(game_id: str, players: int) -> None:
    check_options(game_id, players)


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
    first_decision(state)


def test_the_leak_check_sees_card_codes_inside_strings() -> None:
    state = get_game("glaves").new_state(3)
    state.apply_chance(state.sample_chance(MatchRng(1)))
    other = state.view_json(1)["hand"]
    assert set(other) <= state.secrets(0)

    class Leaky(type(state)):
        def view_json(self, seat: int | None) -> dict[str, object]:
            return {**super().view_json(seat), "note": f"seat 1 holds {','.join(other)}"}

    state.__class__ = Leaky
    with pytest.raises(ConformanceError, match=rf"seat None sees \[.*'{other[0]}'"):
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
    with pytest.raises(ConformanceError, match="names its dealer"):
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


def test_the_chance_check_catches_an_outcome_inside_a_deal_left_unrecorded() -> None:
    """A game that takes a draw inside a deal without adding it to its deal record writes
    replays that do not re-run; the suite said so only at the end of the playout, with the
    re-run's "seat 1 is not to act".  Now at the draw, saying what to record."""
    game = get_game("coup")

    class Unrecorded(type(game.new_state(2))):  # type: ignore[misc]
        def apply_chance(self, outcome: Mapping[str, object]) -> None:
            records = self.deal_records()
            deals, actions = len(records), len(records[-1].actions) if records else 0
            super().apply_chance(outcome)
            if len(self.deal_records()) == deals:  # inside a deal: forget it
                del self.deal_records()[-1].actions[actions:]

    state = Unrecorded(game, 2, game.options(2))
    rng, picker = MatchRng(3), MatchRng("pick")
    while not state.is_terminal():
        if not state.is_chance():
            seat = state.to_act()[0]
            state.apply(seat, picker.choice(state.legal_actions(seat)))
            continue
        before, outcome = state.clone(), state.sample_chance(rng)
        state.apply_chance(outcome)
        if len(state.deal_records()) == len(before.deal_records()):
            with pytest.raises(ConformanceError, match=r"inside a deal is not recorded: apply_chance must append"):
                check_chance_as_replayed(before, state, outcome)
            return
        check_chance_as_replayed(before, state, outcome)
    pytest.fail("no draw inside a deal in this match")


LEAKY = '''
from cardarena.engine import IllegalAction
from cardarena_test_trumps import TestTrumps, TestTrumpsState


class LeakyState(TestTrumpsState):
    """Test Trumps whose refusals name the next seat's hand."""

    def apply(self, seat, action):
        try:
            super().apply(seat, action)
        except IllegalAction as exc:
            nxt = (seat + 1) % self.players
            leak = f"{exc.reason} (seat {nxt} holds {' '.join(self._hands[nxt])})"
            raise type(exc)(leak, seat=seat, action=action) from None


class Leaky(TestTrumps):
    id = "leaky_trumps"
    state_class = LeakyState


GAME = Leaky()
'''

BROKEN = """
from cardarena_test_trumps import TestTrumps, TestTrumpsState


class BrokenState(TestTrumpsState):
    def invariants(self):
        if self._records and sum(len(hand) for hand in self._hands) == 3:
            raise KeyError("a bug of the game")
        return super().invariants()


class Broken(TestTrumps):
    id = "broken_trumps"
    state_class = BrokenState


GAME = Broken()
"""


def test_cardarena_conformance_passes_a_plugin_game(capsys: pytest.CaptureFixture[str]) -> None:
    """A designer's game from a distribution of its own: the conformance suite runs on it
    without a checkout of cardarena's tests (it had to be run from one, with pytest)."""
    assert main(["conformance", FIXTURE_GAME, "--seeds", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Test Trumps (test fixture) (test_trumps): the conformance suite, 3 seeds per player count"
    assert out[1:3] == ["  ok    rules code is pure", "  ok    2 players: random playouts"]
    assert "  ok    2 players: matches of stubborn bots end" in out
    assert "  ok    4 players: options" in out and out[-1] == "all 13 checks passed"


def test_a_refusal_that_names_another_seats_cards_fails(plugin_site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The reason a bot is given for an illegal answer goes to that bot while the match runs;
    nothing checked it for secrets, so a game whose reasons named another hand leaked it."""
    distribution(plugin_site, "leaky_trumps", "leaky_trumps = leaky_trumps_mod:GAME", "leaky_trumps_mod", LEAKY)
    assert main(["conformance", "leaky_trumps", "--players", "2", "--seeds", "1"]) == 1
    out = capsys.readouterr().out.splitlines()
    [fail] = [line for line in out if "FAIL" in line]
    assert fail.startswith("  FAIL  2 players: random playouts: seed 0, transition 2: the reason seat ")
    assert "names its secrets [" in fail and "holds " in fail
    assert out[-1].startswith("1 of 5 checks failed")


def test_an_exception_of_the_game_is_shown_with_its_traceback(
    plugin_site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    distribution(plugin_site, "broken_trumps", "broken_trumps = broken_trumps_mod:GAME", "broken_trumps_mod", BROKEN)
    assert main(["conformance", "broken_trumps", "--players", "3", "--seeds", "1"]) == 1
    out = capsys.readouterr().out
    assert "  FAIL  3 players: random playouts: the game raised KeyError: 'a bug of the game'\n" in out
    assert 'broken_trumps_mod.py", line ' in out and "in invariants" in out
    assert "(conformance check: seed 0, transition " in out
    assert "  ok    3 players: options" in out


def test_a_game_that_checks_its_secrets_itself_is_told_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "skull", "--players", "3", "--seeds", "1"]) == 0
    assert "  note  hidden_information = 'own_tests': secrets() stays empty" in capsys.readouterr().out


def test_cardarena_conformance_argument_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", FIXTURE_GAME, "--players", "5"]) == 2
    err = capsys.readouterr().err
    assert err == "cardarena: error: Test Trumps (test fixture) is played by 2 to 4 players, not 5\n"
    assert main(["conformance", "nosuch"]) == 2
    assert capsys.readouterr().err.startswith("cardarena: error: unknown game 'nosuch'; known: ")


def test_a_plugin_game_that_imports_an_rng_of_its_own_is_impure(plugin_site: Path) -> None:
    """tests/test_engine_purity.py checks a checkout's registered games; the check now runs
    on a designer's game without one."""
    source = "import random\n" + RENAMED.format(id="dicey_trumps")
    distribution(plugin_site, "dicey_trumps", "dicey_trumps = dicey_trumps_mod:GAME", "dicey_trumps_mod", source)
    with pytest.raises(ConformanceError, match=r"dicey_trumps_mod\.py: rules code imports \['random'\]"):
        check_purity("dicey_trumps")
    check_purity(FIXTURE_GAME)
