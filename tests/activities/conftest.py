"""Fixtures every activity test may take: the app database's engine and a real SMTP
server (its port and what it accepted)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from models.database import make_engine
from stack.ports import free_port
from tests.activities.smtp_server import Collector, start_smtp


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def smtp() -> Iterator[tuple[int, Collector]]:
    port = free_port()
    controller, handler = start_smtp(port)
    yield port, handler
    controller.stop()
