"""Extensions by operation of law (Gov. Code 65914.4, AB 2729 of 2024; 66452.22 and the
like): applied to every clock that qualifies, with a ledger line and no request, and
outside the discretionary cap (the hard stop moves with them). Eligibility is read on
the day the statute took effect: the clock started before `started_before` and its
expiry that day falls on or after it and before `expiring_before`; a statute that does
not stack on the city's own extensions (65914.4(b)) adds nothing where those reached its
threshold. A `statutory_extension` event (months, citation) records one the pack does
not hold."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import TYPE_CHECKING

from rules.kernel.counting import add_months, iso
from rules.permit_clocks.pack_records import Rule, StatutoryExtension
from rules.permit_clocks.packs import ARCHIVED_PACKS, PERMIT_PACKS
from rules.permit_clocks.periods import count, plural
from rules.permit_clocks.request import PermitEvent

if TYPE_CHECKING:
    from rules.permit_clocks.passes import Pass


def extensions_for(rule: Rule) -> tuple[StatutoryExtension, ...]:
    """The pack's statutory extensions for this rule, from the pack version the rule
    record comes from (an archived version has its own list)."""
    if not rule.statutory:
        return ()
    archived = ARCHIVED_PACKS.get(rule.rule_version)
    pack = archived[0] if archived else PERMIT_PACKS[rule.pack]
    return tuple(e for e in pack.statutory_extensions if rule.id in e.rules)


def apply_due(p: Pass, today: date | None) -> None:
    """Apply each statutory extension whose day has come (all of them when `today` is
    None), before anything on or after that day is looked at."""
    for ext in extensions_for(p.rule):
        if ext.id in p.statutory_seen or (today is not None and today < ext.in_effect_on):
            continue
        p.statutory_seen.add(ext.id)
        if _eligible(p, ext, p.facts):
            if not _stacked(p, ext):
                _extend(p, ext.in_effect_on, ext.months, ext.citation, ext.title)
                if ext.provisional_note:
                    p.provisional_notes.append(f"{ext.id}: {ext.provisional_note}")
        else:
            _lapsed_reading(p, ext)


def _lapsed_reading(p: Pass, ext: StatutoryExtension) -> None:
    """A clock that lapsed after `lapsed_since` but before the statute took effect keeps
    its date (the earlier reading) and names the reading that would revive it."""
    since = ext.lapsed_since
    due = p.effective_due()
    if since is None or due is None or p.start_date is None or p.terminated is not None:
        return
    if p.state in ("met", "met_late", "answered") or not since <= due < ext.in_effect_on:
        return
    if ext.started_before is not None and p.start_date >= ext.started_before:
        return
    if not all(c.holds_for(p.facts, None) for c in ext.when):
        return
    p.warn(
        None,
        f"{ext.id}: it lapsed on {iso(due)}, before {ext.citation} took effect on "
        f"{iso(ext.in_effect_on)}, so the statute is not applied; read as reaching an "
        f"entitlement in effect on {iso(since)} that lapsed before then, it would run "
        f"{plural(ext.months, 'months')} more, to {iso(add_months(due, ext.months))} "
        "(ask counsel)",
    )


def _stacked(p: Pass, ext: StatutoryExtension) -> bool:
    """Whether the city's own extensions already stand in for this one (Gov. Code
    65914.4(b)): if so, a ledger line says why the statute adds nothing."""
    rule = ext.not_stacked
    if rule is None:
        return False
    grants = [
        (day, months)
        for day, months in p.ext_grants
        if rule.granted_from <= day < rule.granted_before
    ]
    total = sum(months for _, months in grants)
    if total < rule.months:
        return False
    when = ", ".join(f"{plural(m, 'months')} on {iso(day)}" for day, m in grants)
    p.line(
        ext.in_effect_on,
        "statutory_extension",
        f"not extended by operation of law ({ext.title}): the city already extended it "
        f"by {plural(total, 'months')} between {iso(rule.granted_from)} and "
        f"{iso(rule.granted_before - timedelta(days=1))} ({when}), and the statute adds "
        f"nothing to an extension of at least {plural(rule.months, 'months')} given then",
        0,
        rule.citation,
    )
    if all(months < rule.months for _, months in grants):
        p.warn(
            None,
            f"{ext.id}: the city's extensions of {when} are taken together as at least "
            f"{plural(rule.months, 'months')}, so {rule.citation} adds nothing; if only "
            f"a single extension of {plural(rule.months, 'months')} counts, the statute "
            f"adds {plural(ext.months, 'months')} (ask counsel)",
        )
    return True


def _eligible(p: Pass, ext: StatutoryExtension, facts: Mapping[str, object]) -> bool:
    if p.state != "running" or p.open_pause is not None or p.start_date is None:
        return False
    if ext.started_before is not None and p.start_date >= ext.started_before:
        return False
    due = p.effective_due()
    if due is None or due < ext.in_effect_on:
        return False
    if ext.expiring_before is not None and due >= ext.expiring_before:
        return False
    return all(c.holds_for(facts, None) for c in ext.when)


def record(p: Pass, event: PermitEvent) -> None:
    """A `statutory_extension` event: months by operation of law the pack lacks."""
    if p.state in ("met", "met_late", "answered"):
        p.refuse(event, f"the clock was already met on {iso(p.met_date)}")
        return
    if p.state != "running":
        p.refuse(
            event,
            f"the clock is {p.state.replace('_', ' ')} on {iso(event.date)}: a statute "
            "extends only a clock still running that day",
        )
        return
    if p.open_pause is not None:
        p.refuse(event, f"the clock is paused since {iso(p.open_pause)}")
        return
    if event.months is None:
        p.refuse(event, "months: missing (how many months does the statute add?)")
        return
    if not event.citation:
        p.refuse(event, "citation: missing (which statute extends the clock?)")
        return
    _extend(p, event.date, event.months, event.citation, "recorded by staff")


def _extend(p: Pass, when: date, months: int, citation: str, what: str) -> None:
    """Add `months` to the expiry, outside the discretionary cap."""
    assert p.due is not None
    before = p.due
    p.anchor, p.amount, p.counting, p.pauses = before, months, "months", []
    count(p)
    p.statutory_months += months
    if p.hard_stop is not None:
        p.hard_stop = add_months(p.hard_stop, months)
    p.line(
        when,
        "statutory_extension",
        f"extended by operation of law ({what}): {plural(months, 'months')} from "
        f"{iso(before)}, due {iso(p.due)}; not counted against the limit on extensions",
        months,
        citation,
    )
