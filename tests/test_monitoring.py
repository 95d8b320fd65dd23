"""deploy/prometheus and deploy/grafana agree with the code: the alert rules and the Grafana
dashboard parse, have the expected shape, and name only metrics that the service
(``cardarena.server.observability.Metrics``) or the platform endpoint
(``cardarena_dashboard.metrics``, with the serving process's ``connections`` and admin token
refusals) exposes, with
labels (and label values) those metrics have;
the dashboard shows every one of them; the compose profile's scrape targets are the ports the
services listen on. (The real Prometheus tools on the same files: test_promtool.py.)"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from cardarena.server.authlimit import FailedAuthLimit
from cardarena.server.observability import AUTH_KINDS, Metrics
from cardarena.store.bots import STATS
from cardarena.store.health import PlatformHealth
from cardarena.store.matches import REQUEUE_REASONS
from cardarena.store.tournaments import STATUSES
from cardarena_dashboard import connections
from cardarena_dashboard.admin import AdminAuthLimit
from cardarena_dashboard.metrics import REDIS_UP, admin_auth_families, families
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics import MetricWrapperBase

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}
SERVICE_JOB, PLATFORM_JOB = "cardarena-service", "cardarena-platform"
"""The scrape jobs of deploy/prometheus/prometheus.yml (Prometheus adds ``job`` and ``instance``)."""
FREE_LABELS = {"bot", "instance"}
"""Labels whose values are data (a bot's name, a target's address), not a set the code fixes."""
ALERTS = {
    "CardarenaServiceInstanceDown",
    "CardarenaNoBotStreamsWhileMatchesQueued",
    "CardarenaInstanceNameConflict",
    "CardarenaAdminTokenFailures",
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

Labels = dict[str, set[str] | None]
"""A series' label names -> the values it can have (``None``: any)."""
SERVICE_LABEL_VALUES: Labels = {"kind": set(AUTH_KINDS)}
"""The service's labels whose values the code fixes (the others: any)."""


def service_series() -> dict[str, Labels]:
    """The series Prometheus stores for a service instance's metrics, with their labels."""
    series: dict[str, Labels] = {}
    for metric in vars(Metrics()).values():
        if not isinstance(metric, MetricWrapperBase):
            continue
        for suffix in SUFFIXES[metric._type]:
            labels: Labels = {"job": {SERVICE_JOB}, "instance": None}
            labels |= {label: SERVICE_LABEL_VALUES.get(label) for label in metric._labelnames}
            series[metric._name + suffix] = labels | ({"le": None} if suffix == "_bucket" else {})
    return series


def platform_series() -> dict[str, Labels]:
    """The series of the dashboard's ``GET /metrics``, with every label value the code can give."""
    health = PlatformHealth(
        tournaments=dict.fromkeys(STATUSES, 1),
        requeued=dict.fromkeys(REQUEUE_REASONS, 1),
        bot_stats={"some-bot": dict.fromkeys(STATS, 1)},
    )
    series: dict[str, Labels] = {}
    served = connections.families(connections.ConnectionStats(1))  # with `cardarena dashboard`'s server
    admin = admin_auth_families(AdminAuthLimit(FailedAuthLimit(30)))
    for family in [GaugeMetricFamily(REDIS_UP, "", value=1), *families(health), *served, *admin]:
        for suffix in SUFFIXES[family.type]:
            series[family.name + suffix] = {"job": {PLATFORM_JOB}, "instance": None}
        for sample in family.samples:
            for label, value in sample.labels.items():
                values = series[sample.name].setdefault(label, set())
                if values is not None:
                    values.add(value)
    for labels in series.values():
        labels.update({label: None for label in FREE_LABELS & set(labels)})
    return series


def known_series() -> dict[str, Labels]:
    """Every series the rules and the dashboard may name: the code's, and the scrapes' ``up``."""
    return {"up": {"job": {SERVICE_JOB, PLATFORM_JOB}, "instance": None}, **service_series(), **platform_series()}


def service_names() -> set[str]:
    return set(service_series())


def platform_names() -> set[str]:
    return set(platform_series())


def known_names() -> set[str]:
    return set(known_series())


@dataclass(frozen=True)
class Selector:
    """One series selector of a PromQL expression: ``name{label op "value", ...}``."""

    name: str
    matchers: tuple[tuple[str, str, str], ...] = ()


STRING = r'"(?:\\.|[^"\\])*"'
GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([\w\s,]*)\)")
TOKEN = re.compile(
    "|".join(
        [
            r"(?P<name>[a-zA-Z_:][\w:]*)\s*(?P<call>\()?",  # a selector's name, or a function's before its "("
            r"\{(?P<matchers>(?:" + STRING + r'|[^}"])*)\}',  # a selector's matchers
            *(STRING, r"'[^']*'", r"\[[^\]]*\]", r"\d[\w.]*", r"\S"),  # strings, ranges, numbers, the rest
        ]
    )
)
MATCHER = re.compile(r"\s*([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*(" + STRING + r")\s*,?")
KEYWORDS = {"and", "or", "unless", "bool", "offset", "inf", "nan"}
REGEX_CHARS = set(".*+?[](){}^$\\")


def parse_promql(expr: str) -> tuple[list[Selector], set[str]]:
    """The series selectors of ``expr``, and the labels its ``by``/``without``/``on``/
    ``ignoring``/``group_*`` clauses name. Functions (a name before ``(``), keywords, strings,
    ranges and numbers are not selectors."""
    grouping = {label.strip() for labels in GROUPING.findall(expr) for label in labels.split(",") if label.strip()}
    selectors: list[Selector] = []
    named = False  # the token before was a selector's name
    for token in TOKEN.finditer(GROUPING.sub(" ", expr)):
        if token["matchers"] is not None:
            assert named, f"a selector without a metric name: {token[0]}"
            found = list(MATCHER.finditer(token["matchers"]))
            assert "".join(m[0] for m in found) == token["matchers"], f"unparsed matchers: {token[0]}"
            selectors[-1] = Selector(selectors[-1].name, tuple((m[1], m[2], json.loads(m[3])) for m in found))
        named = bool(token["name"] and not token["call"] and token["name"] not in KEYWORDS)
        if named:
            selectors.append(Selector(token["name"]))
    return selectors, grouping


def label_problems(expr: str, shown_labels: set[str], known: dict[str, Labels]) -> list[str]:
    """What in ``expr`` names a series, a label or a label value that ``known`` does not have;
    ``shown_labels`` (a legend's or an annotation's) must be a label of some series it selects."""
    selectors, grouping = parse_promql(expr)
    problems = [f"{s.name}: no such series" for s in selectors if s.name not in known]
    available: set[str] = set()
    for s in selectors:
        labels = known.get(s.name, {})
        available |= set(labels)
        for label, op, value in s.matchers:
            values = labels.get(label)
            if label not in labels:
                problems.append(f"{s.name} has no label {label!r}")
            elif values is not None and op in ("=", "=~") and not REGEX_CHARS & set(value.replace("|", "")):
                wanted = value.split("|") if op == "=~" else [value]
                problems += [
                    f"{s.name}{{{label}={v!r}}}: not one of {sorted(values)}" for v in wanted if v not in values
                ]
    problems += [f"label {label!r} is on none of its series" for label in sorted((grouping | shown_labels) - available)]
    return problems


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


def test_promql_parser_finds_selectors_labels_and_bad_names() -> None:
    expr = (
        'sum by (bot, stat) (increase(cardarena_bot_stats_total{stat=~"errors|timeouts", bot!="a}b"}[1h] offset 5m))'
        ' / on() group_left () (vector(1) + 2e3) > bool 0.5 and up{job="cardarena-platform"} or nan_count'
    )
    selectors, grouping = parse_promql(expr)
    assert selectors == [
        Selector("cardarena_bot_stats_total", (("stat", "=~", "errors|timeouts"), ("bot", "!=", "a}b"))),
        Selector("up", (("job", "=", "cardarena-platform"),)),
        Selector("nan_count"),
    ]
    assert grouping == {"bot", "stat"}
    known = known_series()
    assert label_problems(expr.replace("nan_count", "up"), {"bot"}, known) == []
    bad = 'sum by (reason, lane) (cardarena_requeued_matches_total{reason="expired", stat="x"}) + cardarena_queue_depth'
    assert label_problems(bad, {"match"}, known) == [
        "cardarena_queue_depth: no such series",
        "cardarena_requeued_matches_total{reason='expired'}: not one of ['lease_expired', 'relisted', 'voided']",
        "cardarena_requeued_matches_total has no label 'stat'",
        "label 'lane' is on none of its series",
        "label 'match' is on none of its series",
    ]
    fine = 'up{job="cardarena-service"} + cardarena_matches_total{status="completed"}'
    assert label_problems(fine, set(), known) == []
    assert label_problems('cardarena_live_streams{job="cardarena-platform"}', set(), known)  # a service metric


def test_alert_rules_name_only_existing_metrics_and_labels() -> None:
    known = known_series()
    used: set[str] = set()
    for rule in rules():
        shown = set(re.findall(r"\$labels\.(\w+)", json.dumps(rule["annotations"])))
        assert label_problems(rule["expr"], shown, known) == [], rule["alert"]
        used |= {s.name for s in parse_promql(rule["expr"])[0]}
    # every platform gauge an operator is told to watch has a rule on it
    for name in ("cardarena_queue_wait_seconds", "cardarena_results_unrecorded_age_seconds", "cardarena_beat_leader"):
        assert name in used


def dashboard_targets() -> list[dict[str, Any]]:
    """The queries of deploy/grafana/cardarena.json, each with its panel's ``title``."""
    data = json.loads((DEPLOY / "grafana" / "cardarena.json").read_text())
    assert data["uid"] == "cardarena" and data["panels"]
    ids = [p["id"] for p in data["panels"]]
    assert len(ids) == len(set(ids))
    targets = []
    for panel in data["panels"]:
        if panel["type"] == "row":
            continue
        assert panel["targets"], panel["title"]
        assert panel["datasource"]["uid"] == "${datasource}"
        targets += [{**t, "title": panel["title"]} for t in panel["targets"]]
    return targets


def test_grafana_dashboard_names_only_existing_metrics_and_labels_and_shows_them_all() -> None:
    known = known_series()
    used: set[str] = set()
    for target in dashboard_targets():
        legend = set(re.findall(r"\{\{\s*(\w+)\s*\}\}", target.get("legendFormat", "")))
        assert label_problems(target["expr"], legend, known) == [], (target["title"], target["expr"])
        used |= {s.name for s in parse_promql(target["expr"])[0]}
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
