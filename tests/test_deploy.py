"""deploy/ agrees with the code: commands, flags, ports and environment variables."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from cardarena.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
SOURCES = [*ROOT.joinpath("service").rglob("*.py"), *ROOT.joinpath("tournament").rglob("*.py")]
ROLES = {"service", "worker", "beat", "dashboard"}


def code_reads_env(name: str) -> bool:
    return any(name in path.read_text() for path in SOURCES)


def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def k8s() -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((DEPLOY / "k8s" / "cardarena.yaml").read_text()) if d]


def flag(args: list[str], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args else None


def test_compose_commands_parse_with_the_real_cli() -> None:
    parser = build_parser()
    roles = []
    for name, svc in compose()["services"].items():
        if name == "redis" or svc.get("profiles"):  # the optional monitoring profile: test_monitoring.py
            continue
        command = svc["command"]
        parser.parse_args(command)  # exits (fails the test) on an unknown command or flag
        roles.append(command[0])
    assert sorted(roles) == ["beat", "dashboard", "service", "service", "worker", "worker"]


def test_compose_ports_and_environment_agree_with_commands() -> None:
    services = compose()["services"]
    assert "--appendonly" in services["redis"]["command"]
    for name, svc in services.items():
        if name == "redis" or svc.get("profiles"):
            continue
        command = svc["command"]
        for published in svc.get("ports", []):
            container = published.split(":")[-1]
            assert flag(command, "--port") == container, (name, published)
        env = svc["environment"]
        assert env["REDIS_URL"].startswith("redis://redis:6379")
        for key in env:
            assert code_reads_env(key), f"{name}: {key} is not read by the code"
        if command[0] == "service":
            # invites must send bots to an address they reach: the host port published for it
            (published,) = svc["ports"]
            host_port = published.split(":")[0]
            assert env["CARDARENA_SERVICE_ADDR"] == f"${{CARDARENA_PUBLIC_HOST:-localhost}}:{host_port}", name
            assert flag(command, "--grace") and int(svc["stop_grace_period"].rstrip("s")) > int(
                flag(command, "--grace")
            )


def test_the_retention_setting_reaches_the_workers() -> None:
    """docs/deploy.md has operators set ``CARDARENA_REPLAY_RETENTION_DAYS`` in the workers'
    environment (the prune task runs there): the compose file passes it from the shell, as it
    does the admin token (empty: kept for ever), and the manifest shows where it goes."""
    workers = [svc for svc in compose()["services"].values() if svc.get("command", [""])[0] == "worker"]
    assert workers
    for svc in workers:
        assert svc["environment"]["CARDARENA_REPLAY_RETENTION_DAYS"] == "${CARDARENA_REPLAY_RETENTION_DAYS:-}"
    manifest = (DEPLOY / "k8s" / "cardarena.yaml").read_text()
    worker = manifest.split("name: cardarena-worker", 1)[1].split("---", 1)[0]
    assert "# - {name: CARDARENA_REPLAY_RETENTION_DAYS" in worker


def test_k8s_manifests_agree_with_the_cli() -> None:
    parser = build_parser()
    seen = set()
    for doc in k8s():
        if doc["kind"] not in ("Deployment", "StatefulSet"):
            continue
        for container in doc["spec"]["template"]["spec"]["containers"]:
            if container["image"].startswith("redis"):
                assert "--appendonly" in container["args"]
                continue
            args = container["args"]
            parser.parse_args(args)
            seen.add(args[0])
            ports = {p["containerPort"] for p in container.get("ports", [])}
            if "--port" in args:
                assert int(flag(args, "--port") or 0) in ports
            for env in container.get("env", []):
                if env["name"] != "POD_IP":
                    assert code_reads_env(env["name"]), env["name"]
            if doc["metadata"]["name"] == "cardarena-beat":
                assert doc["spec"]["replicas"] == 1
    assert seen == ROLES


def test_the_tls_readiness_probe_of_the_manifest_sees_not_serving() -> None:
    """With TLS on, the manifest had the service probed by ``tcpSocket`` (Kubernetes' gRPC probe
    speaks no TLS), which cannot see ``NOT_SERVING``: an instance standing by stayed ready.  Its
    TLS probe is now ``service health`` over TLS, as an ``exec`` probe that the real CLI parses:
    one call to the pod's own port, its certificate checked against a CA from the mounted secret,
    a time-out well under the probe's; under mutual TLS it adds a client certificate from a
    secret the volumes mount."""
    import json

    manifest = (DEPLOY / "k8s" / "cardarena.yaml").read_text()
    service = manifest.split("metadata: {name: cardarena-service}", 1)[1].split("---", 1)[0]
    assert "tcpSocket" not in service
    (line,) = [x.strip() for x in service.splitlines() if x.strip().startswith("# readinessProbe:")]
    probe = yaml.safe_load(line.removeprefix("# "))["readinessProbe"]
    command = probe["exec"]["command"]
    assert command[:5] == ["python", "-m", "cardarena.server", "service", "health"]
    args = build_parser().parse_args(command[3:])
    assert args.func.target == "cardarena.server.healthcheck:service_health"
    assert args.server == "127.0.0.1:50051" and args.ca_cert.startswith("/etc/cardarena/tls/") and args.server_name
    assert args.timeout * 2 <= probe["timeoutSeconds"] <= probe["periodSeconds"]
    (mtls,) = [x for x in service.splitlines() if "add to the probe's command:" in x]
    pair = json.loads("[" + mtls.split(":", 1)[1] + "]")
    args = build_parser().parse_args([*command[3:], *pair])
    assert args.client_cert.startswith("/etc/cardarena/probe/") and args.client_key.startswith("/etc/cardarena/probe/")
    assert "{name: probe, mountPath: /etc/cardarena/probe, readOnly: true}" in service
    assert "{name: probe, secret: {secretName: cardarena-probe" in service


def test_dockerfile_installs_every_package_dir_and_uses_the_cli() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    for path in ("service", "tournament", "clients/python", "proto", "pyproject.toml"):
        assert re.search(rf"^COPY {re.escape(path)}\b", text, re.M), path
    assert 'ENTRYPOINT ["cardarena"]' in text
    exposed = {int(p) for p in re.findall(r"\d+", text.split("EXPOSE", 1)[1].splitlines()[0])}
    assert {50051, 8000} <= exposed


@pytest.mark.parametrize("doc", ["deploy.md"])
def test_deploy_doc_names_the_files(doc: str) -> None:
    text = (ROOT / "docs" / doc).read_text()
    for name in ("compose.yaml", "k8s/cardarena.yaml", "Dockerfile", "REDIS_URL"):
        assert name in text


def test_the_image_install_carries_the_dashboard_templates(tmp_path: Path) -> None:
    """Build the wheel from exactly what the Dockerfile copies and serve a page from it (found
    by an operator review: the wheel had no templates or static files, so every page of the
    image's dashboard failed with TemplateNotFound; the tests only ran from the source tree)."""
    import os
    import shutil
    import subprocess
    import sys
    import zipfile

    text = (DEPLOY / "Dockerfile").read_text()
    context = tmp_path / "context"
    for line in re.findall(r"^COPY (.+)$", text, re.M):
        *sources, _ = line.split()
        for source in sources:
            src = ROOT / source
            dst = context / source
            if src.is_dir():
                shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
            else:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(src, dst)
    out = tmp_path / "wheel"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out)]
    subprocess.run([*build, str(context)], check=True, capture_output=True, timeout=300)
    (wheel,) = out.glob("cardarena-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("templates", "static"):
        for path in (ROOT / "tournament" / "cardarena_dashboard" / folder).iterdir():
            assert f"cardarena_dashboard/{folder}/{path.name}" in names, path
    # PEP 561 markers: mypy checks a designer's game package (docs/examples/crazy-eights) and
    # a bot against an installed cardarena only with them
    assert {"cardarena/py.typed", "cardarena_sdk/py.typed"} <= names
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    page = subprocess.run(
        [
            sys.executable,
            "-c",
            "import cardarena_dashboard, sys; assert cardarena_dashboard.__file__.startswith(sys.argv[1]);"
            "from cardarena_dashboard import create_app;"
            "reply = create_app({'REDIS_URL': 'redis://127.0.0.1:1/0', 'TESTING': True}).test_client().get('/games');"
            "print(reply.status_code, b'Glaves' in reply.data)",
            str(unpacked),
        ],
        env={**os.environ, "PYTHONPATH": str(unpacked)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert page.stdout.split() == ["200", "True"], page.stderr[-2000:]


def test_the_cardarena_commands_of_the_deploy_doc_parse() -> None:
    """Every `cardarena ...` line of docs/deploy.md's shell blocks (the by-hand TLS layout
    included) is a command and flags the real CLI accepts."""
    import shlex

    from cardarena.cli import build_parser

    text = (ROOT / "docs" / "deploy.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    lines = [line.split(" #")[0].strip() for block in blocks for line in block.replace("\\\n", " ").splitlines()]
    # each command of a line (`a && b`, `a &`), without its redirection or pipe (`> tokens.csv`)
    steps = [re.split(r" [>|] ", step)[0].removesuffix(" &") for line in lines for step in line.split(" && ")]
    commands = [shlex.split(step)[1:] for step in steps if step.startswith("cardarena ")]
    assert any(c[:2] == ["bot", "retire"] for c in commands)  # the indented blocks (a list item's) too
    assert any(c[:1] == ["service"] and "--tls-cert" in c for c in commands)
    for argv in commands:
        build_parser().parse_args(argv)
