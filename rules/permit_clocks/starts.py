"""Starting a permit clock: the start event (or a chained clock's start from its
parent), the hard stop and the rule's period of force; restarts (a resubmission after
an incomplete notice, a qualifying inspection); and the items an incomplete notice
lists (PSA 65943: only checklist items, none new in a later notice)."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from rules.kernel.counting import add_months, iso
from rules.permit_clocks.periods import count, open_phase
from rules.permit_clocks.request import PermitEvent

if TYPE_CHECKING:
    from rules.permit_clocks.passes import Pass


def start(p: Pass, when: date, event: PermitEvent | None, what: str) -> None:
    p.start_date = when
    p.state = "running"
    open_phase(p, when, event, what)
    p.original_due, p.original_nominal = p.due, p.nominal
    rule = p.rule
    if rule.stopped_by:
        # AB 130's clocks run for any project that may qualify: say what ends them.
        ends = "; ".join(f"{kind} ({why})" for kind, why in rule.stopped_by.items())
        p.line(when, what, f"the clock stops if this is recorded: {ends}", None, rule.citation)
    if rule.effective_from and when < rule.effective_from:
        p.warn(
            event,
            f"{rule.citation} is in force from {iso(rule.effective_from)}; "
            f"this clock started {iso(when)}",
        )
    if rule.effective_to and when > rule.effective_to:
        p.warn(event, f"{rule.citation} was in force until {iso(rule.effective_to)}")
    stop = rule.hard_stop
    if stop is not None:
        months = stop.months
        if stop.months_fact is not None:
            months = p.facts.get(stop.months_fact)
        if months:
            p.hard_stop = add_months(when, int(months))
    ext = rule.extensions
    if ext is not None and ext.max_total_months and p.due is not None:
        p.hard_stop = add_months(p.due, ext.max_total_months)


def check_items(p: Pass, event: PermitEvent) -> None:
    items_rule = p.rule.items
    assert items_rule is not None
    ids = frozenset(item.id for item in event.items)
    if items_rule.needs_rule:
        bare = [item.id for item in event.items if not item.rule]
        if bare:
            p.warn(
                event,
                f"incomplete_notice {iso(event.date)}: item(s) {', '.join(bare)} cite "
                f"no checklist rule ({items_rule.citation} limits the list to the "
                "submittal checklist)",
            )
    if p.first_items is None:
        p.first_items = ids
    elif items_rule.no_new_items:
        new = sorted(ids - p.first_items)
        if new:
            p.warn(
                event,
                f"incomplete_notice {iso(event.date)}: item(s) {', '.join(new)} were "
                f"not in the first notice; {items_rule.citation} bars new items, so they "
                "have no effect",
            )


def restart(p: Pass, event: PermitEvent) -> None:
    rule = p.rule
    if p.state in ("met", "met_late"):
        p.refuse(event, f"the clock was already met on {iso(p.met_date)}")
        return
    if p.state == "lapsed":
        p.refuse(
            event,
            f"the deadline {p.effective_due().isoformat()} already passed "  # type: ignore[union-attr]
            f"({rule.consequence.default}); a {event.type} does not revive the clock",
        )
        return
    if p.open_pause is not None:
        p.refuse(event, f"the clock is paused since {iso(p.open_pause)}")
        return
    failed = [c for c in rule.start.restart_when if not c.holds_for(p.facts, event)]
    if failed:
        seen = [f"{c.name}={event.field(c.name)}" for c in failed]
        p.line(
            event.date,
            event.type,
            "no effect on the clock: only "
            + " and ".join(c.describe() for c in rule.start.restart_when)
            + f" counts (this one: {', '.join(seen)})",
            None,
            rule.start.restart_citation or rule.citation,
        )
        return
    before = p.effective_due()
    p.state = "running"
    p.met_date = None
    open_phase(p, event.date, event, event.type, rule.start.restart_effect)
    if rule.start.restart_provisional:
        p.provisional_notes.append(
            f"{event.type} restarts the clock under {rule.start.restart_citation}: "
            "provisional (the text was not confirmed)"
        )
    if rule.start.restart_never_shortens and before is not None and p.due < before:  # type: ignore[operator]
        p.anchor, p.amount, p.counting = before, 0, "days"
        p.pauses = []
        count(p)
        p.line(
            event.date,
            event.type,
            f"the expiry stays {iso(before)} (an inspection never shortens it)",
            None,
            rule.start.restart_citation or rule.citation,
        )
    if p.hard_stop is not None and p.due > p.hard_stop:  # type: ignore[operator]
        p.line(
            event.date,
            event.type,
            f"capped at the hard stop {iso(p.hard_stop)}",
            None,
            rule.hard_stop.citation if rule.hard_stop else rule.citation,
        )
