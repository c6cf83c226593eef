"""iCalendar (RFC 5545) feeds: all-day events with reminders, written by the icalendar
library (escaping, line folding at 75 octets, CRLF line ends). Pure: no I/O."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from icalendar import Alarm, Calendar, Event


@dataclass(frozen=True)
class CalendarEvent:
    uid: str
    day: date
    summary: str
    description: str = ""
    url: str = ""
    alarms_days_before: tuple[int, ...] = field(default_factory=tuple)


def build(name: str, events: Iterable[CalendarEvent], now: datetime | None = None) -> str:
    stamp = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    calendar = Calendar()
    calendar.add("prodid", "-//Clearance//Deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", name)
    for item in events:
        event = Event()
        event.add("uid", item.uid)
        event.add("dtstamp", stamp)
        event.add("dtstart", item.day)
        event.add("dtend", item.day + timedelta(days=1))
        event.add("summary", item.summary)
        event.add("transp", "TRANSPARENT")
        if item.description:
            event.add("description", item.description)
        if item.url:
            event.add("url", item.url)
        for days in item.alarms_days_before:
            alarm = Alarm()
            alarm.add("action", "DISPLAY")
            alarm.add("description", item.summary)
            alarm.add("trigger", timedelta(days=-days), parameters={"RELATED": "START"})
            event.add_component(alarm)
        calendar.add_component(event)
    return calendar.to_ical().decode("utf-8")
