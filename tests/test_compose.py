"""docker-compose.yml validates with Debian's docker-compose and has the production
topology: every service with a health check or a one-shot role, the order they start in,
named volumes, and every setting documented in .env.example."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from settings import PROJECT_ROOT
from tests.real_parts import missing

COMPOSE = shutil.which("docker-compose")
pytestmark = pytest.mark.skipif(
    COMPOSE is None,
    reason=missing(
        "docker-compose",
        "docker-compose is not installed (scripts/system-packages installs Debian's)",
    ),
)

ENV_EXAMPLE = PROJECT_ROOT / ".env.example"
MTLS = "docker-compose.mtls.yml"
LONG_RUNNING = ["temporal-db", "temporal", "temporal-ui", "app-db", "worker", "web", "mailpit"]
ONE_SHOT = ["temporal-schema", "temporal-namespace", "migrate"]


def compose(
    *args: str, env_file: Path = ENV_EXAMPLE, files: tuple[str, ...] = ("docker-compose.yml",)
) -> subprocess.CompletedProcess[str]:
    assert COMPOSE is not None
    chosen = [arg for name in files for arg in ("-f", name)]
    return subprocess.run(
        [COMPOSE, *chosen, "--env-file", str(env_file), *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _yaml_python() -> str:
    """docker-compose (Debian's, a Python script) brings PyYAML: its interpreter reads the
    YAML it prints, so the test needs no YAML library of its own."""
    assert COMPOSE is not None
    first_line = Path(COMPOSE).read_bytes().split(b"\n", 1)[0].decode(errors="replace")
    if not first_line.startswith("#!") or "python" not in first_line:
        pytest.skip(
            missing(
                "docker-compose", "this docker-compose is not the Python one: cannot read its YAML"
            )
        )
    return first_line[2:].strip().split()[0]


def _config(files: tuple[str, ...]) -> dict[str, Any]:
    result = compose("config", files=files)
    assert result.returncode == 0, result.stderr
    to_json = "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))"
    converted = subprocess.run(
        [_yaml_python(), "-c", to_json], input=result.stdout, capture_output=True, text=True
    )
    assert converted.returncode == 0, converted.stderr
    return json.loads(converted.stdout)


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    return _config(("docker-compose.yml",))


@pytest.fixture(scope="module")
def mtls_config() -> dict[str, Any]:
    return _config(("docker-compose.yml", MTLS))


def published(service: dict[str, Any]) -> list[tuple[str, str]]:
    """(host address, target port) of each published port; '' is every interface."""
    out = []
    for port in service.get("ports", []):
        if isinstance(port, dict):
            out.append((str(port.get("host_ip") or ""), str(port["target"])))
            continue
        parts = str(port).split("/")[0].split(":")
        host = parts[0] if len(parts) == 3 else ""
        out.append((host, parts[-1]))
    return out


@pytest.mark.parametrize("which", ["base", "mtls"])
def test_no_temporal_port_is_published_on_all_interfaces(
    which: str, config: dict[str, Any], mtls_config: dict[str, Any]
) -> None:
    services = (config if which == "base" else mtls_config)["services"]
    # The Temporal frontend (anyone reaching it drives every workflow) and the UI (no
    # login) listen on loopback only; so does the staging mail catcher.
    for name in ("temporal", "temporal-ui", "mailpit"):
        ports = published(services[name])
        assert ports, f"{name} publishes nothing (operators reach it on the host)"
        for host, _ in ports:
            assert host == "127.0.0.1", f"{name} is published on {host or 'every interface'}"
    exposed = {
        name
        for name, service in services.items()
        for host, _ in published(service)
        if host != "127.0.0.1"
    }
    assert exposed == {"web"}, exposed
    for name, service in services.items():
        for host, target in published(service):
            assert not (target == "7233" and host != "127.0.0.1"), name


def test_mtls_between_the_app_and_temporal(mtls_config: dict[str, Any]) -> None:
    assert compose("config", "--quiet", files=("docker-compose.yml", MTLS)).returncode == 0
    services = mtls_config["services"]
    server = services["temporal"]["environment"]
    assert server["TEMPORAL_TLS_REQUIRE_CLIENT_AUTH"] == "true"
    assert server["TEMPORAL_TLS_CLIENT1_CA_CERT"] == "/certs/ca.pem"
    assert server["TEMPORAL_TLS_FRONTEND_CERT"] == "/certs/server.pem"
    for app in ("worker", "web"):
        env = services[app]["environment"]
        assert env["CLEARANCE_TEMPORAL_TLS_CERT"] == "/certs/client.pem"
        assert env["CLEARANCE_TEMPORAL_TLS_KEY"] == "/certs/client.key"
        assert env["CLEARANCE_TEMPORAL_TLS_CA"] == "/certs/ca.pem"
        assert env["CLEARANCE_TEMPORAL_TLS_SERVER_NAME"] == "temporal"
        mounts = {
            v if isinstance(v, str) else f"{v['source']}:{v['target']}"
            for v in services[app]["volumes"]
        }
        assert any(m.endswith(":/certs:ro") or m.endswith(":/certs") for m in mounts), mounts
    assert services["temporal-ui"]["environment"]["TEMPORAL_TLS_CERT"] == "/certs/client.pem"
    assert services["temporal-namespace"]["environment"]["TEMPORAL_TLS_CERT"] == "/certs/client.pem"


def test_the_file_validates_with_the_example_settings() -> None:
    result = compose("config", "--quiet")
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", result.stderr  # no warning about unset variables


def test_passwords_and_the_secret_key_are_required(tmp_path: Path) -> None:
    empty = tmp_path / "empty.env"
    empty.write_text("")
    result = compose("config", "--quiet", env_file=empty)
    assert result.returncode != 0
    assert "set TEMPORAL_POSTGRES_PASSWORD in .env" in result.stderr


def test_every_service_is_there(config: dict[str, Any]) -> None:
    assert sorted(config["services"]) == sorted(LONG_RUNNING + ONE_SHOT)
    images = {name: service.get("image", "") for name, service in config["services"].items()}
    # Official Temporal images, pinned (never `latest`).
    assert images["temporal"].startswith("temporalio/server:")
    assert images["temporal-ui"].startswith("temporalio/ui:")
    assert images["temporal-schema"].startswith("temporalio/admin-tools:")
    for name, image in images.items():
        assert (
            ":" in image
            and not image.endswith(":latest")
            or name
            in (
                "migrate",
                "worker",
                "web",
            )
        ), f"{name} runs an unpinned image {image!r}"


def test_long_running_services_have_health_checks(config: dict[str, Any]) -> None:
    for name in LONG_RUNNING:
        check = config["services"][name].get("healthcheck")
        assert check and check.get("test"), f"{name} has no health check"
    worker_check = " ".join(config["services"]["worker"]["healthcheck"]["test"])
    assert "/readyz" in worker_check and "CLEARANCE_WORKER_HEALTH_PORT" in worker_check
    assert "/readyz" in " ".join(config["services"]["web"]["healthcheck"]["test"])


def test_services_start_in_order(config: dict[str, Any]) -> None:
    services = config["services"]

    def waits_for(name: str) -> dict[str, str]:
        return {dep: spec["condition"] for dep, spec in services[name]["depends_on"].items()}

    assert waits_for("temporal-schema") == {"temporal-db": "service_healthy"}
    assert waits_for("temporal") == {"temporal-schema": "service_completed_successfully"}
    assert waits_for("temporal-namespace") == {"temporal": "service_healthy"}
    assert waits_for("temporal-ui") == {"temporal": "service_healthy"}
    assert waits_for("migrate") == {"app-db": "service_healthy"}
    for app in ("worker", "web"):
        assert waits_for(app) == {
            "migrate": "service_completed_successfully",
            "temporal-namespace": "service_completed_successfully",
        }


def test_commands_migrations_and_ports(config: dict[str, Any]) -> None:
    services = config["services"]
    assert services["migrate"]["command"] == ["clearance", "db", "upgrade"]
    assert services["worker"]["command"] == ["clearance", "worker"]
    assert services["web"]["command"] == [
        "clearance",
        "web",
        "--host",
        "0.0.0.0",
        "--port",
        "8000",
    ]
    assert services["worker"]["environment"]["CLEARANCE_WORKER_HEALTH_PORT"] == "8081"
    url = services["worker"]["environment"]["CLEARANCE_DATABASE_URL"]
    assert url == "postgresql+psycopg://clearance:change-me-app-db@app-db:5432/clearance"
    assert services["worker"]["environment"]["CLEARANCE_TEMPORAL_ADDRESS"] == "temporal:7233"
    assert services["temporal"]["environment"]["DB"] == "postgres12"
    schema_setup = " ".join(services["temporal-schema"]["command"])
    assert "update-schema" in schema_setup and "temporal_visibility" in schema_setup


def test_state_lives_in_named_volumes(config: dict[str, Any]) -> None:
    assert set(config["volumes"]) == {"temporal-db", "app-db", "clearance-data", "mailpit"}
    services = config["services"]

    def mounts(name: str) -> set[str]:
        return {
            v.split(":")[0] if isinstance(v, str) else v["source"]
            for v in services[name]["volumes"]
        }

    assert "temporal-db" in mounts("temporal-db")
    assert "app-db" in mounts("app-db")
    for app in ("worker", "web", "migrate"):
        assert "clearance-data" in mounts(app)


def test_the_data_volume_is_the_app_users_alone() -> None:
    # A new named volume copies the image's /data: owned by the app user, mode 0700.
    dockerfile = (PROJECT_ROOT / "Dockerfile").read_text()
    assert "chown clearance:clearance /data" in dockerfile
    assert "chmod 0700 /data" in dockerfile
    assert re.search(r"^USER clearance$", dockerfile, re.M)


def test_the_mail_catcher_is_for_staging_only() -> None:
    result = compose("config", "--profiles")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["staging"]


def test_every_setting_is_documented_in_the_example() -> None:
    settings_source = (PROJECT_ROOT / "settings.py").read_text()
    variables = set(re.findall(r'"(CLEARANCE_[A-Z0-9_]+)"', settings_source))
    assert variables, "settings.py reads no CLEARANCE_* variable?"
    example = ENV_EXAMPLE.read_text()
    compose_file = (PROJECT_ROOT / "docker-compose.yml").read_text()
    # Set by compose itself (addresses inside the network, the data volume) or only
    # meaningful for the embedded development stack.
    set_by_compose = {
        "CLEARANCE_TEMPORAL_ADDRESS",
        "CLEARANCE_DATABASE_URL",
        "CLEARANCE_DATA_DIR",
        "CLEARANCE_WEB_HOST",
        "CLEARANCE_WEB_PORT",
    }
    embedded_only = {"CLEARANCE_TEMPORAL_UI_PORT"}
    # Read by the CLI on a staff member's machine, never by a service.
    cli_only = {"CLEARANCE_API_URL", "CLEARANCE_API_TOKEN", "CLEARANCE_CLI_CONFIG"}
    for name in sorted(variables - set_by_compose - embedded_only - cli_only):
        assert re.search(rf"^{name}=", example, re.M), f"{name} is not in .env.example"
        assert f"${{{name}" in compose_file, f"{name} is not passed to the services"
    for name in sorted(set_by_compose):
        assert f"{name}:" in compose_file, f"compose does not set {name}"
