"""Bulk actions on a selection of conditions, as a project manager meets them on the page
and an integrator through the API: each condition acted on and audited by itself, the
refused ones listed with their reason, a reviewer's selection refused as not permitted."""

from __future__ import annotations

import time

from sqlalchemy import select

from models.database import make_engine, session_factory
from models.schema import AuditRow, ConditionRow
from settings import Settings
from tests.web.helpers import Browser, Stackish

PM = "pm@cotati.example"
MANAGER = "manager@cotati.example"  # the planning manager may mark not applicable


def _audited(settings: Settings, project_id: str, action: str, count: int) -> list[AuditRow]:
    """The project's audit entries for `action`, once the read model holds `count` of them
    (the workflow writes them a moment after it answers)."""
    deadline = time.monotonic() + 30
    while True:
        with session_factory(make_engine(settings.database_url))() as db:
            rows = list(
                db.scalars(
                    select(AuditRow).where(
                        AuditRow.project_id == project_id, AuditRow.action == action
                    )
                )
            )
        if len(rows) >= count or time.monotonic() > deadline:
            return rows
        time.sleep(0.2)


def _status(settings: Settings, project_id: str, number: str) -> tuple[str, str]:
    with session_factory(make_engine(settings.database_url))() as db:
        row = db.scalars(
            select(ConditionRow).where(
                ConditionRow.project_id == project_id, ConditionRow.number == number
            )
        ).one()
        return row.status, row.department_key


def test_bulk_on_the_page(browser: Browser, stack: Stackish, web_settings: Settings) -> None:
    project_id = stack.new_project("BULK")
    client = browser.as_(MANAGER)
    page = client.get(f"/projects/{project_id}/bulk")
    assert page.status_code == 200 and 'data-testid="bulk-pick-1"' in page.text
    assert f'href="/projects/{project_id}/bulk"' in client.get(f"/projects/{project_id}").text
    client = browser.as_(MANAGER)
    answer = client.post(
        f"/projects/{project_id}/bulk",
        data={
            "csrf_token": browser.csrf(MANAGER),
            "action": "not_applicable",
            "number": ["1", "4", "99"],
            "reason": "Superseded by the amended site plan",
        },
    )
    assert answer.status_code == 200, answer.text[:400]
    assert "Mark not applicable: 2 done, 1 refused" in answer.text
    assert f"{project_id} #99:" in answer.text  # listed with the workflow's reason
    assert _status(web_settings, project_id, "1")[0] == "not_applicable"
    marked = _audited(web_settings, project_id, "not_applicable", 2)
    assert sorted(e.condition_number or "" for e in marked) == ["1", "4"]
    assert {e.reason for e in marked} == {"Superseded by the amended site plan"}
    assert {e.actor for e in marked} == {MANAGER}


def test_bulk_through_the_api(browser: Browser, stack: Stackish, web_settings: Settings) -> None:
    project_id = stack.new_project("BULKAPI")
    routed = browser.api(
        PM,
        "POST",
        "/api/v1/conditions/bulk",
        {
            "action": "route",
            "selection": [f"{project_id}:2", f"{project_id}:5"],
            "department": "engineering",
            "reason": "Engineering reviews the fee and the report",
        },
    )
    assert routed.status_code == 200, routed.text
    assert [d["ref"] for d in routed.json()["done"]] == [f"{project_id} #2", f"{project_id} #5"]
    corrected = _audited(web_settings, project_id, "corrected", 2)
    assert sorted(e.condition_number or "" for e in corrected) == ["2", "5"]
    digest = browser.api(
        PM,
        "POST",
        "/api/v1/conditions/bulk",
        {"action": "digest", "selection": [f"{project_id}:1"]},
    )
    assert digest.status_code == 200 and len(digest.json()["done"]) == 1, digest.text
    # The project manager may not mark conditions not applicable: each is refused.
    refused = browser.api(
        PM,
        "POST",
        "/api/v1/conditions/bulk",
        {"action": "not_applicable", "selection": [f"{project_id}:1"], "reason": "no"},
    )
    assert refused.status_code == 200
    assert refused.json()["done"] == []
    assert refused.json()["refused"][0]["reason"].startswith("not permitted")
    no_reason = browser.api(
        PM, "POST", "/api/v1/conditions/bulk",
        {"action": "not_applicable", "selection": [f"{project_id}:1"]},
    )  # fmt: skip
    assert no_reason.status_code == 400 and no_reason.json()["error"].startswith("reason:")


def test_assign_and_reassign_a_reviewer(
    browser: Browser, stack: Stackish, web_settings: Settings
) -> None:
    project_id = stack.new_project("ASSIGN")
    selection = [f"{project_id}:1", f"{project_id}:2"]
    # An owner must be able to review the condition: both go to engineering first.
    routed = browser.api(
        PM, "POST", "/api/v1/conditions/bulk",
        {"action": "route", "selection": selection, "department": "engineering",
         "reason": "Engineering reviews both"},
    )  # fmt: skip
    assert len(routed.json()["done"]) == 2, routed.text
    assigned = browser.api(
        PM,
        "POST",
        "/api/v1/conditions/bulk",
        {
            "action": "assign",
            "selection": selection,
            "reviewer": "publicworks@cotati.example",
            "reason": "The public works engineer takes both while engineering is short-staffed",
        },
    )
    assert assigned.status_code == 200, assigned.text
    assert len(assigned.json()["done"]) == 2
    entries = _audited(web_settings, project_id, "reassigned", 2)
    assert {e.details["to"] for e in entries} == {"publicworks@cotati.example"}
    deadline = time.monotonic() + 30
    while _reviewer(web_settings, project_id, "2") != "publicworks@cotati.example":
        assert time.monotonic() < deadline, "the read model never showed the owner"
        time.sleep(0.2)
    page = browser.as_(PM).get(f"/projects/{project_id}/bulk").text
    assert "publicworks@cotati.example" in page
    # The same reviewer again is refused per condition; a non-reviewer is bad input.
    again = browser.api(
        PM, "POST", "/api/v1/conditions/bulk",
        {"action": "assign", "selection": selection[:1],
         "reviewer": "publicworks@cotati.example", "reason": "again"},
    )  # fmt: skip
    assert again.json()["refused"][0]["reason"].endswith(
        "is already with publicworks@cotati.example"
    )
    wrong = browser.api(
        PM, "POST", "/api/v1/conditions/bulk",
        {"action": "assign", "selection": selection, "reviewer": PM, "reason": "x"},
    )  # fmt: skip
    assert wrong.status_code == 400 and "is not a department reviewer" in wrong.json()["error"]


def _reviewer(settings: Settings, project_id: str, number: str) -> str:
    with session_factory(make_engine(settings.database_url))() as db:
        return str(
            db.scalar(
                select(ConditionRow.owner_email).where(
                    ConditionRow.project_id == project_id, ConditionRow.number == number
                )
            )
        )
