"""permit-clocks.md §5: every worked example, as the contract's output."""

from __future__ import annotations

from typing import Any

from rules.permit_clocks import compute_permit_clock

# Calendar for examples 5-6; the others use the California judicial-holiday layer only.
CITY_CALENDAR = {
    "adopted": ["2026-11-11", "2026-11-26", "2026-11-27", "2026-12-25", "2027-01-01"],
    "closures": ["2026-12-24"],
}


def compute(rule: str, events: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return compute_permit_clock({"rule": rule, "events": events, **extra})


def chained(result: dict[str, Any], rule: str) -> dict[str, Any]:
    return next(n for n in result["next"] if n["rule"] == rule)


def test_1_psa_completeness_lapses_on_a_rolled_day_and_chains_haa() -> None:
    r = compute(
        "ca_psa_completeness",
        [{"type": "received", "date": "2026-10-30"}],
        facts={"housing": True, "units": 24},
        as_of="2026-12-01",
    )
    assert r["due_date"] == "2026-11-30"  # day 30 is Sunday 2026-11-29
    assert r["status"] == "lapsed"
    assert r["consequence"] == "deemed_complete"
    haa = chained(r, "ca_haa_consistency")
    assert haa["start_date"] == "2026-11-30"
    assert haa["due_date"] == "2026-12-30"
    assert haa["conservative_date"] == "2026-12-29"
    assert haa["status"] == "running"
    assert {a["due_date"] for a in haa["alternatives"]} >= {"2026-12-29"}


def test_2_resubmission_starts_a_new_30_days_and_complete_chains_60_day_haa() -> None:
    r = compute(
        "ca_psa_completeness",
        [
            {"type": "received", "date": "2026-03-02"},
            {
                "type": "incomplete_notice",
                "date": "2026-03-27",
                "items": [{"id": "A", "text": "title report", "rule": "checklist 7"}],
            },
            {"type": "resubmitted", "date": "2026-04-14"},
            {"type": "complete", "date": "2026-05-08"},
        ],
        facts={"housing": True, "units": 200},
    )
    assert r["due_date"] == "2026-05-14"
    assert r["status"] == "met"
    haa = chained(r, "ca_haa_consistency")
    assert haa["due_date"] == "2026-07-07"
    assert haa["ledger"][0]["days"] == 60


def test_3_psa_decision_exempt_60_days() -> None:
    r = compute("ca_psa_decision", [{"type": "ceqa", "date": "2026-06-01", "document": "exempt"}])
    assert r["due_date"] == "2026-07-31"
    assert r["consequence"] == "deemed_approved"


def test_4_65957_extension_two_readings_conservative_earliest() -> None:
    r = compute(
        "ca_psa_decision",
        [
            {"type": "ceqa", "date": "2026-06-01", "document": "exempt"},
            {"type": "extension_agreed", "date": "2026-07-15", "days": 90},
        ],
    )
    assert r["due_date"] == "2026-10-13"
    assert [a["due_date"] for a in r["alternatives"]] == ["2026-10-29"]
    assert r["conservative_date"] == "2026-10-13"
    assert r["extensions"]["used"] == 1
    assert r["extensions"]["left"] == 0


def test_5_post_entitlement_completeness_15_business_days() -> None:
    r = compute(
        "ca_post_entitlement_completeness",
        [{"type": "received", "date": "2026-11-02"}],
        calendar=CITY_CALENDAR,
    )
    assert r["due_date"] == "2026-11-24"
    assert r["unit"] == "business_days"


def test_6_post_entitlement_review_closure_worked_on_the_conservative_reading() -> None:
    r = compute(
        "ca_post_entitlement_review",
        [{"type": "complete", "date": "2026-11-20"}],
        calendar=CITY_CALENDAR,
        facts={"units": 12},
        as_of="2026-12-15",
    )
    assert r["due_date"] == "2027-01-08"
    assert r["conservative_date"] == "2027-01-07"
    assert r["consequence"] == "haa_violation"
    assert r["days_remaining"] == 15
    assert r["ledger"][0]["effect"].startswith("starts 30 business days (12 units)")


def test_7_sign_permit_expires_twelve_months_after_approval() -> None:
    r = compute("cotati_sign_permit_expiry", [{"type": "approved", "date": "2026-03-31"}])
    assert r["due_date"] == "2027-03-31"
    assert r["consequence"] == "expired"


def test_8_sign_permit_extension_then_companion_expiry() -> None:
    events = [
        {"type": "approved", "date": "2026-03-31"},
        {"type": "extension_requested", "date": "2027-02-01"},
        {"type": "extension_granted", "date": "2027-02-20"},
    ]
    assert compute("cotati_sign_permit_expiry", events)["due_date"] == "2028-03-31"
    events.append({"type": "companion_expiry", "date": "2027-03-01", "until": "2028-06-30"})
    r = compute("cotati_sign_permit_expiry", events)
    assert r["due_date"] == "2028-06-30"
    assert r["extensions"] == {**r["extensions"], "used": 1, "left": 0}


def test_9_limited_term_permit_leap_day_two_extensions_hard_stop_third_refused() -> None:
    approved = [{"type": "approved", "date": "2024-02-29"}]
    assert compute("cotati_ltp_term", approved)["due_date"] == "2025-02-28"
    two = [
        *approved,
        {"type": "extension_granted", "date": "2025-01-15"},
        {"type": "extension_granted", "date": "2026-01-15"},
    ]
    r = compute("cotati_ltp_term", two)
    assert r["due_date"] == "2027-02-28"
    assert r["hard_stop"] == "2027-02-28"
    third = compute(
        "cotati_ltp_term", [*two, {"type": "extension_requested", "date": "2027-01-15"}]
    )
    assert third["due_date"] == "2027-02-28"
    assert any("only 2 extensions are allowed" in w for w in third["warnings"])


def test_10_building_permit_expiry_does_not_roll_off_a_saturday() -> None:
    r = compute("building_permit_expiry", [{"type": "approved", "date": "2026-01-12"}])
    assert r["due_date"] == "2026-07-11"  # a Saturday


def test_11_sb330_full_application_unrolled_alternative_is_conservative() -> None:
    r = compute(
        "ca_sb330_full_application", [{"type": "preliminary_application", "date": "2021-12-07"}]
    )
    assert r["due_date"] == "2022-06-06"
    assert r["conservative_date"] == "2022-06-05"
    assert [(a["reading"], a["due_date"]) for a in r["alternatives"]] == [
        ("unrolled", "2022-06-05")
    ]


def test_12_tentative_map_pending_request_then_grant_and_hard_stop() -> None:
    events: list[dict[str, Any]] = [{"type": "approved", "date": "2026-04-14"}]
    facts = {"ordinance_months": 12}
    r = compute("ca_tentative_map_expiry", events, facts=facts)
    assert r["due_date"] == "2029-04-14"
    assert r["hard_stop"] == "2035-04-14"
    events.append({"type": "extension_requested", "date": "2029-03-05"})
    pending = compute("ca_tentative_map_expiry", events, facts=facts, as_of="2029-05-01")
    assert pending["due_date"] == "2029-06-13"
    assert pending["status"] == "running"
    events.append({"type": "extension_granted", "date": "2029-04-30", "months": 24})
    r = compute("ca_tentative_map_expiry", events, facts=facts)
    assert r["due_date"] == "2031-04-14"
    assert r["hard_stop"] == "2035-04-14"
    assert r["extensions"]["months_left"] == 48


def test_13_sign_appeal_decision_60_days() -> None:
    r = compute("cotati_sign_appeal_decision", [{"type": "appeal_filed", "date": "2026-10-02"}])
    assert r["due_date"] == "2026-12-01"
    assert r["consequence"] == "missed"
