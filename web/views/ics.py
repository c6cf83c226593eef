"""iCalendar (RFC 5545) feeds: all-day events with reminders. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta


@dataclass(frozen=True)
class CalendarEvent:
    uid: str
    day: date
    summary: str
    description: str = ""
    url: str = ""
    alarms_days_before: tuple[int, ...] = field(default_factory=tuple)


def escape(text: str) -> str:
    """TEXT value escaping (RFC 5545 3.3.11)."""
    return (
        text.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
        .replace("\r", "\\n")
    )


def fold(line: str) -> str:
    """Lines longer than 75 octets are folded with CRLF and a space (RFC 5545 3.1),
    never inside a multi-byte character."""
    out: list[str] = []
    current = ""
    size = 0
    limit = 75
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > limit:
            out.append(current)
            current, size, limit = " ", 1, 75
        current += char
        size += width
    out.append(current)
    return "\r\n".join(out)


def _d(day: date) -> str:
    return day.strftime("%Y%m%d")


def build(name: str, events: Iterable[CalendarEvent], now: datetime | None = None) -> str:
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Clearance//Deadlines//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{escape(name)}",
    ]
    for event in events:
        lines += [
            "BEGIN:VEVENT",
            f"UID:{escape(event.uid)}",
            f"DTSTAMP:{stamp}",
            f"DTSTART;VALUE=DATE:{_d(event.day)}",
            f"DTEND;VALUE=DATE:{_d(event.day + timedelta(days=1))}",
            f"SUMMARY:{escape(event.summary)}",
            "TRANSP:TRANSPARENT",
        ]
        if event.description:
            lines.append(f"DESCRIPTION:{escape(event.description)}")
        if event.url:
            lines.append(f"URL:{event.url}")
        for days in event.alarms_days_before:
            lines += [
                "BEGIN:VALARM",
                "ACTION:DISPLAY",
                f"DESCRIPTION:{escape(event.summary)}",
                f"TRIGGER;RELATED=START:-P{days}D" if days else "TRIGGER;RELATED=START:PT0S",
                "END:VALARM",
            ]
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + "\r\n" for line in lines)
