"""Typed view messages: a ``view_<id>.proto`` the generator would not use fails here, loudly.

The generator (``python -m cardarena.wire.generate``) takes a game's typed view from
``proto/cardarena/v1/view_<id>.proto`` only if that file defines ``<CamelId>View``; otherwise
the game silently falls back to the generic ``Struct`` view.  These tests turn that silence
into a failure naming the file and the message it should define.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from cardarena.engine import games
from cardarena.wire import generate

_MESSAGE = re.compile(r"^message\s+(\w+)\s*\{", re.M)


def view_proto_problems(v1: Path) -> list[str]:
    """What is wrong with the ``view_*.proto`` files in ``v1``: a file named after a game that
    does not define the game's message, or a file no game uses."""
    problems: list[str] = []
    registered = games()
    used = {file for _, file in generate.view_messages().values()}
    for path in sorted(v1.glob("view_*.proto")):
        game_id = path.stem.removeprefix("view_")
        messages = _MESSAGE.findall(path.read_text())
        if game_id in registered:
            wanted = f"{generate.camel(game_id)}View"
            if wanted not in messages:
                problems.append(
                    f"{path.name} defines {', '.join(messages) or 'no message'} but not {wanted}: "
                    f"the generator would send {game_id} views as generic Structs"
                )
        elif path.name not in used:
            problems.append(
                f"{path.name} is used by no game: its name is not view_<game id>.proto of a registered "
                f"game ({', '.join(registered)}), and no game's view class is named like one of its messages"
            )
    return problems


def test_every_view_proto_is_used_by_its_game() -> None:
    assert view_proto_problems(generate.V1) == []


def test_every_game_with_a_view_proto_gets_its_typed_view() -> None:
    found = generate.view_messages()
    for game_id in games():
        if (generate.V1 / f"view_{game_id}.proto").exists():
            assert found.get(game_id) == (f"{generate.camel(game_id)}View", f"view_{game_id}.proto")


def test_a_wrong_message_name_or_file_name_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    v1 = tmp_path / "v1"
    shutil.copytree(generate.V1, v1)
    monkeypatch.setattr(generate, "V1", v1)
    text = (v1 / "view_skull.proto").read_text()
    (v1 / "view_skull.proto").write_text(text.replace("message SkullView {", "message SkulView {"))
    (v1 / "view_skul.proto").write_text('syntax = "proto3";\npackage cardarena.v1;\nmessage Other {}\n')
    problems = view_proto_problems(v1)
    assert any(p.startswith("view_skull.proto defines") and "but not SkullView" in p for p in problems)
    assert any(p.startswith("view_skul.proto is used by no game") for p in problems)
    assert "skull" not in generate.view_messages()  # what the generator alone would do: drop it
