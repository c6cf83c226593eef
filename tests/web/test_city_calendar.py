"""A calendar feed follows the person's role in each city, app-made cities included: a
department reviewer at home (who sees only the clocks naming them there) who manages
planning in a city an administrator set up in the app gets every running clock of that
city, and nothing of a city where they hold no role."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from actions.layer import Actions
from actions.temporal import Gateway
from models.database import make_engine, session_factory
from models.schema import Application, PermitClockRow, User
from rules.access import Principal
from tests.rules.kernel.test_jurisdiction_documents import sample
from tests.web.standalone import PASSWORD, standalone_client, standalone_settings
from tests.web.views.test_ics import parse
from web.auth.accounts import Accounts
from web.queries.scope import grant

NOW = datetime.now(UTC)
DUE = (date.today() + timedelta(days=20)).isoformat()
PERSON = "contract.planner@firm.example"


def application(app_id: str, city: str, planner: str) -> Application:
    return Application(
        application_id=app_id, workflow_id=f"shot-clock-{app_id}", jurisdiction=city,
        state="CA", category="macro_collocation", status="running", clock={},
        site_address=f"{app_id} site", planner_email=planner, shot_clock_date=DUE,
        conservative_date=DUE, created_at=NOW, updated_at=NOW,
    )  # fmt: skip


def permit(clock_id: str, city: str) -> PermitClockRow:
    return PermitClockRow(
        clock_id=clock_id, workflow_id=f"permit-clock-{clock_id}", jurisdiction=city,
        rule="building_permit_expiry", status="running", title=f"{clock_id} remodel",
        next_deadline=DUE, staff_email="someone.else@city.example",
        clock={"rule": "building_permit_expiry", "status": "running", "conservative_date": DUE,
               "due_date": DUE, "citation": "Cal. Bldg. Code § 105.5"},
        created_at=NOW, updated_at=NOW,
    )  # fmt: skip


@pytest.fixture(scope="module")
def feed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    settings = standalone_settings(tmp_path_factory.mktemp("city_calendar"))
    Accounts(make_engine(settings.database_url)).add_user(
        PERSON, "department_reviewer", PASSWORD, department="engineering"
    )
    engine = make_engine(settings.database_url)
    sessions = session_factory(engine)
    actions = Actions(settings, engine, Gateway(settings))
    asyncio.run(actions.jurisdictions.save(Principal("admin@city.example", "admin"), sample()))
    with sessions.begin() as s:
        user_id = s.query(User).filter_by(email=PERSON).one().id
        s.add_all(
            [
                application("HOME-MINE", "cotati", PERSON),
                application("HOME-OTHERS", "cotati", "another.planner@cotati.example"),
                application("SEB-ANY", "sebastopol", "seb.planner@sebastopol.example"),
                application("ELSEWHERE", "petaluma", PERSON),
                permit("SEB-BP-1", "sebastopol"),
                permit("HOME-BP-1", "cotati"),
            ]
        )
    grant(sessions, user_id, "cotati", "department_reviewer", "engineering")
    grant(sessions, user_id, "sebastopol", "planning_manager")
    token = Accounts(engine).new_calendar_token(user_id)
    with standalone_client(settings) as client:
        yield client, token


def uids(client: TestClient, token: str) -> set[str]:
    answer = client.get(f"/calendar/{token}.ics")
    assert answer.status_code == 200, answer.text
    events: list[dict[str, Any]] = parse(answer.text)
    return {e["UID"][0][1] for e in events}


def test_each_city_gives_the_share_the_persons_role_there_sees(
    feed: tuple[TestClient, str],
) -> None:
    found = uids(*feed)
    # Home, as a department reviewer: only the clock naming them.
    assert "clock-HOME-MINE-conservative@clearance" in found
    assert "clock-HOME-OTHERS-conservative@clearance" not in found
    assert "permit-HOME-BP-1-building_permit_expiry@clearance" not in found
    # The app-made city, as its planning manager: every running clock there.
    assert "clock-SEB-ANY-conservative@clearance" in found
    assert "permit-SEB-BP-1-building_permit_expiry@clearance" in found
    # A city they hold no role in, even naming them: nothing.
    assert not any("ELSEWHERE" in uid for uid in found)
