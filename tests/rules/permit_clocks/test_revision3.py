"""Revision 3 of the permit clocks: every worked example of maps after a moratorium, late
and over-the-cap grants, statutory extensions, SB 330's cure, AB 130 and extensions
counted from the unrolled expiry, as the contract's output. Each test shows its
arithmetic; day counts exclude the first day (Code Civ. Proc. 12)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from rules.permit_clocks import compute_permit_clock
from rules.permit_clocks.packs import PERMIT_PACKS

MAP = "ca_tentative_map_expiry"


def ev(kind: str, day: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "date": day, **fields}


def compute(rule: str, events: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return compute_permit_clock({"rule": rule, "events": events, **extra})


def chained(result: dict[str, Any], rule: str) -> dict[str, Any]:
    return next(n for n in result["next"] if n["rule"] == rule)


# ------------------------------------------------------------------------------ maps


def test_a_map_is_valid_120_days_after_a_moratorium_that_left_it_less() -> None:
    # Approved 2026-04-14 + 24 months = 2028-04-14. Moratorium 2028-03-15: 30 days left
    # (Mar 15 -> Apr 14). It ends 2028-06-01; 30 days after that is 2028-07-01, less than
    # 120, so Gov. Code 66452.6(b)(3) gives 2028-06-01 + 120 days = 2028-09-29
    # (June 29 + July 31 + August 31 + September 29 = 120).
    r = compute(
        MAP,
        [
            ev("approved", "2026-04-14"),
            ev("paused", "2028-03-15", reason="moratorium"),
            ev("resumed", "2028-06-01"),
        ],
    )
    assert r["due_date"] == r["conservative_date"] == "2028-09-29"
    assert r["status"] == "running"
    floor = r["ledger"][-1]
    assert "valid 120 days after it ends" in floor["effect"]
    assert floor["rule"].startswith("Gov. Code 66452.6(b)(3)")


def test_a_moratorium_that_leaves_more_than_120_days_keeps_the_time_left() -> None:
    # 2026-04-14 + 24 months = 2028-04-14; moratorium 2027-06-01..2027-11-30 leaves 318
    # days (Jun 1 2027 -> Apr 14 2028); 2027-11-30 + 318 days = 2028-10-13 (> 120 days).
    r = compute(
        MAP,
        [
            ev("approved", "2026-04-14"),
            ev("paused", "2027-06-01", reason="moratorium"),
            ev("resumed", "2027-11-30"),
        ],
    )
    assert r["due_date"] == "2028-10-13"
    assert not any("120" in line["effect"] for line in r["ledger"])


def test_a_grant_after_the_automatic_extension_does_not_revive_the_map() -> None:
    # 24 + 12 ordinance months: 2026-04-14 -> 2029-04-14. The request of 2029-03-05 keeps
    # it alive until the decision or 2029-04-14 + 60 days = 2029-06-13. A grant dated
    # 2029-07-01 comes after that: the map expired on 2029-06-13 (66452.6(e)).
    r = compute(
        MAP,
        [
            ev("approved", "2026-04-14"),
            ev("extension_requested", "2029-03-05"),
            ev("extension_granted", "2029-07-01", months=24),
        ],
        facts={"ordinance_months": 12},
        as_of="2029-07-02",
    )
    assert (r["due_date"], r["status"], r["consequence"]) == ("2029-06-13", "lapsed", "expired")
    assert r["extensions"]["months_used"] == 0
    assert any("does not revive it" in w for w in r["warnings"])
    assert r["ledger"][-1]["effect"].startswith("no effect")


def test_a_grant_within_the_automatic_extension_still_counts_from_the_expiry() -> None:
    # Granted 2029-05-20, before 2029-06-13: 24 months from 2029-04-14 = 2031-04-14.
    r = compute(
        MAP,
        [
            ev("approved", "2026-04-14"),
            ev("extension_requested", "2029-03-05"),
            ev("extension_granted", "2029-05-20", months=24),
        ],
        facts={"ordinance_months": 12},
    )
    assert (r["due_date"], r["status"]) == ("2031-04-14", "running")


def test_a_grant_past_the_cap_is_limited_and_the_void_reading_is_earlier() -> None:
    # 2029-04-14 + 60 months (granted 2029-04-30) = 2034-04-14; 12 of the 72 months left.
    # A second grant of 24 months (2034-04-01): literally limited to the 12 left ->
    # 2035-04-14 = the hard stop (2029-04-14 + 72 months). Read as void, it is still the
    # decision (2034-04-01, before the expiry), so the map ends 2034-04-14: conservative.
    r = compute(
        MAP,
        [
            ev("approved", "2026-04-14"),
            ev("extension_requested", "2029-03-05"),
            ev("extension_granted", "2029-04-30", months=60),
            ev("extension_requested", "2034-03-01"),
            ev("extension_granted", "2034-04-01", months=24),
        ],
        facts={"ordinance_months": 12},
    )
    assert r["due_date"] == r["hard_stop"] == "2035-04-14"
    assert r["conservative_date"] == "2034-04-14"
    assert [(a["reading"], a["due_date"]) for a in r["alternatives"]] == [
        ("grant_over_cap_void", "2034-04-14")
    ]
    assert "void" in r["alternatives"][0]["explanation"]
    assert (r["extensions"]["months_used"], r["extensions"]["months_left"]) == (72, 0)
    assert r["extensions"]["request_by"] is None  # nothing left to ask for
    assert any("counts for the 12 months left" in w for w in r["warnings"])


# -------------------------------------------------------------- statutory extensions


def test_ab_2729_extends_a_map_18_months_without_a_request_outside_the_cap() -> None:
    # Approved 2022-09-01 (before 2024-01-01) + 24 + 12 months = 2025-09-01: in effect on
    # 2025-01-01 and expiring before 2025-12-31, so Gov. Code 65914.4 adds 18 months:
    # 2025-09-01 + 18 months = 2027-03-01. The hard stop moves with it (2027-03-01 + 72
    # months = 2033-03-01) and all 72 discretionary months are left.
    r = compute(
        MAP, [ev("approved", "2022-09-01")], facts={"ordinance_months": 12}, as_of="2025-10-01"
    )
    assert (r["due_date"], r["status"]) == ("2027-03-01", "running")
    assert r["hard_stop"] == "2033-03-01"
    assert r["extensions"]["statutory_months"] == 18
    assert r["extensions"]["months_left"] == 72
    line = next(li for li in r["ledger"] if li["event"] == "statutory_extension")
    assert (line["date"], line["rule"]) == (
        "2025-01-01",
        "Gov. Code 65914.4 (AB 2729, Stats. 2024, ch. 737)",
    )
    assert r["provisional"] is True  # 65914.4 was read only in an unofficial copy


def test_ab_2729_does_not_reach_a_map_approved_after_2023_or_expiring_later() -> None:
    # Approved 2024-02-01: not issued before 2024-01-01. Approved 2022-01-10 with 36
    # months expires 2025-01-10 (covered), but with 24 months it expired 2024-01-10,
    # before 2025-01-01 (not in effect that day).
    late = compute(MAP, [ev("approved", "2024-02-01")])
    assert (late["due_date"], late["extensions"]["statutory_months"]) == ("2026-02-01", 0)
    gone = compute(MAP, [ev("approved", "2022-01-10")], as_of="2025-02-01")
    assert (gone["due_date"], gone["status"]) == ("2024-01-10", "lapsed")
    covered = compute(MAP, [ev("approved", "2022-01-10")], facts={"ordinance_months": 12})
    assert covered["due_date"] == "2026-07-10"  # 2025-01-10 + 18 months
    other = compute(
        MAP, [ev("approved", "2022-09-01")], facts={"ordinance_months": 12, "housing": False}
    )
    assert other["due_date"] == "2025-09-01"  # not a housing entitlement


def extended(approved: str, *grants: tuple[str, int]) -> list[dict[str, Any]]:
    """A map approved on `approved` with 36 months, and each (day, months) granted on a
    request made the day before."""
    events = [ev("approved", approved)]
    for day, months in grants:
        asked = date.fromisoformat(day) - timedelta(days=1)
        events += [
            ev("extension_requested", asked.isoformat()),
            ev("extension_granted", day, months=months),
        ]
    return events


def test_ab_2729_does_not_stack_on_18_months_the_city_gave_in_2024() -> None:
    # Approved 2021-03-01 + 36 months = 2024-03-01; the city grants 18 months on
    # 2024-02-01: 2025-09-01. On 2025-01-01 it is in effect and expires before
    # 2025-12-31, but 65914.4(b) adds nothing where the city gave 18 months in 2024.
    # Under the pack before (b) was encoded it ran to 2025-09-01 + 18 = 2027-03-01.
    events = extended("2021-03-01", ("2024-02-01", 18))
    r = compute(MAP, events, facts={"ordinance_months": 12}, as_of="2025-10-01")
    assert (r["due_date"], r["status"]) == ("2025-09-01", "lapsed")
    assert r["extensions"]["statutory_months"] == 0
    line = next(li for li in r["ledger"] if li["event"] == "statutory_extension")
    assert line["rule"] == "Gov. Code 65914.4(b)"
    assert "already extended it by 18 months between 2024-01-01 and 2024-12-31" in line["effect"]
    frozen = compute(
        MAP, events, facts={"ordinance_months": 12}, rule_version="california@2026.12.6"
    )
    assert frozen["due_date"] == "2027-03-01"


def test_ab_2729_adds_its_months_to_less_than_18_granted_in_2024() -> None:
    # Approved 2020-09-01 + 36 = 2023-09-01; 12 months granted 2023-08-01 (before 2024):
    # 2024-09-01; 12 more on 2024-08-01: 2025-09-01. Only 12 months fall in 2024, so the
    # statute adds 18: 2027-03-01.
    events = extended("2020-09-01", ("2023-08-01", 12), ("2024-08-01", 12))
    r = compute(MAP, events, facts={"ordinance_months": 12})
    assert r["due_date"] == "2027-03-01"
    assert r["extensions"]["statutory_months"] == 18


def test_ab_2729_takes_the_2024_grants_together_and_names_the_other_reading() -> None:
    # Approved 2021-01-15 + 36 = 2024-01-15; 6 months on 2024-01-10: 2024-07-15; 12 on
    # 2024-07-01: 2025-07-15. Together 18 months in 2024: the statute adds nothing (the
    # earlier date); read as needing one grant of 18 months it would add 18 (a warning).
    events = extended("2021-01-15", ("2024-01-10", 6), ("2024-07-01", 12))
    r = compute(MAP, events, facts={"ordinance_months": 12})
    assert r["due_date"] == "2025-07-15"
    assert any(
        "taken together" in w and "a single extension of 18 months" in w for w in r["warnings"]
    ), r["warnings"]


def test_a_map_that_lapsed_during_2024_keeps_its_date_and_names_the_reviving_reading() -> None:
    # Approved 2022-01-10 + 24 months = 2024-01-10: in effect on 2024-01-01, lapsed before
    # 65914.4 took effect on 2025-01-01. The earlier reading keeps 2024-01-10; the other
    # (an entitlement "in effect on January 1, 2024" is covered) gives 2025-07-10.
    r = compute(MAP, [ev("approved", "2022-01-10")], as_of="2025-02-01")
    assert (r["due_date"], r["status"]) == ("2024-01-10", "lapsed")
    (warning,) = [w for w in r["warnings"] if w.startswith("ab2729_2024")]
    assert "it lapsed on 2024-01-10" in warning and "to 2025-07-10" in warning
    # Lapsed in 2023 (not in effect on 2024-01-01), or not housing: no such reading.
    for events, facts in (
        ([ev("approved", "2021-06-10")], {}),
        ([ev("approved", "2022-06-10")], {"housing": False}),
    ):
        other = compute(MAP, events, facts=facts, as_of="2025-02-01")
        assert not any(w.startswith("ab2729_2024") for w in other["warnings"])


def test_a_statutory_extension_event_records_one_the_pack_lacks() -> None:
    # 2026-04-14 + 24 months = 2028-04-14; a statute of 2027 adds 12 months: 2029-04-14,
    # outside the cap (72 months left, hard stop 2029-04-14 + 72 months = 2035-04-14).
    r = compute(
        MAP,
        [
            ev("approved", "2026-04-14"),
            ev("statutory_extension", "2027-01-01", months=12, citation="Gov. Code 66452.25"),
        ],
    )
    assert (r["due_date"], r["hard_stop"]) == ("2029-04-14", "2035-04-14")
    assert r["extensions"]["months_left"] == 72
    assert r["ledger"][-1]["rule"] == "Gov. Code 66452.25"


# ------------------------------------------------------------------------------ SB 330


def test_sb330_cure_is_the_clock_s_deadline_while_it_runs() -> None:
    # Preliminary application 2026-02-02 + 180 days = Sat 2026-08-01 -> Mon 2026-08-03.
    # Full application 2026-05-20 (met). Incompleteness notice 2026-06-18 + 90 days =
    # Wed 2026-09-16: the clock runs again with that deadline (65941.1(d)(2), provisional).
    events = [
        ev("preliminary_application", "2026-02-02"),
        ev("full_application", "2026-05-20"),
        ev("incomplete_notice", "2026-06-18", items=["unit mix table"]),
    ]
    r = compute("ca_sb330_full_application", events, as_of="2026-07-01")
    assert (r["due_date"], r["status"], r["days_remaining"]) == ("2026-09-16", "running", 77)
    assert r["provisional"] is True
    late = compute("ca_sb330_full_application", events, as_of="2026-09-17")
    assert (late["status"], late["consequence"]) == ("lapsed", "vesting_lost")
    cured = compute(
        "ca_sb330_full_application", [*events, ev("resubmitted", "2026-09-01")], as_of="2026-09-17"
    )
    assert (cured["status"], cured["met_date"]) == ("met", "2026-09-01")


def test_a_reduction_of_20_percent_or_more_loses_the_vesting() -> None:
    # 40 -> 49 market units is +22.5%; 40 -> 30 is -25%: both a change of 20% or more.
    pre = ev("preliminary_application", "2026-02-02")
    for pct in (22.5, -25, -20):
        r = compute(
            "ca_sb330_full_application",
            [pre, ev("project_changed", "2026-03-01", units_change_pct=pct)],
        )
        assert (r["status"], r["consequence"]) == ("lapsed", "vesting_lost"), pct
    small = compute(
        "ca_sb330_full_application",
        [pre, ev("project_changed", "2026-03-01", area_change_pct=-19.9)],
    )
    assert small["status"] == "running"


# ------------------------------------------------------------------------------ AB 130


def test_ab130_infill_exempt_project_has_30_days_to_decide_provisional() -> None:
    # Exempt under PRC 21080.66 on 2026-03-02: + 30 days = Wed 2026-04-01 (60 days for an
    # ordinary exemption would be 2026-05-01): staff are alerted a month earlier.
    r = compute("ca_psa_decision", [ev("ceqa", "2026-03-02", document="exempt_21080_66")])
    assert (r["due_date"], r["consequence"]) == ("2026-04-01", "deemed_approved")
    assert r["provisional"] is True
    assert any(w.startswith("provisional: ca_psa_decision") for w in r["warnings"])


def test_ab130_tribal_chain_with_no_acceptance_starts_the_30_days() -> None:
    # Complete 2026-03-02 + 14 days = 2026-03-16 to notify the tribes; notice sent
    # 2026-03-10 + 60 days = 2026-05-09 (Saturday) -> Mon 2026-05-11 to accept; none does,
    # so the final action is due 2026-05-11 + 30 days = Wed 2026-06-10. Every clock of the
    # chain is provisional and its ledger says what ends it.
    r = compute(
        "ca_21080_66_tribal_notice",
        [ev("complete", "2026-03-02"), ev("tribal_notice_sent", "2026-03-10")],
        as_of="2026-05-12",
    )
    assert (r["due_date"], r["status"], r["provisional"]) == ("2026-03-16", "met", True)
    window = chained(r, "ca_21080_66_tribal_acceptance")
    assert (window["due_date"], window["status"]) == ("2026-05-11", "lapsed")
    decision = next(n for n in window["next"] if n["status"] != "awaiting_start")
    assert (decision["rule"], decision["due_date"], decision["provisional"]) == (
        "ca_21080_66_decision",
        "2026-06-10",
        True,
    )
    assert any("exemption_not_found" in line["effect"] for line in r["ledger"])


def test_ab130_consultation_then_decision_and_the_chain_stops_if_not_exempt() -> None:
    # Accepted 2026-04-01 + 45 days = 2026-05-16 (Saturday) -> Mon 2026-05-18; extended
    # once by 15 days from it: 2026-06-02; concluded 2026-05-29 + 30 days = 2026-06-28
    # (Sunday) -> Mon 2026-06-29.
    events = [
        ev("complete", "2026-03-02"),
        ev("tribal_notice_sent", "2026-03-10"),
        ev("consultation_accepted", "2026-04-01"),
        ev("consultation_extended", "2026-05-10", days=15),
        ev("consultation_concluded", "2026-05-29"),
    ]
    r = compute("ca_21080_66_tribal_notice", events)
    consult = chained(chained(r, "ca_21080_66_tribal_acceptance"), "ca_21080_66_consultation")
    assert (consult["due_date"], consult["status"]) == ("2026-06-02", "met")
    decision = next(n for n in consult["next"] if n["status"] != "awaiting_start")
    assert decision["due_date"] == "2026-06-29"
    stopped = compute(
        "ca_21080_66_tribal_notice",
        [ev("complete", "2026-03-02"), ev("exemption_not_found", "2026-03-05")],
    )
    assert stopped["status"] == "withdrawn"


def test_ab130_ministerial_housing_decision_60_days_provisional() -> None:
    # Complete 2026-03-02 + 60 days = Fri 2026-05-01.
    r = compute("ca_psa_ministerial_decision", [ev("complete", "2026-03-02")])
    assert (r["due_date"], r["provisional"]) == ("2026-05-01", True)


# ------------------------------------------------------- extensions from the unrolled day


def test_an_extension_from_the_expiry_is_also_counted_from_the_unrolled_day() -> None:
    # Negative declaration 2026-11-17 + 60 days = Sat 2027-01-16 -> Sun -> Mon 01-18 (Dr.
    # King Day, a judicial holiday) -> Tue 2027-01-19. Agreement 2027-01-05 for 90 days:
    # literal (from the agreement) 2027-04-05; from the original deadline as rolled
    # 2027-01-19 + 90 = 2027-04-19; from the day counted, unrolled, 2027-01-16 + 90 =
    # 2027-04-16. The earliest (2027-04-05) drives the alerts.
    r = compute(
        "ca_psa_decision",
        [
            ev("ceqa", "2026-11-17", document="negative_declaration"),
            ev("extension_agreed", "2027-01-05", days=90),
        ],
    )
    assert (r["due_date"], r["conservative_date"]) == ("2027-04-05", "2027-04-05")
    assert [(a["reading"], a["due_date"]) for a in r["alternatives"]] == [
        ("extension_from_prior_expiry", "2027-04-19"),
        ("extension_from_unrolled_prior_expiry", "2027-04-16"),
    ]
    assert "before it rolled" in r["alternatives"][1]["explanation"]


# ----------------------------------------------------------------- frozen rule versions


def test_a_clock_pinned_to_the_earlier_pack_keeps_its_rules() -> None:
    # Under california@2026.12.1 the moratorium example ends 2028-04-14 + 78 paused days
    # = 2028-07-01 (no 120-day floor), and AB 2729 is not applied; the output says the
    # rules are frozen and a rebase applies the current ones.
    events = [
        ev("approved", "2026-04-14"),
        ev("paused", "2028-03-15", reason="moratorium"),
        ev("resumed", "2028-06-01"),
    ]
    old = compute(MAP, events, rule_version="california@2026.12.1")
    assert (old["due_date"], old["rule_version"]) == ("2028-07-01", "california@2026.12.1")
    assert any("frozen when the clock opened" in w for w in old["warnings"])
    now = compute(MAP, events, rule_version=f"california@{PERMIT_PACKS['california'].version}")
    assert now["due_date"] == "2028-09-29"
    assert not any("frozen" in w for w in now["warnings"])
    ab2729 = compute(
        MAP,
        [ev("approved", "2022-09-01")],
        facts={"ordinance_months": 12},
        rule_version="california@2026.12.1",
    )
    assert ab2729["due_date"] == "2025-09-01"


def test_a_chained_clock_takes_its_own_events_once_it_started() -> None:
    # Complete 2026-03-20 starts the HAA clock: + 30 days = 2026-04-19 (Sunday) ->
    # 2026-04-20; the inconsistency notice of 2026-04-01 meets it (it used to be refused
    # as "before the clock started", leaving the chained clock running).
    r = compute(
        "ca_psa_completeness",
        [
            ev("received", "2026-03-02"),
            ev("complete", "2026-03-20"),
            ev("inconsistency_notice", "2026-04-01"),
        ],
        facts={"housing": True, "units": 10},
    )
    haa = chained(r, "ca_haa_consistency")
    assert (haa["due_date"], haa["status"], haa["warnings"]) == ("2026-04-20", "met", [])


def test_ab130_consultation_that_runs_out_starts_the_30_days_from_its_end() -> None:
    # Accepted 2026-04-01 + 45 days = Sat 2026-05-16 -> Mon 2026-05-18; no conclusion is
    # recorded, so the final action is due 2026-05-18 + 30 days = Wed 2026-06-17.
    events = [
        ev("complete", "2026-03-02"),
        ev("tribal_notice_sent", "2026-03-10"),
        ev("consultation_accepted", "2026-04-01"),
    ]
    r = compute("ca_21080_66_tribal_notice", events, as_of="2026-06-01")
    consult = chained(chained(r, "ca_21080_66_tribal_acceptance"), "ca_21080_66_consultation")
    assert (consult["due_date"], consult["status"]) == ("2026-05-18", "lapsed")
    (decision,) = consult["next"]
    assert (decision["start_date"], decision["due_date"]) == ("2026-05-18", "2026-06-17")
