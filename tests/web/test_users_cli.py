"""`clearance users add|list|token|disable` against a fresh database, as an admin runs it."""

from __future__ import annotations

from pathlib import Path

from tests.cli.runner import assert_one_line_error, clean_env, clearance


def test_users_commands(tmp_path: Path) -> None:
    env = clean_env({"CLEARANCE_DATA_DIR": str(tmp_path / "var")})
    added = clearance(
        "users",
        "add",
        "Reviewer@City.example",
        "--role",
        "department_reviewer",
        "--department",
        "fire",
        "--password",
        "long enough password",
        env=env,
    )
    assert added.returncode == 0, added
    assert "added reviewer@city.example: department_reviewer (fire)" in added.stdout
    assert_one_line_error(
        clearance(
            "users",
            "add",
            "x@city.example",
            "--role",
            "wizard",
            "--password",
            "long enough password",
            env=env,
        ),
        2,
        "unknown role 'wizard'",
    )
    assert_one_line_error(
        clearance(
            "users", "add", "y@city.example", "--role", "admin", "--password", "short", env=env
        ),
        2,
        "at least 12 characters",
    )
    assert_one_line_error(
        clearance(
            "users",
            "add",
            "reviewer@city.example",
            "--role",
            "admin",
            "--password",
            "long enough password",
            env=env,
        ),
        2,
        "already exists",
    )
    assert_one_line_error(
        clearance(
            "users", "add", "z@city.example", "--role", "admin", "--password", "password1234",
            env=env,
        ),
        2,
        "too easy to guess: This is a very common password",
    )  # fmt: skip
    assert_one_line_error(
        clearance(
            "users", "password", "reviewer@city.example", "--password", "password1234", env=env
        ),
        2,
        "too easy to guess",
    )
    listed = clearance("users", "list", env=env)
    assert "reviewer@city.example" in listed.stdout and "fire" in listed.stdout
    token = clearance("users", "token", "reviewer@city.example", env=env)
    assert token.returncode == 0 and len(token.stdout.strip()) >= 40
    assert clearance("users", "disable", "reviewer@city.example", env=env).returncode == 0


def test_clearance_web_serves_and_stops(tmp_path: Path) -> None:
    import signal
    import subprocess
    import time

    import httpx

    from stack.ports import free_port
    from tests.cli.runner import COMMAND

    port = free_port()
    env = clean_env(
        {"CLEARANCE_DATA_DIR": str(tmp_path / "var"), "CLEARANCE_TEMPORAL_ADDRESS": "127.0.0.1:9"}
    )
    process = subprocess.Popen(
        [*COMMAND, "web", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stdout.read()  # type: ignore[union-attr]
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert health.json() == {"status": "ok"}
        ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=10)
        assert ready.status_code == 503 and ready.json()["temporal"] == "unreachable"
        assert httpx.get(f"http://127.0.0.1:{port}/login").status_code == 200
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=20)
    assert f"http://127.0.0.1:{port}" in process.stdout.read().decode()  # type: ignore[union-attr]


def test_a_users_address_is_validated(tmp_path: Path) -> None:
    env = clean_env({"CLEARANCE_DATA_DIR": str(tmp_path / "var")})
    assert_one_line_error(
        clearance(
            "users", "add", "x@city.example\r\nBcc: y@city.example", "--role", "admin",
            "--password", "a long and unusual passphrase", env=env,
        ),
        2,
        "email:",
        "is not a valid e-mail address",
    )  # fmt: skip
