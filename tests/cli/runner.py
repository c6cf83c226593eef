"""Run the real `clearance` command as a subprocess, the way a planner runs it."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from settings import PROJECT_ROOT
from stack.ports import free_port
from stack.temporal_server import DevServer
from tests.database import fresh_database, suite_server_url

SCRIPT = Path(sys.executable).parent / "clearance"
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "cli.main"]


@dataclass
class Result:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return (
            f"clearance {' '.join(self.args)} -> exit {self.returncode}\n"
            f"--- stdout ---\n{self.stdout}--- stderr ---\n{self.stderr}"
        )


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The caller's environment without any CLEARANCE_* setting, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLEARANCE_")}
    # A wide terminal, so tables don't fold rule citations across lines.
    env["COLUMNS"] = "220"
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR"] = "1"
    env.update(extra or {})
    return env


def clearance(
    *args: str,
    input: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 60.0,
) -> Result:
    proc = subprocess.run(
        [*COMMAND, *args],
        input=input if input is not None else "",
        capture_output=True,
        text=True,
        env=dict(env) if env is not None else clean_env(),
        cwd=PROJECT_ROOT,
        timeout=timeout,
    )
    return Result(list(args), proc.returncode, proc.stdout, proc.stderr)


def assert_one_line_error(result: Result, code: int, *fragments: str) -> str:
    """Exit `code`, nothing on stdout, exactly one `error:` line on stderr, no traceback."""
    assert result.returncode == code, result
    assert "Traceback" not in result.stderr, result
    lines = result.stderr.strip("\n").splitlines()
    assert len(lines) == 1, result
    line = lines[0]
    assert line.startswith("error:"), result
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not in {line!r}"
    return line


# Who the staff commands act as unless a test says otherwise (`stack.as_(email)`): the
# planning manager may open and record on clocks, import, resolve, trigger and correct.
DEFAULT_USER = "manager@cotati.example"


def reviewer_email(department: str) -> str:
    return f"{department}.reviewer@cotati.example"


@dataclass
class Stack:
    env: dict[str, str]
    data_dir: Path
    worker_log: Path
    server_log: Path
    # Each staff user's personal access token (when the stack runs the web app).
    tokens: dict[str, str] = field(default_factory=dict)

    def as_(self, email: str) -> Stack:
        """The same stack, with the CLI logged in as another user (their token)."""
        return dataclasses.replace(
            self, env={**self.env, "CLEARANCE_API_TOKEN": self.tokens[email]}
        )

    @property
    def outbox(self) -> Path:
        return self.data_dir / "outbox"

    @property
    def database_url(self) -> str:
        return self.env["CLEARANCE_DATABASE_URL"]

    def run(self, *args: str, **kwargs: Any) -> Result:
        return clearance(*args, env=self.env, **kwargs)

    def ok(self, *args: str, **kwargs: Any) -> Result:
        result = self.run(*args, **kwargs)
        assert result.returncode == 0, f"{result}\n--- worker log ---\n{self.worker_tail()}"
        assert "Traceback" not in result.stderr, result
        return result

    def show_json(self, application_id: str) -> dict[str, Any]:
        return json.loads(self.ok("clock", "show", application_id, "--json").stdout)

    def worker_tail(self) -> str:
        return self.worker_log.read_text(errors="replace")[-3000:]


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


@contextmanager
def running_stack(root: Path, web: bool = False) -> Iterator[Stack]:
    """A plain dev server on a temporary SQLite file and `clearance worker` beside it,
    configured only through the environment, as a city would run them. With `web`, also
    `clearance web` and the demo users (plus a reviewer per department), each with a
    personal access token; the CLI acts as DEFAULT_USER unless told otherwise."""
    data_dir = root / "var"
    with fresh_database(root, suite_server_url()) as database_url:
        yield from _running_stack(root, data_dir, database_url, web)


def _staff_tokens(database_url: str) -> dict[str, str]:
    from models.database import make_engine
    from rules.conditions.lifecycle import DEPARTMENTS
    from stack.demo import DEMO_PASSWORD, load_demo_users
    from web.auth.accounts import Accounts

    load_demo_users(database_url)
    accounts = Accounts(make_engine(database_url))
    for department in DEPARTMENTS:
        email = reviewer_email(department)
        if accounts.get_user(email) is None:
            accounts.add_user(email, "department_reviewer", DEMO_PASSWORD, department)
    return {u.email: accounts.new_api_token(u.email, "tests") for u in accounts.list_users()}


def _start_web(root: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    import httpx

    log_path = root / "web.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [*COMMAND, "web"],
            env=env,
            cwd=PROJECT_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 180  # a loaded 2-core machine starts it slowly
    while True:
        try:
            if httpx.get(f"{env['CLEARANCE_API_URL']}/healthz", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            _stop(process)
            raise RuntimeError(f"the web app did not start:\n{log_path.read_text()}")
        time.sleep(0.1)


def _running_stack(
    root: Path, data_dir: Path, database_url: str, web: bool = False
) -> Iterator[Stack]:
    server = DevServer(
        root / "temporal.db", port=free_port(), ui_port=None, log_file=root / "temporal.log"
    )
    env = clean_env(
        {
            "CLEARANCE_TEMPORAL_ADDRESS": server.address,
            "CLEARANCE_DATA_DIR": str(data_dir),
            "CLEARANCE_DATABASE_URL": database_url,
            "CLEARANCE_TASK_QUEUE": f"cli-{uuid.uuid4()}",
            "CLEARANCE_SMTP_HOST": "",
            # Never the developer's own `clearance login` file.
            "CLEARANCE_CLI_CONFIG": str(root / "cli.json"),
        }
    )
    if web:
        port = free_port()
        env["CLEARANCE_WEB_PORT"] = str(port)
        env["CLEARANCE_API_URL"] = f"http://127.0.0.1:{port}"
        env["CLEARANCE_SECRET_KEY"] = "cli-tests-secret"
    worker_log = root / "worker.log"
    worker: subprocess.Popen[bytes] | None = None
    web_app: subprocess.Popen[bytes] | None = None
    server.start()
    try:
        with open(worker_log, "wb") as log:
            worker = subprocess.Popen(
                [*COMMAND, "worker"],
                env=env,
                cwd=PROJECT_ROOT,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 60
        while "worker on task queue" not in worker_log.read_text(errors="replace"):
            if worker.poll() is not None:
                raise RuntimeError(
                    f"the worker exited with {worker.returncode}:\n{worker_log.read_text()}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"the worker did not start:\n{worker_log.read_text()}")
            time.sleep(0.1)
        tokens: dict[str, str] = {}
        if web:
            web_app = _start_web(root, env)
            tokens = _staff_tokens(database_url)
            env["CLEARANCE_API_TOKEN"] = tokens[DEFAULT_USER]
        yield Stack(env, data_dir, worker_log, server.log_file, tokens)
    finally:
        if web_app is not None:
            _stop(web_app)
        if worker is not None:
            _stop(worker)
        server.stop()
