"""Alert primitives every clock and the conditions share: an alert keyed by the date it
is about, and the city's local time (reminders go out at 08:00 there). Pure."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

SEND_AT = time(8, 0)  # reminders go out at 8 a.m. in the city's time zone


@dataclass(frozen=True)
class Alert:
    key: str
    kind: str
    fire_at: datetime  # UTC
    details: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


def local_instant(day: date, at: time, time_zone: str) -> datetime:
    """The UTC instant of a wall-clock time on a day in the jurisdiction."""
    return datetime.combine(day, at, tzinfo=ZoneInfo(time_zone)).astimezone(UTC)


def local_today(now: datetime, time_zone: str) -> date:
    return now.astimezone(ZoneInfo(time_zone)).date()
