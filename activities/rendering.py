"""Render notices (subject, plain text, HTML) from Jinja templates in templates/notices/.

Templates only choose how to display what the workflow computed; every date, effect
and rule arrives in the request's clock and details.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from models.shot_clock import NoticeRequest
from rules.packs import JURISDICTIONS
from settings import PROJECT_ROOT

TEMPLATE_DIR = PROJECT_ROOT / "templates"

NOTICE_KINDS = (
    "reminder",
    "window_closing",
    "expiry_escalation",
    "incompleteness_notice",
    "decision_confirmation",
    "judicial_review_reminder",
    "deemed_status",
)

CATEGORY_LABELS = {
    "swf_collocation": "small wireless facility on an existing structure",
    "macro_collocation": "collocation on an existing structure (not a small wireless facility)",
    "swf_new_structure": "small wireless facility on a new structure",
    "macro_new_structure": "new structure (not a small wireless facility)",
    "eligible_facilities_request": "eligible facilities request (Section 6409(a))",
}

STATUS_LABELS = {
    "awaiting_submission": "awaiting submission",
    "running": "running",
    "tolled": "tolled (an incompleteness notice is outstanding)",
    "reset_pending": "reset pending (waiting for the applicant's complete resubmission)",
    "decided_on_time": "decided on time",
    "decided_late": "decided after the shot clock date",
    "expired": "expired (no decision by the shot clock date)",
    "withdrawn": "withdrawn",
    "deemed_granted": "deemed granted",
    "deemed_approved": "deemed approved",
}

EVENT_LABELS = {
    "pre_application": "pre-application",
    "submitted": "application submitted",
    "incomplete_notice": "incompleteness notice",
    "resubmitted": "resubmission",
    "tolling_agreement": "tolling agreement",
    "decision": "decision",
    "withdrawn": "withdrawn",
    "deemed_granted_notice": "applicant's deemed-granted notice",
    "applicant_public_notice": "applicant's public notice",
    "deemed_approved_notice": "applicant's deemed-approved notice",
    "deemed_granted": "deemed granted",
    "deemed_approved": "deemed approved",
    "roll_forward": "roll-forward",
    "moratorium": "moratorium",
    "hearing_notice": "hearing notice",
    "appeal": "appeal",
}

OUTCOME_LABELS = {
    "approved": "approved",
    "approved_with_conditions": "approved with conditions",
    "denied": "denied",
}

WINDOW_STATE_LABELS = {"open": "open", "used": "used", "lapsed": "closed"}

WINDOW_LABELS = {
    "reset_notice": "small wireless reset window (day 10)",
    "first_notice": "first incompleteness notice window",
    "later_notice": "later incompleteness notice window",
}


class UnknownNoticeKind(ValueError):
    pass


@dataclass
class RenderedNotice:
    subject: str
    text: str
    html: str


def _label(table: dict[str, str]) -> Any:
    def label(value: Any) -> str:
        if value is None or value == "":
            return ""
        # Unknown keys still read as words rather than snake_case.
        return table.get(str(value), str(value).replace("_", " "))

    return label


def _longdate(value: Any) -> str:
    """'2026-04-20' -> 'Monday, April 20, 2026'; letters read better with the weekday."""
    if not value:
        return "not yet determined"
    try:
        d = date.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return f"{d:%A}, {d:%B} {d.day}, {d.year}"


def _letterdate(value: Any) -> str:
    """'2026-04-20' -> 'April 20, 2026', the form a formal letter is dated with."""
    if not value:
        return "not yet determined"
    try:
        d = date.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return f"{d:%B} {d.day}, {d.year}"


def _sentence(value: Any) -> str:
    """'tolls the clock' -> 'Tolls the clock.': ledger effects are phrases; letters want
    sentences."""
    text = str(value or "").strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _days(value: Any) -> str:
    if value is None or value == "":
        return ""
    n = int(value)
    return f"{n} day" if abs(n) == 1 else f"{n} days"


def _jurisdiction_name(key: str) -> str:
    city = JURISDICTIONS.get(key)
    return city.name if city is not None else key


class NoticeRenderer:
    def __init__(self, template_dir: Path | str = TEMPLATE_DIR) -> None:
        self._env = Environment(
            loader=FileSystemLoader(str(template_dir)),
            # Escape HTML templates only; the text part must show "<" as typed.
            autoescape=select_autoescape(
                enabled_extensions=("html", "html.j2"),
                disabled_extensions=("txt", "txt.j2", "j2"),
                default_for_string=False,
                default=False,
            ),
            # A legal notice with a silently blank date is worse than a failed send.
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        self._env.filters.update(
            category_label=_label(CATEGORY_LABELS),
            status_label=_label(STATUS_LABELS),
            event_label=_label(EVENT_LABELS),
            outcome_label=_label(OUTCOME_LABELS),
            window_label=_label(WINDOW_LABELS),
            window_state_label=_label(WINDOW_STATE_LABELS),
            longdate=_longdate,
            letterdate=_letterdate,
            days=_days,
            sentence=_sentence,
        )

    def render(self, req: NoticeRequest) -> RenderedNotice:
        if req.kind not in NOTICE_KINDS:
            raise UnknownNoticeKind(f"unknown notice kind {req.kind!r}")
        context = self._context(req)
        subject = " ".join(self._subject(req, context).split())
        context["subject"] = subject
        text = self._env.get_template(f"notices/{req.kind}.txt.j2").render(context)
        html = self._env.get_template(f"notices/{req.kind}.html.j2").render(context)
        return RenderedNotice(subject=subject, text=text, html=html)

    def _context(self, req: NoticeRequest) -> dict[str, Any]:
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
            or _jurisdiction_name(app.calendar.jurisdiction),
            "to": req.to,
            "cc": req.cc,
        }

    def _subject(self, req: NoticeRequest, ctx: dict[str, Any]) -> str:
        app_id = req.application.application_id
        clock = req.clock
        details = req.details
        offset = _days(details.get("offset_days"))
        event = details.get("event") or {}
        if req.kind == "reminder":
            return (
                f"Shot clock reminder: {app_id} — {offset} to "
                f"{clock.get('conservative_date')} (conservative date)"
            )
        if req.kind == "window_closing":
            window = details.get("window") or {}
            label = WINDOW_LABELS.get(window.get("kind", ""), "notice window")
            return (
                f"Notice window closing: {app_id} — {label} closes "
                f"{window.get('closes')} ({offset} left)"
            )
        if req.kind == "expiry_escalation":
            return (
                f"Shot clock expired: {app_id} — ran out on {details.get('expired_on')}; "
                "deemed-approval risk"
            )
        if req.kind == "incompleteness_notice":
            return (
                f"{ctx['jurisdiction_name']}: Notice of incomplete application "
                f"{app_id} — {req.application.site_address}"
            )
        if req.kind == "decision_confirmation":
            outcome = _label(OUTCOME_LABELS)(event.get("outcome"))
            return f"Decision on wireless application {app_id}: {outcome} ({event.get('date')})"
        if req.kind == "judicial_review_reminder":
            return (
                f"Judicial review deadline: {app_id} deemed approved — {offset} to "
                f"{clock.get('judicial_review_deadline')}"
            )
        # deemed_status
        status = _label(STATUS_LABELS)(clock.get("status"))
        when = f" (applicant's notice of {event['date']})" if event.get("date") else ""
        return f"Application {app_id} is {status}{when}"
