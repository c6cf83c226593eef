"""Golden tests for shot-clocks.md section 8 (revision 2): the conservative reading
decides every status, and a clock keeps the rules it was opened under. One block per
item of section 8; dates are worked out in the comments."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from rules.kernel.calendars import CalendarLayers, jurisdiction_layers
from rules.kernel.input import TimelineError, load_json
from rules.kernel.jurisdictions import jurisdiction
from rules.shot_clock.engine import compute, compute_json
from rules.shot_clock.packs import pack_from_data, rule_pack
from rules.shot_clock.timeline import parse_timeline

ITEM = {"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}


def ev(kind: str, when: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "date": when, **fields}


def cotati_swf_new_structure(*events: dict[str, Any], as_of: str = "2026-04-10") -> dict:
    """Cotati's pack gives a new small-wireless structure 150 days; 47 CFR 1.6003 gives
    90. Submitted Mon 2026-01-05: federal 90 days = Sun 2026-04-05 -> Mon 2026-04-06;
    Cotati 150 days = Thu 2026-06-04."""
    return compute_json(
        {
            "jurisdiction": "cotati",
            "category": "swf_new_structure",
            "events": [ev("submitted", "2026-01-05"), *events],
            "as_of": as_of,
        }
    )


# -- 8.1 every reading is a full pass ---------------------------------------------------


def test_8_1_conservative_status_and_days_remaining_follow_the_earliest_reading() -> None:
    r = cotati_swf_new_structure()
    assert (r["shot_clock_date"], r["status"], r["days_remaining"]) == ("2026-06-04", "running", 55)
    assert r["conservative_date"] == "2026-04-06"
    assert r["conservative_status"] == "expired"
    assert r["conservative_days_remaining"] == -4
    assert "federal default rule pack" in r["conservative_reading"]
    federal = next(a for a in r["alternatives"] if a["shot_clock_date"] == "2026-04-06")
    assert federal["status"] == "expired"
    assert federal["days_remaining"] == -4
    assert any("conservative date 2026-04-06 has passed" in w for w in r["warnings"])


def test_8_1_without_ambiguity_the_conservative_fields_equal_the_literal_ones() -> None:
    r = compute_json(
        {
            "category": "macro_collocation",
            "events": [ev("submitted", "2025-09-02")],
            "as_of": "2025-10-01",
        }
    )
    assert r["conservative_status"] == r["status"] == "running"
    assert r["conservative_days_remaining"] == r["days_remaining"] == 61
    assert r["conservative_reading"] == "the literal reading"


# -- 8.2 an applicant's notice counts under the earliest reading where it is valid -----


def test_8_2_deemed_approved_notice_between_the_conservative_and_literal_dates() -> None:
    r = cotati_swf_new_structure(
        ev("applicant_public_notice", "2026-04-08"), ev("deemed_approved_notice", "2026-04-09")
    )
    assert r["status"] == "running"  # the literal answer is kept
    assert r["conservative_status"] == "deemed_approved"
    # Notice 2026-04-09 + 30 days = 2026-05-09.
    assert r["judicial_review_deadline"] == "2026-05-09"
    warning = next(w for w in r["warnings"] if "judicial review" in w and "earliest" in w)
    assert "federal default rule pack" in warning
    assert "2026-05-09" in warning


def test_8_2_efr_deemed_granted_notice_under_the_rolled_reading() -> None:
    # EFR submitted Thu 2026-01-08: 60 days = Mon 2026-03-09... use a Sunday end instead:
    # submitted Mon 2026-01-05 + 60 = Fri 2026-03-06 (no roll). The Cotati pack gives the
    # EFR 60 days too, so here the literal reading decides and the notice takes effect.
    r = compute_json(
        {
            "category": "eligible_facilities_request",
            "events": [ev("submitted", "2026-01-05"), ev("deemed_granted_notice", "2026-03-09")],
        }
    )
    assert r["status"] == r["conservative_status"] == "deemed_granted"


def test_8_2_a_notice_before_every_reading_s_date_takes_effect_nowhere() -> None:
    r = cotati_swf_new_structure(
        ev("applicant_public_notice", "2026-03-01"),
        ev("deemed_approved_notice", "2026-03-02"),
        as_of="2026-03-03",
    )
    assert r["conservative_status"] == "running"
    assert r["judicial_review_deadline"] is None


# -- 8.3 a local pack cannot lengthen a federal period ----------------------------------


def test_8_3_decision_after_the_federal_date_is_late_conservatively() -> None:
    r = cotati_swf_new_structure(ev("decision", "2026-04-08", outcome="approved"))
    assert r["status"] == "decided_on_time"
    assert r["conservative_status"] == "decided_late"
    assert any("decided_late, not decided_on_time" in w for w in r["warnings"])


def test_8_3_decision_on_the_federal_date_is_on_time_under_every_reading() -> None:
    r = cotati_swf_new_structure(ev("decision", "2026-04-06", outcome="denied"))
    assert r["status"] == r["conservative_status"] == "decided_on_time"


# -- 8.4 a defective notice does not toll -------------------------------------------------


def test_8_4_a_notice_item_without_a_rule_has_no_effect_literally() -> None:
    # Jan 5 + 90 = Sun Apr 5 -> Mon Apr 6 (no toll); the tolling reading adds Jan 15 ->
    # Jan 29 = 14 days: Apr 19 (Sun) -> Mon Apr 20.
    r = compute_json(
        {
            "category": "macro_collocation",
            "events": [
                ev("submitted", "2026-01-05"),
                ev("incomplete_notice", "2026-01-15", items=["A"]),
                ev("resubmitted", "2026-01-29"),
            ],
        }
    )
    assert r["shot_clock_date"] == "2026-04-06"
    assert r["tolled_days"] == 0
    (notice,) = [e for e in r["ledger"] if e["event"] == "incomplete_notice"]
    assert notice["effect"].startswith("no effect on the clock")
    assert "defective" in notice["effect"]
    (alt,) = [
        a
        for a in r["alternatives"]
        if "cites no rule" in a["reading"] or "citing no rule" in a["reading"]
    ]
    assert alt["shot_clock_date"] == "2026-04-20"
    assert r["conservative_date"] == "2026-04-06"


def test_8_4_an_object_item_without_rule_is_defective_too_and_swf_does_not_reset() -> None:
    # SWF 2026-03-02, notice day 8 without a rule: no reset; 60 days = Fri 2026-05-01.
    r = compute_json(
        {
            "category": "swf_collocation",
            "events": [
                ev("submitted", "2026-03-02"),
                ev("incomplete_notice", "2026-03-10", items=[{"id": "A", "text": "RF"}]),
                ev("resubmitted", "2026-03-30"),
            ],
        }
    )
    assert r["shot_clock_date"] == "2026-05-01"
    assert r["reset_on"] is None
    assert "2026-05-29" in [a["shot_clock_date"] for a in r["alternatives"]]  # the reset


# -- 8.5 a tolling agreement with a new date fixes the date --------------------------------


def test_8_5_days_tolled_before_the_agreement_are_absorbed() -> None:
    # Notice Jan 15 tolls until Feb 4 (20 days); the agreement of Jan 25 sets May 1.
    # Only the 10 days after the agreement (Jan 25 -> Feb 4) extend it: May 11, not May 21.
    r = compute_json(
        {
            "category": "macro_collocation",
            "events": [
                ev("submitted", "2026-01-05"),
                ev("incomplete_notice", "2026-01-15", items=[ITEM]),
                ev("tolling_agreement", "2026-01-25", new_date="2026-05-01"),
                ev("resubmitted", "2026-02-04"),
            ],
        }
    )
    assert r["shot_clock_date"] == "2026-05-11"
    assert r["conservative_date"] == "2026-05-11"
    resubmitted = next(e for e in r["ledger"] if e["event"] == "resubmitted")
    assert "10 days before the agreement" in resubmitted["effect"]


def test_8_5_tolling_that_starts_after_the_agreement_extends_it() -> None:
    # Agreement Jan 10 sets May 1; notice Jan 15, resubmitted Jan 29: + 14 = May 15.
    r = compute_json(
        {
            "category": "macro_collocation",
            "events": [
                ev("submitted", "2026-01-05"),
                ev("tolling_agreement", "2026-01-10", new_date="2026-05-01"),
                ev("incomplete_notice", "2026-01-15", items=[ITEM]),
                ev("resubmitted", "2026-01-29"),
            ],
        }
    )
    assert r["shot_clock_date"] == "2026-05-15"


@pytest.mark.parametrize(
    ("first", "second"), [("2026-05-01", "2026-05-15"), ("2026-05-15", "2026-05-01")]
)
def test_8_5_of_two_agreements_of_one_date_the_later_in_the_input_wins(
    first: str, second: str
) -> None:
    r = compute_json(
        {
            "category": "macro_collocation",
            "events": [
                ev("submitted", "2026-01-05"),
                ev("tolling_agreement", "2026-02-02", new_date=first),
                ev("tolling_agreement", "2026-02-02", new_date=second),
            ],
        }
    )
    assert r["shot_clock_date"] == second
    assert any("two tolling agreements are dated 2026-02-02" in w for w in r["warnings"])


# -- 8.6 holidays are layers; the conservative reading rolls over the fewest ----------------


def test_8_6_a_contested_state_holiday_never_makes_an_alert_late() -> None:
    # Dec 14 2025 + 60 = Thu 2026-02-12, Lincoln Day (Gov. Code 6700, not federal).
    r = compute_json(
        {"category": "swf_collocation", "state": "CA", "events": [ev("submitted", "2025-12-14")]}
    )
    assert r["shot_clock_date"] == "2026-02-13"
    assert r["conservative_date"] == "2026-02-12"
    roll = next(e for e in r["ledger"] if e["event"] == "roll_forward")
    assert any("Lincoln Day" in n and "not counted by the conservative" in n for n in roll["notes"])


def test_8_6_the_day_after_thanksgiving_is_an_adopted_day_not_a_state_day() -> None:
    # Sep 28 + 60 = Fri 2026-11-27. California alone: no roll. Cotati adopts the day
    # (assumed schedule): Sat, Sun -> Mon 2026-11-30 under every reading.
    ca = compute_json(
        {"category": "swf_collocation", "state": "CA", "events": [ev("submitted", "2026-09-28")]}
    )
    assert ca["shot_clock_date"] == ca["conservative_date"] == "2026-11-27"
    cotati = compute_json(
        {
            "category": "swf_collocation",
            "jurisdiction": "cotati",
            "rule_pack": "federal",
            "events": [ev("submitted", "2026-09-28")],
        }
    )
    assert cotati["shot_clock_date"] == cotati["conservative_date"] == "2026-11-30"
    assert "cotati_adopted" in cotati["rules"]["layers"]


def test_8_6_a_one_off_closure_is_literal_only() -> None:
    # Jan 5 + 60 = Fri Mar 6, a local closure: literal -> Mon Mar 9, conservative Mar 6.
    r = compute_json(
        {
            "category": "swf_collocation",
            "local_holidays": ["2026-03-06"],
            "events": [ev("submitted", "2026-01-05")],
        }
    )
    assert (r["shot_clock_date"], r["conservative_date"]) == ("2026-03-09", "2026-03-06")


def test_8_6_adopted_holidays_count_in_the_conservative_reading() -> None:
    r = compute_json(
        {
            "category": "swf_collocation",
            "adopted_holidays": ["2026-03-06"],
            "events": [ev("submitted", "2026-01-05")],
        }
    )
    assert (r["shot_clock_date"], r["conservative_date"]) == ("2026-03-09", "2026-03-09")


# -- 8.7 as_of is a point of view ---------------------------------------------------------------


def test_8_7_an_event_after_as_of_is_invalid_input_naming_the_event() -> None:
    with pytest.raises(
        TimelineError,
        match=r"^events\[1\]\.date: the decision of 2026-03-02 is after as_of 2026-03-01",
    ):
        compute_json(
            {
                "category": "macro_collocation",
                "events": [
                    ev("submitted", "2026-01-05"),
                    ev("decision", "2026-03-02", outcome="approved"),
                ],
                "as_of": "2026-03-01",
            }
        )


def test_8_7_as_of_before_the_submission_awaits_it() -> None:
    r = compute_json(
        {
            "category": "macro_collocation",
            "events": [ev("pre_application", "2026-01-02")],
            "as_of": "2026-01-03",
        }
    )
    assert r["status"] == r["conservative_status"] == "awaiting_submission"


# -- 8.8 hostile input is invalid input ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"category": "macro_collocation", "category": "swf_collocation"}', "category"),
        ("[" * 5000 + "]" * 5000, "input"),
        (
            '{"category": "macro_collocation", "events": [{"type": "tolling_agreement", '
            + '"date": "2026-01-06", "days": 1'
            + "0" * 30
            + "}]}",
            "input",
        ),
    ],
)
def test_8_8_hostile_json_names_the_field(text: str, field: str) -> None:
    with pytest.raises(TimelineError) as err:
        compute_json(load_json(text))
    assert str(err.value).startswith(f"{field}:")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("event", "field"),
    [
        (ev("tolling_agreement", "2026-01-06", days=30.5), "events[1].days"),
        (ev("tolling_agreement", "2026-01-06", days="30"), "events[1].days"),
        (ev("tolling_agreement", "2026-01-06", days=10**9), "events[1].days"),
        (ev("tolling_agreement", "2026-01-06", new_date="9999-12-31"), "events[1].new_date"),
        (ev("decision", "0001-01-01", outcome="approved"), "events[1].date"),
    ],
)
def test_8_8_out_of_range_and_non_integer_values_name_the_field(event: dict, field: str) -> None:
    raw = {"category": "macro_collocation", "events": [ev("submitted", "2026-01-05"), event]}
    with pytest.raises(TimelineError) as err:
        compute_json(raw)
    assert str(err.value).startswith(f"{field}:"), err.value


def test_8_8_a_byte_order_mark_is_accepted() -> None:
    text = "\ufeff" + json.dumps(
        {"category": "macro_collocation", "events": [ev("submitted", "2025-09-02")]}
    )
    assert compute_json(load_json(text.encode("utf-8")))["shot_clock_date"] == "2025-12-01"


def test_8_8_ten_thousand_events_compute() -> None:
    # Correctness at size (the speed is measured by bench/timeline_events.py).
    events = [ev("submitted", "2026-01-05")]
    events += [ev("hearing_notice", "2026-02-01") for _ in range(9_998)]
    events.append(ev("decision", "2026-03-01", outcome="approved"))
    r = compute_json({"category": "macro_collocation", "events": events})
    assert r["status"] == "decided_on_time"
    assert len([e for e in r["ledger"] if e["event"] == "hearing_notice"]) == 9_998


# -- 8.9 a running clock keeps the rules it was opened under -------------------------------------


def test_8_9_a_frozen_calendar_and_pack_decide_whatever_the_data_files_say() -> None:
    # Frozen before the city adopted the day after Thanksgiving: Sep 28 + 60 = Nov 27 stands.
    frozen_calendar = CalendarLayers.from_dict(
        json.loads(json.dumps(jurisdiction_layers("CA").to_dict()))
    )
    data = json.loads(json.dumps(dict(rule_pack("federal").data)))
    data["categories"]["swf_collocation"]["days"] = 61  # an older pack said 61
    frozen_pack = pack_from_data(data)
    raw = {
        "category": "swf_collocation",
        "jurisdiction": "cotati",
        "rule_pack": "federal",
        "events": [ev("submitted", "2026-09-28")],
    }
    now = compute(parse_timeline(raw))
    assert now["shot_clock_date"] == "2026-11-30"
    then = compute(parse_timeline(raw, calendar=frozen_calendar))
    assert then["shot_clock_date"] == "2026-11-27"
    assert then["rules"]["calendar"] == frozen_calendar.fingerprint
    older = compute(parse_timeline(raw, pack=frozen_pack, calendar=frozen_calendar))
    assert older["period_days"] == 61
    assert older["shot_clock_date"] == "2026-11-30"  # Sep 28 + 61 = Sat Nov 28 -> Mon
    assert (
        older["rules"]["rule_pack_version"] == frozen_pack.version != rule_pack("federal").version
    )


def test_8_9_the_jurisdiction_s_layers_carry_their_sources() -> None:
    layers = jurisdiction("cotati").calendar_layers()
    adopted = layers.of_kind("adopted")[0]
    assert "NOT YET ENTERED" in (adopted.source or "")
    assert date(2026, 12, 24) in layers.closure_dates
