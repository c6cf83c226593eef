"""When a permit clock's workflow should wake: reminders before the conservative date
(business days for business-day clocks) and the lapse escalation the day after it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from rules.kernel.counting import ONE_DAY, subtract_business_days
from rules.permit_clocks.compute import compute_request
from rules.permit_clocks.request import PermitRequest, parse_request

DEFAULT_OFFSETS = (30, 14, 7, 3, 1)


@dataclass(frozen=True)
class Reminder:
    """One alert: `kind` "reminder" (offset units before `due_date`) or "lapse"."""

    rule: str
    path: str  # "parent>child" for a chained clock
    kind: str
    date: date
    offset: int
    unit: str  # "days" or "business_days"
    due_date: dt.date
    consequence: str | None


def _clocks(result: dict[str, Any], path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    here = f"{path}>{result['rule']}" if path else result["rule"]
    yield here, result
    for child in result["next"]:
        yield from _clocks(child, here)


def reminder_plan(
    request: dict[str, Any] | PermitRequest,
    offsets: Sequence[int] = DEFAULT_OFFSETS,
    result: dict[str, Any] | None = None,
) -> list[Reminder]:
    """Every alert for the clock and its chained clocks, in date order. Only running
    clocks with a conservative date get alerts (a paused clock has none until it
    resumes). Dates already past are included; the caller skips what is behind it."""
    if any(isinstance(o, bool) or not isinstance(o, int) or o <= 0 for o in offsets):
        raise ValueError("offsets: each must be a positive whole number of days")
    parsed = request if isinstance(request, PermitRequest) else parse_request(request)
    if result is None:
        result = compute_request(parsed)
    closed = parsed.calendar.closed("business_days", "conservative")
    plan: list[Reminder] = []
    for path, clock in _clocks(result):
        if clock["conservative_status"] != "running" or clock["conservative_date"] is None:
            continue
        due = date.fromisoformat(clock["conservative_date"])
        unit = "business_days" if clock["counting"] == "business_days" else "days"
        for offset in sorted(set(offsets), reverse=True):
            when = (
                subtract_business_days(due, offset, closed)
                if unit == "business_days"
                else due - timedelta(days=offset)
            )
            plan.append(
                Reminder(
                    clock["rule"], path, "reminder", when, offset, unit, due, clock["consequence"]
                )
            )
        plan.append(
            Reminder(
                clock["rule"], path, "lapse", due + ONE_DAY, 0, unit, due, clock["consequence"]
            )
        )
    return sorted(plan, key=lambda r: (r.date, r.path, r.kind))
