"""Extensions of a permit clock: requested before expiry (which may keep the permit
alive until the decision), denied, or granted (re-anchored on the rule's base, within
its count and month limits, never earlier than the deadline it extends); and a
companion permit's expiry, which can only lengthen the clock."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from rules.kernel.counting import iso
from rules.permit_clocks.packs import Extensions
from rules.permit_clocks.periods import count, plural
from rules.permit_clocks.readings import VOID_OVER_CAP
from rules.permit_clocks.request import PermitEvent

if TYPE_CHECKING:
    from rules.permit_clocks.passes import Pass

_BASE_WORDS = {
    "event_date": "the agreement's date",
    "prior_expiry": "the prior expiry",
    "original_expiry": "the original expiry",
}


def extension_limit(p: Pass) -> int | None:
    ext = p.rule.extensions
    assert ext is not None
    if ext.max_count_fact is not None and p.facts.get(ext.max_count_fact) is not None:
        return int(p.facts[ext.max_count_fact])
    return ext.max_count


def extension(p: Pass, event: PermitEvent) -> None:
    """An extension request, denial or grant."""
    ext = p.rule.extensions
    assert ext is not None
    if p.state in ("met", "met_late", "answered"):
        p.refuse(event, f"the clock was already met on {iso(p.met_date)}")
        return
    due = p.effective_due()
    if event.type == ext.deny:
        deny(p, event, due)
        return
    if p.state == "lapsed" and event.type == ext.grant and p.pending_request:
        if ext.late_grant == "no_effect":
            _late_grant(p, event)
            return
        # A timely request: the grant counts from its base even if it comes late.
        p.state = "running"
    if p.state == "lapsed":
        p.refuse(
            event,
            f"an extension after expiry: the deadline {iso(due)} already passed "
            f"({p.rule.consequence.default})",
        )
        return
    if _refused_over_limit(p, event, due):
        return
    if event.type == ext.request:
        request(p, event)
        return
    grant(p, event, due)


def _late_grant(p: Pass, event: PermitEvent) -> None:
    """66452.6(e): the request kept the permit alive only until the decision or the end
    of the automatic extension; a grant after that finds it expired and revives nothing."""
    ext = p.rule.extensions
    assert ext is not None
    end = p.effective_due()
    assert end is not None
    p.pending_request = None
    p.ended_on = end
    message = (
        f"{event.type} {iso(event.date)} came after the automatic extension ended on "
        f"{iso(end)}: the permit had expired, and a late grant does not revive it "
        f"({ext.late_grant_citation or ext.citation})"
    )
    p.warn(event, message)
    p.line(event.date, event.type, f"no effect: {message}", None, ext.citation)


def _void_over_cap(p: Pass, event: PermitEvent) -> None:
    """The reading that a grant past the cap is void: it is still the decision on the
    request, so the automatic extension ends on its date (if that is after the expiry)."""
    assert p.due is not None
    p.pending_request = None
    if event.date > p.due:
        p.denied_on = event.date
    p.line(event.date, event.type, "void: past the limit on extensions", None, p.rule.citation)


def _refused_over_limit(p: Pass, event: PermitEvent, due: date | None) -> bool:
    """Refuse an extension beyond the number the rule allows; whether it did."""
    ext = p.rule.extensions
    assert ext is not None
    limit = extension_limit(p)
    if limit is None or p.ext_used < limit:
        return False
    allowed = (
        "no extension is"
        if limit == 0
        else "only one extension is"
        if limit == 1
        else f"only {limit} extensions are"
    )
    p.refuse(
        event,
        f"{allowed} allowed ({ext.citation}) and {p.ext_used} already used; "
        f"the deadline stays {iso(due) if due else '-'}",
    )
    return True


def deny(p: Pass, event: PermitEvent, due: date | None) -> None:
    ext = p.rule.extensions
    assert ext is not None
    if p.pending_request is None:
        p.refuse(event, "no extension request is pending")
        return
    p.pending_request = None
    if due is not None and event.date > p.due:  # type: ignore[operator]
        p.denied_on = event.date
    p.line(
        event.date,
        event.type,
        f"extension denied: the clock runs to {p.effective_due().isoformat()}",  # type: ignore[union-attr]
        None,
        ext.citation,
    )


def request(p: Pass, event: PermitEvent) -> None:
    ext = p.rule.extensions
    assert ext is not None
    if ext.max_total_months is not None and p.ext_months >= ext.max_total_months:
        p.refuse(
            event,
            f"no extension left: {ext.citation} allows {ext.max_total_months} months "
            "in all, already granted",
        )
        return
    if p.pending_request is not None:
        p.refuse(
            event,
            f"an extension request is already pending since {iso(p.pending_request)}",
        )
        return
    p.pending_request = event.date
    effect = "extension requested before expiry"
    if ext.pending_keeps_alive_days:
        effect += (
            f": alive until the decision or {p.effective_due().isoformat()}, "  # type: ignore[union-attr]
            "whichever comes first"
        )
    p.line(event.date, event.type, effect, ext.pending_keeps_alive_days, ext.citation)


def _granted_amount(p: Pass, event: PermitEvent, ext: Extensions) -> int | None:
    """The amount a grant extends by, or None once it was refused."""
    if ext.request_required and p.pending_request is None:
        p.refuse(
            event,
            f"no extension request before expiry was recorded "
            f"({ext.request} is required first, {ext.citation})",
        )
        return None
    other = "months" if ext.unit == "days" else "days"
    if event.field(other) is not None:
        p.refuse(event, f"{p.rule.id} extends in {ext.unit}, not {other}")
        return None
    amount: int | None = event.field(ext.unit) or ext.default_amount
    if amount is None:
        p.refuse(event, f"{ext.unit}: missing (how long is the extension?)")
        return None
    if ext.max_amount is not None and amount > ext.max_amount:
        p.refuse(
            event,
            f"{ext.unit}: {amount} exceeds the {ext.max_amount} {ext.unit} {ext.citation} allows",
        )
        return None
    if ext.max_total_months is not None and p.ext_months + amount > ext.max_total_months:
        left = ext.max_total_months - p.ext_months
        if ext.over_cap == "limit" and left > 0:
            if p.reading.ext_base == VOID_OVER_CAP:
                _void_over_cap(p, event)
                return None
            p.warn(
                event,
                f"months: {amount} would bring extensions to {p.ext_months + amount} "
                f"months; {ext.citation} allows {ext.max_total_months} in all, so the grant "
                f"counts for the {left} months left",
            )
            return left
        p.refuse(
            event,
            f"months: {amount} would bring extensions to "
            f"{p.ext_months + amount} months; {ext.citation} allows "
            f"{ext.max_total_months} in all ({left} left)",
        )
        return None
    return amount


def grant(p: Pass, event: PermitEvent, due: date | None) -> None:
    ext = p.rule.extensions
    assert ext is not None and p.due is not None
    due = due or p.due
    amount = _granted_amount(p, event, ext)
    if amount is None:
        return
    base_kind, unrolled = ext.base, False
    mode = p.reading.ext_base
    if mode.startswith("extension_from_"):
        base_kind = mode.removeprefix("extension_from_")
        if base_kind.startswith("unrolled_"):
            base_kind, unrolled = base_kind.removeprefix("unrolled_"), True
    base = {
        "event_date": event.date,
        # Permit-clocks' reading 7: "from the expiry" may mean the day counted, unrolled.
        "prior_expiry": p.nominal if unrolled else p.due,
        "original_expiry": p.original_nominal if unrolled else p.original_due,
    }[base_kind]
    assert base is not None
    before = due
    counting = p.rule.period.counting
    if ext.unit == "months":
        counting = "months"
    elif counting in ("months", "business_days"):
        counting = "days"
    p.anchor, p.amount, p.counting, p.pauses = base, amount, counting, []
    count(p)
    p.ext_used += 1
    if ext.unit == "months":
        p.ext_months += amount
        p.ext_grants.append((event.date, amount))
    p.pending_request = None
    effect = (
        f"extends by {plural(amount, ext.unit)} from {_BASE_WORDS[base_kind]} {iso(base)}: "
        f"due {iso(p.due)}"
    )
    if p.due < before:
        p.anchor, p.amount, p.counting = before, 0, "days"
        count(p)
        effect += f"; that is earlier than {iso(before)}, so the deadline stays"
    if p.hard_stop is not None and p.due > p.hard_stop:
        effect += f"; capped at the hard stop {iso(p.hard_stop)}"
    p.line(event.date, event.type, effect, amount, ext.citation)


def companion(p: Pass, event: PermitEvent) -> None:
    """A companion permit's expiry: the clock follows it if it is later."""
    assert event.until is not None
    p.companion_until = event.until
    own = p.due
    if own is not None and event.until > own:
        effect = f"follows the companion permit's expiry: due {iso(event.until)}"
    else:
        effect = (
            f"the companion permit expires {iso(event.until)}, not later "
            f"than this permit ({iso(own) if own else '-'}): no change"
        )
    p.line(event.date, event.type, effect, None, p.rule.citation)
    due = p.effective_due()
    if p.state == "lapsed" and p.terminated is None and due and due >= event.date:
        p.state = "running"  # the automatic extension means it never lapsed
