"""Render permit-clock notices (subject, text, HTML) from templates/notices/permit_*.

Templates only display what the workflow computed: every date, effect and citation
arrives in the request's clock (the compute contract's output) and details.
"""

from __future__ import annotations

from typing import Any

from models.permit_clock import PermitNoticeRequest
from notices.filters import letterdate
from notices.letter import RenderedNotice, UnknownNoticeKind
from notices.letterhead import letterhead
from notices.render import NoticeRenderer
from notices.vocabulary import jurisdiction_name, rule_title
from rules.kernel.citations import citation_title
from rules.kernel.jurisdictions import Jurisdiction

PERMIT_NOTICE_KINDS = (
    "permit_expiry_reminder",
    "permit_deadline_alert",
    "permit_lapse_escalation",
)


def context(req: PermitNoticeRequest, city: Jurisdiction | None = None) -> dict[str, Any]:
    return {
        "kind": req.kind,
        "notice_key": req.notice_key,
        "info": req.info,
        "contacts": req.info.contacts,
        "clock": req.clock,
        "about": rule_clock(req),
        "details": req.details,
        "jurisdiction_name": city.name
        if city is not None
        else jurisdiction_name(req.info.calendar.jurisdiction),
        "to": req.to,
        "cc": req.cc,
        **letterhead(req.info.calendar.jurisdiction, req.info.contacts.staff_email, city),
    }


def rule_clock(req: PermitNoticeRequest) -> dict[str, Any]:
    """The clock the letter is about: a chained rule's own clock, else the whole clock."""
    return req.details.get("rule_clock") or req.clock


def subject(req: PermitNoticeRequest, about: dict[str, Any]) -> str:
    name = req.info.title or req.info.clock_id
    rule = citation_title(about.get("citation")) or rule_title(about.get("rule", ""))
    date = letterdate(about.get("conservative_date"))
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
        f"LAPSED: {name} — {rule} ran out on {letterdate(req.details.get('lapsed_on'))}; "
        f"{consequence.replace('_', ' ')}"
    )


class PermitNoticeRenderer(NoticeRenderer):
    def render_permit(
        self, req: PermitNoticeRequest, city: Jurisdiction | None = None
    ) -> RenderedNotice:
        if req.kind not in PERMIT_NOTICE_KINDS:
            raise UnknownNoticeKind(f"unknown permit notice kind {req.kind!r}")
        ctx = context(req, city)
        return self._letter(req.kind, ctx, subject(req, ctx["about"]))
