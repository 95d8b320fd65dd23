"""The service benchmark runs end to end with tiny sizes and reports well-formed figures (no
timing assertions: speed is measured by the benchmark, never asserted)."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_service_bench_produces_figures(redis_url: str, key_prefix: str, monkeypatch: Any) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.syspath_prepend(str(ROOT))
    bench: Any = importlib.import_module("bench.service_bench")
    report = bench.run([1, 2], seconds=0.5, repeats=1, clients=1)
    assert report["sizes"]["request"] > 0 and report["sizes"]["action"] > 0
    assert [lv["concurrency"] for lv in report["levels"]] == [1, 2]
    for lv in report["levels"]:
        for side in ("service", "echo"):
            figures = lv[side]
            common = {"moves_per_s", "p50_ms", "p99_ms", "samples"}
            if side == "echo":
                assert set(figures) == common
            else:  # the time between a match's last move and the next match's first, when
                # the bots play one match at a time
                assert common | {"reads_per_move"} <= set(figures) <= common | {"reads_per_move", "between_matches_ms"}
                assert ("between_matches_ms" in figures) == (lv["concurrency"] == 1)
                # batching bots read about one stream message per move or fewer, never two
                assert 0 < figures["reads_per_move"] < 1.5
            assert all(math.isfinite(v) and v >= 0 for v in figures.values())
            assert figures["samples"] > 0 and figures["p50_ms"] <= figures["p99_ms"]
        assert math.isfinite(lv["rate_vs_echo"]) and math.isfinite(lv["added_p99_ms"])
    assert "bench.service_bench" in sys.modules


def test_bench_service_refuses_bad_levels(capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `--concurrency abc` ended in a ValueError traceback, `--repeats 0` and
    `--seconds 0` silently measured the defaults instead."""
    from cardarena.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["bench", "service", "--concurrency", "1, 10"]).concurrency == [1, 10]
    for bad in (["--concurrency", "abc"], ["--concurrency", "1,0"], ["--repeats", "0"], ["--seconds", "0"]):
        with pytest.raises(SystemExit) as refused:
            parser.parse_args(["bench", "service", *bad])
        assert refused.value.code == 2
        assert f"argument {bad[0]}" in capsys.readouterr().err
