"""Pauses of a permit clock (e.g. AB 2234 review while an outside agency reviews): the
pause day counts, the days paused do not, and a rule may cap the days paused in all."""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING

from rules.kernel.counting import add_months, iso
from rules.permit_clocks.periods import count, plural
from rules.permit_clocks.request import PermitEvent

if TYPE_CHECKING:
    from rules.permit_clocks.passes import Pass


def pause(p: Pass, event: PermitEvent) -> None:
    spec = p.rule.pauses
    assert spec is not None
    if event.reason not in spec.reasons:
        p.refuse(
            event,
            f"reason {event.reason!r} does not pause {p.rule.id} "
            f"(it pauses for: {', '.join(spec.reasons)})",
        )
        return
    if p.state != "running":
        p.refuse(event, f"the clock is {p.state.replace('_', ' ')}; it cannot be paused")
        return
    if p.open_pause is not None:
        p.refuse(event, f"the clock is already paused since {iso(p.open_pause)}")
        return
    p.open_pause = event.date
    left = p.remaining_at_pause()
    if p.first_pause is None:
        p.first_pause = event.date
    p.line(
        event.date,
        event.type,
        f"paused ({event.reason}); the pause day counts, "
        f"{plural(left, 'business_days' if p.counting == 'business_days' else 'days')} "
        "left",
        left,
        spec.citation,
    )


def resume(p: Pass, event: PermitEvent) -> None:
    if p.open_pause is None:
        p.refuse(event, "the clock is not paused")
        return
    resume_at(p, event.date, "resumed")


def resume_at(p: Pass, when: date, what: str) -> None:
    spec = p.rule.pauses
    assert spec is not None and p.open_pause is not None
    paused, resumed = p.open_pause, when
    if spec.max_months is not None and p.first_pause is not None:
        cap = (add_months(p.first_pause, spec.max_months) - p.first_pause).days
        left = max(0, cap - p.paused_total)
        if (resumed - paused).days > left:
            resumed = paused + timedelta(days=left)
            p.warn(
                None,
                f"pauses count for at most {spec.max_months} months "
                f"({spec.citation}); the clock runs again from {iso(resumed)}",
            )
    p.paused_total += (resumed - paused).days
    p.pauses.append((paused, resumed))
    p.open_pause = None
    before = p.due
    count(p)
    days = (resumed - paused).days
    p.line(
        when,
        "resumed",
        f"{what}: {plural(days, 'days')} paused do not count; due {iso(p.due)}",
        days,
        spec.citation,
    )
    _floor(p, resumed)
    if p.hard_stop is not None and before is not None and p.due is not None:
        p.hard_stop += p.due - before if p.counting != "business_days" else timedelta()


def _floor(p: Pass, resumed: date) -> None:
    """66452.6(b)(3): once the pause ends the clock runs at least `floor_days` more."""
    spec = p.rule.pauses
    assert spec is not None and p.due is not None
    if spec.floor_days is None or p.counting == "business_days":
        return
    floor = resumed + timedelta(days=spec.floor_days)
    if p.due >= floor:
        return
    left = (p.due - resumed).days
    p.anchor, p.amount, p.counting, p.pauses = resumed, spec.floor_days, "days", []
    count(p)
    p.line(
        resumed,
        "resumed",
        f"{plural(left, 'days')} left after the pause, less than {spec.floor_days}: "
        f"valid {spec.floor_days} days after it ends, due {iso(p.due)}",
        spec.floor_days,
        spec.floor_citation or spec.citation,
    )


def finish_pause(p: Pass) -> None:
    """At `as_of`, a pause beyond its cap ends by itself."""
    spec = p.rule.pauses
    if p.open_pause is None or spec is None or spec.max_months is None:
        return
    if p.as_of is None or p.first_pause is None:
        return
    cap = (add_months(p.first_pause, spec.max_months) - p.first_pause).days
    ends = p.open_pause + timedelta(days=max(0, cap - p.paused_total))
    if ends < p.as_of:
        resume_at(p, ends, f"the {spec.max_months}-month limit on pauses ends the pause")
