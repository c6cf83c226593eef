"""Demo applications for the embedded stack, dated relative to today so each shows
something: one near its deadline, one tolled, one expired, an EFR and an SWF batch."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from models.shot_clock import (
    ApplicationInfo,
    ClockEvent,
    Contacts,
    IncompleteNoticeInput,
    NoticeItem,
    ShotClockInput,
)
from models.workflow_ids import shot_clock_workflow_id
from rules.kernel.jurisdictions import jurisdiction
from workflows.shot_clock import ShotClockWorkflow
from workflows.shot_clock_support import frozen_calendar

# The demo's city: its jurisdiction file (rules/data/jurisdictions/) has its calendar,
# pack and contacts.
DEMO_JURISDICTION = "cotati"


@dataclass
class DemoClock:
    application_id: str
    category: str | None
    submitted_days_ago: int
    site: str
    description: str
    batch: list[str] = field(default_factory=list)
    notice: tuple[int, list[NoticeItem]] | None = None  # (days ago, items)


DEMO_CLOCKS = [
    DemoClock(
        "DEMO-NEAR",
        "swf_collocation",
        55,
        "8000 Old Redwood Hwy (streetlight pole)",
        "Small cell on an existing streetlight: five days left",
    ),
    DemoClock(
        "DEMO-TOLLED",
        "macro_new_structure",
        20,
        "7925 Gravenstein Hwy",
        "65 ft monopine; incompleteness notice outstanding",
        notice=(
            12,
            [
                NoticeItem("A", "RF emissions compliance report", "CMC 17.44.070(A)"),
                NoticeItem(
                    "B", "Photo simulations from three public vantage points", "CMC 17.44.070(C)"
                ),
            ],
        ),
    ),
    DemoClock(
        "DEMO-EXPIRED",
        "macro_collocation",
        120,
        "550 E Cotati Ave (water tower)",
        "Collocation on the water tower; no decision in time",
    ),
    DemoClock(
        "DEMO-EFR",
        "eligible_facilities_request",
        3,
        "201 W Sierra Ave",
        "Section 6409(a) antenna swap",
    ),
    DemoClock(
        "DEMO-BATCH",
        None,
        9,
        "Four poles along La Plaza",
        "SWF batch: the day-10 reset window closes tomorrow",
        batch=["swf_collocation", "swf_collocation", "swf_new_structure", "swf_collocation"],
    ),
]


def demo_application(demo: DemoClock) -> ApplicationInfo:
    city = jurisdiction(DEMO_JURISDICTION)
    return ApplicationInfo(
        application_id=demo.application_id,
        category=demo.category,
        batch=demo.batch,
        site_address=demo.site,
        description=demo.description,
        # Frozen at open (shot-clocks.md 8.9), as `clock open` does.
        calendar=frozen_calendar(city),
        contacts=Contacts(
            planner_email="planner@cotati.example",
            supervisor_email=city.supervisor_email,
            attorney_email=city.attorney_email,
            applicant_email="site.acquisition@carrier.example",
            applicant_name="Carrier Site Acquisition",
        ),
    )


async def _exists(client: Client, application_id: str) -> bool:
    try:
        await client.get_workflow_handle(shot_clock_workflow_id(application_id)).describe()
        return True
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            return False
        raise


async def load_demo(client: Client, task_queue: str, today: date) -> list[str]:
    """Open each demo clock that does not exist yet; returns the ids it opened."""
    opened: list[str] = []
    for demo in DEMO_CLOCKS:
        if await _exists(client, demo.application_id):
            continue
        submitted = today - timedelta(days=demo.submitted_days_ago)
        handle: Any = await client.start_workflow(
            ShotClockWorkflow.run,
            ShotClockInput(
                application=demo_application(demo),
                events=[ClockEvent("submitted", submitted.isoformat())],
            ),
            id=shot_clock_workflow_id(demo.application_id),
            task_queue=task_queue,
        )
        if demo.notice is not None:
            days_ago, items = demo.notice
            await handle.execute_update(
                ShotClockWorkflow.record_incomplete_notice,
                IncompleteNoticeInput(
                    date=(today - timedelta(days=days_ago)).isoformat(),
                    items=items,
                    recorded_by="demo loader",
                ),
            )
        opened.append(demo.application_id)
    return opened


COTATI_VILLAGE_ID = "COTATI-VILLAGE"
COTATI_VILLAGE_RESOLUTION = (
    Path(__file__).resolve().parent / "data" / "cotati-village-resolution.txt"
)


async def load_project_demo(client: Client, task_queue: str, today: date) -> list[str]:
    """Import Cotati Village (133 conditions) with a grading permit a few weeks out, and
    send the applicant the digest of what is owed before it."""
    from models.conditions import Actor, DigestRequestInput, PlannedDatesInput
    from models.workflow_ids import project_workflow_id
    from rules.conditions.onboarding import new_project
    from rules.conditions.parser import parse_resolution
    from workflows.project import ProjectWorkflow

    workflow_id = project_workflow_id(COTATI_VILLAGE_ID)
    try:
        await client.get_workflow_handle(workflow_id).describe()
        return []
    except RPCError as err:
        if err.status != RPCStatusCode.NOT_FOUND:
            raise
    parsed = parse_resolution(COTATI_VILLAGE_RESOLUTION.read_text(encoding="utf-8"))
    start = new_project(
        parsed,
        project_id=COTATI_VILLAGE_ID,
        name="Cotati Village (PA# 21-29)",
        city=jurisdiction(DEMO_JURISDICTION),
        applicant_name="Cotati Village Partners",
        applicant_email="applicant@cotati-village.example",
        project_manager_email="pm@cotati.example",
    )
    handle: Any = await client.start_workflow(
        ProjectWorkflow.run, start, id=workflow_id, task_queue=task_queue
    )
    pm = Actor("pm@cotati.example", "project_manager")
    await handle.execute_update(
        ProjectWorkflow.set_planned_dates,
        PlannedDatesInput(
            pm,
            groundbreaking=(today + timedelta(days=45)).isoformat(),
            grading_start=(today + timedelta(days=45)).isoformat(),
            grading_end=(today + timedelta(days=160)).isoformat(),
            construction_end=(today + timedelta(days=600)).isoformat(),
            milestone_targets={
                "improvement_plan_approval": (today + timedelta(days=21)).isoformat(),
                "grading_permit": (today + timedelta(days=40)).isoformat(),
                "building_permit": (today + timedelta(days=120)).isoformat(),
            },
        ),
    )
    await handle.execute_update(
        ProjectWorkflow.send_digest, DigestRequestInput(pm, milestone="grading_permit")
    )
    return [COTATI_VILLAGE_ID]


TAPROOM_ID = "UP-26-04"
TAPROOM_RESOLUTION = Path(__file__).resolve().parent / "data" / "demo-use-permit-resolution.txt"
# The demo dates the taproom's approval this many days before today, so its 24-month
# expiry is running whenever the demo is loaded.
TAPROOM_APPROVED_DAYS_AGO = 90


async def load_second_project_demo(client: Client, task_queue: str, today: date) -> list[str]:
    """A second project from a resolution in another layout (department-prefixed numbers
    "PL-2", "ENG-1", topic and milestone sections): its expiry becomes a running clock of
    the project on the permit-clock engine; the invoice's 30 days wait for an invoice."""
    from actions.condition_clocks import plan_condition_clocks
    from actions.permit_clock_requests import OpenPermitClock
    from actions.permit_clocks import plan_open
    from models.workflow_ids import permit_clock_workflow_id, project_workflow_id
    from rules.access import Principal
    from rules.conditions.onboarding import new_project
    from rules.conditions.parser import parse_resolution
    from workflows.permit_clock import PermitClockWorkflow
    from workflows.project import ProjectWorkflow

    workflow_id = project_workflow_id(TAPROOM_ID)
    try:
        await client.get_workflow_handle(workflow_id).describe()
        return []
    except RPCError as err:
        if err.status != RPCStatusCode.NOT_FOUND:
            raise
    city = jurisdiction(DEMO_JURISDICTION)
    approved_on = (today - timedelta(days=TAPROOM_APPROVED_DAYS_AGO)).isoformat()
    parsed = parse_resolution(TAPROOM_RESOLUTION.read_text(encoding="utf-8"))
    pm, applicant = "pm@cotati.example", "owner@redwood-hop-works.example"
    start = new_project(
        parsed,
        project_id=TAPROOM_ID,
        name="Redwood Hop Works taproom (UP 26-04)",
        city=city,
        applicant_name="Redwood Hop Works LLC",
        applicant_email=applicant,
        project_manager_email=pm,
        approved_on=approved_on,
    )
    await client.start_workflow(ProjectWorkflow.run, start, id=workflow_id, task_queue=task_queue)
    opened = [TAPROOM_ID]
    plans, _waiting = plan_condition_clocks(
        TAPROOM_ID, [c.spec for c in start.conditions], {"approval": approved_on}
    )
    loader = Principal("demo-loader@clearance.local", "admin")
    for plan in plans:
        clock = plan_open(
            loader,
            OpenPermitClock(
                clock_id=plan.clock_id,
                rule=plan.rule,
                jurisdiction=city.key,
                events=[{"type": "approved", "date": plan.start_date}],
                facts=plan.facts,
                title=f"Condition {plan.condition_number}: {plan.text}"[:300],
                applicant_name="Redwood Hop Works LLC",
                applicant_email=applicant,
                staff_email=pm,
                project_id=TAPROOM_ID,
                condition_number=plan.condition_number,
                project_manager_email=pm,
            ),
            city,
            today,
        )
        await client.start_workflow(
            PermitClockWorkflow.run,
            clock,
            id=permit_clock_workflow_id(plan.clock_id),
            task_queue=task_queue,
        )
        opened.append(plan.clock_id)
    return opened


# -- demo users for the web app: one per role, all with the same password ---------------------

DEMO_PASSWORD = "clearance-demo"
DEMO_USERS: list[tuple[str, str, str]] = [
    ("pm@cotati.example", "project_manager", ""),
    ("engineer@cotati.example", "engineering", ""),
    ("planning@cotati.example", "department_reviewer", "planning"),
    ("publicworks@cotati.example", "department_reviewer", "engineering"),
    ("manager@cotati.example", "planning_manager", ""),
    ("attorney@cotati.example", "city_attorney", ""),
    ("admin@cotati.example", "admin", ""),
    # The people the City of Cotati's data names (rules/data/jurisdictions/cotati.json):
    # the planner on the demo clocks, the escalation contacts and the building official
    # who acts on building permit clocks. Everyone a deadline reaches can log in.
    ("planner@cotati.example", "project_manager", ""),
    ("planning.manager@cotati.example", "planning_manager", ""),
    ("city.attorney@cotati.example", "city_attorney", ""),
    ("building.official@cotati.example", "engineering", ""),
]


def _department_people() -> list[tuple[str, str, str]]:
    """Each department's reviewer and head the city's data names, as a reviewer of that
    department (unless already a demo user): every condition's reviewer can log in."""
    city = jurisdiction(DEMO_JURISDICTION)
    known = {email for email, _, _ in DEMO_USERS}
    out: list[tuple[str, str, str]] = []
    for key, (reviewer, head) in sorted(city.departments.items()):
        for email in (reviewer, head):
            if email and email not in known:
                known.add(email)
                out.append((email, "department_reviewer", key))
    return out


DEMO_USERS += _department_people()


def load_demo_users(database_url: str) -> list[str]:
    """Add each demo user that does not exist yet; returns the e-mails added."""
    from models.database import make_engine
    from web.auth.accounts import Accounts

    accounts = Accounts(make_engine(database_url))
    added = []
    for email, role, department in DEMO_USERS:
        if accounts.get_user(email) is None:
            accounts.add_user(email, role, DEMO_PASSWORD, department)
            added.append(email)
    return added
