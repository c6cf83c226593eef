"""A period reopened after the clock was met: SB 330's cure (Gov. Code 65941.1(d)(2)).
Once the full application is filed the clock is met; an incompleteness notice on it
then starts 90 days to supply the missing information, which is the clock's deadline
while it runs (status running); the resubmittal meets it; a miss loses the vesting."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.kernel.counting import iso
from rules.permit_clocks.periods import count, plural
from rules.permit_clocks.request import PermitEvent

if TYPE_CHECKING:
    from rules.permit_clocks.passes import Pass


def start_cure(p: Pass, event: PermitEvent) -> None:
    cure = p.rule.cure
    assert cure is not None
    if p.state == "running" and not p.curing:
        p.refuse(event, f"{event.type} before the {cure.after} was recorded")
        return
    if p.state not in ("met", "running"):
        p.refuse(event, f"the clock is {p.state.replace('_', ' ')}: nothing left to cure")
        return
    again = p.curing
    p.state, p.curing, p.met_date, p.completion = "running", True, None, None
    p.anchor, p.amount, p.counting, p.pauses = event.date, cure.amount, cure.counting, []
    at = len(p.ledger)
    count(p)
    how = " under CCP 12" if cure.counting == "ccp12" else ""
    p.line(
        event.date,
        event.type,
        f"{'found incomplete again' if again else 'the full application is incomplete'}: "
        f"starts {plural(cure.amount, 'days')}{how} to supply the missing information "
        f"({cure.met_by}): due {iso(p.due)}",
        cure.amount,
        cure.citation,
    )
    if p.keep_ledger:
        p.ledger.insert(at, p.ledger.pop())  # the start line before its roll line
    if cure.provisional_note:
        p.provisional_notes.append(f"{p.rule.id}: {cure.provisional_note}")


def meet_cure(p: Pass, event: PermitEvent) -> None:
    cure = p.rule.cure
    assert cure is not None
    if not p.curing or p.state != "running":
        p.refuse(event, f"{event.type}: no incompleteness notice on the full application to cure")
        return
    due = p.effective_due()
    p.state, p.met_date, p.completion = "met", event.date, event.date
    p.line(event.date, event.type, f"cured on time (due {iso(due)})", None, cure.citation)
