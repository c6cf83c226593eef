"""A closure day added to a frozen calendar after a clock opened (shot-clocks.md 8.10):
a business-day count moves by one business day; a calendar-day expiry that does not
roll stays where it was."""

from __future__ import annotations

from datetime import date
from typing import Any

from rules.permit_clocks import compute_permit_clock
from rules.permit_clocks.jurisdictions import base_layers

FROZEN = base_layers("cotati", "CA")


def review(snapshot: dict[str, Any]) -> dict[str, Any]:
    return compute_permit_clock(
        {
            "rule": "ca_post_entitlement_review",
            "jurisdiction": "cotati",
            "calendar_snapshot": snapshot,
            "facts": {"units": 12},
            "events": [{"type": "complete", "date": "2026-11-20"}],
        }
    )


def test_a_closure_inside_an_ab_2234_review_moves_it_by_one_business_day() -> None:
    before = review(FROZEN.to_dict())
    closed = FROZEN.with_closures([(date(2026, 12, 10), "water main break")])
    after = review(closed.to_dict())
    assert (before["due_date"], before["conservative_date"]) == ("2027-01-11", "2027-01-08")
    # The literal reading counts the closure: one business day later. The earliest
    # reading does not count local closures, so the alerts' date stays (shot-clocks.md 8.1).
    assert (after["due_date"], after["conservative_date"]) == ("2027-01-12", "2027-01-08")


def test_a_closure_on_a_weekend_moves_nothing() -> None:
    closed = FROZEN.with_closures([(date(2026, 12, 12), "")])  # a Saturday
    assert review(closed.to_dict())["due_date"] == review(FROZEN.to_dict())["due_date"]


def test_a_closure_does_not_move_a_calendar_day_expiry_that_does_not_roll() -> None:
    def expiry(snapshot: dict[str, Any]) -> dict[str, Any]:
        return compute_permit_clock(
            {
                "rule": "ca_tentative_map_expiry",
                "jurisdiction": "cotati",
                "calendar_snapshot": snapshot,
                "events": [{"type": "approved", "date": "2026-04-14"}],
            }
        )

    before = expiry(FROZEN.to_dict())
    # A closure on the expiry day itself: an expiration does not roll (permit-clocks.md §2).
    closed = FROZEN.with_closures([(date.fromisoformat(before["due_date"]), "")])
    after = expiry(closed.to_dict())
    assert (after["due_date"], after["conservative_date"]) == (
        before["due_date"],
        before["conservative_date"],
    )
