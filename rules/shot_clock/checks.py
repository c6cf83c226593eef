"""Whether a planner's action would hold up, decided before anything is recorded.

Pure: the workflow's update validators, the CLI and any other entry point call this
with the timeline so far and the proposed event; a refusal carries a reason a planner
understands, with the rule behind it.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from rules.kernel.calendars import CalendarLayers
from rules.kernel.input import TimelineError
from rules.shot_clock.engine import compute
from rules.shot_clock.outcomes import TERMINAL_STATUSES
from rules.shot_clock.packs import CategoryRule, RulePack, governing_category, rule_pack
from rules.shot_clock.timeline import EVENT_TYPES, Event, Timeline, parse_timeline

# Events a planner may add to an open clock: all but those that open it.
RECORDABLE_EVENTS = frozenset(EVENT_TYPES) - {"pre_application", "submitted"}
# The applicant's notices after expiry: deemed granted (an eligible facilities request),
# deemed approved and its public notice (California, other applications).
APPLICANT_NOTICES = ("deemed_granted_notice", "deemed_approved_notice", "applicant_public_notice")


class ActionRefused(ValueError):
    """The action would not hold up; the message says why."""


def _with_event(base: dict[str, Any], event: dict[str, Any], **frozen: Any) -> Timeline:
    raw = dict(base)
    raw["events"] = [*base.get("events", []), event]
    raw.pop("as_of", None)
    try:
        return parse_timeline(raw, **frozen)
    except TimelineError as err:
        # Name the field as the planner knows it, not by its position in the list.
        message = str(err)
        prefix = f"events[{len(raw['events']) - 1}]"
        if message.startswith(prefix):
            message = message[len(prefix) :].lstrip(".: ") or message
        raise ActionRefused(message) from None


def check_new_event(
    base: dict[str, Any],
    event: dict[str, Any],
    today: date,
    *,
    pack: RulePack | None = None,
    calendar: CalendarLayers | None = None,
) -> list[str]:
    """Refuse the event with ActionRefused, or return the warnings it will carry.

    A running clock passes the rule pack and calendar it froze (8.9)."""
    frozen: dict[str, Any] = {"pack": pack, "calendar": calendar}
    kind = event.get("type")
    if kind not in RECORDABLE_EVENTS:
        raise ActionRefused(
            f"'{kind}' cannot be recorded on an open clock "
            f"(allowed: {', '.join(sorted(RECORDABLE_EVENTS))})"
        )
    timeline = _with_event(base, event, **frozen)
    new = timeline.events[-1]
    if new.date > today:
        raise ActionRefused(f"the date {new.date} is in the future (today is {today})")
    before = parse_timeline({**base, "as_of": today.isoformat()}, **frozen)
    clock = compute(before)
    _refuse_on_a_closed_clock(new, before, clock)

    category = governing_category(before, before.pack or rule_pack(before.rule_pack))
    notices = [e for e in before.events if e.type == "incomplete_notice"]
    if kind == "incomplete_notice":
        _check_notice(new, clock, notices, category)
    elif kind == "resubmitted":
        _check_resubmission(new, clock, notices)
    elif kind == "tolling_agreement" and new.new_date is not None:
        current = clock["shot_clock_date"]
        if current is not None and new.new_date.isoformat() < current:
            raise ActionRefused(
                f"the agreed date {new.new_date} is before the current shot clock date "
                f"{current}: a tolling agreement extends the clock"
            )
    elif kind in APPLICANT_NOTICES:
        _check_applicant_notice(kind, category, before.state)

    after = compute(_with_event({**base}, event, **frozen))
    known_warnings = set(clock["warnings"])
    return [w for w in after["warnings"] if w not in known_warnings]


def _refuse_on_a_closed_clock(new: Event, before: Timeline, clock: dict[str, Any]) -> None:
    """No event before the submission, nor on an application already closed."""
    submitted = next(e for e in before.events if e.type == "submitted")
    if new.date < submitted.date:
        raise ActionRefused(
            f"the date {new.date} is before the application was submitted on {submitted.date}"
        )
    if clock["status"] in TERMINAL_STATUSES:
        closed = next(
            (entry for entry in reversed(clock["ledger"]) if entry["event"] != "roll_forward"),
            None,
        )
        when = f" on {closed['date']}" if closed else ""
        raise ActionRefused(f"the application is already closed ({clock['status']}{when})")


def _check_notice(
    new: Event, clock: dict[str, Any], notices: list[Event], category: CategoryRule
) -> None:
    """A notice of incompleteness describes each item and cites its rule (47 CFR
    1.6003(d)), needs no notice outstanding, and (a later one) cites only the first
    notice's items."""
    for item in new.items:
        if not item.text:
            raise ActionRefused(
                f"item '{item.id}' has no description: each missing item must be "
                "described (47 CFR 1.6003(d))"
            )
        if not item.rule:
            raise ActionRefused(
                f"item '{item.id}' cites no rule: a notice of incompleteness must cite "
                "the specific rule that requires each missing item (47 CFR 1.6003(d))"
            )
    if clock["status"] in ("tolled", "reset_pending"):
        raise ActionRefused(
            f"the notice of {notices[-1].date} is still outstanding: record the "
            "applicant's resubmission before a further notice"
        )
    if notices:
        first = notices[0]
        known = {i.id for i in first.items}
        added = [i.id for i in new.items if i.id not in known]
        if added:
            raise ActionRefused(
                f"item(s) {', '.join(added)} were not in the first notice of {first.date}: "
                "a later notice may cite only items the first notice identified "
                f"({category.later_notice_rule})"
            )


def _check_resubmission(new: Event, clock: dict[str, Any], notices: list[Event]) -> None:
    """A resubmission answers the notice outstanding, and is not dated before it."""
    if clock["status"] not in ("tolled", "reset_pending"):
        raise ActionRefused("there is no outstanding notice of incompleteness to answer")
    if notices and new.date < notices[-1].date:
        raise ActionRefused(
            f"the resubmission date {new.date} is before the notice of {notices[-1].date}"
        )


def _check_applicant_notice(kind: str, category: CategoryRule, state: str | None) -> None:
    """Deemed granted is the remedy of an eligible facilities request; deemed approved
    (and its public notice) that of other applications in California."""
    if kind == "deemed_granted_notice":
        if not category.eligible_facilities_request:
            raise ActionRefused(
                "a deemed-granted notice applies only to eligible facilities requests "
                "(47 CFR 1.6100(c)(4)); for this application record a deemed_approved_notice"
            )
        return
    if category.eligible_facilities_request:
        raise ActionRefused(
            "for an eligible facilities request the applicant's remedy is a "
            "deemed-granted notice (47 CFR 1.6100(c)(4))"
        )
    if state != "CA":
        raise ActionRefused(
            "the deemed-approved remedy exists only under California law "
            "(Gov. Code 65964.1); this clock's jurisdiction is not in California"
        )
