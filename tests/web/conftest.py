"""One stack for all web tests: a real Temporal dev server and `clearance worker` (from
tests/cli/runner.py), the demo users, and the app in one TestClient."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from settings import Settings, load_settings
from stack.demo import load_demo_users
from tests.cli.runner import running_stack
from tests.web.helpers import Browser, Stackish
from web.app import create_app


@pytest.fixture(scope="session")
def web_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    with running_stack(tmp_path_factory.mktemp("web")) as stack:
        env = stack.env
        settings = dataclasses.replace(
            load_settings(),
            temporal_address=env["CLEARANCE_TEMPORAL_ADDRESS"],
            data_dir=stack.data_dir,
            outbox_dir=stack.outbox,
            database_url=stack.database_url,
            task_queue=env["CLEARANCE_TASK_QUEUE"],
            secret_key="web-tests-secret",
            public_url="http://testserver",
        )
        load_demo_users(settings.database_url)
        yield settings


@pytest.fixture(scope="session")
def stack(web_settings: Settings) -> Stackish:
    return Stackish(web_settings)


@pytest.fixture(scope="session")
def browser(web_settings: Settings) -> Iterator[Browser]:
    with TestClient(create_app(web_settings), base_url="http://testserver") as client:
        yield Browser(client)
