"""Very long timelines: how long 10,000 events take to parse and compute.

shot-clocks.md 8.8 asks that a timeline of 10,000 events computes in under 1 s (no
quadratic passes). Typical timelines have under 20 events (bench/compute_throughput.py);
this measures the worst cases a city or a bulk import could produce, in two shapes, both
under Cotati's pack and California's calendar (so the literal, federal-pack and
calendar readings all run):

- spread: a notice or resubmission every day citing the first notice's items, with
  hearing notices, appeals and written tolling agreements, decided at the end;
- one_day: every event after the submission on one day (notices, resubmissions and
  hearing notices alternating): same-day ordering used to be quadratic.

Each figure is the median of several runs of `compute_json(load_json(text))`, what
`clearance clock compute` does after reading its input, in wall and CPU time; the ratio
to a tenth of the events shows whether the cost is linear.

    .venv/bin/python -m bench.timeline_events [--events 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import date, timedelta
from typing import Any

from rules.kernel.input import load_json
from rules.shot_clock.engine import compute_json

GOAL_SECONDS = 1.0
ITEMS = [
    {"id": "A", "text": "structural calculations", "rule": "CMC 17.44.070(A)"},
    {"id": "B", "text": "RF compliance report", "rule": "CMC 17.44.070(B)"},
]


def one_day(events: int) -> dict[str, Any]:
    """The hostile shape: every event after the submission on one day (notices and
    resubmissions alternating, with hearing notices between), as a bulk import might."""
    out: list[dict[str, Any]] = [{"type": "submitted", "date": "2026-01-05"}]
    day = "2026-01-15"
    while len(out) < events:
        kind = ("incomplete_notice", "resubmitted", "hearing_notice")[len(out) % 3]
        event: dict[str, Any] = {"type": kind, "date": day}
        if kind == "incomplete_notice":
            event["items"] = ITEMS[:1]
        out.append(event)
    return {
        "state": "CA",
        "rule_pack": "cotati-2024",
        "category": "macro_collocation",
        "events": out,
    }


SHAPES = ("spread", "one_day")


def timeline(events: int) -> dict[str, Any]:
    start = date(2026, 1, 5)
    out: list[dict[str, Any]] = [{"type": "submitted", "date": start.isoformat()}]
    day = start + timedelta(days=10)
    out.append({"type": "incomplete_notice", "date": day.isoformat(), "items": ITEMS})
    pending = True
    while len(out) < events - 1:
        day += timedelta(days=1)
        when = day.isoformat()
        if pending:
            out.append({"type": "resubmitted", "date": when})
        else:
            out.append({"type": "incomplete_notice", "date": when, "items": ITEMS[:1]})
        pending = not pending
        # A busy day: hearing notices, an appeal and an agreement on the same date.
        for kind in ("hearing_notice", "appeal", "hearing_notice"):
            if len(out) < events - 1:
                out.append({"type": kind, "date": when})
        if len(out) < events - 1 and len(out) % 50 == 0:
            out.append({"type": "tolling_agreement", "date": when, "days": 1})
    out.append(
        {"type": "decision", "date": (day + timedelta(days=1)).isoformat(), "outcome": "approved"}
    )
    # Cotati's pack and California's calendar with two closures (spelled out rather than
    # "jurisdiction": "cotati" so that earlier code, which lacks that field, can run it).
    return {
        "state": "CA",
        "rule_pack": "cotati-2024",
        "local_holidays": ["2026-12-24", "2026-12-31"],
        "category": "macro_collocation",
        "events": out,
    }


def measure(events: int, runs: int, shape: str = "spread") -> tuple[float, float, dict[str, Any]]:
    """Median wall and CPU seconds of parse + compute (CPU: fair on a shared machine)."""
    text = json.dumps(timeline(events) if shape == "spread" else one_day(events))
    times: list[float] = []
    cpu: list[float] = []
    result: dict[str, Any] = {}
    for _ in range(runs):
        begin, cpu_begin = time.perf_counter(), time.process_time()
        result = compute_json(load_json(text))
        times.append(time.perf_counter() - begin)
        cpu.append(time.process_time() - cpu_begin)
    return statistics.median(times), statistics.median(cpu), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    worst = 0.0
    for shape in SHAPES:
        small, small_cpu, _ = measure(args.events // 10, args.runs, shape)
        large, large_cpu, result = measure(args.events, args.runs, shape)
        print(f"{shape}:")
        for n, wall, cpu in (
            (args.events // 10, small, small_cpu),
            (args.events, large, large_cpu),
        ):
            print(
                f"  {n:>7,} events: {wall * 1000:8.1f} ms wall, {cpu * 1000:8.1f} ms CPU "
                f"(median of {args.runs})"
            )
        print(f"  ratio for 10x the events: {large_cpu / small_cpu:.1f} (CPU; 10 = linear)")
        print(
            f"  result: {result['status']} / conservative {result['conservative_status']}, "
            f"{len(result['ledger']):,} ledger lines"
        )
        worst = max(worst, large_cpu)
    # The goal is judged on CPU time: on a shared machine wall time also counts the time
    # other processes held the core (both are printed).
    verdict = "PASS" if worst < GOAL_SECONDS else "FAIL"
    print(f"goal < {GOAL_SECONDS:.0f} s (CPU) for {args.events:,} events, every shape: {verdict}")


if __name__ == "__main__":
    main()
