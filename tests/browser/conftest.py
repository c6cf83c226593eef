"""Browser journeys: the whole product started the way the README starts it, and real
headless Chromium (Debian's `chromium`) driven through Playwright.

One `clearance run` subprocess per session, configured only through CLEARANCE_*
variables: the real Temporal dev server on free ports and a temporary data folder, the
worker, the demo data with a demo user per role, and the web app. Each journey gets a fresh
browser context and saves a screenshot of every step under
`test-artifacts/screenshots/<journey>/NN-step.png` (plus `99-failure.png` when it fails).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
import pytest_asyncio

from stack.ports import free_port
from tests.browser.harness import (
    ACTION_TIMEOUT_MS,
    CHROMIUM,
    CHROMIUM_ARGS,
    Journey,
    RunningStack,
    running_stack,
)
from tests.oidc.provider import running_provider
from tests.oidc.provider import unavailable as oidc_unavailable
from tests.real_parts import missing


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    if not CHROMIUM.exists():
        pytest.skip(
            missing(
                "Chromium",
                f"{CHROMIUM} is missing: install Debian's chromium (scripts/system-packages)",
            )
        )
    root = tmp_path_factory.mktemp("browser-stack")
    with ExitStack() as cleanup:
        # The city's identity provider (a real OpenID Connect provider) for the sign-in
        # journey, when node and its package are here (else that journey skips, saying so).
        settings: dict[str, str] = {}
        if oidc_unavailable() is None:
            web_port = free_port()
            callback = f"http://127.0.0.1:{web_port}/login/oidc/callback"
            provider = cleanup.enter_context(running_provider(callback, root / "oidc.log"))
            settings = {**provider.env(), "CLEARANCE_WEB_PORT": str(web_port)}
        yield cleanup.enter_context(running_stack(root, settings))


@pytest_asyncio.fixture(scope="session")
async def browser(stack: RunningStack) -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright, expect

    # Assertions wait as long as actions: each one may wait on a workflow update.
    expect.set_options(timeout=ACTION_TIMEOUT_MS)
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        yield chromium
        await chromium.close()


_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[_FAILED] = report.failed
    return report


@pytest_asyncio.fixture
async def journey(
    request: pytest.FixtureRequest, browser: Any, stack: RunningStack
) -> AsyncIterator[Journey]:
    """A fresh browser context (no cookies) whose screenshots go to the journey's folder."""
    name = request.node.name.removeprefix("test_")
    j = Journey(name, browser, stack)
    await j.start()
    try:
        yield j
        if request.node.stash.get(_FAILED, False):
            await j.failure_shot()
    finally:
        await j.close()
    assert not j.errors, f"JavaScript errors on the pages: {j.errors}"
