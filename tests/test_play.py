"""``cardarena play``: a person against bots at the keyboard, driven here through a pipe."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cardarena.cli import main
from cardarena.engine import Rerun, rerun
from cardarena.engine.cards import label
from cardarena_sdk import LegalAction
from cardarena_sdk.human import PROMPT, Reply, interpret

ROOT = Path(__file__).resolve().parents[1]
ONES = "1\n" * 3000
"""Always the first move: more answers than any match here asks for."""
SHORT = ("--options", '{"deals": 1}')
"""Glaves of one hand: a short match."""


def _play(tmp_path: Path, *argv: str, stdin: str = ONES) -> subprocess.CompletedProcess[str]:
    """``cardarena play ARGV`` in ``tmp_path`` with ``stdin`` piped in; the bots' log files
    under ``tmp_path/data``."""
    return subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "play", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=tmp_path,
        env=_env(tmp_path),
        timeout=120,
    )


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}


def _human_turns(replay: dict[str, object], seat: int) -> list[tuple[frozenset[str], tuple[str, ...], str]]:
    """Per decision of ``seat`` in the replay: what it must not see then (``State.secrets``),
    its legal actions and the action it played."""
    run = Rerun(replay)
    turns = []
    for turn in run.turns():
        for played in turn:
            if played.seat == seat:
                state = run.state
                turns.append((state.secrets(seat), state.legal_actions(seat), played.action))
    return turns


def _result_rows(out: str) -> dict[str, tuple[int, float]]:
    """The result table the command printed last: each player's place and score."""
    table = out[out.rindex("Result:") :].splitlines()[2:]
    rows = {}
    for line in table:
        match = re.fullmatch(r"(\d+)\s+(\S+)\s+(-?[\d.]+)(\s.*)?", line)
        if match:
            rows[match[2]] = (int(match[1]), float(match[3]))
    return rows


def test_a_whole_glaves_match_played_by_numbers_writes_a_replay_that_reruns(tmp_path: Path) -> None:
    done = _play(tmp_path, "glaves", "--players", "3", "--seed", "7", "--replay", "glaves.json")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "\x1b[" not in out  # piped: plain text, no escape codes
    assert "Glaves, 3 players, you in seat 0 against heuristic-2, heuristic-3 (seed 7" in out
    assert re.search(r"^Your moves:\n {2}1  play \S+\s+play:\w\w$", out, re.M)
    replay = json.loads((tmp_path / "glaves.json").read_text())
    assert replay["seats"] == ["you", "heuristic-2", "heuristic-3"]
    assert rerun(replay).result().to_json() == replay["result"]
    # every prompt was one decision of the seat, answered "1": its first legal action
    turns = _human_turns(replay, 0)
    assert len(turns) == out.count(PROMPT) > 20
    assert all(played == legal[0] for _, legal, played in turns)
    # the result shown is the one recorded
    ranks, scores = replay["result"]["ranks"], replay["result"]["scores"]
    assert _result_rows(out) == {name: (ranks[s], scores[s]) for s, name in enumerate(replay["seats"])}
    # and the replay tooling re-runs it
    listed = subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "replay", "glaves.json", "--seat", "0"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[-1] == f"{len(turns)} decisions"


def test_the_same_seed_and_the_same_answers_play_the_same_match(tmp_path: Path) -> None:
    answers = "2\n1\n3\n" * 1000  # a number beyond the moves offered is asked again
    for name in ("a.json", "b.json"):
        done = _play(tmp_path, "glaves", "--seed", "12", *SHORT, "--replay", name, stdin=answers)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()


def test_a_solitaire_is_played_alone_and_reports_won(tmp_path: Path) -> None:
    done = _play(tmp_path, "emissary", "--seed", "3", "--replay", "emissary.json")
    assert done.returncode == 0, done.stderr
    replay = json.loads((tmp_path / "emissary.json").read_text())
    assert replay["players"] == 1 and replay["seats"] == ["you"]
    assert rerun(replay).result().to_json() == replay["result"]
    out = done.stdout
    assert "The Emissary, solitaire (seed 3" in out
    assert out.count(PROMPT) == len(_human_turns(replay, 0)) > 1
    score, won = replay["result"]["scores"][0], replay["result"]["won"][0]
    table = out[out.rindex("Result:") :].splitlines()
    assert table[1].split() == ["player", "score", "won"]
    assert table[2].split() == ["you", f"{score:g}", "yes" if won else "no"]


def test_bad_input_is_answered_and_asked_again_and_the_match_goes_on(tmp_path: Path) -> None:
    bad = ["0", "99", "play:ZZ", "hello", "", "?", "v"]
    done = _play(tmp_path, "glaves", "--seed", "5", *SHORT, "--replay", "g.json", stdin="\n".join(bad) + "\n" + ONES)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    first = out[: out.index("--- Glaves · over ---")].split(PROMPT)
    moves = len(re.findall(r"^ {2,}\d+  ", first[0], re.M))  # the first decision's numbered moves
    assert first[1] == f"0\nthere is no move 0: type a number from 1 to {moves}\n"
    assert first[2] == f"99\nthere is no move 99: type a number from 1 to {moves}\n"
    assert first[3].startswith("play:ZZ\n'play:ZZ' is not one of your moves: type its number")
    assert first[4].startswith("hello\n'hello' is not one of your moves")
    assert first[5] == f"\ntype the number of a move (1 to {moves}), or ? for help\n"
    assert first[6].startswith("?\nAnswer with the number of one of your moves")
    assert first[7].startswith("v\nYour view (you play seat 0):") and "Your moves:" in first[7]
    replay = json.loads((tmp_path / "g.json").read_text())
    assert out.count(PROMPT) == len(_human_turns(replay, 0)) + len(bad)
    assert "Result:" in out


@pytest.mark.parametrize(("answers", "said"), [("1\n1\nq\n", "you quit"), ("1\n1\n", "the input ended")])
def test_q_or_the_end_of_the_input_quits_with_nothing_written(tmp_path: Path, answers: str, said: str) -> None:
    done = _play(tmp_path, "glaves", "--players", "3", "--seed", "4", "--replay", "out/g.json", stdin=answers)
    assert done.returncode == 0
    assert done.stdout.count(PROMPT) == 3
    assert done.stdout.endswith(f"{said}: match 1 abandoned, nothing of it recorded\n")
    assert "Traceback" not in done.stdout + done.stderr and done.stderr == ""
    assert list((tmp_path / "out").iterdir()) == []  # no replay, not even part of one


def test_ctrl_c_stops_with_status_130_and_no_traceback(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardarena.cli", "play", "glaves", "--seed", "4", "--replay", "g.json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=_env(tmp_path),
    )
    assert proc.stdout is not None
    shown = b""
    while PROMPT.encode() not in shown:  # waiting at its first prompt
        chunk = os.read(proc.stdout.fileno(), 65536)
        assert chunk, shown.decode()
        shown += chunk
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.decode().strip() == "cardarena: interrupted; match 1 abandoned, nothing of it recorded"
    assert list(tmp_path.glob("*g.json*")) == []


def test_the_person_never_sees_a_card_hidden_from_their_seat(tmp_path: Path) -> None:
    done = _play(tmp_path, "glaves", "--players", "3", "--seat", "1", "--seed", "9", "--replay", "g.json")
    assert done.returncode == 0, done.stderr
    replay = json.loads((tmp_path / "g.json").read_text())
    turns = _human_turns(replay, 1)
    # shown[k]: what was printed since the decision before the k-th, from where its deal began
    # (the last deal's cards were public there, and are dealt again)
    shown = [re.split(r"\(deal \d+ dealt\)", text)[-1] for text in done.stdout.split(PROMPT)]
    assert len(shown) == len(turns) + 1 and len(replay["deals"]) > 1
    final = rerun(replay).secrets(1)
    for k, hidden in enumerate([secrets for secrets, _, _ in turns] + [final]):
        for card in hidden:  # as a code (play:QH) or as a label (Q♥, 10♥)
            leak = re.search(rf"(?<![0-9A-Za-z])({card}(?![0-9A-Za-z])|{re.escape(label(card))})", shown[k])
            assert leak is None, f"{card}, hidden from seat 1, shown before its decision {k}: {leak}"
    assert len(turns[0][0]) > 30  # the others' hands and the stock
    # what the seat may see is there: its own hand, and the deal's start among the events
    assert all(label(card) in shown[0] for card in replay["deals"][0]["hands"][1])
    assert done.stdout.count("(deal 2 dealt)") == 1


BOT = """
from cardarena_sdk import Bot


class Printer(Bot):
    raised = False

    def choose(self, view, legal):
        print("PRINTED-BY-THE-BOT", view["hand"])
        if not self.raised:
            self.raised = True
            raise RuntimeError("a bug of the bot")
        return legal[-1].id
"""


def test_a_bot_file_plays_a_seat_and_its_output_goes_to_a_log(tmp_path: Path) -> None:
    (tmp_path / "printer.py").write_text(BOT)
    done = _play(tmp_path, "glaves", "--against", "printer.py,random", "--seed", "2", *SHORT, "--replay", "g.json")
    assert done.returncode == 0, done.stderr
    replay = json.loads((tmp_path / "g.json").read_text())
    assert replay["seats"] == ["you", "printer-2", "random-3"]
    assert rerun(replay).result().to_json() == replay["result"]
    out = done.stdout
    assert "against printer-2, random-3" in out and "printer-2: play " in out
    assert "PRINTED-BY-THE-BOT" not in out + done.stderr  # it would show the bot's hand
    assert "printer-2: default actions played for it (1 × choose raised)" in out
    log = Path(re.findall(r"^what the bots wrote \(prints, errors\): (.+)$", out, re.M)[-1])
    assert log.parent == tmp_path / "data" / "cardarena" / "logs"
    text = log.read_text()
    assert "PRINTED-BY-THE-BOT" in text and "RuntimeError: a bug of the bot" in text


def test_the_readme_command_plays(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    command = re.search(r"^(cardarena play .*)$", readme, re.M)
    assert command
    examples = str(ROOT / "clients/python/examples")
    argv = [a.replace("clients/python/examples", examples) for a in shlex.split(command[1])]
    done = _play(tmp_path, *argv[2:])
    assert done.returncode == 0, done.stderr
    assert "Result:" in done.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["chess"], "unknown game 'chess'; known: "),
        (["glaves", "--players", "7"], "Glaves is played by 2 to 4 players, not 7"),
        (["le_truc", "--players", "3"], "Le Truc is played by 2 or 4 players, not 3"),
        (["glaves", "--against", "nope"], "nope: neither a built-in bot (random, heuristic) nor a .py file"),
        (["glaves", "--against", "missing.py"], "missing.py: no such file"),
        (["glaves", "--against", ","], "--against names no bot"),
        (["glaves", "--players", "4", "--against", "random,heuristic"], "--against needs 3 bots for 4 players"),
        (["emissary", "--against", "random"], "The Emissary is a solitaire: there is nobody to play against"),
        (["glaves", "--options", "{bad"], "--options is not JSON: "),
        (["glaves", "--options", '{"nope": 1}'], "unknown option(s) for glaves: nope"),
        (["glaves", "--options", '{"deals": -3}'], "option deals must be from 0 to 1000"),
        (["glaves", "--seat", "2"], "--seat 2: the seats of 2 players are 0 to 1"),
        (["glaves", "--replay", "."], "--replay .: is a directory (give a file name)"),
    ],
)
def test_argument_errors_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"cardarena: error: {message}") and err.count("\n") == 1


def test_a_bot_file_for_other_games_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "knaves_only.py"
    path.write_text(BOT.replace("raised = False", "raised = False\n    games = ('knaves',)"))
    assert main(["play", "glaves", "--against", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"cardarena: error: {path}: its bot plays only knaves (its games), not glaves\n"


def _legal(*ids: str) -> list[LegalAction]:
    return [LegalAction(id=i, kind=i.split(":")[0], label=i, cards=tuple(i.split(":")[1:])) for i in ids]


def test_an_answer_is_a_number_an_id_in_any_case_or_a_card_one_move_plays() -> None:
    legal = _legal("play:QH", "play:2C", "pass")
    assert interpret(" 2 ", legal) == Reply("action", "play:2C")
    assert interpret("PLAY:qh", legal) == Reply("action", "play:QH")
    assert interpret("qh", legal) == Reply("action", "play:QH")
    assert interpret("Pass", legal) == Reply("action", "pass")
    assert interpret("Q", legal) == Reply("quit")
    assert interpret("+-3", legal).kind == "again"
    assert interpret("4", legal) == Reply("again", "there is no move 4: type a number from 1 to 3")
