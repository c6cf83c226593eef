"""A permit clock's timeline: start, due date, an extension granted, the hard stop, a
pause and today, drawn from the compute contract and the events, for any rule."""

from __future__ import annotations

from datetime import date

from rules.permit_clocks import compute_permit_clock
from web.views.permit_timeline import permit_picture


def test_the_picture_shows_due_date_extensions_hard_stop_and_pauses() -> None:
    events = [
        {"type": "approved", "date": "2026-01-05"},
        {"type": "extension_requested", "date": "2026-06-01"},
        {"type": "extension_granted", "date": "2026-06-10", "days": 180},
    ]
    clock = compute_permit_clock(
        {
            "rule": "building_permit_expiry",
            "jurisdiction": "cotati",
            "events": events,
            "facts": {"term_limit_months": 36},
            "as_of": "2026-07-01",
        }
    )
    pic = permit_picture(
        clock,
        [(e["type"], e["date"]) for e in events] + [("paused", "2026-06-15")],
        date(2026, 7, 1),
    )
    assert pic is not None
    kinds = {m.kind: m for m in pic.markers}
    assert kinds["deadline"].day == date.fromisoformat(clock["due_date"])
    assert kinds["alternative"].label == "extension granted Wed 10 Jun 2026"
    assert "review" in kinds  # the hard stop
    assert [b.kind for b in pic.bands].count("tolled") == 1  # still paused
    assert any(s.startswith("Hard stop: no extension goes past") for s in pic.sentences)
    assert any(s.startswith("Due (literal reading)") for s in pic.sentences)


def test_no_picture_before_the_clock_starts() -> None:
    assert permit_picture({"start_date": None}, [], date(2026, 7, 1)) is None
