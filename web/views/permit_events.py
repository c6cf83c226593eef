"""Which events a permit clock's page offers, each with only its own fields: read from
the rule (and the rules it chains), so every rule a city adds gets its forms without
code. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.permit_clocks.packs import PERMIT_RULES
from rules.permit_clocks.request import (
    CEQA_DOCUMENTS,
    EVENT_FIELDS,
    INSPECTION_RESULTS,
    OUTCOMES,
)

# The choices a field offers, as the rules core accepts them.
CHOICES: dict[str, tuple[str, ...]] = {
    "result": INSPECTION_RESULTS,
    "outcome": OUTCOMES,
    "document": CEQA_DOCUMENTS,
}
# The order a form asks for an event's details (others follow, by name).
FIELD_ORDER = ("result", "qualifying", "days", "months", "reason", "outcome", "document")
# Plain labels for the event types the packs use; an unknown type reads as words.
LABELS = {
    "approved": "Permit approved or issued",
    "exercised": "Permit exercised (work done or use begun)",
    "inspection": "Inspection",
    "extension_requested": "Extension requested",
    "extension_granted": "Extension granted",
    "extension_denied": "Extension denied",
    "extension_agreed": "Extension agreed in writing",
    "withdrawn": "Withdrawn",
    "received": "Application received",
    "complete": "Application found complete",
    "incomplete_notice": "Notice of incompleteness sent",
    "resubmitted": "Applicant resubmitted",
    "decision": "Decision made",
    "appeal_filed": "Appeal filed",
    "paused": "Clock paused",
    "resumed": "Clock resumed",
    "companion_expiry": "Companion permit's new expiry",
}


@dataclass(frozen=True)
class EventOffer:
    type: str
    label: str
    fields: tuple[str, ...]


def label_of(event: str) -> str:
    text = LABELS.get(event) or event.replace("_", " ")
    return text[:1].upper() + text[1:]


def _rules(clock: dict[str, Any]) -> list[Any]:
    out = []
    todo = [clock]
    while todo:
        one = todo.pop(0)
        rule = PERMIT_RULES.get(str(one.get("rule") or ""))
        if rule is not None:
            out.append(rule)
        todo.extend(one.get("next") or [])
    return out


def event_offers(clock: dict[str, Any]) -> list[EventOffer]:
    """The events that apply to this clock now: every event its rule and chained rules
    act on, less the starting event once the clock has started (a restart stays)."""
    started = bool(clock.get("start_date"))
    names: list[str] = []
    for rule in _rules(clock):
        starts = set(rule.start.events) - set(rule.start.restart)
        for name in sorted(rule.own_events):
            if started and name in starts and rule.id == clock.get("rule"):
                continue
            if name not in names:
                names.append(name)
    return [EventOffer(n, label_of(n), _fields(n)) for n in names]


def _fields(event: str) -> tuple[str, ...]:
    """The details the rules core takes for this event (its own declaration)."""
    names = set(EVENT_FIELDS.get(event, frozenset()))
    ordered = [f for f in FIELD_ORDER if f in names]
    return tuple(ordered + sorted(names - set(ordered)))
