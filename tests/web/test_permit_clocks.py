"""Permit clocks over the JSON API and the pages, against the real workflows: opening a
clock, recording an event that moves its expiry, the Deadlines list, the ICS feed; and
every refusal (unknown rule, an event the rule does not take, an extension after expiry,
a second 65957 extension, negative days) answered with its reason and nothing stored."""

from __future__ import annotations

import re
import time
import uuid
from datetime import date, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from models.database import make_engine, session_factory
from models.schema import PermitClockRow, PermitEventRow
from settings import Settings
from tests.polling import polls
from tests.web.helpers import Browser, Stackish, city_today, csrf_of

PM = "pm@cotati.example"
ATTORNEY = "attorney@cotati.example"


def new_id(prefix: str = "BP") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def days_ago(n: int) -> str:
    return (city_today() - timedelta(days=n)).isoformat()


def stored(settings: Settings, clock_id: str) -> tuple[bool, int]:
    """(the clock has a row, how many event rows it has)."""
    with session_factory(make_engine(settings.database_url))() as s:
        row = s.get(PermitClockRow, clock_id)
        events = s.scalar(
            select(func.count())
            .select_from(PermitEventRow)
            .where(PermitEventRow.clock_id == clock_id)
        )
    return row is not None, events or 0


def wait_events(settings: Settings, clock_id: str, count: int) -> None:
    for _ in polls():
        if stored(settings, clock_id)[1] >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{clock_id} never had {count} event rows")


def wait_row(settings: Settings, clock_id: str, check: Any = lambda row: True) -> PermitClockRow:
    for _ in range(300):
        with session_factory(make_engine(settings.database_url))() as s:
            row = s.get(PermitClockRow, clock_id)
            if row is not None and check(row):
                return row
        time.sleep(0.05)
    raise AssertionError(f"{clock_id} never reached the read model")


def open_building_permit(browser: Browser, clock_id: str, approved: str) -> Any:
    return browser.api(
        PM,
        "POST",
        "/api/v1/permits",
        {
            "clock_id": clock_id,
            "rule": "building_permit_expiry",
            "jurisdiction": "cotati",
            "events": [{"type": "approved", "date": approved}],
            "title": "New garage",
            "applicant_email": "owner@example.test",
        },
    )


def test_api_opens_a_clock_and_an_inspection_moves_its_expiry(
    browser: Browser, web_settings: Settings
) -> None:
    clock_id = new_id()
    opened = open_building_permit(browser, clock_id, days_ago(100))
    assert opened.status_code == 201, opened.text
    assert opened.json()["clock"]["due_date"] == (city_today() + timedelta(days=80)).isoformat()
    wait_row(web_settings, clock_id)

    recorded = browser.api(
        PM,
        "POST",
        f"/api/v1/permits/{clock_id}/events",
        {"type": "inspection", "date": days_ago(0), "result": "approved", "qualifying": True},
    )
    assert recorded.status_code == 200, recorded.text
    new_expiry = (city_today() + timedelta(days=180)).isoformat()
    assert recorded.json()["clock"]["due_date"] == new_expiry
    wait_row(web_settings, clock_id, lambda row: row.due_date == new_expiry)

    page = browser.api(ATTORNEY, "GET", f"/api/v1/permits/{clock_id}").json()
    assert [e["type"] for e in page["events"]] == ["approved", "inspection"]
    assert page["events"][1]["recorded_by"] == PM

    listed = browser.api(ATTORNEY, "GET", "/api/v1/deadlines").json()
    mine = [d for d in listed if d["subject_id"] == clock_id]
    assert mine and mine[0]["conservative_date"] == new_expiry
    dates = [d["conservative_date"] for d in listed]
    assert dates == sorted(dates)


def test_a_second_open_of_the_same_clock_is_refused(browser: Browser) -> None:
    clock_id = new_id()
    assert open_building_permit(browser, clock_id, days_ago(3)).status_code == 201
    again = open_building_permit(browser, clock_id, days_ago(3))
    assert again.status_code == 409
    assert "already has a clock" in again.json()["error"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"rule": "parking_permit_expiry"}, "parking_permit_expiry"),
        ({"events": [{"type": "approved", "date": "2026-02-30"}]}, "date"),
        ({"events": [{"type": "approved", "date": "2999-01-01"}]}, "future"),
        ({"events": [{"type": "demolished", "date": "2026-01-05"}]}, "demolished"),
        ({"jurisdiction": "atlantis"}, "atlantis"),
    ],
)
def test_open_refusals_store_nothing(
    browser: Browser, web_settings: Settings, body: dict[str, Any], words: str
) -> None:
    clock_id = new_id()
    payload = {
        "clock_id": clock_id,
        "rule": "building_permit_expiry",
        "jurisdiction": "cotati",
        "events": [{"type": "approved", "date": days_ago(3)}],
        **body,
    }
    refused = browser.api(PM, "POST", "/api/v1/permits", payload)
    assert refused.status_code in (400, 409), refused.text
    assert words in refused.json()["error"]
    assert stored(web_settings, clock_id) == (False, 0)


def test_event_refusals_store_nothing(browser: Browser, web_settings: Settings) -> None:
    expired = new_id()
    assert open_building_permit(browser, expired, days_ago(400)).status_code == 201
    wait_events(web_settings, expired, 1)
    cases = [
        ({"type": "demolished", "date": days_ago(1)}, "demolished"),
        ({"type": "extension_granted", "date": days_ago(1), "days": 90}, "expir"),
        ({"type": "extension_granted", "date": days_ago(1), "days": -5}, "positive whole number"),
    ]
    for body, words in cases:
        refused = browser.api(PM, "POST", f"/api/v1/permits/{expired}/events", body)
        assert refused.status_code == 409, refused.text
        assert words in refused.json()["error"].lower(), refused.json()
    assert stored(web_settings, expired) == (True, 1)


def test_a_second_65957_extension_is_refused_with_the_warning(
    browser: Browser, web_settings: Settings
) -> None:
    clock_id = new_id("PA")
    opened = browser.api(
        PM,
        "POST",
        "/api/v1/permits",
        {
            "clock_id": clock_id,
            "rule": "ca_psa_decision",
            "jurisdiction": "cotati",
            "events": [{"type": "ceqa", "date": days_ago(40), "document": "exempt"}],
        },
    )
    assert opened.status_code == 201, opened.text
    wait_row(web_settings, clock_id)
    first = browser.api(
        PM,
        "POST",
        f"/api/v1/permits/{clock_id}/events",
        {"type": "extension_agreed", "date": days_ago(2), "days": 90},
    )
    assert first.status_code == 200, first.text
    second = browser.api(
        PM,
        "POST",
        f"/api/v1/permits/{clock_id}/events",
        {"type": "extension_agreed", "date": days_ago(1), "days": 30},
    )
    assert second.status_code == 409
    assert "65957" in second.json()["error"]
    wait_row(web_settings, clock_id, lambda row: len(row.clock.get("ledger") or []) >= 2)
    assert stored(web_settings, clock_id) == (True, 2)


def test_a_reader_may_not_open_or_record(browser: Browser, web_settings: Settings) -> None:
    clock_id = new_id()
    refused = browser.api(
        ATTORNEY,
        "POST",
        "/api/v1/permits",
        {
            "clock_id": clock_id,
            "rule": "building_permit_expiry",
            "jurisdiction": "cotati",
            "events": [{"type": "approved", "date": days_ago(1)}],
        },
    )
    assert refused.status_code == 403
    assert stored(web_settings, clock_id) == (False, 0)


def test_pages_open_a_clock_record_an_event_and_refuse_in_the_form(
    browser: Browser, web_settings: Settings
) -> None:
    client = browser.as_(PM)
    form = client.get("/permits/new")
    assert form.status_code == 200
    clock_id = new_id()
    fields = {
        "csrf_token": csrf_of(form.text),
        "clock_id": clock_id,
        "rule": "building_permit_expiry",
        "jurisdiction": "cotati",
        "start_event": "approved",
        "start_date": days_ago(10),
        "title": "Shed",
    }
    # A refusal shows the form again with the reason and what was typed; nothing stored.
    bad = client.post("/permits/new", data={**fields, "rule": "no_such_rule"})
    assert bad.status_code in (400, 409)
    assert "no_such_rule" in bad.text and 'value="Shed"' in bad.text
    assert stored(web_settings, clock_id) == (False, 0)

    done = client.post("/permits/new", data=fields, follow_redirects=False)
    assert done.status_code == 303, done.text
    assert done.headers["location"] == f"/permits/{clock_id}"
    wait_row(web_settings, clock_id)
    page = client.get(f"/permits/{clock_id}")
    assert 'data-testid="permit-due-date"' in page.text
    assert (city_today() + timedelta(days=170)).isoformat() in page.text

    refused = client.post(
        f"/permits/{clock_id}/events",
        data={"csrf_token": csrf_of(page.text), "type": "extension_granted", "days": "-3"},
    )
    assert refused.status_code == 409
    assert "Not recorded" in refused.text
    assert stored(web_settings, clock_id) == (True, 1)

    moved = client.post(
        f"/permits/{clock_id}/events",
        data={
            "csrf_token": csrf_of(page.text),
            "type": "inspection",
            "date": days_ago(0),
            "result": "approved",
            "qualifying": "1",
        },
        follow_redirects=False,
    )
    assert moved.status_code == 303, moved.text
    new_expiry = (city_today() + timedelta(days=180)).isoformat()
    wait_row(web_settings, clock_id, lambda row: row.due_date == new_expiry)
    page = client.get(f"/permits/{clock_id}")
    assert page.text.count('data-testid="timeline-event"') == 2
    deadlines = client.get("/deadlines")
    assert clock_id in deadlines.text


def test_the_calendar_feed_carries_permit_deadlines(
    browser: Browser, web_settings: Settings
) -> None:
    from tests.web.views.test_ics import parse

    clock_id = new_id()
    assert open_building_permit(browser, clock_id, days_ago(30)).status_code == 201
    wait_row(web_settings, clock_id)
    client = browser.as_(PM)
    me = client.get("/me")
    made = client.post("/me/calendar", data={"csrf_token": csrf_of(me.text)})
    url = re.search(r"http://testserver(/calendar/[^ <]+\.ics)", made.text).group(1)  # type: ignore[union-attr]
    events = parse(browser.as_(None).get(url).text)
    mine = [
        e for e in events if e["UID"][0][1] == f"permit-{clock_id}-building_permit_expiry@clearance"
    ]
    assert len(mine) == 1
    expiry = (city_today() + timedelta(days=150)).isoformat().replace("-", "")
    assert mine[0]["DTSTART"] == [("DTSTART;VALUE=DATE", expiry)]
    assert "expired" in mine[0]["DESCRIPTION"][0][1]


def test_a_conditions_time_limit_shows_on_project_condition_and_applicant_pages(
    browser: Browser, stack: Stackish, web_settings: Settings
) -> None:
    project = stack.new_project("TL")
    limit = {
        "kind": "expiry",
        "months": 24,
        "anchor": "approval",
        "extensions": {"count": 1, "months": 12},
        "text": "shall expire twenty-four (24) months from the date of approval",
    }
    done = browser.api(
        PM,
        "POST",
        f"/api/v1/projects/{project}/time-limits",
        {
            "conditions": [{"number": "2", "time_limits": [limit]}],
            "anchors": {"approval": days_ago(30)},
        },
    )
    assert done.status_code == 200, done.text
    clock_id = f"{project}-COA-2"
    assert done.json()["opened"] == [clock_id]
    row = wait_row(web_settings, clock_id)
    assert row.project_id == project and row.applicant_email == "applicant@test.example"

    client = browser.as_(PM)
    for page in (f"/projects/{project}", f"/projects/{project}/conditions/2"):
        html = client.get(page).text
        assert 'data-testid="time-limit-row"' in html, page
        assert row.conservative_date in html
    link = browser.api(
        PM, "POST", "/api/v1/links", {"scope": "project", "scope_id": project}
    ).json()
    portal = browser.as_(None).get(link["url"].replace("http://testserver", "")).text
    assert 'data-testid="time-limit-row"' in portal and row.conservative_date in portal


def open_review(browser: Browser, clock_id: str) -> Any:
    """An AB 2234 review of a 12-unit project, complete two days ago."""
    return browser.api(
        PM,
        "POST",
        "/api/v1/permits",
        {
            "clock_id": clock_id,
            "rule": "ca_post_entitlement_review",
            "facts": {"units": 12},
            "events": [{"type": "complete", "date": days_ago(2)}],
        },
    )


def test_a_closure_day_from_the_admin_page_reaches_open_permit_clocks(
    browser: Browser, web_settings: Settings
) -> None:
    from models.schema import ClosureDay
    from rules.kernel.calendars import LITERAL
    from rules.permit_clocks.jurisdictions import base_layers

    clock_id = new_id("PE")
    opened = open_review(browser, clock_id)
    assert opened.status_code == 201, opened.text
    before = opened.json()["clock"]["due_date"]
    wait_row(web_settings, clock_id)
    # A business day ahead that no other test has closed yet.
    calendar = base_layers("cotati", "CA").calendar(LITERAL)
    with session_factory(make_engine(web_settings.database_url))() as s:
        taken = set(s.scalars(select(ClosureDay.date)))
    day = date.fromisoformat(city_today().isoformat()) + timedelta(days=8)
    while not calendar.is_business_day(day) or day.isoformat() in taken:
        day += timedelta(days=1)
    assert day.isoformat() < before

    admin = browser.as_("admin@cotati.example")
    page = admin.get("/admin/calendar")
    added = admin.post(
        "/admin/calendar/closures",
        data={"csrf_token": csrf_of(page.text), "jurisdiction": "cotati", "date": str(day)},
    )
    assert added.status_code == 200 and 'class="flash ok"' in added.text
    assert "open permit clock(s) recounted" in added.text and clock_id in added.text
    moved = calendar.add_business_days(date.fromisoformat(before), 1).isoformat()
    row = wait_row(web_settings, clock_id, lambda row: row.due_date == moved)
    assert any(e["event"] == "local_closure" for e in row.clock["ledger"])
    with session_factory(make_engine(web_settings.database_url))() as s:
        stored_day = s.scalar(select(ClosureDay).where(ClosureDay.date == str(day)))
    assert stored_day is not None and clock_id in stored_day.applications

    # A permit clock opened afterwards starts with the day in its frozen calendar
    later = new_id("PE")
    again = open_review(browser, later)
    assert again.status_code == 201, again.text
    # (its date counts the closure from the start: no closure line in its ledger)
    assert again.json()["clock"]["due_date"] == moved
    assert all(e["event"] != "local_closure" for e in again.json()["clock"]["ledger"])


def test_the_open_form_asks_for_the_chosen_rules_own_facts(
    browser: Browser, web_settings: Settings
) -> None:
    client = browser.as_(PM)
    form = client.get("/permits/new", params={"rule": "building_permit_expiry"})
    assert form.status_code == 200
    # Each fact its own field with the rule's words, not name=value lines.
    assert 'data-testid="permit-fact-max_extensions"' in form.text
    assert "Term limit from issuance, in months" in form.text
    assert 'name="facts"' not in form.text
    clock_id = new_id()
    done = client.post(
        "/permits/new",
        data={
            "csrf_token": csrf_of(form.text),
            "clock_id": clock_id,
            "rule": "building_permit_expiry",
            "jurisdiction": "cotati",
            "start_event": "approved",
            "start_date": days_ago(10),
            "fact_max_extensions": "1",
            "fact_term_limit_months": "",
        },
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text
    wait_row(web_settings, clock_id)
    page = client.get(f"/permits/{clock_id}").text
    offers = re.findall(r'data-testid="permit-offer" data-event="(\w+)"', page)
    assert "inspection" in offers and "approved" not in offers
