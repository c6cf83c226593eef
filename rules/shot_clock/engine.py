"""The shot clock engine: a timeline in, every date and the reason for it out.

Pure and deterministic: no I/O, no clock. The same function serves the CLI's
`clock compute`, the workflow (which recomputes after every event) and the tests.

One pass over the timeline applies one *reading* of the rules (`clock_pass`). The
literal reading gives `shot_clock_date`; where the rules are ambiguous the engine runs
each other reading it knows (`readings`) and lists it under `alternatives`;
`conservative_date` is the earliest of them all, so alerts never trust a date a court
might not. This module assembles the compute contract's result from the passes.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

from rules.kernel.calendars import LITERAL, CalendarLayers
from rules.shot_clock.clock_pass import ClockPass, event_days
from rules.shot_clock.clock_state import iso_date
from rules.shot_clock.outcomes import expiry_remedy
from rules.shot_clock.readings import LITERAL_READING, Reading, alternative_readings
from rules.shot_clock.statutes import (
    CA_DEEMED_APPROVED_RULE,
    DEEMED_GRANTED_RULE,
    JUDICIAL_REVIEW_DAYS,
)
from rules.shot_clock.timeline import Event, Timeline, parse_timeline, timeline_layers

DEEMED_STATUSES = ("deemed_approved", "deemed_granted")


# What one reading answers: its description, its date and the status it gives (a plain
# tuple: compute is the hot path of every workflow recomputation).
_Answer = tuple[str, date | None, str]


def compute(timeline: Timeline) -> dict[str, Any]:
    """Every date of one application's shot clock, in the compute contract's shape.

    Every reading is a full pass (8.1): under each the engine knows the date, the
    status, the days remaining and whether an applicant's notice took effect. The
    earliest reading decides `conservative_date`, `conservative_status` and
    `conservative_days_remaining`; an applicant's notice that takes effect under it
    sets `judicial_review_deadline` even where the literal reading gives it no effect.
    """
    layers = timeline_layers(timeline)
    days = event_days(timeline)
    literal = ClockPass(timeline, Reading(), layers, days)
    literal.explain_final_date()
    reference = timeline.as_of or max((e.date for e in timeline.events), default=None)
    # The literal date first: its roll-forward tells whether the calendar readings matter.
    literal_answer = (LITERAL_READING, literal.final_date(), literal.status(reference))
    passes, alternatives = _alternatives(timeline, literal, layers, days, reference)
    description, earliest = passes[_earliest_reading(passes)]
    earliest_answer = (description, earliest.final_date(), earliest.status(reference))

    warnings = list(literal.warnings)
    judicial_review_deadline = literal.judicial_review_deadline
    if literal.terminal not in DEEMED_STATUSES:
        deemed = _applicant_notice_under_earliest_reading(passes)
        if deemed is not None:
            deemed_reading, p = deemed
            judicial_review_deadline = p.judicial_review_deadline
            warnings.append(_applicant_notice_warning(deemed_reading, p, literal_answer[1]))
            literal.ledger.append(_applicant_notice_entry(deemed_reading, p))
    warnings += _date_warnings(timeline, literal, literal_answer, earliest_answer)
    return _result(
        timeline,
        layers,
        literal,
        reference,
        literal_answer,
        earliest_answer,
        judicial_review_deadline,
        alternatives,
        warnings,
    )


def _alternatives(
    timeline: Timeline,
    literal: ClockPass,
    layers: CalendarLayers,
    days: list[list[Event]],
    reference: date | None,
) -> tuple[list[tuple[str, ClockPass]], list[dict[str, Any]]]:
    """A pass for each other reading that can move something, and its `alternatives`
    entry; the passes start with the literal one."""
    passes: list[tuple[str, ClockPass]] = [(LITERAL_READING, literal)]
    alternatives: list[dict[str, Any]] = []
    for description, reading in alternative_readings(literal, layers):
        if reading.calendar != LITERAL and not any(q.contested_roll for _, q in passes):
            continue  # no reading rolled over a contested day: the calendar changes nothing
        p = ClockPass(timeline, reading, layers, days)
        alt_date, alt_status = p.final_date(), p.status(reference)
        if reading.calendar != LITERAL:
            # A calendar reading is listed only where it moves something.
            seen = [(q.final_date(), q.status(reference)) for _, q in passes]
            if (alt_date, alt_status) in seen:
                continue
        entry: dict[str, Any] = {
            "reading": description,
            "shot_clock_date": iso_date(alt_date),
            "status": alt_status,
        }
        if timeline.as_of is not None:
            entry["days_remaining"] = _days_remaining(timeline, alt_date)
        entry["judicial_review_deadline"] = iso_date(p.judicial_review_deadline)
        alternatives.append(entry)
        passes.append((description, p))
    return passes, alternatives


def _earliest_reading(passes: list[tuple[str, ClockPass]]) -> int:
    """The earliest reading: the earliest date; on a tie the first listed (literal first)."""
    dated = [(d, i) for i, (_, p) in enumerate(passes) if (d := p.final_date()) is not None]
    return min(dated)[1] if dated else 0


def _applicant_notice_under_earliest_reading(
    passes: list[tuple[str, ClockPass]],
) -> tuple[str, ClockPass] | None:
    """8.2: an applicant's notice counts under the earliest reading where it is valid:
    of the other readings, by date, the first under which the applicant's deemed-granted
    or deemed-approved notice took effect (None if under none)."""
    by_date = sorted((p.final_date() or date.max, i) for i, (_, p) in enumerate(passes) if i)
    for _, i in by_date:
        if passes[i][1].terminal in DEEMED_STATUSES:
            return passes[i]
    return None


def _applicant_notice_warning(description: str, p: ClockPass, literal_date: date | None) -> str:
    if p.terminal == "deemed_approved":
        return (
            f"under the earliest reading ({description}) the clock ran out on "
            f"{p.terminal_date} and the applicant's deemed-approved notice of "
            f"{p.deemed_notice} took effect: the application may be deemed approved and the "
            f"city has until {p.judicial_review_deadline} to seek judicial review "
            f"({CA_DEEMED_APPROVED_RULE}); the literal reading ({literal_date or 'paused'}) "
            "gives the notice no effect"
        )
    return (
        f"under the earliest reading ({description}) the clock ran out on {p.terminal_date} "
        f"and the applicant's deemed-granted notice of {p.terminal_on} took effect: the "
        f"request may be deemed granted ({DEEMED_GRANTED_RULE}); the literal reading "
        f"({literal_date or 'paused'}) gives the notice no effect"
    )


def _applicant_notice_entry(description: str, p: ClockPass) -> dict[str, Any]:
    """The literal ledger's line for a deemed grant or approval under the earliest reading."""
    assert p.terminal is not None and p.terminal_on is not None
    review = (
        f"; the city may seek judicial review until {p.judicial_review_deadline} "
        "(calendar days, not extended)"
        if p.judicial_review_deadline
        else ""
    )
    return {
        "date": p.terminal_on.isoformat(),
        "event": f"{p.terminal}_earliest_reading",
        "effect": (
            f"{p.terminal.replace('_', ' ')} under the earliest reading "
            f"({description}): the clock ran out on {p.terminal_date}"
            + review
            + "; the literal reading gives the notice no effect"
        ),
        "days": JUDICIAL_REVIEW_DAYS if p.judicial_review_deadline else None,
        "rule": CA_DEEMED_APPROVED_RULE if p.terminal == "deemed_approved" else DEEMED_GRANTED_RULE,
    }


def _date_warnings(
    timeline: Timeline, literal: ClockPass, literal_answer: _Answer, earliest: _Answer
) -> list[str]:
    """Warnings on the dates themselves: an earlier conservative date or status, an
    expired clock and its remedy, a clock started before its rule pack took effect."""
    warnings = []
    _, shot_clock_date, status = literal_answer
    conservative_reading, conservative, conservative_status = earliest
    if conservative is not None and shot_clock_date is not None and conservative < shot_clock_date:
        warnings.append(
            f"an alternative reading ends the clock on {conservative}, before the literal "
            f"date {shot_clock_date}: alerts follow the earlier date"
        )
    if conservative_status != status and conservative_status in ("decided_late", "expired"):
        warnings.append(
            f"under the earliest reading ({conservative_reading}) the status is "
            f"{conservative_status}, not {status} (its date is {conservative}): the city must "
            "treat it as such"
        )
    if status == "expired":
        warnings.append(
            f"the shot clock date {shot_clock_date} has passed without a decision. "
            + expiry_remedy(literal.cat, timeline.state)
        )
    elif conservative_status == "expired":
        warnings.append(
            f"the conservative date {conservative} has passed without a decision. "
            + expiry_remedy(literal.cat, timeline.state)
        )
    if literal.start is not None and literal.start < literal.pack.effective_from:
        warnings.append(
            f"the clock started on {literal.start}, before the rule pack '{literal.pack.key}' "
            f"took effect on {literal.pack.effective_from}"
        )
    return warnings


def _result(
    timeline: Timeline,
    layers: CalendarLayers,
    literal: ClockPass,
    reference: date | None,
    literal_answer: _Answer,
    earliest: _Answer,
    judicial_review_deadline: date | None,
    alternatives: list[dict[str, Any]],
    warnings: list[str],
) -> dict[str, Any]:
    """The compute contract's result, its keys in the contract's order."""
    _, shot_clock_date, status = literal_answer
    conservative_reading, conservative, conservative_status = earliest
    result: dict[str, Any] = {
        "category": literal.cat.key,
        "period_days": literal.period,
        "start_date": iso_date(literal.start),
        "shot_clock_date": iso_date(shot_clock_date),
        "conservative_date": iso_date(conservative),
        "tolled_days": literal.tolled_days(),
        "reset_on": iso_date(literal.reset_on),
        "status": status,
    }
    if timeline.as_of is not None:
        result["days_remaining"] = _days_remaining(timeline, shot_clock_date)
    result.update(
        {
            "judicial_review_deadline": iso_date(judicial_review_deadline),
            "notice_windows": literal.notice_windows(reference),
            "ledger": sorted(literal.ledger, key=lambda entry: entry["date"]),
            "alternatives": alternatives,
            "warnings": warnings,
            "conservative_status": conservative_status,
        }
    )
    if timeline.as_of is not None:
        result["conservative_days_remaining"] = _days_remaining(timeline, conservative)
    result["conservative_reading"] = conservative_reading
    summary = layers.summary
    result["rules"] = {
        "rule_pack": literal.pack.key,
        "rule_pack_version": literal.pack.version,
        "calendar": summary["calendar"],
        "layers": list(summary["layers"]),
        "closures": list(summary["closures"]),
    }
    return result


def _days_remaining(timeline: Timeline, d: date | None) -> int | None:
    assert timeline.as_of is not None
    return None if d is None else (d - timeline.as_of).days


def compute_json(raw: Any) -> dict[str, Any]:
    """Parse the contract's input (already JSON-decoded) and compute it."""
    return compute(parse_timeline(raw))


def with_as_of(timeline: Timeline, as_of: date | None) -> Timeline:
    return replace(timeline, as_of=as_of)
