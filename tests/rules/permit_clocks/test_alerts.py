"""reminder_plan: reminders before the conservative date (business days for
business-day clocks) and the lapse escalation the day after it, for chained clocks too."""

from __future__ import annotations

from datetime import date

import pytest

from rules.permit_clocks import reminder_plan
from tests.rules.permit_clocks.test_golden import CITY_CALENDAR


def test_business_day_clock_reminds_in_business_days_before_the_conservative_date() -> None:
    plan = reminder_plan(
        {
            "rule": "ca_post_entitlement_review",
            "calendar": CITY_CALENDAR,
            "facts": {"units": 12},
            "events": [{"type": "complete", "date": "2026-11-20"}],
        },
        offsets=(7, 3, 1),
    )
    assert [(r.kind, r.offset, r.date) for r in plan] == [
        ("reminder", 7, date(2026, 12, 28)),  # Dec 24 counts: the conservative reading works it
        ("reminder", 3, date(2027, 1, 4)),
        ("reminder", 1, date(2027, 1, 6)),
        ("lapse", 0, date(2027, 1, 8)),
    ]
    assert {r.due_date for r in plan} == {date(2027, 1, 7)}
    assert {r.unit for r in plan} == {"business_days"}
    assert plan[-1].consequence == "haa_violation"


def test_expiry_clock_reminds_in_calendar_days() -> None:
    plan = reminder_plan(
        {
            "rule": "cotati_sign_permit_expiry",
            "events": [{"type": "approved", "date": "2026-03-31"}],
        }
    )
    assert [r.date for r in plan] == [
        date(2027, 3, 1),
        date(2027, 3, 17),
        date(2027, 3, 24),
        date(2027, 3, 28),
        date(2027, 3, 30),
        date(2027, 4, 1),
    ]


def test_a_lapsed_parent_has_no_alerts_but_its_chained_clock_does() -> None:
    plan = reminder_plan(
        {
            "rule": "ca_psa_completeness",
            "facts": {"housing": True, "units": 24},
            "events": [{"type": "received", "date": "2026-10-30"}],
            "as_of": "2026-12-01",
        },
        offsets=(1,),
    )
    assert [(r.path, r.kind, r.date) for r in plan] == [
        ("ca_psa_completeness>ca_haa_consistency", "reminder", date(2026, 12, 28)),
        ("ca_psa_completeness>ca_haa_consistency", "lapse", date(2026, 12, 30)),
    ]


def test_a_paused_clock_has_no_alerts() -> None:
    plan = reminder_plan(
        {
            "rule": "ca_post_entitlement_review",
            "facts": {"units": 12},
            "events": [
                {"type": "complete", "date": "2026-11-20"},
                {"type": "paused", "date": "2026-11-25", "reason": "outside_agency_review"},
            ],
        }
    )
    assert plan == []


@pytest.mark.parametrize("offsets", [(0,), (-1,), (True,)])
def test_offsets_must_be_positive(offsets: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="offsets"):
        reminder_plan({"rule": "cotati_ltp_term"}, offsets=offsets)
