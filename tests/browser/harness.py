"""The browser journeys' harness: `clearance run` started the way the README starts it,
on free ports and a temporary data folder, and a journey's browser context with its
numbered screenshots."""

from __future__ import annotations

import dataclasses
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil
from playwright.async_api import expect

from settings import PROJECT_ROOT
from stack.ports import free_port
from tests.cli.runner import COMMAND, Result, clean_env, clearance
from tests.database import fresh_database, suite_server_url

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SCREENSHOTS = PROJECT_ROOT / "test-artifacts" / "screenshots"
DEMO_PASSWORD = "clearance-demo"
# What `clearance run` prints once the worker runs and the demo is loaded.
READY_LINE = "Clearance is running."
STARTUP_TIMEOUT_S = 180.0
# Generous for a 2-core machine shared with other work: an action goes through a
# workflow update before the page re-renders.
ACTION_TIMEOUT_MS = 20_000


@dataclass
class RunningStack:
    """`clearance run` on free ports; `base_url` is its web app."""

    env: dict[str, str]
    data_dir: Path
    base_url: str
    log: Path
    process: subprocess.Popen[bytes]

    @property
    def outbox(self) -> Path:
        return self.data_dir / "outbox"

    def cli(self, *args: str, timeout: float = 60.0) -> Result:
        """Run `clearance ...` against this stack, as staff would in another terminal."""
        return clearance(*args, env=self.env, timeout=timeout)

    def login(self, email: str) -> RunningStack:
        """The CLI logged in as `email` the way the README says (`clearance login`, the
        demo password), with its own login file."""
        config = self.data_dir.parent / f"cli-{email}.json"
        env = {**self.env, "CLEARANCE_CLI_CONFIG": str(config)}
        if not config.exists():
            result = clearance(
                "login", "--email", email, "--password-stdin", input=f"{DEMO_PASSWORD}\n", env=env
            )
            assert result.returncode == 0, f"{result}\n--- clearance run log ---\n{self.tail()}"
        return dataclasses.replace(self, env=env)

    def ok(self, *args: str) -> Result:
        result = self.cli(*args)
        assert result.returncode == 0, f"{result}\n--- clearance run log ---\n{self.tail()}"
        return result

    def tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:]


def _wait_ready(process: subprocess.Popen[bytes], log: Path, base_url: str) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while True:
        text = log.read_text(errors="replace")
        if process.poll() is not None:
            raise RuntimeError(f"`clearance run` exited with {process.returncode}:\n{text[-4000:]}")
        if READY_LINE in text:
            try:
                if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"`clearance run` was not ready in {STARTUP_TIMEOUT_S:.0f} s:\n{text[-4000:]}"
            )
        time.sleep(0.25)


def _stop(stack: RunningStack) -> None:
    """Ctrl-C, as a user stops it; then make sure nothing it started is left running."""
    process = stack.process
    try:
        children = [c.pid for c in psutil.Process(process.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        children = []
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    for pid in children:  # e.g. the dev server, in its own session
        try:
            child = psutil.Process(pid)
            child.terminate()
            child.wait(timeout=10)
        except (psutil.NoSuchProcess, psutil.TimeoutExpired):
            pass


class Journey:
    """One journey: its browser contexts (one per person, no shared cookies) and its
    numbered screenshots."""

    def __init__(self, name: str, browser: Any, stack: RunningStack) -> None:
        self.name = name
        self.browser = browser
        self.stack = stack
        self.folder = SCREENSHOTS / name
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.page: Any = None
        self.errors: list[str] = []
        self._contexts: list[Any] = []
        self._step = 0

    async def start(self) -> None:
        self.page = await self.person()

    async def person(self) -> Any:
        """A page in a browser context of its own: another person at another computer."""
        context = await self.browser.new_context(
            base_url=self.stack.base_url, viewport={"width": 1280, "height": 900}
        )
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        self._contexts.append(context)
        page = await context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        return page

    async def close(self) -> None:
        for context in self._contexts:
            await context.close()

    async def shot(self, step: str, page: Any | None = None) -> Path:
        self._step += 1
        slug = re.sub(r"[^a-z0-9]+", "-", step.lower()).strip("-")
        path = self.folder / f"{self._step:02d}-{slug}.png"
        await (page or self.page).screenshot(path=str(path), full_page=True)
        return path

    async def failure_shot(self) -> None:
        for n, context in enumerate(self._contexts):
            for m, page in enumerate(context.pages):
                await page.screenshot(
                    path=str(self.folder / f"99-failure-{n}{m}.png"), full_page=True
                )

    async def login(self, email: str, page: Any | None = None) -> Any:
        """Log in as `email` (a demo user); returns the page, on the dashboard."""
        page = page or self.page
        await page.goto("/login")
        await page.get_by_test_id("login-email").fill(email)
        await page.get_by_test_id("login-password").fill(DEMO_PASSWORD)
        await page.get_by_test_id("login-submit").click()
        await expect(page.get_by_test_id("current-user")).to_contain_text(email)
        return page

    async def logout(self, page: Any | None = None) -> None:
        page = page or self.page
        await page.get_by_test_id("logout").click()
        await page.wait_for_url("**/login")


@contextmanager
def running_stack(root: Path, settings: dict[str, str] | None = None) -> Iterator[RunningStack]:
    """`clearance run` with its data folder under `root` and every port free (or the web
    port `settings` names), with any other CLEARANCE_* `settings`; its app database is a
    fresh one on the suite's PostgreSQL server when there is one."""
    server_url = suite_server_url()
    with ExitStack() as cleanup:
        extra = dict(settings or {})
        if server_url is not None:
            extra["CLEARANCE_DATABASE_URL"] = cleanup.enter_context(
                fresh_database(root, server_url)
            )
        yield cleanup.enter_context(_running(root, extra))


@contextmanager
def _running(root: Path, extra: dict[str, str]) -> Iterator[RunningStack]:
    data_dir = root / "var"
    web_port = int(extra.pop("CLEARANCE_WEB_PORT", 0)) or free_port()
    base_url = f"http://127.0.0.1:{web_port}"
    env = clean_env(
        {
            **extra,
            "CLEARANCE_DATA_DIR": str(data_dir),
            "CLEARANCE_TEMPORAL_ADDRESS": f"127.0.0.1:{free_port()}",
            "CLEARANCE_TEMPORAL_UI_PORT": str(free_port()),
            "CLEARANCE_WEB_HOST": "127.0.0.1",
            "CLEARANCE_WEB_PORT": str(web_port),
            "CLEARANCE_PUBLIC_URL": base_url,
            "CLEARANCE_SMTP_HOST": "",
        }
    )
    log = root / "clearance-run.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [*COMMAND, "run"],
            env=env,
            cwd=PROJECT_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    running = RunningStack(env, data_dir, base_url, log, process)
    try:
        _wait_ready(process, log, base_url)
        # Staff commands act as the planning manager unless a journey logs in as another.
        yield running.login("manager@cotati.example")
    finally:
        _stop(running)
