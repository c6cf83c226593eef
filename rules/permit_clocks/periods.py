"""A phase of a permit clock: the period a start opens (the rule's amount, or the
first case whose conditions hold, plus any fact the rule adds), counted from its
anchor in the rule's counting (calendar days, business days, months, or calendar days
rolled under CCP 12), stretched by the pauses so far."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from rules.kernel.counting import (
    add_business_days,
    add_calendar_days,
    add_months,
    iso,
    roll_forward,
)
from rules.permit_clocks.packs import Cond
from rules.permit_clocks.request import PermitEvent

if TYPE_CHECKING:
    from rules.permit_clocks.passes import Pass

CCP12_RULE = "Code Civ. Proc. 12, 12a, 12b"

_UNIT_WORDS = {"days": "day", "business_days": "business day", "months": "month"}


def plural(n: int, unit: str) -> str:
    """`n` in the rule's unit, as words: "1 business day", "90 days"."""
    word = _UNIT_WORDS[unit]
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _all_hold(conds: tuple[Cond, ...], facts: Mapping[str, Any], event: PermitEvent | None) -> bool:
    # A loop, not all(<genexpr>): this runs for every period case of every pass.
    for cond in conds:  # noqa: SIM110
        if not cond.holds_for(facts, event):
            return False
    return True


def period_amount(p: Pass, event: PermitEvent | None) -> tuple[int, str]:
    """The period for this start: the first case whose conditions hold, plus any
    fact the rule adds (e.g. ordinance months); and a note naming why."""
    period = p.rule.period
    amount, note = period.amount, ""
    for case in period.cases:
        if _all_hold(case.when, p.facts, event):
            amount = case.amount
            if case.provisional_note:
                p.provisional_notes.append(f"{p.rule.id}: {case.provisional_note}")
            if not p.keep_ledger:
                break
            note = ", ".join(
                f"{event.field(c.name)}" if c.source == "field" and event else c.describe()
                for c in case.when
            )
            break
    if period.plus_fact is not None:
        extra = int(p.facts.get(period.plus_fact) or 0)
        if extra:
            amount += extra
            label = p.rule.facts[period.plus_fact].label
            note = f"{period.amount} + {extra} ({label})" if period.amount else label
    if (
        not note
        and p.keep_ledger
        and "units" in p.facts
        and any(c.name == "units" for case in period.cases for c in case.when)
    ):
        note = f"{p.facts['units']} units"
    return amount, note


def count(p: Pass) -> None:
    """Recompute the current deadline from the phase (anchor, amount, pauses)."""
    assert p.anchor is not None
    counting = p.counting
    if counting == "business_days":
        p.nominal = p.due = add_business_days(
            p.anchor, p.amount, p.closed("business_days"), p.pauses
        )
        # Counting may look up to a pause's days beyond the deadline.
        high = p.due
        for paused, resumed in p.pauses:
            high = max(high, paused, resumed)
        p.probe(min(p.anchor, p.due), high)
        return
    if counting == "months":
        end = add_months(p.anchor, p.amount)
        end += timedelta(days=sum((r - q).days for q, r in p.pauses if q < end))
        p.nominal = p.due = end
        return
    p.nominal = add_calendar_days(p.anchor, p.amount, p.pauses)
    if counting == "days" or p.reading.roll == "unrolled":
        p.due = p.nominal
        return
    closed = p.closed("ccp12")
    p.due = closed.roll(p.nominal)
    p.probe(p.nominal, p.due)
    if p.due != p.nominal and p.keep_ledger:
        _, skipped = roll_forward(p.nominal, closed)
        why = "; ".join(f"{iso(d)} {reason}" for d, reason in skipped)
        p.line(
            p.nominal,
            "roll",
            f"the last day falls on a day the city is closed ({why}): "
            f"the deadline moves to {iso(p.due)}",
            len(skipped),
            CCP12_RULE,
        )


def open_phase(p: Pass, anchor: date, event: PermitEvent | None, what: str, why: str = "") -> None:
    """Start a period at `anchor` (a start, restart or re-anchoring): no pauses yet."""
    amount, note = period_amount(p, event)
    p.anchor, p.amount, p.counting = anchor, amount, p.rule.period.counting
    p.pauses, p.open_pause = [], None
    at = len(p.ledger)
    count(p)
    if not p.keep_ledger:
        return
    unit = p.rule.period.unit
    how = " under CCP 12" if p.counting == "ccp12" else ""
    extra = f" ({note})" if note else ""
    p.line(
        anchor,
        what,
        f"{why + ': ' if why else ''}starts {plural(amount, unit)}{how}{extra}: due {iso(p.due)}",
        amount,
        p.rule.citation,
    )
    p.ledger.insert(at, p.ledger.pop())  # the start line before its roll line
