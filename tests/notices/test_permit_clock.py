"""Permit-clock letters: each kind renders text and HTML from the clock the compute
contract gave (the workflow's own request), with its subject, labels and citation."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from models.permit_clock import (
    PermitCalendar,
    PermitClockInfo,
    PermitClockInput,
    PermitContacts,
    PermitEvent,
    PermitNoticeRequest,
)
from notices.letter import UnknownNoticeKind
from notices.permit_clock import PERMIT_NOTICE_KINDS, PermitNoticeRenderer
from workflows.permit_clock_support import PermitClockState

CONTACTS = PermitContacts(
    staff_email="planner@city.test",
    supervisor_email="supervisor@city.test",
    attorney_email="attorney@city.test",
    applicant_email="owner@applicant.test",
    applicant_name="Gravenstein Holdings",
)


def requests(rule: str, event: str, facts: dict[str, int]) -> dict[str, PermitNoticeRequest]:
    """The clock's alerts as the workflow would send them, by kind (the 10-day reminder)."""
    info = PermitClockInfo(
        clock_id=f"PC-{rule}",
        rule=rule,
        calendar=PermitCalendar(jurisdiction="cotati", time_zone="UTC"),
        contacts=CONTACTS,
        facts=facts,
        title=f"{rule.replace('_', ' ')} test",
        site_address="7925 Gravenstein Hwy",
        reminder_offsets=[30, 10],
    )
    state = PermitClockState(PermitClockInput(info, [PermitEvent(event, "2026-11-02")]))
    now = datetime(2026, 11, 3, tzinfo=UTC)
    clock = state.clock(now)
    out: dict[str, PermitNoticeRequest] = {}
    for alert in state.alerts(clock, now):
        if alert.kind not in out or alert.details.get("offset") == 10:
            out[alert.kind] = state.alert_notice(alert, clock)
    return out


def test_each_kind_renders_its_subject_text_and_html() -> None:
    building = requests("building_permit_expiry", "approved", {})
    review = requests("ca_post_entitlement_review", "complete", {"units": 12})
    cases = {
        "permit_expiry_reminder": (
            building["permit_expiry_reminder"],
            "building permit expiry test: expires May 1, 2027 (10 days left) — ask for an "
            "extension now",
        ),
        "permit_deadline_alert": (
            review["permit_deadline_alert"],
            "Deadline alert: ca post entitlement review test — Gov. Code 65913.3 due "
            "December 17, 2026 (10 business days left)",
        ),
        "permit_lapse_escalation": (
            building["permit_lapse_escalation"],
            "LAPSED: building permit expiry test — CBC 105.5 as locally adopted ran out on "
            "May 1, 2027; expired",
        ),
    }
    assert set(cases) == set(PERMIT_NOTICE_KINDS)
    renderer = PermitNoticeRenderer()
    for kind, (req, subject) in cases.items():
        out = renderer.render_permit(req)
        assert out.subject == subject, kind
        for body in (out.text, out.html):
            assert req.notice_key not in body and "Notice key" not in body, kind
            assert "7925 Gravenstein Hwy" in body, kind
            assert "Status:" in body or "<th>Status</th><td>running</td>" in body, kind
        assert out.html.lstrip().startswith("<!DOCTYPE html>"), kind
        assert "{{" not in out.text + out.html and "{%" not in out.text + out.html, kind
    lapse = renderer.render_permit(building["permit_lapse_escalation"]).text
    assert "ran out on Saturday, May 1, 2027" in lapse
    assert "The Building permit expiration clock under CBC 105.5" in lapse  # its title


def test_a_consequence_without_its_own_words_reads_from_the_vocabulary() -> None:
    req = requests("ca_post_entitlement_review", "complete", {"units": 12})["permit_deadline_alert"]
    about = dict(req.details["rule_clock"])
    about.pop("consequence_text", None)
    about["consequence"] = "haa_violation"
    req.details = {**req.details, "rule_clock": about}
    out = PermitNoticeRenderer().render_permit(req)
    expected = "the city is in violation of the Housing Accountability Act"
    assert f"If the deadline passes: {expected}." in out.text
    assert expected in out.html


def test_an_unknown_kind_is_refused() -> None:
    req = requests("building_permit_expiry", "approved", {})["permit_expiry_reminder"]
    req.kind = "reminder"  # a shot-clock kind is not a permit kind
    with pytest.raises(UnknownNoticeKind, match="unknown permit notice kind"):
        PermitNoticeRenderer().render_permit(req)
