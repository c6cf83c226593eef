"""One very long timeline: how long 10,000 events take to parse and compute.

shot-clocks.md 8.8 asks that a timeline of 10,000 events computes in under 1 s (no
quadratic passes). The timeline is the worst case a city could produce rather than a
typical one (typical timelines have under 20 events; see bench/compute_throughput.py):
a Cotati clock (so the literal, federal-pack and calendar readings all run) with
notice / resubmission cycles every few days citing the first notice's items, written
tolling agreements, hearing notices and appeals, many of them on the same day (which
used to be quadratic), decided at the end. The figure is the median of several runs of
`compute_json(load_json(text))`, i.e. what `clearance clock compute` does after reading
its input; the ratio to a 1,000-event timeline shows whether the cost is linear.

    .venv/bin/python -m bench.timeline_events [--events 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import date, timedelta
from typing import Any

from rules.shot_clock import compute_json
from rules.timeline import load_json

GOAL_SECONDS = 1.0
ITEMS = [
    {"id": "A", "text": "structural calculations", "rule": "CMC 17.44.070(A)"},
    {"id": "B", "text": "RF compliance report", "rule": "CMC 17.44.070(B)"},
]


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
    return {"jurisdiction": "cotati", "category": "macro_collocation", "events": out}


def measure(events: int, runs: int) -> tuple[float, dict[str, Any]]:
    text = json.dumps(timeline(events))
    times: list[float] = []
    result: dict[str, Any] = {}
    for _ in range(runs):
        begin = time.perf_counter()
        result = compute_json(load_json(text))
        times.append(time.perf_counter() - begin)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    small, _ = measure(args.events // 10, args.runs)
    large, result = measure(args.events, args.runs)
    print(f"{args.events // 10:>7,} events: {small * 1000:8.1f} ms (median of {args.runs})")
    print(f"{args.events:>7,} events: {large * 1000:8.1f} ms (median of {args.runs})")
    print(f"ratio for 10x the events: {large / small:.1f} (10 = linear)")
    print(
        f"result: {result['status']} / conservative {result['conservative_status']}, "
        f"{len(result['ledger']):,} ledger lines, {len(result['alternatives'])} alternatives"
    )
    verdict = "PASS" if large < GOAL_SECONDS else "FAIL"
    print(f"goal < {GOAL_SECONDS:.0f} s for {args.events:,} events: {verdict}")


if __name__ == "__main__":
    main()
