"""deploy/prometheus and deploy/grafana agree with the code: the alert rules and the Grafana
dashboard parse, have the expected shape, and name only metrics that the service
(``cardarena.server.observability.Metrics``) or the platform endpoint
(``cardarena_dashboard.metrics``) exposes; the dashboard shows every one of them; the compose
profile's scrape targets are the ports the services listen on."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from cardarena.server.observability import Metrics
from cardarena.store.health import PlatformHealth
from cardarena_dashboard.metrics import REDIS_UP, families
from prometheus_client.core import GaugeMetricFamily, Metric

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
METRIC = re.compile(r"\bcardarena_[a-z0-9_]+")
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}
ALERTS = {
    "CardarenaServiceInstanceDown",
    "CardarenaNoBotStreamsWhileMatchesQueued",
    "CardarenaNoServiceForQueuedMatches",
    "CardarenaMatchesWaitingTooLong",
    "CardarenaResultsBacklog",
    "CardarenaRequeuesSpiking",
    "CardarenaBeatLeaderMissing",
    "CardarenaScheduledRunLate",
    "CardarenaNoWorkers",
    "CardarenaBotTimingOut",
    "CardarenaBotErrors",
}
"""The alerts docs/deploy.md promises (the file may hold more)."""


def exposed(found: list[Metric]) -> set[str]:
    """The sample names Prometheus stores for these families."""
    return {f.name + suffix for f in found for suffix in SUFFIXES[f.type]}


def service_names() -> set[str]:
    return exposed(list(Metrics().registry.collect()))


def platform_names() -> set[str]:
    up = GaugeMetricFamily(REDIS_UP, "", value=1)
    return exposed([up, *families(PlatformHealth())])


def known_names() -> set[str]:
    return service_names() | platform_names()


def rules() -> list[dict[str, Any]]:
    data = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())
    return [rule for group in data["groups"] for rule in group["rules"]]


def test_service_and_platform_names_do_not_collide() -> None:
    """(That the platform endpoint yields exactly ``platform_names()``: test_platform_metrics.py.)"""
    assert {"cardarena_queued_matches", "cardarena_requeued_matches_total", "cardarena_bot_stats_total"} <= (
        platform_names()
    )
    assert "cardarena_move_latency_seconds_bucket" in service_names()
    assert not service_names() & platform_names()


def test_alert_rules_have_the_prometheus_rule_file_shape() -> None:
    data = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())
    assert set(data) == {"groups"}
    names = []
    for group in data["groups"]:
        assert set(group) == {"name", "rules"} and group["rules"]
        for rule in group["rules"]:
            assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule
            assert rule["expr"].count("(") == rule["expr"].count(")"), rule["alert"]
            assert rule["labels"]["severity"] in {"page", "warning", "info"}
            assert rule["annotations"]["summary"]
            if "for" in rule:
                assert re.fullmatch(r"\d+[smh]", rule["for"]), rule["for"]
            names.append(rule["alert"])
    assert len(names) == len(set(names))
    assert set(names) >= ALERTS


def test_alert_rules_name_only_existing_metrics() -> None:
    known = known_names()
    used: set[str] = set()
    for rule in rules():
        names = set(METRIC.findall(rule["expr"]))
        assert names or "up{" in rule["expr"], rule["alert"]
        assert names <= known, (rule["alert"], names - known)
        used |= names
    # every platform gauge an operator is told to watch has a rule on it
    for name in ("cardarena_queue_wait_seconds", "cardarena_results_unrecorded_age_seconds", "cardarena_beat_leader"):
        assert name in used


def dashboard_exprs() -> list[str]:
    data = json.loads((DEPLOY / "grafana" / "cardarena.json").read_text())
    assert data["uid"] == "cardarena" and data["panels"]
    ids = [p["id"] for p in data["panels"]]
    assert len(ids) == len(set(ids))
    exprs = []
    for panel in data["panels"]:
        if panel["type"] == "row":
            continue
        assert panel["targets"], panel["title"]
        assert panel["datasource"]["uid"] == "${datasource}"
        exprs += [t["expr"] for t in panel["targets"]]
    return exprs


def test_grafana_dashboard_names_only_existing_metrics_and_shows_them_all() -> None:
    known = known_names()
    used = {name for expr in dashboard_exprs() for name in METRIC.findall(expr)}
    assert used <= known, used - known
    # every family is on some panel (a histogram through any of its series)
    shown = {re.sub(r"_(bucket|sum|count)$", "", n) for n in used}
    families_known = {re.sub(r"_(bucket|sum|count)$", "", n) for n in known}
    assert families_known <= shown, families_known - shown


def test_monitoring_profile_scrapes_the_ports_the_services_listen_on() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    assert config["rule_files"] == ["alerts.yml"]
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert set(jobs) == {"cardarena-service", "cardarena-platform"}  # the jobs alerts.yml names
    alerts_text = (DEPLOY / "prometheus" / "alerts.yml").read_text()
    assert all(f'job="{job}"' in alerts_text for job in jobs)
    for job in jobs.values():
        for target in job["static_configs"][0]["targets"]:
            host, port = target.split(":")
            command = services[host]["command"]
            flag = "--metrics-port" if command[0] == "service" else "--port"
            assert command[command.index(flag) + 1] == port, target
    assert jobs["cardarena-platform"]["metrics_path"] == "/metrics"
    for name in ("prometheus", "grafana"):
        assert services[name]["profiles"] == ["monitoring"]
        for volume in services[name]["volumes"]:
            source = volume.split(":")[0]
            assert (DEPLOY / source).exists(), volume


def test_k8s_scrape_annotations_name_the_ports_the_pods_serve_metrics_on() -> None:
    docs = [d for d in yaml.safe_load_all((DEPLOY / "k8s" / "cardarena.yaml").read_text()) if d]
    annotated = {}
    for doc in docs:
        if doc["kind"] != "Deployment":
            continue
        template = doc["spec"]["template"]
        notes = template["metadata"].get("annotations") or {}
        if notes.get("prometheus.io/scrape") != "true":
            continue
        (container,) = template["spec"]["containers"]
        args = container["args"]
        flag = "--metrics-port" if args[0] == "service" else "--port"
        assert notes["prometheus.io/port"] == args[args.index(flag) + 1]
        assert notes["prometheus.io/path"] == "/metrics"
        annotated[args[0]] = notes
    assert set(annotated) == {"service", "dashboard"}
