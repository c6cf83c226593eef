"""The storm benchmark's 08:00: a real zone's next local 08:00, and clocks whose own
reminder timer fires exactly then."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bench.harness import CATEGORIES
from bench.storm import next_eight_oclock, plan_category, storm_input
from workflows.shot_clock_support import ClockState


def test_the_zone_chosen_is_the_first_whose_08_00_comes_after_the_earliest_instant() -> None:
    earliest = datetime(2026, 12, 3, 10, 7, tzinfo=UTC)
    zone, instant = next_eight_oclock(earliest)
    local = instant.astimezone(ZoneInfo(zone))
    assert (local.hour, local.minute) == (8, 0)
    # 11:00 UTC is 08:00 at UTC-3; no zone is at UTC-2:xx in December.
    assert instant == datetime(2026, 12, 3, 11, 0, tzinfo=UTC)
    assert "/" in zone and not zone.startswith("Etc/")


@pytest.mark.parametrize("category", CATEGORIES)
def test_a_storm_clock_has_a_reminder_at_that_08_00_and_nothing_before(category: str) -> None:
    zone, fire_at = next_eight_oclock(datetime.now(UTC) + timedelta(minutes=10))
    plan = plan_category(category, zone, fire_at)
    state = ClockState(storm_input("STORM-00001", category, zone, plan))
    alerts = state.alerts(state.clock(fire_at))
    reminders = [a for a in alerts if a.kind == "reminder"]
    assert [a.fire_at for a in reminders] == [fire_at]
    assert all(a.fire_at >= fire_at for a in alerts)
