"""How a phase of a permit clock comes out: met on time or late, answered (a notice
that waits for the applicant's next step), lapsed once its deadline passed, or ended
at once by a terminating event whose threshold is met (below it, no effect)."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from rules.kernel.counting import ONE_DAY, iso
from rules.permit_clocks.pauses import resume_at
from rules.permit_clocks.request import PermitEvent

if TYPE_CHECKING:
    from rules.permit_clocks.passes import Pass


def check_lapse(p: Pass, today: date) -> None:
    """Move a running clock to `lapsed` once `today` is past its deadline."""
    if p.state != "running" or p.open_pause is not None:
        return
    due = p.due
    if due is not None and today <= due and p.hard_stop is None:
        return  # the deadline can only be later than `due` (companion, pending request)
    due = p.effective_due()
    if due is not None and today > due:
        p.state = "lapsed"
        p.line(
            due + ONE_DAY,
            "lapse",
            f"the deadline {iso(due)} passed: {p.rule.consequence.default}",
            None,
            p.rule.citation,
        )


def meet(p: Pass, event: PermitEvent) -> None:
    rule = p.rule
    effect = rule.met_by[event.type]
    if p.state in ("met", "met_late"):
        p.refuse(event, f"the clock was already met on {iso(p.met_date)}")
        return
    if p.terminated is not None:
        p.refuse(event, f"the clock already ended: {p.terminated[0]}")
        return
    if p.open_pause is not None:
        resume_at(p, event.date, f"{event.type} ends the pause")
    if p.state == "answered":
        p.refuse(
            event,
            f"a notice was already given on {iso(p.met_date)}; "
            f"waiting for {' or '.join(rule.start.restart) or 'the next event'}",
        )
        return
    due = p.effective_due()
    if p.state == "lapsed":
        if effect == "answers":
            p.warn(
                event,
                f"{event.type} {iso(event.date)} came after the deadline "
                f"{iso(due)}: {rule.consequence.default} already took effect",
            )
            p.line(
                event.date,
                event.type,
                f"too late: {rule.consequence.default} already took effect",
                None,
                rule.citation,
            )
            return
        p.state = "met_late"
        p.met_date = event.date
        p.completion = due
        p.line(
            event.date,
            event.type,
            f"met late ({(event.date - due).days} days after {iso(due)})",  # type: ignore[operator]
            None,
            rule.citation,
        )
        return
    p.met_date = event.date
    if effect == "answers":
        p.state = "answered"
        p.line(
            event.date,
            event.type,
            f"met on time (due {iso(due)}); the clock waits for {' or '.join(rule.start.restart)}",
            None,
            rule.citation,
        )
        return
    p.state = "met"
    p.completion = event.date
    p.line(
        event.date,
        event.type,
        f"met on time (due {iso(due)})",
        None,
        rule.citation,
    )


def terminate(p: Pass, event: PermitEvent) -> None:
    for term in p.rule.terminators:
        if term.event != event.type:
            continue
        if any(c.holds_for(p.facts, event) for c in term.any_of):
            if p.state not in ("running", "answered", "met"):
                p.refuse(event, f"the clock is already {p.state.replace('_', ' ')}")
                return
            p.state = "lapsed"
            p.terminated = (term.consequence, term.citation)
            p.line(event.date, event.type, f"ends at once: {term.consequence}", None, term.citation)
            return
        p.line(
            event.date,
            event.type,
            "below the threshold ("
            + " or ".join(c.describe() for c in term.any_of)
            + "): no effect",
            None,
            term.citation,
        )
        return
