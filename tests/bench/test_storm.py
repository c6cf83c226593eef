"""The storm benchmark's 08:00: a real zone's next local 08:00, and clocks whose own
reminder timer fires exactly then."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bench.harness import CATEGORIES
from bench.host import calibrate, go_gc_cpu, host_used, parse_proc_stat
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


def test_the_host_figures_say_how_much_of_the_window_was_stolen_and_not_the_benchmarks() -> None:
    ticks = 100
    before = parse_proc_stat("cpu  100 0 50 1000 10 0 0 0 0 0\ncpu0 1 2 3\n", ticks)
    # 10 s on 2 cores: 12 s busy (user 8, system 4), 2 s iowait, 1 s steal, 5 s idle.
    after = parse_proc_stat("cpu  900 0 450 1500 210 0 0 100 0 0\n", ticks)
    used = host_used(before, after, processes_cpu=9.5, cores=2)
    assert used == {
        "window_s": 10.0,
        "busy_pct": 60.0,
        "iowait_pct": 10.0,
        "steal_pct": 5.0,
        "idle_pct": 25.0,
        "other_busy_s": 2.5,
    }
    assert host_used(None, after, 1.0, 2) == {}


def test_a_proc_stat_without_the_aggregate_line_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no aggregate 'cpu' line"):
        parse_proc_stat("intr 1 2 3\n", 100)


def test_the_calibration_times_the_same_work_in_cpu_and_wall_time() -> None:
    figures = calibrate(rounds=2_000)
    assert figures["cpu_ms"] > 0
    assert figures["wall_ms"] >= figures["cpu_ms"] * 0.9


def test_the_servers_collections_are_counted_only_inside_the_window() -> None:
    trace = "\n".join(
        [
            "gc 1 @1.000s 5%: 0.01+4.9+0.03 ms clock, 1.0+2.0/3.0/4.0+5.0 ms cpu, 3->4->2 MB",
            "2026/12/05 warn something else the server logged",
            "gc 2 @10.500s 4%: 0.03+3.2+0.00 ms clock, 10+20/30/40+50 ms cpu, 4->5->3 MB",
            "gc 3 @30.000s 4%: 0.03+3.2+0.00 ms clock, 100+0/0/0+5 ms cpu, 4->5->3 MB",
        ]
    )
    # Started at Unix time 1000: the window 1005-1020 holds only the second collection.
    assert go_gc_cpu(trace, 1000.0, (1005.0, 1020.0)) == {"cycles": 1, "cpu_s": 0.15}
    assert go_gc_cpu(trace, 1000.0, (1000.0, 1040.0)) == {"cycles": 3, "cpu_s": 0.27}
