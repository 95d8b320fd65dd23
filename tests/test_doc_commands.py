"""The ``cardarena`` commands the user-facing docs show are the ones the CLI has: every flag a
doc gives a command is one of that command's options, every command is documented, every
option explains itself in ``--help``, and the ``tournament create`` commands of the docs run
as written (test_readme.py runs the README's other commands)."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from cardarena.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "clients/python/README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^ *```[a-z]*\n(.*?)^ *```", re.M | re.S)  # also indented, in a list item
INLINE = re.compile(r"`([^`]+)`")
COMMAND = re.compile(r"\bcardarena((?: [a-z][a-z-]*)+)(.*)")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z-]*)")


def code_lines(markdown: str) -> list[str]:
    """The code of a Markdown text, one command per item: the lines of its fenced and indented
    blocks (a ``\\`` continuation joined) and its inline code spans (wrapped ones joined)."""
    blocks = [re.sub(r"\\\n\s*", " ", block) for block in FENCE.findall(markdown)]
    prose = FENCE.sub("", markdown)
    lines = [line for block in blocks for line in block.splitlines()]
    lines += [line[4:] for line in prose.splitlines() if line.startswith("    cardarena ")]
    lines += [" ".join(span.split()) for span in INLINE.findall(prose)]
    return lines


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every (sub)command of ``parser`` by its words: ``("tournament", "create")`` ..."""
    found = {path: parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.update(commands(sub, (*path, name)))
    return found


def documented_uses() -> list[tuple[str, tuple[str, ...], str]]:
    """``(doc, command words, what follows them)`` for every ``cardarena ...`` in the docs' code."""
    known = commands(build_parser())
    uses = []
    for doc in DOCS:
        for line in code_lines(doc.read_text()):
            for match in COMMAND.finditer(line):
                words, path = match.group(1).split(), ()
                while len(path) < len(words) and (*path, words[len(path)]) in known:
                    path = (*path, words[len(path)])
                if path:
                    rest = " ".join(words[len(path) :]) + match.group(2)
                    rest = re.split(r"  #| \| | && |\bcardarena\b", rest)[0]  # this command only
                    uses.append((str(doc.relative_to(ROOT)), path, rest))
    return uses


def test_every_flag_the_docs_give_a_command_is_one_of_its_options() -> None:
    known = commands(build_parser())
    uses = documented_uses()
    assert len(uses) > 200
    unknown = []
    for doc, path, rest in uses:
        options = {option for action in known[path]._actions for option in action.option_strings}
        unknown += [f"{doc}: cardarena {' '.join(path)} {flag}" for flag in FLAG.findall(rest) if flag not in options]
    assert not unknown, unknown


def test_every_command_is_documented() -> None:
    documented = {path[:n] for _, path, _ in documented_uses() for n in range(1, len(path) + 1)}
    missing = [" ".join(path) for path in commands(build_parser()) if path and path not in documented]
    assert not missing, f"commands no doc shows: {missing}"


def test_every_option_says_what_it_does_in_help() -> None:
    """Regression: `service --instance-name`, `--sessions-per-bot`, `--bad-messages-per-minute`,
    `worker --concurrency/--pool/--hostname/--loglevel`, `tournament create --game/--players`,
    the `--json` of `bot list`, `tournament status`, `schedules` and `bench service` had no
    help, or only "(default N)"."""
    bare = []
    for path, parser in commands(build_parser()).items():
        for action in parser._actions:
            text = re.sub(r"\(default[^)]*\)", "", action.help or "").strip()
            if action.option_strings and action.dest != "help" and not text:
                bare.append(f"cardarena {' '.join(path)} {action.option_strings[-1]}")
    assert not bare, bare


def test_docs_tournament_create_commands_run_as_written(redis_url: str, key_prefix: str) -> None:
    """Regression: the README's practice tournament (`--players 3 --bots alice,house-bot
    --unrated`) was refused, a 3-player table needing 3 entrants."""
    from cardarena.store.bots import BotStore
    from cardarena.store.connection import client_for

    shown = sorted({
        " ".join(line[line.index("cardarena tournament create") :].split("  #")[0].split())
        for doc in (ROOT / "README.md", ROOT / "docs/deploy.md", ROOT / "docs/tournaments.md")
        for line in code_lines(doc.read_text())
        if "cardarena tournament create --" in line and "[" not in line  # not a synopsis
    })  # fmt: skip
    assert len(shown) >= 8
    # "$SLACK_WEBHOOK_URL" ...: the reader's webhooks (public hosts; nothing is posted here)
    webhooks = {name: f"https://hooks.example.com/services/{name}" for name in re.findall(r"\$(\w+)", " ".join(shown))}
    argvs = [[re.sub(r"\$(\w+)", lambda m: webhooks[m.group(1)], arg) for arg in shlex.split(c)] for c in shown]
    named = {name for argv in argvs if "--bots" in argv for name in argv[argv.index("--bots") + 1].split(",")}
    bots = BotStore(client_for(redis_url))
    for name in sorted(named):
        bots.register(name)
    env = {**os.environ, "REDIS_URL": redis_url, "CARDARENA_PREFIX": key_prefix}
    for command, argv in zip(shown, argvs, strict=True):
        proc = subprocess.run(
            [sys.executable, "-m", "cardarena.cli", *argv[1:]], env=env, capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, f"{command}\n{proc.stderr}"
        assert re.fullmatch(r"t[0-9a-f]{10}\n|schedule s[0-9a-f]{8} .*\n", proc.stdout), proc.stdout
