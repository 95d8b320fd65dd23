"""The bot SDK: local play with the engine, built-in bots, loading a bot from a file."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from cardarena.engine import games
from cardarena_sdk import Bot, HeuristicBot, LegalAction, RandomBot, check_bot_spec, load_bot
from cardarena_sdk.bot import answer_hint
from cardarena_sdk.local import play

EXAMPLES = Path(__file__).resolve().parents[1] / "clients" / "python" / "examples"


def test_heuristic_beats_random_at_three_player_glaves() -> None:
    results = play(HeuristicBot(1), "glaves", 3, matches=40, seed=0)
    wins = sum(1 / r.ranks.count(1) for r in results if r.ranks[0] == 1)
    assert wins / len(results) > 0.5  # fair share 1/3; measured 77% over 200 matches


@pytest.mark.parametrize("game_id", ["glaves", "german_whist"])
def test_heuristic_clearly_beats_random_with_two_players(game_id: str) -> None:
    results = play(HeuristicBot(1), game_id, 2, matches=20, seed=0)
    wins = sum(1 / r.ranks.count(1) for r in results if r.ranks[0] == 1)
    # Fair share 1/2; measured over 200 matches (seed 0): glaves 98% (32% before the
    # 2-player evaluator), german_whist 96% (66% before).
    assert wins / len(results) >= 0.8


@pytest.mark.parametrize("game_id", sorted(games()))
def test_builtin_bots_play_every_game_locally(game_id: str) -> None:
    game = games()[game_id]
    results = play(HeuristicBot(2), game_id, game.min_players, matches=1, seed=3)
    assert len(results) == 1 and len(results[0].scores) == game.min_players


def test_view_keys_match_view_json() -> None:
    seen: list[dict[str, object]] = []

    class Spy(Bot):
        def choose(self, view: dict[str, object], legal: list[LegalAction]) -> str:
            seen.append(view)
            assert all(isinstance(a, LegalAction) and a.id for a in legal)
            return legal[0].id

    play(Spy(), "glaves", 3, matches=1, seed=1)
    assert seen and {"game", "seat", "players", "to_act", "hand", "seats"} <= set(seen[0])


def test_load_bot_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(
        "from cardarena_sdk import Bot\n"
        "class Mine(Bot):\n"
        "    def choose(self, view, legal):\n"
        "        return legal[-1].id\n"
    )
    bot = load_bot(str(path))
    assert type(bot).__name__ == "Mine"
    assert isinstance(load_bot("random"), RandomBot)
    with pytest.raises(ValueError):
        load_bot("nonsense")


def _bot_file(tmp_path: Path, body: str, name: str = "mine.py") -> str:
    path = tmp_path / name
    path.write_text("from cardarena_sdk import Bot\n" + body)
    return str(path)


def test_load_bot_takes_the_most_derived_of_the_files_own_subclasses(tmp_path: Path) -> None:
    spec = _bot_file(
        tmp_path,
        "class Base(Bot):\n"
        "    def choose(self, view, legal):\n"
        "        return legal[0].id\n"
        "class Middle(Base):\n"
        "    pass\n"
        "class Mine(Middle):\n"
        "    def choose(self, view, legal):\n"
        "        return legal[-1].id\n",
    )
    assert type(load_bot(spec)).__name__ == "Mine"


def test_load_bot_refuses_unrelated_subclasses(tmp_path: Path) -> None:
    spec = _bot_file(tmp_path, "class A(Bot):\n    pass\nclass B(Bot):\n    pass\n")
    with pytest.raises(ValueError, match=r"mine\.py: defines several Bot subclasses \(A, B\)"):
        load_bot(spec)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("class B(Bot)\n    pass\n", r"SyntaxError: expected ':' \(line 2\)"),
        ("x = 1\n", r"defines no cardarena_sdk\.Bot subclass"),
        ("import no_such_module_here\n", r"ModuleNotFoundError: No module named 'no_such_module_here' \(line 2\)"),
        (
            "class B(Bot):\n    def __init__(self, depth):\n        pass\n",
            r"B\(\) failed: TypeError: .*depth",
        ),
        # mistakes that used to load, then failed (or timed out) at every move
        (
            "class B(Bot):\n    def chose(self, view, legal):\n        return legal[0].id\n",
            r"B does not define choose\(self, view, legal\), the method called for each move$",
        ),
        (
            "class B(Bot):\n    def choose(self, view):\n        return 'x'\n",
            r"B\.choose\(self, view\) must take \(self, view, legal\)$",
        ),
        (
            "class B(Bot):\n    def choose(self, view, legal):\n        return legal[0].id\n"
            "    def on_event(self, seat, action):\n        pass\n",
            r"B\.on_event\(self, seat, action\) must take \(self, match_id, seat, action\)$",
        ),
        (
            "class B(Bot):\n    def choose(self, view, legal):\n        return legal[0].id\n"
            "    def on_result(self, match_id, result):\n        pass\n",
            r"B\.on_result\(self, match_id, result\) must take \(self, result\)$",
        ),
        (
            "class B(Bot):\n    games = ('glaves')\n    def choose(self, view, legal):\n        return legal[0].id\n",
            r"B\.games is the string 'glaves', not a tuple of game ids: write \('glaves',\) .*comma",
        ),
        (
            "class B(Bot):\n    games = ('Glaves',)\n    def choose(self, view, legal):\n        return legal[0].id\n",
            r"B\.games: unknown game id\(s\) 'Glaves'; known: .*glaves",
        ),
        (
            "class B(Bot):\n    max_matches = 0\n    def choose(self, view, legal):\n        return legal[0].id\n",
            r"B\.max_matches must be a whole number of at least 1, not 0$",
        ),
    ],
)
def test_check_bot_spec_names_the_file_and_the_reason(tmp_path: Path, body: str, reason: str) -> None:
    spec = _bot_file(tmp_path, body)
    with pytest.raises(ValueError, match=rf"^{re.escape(spec)}: {reason}"):
        check_bot_spec(spec)


def test_check_bot_spec_refuses_unknown_names_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^randm: neither a built-in bot \(random, heuristic\) nor a \.py file$"):
        check_bot_spec("randm")
    with pytest.raises(ValueError, match=r"nope\.py: no such file$"):
        check_bot_spec(str(tmp_path / "nope.py"))
    check_bot_spec("heuristic")


def _runs_nothing_at_import(source: str) -> bool:
    """Whether a bot file's top level only imports and defines (no call outside definitions
    and ``if __name__ == "__main__":``)."""
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("__name__ == '__main__'", "'__main__' == __name__"):
            continue
        if any(isinstance(n, ast.Call) for n in ast.walk(node)):
            return False
    return True


def test_the_package_example_is_a_bot_file_that_loads_without_running(tmp_path: Path) -> None:
    import cardarena_sdk

    assert cardarena_sdk.__doc__
    example = re.search(r"```python\n(.*?)```", cardarena_sdk.__doc__, re.S)
    assert example and "run(MyBot()" in example.group(1)
    assert _runs_nothing_at_import(example.group(1))
    path = tmp_path / "my_bot.py"
    path.write_text(example.group(1))
    assert type(load_bot(str(path))).__name__ == "MyBot"  # imported: run() is not called


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.name)
def test_example_bots_run_nothing_at_import(path: Path) -> None:
    assert _runs_nothing_at_import(path.read_text())
    check_bot_spec(str(path))


def test_runs_nothing_at_import_sees_top_level_calls() -> None:
    assert not _runs_nothing_at_import("from cardarena_sdk import run\nrun(B(), 'x', token='t')\n")
    assert not _runs_nothing_at_import("results = play(B(), 'glaves', 3)\n")
    assert _runs_nothing_at_import("X = 'a'\nif __name__ == \"__main__\":\n    run(B(), 'x', 't')\n")


def test_a_bot_that_cannot_be_played_is_refused_by_local_play_too() -> None:
    class NoChoose(Bot):
        pass

    with pytest.raises(ValueError, match=r"^NoChoose does not define choose"):
        play(NoChoose(), "glaves", 3)


def test_an_answer_that_is_not_an_id_gets_a_hint() -> None:
    legal = [
        LegalAction("play:5H", "play", "play 5♥", ("5H",)),
        LegalAction("place:rose", "place", "place a rose", (), choice="rose"),
    ]
    assert answer_hint(None, legal) == "did choose forget to return the id?"
    assert answer_hint(legal[0], legal) == "return the action's id ('play:5H'), not the action"
    assert answer_hint("5H", legal) == "answer with an action id, e.g. 'play:5H'"
    assert answer_hint("rose", legal) == "answer with an action id, e.g. 'place:rose'"
    assert answer_hint("play:ZZ", legal) == ""  # the server's reason says it all
