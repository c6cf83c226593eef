"""A permit clock on a timeline: its start, the due date (both readings), the extensions
granted, the hard stop, the pauses and today. Pure: the permit page draws the SVG from
these numbers with the same macro as the wireless clocks (web/views/timeline_svg.py) and
prints the sentences as the picture's text equivalent. Generic over every rule: it reads
only the compute contract's output and the events recorded."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from web.views.present import human_date
from web.views.timeline_svg import (
    AXIS_Y,
    WIDTH,
    Band,
    ClockPicture,
    Scale,
    place_points,
)

PAUSE_STARTS = ("paused",)
PAUSE_ENDS = ("resumed",)
EXTENSIONS = ("extension_granted", "extension_agreed")


def _d(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def _pauses(events: Sequence[tuple[str, str]], today: date) -> list[tuple[date, date]]:
    out: list[tuple[date, date]] = []
    since: date | None = None
    for kind, when in sorted(events, key=lambda e: e[1]):
        day = _d(when)
        if day is None:
            continue
        if kind in PAUSE_STARTS and since is None:
            since = day
        elif kind in PAUSE_ENDS and since is not None:
            out.append((since, day))
            since = None
    if since is not None:
        out.append((since, max(today, since)))
    return out


def permit_picture(
    clock: dict[str, Any], events: Sequence[tuple[str, str]], today: date
) -> ClockPicture | None:
    """The picture of one permit clock, or None before it has started."""
    start = _d(clock.get("start_date"))
    if start is None:
        return None
    due = _d(clock.get("due_date"))
    conservative = _d(clock.get("conservative_date"))
    hard_stop = _d(clock.get("hard_stop"))
    pauses = _pauses(events, today)
    granted = sorted(d for d in (_d(w) for k, w in events if k in EXTENSIONS) if d)
    days = [start, today, *[d for d in (due, conservative, hard_stop) if d]]
    days += [b for _, b in pauses] + granted
    first, last = min(days), max(days)
    pad = max(2, (last - first).days // 30)
    scale = Scale(first - timedelta(days=pad), last + timedelta(days=pad))

    end = conservative or due or max(today, start)
    bands = [
        Band(
            "clock",
            start,
            end,
            scale.x(start),
            max(1.0, scale.x(end) - scale.x(start)),
            AXIS_Y - 14,
            14,
            "the clock runs",
        )
    ]
    for a, b in pauses:
        bands.append(
            Band(
                "tolled",
                a,
                b,
                scale.x(a),
                max(2.0, scale.x(b) - scale.x(a)),
                AXIS_Y - 14,
                14,
                "paused" if b != today else "paused (still paused)",
            )
        )
    if hard_stop and hard_stop > end:
        bands.append(
            Band(
                "window",
                end,
                hard_stop,
                scale.x(end),
                max(2.0, scale.x(hard_stop) - scale.x(end)),
                AXIS_Y - 30,
                6,
                "room left for extensions before the hard stop",
            )
        )

    points: list[tuple[str, date, str]] = [("start", start, f"start {human_date(start)}")]
    for day in granted:
        points.append(("alternative", day, f"extension granted {human_date(day)}"))
    if due:
        points.append(("deadline", due, f"due {human_date(due)}"))
    if conservative and conservative != due:
        points.append(
            ("conservative", conservative, f"earliest reading {human_date(conservative)}")
        )
    if hard_stop:
        points.append(("review", hard_stop, f"hard stop {human_date(hard_stop)}"))
    points.append(("today", today, f"today {human_date(today)}"))
    unique, markers, ticks, height = place_points(points, scale, first)
    return ClockPicture(
        WIDTH, height, bands, markers, ticks, _sentences(bands, unique), scale=scale
    )


def _sentences(bands: list[Band], points: list[tuple[str, date, str]]) -> list[str]:
    said: list[tuple[date, str]] = []
    for b in bands:
        if b.kind == "clock":
            said.append((b.start, f"The clock starts {human_date(b.start)}."))
        elif b.kind == "tolled":
            said.append(
                (b.start, f"Paused {human_date(b.start)} to {human_date(b.end)}: {b.label}.")
            )
    words = {
        "alternative": "Extension granted",
        "deadline": "Due (literal reading)",
        "conservative": "Earliest reading (drives every alert)",
        "review": "Hard stop: no extension goes past",
        "today": "Today is",
    }
    for kind, day, _ in points:
        if kind in words:
            said.append((day, f"{words[kind]} {human_date(day)}."))
    return [s for _, s in sorted(said, key=lambda p: p[0])]
