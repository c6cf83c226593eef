"""Alert planning (reference §3 last paragraph, §7): reminders before the conservative
date at 08:00 local time, expiry escalation at the start of the next day, window alerts
for open notice windows, judicial-review reminders once deemed approved.

Expected instants are written out in UTC by hand. America/Los_Angeles is UTC-8 (PST)
until Sun 2026-03-08 02:00 and from Sun 2026-11-01 02:00, UTC-7 (PDT) in between.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from rules.shot_clock.alerts import plan_alerts
from rules.shot_clock.engine import compute_json

LA = "America/Los_Angeles"
REMINDERS = [30, 14, 7, 3, 1]
WINDOW_OFFSETS = [3, 1]
REVIEW_OFFSETS = [14, 7, 3, 1, 0]


def utc(y: int, m: int, d: int, hh: int, mm: int = 0) -> datetime:
    return datetime(y, m, d, hh, mm, tzinfo=UTC)


def clock(
    status: str = "running",
    conservative: str | None = "2026-04-06",
    windows: list[dict[str, Any]] | None = None,
    review: str | None = None,
) -> dict[str, Any]:
    return {
        "status": status,
        "shot_clock_date": conservative,
        "conservative_date": conservative,
        "judicial_review_deadline": review,
        "notice_windows": windows or [],
    }


def window(kind: str, closes: str, state: str) -> dict[str, Any]:
    return {"kind": kind, "closes": closes, "rule": "47 CFR 1.6003(d)(2)", "state": state}


def plan(c: dict[str, Any], time_zone: str = LA, **offsets: list[int]) -> list[Any]:
    return plan_alerts(
        c,
        time_zone=time_zone,
        reminder_offsets=offsets.get("reminders", REMINDERS),
        window_alert_offsets=offsets.get("windows", WINDOW_OFFSETS),
        judicial_review_offsets=offsets.get("review", REVIEW_OFFSETS),
    )


def by_kind(alerts: list[Any], kind: str) -> list[Any]:
    return [a for a in alerts if a.kind == kind]


# ------------------------------------------------------------------------------ reminders


def test_reminders_at_8am_local_across_the_spring_dst_change() -> None:
    # Conservative date Mon 2026-04-06.
    alerts = plan(clock())
    assert [(a.key, a.fire_at) for a in by_kind(alerts, "reminder")] == [
        # Apr 6 − 30 = Sat Mar 7, still PST: 08:00 − (−8 h) = 16:00 UTC
        ("reminder:2026-04-06:30d", utc(2026, 3, 7, 16)),
        # Apr 6 − 14 = Mar 23, PDT: 15:00 UTC
        ("reminder:2026-04-06:14d", utc(2026, 3, 23, 15)),
        ("reminder:2026-04-06:7d", utc(2026, 3, 30, 15)),
        ("reminder:2026-04-06:3d", utc(2026, 4, 3, 15)),
        ("reminder:2026-04-06:1d", utc(2026, 4, 5, 15)),
    ]
    assert [a.details["offset_days"] for a in by_kind(alerts, "reminder")] == REMINDERS


def test_reminders_across_the_autumn_dst_change() -> None:
    # Conservative date Fri 2026-11-20: Oct 21 is PDT, Nov 6 onwards PST.
    alerts = by_kind(plan(clock(conservative="2026-11-20")), "reminder")
    assert [a.fire_at for a in alerts] == [
        utc(2026, 10, 21, 15),
        utc(2026, 11, 6, 16),
        utc(2026, 11, 13, 16),
        utc(2026, 11, 17, 16),
        utc(2026, 11, 19, 16),
    ]


def test_reminders_in_another_time_zone() -> None:
    # New York in April is EDT (UTC-4): 08:00 local = 12:00 UTC.
    alerts = by_kind(plan(clock(), time_zone="America/New_York"), "reminder")
    assert alerts[-1].fire_at == utc(2026, 4, 5, 12)


def test_reminder_offsets_are_configurable_and_deduplicated() -> None:
    alerts = by_kind(plan(clock(), reminders=[7, 2, 7]), "reminder")
    assert [a.key for a in alerts] == ["reminder:2026-04-06:7d", "reminder:2026-04-06:2d"]


# ------------------------------------------------------------------------------ expiry


def test_expiry_escalation_at_the_start_of_the_next_day() -> None:
    # The clock runs out at the end of Apr 6: Apr 7 00:00 PDT = Apr 7 07:00 UTC.
    (expiry,) = by_kind(plan(clock()), "expiry_escalation")
    assert expiry.key == "expiry:2026-04-06"
    assert expiry.fire_at == utc(2026, 4, 7, 7)
    assert expiry.details == {"expired_on": "2026-04-06"}


def test_expiry_escalation_in_winter() -> None:
    # Nov 21 00:00 PST = 08:00 UTC.
    (expiry,) = by_kind(plan(clock(conservative="2026-11-20")), "expiry_escalation")
    assert expiry.fire_at == utc(2026, 11, 21, 8)


def test_alerts_are_in_firing_order() -> None:
    alerts = plan(clock(windows=[window("first_notice", "2026-02-04", "open")]))
    assert [a.fire_at for a in alerts] == sorted(a.fire_at for a in alerts)
    assert alerts[-1].kind == "expiry_escalation"


# ------------------------------------------------------------------------ notice windows


def test_window_alerts_only_for_open_windows() -> None:
    c = clock(
        windows=[
            window("first_notice", "2026-02-04", "used"),
            window("later_notice", "2026-02-08", "lapsed"),
            window("later_notice", "2026-03-02", "open"),
        ]
    )
    alerts = by_kind(plan(c), "window_closing")
    assert [(a.key, a.fire_at) for a in alerts] == [
        # Mar 2 − 3 = Feb 27 08:00 PST = 16:00 UTC; Mar 1 likewise.
        ("window:later_notice:2026-03-02:3d", utc(2026, 2, 27, 16)),
        ("window:later_notice:2026-03-02:1d", utc(2026, 3, 1, 16)),
    ]


def test_reset_window_alerts_without_a_date() -> None:
    # While an SWF reset is pending there is no date (no reminders), but an open window
    # still gets its alerts.
    c = clock(
        status="running", conservative=None, windows=[window("reset_notice", "2026-01-15", "open")]
    )
    alerts = plan(c)
    assert [a.kind for a in alerts] == ["window_closing", "window_closing"]
    # Jan 15 − 3 = Jan 12 08:00 PST = 16:00 UTC.
    assert alerts[0].fire_at == utc(2026, 1, 12, 16)


# ---------------------------------------------------------------------- judicial review


def test_judicial_review_reminders_when_deemed_approved() -> None:
    c = clock(
        status="deemed_approved",
        review="2026-05-10",
        windows=[window("later_notice", "2026-05-01", "open")],
    )
    alerts = plan(c)
    assert {a.kind for a in alerts} == {"judicial_review_reminder"}
    assert [(a.key, a.fire_at) for a in alerts] == [
        # May 10 − 14 = Apr 26, 08:00 PDT = 15:00 UTC, ... through the day itself.
        ("judicial-review:2026-05-10:14d", utc(2026, 4, 26, 15)),
        ("judicial-review:2026-05-10:7d", utc(2026, 5, 3, 15)),
        ("judicial-review:2026-05-10:3d", utc(2026, 5, 7, 15)),
        ("judicial-review:2026-05-10:1d", utc(2026, 5, 9, 15)),
        ("judicial-review:2026-05-10:0d", utc(2026, 5, 10, 15)),
    ]


@pytest.mark.parametrize("status", ["running", "expired", "decided_late", "deemed_granted"])
def test_no_judicial_review_reminders_unless_deemed_approved(status: str) -> None:
    alerts = plan(clock(status=status, review="2026-05-10"))
    assert by_kind(alerts, "judicial_review_reminder") == []


# ---------------------------------------------------------------------- terminal statuses


@pytest.mark.parametrize(
    "status", ["decided_on_time", "decided_late", "withdrawn", "deemed_granted"]
)
def test_nothing_for_terminal_statuses(status: str) -> None:
    c = clock(status=status, windows=[window("later_notice", "2026-03-02", "open")])
    assert plan(c) == []


def test_deemed_approved_gets_only_judicial_review_reminders() -> None:
    c = clock(status="deemed_approved", review=None)
    assert plan(c) == []


@pytest.mark.parametrize("status", ["tolled", "reset_pending"])
def test_paused_clock_has_no_reminders(status: str) -> None:
    alerts = plan(clock(status=status, conservative=None))
    assert alerts == []


def test_expired_clock_keeps_its_escalation() -> None:
    alerts = plan(clock(status="expired"))
    assert len(by_kind(alerts, "expiry_escalation")) == 1


# ------------------------------------------------------------------- keys follow the date


def computed(*events: dict[str, Any], as_of: str | None = None) -> dict[str, Any]:
    raw: dict[str, Any] = {"category": "macro_collocation", "events": list(events)}
    if as_of is not None:
        raw["as_of"] = as_of
    return compute_json(raw)


SUB = {"type": "submitted", "date": "2026-01-06"}


def test_keys_change_when_the_date_moves() -> None:
    # Jan 6 + 90 = Apr 6; with a 30-day agreement Apr 6 + 30 = May 6 (Wed).
    before = plan(computed(SUB, as_of="2026-01-20"))
    after = plan(
        computed(
            SUB,
            {"type": "tolling_agreement", "date": "2026-01-20", "days": 30},
            as_of="2026-01-20",
        )
    )

    def date_keys(alerts: list[Any]) -> set[str]:
        return {a.key for a in alerts if a.kind in {"reminder", "expiry_escalation"}}

    assert all("2026-04-06" in k for k in date_keys(before))
    assert all("2026-05-06" in k for k in date_keys(after))
    assert date_keys(before).isdisjoint(date_keys(after))
    # The open first-notice window (Jan 6 + 30 = Feb 5) did not move: same keys.

    def window_keys(alerts: list[Any]) -> set[str]:
        return {a.key for a in by_kind(alerts, "window_closing")}

    assert (
        window_keys(before)
        == window_keys(after)
        == {
            "window:first_notice:2026-02-05:3d",
            "window:first_notice:2026-02-05:1d",
        }
    )


def test_same_clock_same_keys() -> None:
    assert [a.key for a in plan(computed(SUB))] == [a.key for a in plan(computed(SUB))]


def test_alerts_follow_the_conservative_date() -> None:
    # Reset with an incomplete resubmission (see test_golden_tolling): literal Jun 9, the
    # first-resubmission reading Jun 4. Reminders and escalation use Jun 4.
    result = compute_json(
        {
            "category": "swf_collocation",
            "events": [
                {"type": "submitted", "date": "2026-03-02"},
                {
                    "type": "incomplete_notice",
                    "date": "2026-03-10",
                    "items": [{"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}],
                },
                {"type": "resubmitted", "date": "2026-03-20"},
                {
                    "type": "incomplete_notice",
                    "date": "2026-03-25",
                    "items": [{"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}],
                },
                {"type": "resubmitted", "date": "2026-04-10"},
            ],
        }
    )
    assert (result["shot_clock_date"], result["conservative_date"]) == ("2026-06-09", "2026-06-04")
    alerts = plan(result)
    (expiry,) = by_kind(alerts, "expiry_escalation")
    assert expiry.key == "expiry:2026-06-04"
    # Jun 5 00:00 PDT = 07:00 UTC.
    assert expiry.fire_at == utc(2026, 6, 5, 7)
    assert {a.details["date"] for a in by_kind(alerts, "reminder")} == {"2026-06-04"}
    # Jun 4 − 1 = Jun 3 08:00 PDT = 15:00 UTC.
    assert by_kind(alerts, "reminder")[-1].fire_at == utc(2026, 6, 3, 15)


def test_windows_from_the_engine_alert_only_while_open() -> None:
    # §5 example: notice Jan 15 uses the first window; resubmission Jan 29 opens a later
    # window closing Feb 8. Open on Jan 30, lapsed on Mar 1.
    events = (
        {"type": "submitted", "date": "2026-01-05"},
        {
            "type": "incomplete_notice",
            "date": "2026-01-15",
            "items": [{"id": "A", "text": "RF report", "rule": "CMC 17.44.070(A)"}],
        },
        {"type": "resubmitted", "date": "2026-01-29"},
    )
    open_now = by_kind(plan(computed(*events, as_of="2026-01-30")), "window_closing")
    assert [a.key for a in open_now] == [
        "window:later_notice:2026-02-08:3d",
        "window:later_notice:2026-02-08:1d",
    ]
    assert by_kind(plan(computed(*events, as_of="2026-03-01")), "window_closing") == []
