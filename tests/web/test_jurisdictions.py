"""Jurisdictions are data: a second one, loaded from a folder of jurisdiction files (as a
city adds its own with CLEARANCE_JURISDICTIONS_DIR), with another time zone, no state
holidays, other closures, the federal pack and other contacts and reminder offsets. A
clock opened there is counted on its calendar and pack, reminds its people, and its page
shows its own time zone and "today"; nothing in the code names the demo city."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import uuid
from datetime import date, timedelta
from pathlib import Path

import pendulum
import pytest

from actions.errors import ActionFailed
from actions.layer import Actions
from actions.temporal import Gateway
from models.database import make_engine, session_factory
from rules.kernel.jurisdictions import (
    JURISDICTIONS,
    add_jurisdictions,
    default_jurisdiction,
    jurisdiction,
)
from rules.shot_clock.engine import compute_json
from settings import PROJECT_ROOT, Settings
from tests.web.helpers import Browser
from web.auth.accounts import Accounts
from web.queries.scope import grant
from web.views.present import human_date

TEST_JURISDICTIONS = PROJECT_ROOT / "tests" / "data" / "jurisdictions"
MANAGER = "manager@cotati.example"


@pytest.fixture(scope="module")
def lakeview(web_settings: Settings) -> str:
    assert add_jurisdictions(TEST_JURISDICTIONS) == ["lakeview"]
    # The manager works in both cities (a user sees only the cities they hold a role in).
    accounts = Accounts(make_engine(web_settings.database_url))
    manager = accounts.get_user(MANAGER)
    assert manager is not None
    sessions = session_factory(make_engine(web_settings.database_url))
    for key in ("cotati", "lakeview"):
        grant(sessions, manager.id, key, manager.role)
    return "lakeview"


def open_in(browser: Browser, key: str, days_ago: int) -> tuple[str, dict]:
    city = jurisdiction(key)
    submitted = pendulum.now(city.time_zone).date() - timedelta(days=days_ago)
    app_id = f"J-{key[:4].upper()}-{uuid.uuid4().hex[:6]}"
    response = browser.api(
        MANAGER,
        "POST",
        "/api/v1/applications",
        {
            "application_id": app_id,
            "planner_email": "someone@city.example",
            "category": "macro_collocation",
            "jurisdiction": key,
            "submitted": submitted.isoformat(),
        },
    )
    assert response.status_code == 201, response.text
    summary = browser.api(MANAGER, "GET", f"/api/v1/applications/{app_id}/summary").json()
    return app_id, summary


def test_the_second_jurisdiction_has_its_own_adopted_holidays(lakeview: str) -> None:
    founders = date(2027, 6, 14)  # a Monday: closed in Lakeview only
    closed = jurisdiction(lakeview).calendar_layers().calendar().closure_reason(founders)
    assert closed and "Founders' Day" in closed
    default = default_jurisdiction("")
    assert not default.calendar_layers().calendar().closure_reason(founders)


def test_the_default_is_data_and_a_setting(lakeview: str, web_settings: Settings) -> None:
    flagged = [j.key for j in JURISDICTIONS.values() if j.default]
    assert len(flagged) == 1 and default_jurisdiction("").key == flagged[0]
    assert default_jurisdiction(lakeview).key == lakeview
    engine = make_engine(web_settings.database_url)
    chosen = dataclasses.replace(web_settings, default_jurisdiction=lakeview)
    assert Actions(chosen, engine, Gateway(chosen)).city().time_zone == "America/Denver"
    wrong = dataclasses.replace(web_settings, default_jurisdiction="atlantis")
    with pytest.raises(ActionFailed, match="unknown jurisdiction 'atlantis'"):
        Actions(wrong, engine, Gateway(wrong)).city()


def test_a_clock_in_the_second_jurisdiction_uses_its_calendar_pack_and_contacts(
    lakeview: str, browser: Browser
) -> None:
    city = jurisdiction(lakeview)
    app_id, summary = open_in(browser, lakeview, days_ago=40)
    app = summary["application"]
    expected_calendar = {
        "jurisdiction": lakeview,
        "state": None,
        "time_zone": "America/Denver",
        "rule_pack": "federal",
        "local_holidays": list(city.local_closures),
    }
    assert {k: app["calendar"][k] for k in expected_calendar} == expected_calendar
    # Its frozen calendar layers carry its own adopted holidays.
    layers = json.dumps(app["calendar"].get("layers") or {})
    assert "Founders' Day" in layers
    assert app["contacts"]["supervisor_email"] == "director@lakeview.example"
    assert app["contacts"]["attorney_email"] == "counsel@lakeview.example"
    assert app["reminder_offsets"] == [21, 7, 2]
    submitted = summary["events"][0]["date"]
    expected = compute_json(
        {
            "category": "macro_collocation",
            "state": None,
            "rule_pack": "federal",
            "local_holidays": list(city.local_closures),
            "events": [{"type": "submitted", "date": submitted}],
        }
    )
    assert summary["clock"]["shot_clock_date"] == expected["shot_clock_date"]
    assert summary["clock"]["conservative_date"] == expected["conservative_date"]

    # The demo city's clock, opened the same way, keeps its own people and offsets.
    default = default_jurisdiction("")
    _, other = open_in(browser, default.key, days_ago=40)
    assert other["application"]["calendar"]["time_zone"] == default.time_zone
    assert other["application"]["contacts"]["supervisor_email"] == default.supervisor_email
    assert other["application"]["reminder_offsets"] == list(default.reminder_offsets)

    # The application's page counts its days in its own time zone.
    page = browser.as_(MANAGER).get(f"/applications/{app_id}").text
    assert "Times are the city's (America/Denver)" in page
    today = pendulum.now("America/Denver").date()
    assert f"Today is {human_date(today)}" in page
    dashboard = browser.as_(MANAGER).get("/").text
    assert f"Times are the city's ({default.time_zone})" in dashboard


def test_an_unknown_jurisdiction_is_refused_and_nothing_is_opened(browser: Browser) -> None:
    app_id = f"J-NONE-{uuid.uuid4().hex[:6]}"
    response = browser.api(
        MANAGER,
        "POST",
        "/api/v1/applications",
        {
            "application_id": app_id,
            "planner_email": "p@city.example",
            "category": "macro_collocation",
            "jurisdiction": "atlantis",
        },
    )
    assert response.status_code == 400
    assert "unknown jurisdiction 'atlantis'" in response.json()["error"]
    assert browser.api(MANAGER, "GET", f"/api/v1/applications/{app_id}/summary").status_code == 404


def test_nothing_in_the_code_names_the_demo_city() -> None:
    folders = [
        "rules",
        "workflows",
        "activities",
        "notices",
        "models",
        "web",
        "cli",
        "reports",
        "actions",
    ]
    result = subprocess.run(
        ["grep", "-ril", "cotati", *folders, "worker.py", "settings.py"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    named = [
        line
        for line in result.stdout.splitlines()
        if "/data/" not in line and "__pycache__" not in line and not line.endswith(".pyc")
    ]
    assert named == [], f"code names the demo city: {named}"
    assert Path(PROJECT_ROOT / "rules" / "data" / "jurisdictions").is_dir()
