"""Realistic notice requests for the activity tests: the clock dicts come from the real
compute engine, so the templates see exactly what the workflow will hand them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from models.shot_clock import (
    ApplicationInfo,
    CalendarSnapshot,
    Contacts,
    NoticeRequest,
)
from rules.kernel.jurisdictions import FEDERAL_PACK
from rules.shot_clock.engine import compute_json
from rules.shot_clock.outcomes import expiry_remedy
from rules.shot_clock.packs import rule_pack

PLANNER = "planner@cotati.example"
SUPERVISOR = "planning.manager@cotati.example"
ATTORNEY = "city.attorney@cotati.example"
APPLICANT = "permits@towerco.example"

SCRIPT = "<script>alert('x')</script>"

NOTICE_KINDS = (
    "reminder",
    "window_closing",
    "expiry_escalation",
    "incompleteness_notice",
    "decision_confirmation",
    "judicial_review_reminder",
    "deemed_status",
)

RF_ITEM = {"id": "A", "text": "RF emissions report", "rule": "CMC 17.44.070(A)"}
SCRIPT_ITEM = {"id": "B", "text": f"Site plan {SCRIPT}", "rule": "CMC 17.44.070(B)"}


def make_application(
    application_id: str = "APP-1",
    category: str | None = "macro_collocation",
    batch: list[str] | None = None,
    site_address: str = "201 W Sierra Ave, Cotati, CA",
) -> ApplicationInfo:
    return ApplicationInfo(
        application_id=application_id,
        category=category,
        batch=list(batch or []),
        site_address=site_address,
        calendar=CalendarSnapshot(
            jurisdiction="City of Cotati",
            state="CA",
            time_zone="America/Los_Angeles",
            rule_pack=FEDERAL_PACK,
            local_holidays=[],
        ),
        contacts=Contacts(
            planner_email=PLANNER,
            supervisor_email=SUPERVISOR,
            attorney_email=ATTORNEY,
            applicant_email=APPLICANT,
            applicant_name="TowerCo Wireless LLC",
        ),
        description="Replace antennas on the existing monopole",
    )


def make_clock(
    category: str | None,
    events: list[dict[str, Any]],
    as_of: str | None = None,
    batch: list[str] | None = None,
) -> dict[str, Any]:
    """The compute contract's output (§5) for a timeline, in California."""
    raw: dict[str, Any] = {"state": "CA", "events": events}
    if batch:
        raw["batch"] = batch
    else:
        raw["category"] = category
    if as_of:
        raw["as_of"] = as_of
    return compute_json(raw)


def recipients(kind: str) -> tuple[list[str], list[str]]:
    """Who each kind goes to (the workflow decides this; the tests mirror it)."""
    return {
        "reminder": ([PLANNER], []),
        "window_closing": ([PLANNER], []),
        "expiry_escalation": ([SUPERVISOR, ATTORNEY], [PLANNER]),
        "incompleteness_notice": ([APPLICANT], [PLANNER]),
        "decision_confirmation": ([APPLICANT], [PLANNER]),
        "judicial_review_reminder": ([ATTORNEY, SUPERVISOR], []),
        "deemed_status": ([ATTORNEY, SUPERVISOR, PLANNER], []),
    }[kind]


def make_request(kind: str, application_id: str = "APP-1") -> NoticeRequest:
    """One realistic request per notice kind."""
    category = "macro_collocation"
    details: dict[str, Any]
    if kind == "reminder":
        clock = make_clock(
            category,
            [
                {"type": "submitted", "date": "2026-01-05"},
                {"type": "incomplete_notice", "date": "2026-01-15", "items": [RF_ITEM]},
                {"type": "resubmitted", "date": "2026-01-29"},
            ],
            as_of="2026-04-13",
        )
        details = {"offset_days": 7, "date": clock["conservative_date"]}
        key_part = f"reminder:{clock['conservative_date']}:7d"
    elif kind == "window_closing":
        category = "swf_collocation"
        clock = make_clock(
            category, [{"type": "submitted", "date": "2026-03-02"}], as_of="2026-03-09"
        )
        window = next(w for w in clock["notice_windows"] if w["kind"] == "reset_notice")
        details = {"window": window, "offset_days": 3}
        key_part = f"window:{window['kind']}:{window['closes']}:3d"
    elif kind == "expiry_escalation":
        clock = make_clock(
            category, [{"type": "submitted", "date": "2026-01-05"}], as_of="2026-04-21"
        )
        remedy = expiry_remedy(rule_pack(FEDERAL_PACK).categories[category], "CA")
        details = {"expired_on": clock["conservative_date"], "remedy": remedy}
        key_part = f"expiry:{clock['conservative_date']}"
    elif kind == "incompleteness_notice":
        category = "swf_collocation"
        event = {
            "type": "incomplete_notice",
            "date": "2026-03-10",
            "items": [RF_ITEM, SCRIPT_ITEM],
        }
        clock = make_clock(category, [{"type": "submitted", "date": "2026-03-02"}, event])
        effect = next(e for e in clock["ledger"] if e["event"] == "incomplete_notice")
        details = {"event": event, "effect": effect}
        key_part = "letter:incomplete_notice:ev-2"
    elif kind == "decision_confirmation":
        event = {"type": "decision", "date": "2026-03-20", "outcome": "approved_with_conditions"}
        clock = make_clock(category, [{"type": "submitted", "date": "2026-01-05"}, event])
        details = {"event": event}
        key_part = "decision:ev-2"
    elif kind in ("judicial_review_reminder", "deemed_status"):
        event = {"type": "deemed_approved_notice", "date": "2026-04-25"}
        clock = make_clock(
            category,
            [
                {"type": "submitted", "date": "2026-01-05"},
                {"type": "applicant_public_notice", "date": "2026-04-22"},
                event,
            ],
            as_of="2026-04-26",
        )
        if kind == "deemed_status":
            details = {"event": event}
            key_part = f"deemed:{clock['status']}"
        else:
            details = {"offset_days": 14, "deadline": clock["judicial_review_deadline"]}
            key_part = f"judicial-review:{clock['judicial_review_deadline']}:14d"
    else:
        raise ValueError(kind)
    to, cc = recipients(kind)
    return NoticeRequest(
        notice_key=f"{application_id}/{key_part}",
        kind=kind,
        application=make_application(application_id, category),
        to=to,
        cc=cc,
        clock=clock,
        details=details,
    )


def sqlite_url(folder: Path) -> str:
    """A database file in a folder that does not exist yet (make_engine creates it)."""
    return f"sqlite:///{folder / 'db' / 'clearance.db'}"
