"""Shared test helpers.

The whole session (and every process it starts) gets a private ``XDG_DATA_HOME``: the
commands' embedded default Redis, their log directories and beat's state go there, never
into the user's own data directory.  Set before any ``cardarena`` module computes its paths.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

_data_home = tempfile.mkdtemp(prefix="cardarena-tests-xdg-")
os.environ["XDG_DATA_HOME"] = _data_home
atexit.register(shutil.rmtree, _data_home, ignore_errors=True)


def _install_fixture_game() -> None:
    """Put a distribution on the path that registers ``tests/plugin/cardarena_test_trumps.py``
    through the ``cardarena.games`` entry point group, as a designer's own package does: in
    this process and (``PYTHONPATH``) in every process the session starts.  So every
    registry-driven test also proves a game from outside ``cardarena.games`` works; users
    never see it (it is registered only here)."""
    site = os.path.join(_data_home, "fixture-site")
    info = os.path.join(site, "cardarena_test_trumps-0.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: cardarena-test-trumps\nVersion: 0\n")
    with open(os.path.join(info, "entry_points.txt"), "w") as f:
        f.write("[cardarena.games]\ntest_trumps = cardarena_test_trumps:GAME\n")
    module_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugin")
    sys.path[:0] = [module_dir, site]
    os.environ["PYTHONPATH"] = os.pathsep.join([module_dir, site, *filter(None, [os.environ.get("PYTHONPATH")])])


_install_fixture_game()
FIXTURE_GAME = "test_trumps"
"""The id of the test-only game registered through an entry point (above)."""

from cardarena.conformance import play_first_legal  # noqa: E402
from cardarena.engine import Game, MatchRng, games, registry  # noqa: E402


def game_seatings() -> Iterator[tuple[str, int]]:
    """Every (game id, player count) the registry supports."""
    for game in games().values():
        for n in game.player_counts:
            yield game.id, n


def registered(game_id: str) -> Game:
    """A registered game by id."""
    return games()[game_id]


@pytest.fixture
def plugin_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on ``sys.path`` for distributions a test writes; the registry is read again
    with them, and once more without them afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.games.cache_clear()
    yield tmp_path
    monkeypatch.undo()
    registry.games.cache_clear()


def distribution(site: Path, name: str, entry_points: str, module: str = "", source: str = "") -> None:
    """Write an installed distribution ``name`` declaring ``entry_points`` (and a module)."""
    info = site / f"{name}-1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1\n")
    (info / "entry_points.txt").write_text(f"[cardarena.games]\n{entry_points}\n")
    if module:
        (site / f"{module}.py").write_text(source)


RAISES_GAME = "test_raises"
"""The id of ``tests/plugin/cardarena_test_raises.py``: a game that loops when both seats keep
raising, registered only by the tests that use :func:`raises_site`."""


@pytest.fixture
def raises_site(plugin_site: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Register the looping test game (:data:`RAISES_GAME`) in this process and, through
    ``PYTHONPATH``, in every process the test starts (a service, a worker, bots)."""
    distribution(plugin_site, "cardarena_test_raises", f"{RAISES_GAME} = cardarena_test_raises:GAME")
    registry.games.cache_clear()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(plugin_site), os.environ.get("PYTHONPATH", "")]))
    return plugin_site


RENAMED = """from cardarena_test_trumps import TestTrumps
class Renamed(TestTrumps):
    id = "{id}"
GAME = Renamed()
"""
"""The source of a module whose ``GAME`` is the fixture game under another id (``{id}``)."""


from .redis_server import key_prefix, redis_url  # noqa: E402
from .server_harness import stores  # noqa: E402
from .tournament_fixtures import processes  # noqa: E402

__all__ = [
    "FIXTURE_GAME",
    "RAISES_GAME",
    "RENAMED",
    "distribution",
    "game_seatings",
    "key_prefix",
    "play_first_legal",
    "processes",
    "raises_site",
    "redis_url",
    "registered",
    "stores",
]


def drawn_deal(seed: int, players: int) -> tuple[int, list[int]]:
    """The first dealer and the shuffled deck a trick game's opening chance outcome draws from
    ``MatchRng(seed)`` (the dealer first, then one shuffle), to check a deal against."""
    rng = MatchRng(seed)
    dealer = rng.below(players)
    deck = list(range(52))
    rng.shuffle(deck)
    return dealer, deck
