"""The pictures' geometry (pure): where each day falls, tolled stretches and windows,
labels that never overlap, and words that say what the picture shows."""

from __future__ import annotations

from datetime import date

from web.views.timeline_svg import (
    CHAR_WIDTH,
    WIDTH,
    Scale,
    clock_picture,
    progress_picture,
    stack_labels,
)

TODAY = date(2026, 2, 10)
CLOCK = {
    "start_date": "2026-01-05",
    "shot_clock_date": None,
    "conservative_date": None,
    "notice_windows": [{"kind": "first_notice", "closes": "2026-02-04", "state": "used"}],
    "alternatives": [{"reading": "federal 47 CFR 1.6003", "shot_clock_date": "2026-06-01"}],
}
EVENTS = [("submitted", "2026-01-05"), ("incomplete_notice", "2026-01-26")]


def test_the_scale_maps_days_in_order_within_the_margins() -> None:
    scale = Scale(date(2026, 1, 1), date(2026, 12, 31))
    xs = [scale.x(date(2026, m, 1)) for m in range(1, 13)]
    assert xs == sorted(xs) and xs[0] == scale.left and scale.x(scale.end) == scale.right


def test_labels_on_one_row_never_overlap() -> None:
    labels = [(100.0, "start Mon 5 Jan 2026"), (110.0, "today Tue 10 Feb 2026"), (400.0, "x")]
    rows = stack_labels(labels)
    assert rows == [0, 1, 0]
    for row in set(rows):
        spans = sorted(
            (x - len(t) * CHAR_WIDTH / 2, x + len(t) * CHAR_WIDTH / 2)
            for (x, t), r in zip(labels, rows, strict=True)
            if r == row
        )
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))


def test_an_outstanding_notice_is_a_tolled_stretch_up_to_today() -> None:
    pic = clock_picture(CLOCK, EVENTS, "tolled", TODAY)
    tolled = [b for b in pic.bands if b.kind == "tolled"]
    assert [(b.start, b.end) for b in tolled] == [(date(2026, 1, 26), TODAY)]
    assert tolled[0].label == "tolled (notice outstanding)"
    window = next(b for b in pic.bands if b.kind == "window")
    assert (window.start, window.end) == (date(2026, 1, 5), date(2026, 2, 4))
    kinds = {m.kind: m for m in pic.markers}
    assert {"start", "today", "alternative"} <= set(kinds)
    assert kinds["start"].x < kinds["today"].x < kinds["alternative"].x <= WIDTH
    words = " ".join(pic.sentences)
    assert "Tolled (notice outstanding): Mon 26 Jan 2026 to Tue 10 Feb 2026 (15 days)." in words
    assert "Another reading (federal 47 CFR 1.6003) gives Mon 1 Jun 2026." in words
    assert "Today is Tue 10 Feb 2026." in words


def test_after_a_resubmission_the_stretch_ends_and_the_deadline_shows() -> None:
    clock = {
        **CLOCK,
        "shot_clock_date": "2026-06-17",
        "conservative_date": "2026-06-01",
        "notice_windows": [
            *CLOCK["notice_windows"],
            {"kind": "later_notice", "closes": "2026-02-24", "state": "open"},
        ],
    }
    events = [*EVENTS, ("resubmitted", "2026-02-14")]
    pic = clock_picture(clock, events, "running", date(2026, 2, 20))
    tolled = [b for b in pic.bands if b.kind == "tolled"]
    assert [(b.start, b.end) for b in tolled] == [(date(2026, 1, 26), date(2026, 2, 14))]
    later = [b for b in pic.bands if b.kind == "window"][1]
    assert later.start == date(2026, 2, 14)  # a later notice's window opens at the resubmission
    kinds = [m.kind for m in pic.markers]
    assert "deadline" in kinds and "conservative" in kinds
    # The other reading equals the conservative date: one marker, not two.
    assert kinds.count("alternative") == 0
    assert pic.sentences[-1].startswith("Shot clock date (literal reading): Wed 17 Jun 2026")


def test_milestone_progress_bars() -> None:
    milestones = [
        {
            "milestone": "grading_permit",
            "gated": 4,
            "resolved": 1,
            "blockers": 3,
            "target": "2026-03-01",
            "signed_off": False,
            "monitored": False,
        },
        {
            "milestone": "occupancy",
            "gated": 2,
            "resolved": 2,
            "blockers": 0,
            "target": None,
            "signed_off": True,
            "monitored": False,
        },
        {
            "milestone": "unused",
            "gated": 0,
            "resolved": 0,
            "blockers": 0,
            "target": None,
            "signed_off": False,
            "monitored": False,
        },
    ]
    pic = progress_picture(milestones, {"grading_permit": "Grading permit"}, TODAY)
    assert [r.milestone for r in pic.rows] == ["grading_permit", "occupancy"]
    grading, occupancy = pic.rows
    assert grading.done_width == grading.bar_width / 4
    assert occupancy.done_width == occupancy.bar_width
    assert grading.sentence == (
        "Grading permit: 1 of 4 conditions resolved, 3 still block it; "
        "target Sun 1 Mar 2026 (19 days left)."
    )
    assert "signed off" in occupancy.sentence
