"""``cardarena replay`` and ``cardarena_sdk.replay``: a seat's decisions in a recorded match are
exactly what its bot was asked live (views, legal actions, events, at the dashboard's steps),
never another seat's hidden cards; a bot asked again is called as live while the record is
what is applied; its differences, errors and illegal answers are reported; bad input is a
one-line error (exit 2)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cardarena.cli import main
from cardarena.engine import rerun_from_seed
from cardarena_dashboard.replay_steps import state_at, transitions
from cardarena_sdk import load_bot
from cardarena_sdk.local import play
from cardarena_sdk.replay import Decision, ReplayError, decisions, reask

BOT = '''"""Answers by a hash of all it was told: a view, a legal list or an event that differs from
live changes its answers."""
import json
import zlib

from cardarena_sdk import Bot


class Hashing(Bot):
    shift = {shift}  # 1: another legal action than the plain bot's wherever there are several
    fail_at = {fail_at}  # choose raises at this call (from 1; 0: never)

    def __init__(self):
        self.asked, self.told, self.results = [], [], []

    def on_event(self, match_id, seat, action):
        self.told.append([seat, action])

    def choose(self, view, legal):
        self.asked.append((view, legal))
        if len(self.asked) == self.fail_at:
            raise RuntimeError("call %d fails" % self.fail_at)
        if len(self.asked) == self.slow_at:  # (the lines above are where the tests expect them)
            __import__("time").sleep(0.15)
        text = json.dumps([view, [a.id for a in legal], self.told], sort_keys=True)
        return legal[(zlib.crc32(text.encode()) + self.shift) % len(legal)].id

    def on_result(self, result):
        self.results.append(result)

    slow_at = {slow_at}  # choose takes 150 ms more at this call (from 1; 0: never)
'''

GAMES = [("glaves", 3), ("skull", 3), ("coup", 2), ("nine_card_golf", 2)]
"""Glaves in turn order; Skull and Nine Card Golf ask several seats at once; Coup has
challenge and block windows out of turn order."""

SEAT = 1


def _bot_file(where: Path, name: str = "hashing", *, shift: int = 0, fail_at: int = 0, slow_at: int = 0) -> str:
    path = where / f"{name}.py"
    path.write_text(BOT.format(shift=shift, fail_at=fail_at, slow_at=slow_at))
    return str(path)


def _played(tmp_path: Path, game: str, players: int, *, fail_at: int = 0) -> tuple[Any, Path]:
    """The bot that played seat 1 of one local match (the others: heuristic), and the replay."""
    bot: Any = load_bot(_bot_file(tmp_path, "player", fail_at=fail_at))
    [result] = play(bot, game, players, seat=SEAT, seed=3, opponents=["heuristic"] * (players - 1), replays=tmp_path)
    return bot, Path(result.replay)


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["replay", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_decisions_are_what_the_bot_was_asked_live_at_the_dashboards_steps(
    tmp_path: Path, game: str, players: int
) -> None:
    live, path = _played(tmp_path, game, players)
    replay = json.loads(path.read_text())
    found = list(decisions(path, SEAT))
    assert len(found) == len(live.asked) > 5
    assert [(d.view, d.legal) for d in found] == live.asked
    # exactly the seat's recorded actions, each at the replay viewer's step that shows it
    assert [(d.step, d.played) for d in found] == [(s.index, s.action) for s in transitions(replay) if s.seat == SEAT]
    assert all(d.fault is None and d.seq is None and d.asked for d in found)
    # asked again, a fresh bot is told what the live one was told, in the same order
    again: Any = load_bot(_bot_file(tmp_path))
    answers = list(reask(path, SEAT, again))
    assert again.asked == live.asked and again.told == live.told
    assert [r.answer for r in answers] == [d.played for d in found]
    assert not any(r.differs for r in answers)
    [result] = again.results
    assert result.seats == (SEAT,) and result.ranks == tuple(replay["final_ranks"])


@pytest.mark.parametrize(("game", "players"), [("glaves", 3), ("coup", 2)])
def test_a_view_is_the_engines_for_that_seat_and_shows_no_other_seats_hidden_cards(
    tmp_path: Path, game: str, players: int
) -> None:
    _, path = _played(tmp_path, game, players)
    replay = json.loads(path.read_text())
    hidden = 0
    for decision in decisions(replay, SEAT):
        state, _, _ = state_at(replay, decision.step - 1)  # the position the seat decided in
        assert decision.view == state.view_json(SEAT)
        secrets = state.secrets(SEAT)
        shown = json.dumps(decision.view)
        assert not [card for card in secrets if f'"{card}"' in shown]
        hidden += len(secrets)
    assert hidden  # there were hidden cards to leak


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_the_bot_that_played_differs_nowhere_and_another_wherever_it_can(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, players: int
) -> None:
    _, path = _played(tmp_path, game, players)
    found = list(decisions(path, SEAT))
    code, out, _ = _main(capsys, str(path), "--seat", str(SEAT), "--bot", _bot_file(tmp_path))
    assert code == 0
    assert out.splitlines()[-1] == f"0 of {len(found)} decisions differ"
    assert "<- differs" not in out

    code, out, _ = _main(capsys, str(path), "--seat", str(SEAT), "--bot", _bot_file(tmp_path, "other", shift=1))
    assert code == 0
    lines = out.splitlines()
    choices = [len(d.legal) > 1 for d in found]
    assert sum(choices) > 0
    assert lines[-1] == f"{sum(choices)} of {len(found)} decisions differ"
    assert ["<- differs" in line for line in lines[1:-1]] == choices


def test_the_listing_names_each_decision_by_step_with_its_legal_ids_and_the_action_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, path = _played(tmp_path, "glaves", 3)
    found = list(decisions(path, SEAT))
    code, out, _ = _main(capsys, str(path), "--seat", str(SEAT))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("Glaves, local-1-") and "3 players: seat 1 (Hashing-2)" in lines[0]
    assert lines[-1] == f"{len(found)} decisions"
    for line, d in zip(lines[1:-1], found, strict=True):
        assert line.startswith(f"step {d.step:>4}  deal {d.deal}  hand {' '.join(d.view['hand'])}  legal ")
        assert f"played {d.played!r}" in line and repr(d.legal[0].id) in line


def test_a_choose_that_raises_is_reported_with_its_step_and_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, path = _played(tmp_path, "glaves", 3, fail_at=3)
    found = list(decisions(path, SEAT))
    third = found[2]  # live, it raised there: the default action was played, a fault
    assert (third.fault, third.default) == ("error", True)
    replay = json.loads(path.read_text())
    assert replay["faults"] == [{"seat": SEAT, "action_index": third.action_index, "fault": "error", "default": True}]
    rerun_from_seed(replay)

    raiser = _bot_file(tmp_path, "raiser", fail_at=3)
    code, out, _ = _main(capsys, str(path), "--seat", str(SEAT), "--bot", raiser)
    assert code == 0  # the bot's error is reported, not a crash, and the re-run goes on
    line = next(x for x in out.splitlines() if x.startswith(f"step {third.step:>4}"))
    assert "[default action: handed back (error)]" in line
    assert line.endswith("now: choose raised RuntimeError: call 3 fails")  # as then: no difference
    assert f'File "{raiser}", line 22, in choose' in out
    assert out.splitlines()[-1] == f"0 of {len(found)} decisions differ"

    # the bot that never raises answers where this one was handed back: a difference
    code, out, _ = _main(capsys, str(path), "--seat", str(SEAT), "--bot", _bot_file(tmp_path))
    assert out.splitlines()[-1] == f"1 of {len(found)} decisions differ"
    assert re.search(rf"^step {third.step:>4} .* now '[^']+'  <- differs$", out, re.M)


def test_an_answer_that_is_not_a_legal_id_is_reported_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, path = _played(tmp_path, "coup", 2)
    card = tmp_path / "card.py"
    card.write_text(
        "from cardarena_sdk import Bot\n\n\nclass Card(Bot):\n"
        "    def choose(self, view, legal):\n        return view['hand'][0]\n"
    )
    code, out, _ = _main(capsys, str(path), "--seat", str(SEAT), "--bot", str(card))
    assert code == 0
    first = out.splitlines()[1]
    assert re.search(r"now '\w\w': choose returned '\w\w' in step \d+, not a legal id; .*<- differs$", first)
    total = len(list(decisions(path, SEAT)))
    assert out.splitlines()[-1] == f"{total} of {total} decisions differ"


def test_step_stops_there_and_prints_its_full_view(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, path = _played(tmp_path, "skull", 3)
    found = list(decisions(path, SEAT))
    target = found[3]
    code, out, _ = _main(
        capsys, str(path), "--seat", str(SEAT), "--bot", _bot_file(tmp_path), "--step", str(target.step)
    )
    assert code == 0
    head, _, rest = out.partition(f"--- step {target.step}: the view seat {SEAT} was asked with ---\n")
    assert len(head.splitlines()) == 1 + 4  # the header and the decisions up to the step
    view, _, legal = rest.partition("--- its legal actions ---\n")
    assert json.loads(view) == target.view
    assert [line.split()[0] for line in legal.splitlines()[:-1]] == [a.id for a in target.legal]
    assert legal.splitlines()[-1] == f"0 of 4 decisions differ up to step {target.step}"


def test_debug_opens_the_debugger_right_before_choose_at_the_step(tmp_path: Path) -> None:
    _, path = _played(tmp_path, "glaves", 3)
    step = list(decisions(path, SEAT))[1].step
    argv = [str(path), "--seat", str(SEAT), "--bot", _bot_file(tmp_path), "--step", str(step), "--debug"]
    done = _cli(argv, stdin="s\np view['hand']\nc\n")
    assert done.returncode == 0, done.stderr
    assert "-> returned = bot.choose(view, legal)" in done.stdout  # stopped on the call
    assert "hashing.py(19)choose()" in done.stdout  # s: into the bot's choose
    assert "0 of 2 decisions differ up to step" in done.stdout


def test_json_lists_the_decisions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, path = _played(tmp_path, "coup", 2)
    found = list(decisions(path, SEAT))
    code, out, _ = _main(capsys, str(path), "--seat", str(SEAT), "--json")
    assert code == 0
    assert json.loads(out) == [json.loads(json.dumps(d.to_json())) for d in found]
    code, out, _ = _main(capsys, str(path), "--seat", str(SEAT), "--json", "--bot", _bot_file(tmp_path))
    rows = json.loads(out)
    assert [(r["step"], r["answer"], r["differs"], r["error"]) for r in rows] == [
        (d.step, d.played, False, None) for d in found
    ]
    assert rows[0]["legal"][0].keys() == {"id", "kind", "label", "cards", "amount", "target", "choice"}


def test_the_command_runs_from_the_console_script(tmp_path: Path) -> None:
    _, path = _played(tmp_path, "skull", 3)
    total = len(list(decisions(path, SEAT)))
    done = _cli([str(path), "--seat", str(SEAT), "--bot", _bot_file(tmp_path)])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"0 of {total} decisions differ"
    done = _cli([str(path), "--seat", "7"])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"cardarena: error: {path}: seat 7 is not a seat of this Skull replay: its seats are 0 to 2\n"


def _cli(argv: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardarena.cli", "replay", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _altered(replay: dict[str, Any], how: str) -> dict[str, Any]:
    if how == "hands":  # two seats' first cards swapped: still playable, not what the seed dealt
        hands = replay["deals"][0]["hands"]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    elif how == "result":
        replay["result"]["scores"][0] += 1
    elif how == "action":
        entry = next(e for e in replay["deals"][0]["actions"] if "seat" in e)
        entry["action"] = "play:XX"
    elif how == "game":
        replay["game"] = "chess"
    elif how == "format":
        replay["format"] = "cardarena-replay/0"
    elif how == "deals":
        del replay["deals"]
    return replay


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("hands", "the replay does not re-run (altered, or of another version of the game): deal 1: recorded hands"),
        ("result", "the replay does not re-run (altered, or of another version of the game): result"),
        ("action", "the replay does not re-run (altered, or of another version of the game): deal 1, action 1"),
        ("game", "unknown game 'chess'; known: "),
        ("format", "not a replay: format 'cardarena-replay/0', not 'cardarena-replay/1'"),
        ("deals", "not a replay: malformed (KeyError: 'deals')"),
    ],
)
def test_a_bad_replay_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str, message: str
) -> None:
    path = tmp_path / "out" / "glaves-00001.json"
    play(load_bot("heuristic", 1), "glaves", 3, matches=1, replays=path.parent)
    path.write_text(json.dumps(_altered(json.loads(path.read_text()), how)))
    code, out, err = _main(capsys, str(path), "--seat", "0")
    assert (code, out) == (2, "")
    assert err.startswith(f"cardarena: error: {path}: {message}") and err.count("\n") == 1
    with pytest.raises(ReplayError):
        decisions(path, 0)


@pytest.mark.parametrize(
    ("content", "argv", "message"),
    [
        (None, [], "{path}: No such file or directory"),
        ("hello", [], "{path}: not a replay: not JSON (Expecting value: line 1 column 1 (char 0))"),
        ("[1, 2]", [], "{path}: not a replay: a JSON list, not an object"),
        ("replay", ["--seat", "3"], "{path}: seat 3 is not a seat of this Glaves replay: its seats are 0 to 2"),
        ("replay", ["--step", "0"], "step 0 is not a decision of seat 0; the nearest: step "),
        ("replay", ["--bot", "nobody"], "nobody: neither a built-in bot (random, heuristic) nor a .py file"),
        ("replay", ["--bot", "heuristic", "--debug"], "--debug needs --bot and --step"),
    ],
)
def test_bad_arguments_are_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, argv: list[str], message: str
) -> None:
    path = tmp_path / "glaves-00001.json"
    if content == "replay":
        play(load_bot("heuristic", 1), "glaves", 3, matches=1, replays=tmp_path)
    elif content is not None:
        path.write_text(content)
    code, out, err = _main(capsys, str(path), *(argv if "--seat" in argv else ["--seat", "0", *argv]))
    assert code == 2
    assert "decisions" not in out
    assert err.startswith("cardarena: error: " + message.format(path=path)) and err.count("\n") == 1


def test_a_service_replay_gives_each_faults_seq_as_the_bots_log_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], redis_url: str, key_prefix: str
) -> None:
    flaky = _bot_file(tmp_path, "flaky", fail_at=4)
    out = tmp_path / "replays"
    argv = [sys.executable, "-m", "cardarena.cli", "match", "coup", "--players", "2", "--bots", f"{flaky},random"]
    done = subprocess.run(
        [*argv, "--replays", str(out)], env={**os.environ, "REDIS_URL": redis_url}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    logged = [
        int(n)
        for n in re.findall(
            r"choose raised RuntimeError in \S+ \(seq (\d+)\)", (out / "logs" / "flaky-1.log").read_text()
        )
    ]
    [path] = out.glob("*.json")
    found = list(decisions(path, 0))
    faulted = [d for d in found if d.fault == "error"]
    assert [d.seq for d in faulted] == logged and logged
    assert all(d.seq is None for d in found if d.fault is None)
    code, text, _ = _main(capsys, str(path), "--seat", "0", "--bot", flaky)
    assert code == 0
    assert f"seq {logged[0]}  hand " in text
    assert text.splitlines()[-1].startswith(f"0 of {sum(d.asked for d in found)} decisions differ")


def test_a_service_replay_gives_each_decisions_time_and_bank_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], redis_url: str, key_prefix: str
) -> None:
    """Over gRPC (``cardarena match``), a bot whose 3rd ``choose`` takes 150 ms: the replay's
    decisions carry the times the service measured, the listing prints each and the slowest,
    ``--json`` has them; ``cardarena match`` sums them up per seat.  A local replay has none."""
    slow = _bot_file(tmp_path, "slow", slow_at=3)
    out = tmp_path / "replays"
    argv = [sys.executable, "-m", "cardarena.cli", "match", "german_whist", "--players", "2"]
    done = subprocess.run(
        [*argv, "--bots", f"{slow},random", "--move-ms", "1000", "--bank-ms", "2000", "--replays", str(out)],
        env={**os.environ, "REDIS_URL": redis_url},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    summary = done.stdout.split("think times (each request to its answer", 1)[1]
    assert "move clock 1 s, bank 2 s" in summary
    assert re.search(r"slow-1: median \d+ ms, max \d+ ms over 26 requests", summary)
    [path] = out.glob("*.json")
    found = list(decisions(path, 0))
    assert len(found) == 26 and all(d.think_ms is not None for d in found)
    assert found[2].think_ms is not None and 150 <= found[2].think_ms < 1000
    code, text, _ = _main(capsys, str(path), "--seat", "0")
    lines = text.splitlines()
    assert code == 0 and lines[3].endswith(f"answered in {found[2].think_ms} ms (bank left 2 s)")
    slowest = max(found, key=lambda d: (d.think_ms or 0, -d.step))
    median = sorted(d.think_ms or 0 for d in found)[12]
    assert lines[-2] == f"think times: median {median} ms, max {slowest.think_ms} ms (step {slowest.step})"
    code, text, _ = _main(capsys, str(path), "--seat", "0", "--json")
    assert [(r["think_ms"], r["bank_ms_left"]) for r in json.loads(text)] == [(d.think_ms, 2000) for d in found]
    _, local = _played(tmp_path, "coup", 2)  # no clock: no times
    assert all(d.think_ms is None and d.bank_ms_left is None for d in decisions(local, SEAT))
    code, text, _ = _main(capsys, str(local), "--seat", str(SEAT))
    assert code == 0 and "answered in" not in text and "think times" not in text


def test_a_decision_without_request_is_not_asked() -> None:
    decision = Decision(step=3, deal=1, action_index=2, seat=0, view={}, legal=[], played="pass", fault="forfeited")
    assert not decision.asked
