"""Render permit-clock notices (subject, text, HTML) from templates/notices/permit_*.

Templates only display what the workflow computed: every date, effect and citation
arrives in the request's clock (the compute contract's output) and details.
"""

from __future__ import annotations

from typing import Any

from activities.rendering import (
    NoticeRenderer,
    RenderedNotice,
    UnknownNoticeKind,
    _jurisdiction_name,
    _label,
)
from models.permit_clock import PermitNoticeRequest

PERMIT_NOTICE_KINDS = (
    "permit_expiry_reminder",
    "permit_deadline_alert",
    "permit_lapse_escalation",
)

# What each consequence means for the person reading the letter.
CONSEQUENCE_LABELS = {
    "deemed_complete": "the application is deemed complete by operation of law",
    "deemed_consistent": "the project is deemed consistent with the applicable plans "
    "and zoning (Housing Accountability Act)",
    "deemed_approved": "the project may be deemed approved by operation of law",
    "writ_available": "the applicant may seek a writ of mandate compelling a decision",
    "haa_violation": "the city is in violation of the Housing Accountability Act",
    "vesting_lost": "the preliminary application's vested rights are lost",
    "expired": "the permit or approval expires and is void",
    "missed": "the decision deadline is missed (the code states no remedy; judicial "
    "review may follow)",
    "violation": "the condition is not met in time: a violation of the conditions of approval",
}

STATUS_LABELS = {
    "awaiting_start": "awaiting its start event",
    "running": "running",
    "paused": "paused",
    "met": "met on time",
    "met_late": "met after the deadline",
    "lapsed": "lapsed",
    "withdrawn": "withdrawn",
}

# The event that asks for more time, by rule family (the clock's rule id).
EXTENSION_EVENTS = ("extension_requested", "extension_agreed", "extension_granted")


def rule_title(rule: str) -> str:
    return rule.replace("_", " ")


class PermitNoticeRenderer(NoticeRenderer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._env.filters.update(
            consequence_label=_label(CONSEQUENCE_LABELS),
            permit_status_label=_label(STATUS_LABELS),
            rule_title=rule_title,
        )

    def render_permit(self, req: PermitNoticeRequest) -> RenderedNotice:
        if req.kind not in PERMIT_NOTICE_KINDS:
            raise UnknownNoticeKind(f"unknown permit notice kind {req.kind!r}")
        about = req.details.get("rule_clock") or req.clock
        context = {
            "kind": req.kind,
            "notice_key": req.notice_key,
            "info": req.info,
            "contacts": req.info.contacts,
            "clock": req.clock,
            "about": about,
            "details": req.details,
            "jurisdiction_name": _jurisdiction_name(req.info.calendar.jurisdiction),
            "to": req.to,
            "cc": req.cc,
        }
        subject = " ".join(self._permit_subject(req, about).split())
        context["subject"] = subject
        text = self._template(f"notices/{req.kind}.txt.j2").render(context)
        html = self._template(f"notices/{req.kind}.html.j2").render(context)
        return RenderedNotice(subject=subject, text=text, html=html)

    def _permit_subject(self, req: PermitNoticeRequest, about: dict[str, Any]) -> str:
        name = req.info.title or req.info.clock_id
        rule = about.get("citation") or rule_title(about.get("rule", ""))
        date = about.get("conservative_date")
        offset = req.details.get("offset")
        unit = req.details.get("unit", "days")
        if req.kind == "permit_expiry_reminder":
            if about.get("family", "expiry") != "expiry":
                return f"{name}: due {date} ({offset} {unit} left)"
            return f"{name}: expires {date} ({offset} {unit} left) — ask for an extension now"
        if req.kind == "permit_deadline_alert":
            return f"Deadline alert: {name} — {rule} due {date} ({offset} {unit} left)"
        consequence = about.get("consequence") or ""
        return (
            f"LAPSED: {name} — {rule} ran out on {req.details.get('lapsed_on')}; "
            f"{consequence.replace('_', ' ')}"
        )
