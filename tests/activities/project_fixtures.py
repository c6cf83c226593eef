"""Realistic project notice requests for the activity tests: the details have the shape
rules/conditions/alerts.py plans (condition summaries with evidence and comments)."""

from __future__ import annotations

from typing import Any

from models.conditions import DepartmentContact, ProjectInfo, ProjectNoticeRequest

PM = "pm@cotati.example"
APPLICANT = "permits@cotativillage.example"
PLANNING_REVIEWER = "planner@cotati.example"
PLANNING_HEAD = "planning.manager@cotati.example"
ENGINEERING_REVIEWER = "engineer@cotati.example"
ENGINEERING_HEAD = "city.engineer@cotati.example"
ENVIRONMENTAL_REVIEWER = "environmental@cotati.example"

SCRIPT = "<script>alert('x')</script>"

PROJECT_NOTICE_KINDS = (
    "review_reminder",
    "review_escalation",
    "applicant_digest",
    "window_reminder",
    "construction_checkin",
    "signoff_confirmation",
    "condition_returned",
)


def make_project(project_id: str = "PA-21-29") -> ProjectInfo:
    return ProjectInfo(
        project_id=project_id,
        name="Cotati Village",
        jurisdiction="cotati",
        resolution_title="RESOLUTION OF THE CITY COUNCIL OF THE CITY OF COTATI APPROVING "
        "THE COTATI VILLAGE PROJECT",
        applicant_name="Cotati Village LLC",
        applicant_email=APPLICANT,
        project_manager_email=PM,
        departments=[
            DepartmentContact("planning", "Planning Division", PLANNING_REVIEWER, PLANNING_HEAD),
            DepartmentContact(
                "engineering", "Public Works / Engineering", ENGINEERING_REVIEWER, ENGINEERING_HEAD
            ),
            DepartmentContact(
                "environmental", "Mitigation monitoring", ENVIRONMENTAL_REVIEWER, PLANNING_HEAD
            ),
        ],
        milestones=[
            "improvement_plan_approval",
            "grading_permit",
            "building_permit",
            "during_construction",
            "occupancy",
        ],
    )


def summary(
    number: str,
    text: str,
    *,
    code: str | None = None,
    department: str = "planning",
    status: str = "open",
    gates: list[str] | None = None,
    submitted_at: str | None = None,
    evidence: list[dict[str, Any]] | None = None,
    comments: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One condition as rules/conditions/alerts.condition_summary hands it over."""
    return {
        "number": number,
        "code": code,
        "text": text,
        "department": department,
        "status": status,
        "gates": list(gates or ["building_permit"]),
        "submitted_at": submitted_at,
        "evidence": list(evidence or []),
        "comments": list(comments or []),
    }


INCLUSIONARY = summary(
    "3",
    "Prior to issuance of a building permit, Applicant shall record an inclusionary "
    f"housing agreement {SCRIPT} with the City.",
    status="submitted",
    submitted_at="2027-01-04T17:30:00+00:00",
    evidence=[
        {
            "description": "Recorded inclusionary housing agreement",
            "filename": "agreement.pdf",
            "submitted_at": "2027-01-04T17:30:00+00:00",
        }
    ],
)
TITLE_REPORT = summary(
    "7",
    "A preliminary title report prepared within the last 3 months shall be submitted.",
    department="engineering",
    status="returned",
    gates=["improvement_plan_approval"],
    comments=[
        {
            "author": ENGINEERING_REVIEWER,
            "at": "2027-01-10T16:00:00+00:00",
            "text": "Report is dated 2026-08-01: older than 3 months. Please resubmit.",
        }
    ],
)
GRADING_PLAN = summary(
    "60",
    "A grading and drainage plan shall be approved prior to issuance of a grading permit.",
    department="engineering",
    gates=["grading_permit"],
)
ART = summary("12", "Public art shall be installed per the City's program.")
DUST = summary(
    "105",
    "AQ-1: Dust control measures shall be implemented during construction.",
    code="AQ-1",
    department="environmental",
    gates=["during_construction"],
)
HOURS = summary(
    "117",
    "NOI-2: Construction hours are limited to 7:30 a.m. to 5:30 p.m. weekdays.",
    code="NOI-2",
    department="environmental",
    gates=["during_construction"],
)


def recipients(kind: str) -> tuple[list[str], list[str]]:
    """Who each kind goes to (the workflow decides this; the tests mirror the brief)."""
    return {
        "review_reminder": ([PLANNING_REVIEWER], [PM]),
        "review_escalation": ([PLANNING_HEAD], [PLANNING_REVIEWER, PM]),
        "applicant_digest": ([APPLICANT], [PM]),
        "window_reminder": ([APPLICANT], [PM]),
        "construction_checkin": ([PM], [ENVIRONMENTAL_REVIEWER]),
        "signoff_confirmation": ([PM, ENGINEERING_REVIEWER], [APPLICANT]),
        "condition_returned": ([APPLICANT], [PM]),
    }[kind]


def make_project_request(kind: str, project_id: str = "PA-21-29") -> ProjectNoticeRequest:
    details: dict[str, Any]
    if kind in ("review_reminder", "review_escalation"):
        details = {
            "conditions": [INCLUSIONARY],
            "due": "2027-01-19",
            "sla_business_days": 10,
            "department": "planning",
        }
        key = "review-reminder:3:2027-01-04T17:30:00+00:00"
        if kind == "review_escalation":
            details["overdue_business_days"] = 5
            key = "review-escalation:3:2027-01-04T17:30:00+00:00"
    elif kind == "applicant_digest":
        details = {
            "milestone": "grading_permit",
            "target_date": "2027-03-01",
            "owed": [TITLE_REPORT, GRADING_PLAN, ART, INCLUSIONARY | {"status": "open"}],
            "reason": "target",
        }
        key = "digest:target:grading_permit:2027-03-01:14d"
    elif kind == "window_reminder":
        details = {
            "number": "109",
            "code": "BIO-3",
            "rule_key": "nesting_birds",
            "due": "2027-02-24",
            "window_start": "2027-02-17",
            "description": "Pre-construction nesting bird survey within 7 days before "
            f"groundbreaking {SCRIPT}",
            "citation": "Condition 109 (BIO-3)",
        }
        key = "window:109:nesting_birds:2027-02-24:2027-02-17"
    elif kind == "construction_checkin":
        details = {
            "conditions": [DUST, HOURS],
            "period_start": "2027-03-01",
            "period_end": "2027-03-30",
        }
        key = "checkin:2027-03-01"
    elif kind == "signoff_confirmation":
        details = {
            "milestone": "grading_permit",
            "signed_by": ENGINEERING_HEAD,
            "at": "2027-03-02T18:00:00+00:00",
            "conditions_cleared": 12,
        }
        key = "signoff:grading_permit"
    elif kind == "condition_returned":
        details = {"conditions": [TITLE_REPORT]}
        key = "returned:7:000012"
    else:
        raise ValueError(kind)
    to, cc = recipients(kind)
    return ProjectNoticeRequest(
        notice_key=f"project/{project_id}/{key}",
        kind=kind,
        project=make_project(project_id),
        to=to,
        cc=cc,
        details=details,
    )
