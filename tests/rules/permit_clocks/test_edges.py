"""Each rule's edges: month ends and leap days, pauses over holidays, a second
extension, a request pending at expiry, inspections that do and do not count,
versions of 65956, chained clocks, and the statuses a planner sees."""

from __future__ import annotations

from typing import Any

from rules.permit_clocks import compute_permit_clock
from tests.rules.permit_clocks.test_golden import CITY_CALENDAR


def compute(rule: str, events: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return compute_permit_clock({"rule": rule, "events": events, **extra})


def ev(kind: str, when: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "date": when, **fields}


# ------------------------------------------------------------------ months and leap days


def test_month_end_clamps_into_a_leap_february() -> None:
    r = compute(
        "ca_tentative_map_expiry", [ev("approved", "2026-01-31")], facts={"ordinance_months": 1}
    )
    assert r["due_date"] == "2028-02-29"  # 25 months after January 31


def test_leap_day_counts_as_a_day_under_ccp12() -> None:
    leap = compute("ca_psa_completeness", [ev("received", "2028-02-01")])
    plain = compute("ca_psa_completeness", [ev("received", "2027-02-01")])
    assert leap["due_date"] == "2028-03-02"
    assert plain["due_date"] == "2027-03-03"


def test_limited_term_permit_extension_counts_from_the_clamped_expiry() -> None:
    r = compute(
        "cotati_ltp_term", [ev("approved", "2024-01-31"), ev("extension_granted", "2025-01-10")]
    )
    assert r["due_date"] == "2026-01-31"
    assert r["hard_stop"] == "2027-01-31"


# ------------------------------------------------------------------------------ pauses


def test_a_pause_spanning_holidays_stops_the_business_day_count() -> None:
    events = [
        ev("complete", "2026-11-20"),
        ev("paused", "2026-11-25", reason="outside_agency_review"),
        ev("resumed", "2026-12-02"),
    ]
    r = compute("ca_post_entitlement_review", events, calendar=CITY_CALENDAR, facts={"units": 12})
    # 3 business days before the pause; 27 more from December 3 skip Dec 24, 25 and Jan 1.
    assert r["due_date"] == "2027-01-13"
    assert r["conservative_date"] == "2027-01-12"
    assert [line["event"] for line in r["ledger"]] == ["complete", "paused", "resumed"]


def test_an_open_pause_has_no_due_date_and_keeps_the_days_left() -> None:
    events = [
        ev("complete", "2026-11-20"),
        ev("paused", "2026-11-25", reason="outside_agency_review"),
    ]
    r = compute(
        "ca_post_entitlement_review",
        events,
        calendar=CITY_CALENDAR,
        facts={"units": 12},
        as_of="2026-11-30",
    )
    assert r["status"] == "paused"
    assert r["due_date"] is None
    assert r["days_remaining"] == 27


def test_a_moratorium_pause_is_capped_at_five_years() -> None:
    events = [
        ev("approved", "2020-01-15"),
        ev("paused", "2020-06-01", reason="moratorium"),
        ev("resumed", "2027-06-01"),
    ]
    r = compute("ca_tentative_map_expiry", events)
    # 24 months to 2022-01-15, plus the 1,826 days from 2020-06-01 to 2025-06-01.
    assert r["due_date"] == "2027-01-15"
    assert any("at most 60 months" in w for w in r["warnings"])


def test_a_pause_for_a_reason_the_rule_does_not_know_has_no_effect() -> None:
    r = compute(
        "ca_post_entitlement_review",
        [ev("complete", "2026-11-20"), ev("paused", "2026-11-25", reason="staff_vacation")],
        facts={"units": 12},
    )
    assert r["status"] == "running"
    assert any("does not pause" in w for w in r["warnings"])


# -------------------------------------------------------------------------- extensions


def test_a_second_65957_extension_is_refused_with_a_warning() -> None:
    events = [
        ev("ceqa", "2026-06-01", document="exempt"),
        ev("extension_agreed", "2026-07-15", days=90),
        ev("extension_agreed", "2026-09-15", days=30),
    ]
    r = compute("ca_psa_decision", events)
    assert r["due_date"] == "2026-10-13"
    assert any("only one extension is allowed" in w for w in r["warnings"])
    assert r["ledger"][-1]["effect"].startswith("no effect")


def test_a_short_65957_extension_never_shortens_the_deadline() -> None:
    events = [
        ev("ceqa", "2026-06-01", document="exempt"),
        ev("extension_agreed", "2026-06-02", days=10),
    ]
    r = compute("ca_psa_decision", events)
    assert r["due_date"] == "2026-07-31"
    assert "the deadline stays" in r["ledger"][-1]["effect"]


def test_a_tentative_map_request_pending_at_expiry_keeps_it_alive_sixty_days() -> None:
    events = [ev("approved", "2026-04-14"), ev("extension_requested", "2029-03-05")]
    facts = {"ordinance_months": 12}
    alive = compute("ca_tentative_map_expiry", events, facts=facts, as_of="2029-06-13")
    assert (alive["status"], alive["due_date"]) == ("running", "2029-06-13")
    gone = compute("ca_tentative_map_expiry", events, facts=facts, as_of="2029-06-14")
    assert gone["status"] == "lapsed"


def test_a_denial_after_expiry_ends_the_map_on_the_denial_date() -> None:
    events = [
        ev("approved", "2026-04-14"),
        ev("extension_requested", "2029-03-05"),
        ev("extension_denied", "2029-05-10"),
    ]
    r = compute(
        "ca_tentative_map_expiry", events, facts={"ordinance_months": 12}, as_of="2029-05-11"
    )
    assert (r["due_date"], r["status"]) == ("2029-05-10", "lapsed")


def test_a_map_grant_beyond_six_years_counts_only_for_the_months_left() -> None:
    # Revision 3 (66452.6(e)): a grant past the cap no longer leaves the map pending
    # past its hard stop; it counts for the 72 months left (2029-04-14 + 72 months).
    events = [
        ev("approved", "2026-04-14"),
        ev("extension_requested", "2029-03-05"),
        ev("extension_granted", "2029-04-30", months=80),
    ]
    r = compute("ca_tentative_map_expiry", events, facts={"ordinance_months": 12})
    assert r["due_date"] == r["hard_stop"] == "2035-04-14"
    assert any("counts for the 72 months left" in w for w in r["warnings"])
    # Read as void, the grant is still the decision: the map ends on its date.
    assert r["conservative_date"] == "2029-04-30"


def test_sign_permit_extension_needs_a_request_before_expiry() -> None:
    r = compute(
        "cotati_sign_permit_expiry",
        [ev("approved", "2026-03-31"), ev("extension_granted", "2027-02-20")],
    )
    assert r["due_date"] == "2027-03-31"
    assert any("no extension request before expiry" in w for w in r["warnings"])


def test_sign_permit_grant_after_expiry_on_a_timely_request_counts_from_the_original() -> None:
    events = [
        ev("approved", "2026-03-31"),
        ev("extension_requested", "2027-03-15"),
        ev("extension_granted", "2027-04-20"),
    ]
    r = compute("cotati_sign_permit_expiry", events, as_of="2027-05-01")
    assert (r["due_date"], r["status"]) == ("2028-03-31", "running")


def test_a_companion_permit_expiring_earlier_changes_nothing() -> None:
    events = [
        ev("approved", "2026-03-31"),
        ev("companion_expiry", "2026-05-01", until="2026-12-01"),
    ]
    r = compute("cotati_sign_permit_expiry", events)
    assert r["due_date"] == "2027-03-31"


def test_a_companion_permit_revives_a_sign_permit_past_its_own_expiry() -> None:
    events = [
        ev("approved", "2026-03-31"),
        ev("companion_expiry", "2027-04-10", until="2027-09-30"),
    ]
    r = compute("cotati_sign_permit_expiry", events, as_of="2027-05-01")
    assert (r["due_date"], r["status"]) == ("2027-09-30", "running")


# --------------------------------------------------------------------- building permits


def test_a_non_qualifying_inspection_does_not_reset_the_building_permit() -> None:
    events = [
        ev("approved", "2026-01-12"),
        ev("inspection", "2026-05-01", result="failed"),
        ev("inspection", "2026-05-02", result="approved"),  # qualifying defaults to false
    ]
    r = compute("building_permit_expiry", events)
    assert r["due_date"] == "2026-07-11"
    assert all("no effect on the clock" in line["effect"] for line in r["ledger"][1:])


def test_a_qualifying_inspection_resets_180_days() -> None:
    events = [
        ev("approved", "2026-01-12"),
        ev("inspection", "2026-05-01", result="approved", qualifying=True),
    ]
    r = compute("building_permit_expiry", events)
    assert r["due_date"] == "2026-10-28"
    assert r["ledger"][-1]["effect"].startswith("an approved, qualifying inspection")


def test_an_inspection_never_shortens_an_extension() -> None:
    events = [
        ev("approved", "2026-01-12"),
        ev("extension_granted", "2026-07-01"),
        ev("inspection", "2026-07-05", result="approved", qualifying=True),
    ]
    r = compute("building_permit_expiry", events)
    assert r["due_date"] == "2027-01-07"  # the extension's date, later than 2027-01-01


def test_building_extension_after_expiry_is_refused() -> None:
    r = compute(
        "building_permit_expiry",
        [ev("approved", "2026-01-12"), ev("extension_granted", "2026-07-20")],
    )
    assert r["due_date"] == "2026-07-11"
    assert r["status"] == "lapsed"
    assert any("an extension after expiry" in w for w in r["warnings"])


def test_local_extension_cap_and_term_limit_from_facts() -> None:
    events = [
        ev("approved", "2026-01-12"),
        ev("extension_granted", "2026-07-01"),
        ev("extension_granted", "2026-12-01"),
    ]
    r = compute(
        "building_permit_expiry", events, facts={"max_extensions": 1, "term_limit_months": 12}
    )
    assert r["due_date"] == "2027-01-07"
    assert r["hard_stop"] == "2027-01-12"
    assert r["extensions"]["used"] == 1 and r["extensions"]["left"] == 0


# ----------------------------------------------------------------- completeness notices


def test_a_later_notice_may_not_add_items() -> None:
    events = [
        ev("received", "2026-03-02"),
        ev("incomplete_notice", "2026-03-10", items=[{"id": "A", "rule": "checklist 1"}]),
        ev("resubmitted", "2026-03-20"),
        ev(
            "incomplete_notice",
            "2026-04-01",
            items=[{"id": "A", "rule": "c1"}, {"id": "B", "rule": "c2"}],
        ),
    ]
    r = compute("ca_psa_completeness", events)
    assert r["status"] == "met"
    assert any("B were not in the first notice" in w for w in r["warnings"])


def test_a_notice_after_the_deadline_is_too_late() -> None:
    events = [ev("received", "2026-03-02"), ev("incomplete_notice", "2026-04-10", items=["A"])]
    r = compute("ca_psa_completeness", events, as_of="2026-04-20")
    assert r["status"] == "lapsed"
    assert r["consequence"] == "deemed_complete"
    assert any("came after the deadline" in w for w in r["warnings"])
    assert any("cite no checklist rule" in w for w in r["warnings"])


def test_no_development_permit_statement_means_no_deemed_completeness() -> None:
    r = compute(
        "ca_psa_completeness",
        [ev("received", "2026-03-02")],
        facts={"states_development_permit": False, "housing": True, "units": 10},
        as_of="2026-05-01",
    )
    assert r["status"] == "lapsed"
    assert r["consequence"] is None
    haa = next(n for n in r["next"] if n["rule"] == "ca_haa_consistency")
    assert haa["status"] == "awaiting_start"


def test_an_incomplete_notice_does_not_start_the_haa_clock() -> None:
    r = compute(
        "ca_psa_completeness",
        [
            ev("received", "2026-03-02"),
            ev("incomplete_notice", "2026-03-20", items=[{"id": "A", "rule": "c"}]),
        ],
        facts={"housing": True, "units": 10},
    )
    haa = next(n for n in r["next"] if n["rule"] == "ca_haa_consistency")
    assert haa["status"] == "awaiting_start"


# ---------------------------------------------------------------------- 65956 versions


def test_before_ab_130_a_lapse_is_a_writ_unless_public_notice_occurred() -> None:
    ceqa = ev("ceqa", "2025-01-02", document="exempt")
    writ = compute("ca_psa_decision", [ceqa], as_of="2025-04-01")
    assert (writ["due_date"], writ["consequence"]) == ("2025-03-03", "writ_available")
    noticed = compute(
        "ca_psa_decision", [ceqa, ev("public_notice", "2025-03-20")], as_of="2025-04-01"
    )
    assert noticed["consequence"] == "deemed_approved"


def test_a_clock_straddling_ab_130_says_counsel_must_decide() -> None:
    r = compute("ca_psa_decision", [ev("ceqa", "2025-05-01", document="exempt")])
    assert r["due_date"] == "2025-06-30"
    assert r["consequence"] == "deemed_approved"
    assert any("question for counsel" in w for w in r["warnings"])


def test_eir_housing_decision_is_90_days() -> None:
    r = compute("ca_psa_decision", [ev("ceqa", "2026-10-01", document="eir_housing")])
    assert r["due_date"] == "2026-12-30"


# ------------------------------------------------------------------------------ SB 330


def test_a_20_percent_change_loses_vesting_at_once_and_a_smaller_one_does_not() -> None:
    pre = ev("preliminary_application", "2021-12-07")
    big = compute(
        "ca_sb330_full_application", [pre, ev("project_changed", "2022-01-10", units_change_pct=25)]
    )
    assert (big["status"], big["consequence"]) == ("lapsed", "vesting_lost")
    small = compute(
        "ca_sb330_full_application",
        [pre, ev("project_changed", "2022-01-10", area_change_pct=19.5)],
    )
    assert small["status"] == "running"


def test_an_incomplete_full_application_starts_a_provisional_90_day_cure() -> None:
    events = [
        ev("preliminary_application", "2021-12-07"),
        ev("full_application", "2022-03-01"),
        ev("incomplete_notice", "2022-03-20", items=["x"]),
    ]
    r = compute("ca_sb330_full_application", events)
    # Revision 3: the cure period is this clock's own deadline while it runs.
    assert r["status"] == "running"
    assert (r["due_date"], r["conservative_date"]) == ("2022-06-20", "2022-06-18")
    assert r["provisional"] is True
    assert any(w.startswith("provisional:") for w in r["warnings"])


# -------------------------------------------------------------------- chains and status


def test_an_expired_limited_term_permit_starts_the_cleanup_clock() -> None:
    r = compute("cotati_ltp_term", [ev("approved", "2024-02-29")], as_of="2025-03-10")
    assert r["status"] == "lapsed"
    cleanup = r["next"][0]
    assert (cleanup["rule"], cleanup["start_date"], cleanup["due_date"]) == (
        "cotati_ltp_cleanup",
        "2025-02-28",
        "2025-03-30",
    )


def test_post_entitlement_completeness_chains_the_review_with_units() -> None:
    r = compute(
        "ca_post_entitlement_completeness",
        [ev("received", "2026-11-02"), ev("complete", "2026-11-16")],
        calendar=CITY_CALENDAR,
        facts={"units": 40},
    )
    review = r["next"][0]
    assert review["rule"] == "ca_post_entitlement_review"
    assert review["ledger"][0]["days"] == 60


def test_a_closure_on_the_last_day_rolls_literally_but_not_conservatively() -> None:
    r = compute(
        "cotati_sign_appeal_decision",
        [ev("appeal_filed", "2026-10-02")],
        calendar={"closures": [{"date": "2026-12-01", "name": "power outage"}]},
        as_of="2026-12-02",
    )
    assert (r["due_date"], r["status"]) == ("2026-12-02", "running")
    assert (r["conservative_date"], r["conservative_status"]) == ("2026-12-01", "lapsed")
    assert "power outage" in r["ledger"][-1]["effect"] or any(
        "power outage" in line["effect"] for line in r["ledger"]
    )


def test_withdrawn_met_late_and_awaiting_start() -> None:
    filed = ev("appeal_filed", "2026-10-02")
    assert (
        compute("cotati_sign_appeal_decision", [filed, ev("withdrawn", "2026-10-20")])["status"]
        == "withdrawn"
    )
    late = compute(
        "cotati_sign_appeal_decision", [filed, ev("decision", "2026-12-03", outcome="denied")]
    )
    assert late["status"] == "met_late"
    assert compute("cotati_sign_appeal_decision", [])["status"] == "awaiting_start"


def test_the_same_events_in_another_order_give_the_same_result() -> None:
    events = [
        ev("received", "2026-03-02"),
        ev("incomplete_notice", "2026-03-27", items=[{"id": "A", "rule": "c"}]),
        ev("resubmitted", "2026-04-14"),
        ev("complete", "2026-05-08"),
    ]
    one = compute("ca_psa_completeness", events, facts={"housing": True, "units": 200})
    two = compute("ca_psa_completeness", events[::-1], facts={"housing": True, "units": 200})
    assert (
        one["due_date"] == two["due_date"]
        and one["next"][0]["due_date"] == two["next"][0]["due_date"]
    )


def test_cotati_jurisdiction_uses_its_adopted_holidays_and_closures() -> None:
    r = compute(
        "ca_post_entitlement_review",
        [ev("complete", "2026-11-20")],
        jurisdiction="cotati",
        facts={"units": 12},
    )
    # Cotati's file adopts Nov 26-27, Dec 24-25 and Jan 1 and closes Dec 31.
    assert r["due_date"] == "2027-01-11"
    assert r["conservative_date"] == "2027-01-08"


def test_a_map_request_after_six_years_of_extensions_is_refused() -> None:
    events = [
        ev("approved", "2026-04-14"),
        ev("extension_requested", "2029-03-05"),
        ev("extension_granted", "2029-04-30", months=72),
        ev("extension_requested", "2034-01-05"),
    ]
    r = compute("ca_tentative_map_expiry", events, facts={"ordinance_months": 12})
    assert r["due_date"] == r["hard_stop"] == "2035-04-14"
    assert r["extensions"]["months_left"] == 0
    assert any("no extension left" in w for w in r["warnings"])


def test_a_frozen_calendar_snapshot_replaces_the_current_layers() -> None:
    from rules.permit_clocks.jurisdictions import base_layers

    events = [ev("complete", "2026-11-20")]
    live = compute("ca_post_entitlement_review", events, jurisdiction="cotati", facts={"units": 12})
    frozen = base_layers("cotati", "CA").to_dict()
    same = compute(
        "ca_post_entitlement_review",
        events,
        jurisdiction="cotati",
        facts={"units": 12},
        calendar_snapshot=frozen,
    )
    assert (same["due_date"], same["conservative_date"]) == (
        live["due_date"],
        live["conservative_date"],
    )
    # A snapshot taken before the closures were entered keeps its own days.
    bare = {**frozen, "closures": []}
    bare.pop("fingerprint")
    older = compute(
        "ca_post_entitlement_review",
        events,
        jurisdiction="cotati",
        facts={"units": 12},
        calendar_snapshot=bare,
    )
    assert older["due_date"] == "2027-01-08"


def test_a_clock_opened_under_another_rule_version_says_so() -> None:
    r = compute("cotati_sign_appeal_decision", [], rule_version="cotati@2025.1")
    assert any("opened under cotati@2025.1" in w for w in r["warnings"])


def test_a_pause_resumed_and_paused_again_on_one_day() -> None:
    events = [
        ev("approved", "2026-01-05"),
        ev("paused", "2026-01-06", reason="moratorium"),
        ev("resumed", "2026-01-08"),
        ev("paused", "2026-01-08", reason="moratorium"),
        ev("resumed", "2026-01-09"),
    ]
    r = compute("ca_tentative_map_expiry", events)
    assert r["due_date"] == "2028-01-08"  # 2 + 1 paused days
    assert r["warnings"] == []
    assert "days left" in r["ledger"][1]["effect"]
