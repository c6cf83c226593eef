"""Geometry of the pictures: a clock's timeline and a project's milestone progress.

Pure: dates and counts in, positions and sentences out. The templates draw the SVG from
these numbers and print the sentences as the text equivalent for screen readers, so the
picture and its words always say the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from web.views.present import days_left_phrase, human_date, window_label

WIDTH = 960  # the SVG's user units; it scales to the page
MARGIN = 24
AXIS_Y = 70
LABEL_ROW = 15  # px between stacked marker labels
CHAR_WIDTH = 6.2  # an estimate of a label's width per character at the chart's font size


@dataclass(frozen=True)
class Scale:
    start: date
    end: date
    left: float = MARGIN
    right: float = WIDTH - MARGIN

    def x(self, day: date) -> float:
        span = max(1, (self.end - self.start).days)
        return round(self.left + (day - self.start).days / span * (self.right - self.left), 1)


@dataclass(frozen=True)
class Band:
    """A stretch of days: the running clock, a tolled stretch, a notice window."""

    kind: str  # clock | tolled | reset | window
    start: date
    end: date
    x: float
    width: float
    y: float
    height: float
    label: str


@dataclass(frozen=True)
class Marker:
    """One day: the deadline, the conservative date, another reading, today."""

    kind: str  # start | deadline | conservative | alternative | today | review
    day: date
    x: float
    label: str
    row: int  # which label row (0 = nearest the axis), so labels never overlap

    @property
    def label_y(self) -> float:
        return AXIS_Y + 44 + self.row * LABEL_ROW


@dataclass
class ClockPicture:
    width: int
    height: int
    bands: list[Band]
    markers: list[Marker]
    ticks: list[tuple[float, str]]  # month starts
    sentences: list[str]  # the text equivalent, in date order
    axis_y: float = AXIS_Y
    scale: Scale | None = None


def _d(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def stack_labels(items: Sequence[tuple[float, str]]) -> list[int]:
    """A row for each label (x, text), in the given order, so that no two labels on one
    row overlap: each takes the lowest row where it clears the labels already there."""
    rows: list[list[tuple[float, float]]] = []
    out = []
    for x, text in items:
        half = len(text) * CHAR_WIDTH / 2 + 4
        span = (x - half, x + half)
        for i, taken in enumerate(rows):
            if all(span[1] <= a or span[0] >= b for a, b in taken):
                taken.append(span)
                out.append(i)
                break
        else:
            rows.append([span])
            out.append(len(rows) - 1)
    return out


def _stretches(events: Sequence[tuple[str, str]], status: str, today: date) -> list[Band]:
    """Tolled (or reset-pending) stretches: from each notice of incompleteness to the
    resubmission that answered it, or to today while it is outstanding."""
    out = []
    open_notice: date | None = None
    for kind, when in sorted(events, key=lambda e: e[1]):
        day = _d(when)
        if day is None:
            continue
        if kind == "incomplete_notice" and open_notice is None:
            open_notice = day
        elif kind == "resubmitted" and open_notice is not None:
            out.append((open_notice, day, "tolled"))
            open_notice = None
    if open_notice is not None and status in ("tolled", "reset_pending"):
        out.append(
            (
                open_notice,
                max(today, open_notice),
                "reset" if status == "reset_pending" else "tolled",
            )
        )
    return [Band(k, a, b, 0, 0, 0, 0, "") for a, b, k in out]


def clock_picture(
    clock: dict[str, Any],
    events: Sequence[tuple[str, str]],
    status: str,
    today: date,
    judicial_review_deadline: str | None = None,
) -> ClockPicture:
    """The clock from its start to its deadline, with tolled stretches, notice windows,
    the other readings' dates and today."""
    start = _d(clock.get("start_date")) or min(
        (d for d in (_d(w) for _, w in events) if d), default=today
    )
    literal = _d(clock.get("shot_clock_date"))
    conservative = _d(clock.get("conservative_date"))
    review = _d(judicial_review_deadline)
    alternatives = [
        (a.get("reading", ""), _d(a.get("shot_clock_date")))
        for a in clock.get("alternatives") or []
    ]
    resubmissions = sorted(d for d in (_d(w) for k, w in events if k == "resubmitted") if d)
    windows = []
    for w in clock.get("notice_windows") or []:
        closes = _d(w.get("closes"))
        if closes is None:
            continue
        opens = start
        if w.get("kind") == "later_notice":
            opens = max([r for r in resubmissions if r <= closes] or [start])
        windows.append((opens, closes, w))
    stretches = _stretches(events, status, today)
    days = [start, today, *[d for _, d in alternatives if d]]
    days += [d for d in (literal, conservative, review) if d]
    days += [c for _, c, _ in windows] + [b.end for b in stretches]
    first, last = min(days), max(days)
    pad = max(2, (last - first).days // 30)
    scale = Scale(first - timedelta(days=pad), last + timedelta(days=pad))

    bands: list[Band] = []
    end = conservative or literal or max(today, start)
    bands.append(
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
    )
    for s in stretches:
        label = "tolled (notice outstanding)" if s.end == today and status == "tolled" else "tolled"
        if s.kind == "reset":
            label = "reset pending (notice outstanding)"
        bands.append(
            Band(
                s.kind,
                s.start,
                s.end,
                scale.x(s.start),
                max(2.0, scale.x(s.end) - scale.x(s.start)),
                AXIS_Y - 14,
                14,
                label,
            )
        )
    for i, (opens, closes, w) in enumerate(windows):
        bands.append(
            Band(
                "window",
                opens,
                closes,
                scale.x(opens),
                max(2.0, scale.x(closes) - scale.x(opens)),
                AXIS_Y - 30 - 8 * i,
                6,
                f"{window_label(w.get('kind'))} window ({w.get('state', '')})",
            )
        )

    points: list[tuple[str, date, str]] = [("start", start, f"start {human_date(start)}")]
    if literal:
        points.append(("deadline", literal, f"shot clock {human_date(literal)}"))
    if conservative and conservative != literal:
        points.append(("conservative", conservative, f"conservative {human_date(conservative)}"))
    for _, day in alternatives:
        if day and day not in (literal, conservative):
            points.append(("alternative", day, f"other reading {human_date(day)}"))
    if review:
        points.append(("review", review, f"judicial review ends {human_date(review)}"))
    points.append(("today", today, f"today {human_date(today)}"))
    unique, markers, ticks, height = place_points(points, scale, first)
    return ClockPicture(
        WIDTH,
        height,
        bands,
        markers,
        ticks,
        _clock_sentences(bands, markers, alternatives),
        scale=scale,
    )


def place_points(
    points: list[tuple[str, date, str]], scale: Scale, first: date
) -> tuple[list[tuple[str, date, str]], list[Marker], list[tuple[float, str]], int]:
    """The points of a clock's drawing placed on its axis: one per kind and day (two
    readings on one day read as one), labels stacked so none overlap, a tick per month,
    and the drawing's height. Shared by the wireless and the permit timelines."""
    seen: set[tuple[str, date]] = set()
    unique = []
    for p in points:
        if (p[0], p[1]) not in seen:
            seen.add((p[0], p[1]))
            unique.append(p)
    xs = [(scale.x(day), label) for _, day, label in unique]
    rows = stack_labels(xs)
    markers = [
        Marker(kind, day, x, label, row)
        for (kind, day, label), (x, _), row in zip(unique, xs, rows, strict=True)
    ]
    ticks = []
    month = date(first.year, first.month, 1)
    while month <= scale.end:
        if month >= scale.start:
            ticks.append((scale.x(month), month.strftime("%b %Y")))
        month = date(month.year + month.month // 12, month.month % 12 + 1, 1)
    height = int(AXIS_Y + 52 + (max(rows, default=0) + 1) * LABEL_ROW)
    return unique, markers, ticks, height


def _clock_sentences(
    bands: list[Band], markers: list[Marker], alternatives: list[tuple[str, date | None]]
) -> list[str]:
    said: list[tuple[date, str]] = []
    for b in bands:
        if b.kind == "clock":
            said.append(
                (
                    b.start,
                    f"The clock starts {human_date(b.start)} and runs to {human_date(b.end)}.",
                )
            )
        elif b.kind in ("tolled", "reset"):
            days = (b.end - b.start).days
            said.append(
                (
                    b.start,
                    f"{b.label[0].upper()}{b.label[1:]}: {human_date(b.start)} to "
                    f"{human_date(b.end)} ({days} days).",
                )
            )
        else:
            said.append((b.end, f"The {b.label} closes {human_date(b.end)}."))
    for m in markers:
        if m.kind == "deadline":
            said.append((m.day, f"Shot clock date (literal reading): {human_date(m.day)}."))
        elif m.kind == "conservative":
            said.append(
                (
                    m.day,
                    "Conservative date (earliest reading; drives every alert): "
                    f"{human_date(m.day)}.",
                )
            )
        elif m.kind == "review":
            said.append((m.day, f"Judicial review period ends {human_date(m.day)}."))
        elif m.kind == "today":
            said.append((m.day, f"Today is {human_date(m.day)}."))
    for reading, day in alternatives:
        if day:
            said.append((day, f"Another reading ({reading}) gives {human_date(day)}."))
    return [s for _, s in sorted(said, key=lambda p: p[0])]


# -- a project's milestones --------------------------------------------------------------------


@dataclass(frozen=True)
class ProgressRow:
    milestone: str
    label: str
    y: float
    done_width: float  # resolved share of the bar
    bar_width: float
    resolved: int
    gated: int
    blockers: int
    target: str | None
    signed_off: bool
    monitored: bool
    sentence: str


@dataclass
class ProgressPicture:
    width: int
    height: int
    bar_x: float
    rows: list[ProgressRow] = field(default_factory=list)


BAR_X = 250
BAR_WIDTH = 430
ROW_HEIGHT = 26


def progress_picture(
    milestones: Sequence[dict[str, Any]], labels: dict[str, str], today: date
) -> ProgressPicture:
    """One bar per milestone: the share of its gating conditions resolved, and its target."""
    rows = []
    for i, p in enumerate(m for m in milestones if m.get("gated")):
        gated, resolved = int(p["gated"]), int(p["resolved"])
        share = resolved / gated if gated else 0.0
        label = labels.get(p["milestone"], p["milestone"])
        target = p.get("target")
        if p.get("signed_off"):
            state = "signed off"
        elif p.get("monitored"):
            state = "monitored throughout construction"
        elif p.get("blockers"):
            state = f"{p['blockers']} still block it"
        else:
            state = "ready for sign-off"
        when = ""
        if target:
            left = (date.fromisoformat(target) - today).days
            when = f"; target {human_date(target)} ({days_left_phrase(left)})"
        rows.append(
            ProgressRow(
                milestone=p["milestone"],
                label=label,
                y=10 + i * ROW_HEIGHT,
                done_width=round(share * BAR_WIDTH, 1),
                bar_width=BAR_WIDTH,
                resolved=resolved,
                gated=gated,
                blockers=int(p.get("blockers") or 0),
                target=target,
                signed_off=bool(p.get("signed_off")),
                monitored=bool(p.get("monitored")),
                sentence=f"{label}: {resolved} of {gated} conditions resolved, {state}{when}.",
            )
        )
    return ProgressPicture(WIDTH, 20 + len(rows) * ROW_HEIGHT, BAR_X, rows)
