"""How a clock's risk and days left are said (pure)."""

from __future__ import annotations

from datetime import date

import pytest

from web.views.present import clock_risk, days_left_phrase

TODAY = date(2026, 12, 2)


@pytest.mark.parametrize(
    ("status", "conservative", "flagged", "risk"),
    [
        ("running", "2027-03-01", False, "ok"),
        ("running", "2026-12-30", False, "soon"),
        ("running", "2026-12-09", False, "urgent"),
        ("running", "2026-12-02", False, "urgent"),
        ("running", "2026-12-01", False, "expired"),
        ("running", "2027-03-01", True, "expired"),
        ("expired", "2026-11-01", False, "expired"),
        ("tolled", None, False, "tolled"),
        ("reset_pending", None, False, "tolled"),
        ("decided_on_time", "2026-11-01", False, "closed"),
        # A decided clock is never badged at risk, even when decided late.
        ("decided_late", "2026-11-01", True, "closed"),
        ("withdrawn", None, False, "closed"),
        ("deemed_approved", "2026-11-01", False, "expired"),
    ],
)
def test_clock_risk(status: str, conservative: str | None, flagged: bool, risk: str) -> None:
    assert clock_risk(status, conservative, flagged, TODAY) == risk


def test_days_left_phrase() -> None:
    assert days_left_phrase(5) == "5 days left"
    assert days_left_phrase(1) == "1 day left"
    assert days_left_phrase(0) == "today"
    assert days_left_phrase(-1) == "1 day overdue"
    assert days_left_phrase(-30) == "30 days overdue"
    assert days_left_phrase(None) == "no date"


def test_dates_read_like_a_person_wrote_them() -> None:
    from datetime import UTC, datetime

    from web.views.present import category_label, human_date, human_datetime, urgency

    assert human_date("2026-12-07") == "Mon 7 Dec 2026"
    assert human_date(date(2027, 1, 1)) == "Fri 1 Jan 2027"
    assert human_date(None) == "-"
    # An instant in the city's time, not UTC: 17:30 UTC is 9:30 AM in California.
    moment = datetime(2026, 12, 7, 17, 30, tzinfo=UTC)
    assert human_datetime(moment, "America/Los_Angeles") == "Mon 7 Dec 2026, 9:30 AM PST"
    assert human_datetime(moment.replace(tzinfo=None), "America/Los_Angeles").endswith("PST")
    assert category_label("swf_collocation") == "small wireless facility on an existing structure"
    assert "_" not in category_label("macro_new_structure")
    assert [urgency(d) for d in (-1, 0, 7, 8, 30, 31, None)] == [
        "expired",
        "urgent",
        "urgent",
        "soon",
        "soon",
        "ok",
        "ok",
    ]


def test_rule_explanations_lose_their_keys_and_iso_dates() -> None:
    from web.views.present import blocker_summary, readable, tolled_so_far

    text = (
        "the 60-day clock for a swf_collocation (collocated or attached small wireless "
        "facility), counted from the day after 2026-11-30"
    )
    assert readable(text) == (
        "the 60-day clock for a collocated or attached small wireless facility, "
        "counted from the day after Mon 30 Nov 2026"
    )
    assert "macro_collocation" not in readable("a macro_collocation is 90 days")
    assert blocker_summary("grading_permit", ["planning", "engineering", "engineering"]) == (
        "3 conditions still block Grading permit issued: 2 Public Works / Engineering, "
        "1 Planning Division"
    )
    # While a notice is outstanding the days since it count; otherwise the stored figure.
    assert tolled_so_far(4, "tolled", "2026-11-20", TODAY) == 4 + 12
    assert tolled_so_far(4, "running", "2026-11-20", TODAY) is None
