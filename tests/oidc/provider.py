"""A real OpenID Connect provider for the tests: the npm `oidc-provider` (tests/oidc/
provider.mjs, installed from tests/oidc/package-lock.json by scripts/setup), started on a
free port and stopped by the tests that need it. Without node or the package the tests
skip saying so (and fail under CI=true, tests/ci_plugin.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from stack.ports import free_port
from tests.real_parts import missing

HERE = Path(__file__).resolve().parent
CLIENT_ID = "clearance"
CLIENT_SECRET = "clearance-test-client-secret"
# The city's groups and who is in them (the planner, a manager, someone in no mapped group).
ACCOUNTS = {
    "pat": {"email": "pat.planner@cotati.example", "name": "Pat Planner", "groups": ["planners"]},
    "morgan": {
        "email": "morgan@cotati.example",
        "name": "Morgan Manager",
        "groups": ["staff", "planning-managers"],
    },
    "casey": {"email": "casey@cotati.example", "name": "Casey Clerk", "groups": ["clerks"]},
}
GROUP_ROLES = "planning-managers=planning_manager, planners=project_manager, it=admin"


def unavailable() -> str | None:
    """Why the provider cannot run here, or None."""
    if shutil.which("node") is None:
        return missing("OIDC provider", "node is not installed (scripts/system-packages)")
    if not (HERE / "node_modules" / "oidc-provider").is_dir():
        return missing("OIDC provider", "run `npm ci --prefix tests/oidc` (scripts/setup does it)")
    return None


@dataclass
class Provider:
    issuer: str
    client_id: str = CLIENT_ID
    client_secret: str = CLIENT_SECRET

    def env(self) -> dict[str, str]:
        """The app's settings for this provider."""
        return {
            "CLEARANCE_OIDC_ISSUER": self.issuer,
            "CLEARANCE_OIDC_CLIENT_ID": self.client_id,
            "CLEARANCE_OIDC_CLIENT_SECRET": self.client_secret,
            "CLEARANCE_OIDC_GROUP_ROLES": GROUP_ROLES,
            "CLEARANCE_OIDC_PROVIDER_NAME": "Cotati accounts",
        }


@contextmanager
def running_provider(redirect_uri: str, log: Path) -> Iterator[Provider]:
    port = free_port()
    issuer = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "OIDC_PORT": str(port),
        "OIDC_ISSUER": issuer,
        "OIDC_CLIENT_ID": CLIENT_ID,
        "OIDC_CLIENT_SECRET": CLIENT_SECRET,
        "OIDC_REDIRECT_URI": redirect_uri,
        "OIDC_ACCOUNTS": json.dumps(ACCOUNTS),
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["node", str(HERE / "provider.mjs")], env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=2).is_success:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"oidc-provider did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield Provider(issuer)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
