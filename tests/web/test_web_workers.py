"""`clearance web --workers 2`: several processes serve one app; a log-in made through one
is honoured by every other (sessions live in the database, the signing key is made once)."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

import httpx

from stack.ports import free_port
from tests.cli.runner import COMMAND, clean_env, clearance

EMAIL = "planner@city.example"
PASSWORD = "long enough password"


def _children(pid: int) -> list[str]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return path.read_text().split() if path.exists() else []


def test_several_processes_share_sessions(tmp_path: Path) -> None:
    env = clean_env(
        {"CLEARANCE_DATA_DIR": str(tmp_path / "var"), "CLEARANCE_TEMPORAL_ADDRESS": "127.0.0.1:9"}
    )
    added = clearance(
        "users", "add", EMAIL, "--role", "planning_manager", "--password", PASSWORD, env=env
    )
    assert added.returncode == 0, added
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [*COMMAND, "web", "--port", str(port), "--workers", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        while len(_children(process.pid)) < 2 or not _healthy(base):
            assert process.poll() is None, process.stdout.read()  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the processes did not start"
            time.sleep(0.2)
        with httpx.Client(base_url=base, timeout=30) as browser:
            form = browser.get("/login")
            token = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
            assert token, form.text[:300]
            done = browser.post(
                "/login", data={"email": EMAIL, "password": PASSWORD, "csrf_token": token[1]}
            )
            assert done.status_code == 303, done.text[:300]
            cookies = browser.cookies
        # Each request on a connection of its own: the kernel hands them to either process.
        for _ in range(20):
            with httpx.Client(base_url=base, cookies=cookies, timeout=30) as fresh:
                page = fresh.get("/", follow_redirects=False)
            assert page.status_code == 200 and "What needs you" in page.text
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    assert "2 processes" in process.stdout.read().decode()  # type: ignore[union-attr]


def _healthy(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
    except httpx.TransportError:
        return False
