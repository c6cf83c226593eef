"""A review-queue item of a city set up in the app is due by that city's service level:
its department's own review days and the city's time zone, as the administrator saved
them, not the shipped files' 10 days in UTC."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pendulum

from actions.layer import Actions
from actions.temporal import Gateway
from models.database import make_engine, session_factory
from models.schema import ConditionRow, Project
from rules.access import Principal
from rules.kernel.calendars import calendar_for
from tests.rules.kernel.test_jurisdiction_documents import sample
from tests.web.standalone import standalone_settings
from web.queries.inbox import review_items

ADMIN = Principal("admin@city.example", "admin")


def test_an_app_made_citys_department_service_level_and_time_zone_set_the_due_date(
    tmp_path: Path,
) -> None:
    settings = standalone_settings(tmp_path)
    actions = Actions(settings, make_engine(settings.database_url), Gateway(settings))
    doc = sample()  # Sebastopol: environmental review 15 business days, Los Angeles time
    asyncio.run(actions.jurisdictions.save(ADMIN, doc))
    # Submitted late in the evening in Sebastopol: already the next day in UTC.
    submitted = pendulum.datetime(2026, 3, 3, 22, 30, tz="America/Los_Angeles")
    now = datetime.now(UTC)
    sessions = session_factory(make_engine(settings.database_url))
    with sessions.begin() as s:
        s.add(
            Project(
                project_id="SEB-1", workflow_id="w", name="Seb project",
                jurisdiction=doc["key"], created_at=now, updated_at=now,
            )
        )  # fmt: skip
    with sessions.begin() as s:
        for number, dept in (("1", "environmental"), ("2", "planning")):
            s.add(
                ConditionRow(
                    project_id="SEB-1", number=number, position=int(number), department=dept,
                    department_key=dept, text=f"Condition {number}", gate_source="stated",
                    kind="standard", status="submitted",
                    submitted_at=submitted.in_timezone("UTC").isoformat(),
                )
            )  # fmt: skip
    today = pendulum.date(2026, 3, 4)
    with sessions() as db:
        found = {i.title: i for i in review_items(db, None, today, actions.cities.find)}
    cal = calendar_for("CA")
    day = pendulum.date(2026, 3, 3)  # the city's day of submission, not UTC's
    assert found["SEB-1 condition #1"].due == cal.add_business_days(day, 15).isoformat()
    assert "within 15 business days" in found["SEB-1 condition #1"].why
    # A department without its own service level takes the city's (10 here).
    assert found["SEB-1 condition #2"].due == cal.add_business_days(day, 10).isoformat()
