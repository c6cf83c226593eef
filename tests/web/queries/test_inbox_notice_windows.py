"""The inbox's notice windows, read by each clock's next closing day: the windows about to
close are listed nearest first, as many as an inbox shows, including a clock's later
window when its earlier one has closed since the clock was recorded; closed, far-off and
stopped clocks' windows are not."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.shot_clock_records import clock_columns
from models.database import make_engine
from models.schema import Application
from web.queries.inbox import HORIZON_DAYS, INBOX_CAP, notice_windows

TODAY = date(2026, 12, 4)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


def window(kind: str, closes_in: int, state: str = "open") -> dict[str, str]:
    closes = (TODAY + timedelta(days=closes_in)).isoformat()
    return {"kind": kind, "closes": closes, "state": state, "rule": "47 CFR 1.6003(d)"}


def record(
    engine: Engine, application_id: str, windows: list[dict[str, Any]], **clock: Any
) -> None:
    """An application row as the record activity writes it."""
    now = datetime(2026, 11, 20, tzinfo=UTC)
    values = clock_columns({"status": "running", "notice_windows": windows, **clock})
    with engine.begin() as connection:
        connection.execute(
            Application.__table__.insert().values(
                application_id=application_id,
                workflow_id=f"shot-clock-{application_id}",
                jurisdiction="City of Cotati",
                category="small_wireless",
                site_address=f"{application_id} Main St",
                created_at=now,
                updated_at=now,
                **values,
            )
        )


def listed(engine: Engine) -> list[tuple[str, str | None]]:
    with Session(engine) as db:
        return [(i.title.split(",")[0], i.due) for i in notice_windows(db, TODAY)]


def test_windows_closing_soon_are_listed_and_others_are_not(engine: Engine) -> None:
    record(engine, "SOON", [window("first_notice", 5)])
    record(engine, "TODAY", [window("reset_notice", 0)])
    record(engine, "FAR", [window("first_notice", HORIZON_DAYS + 1)])
    record(engine, "USED", [window("first_notice", 5, state="used")])
    record(engine, "TOLLED", [window("first_notice", 5)], status="tolled")
    record(engine, "NONE", [])
    assert sorted(listed(engine)) == [
        ("SOON", window("first_notice", 5)["closes"]),
        ("TODAY", TODAY.isoformat()),
    ]


def test_a_later_window_is_listed_after_the_earlier_one_closed_since_recording(
    engine: Engine,
) -> None:
    # Recorded while both windows were open; the 10-day reset window has closed since
    # (the clock was not recorded again), its 30-day window closes in 9 days.
    record(engine, "BOTH", [window("reset_notice", -2), window("first_notice", 9)])
    record(engine, "GONE", [window("reset_notice", -2)])
    assert listed(engine) == [("BOTH", window("first_notice", 9)["closes"])]


def test_the_nearest_windows_are_listed_when_there_are_more_than_an_inbox_shows(
    engine: Engine,
) -> None:
    for i in range(INBOX_CAP + 20):
        record(engine, f"C{i:04d}", [window("first_notice", HORIZON_DAYS - i % HORIZON_DAYS)])
    got = listed(engine)
    assert len(got) == INBOX_CAP
    dues = sorted(due for _, due in got)
    everything = sorted(
        window("first_notice", HORIZON_DAYS - i % HORIZON_DAYS)["closes"]
        for i in range(INBOX_CAP + 20)
    )
    assert dues == everything[:INBOX_CAP]
