"""The rules core is pure: no IO, network, storage, web, asyncio or clock imports."""

from __future__ import annotations

import inspect
from pathlib import Path

import cardarena
from cardarena.conformance import FORBIDDEN_IMPORTS as FORBIDDEN
from cardarena.conformance import imported_modules, service_imports
from cardarena.engine import games

ALLOWED_EXCEPTIONS = {("engine/rng.py", "random")}  # the one seeded RNG wraps random.Random

ROOT = Path(cardarena.__file__).parent
PLUGINS = sorted({Path(inspect.getfile(type(g))) for g in games().values()} - set(ROOT.joinpath("games").glob("*.py")))
"""The modules of games registered from outside ``cardarena.games`` (entry points): pure too."""
PURE = sorted([*ROOT.joinpath("engine").glob("*.py"), *ROOT.joinpath("games").glob("*.py"), *PLUGINS])


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_posix()


def test_pure_modules_exist() -> None:
    assert len(PURE) >= 8
    assert any(p.name == "cardarena_test_trumps.py" for p in PLUGINS)  # the entry point game of tests/conftest.py


def test_rules_import_nothing_impure() -> None:
    offenders = []
    for path in PURE:
        rel = _rel(path)
        bad = {m for m in imported_modules(path) & FORBIDDEN if (rel, m) not in ALLOWED_EXCEPTIONS}
        if bad:
            offenders.append(f"{rel}: {sorted(bad)}")
    assert not offenders, "impure imports in the rules core:\n" + "\n".join(offenders)


def test_rules_do_not_import_the_service_layers() -> None:
    offenders = {_rel(path): sorted(service_imports(path)) for path in PURE if service_imports(path)}
    assert not offenders, offenders
