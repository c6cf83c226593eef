"""A permit clock's page offers only the events its rules act on, each with only the
fields the rules core takes for it."""

from __future__ import annotations

from web.views.permit_events import event_offers


def test_a_started_building_permit_offers_its_own_events_with_their_fields() -> None:
    offers = {
        o.type: o
        for o in event_offers({"rule": "building_permit_expiry", "start_date": "2026-01-05"})
    }
    assert "approved" not in offers  # it has started
    assert "decision" not in offers and "appeal_filed" not in offers  # another rule's
    assert offers["inspection"].fields == ("result", "qualifying")
    assert offers["inspection"].label == "Inspection"
    assert set(offers["extension_granted"].fields) >= {"days", "months"}
    assert offers["exercised"].fields == ()


def test_a_sign_appeal_offers_the_decision_and_withdrawal() -> None:
    offers = event_offers({"rule": "cotati_sign_appeal_decision", "start_date": "2026-09-01"})
    assert [o.type for o in offers] == ["decision", "withdrawn"]
    assert offers[0].fields == ("outcome",) and offers[0].label == "Decision made"


def test_a_chained_rule_brings_its_events() -> None:
    clock = {
        "rule": "ca_psa_completeness",
        "start_date": "2026-01-05",
        "next": [{"rule": "ca_haa_consistency", "start_date": None, "next": []}],
    }
    types = [o.type for o in event_offers(clock)]
    assert "complete" in types and len(types) == len(set(types))
