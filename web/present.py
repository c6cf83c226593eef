"""How the pages say things: risk of a clock, days left, labels. Pure functions."""

from __future__ import annotations

from datetime import date
from typing import Any

from activities.rendering import CONDITION_STATUS_LABELS, milestone_label
from rules.conditions.lifecycle import DEPARTMENTS
from rules.shot_clock import TERMINAL_STATUSES

CLOCK_STATUS_LABELS = {
    "running": "running",
    "tolled": "tolled (notice outstanding)",
    "reset_pending": "reset pending (notice outstanding)",
    "expired": "EXPIRED: deadline passed without a decision",
    "decided_on_time": "decided on time",
    "decided_late": "decided late",
    "withdrawn": "withdrawn",
    "deemed_granted": "deemed granted",
    "deemed_approved": "deemed approved",
}
EVENT_LABELS = {
    "pre_application": "pre-application meeting",
    "submitted": "application submitted",
    "incomplete_notice": "notice of incompleteness",
    "resubmitted": "applicant resubmitted",
    "tolling_agreement": "tolling agreement",
    "decision": "decision",
    "withdrawn": "withdrawn",
    "deemed_granted_notice": "applicant's deemed-granted notice",
    "applicant_public_notice": "applicant's public notice",
    "deemed_approved_notice": "applicant's deemed-approved notice",
    "moratorium": "moratorium (does not toll)",
    "hearing_notice": "hearing notice (does not toll)",
    "appeal": "appeal (does not toll)",
    "roll_forward": "rolled forward past a closed day",
}
WINDOW_LABELS = {
    "first_notice": "first notice of incompleteness",
    "later_notice": "later notice (items from the first notice only)",
    "swf_reset": "small wireless reset notice (day 10)",
}


def days_between(start: date, end_iso: str | None) -> int | None:
    if not end_iso:
        return None
    return (date.fromisoformat(end_iso) - start).days


AT_RISK_CLOSED = ("deemed_granted", "deemed_approved", "decided_late")


def clock_risk(status: str, conservative_date: str | None, risk_flagged: bool, today: date) -> str:
    """A colour class for a clock: expired, urgent (7 days), soon (30), ok, tolled, closed.

    Called with the conservative status: a decision late under the earliest reading, or
    an applicant's notice effective under it, is at risk whatever the literal one says."""
    if status in TERMINAL_STATUSES:
        return "closed" if status not in AT_RISK_CLOSED else "expired"
    if status == "expired" or risk_flagged:
        return "expired"
    if status in ("tolled", "reset_pending"):
        return "tolled"
    left = days_between(today, conservative_date)
    if left is None:
        return "ok"
    if left < 0:
        return "expired"
    if left <= 7:
        return "urgent"
    if left <= 30:
        return "soon"
    return "ok"


RISK_LABELS = {
    "expired": "expired / at risk",
    "urgent": "7 days or fewer",
    "soon": "30 days or fewer",
    "ok": "more than 30 days",
    "tolled": "tolled",
    "closed": "closed",
}


def days_left_phrase(left: int | None) -> str:
    if left is None:
        return "no date"
    if left < 0:
        return f"{-left} day{'s' if left != -1 else ''} overdue"
    if left == 0:
        return "today"
    return f"{left} day{'s' if left != 1 else ''} left"


def status_label(status: Any) -> str:
    value = str(status or "")
    return CLOCK_STATUS_LABELS.get(value) or CONDITION_STATUS_LABELS.get(
        value, value.replace("_", " ")
    )


def event_label(kind: Any) -> str:
    value = str(kind or "")
    return EVENT_LABELS.get(value, value.replace("_", " "))


def window_label(kind: Any) -> str:
    value = str(kind or "")
    return WINDOW_LABELS.get(value, value.replace("_", " "))


def department_label(key: Any) -> str:
    value = str(key or "")
    return DEPARTMENTS.get(value, value.replace("_", " "))


def describe_time_limit(limit: dict[str, Any]) -> str:
    from rules.conditions.time_limits import describe

    return describe(limit)


def time_limit_ends(limit: dict[str, Any], approved_on: str | None = None) -> str:
    """When it runs out, or what it waits for ("counts from invoice, not recorded yet")."""
    from rules.conditions.time_limits import ends_on

    anchor = approved_on if limit.get("anchor") == "approval" else None
    end = ends_on(limit, anchor)
    if end:
        return end
    return f"counts from {limit.get('anchor') or 'an event'}, not recorded yet"


def filters() -> dict[str, Any]:
    return {
        "status_label": status_label,
        "event_label": event_label,
        "window_label": window_label,
        "department_label": department_label,
        "milestone_label": milestone_label,
        "days_left": days_left_phrase,
        "risk_label": lambda r: RISK_LABELS.get(r, r),
        "time_limit": describe_time_limit,
        "time_limit_ends": time_limit_ends,
    }
