"""Golden tests: decisions, expiry, withdrawal, deemed granted and deemed approved (§4).

Reference: /work/shared/reference/shot-clocks.md §4. Every expected date is worked
out by hand from the rules (the arithmetic is in the comments); helpers in `golden`.
"""

from __future__ import annotations

import pytest

from tests.rules.shot_clock.golden import (
    ev,
    has_warning,
    macro_apr_6,
    only_entry,
    run,
    submitted,
)

# ----------------------------------------------------------------------------- §4 outcomes


@pytest.mark.parametrize("outcome", ["approved", "approved_with_conditions", "denied"])
def test_decided_on_time_on_the_shot_clock_date(outcome: str) -> None:
    r = macro_apr_6(ev("decision", "2026-04-06", outcome=outcome))
    assert r["status"] == "decided_on_time"
    assert r["shot_clock_date"] == "2026-04-06"
    entry = only_entry(r, "decision")
    assert entry["rule"] == "47 CFR 1.6003(c)(1)(ii)"
    assert "on time" in entry["effect"]
    assert r["warnings"] == []


def test_decided_late_the_day_after() -> None:
    r = macro_apr_6(ev("decision", "2026-04-07", outcome="denied"))
    assert r["status"] == "decided_late"
    assert r["shot_clock_date"] == "2026-04-06"
    assert "late" in only_entry(r, "decision")["effect"]
    assert has_warning(r, "2026-04-07", "1 day after", "2026-04-06")


def test_expired_with_as_of() -> None:
    # as_of Apr 7: one day past Apr 6, no decision.
    r = macro_apr_6(as_of="2026-04-07")
    assert r["status"] == "expired"
    assert r["days_remaining"] == -1
    assert has_warning(r, "2026-04-06", "332(c)(7)(B)(v)")


def test_not_expired_on_the_shot_clock_date_itself() -> None:
    r = macro_apr_6(as_of="2026-04-06")
    assert r["status"] == "running"
    assert r["days_remaining"] == 0


def test_expired_efr_warns_of_deemed_grant_and_ca_of_deemed_approval() -> None:
    efr = run("eligible_facilities_request", submitted("2026-01-05"), as_of="2026-03-07")
    assert efr["status"] == "expired"
    assert has_warning(efr, "deemed granted", "1.6100(c)(4)")
    ca = macro_apr_6(state="CA", as_of="2026-04-07")
    assert ca["status"] == "expired"
    assert has_warning(ca, "deemed approved", "65964.1")


def test_withdrawn() -> None:
    r = macro_apr_6(ev("withdrawn", "2026-02-01"), as_of="2026-05-01")
    assert r["status"] == "withdrawn"
    assert r["shot_clock_date"] == "2026-04-06"
    assert only_entry(r, "withdrawn")["date"] == "2026-02-01"


def test_efr_deemed_granted_after_expiry() -> None:
    # §6 example 4 (see below) plus: the notice the day after expiry suffices.
    r = run(
        "eligible_facilities_request",
        submitted("2026-01-05"),
        ev("deemed_granted_notice", "2026-03-07"),
    )
    assert r["status"] == "deemed_granted"
    entry = only_entry(r, "deemed_granted_notice")
    assert entry["rule"] == "47 CFR 1.6100(c)(4)"


@pytest.mark.parametrize("when", ["2026-02-20", "2026-03-06"])
def test_efr_deemed_granted_notice_before_expiry_only_warns(when: str) -> None:
    # Mar 6 is the shot clock date itself: not yet expired.
    r = run(
        "eligible_facilities_request",
        submitted("2026-01-05"),
        ev("deemed_granted_notice", when),
    )
    assert r["status"] == "running"
    assert r["shot_clock_date"] == "2026-03-06"
    entry = only_entry(r, "deemed_granted_notice")
    assert entry["effect"].startswith("no effect") and entry["days"] == 0
    assert has_warning(r, when, "before the clock expired")


def test_deemed_granted_notice_for_a_non_efr_has_no_effect() -> None:
    r = macro_apr_6(ev("deemed_granted_notice", "2026-04-10"))
    assert r["status"] == "expired"
    assert has_warning(r, "eligible facilities requests")


def test_ca_deemed_approved_with_public_notice_then_city_notice() -> None:
    # Expired after Apr 6 (no CA holiday on Apr 6); public notice Apr 8; notice to the city
    # Apr 10 → deemed approved; judicial review: Apr 10 + 30 = May 10.
    r = macro_apr_6(
        ev("applicant_public_notice", "2026-04-08"),
        ev("deemed_approved_notice", "2026-04-10"),
        state="CA",
    )
    assert r["status"] == "deemed_approved"
    assert r["shot_clock_date"] == "2026-04-06"
    assert r["judicial_review_deadline"] == "2026-05-10"
    entry = only_entry(r, "deemed_approved")
    assert (entry["date"], entry["days"], entry["rule"]) == (
        "2026-04-10",
        30,
        "Cal. Gov. Code 65964.1",
    )


def test_ca_deemed_approved_when_the_public_notice_comes_last() -> None:
    # Notice to the city Apr 10, public notice Apr 12: deemed approved on Apr 12, but the
    # 30 days run from receipt of the applicant's notice: Apr 10 + 30 = May 10.
    r = macro_apr_6(
        ev("deemed_approved_notice", "2026-04-10"),
        ev("applicant_public_notice", "2026-04-12"),
        state="CA",
    )
    assert r["status"] == "deemed_approved"
    assert r["judicial_review_deadline"] == "2026-05-10"
    assert only_entry(r, "deemed_approved")["date"] == "2026-04-12"


def test_ca_deemed_approved_needs_the_public_notice() -> None:
    r = macro_apr_6(ev("deemed_approved_notice", "2026-04-10"), state="CA")
    assert r["status"] == "expired"
    assert r["judicial_review_deadline"] is None
    assert has_warning(r, "public notice")


def test_ca_deemed_approved_notice_before_expiry_has_no_effect() -> None:
    r = macro_apr_6(
        ev("applicant_public_notice", "2026-04-01"),
        ev("deemed_approved_notice", "2026-04-06"),
        state="CA",
        as_of="2026-04-08",
    )
    assert r["status"] == "expired"
    assert r["judicial_review_deadline"] is None
    assert has_warning(r, "2026-04-06", "before the clock expired")


def test_deemed_approved_notice_outside_california_has_no_effect() -> None:
    r = macro_apr_6(
        ev("applicant_public_notice", "2026-04-08"),
        ev("deemed_approved_notice", "2026-04-10"),
    )
    assert r["status"] == "expired"
    assert r["judicial_review_deadline"] is None
    entry = only_entry(r, "deemed_approved_notice")
    assert entry["days"] == 0 and entry["effect"].startswith("no effect")
    assert has_warning(r, "outside California")


def test_efr_in_california_is_not_deemed_approved() -> None:
    r = run(
        "eligible_facilities_request",
        submitted("2026-01-05"),
        ev("applicant_public_notice", "2026-03-08"),
        ev("deemed_approved_notice", "2026-03-10"),
        state="CA",
    )
    assert r["status"] == "expired"
    assert r["judicial_review_deadline"] is None


def test_events_after_a_decision_have_no_effect() -> None:
    r = macro_apr_6(
        ev("decision", "2026-03-01", outcome="approved"),
        ev("tolling_agreement", "2026-03-05", days=30),
    )
    assert r["status"] == "decided_on_time"
    assert r["shot_clock_date"] == "2026-04-06"
    assert has_warning(r, "closed")
