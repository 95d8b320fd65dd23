"""deploy/prometheus and deploy/grafana checked by Prometheus's own parser: ``promtool check
rules`` and ``check config`` accept the files compose mounts, ``promtool test rules`` runs
alerts_test.yml (each alert fires on one series history and not on another), and every Grafana
query parses as PromQL (wrapped as a recording rule). Debian's ``/usr/bin/promtool``
(``apt-get install prometheus``); without it these skip, unless ``CI=true``, where they fail.
(The metric and label names the files use against the code's: test_monitoring.py.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from .test_monitoring import DEPLOY, dashboard_targets, rules

PROMTOOL = "/usr/bin/promtool"
PROMETHEUS = DEPLOY / "prometheus"
GRAFANA_INTERVALS = re.compile(r"\$(?:__rate_interval|__interval|__range)\b|\$\{__(?:rate_interval|interval|range)\}")
"""Grafana's interval variables, which a query may use where PromQL wants a duration."""


@pytest.fixture(scope="module")
def promtool() -> str:
    if not Path(PROMTOOL).exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {PROMTOOL} is missing (apt-get install prometheus)")
        pytest.skip(f"{PROMTOOL} not installed (apt-get install prometheus)")
    return PROMTOOL


def run(promtool: str, *args: str | Path) -> str:
    """``promtool args``, asserting it succeeds; its output."""
    done = subprocess.run([promtool, *map(str, args)], capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


def test_alert_rules_pass_promtool_check_rules_with_every_lint(promtool: str) -> None:
    output = run(promtool, "check", "rules", "--lint=all", "--lint-fatal", PROMETHEUS / "alerts.yml")
    assert f"SUCCESS: {len(rules())} rules found" in output


def test_prometheus_config_passes_promtool_check_config_with_its_rule_file(promtool: str, tmp_path: Path) -> None:
    # compose mounts the directory as /etc/prometheus: rule_files are relative to the config there and here
    output = run(promtool, "check", "config", "--lint=all", "--lint-fatal", PROMETHEUS / "prometheus.yml")
    assert "SUCCESS: 1 rule files found" in output and f"SUCCESS: {len(rules())} rules found" in output
    # and the check is real: a config whose rule file is missing fails it
    shutil.copy(PROMETHEUS / "prometheus.yml", tmp_path)
    failed = subprocess.run([promtool, "check", "config", str(tmp_path / "prometheus.yml")], capture_output=True)
    assert failed.returncode != 0


def test_alert_unit_tests_pass_promtool_test_rules(promtool: str) -> None:
    assert "SUCCESS" in run(promtool, "test", "rules", PROMETHEUS / "alerts_test.yml")


def test_alert_unit_tests_fail_when_a_threshold_moves(promtool: str, tmp_path: Path) -> None:
    """promtool test rules checks what alerts.yml says, not only that it parses."""
    text, threshold = (PROMETHEUS / "alerts.yml").read_text(), "cardarena_celery_backlog > 500"
    assert text.count(threshold) == 1
    (tmp_path / "alerts.yml").write_text(text.replace(threshold, "cardarena_celery_backlog > 499"))
    shutil.copy(PROMETHEUS / "alerts_test.yml", tmp_path)
    done = subprocess.run([promtool, "test", "rules", tmp_path / "alerts_test.yml"], capture_output=True, text=True)
    assert done.returncode != 0 and "CardarenaCeleryBacklog" in done.stdout + done.stderr


def test_every_alert_has_a_firing_and_a_quiet_unit_test() -> None:
    tests: list[dict[str, Any]] = yaml.safe_load((PROMETHEUS / "alerts_test.yml").read_text())["tests"]
    checks = [check for test in tests for check in test["alert_rule_test"]]
    fires = {c["alertname"] for c in checks if c["exp_alerts"]}
    quiet = {c["alertname"] for c in checks if not c["exp_alerts"]}
    alerts = {rule["alert"] for rule in rules()}
    assert fires == alerts, alerts ^ fires
    assert quiet == alerts, alerts ^ quiet
    for check in checks:  # a firing case names the alert's labels and all of its annotations
        rule = next(r for r in rules() if r["alert"] == check["alertname"])
        for alert in check["exp_alerts"]:
            assert rule["labels"].items() <= alert["exp_labels"].items(), check
            assert set(alert["exp_annotations"]) == set(rule["annotations"]), check


def test_every_grafana_query_parses_as_promql(promtool: str, tmp_path: Path) -> None:
    targets = dashboard_targets()
    records = [
        {"record": f"grafana:query_{n}", "expr": GRAFANA_INTERVALS.sub("5m", target["expr"])}
        for n, target in enumerate(targets)
    ]
    path = tmp_path / "grafana_queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "grafana", "rules": records}]}))
    done = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True)
    output = done.stdout + done.stderr
    failing = {t["title"]: t["expr"] for n, t in enumerate(targets) if f'"grafana:query_{n}"' in output}
    assert done.returncode == 0, (failing, output)
    assert f"SUCCESS: {len(targets)} rules found" in output
    # and a query that is not PromQL fails the same check
    path.write_text(yaml.safe_dump({"groups": [{"name": "g", "rules": [{"record": "r", "expr": "sum(rate(x[5m])"}]}]}))
    assert subprocess.run([promtool, "check", "rules", str(path)], capture_output=True).returncode != 0
