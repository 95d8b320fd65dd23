"""The registry: built-in game modules and the ``cardarena.games`` entry point group.

The test session registers ``tests/plugin/cardarena_test_trumps.py`` through an entry point
(``tests/conftest.py``); every registry-driven test plays it.  Here: that it is registered that
way and nowhere else, and that a registration breaking a rule stops with an error naming it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from cardarena.engine import InvalidOptions, games, get_game, registry
from cardarena.engine.registry import GameRegistrationError, check_registration

from .conftest import FIXTURE_GAME, RENAMED, distribution


def test_the_fixture_game_comes_from_an_entry_point_not_from_the_package() -> None:
    game = get_game(FIXTURE_GAME)
    assert type(game).__module__ == "cardarena_test_trumps"
    assert importlib.util.find_spec(f"cardarena.games.{FIXTURE_GAME}") is None
    assert FIXTURE_GAME not in {g.id for g, _ in registry._builtin()}


def test_a_game_whose_id_is_not_its_entry_point_name_is_refused(plugin_site: Path) -> None:
    distribution(
        plugin_site,
        "odd_trumps",
        "odd_trumps = odd_trumps_mod:GAME",
        "odd_trumps_mod",
        RENAMED.format(id="even_trumps"),
    )
    with pytest.raises(
        GameRegistrationError,
        match=r"entry point odd_trumps = 'odd_trumps_mod:GAME' of odd_trumps .*"
        r"game id 'even_trumps' must equal the name it is registered under, 'odd_trumps'",
    ):
        games()


def test_an_entry_point_that_does_not_load_is_named(plugin_site: Path) -> None:
    distribution(plugin_site, "broken_trumps", "broken_trumps = no_such_module:GAME")
    with pytest.raises(
        GameRegistrationError, match=r"broken_trumps = 'no_such_module:GAME'.* does not load: ModuleNotFoundError"
    ):
        get_game("glaves")


def test_a_second_game_with_a_built_in_id_names_both(plugin_site: Path) -> None:
    distribution(
        plugin_site, "glaves_again", "glaves = glaves_again_mod:GAME", "glaves_again_mod", RENAMED.format(id="glaves")
    )
    with pytest.raises(
        GameRegistrationError,
        match=r"two games claim the id 'glaves': module cardarena.games.glaves and entry point glaves",
    ):
        games()


def test_an_entry_point_to_a_built_in_game_registers_it_once(plugin_site: Path) -> None:
    distribution(plugin_site, "alias", "glaves = cardarena.games.glaves:GAME")
    assert games()["glaves"] is get_game("glaves")
    assert list(games()).count("glaves") == 1


@pytest.mark.parametrize(
    ("game_id", "problem"),
    [("Test-Trumps", "is not snake case"), ("test__trumps", "is not snake case"), ("2trumps", "is not snake case")],
)
def test_ids_must_be_snake_case(game_id: str, problem: str) -> None:
    game = get_game(FIXTURE_GAME)
    renamed = type("Renamed", (type(game),), {"id": game_id})()
    with pytest.raises(GameRegistrationError, match=problem):
        check_registration(renamed, game_id, "here")


def test_a_game_needs_a_name_and_a_summary() -> None:
    game = get_game(FIXTURE_GAME)
    for attribute in ("name", "summary"):
        nameless = type("Nameless", (type(game),), {attribute: ""})()
        with pytest.raises(GameRegistrationError, match=f"game 'test_trumps' has no {attribute}"):
            check_registration(nameless, FIXTURE_GAME, "here")
    with pytest.raises(GameRegistrationError, match=r"is not a cardarena\.engine\.Game instance"):
        check_registration(object(), FIXTURE_GAME, "here")


@pytest.mark.parametrize("command", [["simulate", "glaves"], ["service", "--port", "0"]])
def test_a_broken_plugin_stops_a_command_with_one_line_naming_it(tmp_path: Path, command: list[str]) -> None:
    """A broken entry point stopped ``simulate`` with a traceback and ``service`` with
    ``cannot listen: ...``: each says what is wrong in one line, exit status 2, before
    starting anything (no embedded Redis)."""
    import os
    import subprocess
    import sys

    site = tmp_path / "site"
    site.mkdir()
    distribution(site, "broken_trumps", "broken_trumps = no_such_module:GAME")
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env |= {"HOME": str(home), "XDG_DATA_HOME": str(home / "share")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", *command], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("cardarena: error: entry point broken_trumps = 'no_such_module:GAME'"), line
    assert line.endswith("does not load: ModuleNotFoundError: No module named 'no_such_module'"), line
    assert not home.exists()


def test_an_unknown_game_says_a_package_may_not_be_installed_here() -> None:
    """A designer's game missing from one process (the dashboard's: "cannot start the replay:
    unknown game 'crazy_eights'"; `simulate`, the service) said only which games are known."""
    with pytest.raises(
        InvalidOptions,
        match=r"^unknown game 'crazy_eights'; known: .*glaves.* \(a game of another package is known once "
        r"that package is installed here, beside cardarena\)$",
    ):
        get_game("crazy_eights")
