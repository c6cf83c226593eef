"""What a shot-clock letter says: its template context and its subject line.

Every date, effect and rule arrives in the request's clock and details; this only
chooses the words."""

from __future__ import annotations

from typing import Any

from models.shot_clock import NoticeRequest
from notices.filters import days, letterdate
from notices.letterhead import letterhead
from notices.vocabulary import (
    OUTCOME_LABELS,
    STATUS_LABELS,
    WINDOW_LABELS,
    jurisdiction_name,
    labeller,
)
from rules.kernel.jurisdictions import Jurisdiction

NOTICE_KINDS = (
    "reminder",
    "window_closing",
    "expiry_escalation",
    "incompleteness_notice",
    "decision_confirmation",
    "judicial_review_reminder",
    "deemed_status",
    "resubmission_confirmation",
    "applicant_upload",
)


def context(req: NoticeRequest, city: Jurisdiction | None = None) -> dict[str, Any]:
    app = req.application
    clock = req.clock
    details = req.details
    return {
        "kind": req.kind,
        "notice_key": req.notice_key,
        "app": app,
        "contacts": app.contacts,
        "clock": clock,
        "details": details,
        "category": app.category or clock.get("category") or "",
        # The calendar holds the jurisdiction's key; letters use the city's name.
        "jurisdiction_name": details.get("jurisdiction_name")
        or (city.name if city is not None else jurisdiction_name(app.calendar.jurisdiction)),
        "to": req.to,
        "cc": req.cc,
        **letterhead(app.calendar.jurisdiction, app.contacts.planner_email, city),
    }


def subject(req: NoticeRequest, ctx: dict[str, Any]) -> str:
    app_id = req.application.application_id
    clock = req.clock
    details = req.details
    offset = days(details.get("offset_days"))
    event = details.get("event") or {}
    if req.kind == "reminder":
        return (
            f"Shot clock reminder: {app_id} — {offset} left to act, by "
            f"{letterdate(clock.get('conservative_date'))}"
        )
    if req.kind == "window_closing":
        window = details.get("window") or {}
        label = WINDOW_LABELS.get(window.get("kind", ""), "notice window")
        return (
            f"Notice window closing: {app_id} — {label} closes "
            f"{letterdate(window.get('closes'))} ({offset} left)"
        )
    if req.kind == "expiry_escalation":
        return (
            f"Shot clock expired: {app_id} — ran out on {letterdate(details.get('expired_on'))}; "
            "deemed-approval risk"
        )
    if req.kind == "incompleteness_notice":
        return (
            f"{ctx['jurisdiction_name']}: Notice of incomplete application "
            f"{app_id} — {req.application.site_address}"
        )
    if req.kind == "applicant_upload":
        upload = details.get("upload") or {}
        return (
            f"Applicant upload for {app_id}: {upload.get('filename')} — check it and "
            "record the resubmission"
        )
    if req.kind == "resubmission_confirmation":
        return (
            f"{ctx['jurisdiction_name']}: Resubmission received, new dates for "
            f"{app_id} — act by {letterdate(clock.get('conservative_date'))}"
        )
    if req.kind == "decision_confirmation":
        outcome = labeller(OUTCOME_LABELS)(event.get("outcome"))
        return (
            f"Decision on wireless application {app_id}: {outcome} "
            f"({letterdate(event.get('date'))})"
        )
    if req.kind == "judicial_review_reminder":
        deemed = (
            "deemed approved"
            if clock.get("status") == "deemed_approved"
            else ("may be deemed approved")
        )
        return (
            f"Judicial review deadline: {app_id} {deemed} — {offset} to "
            f"{letterdate(clock.get('judicial_review_deadline'))}"
        )
    # deemed_status
    if details.get("conservative"):
        status = labeller(STATUS_LABELS)(details.get("status"))
        return (
            f"Act now: application {app_id} may be {status} under the earliest reading; "
            f"judicial review by {letterdate(clock.get('judicial_review_deadline'))}"
        )
    status = labeller(STATUS_LABELS)(clock.get("status"))
    when = f" (applicant's notice of {letterdate(event['date'])})" if event.get("date") else ""
    return f"Application {app_id} is {status}{when}"
