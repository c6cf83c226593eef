"""Refuse a new event before it is stored: one check shared by the workflow's update
validator, the action layer, the CLI and the web forms.

The check is the compute pass itself: an event the rules give no effect (an unknown
type, a second 65957 extension, an extension after expiry, a pause for a reason the
rule does not know, ...) is refused with the pass's own message, so the refusal and
the computed ledger can never disagree.
"""

from __future__ import annotations

from typing import Any

from rules.permit_clocks.compute import compute_request
from rules.permit_clocks.passes import Issue
from rules.permit_clocks.request import PermitClockError, parse_request


class PermitEventRefused(PermitClockError):
    """The clock cannot take this event; the message says why, for a planner."""


def check_new_event(request: dict[str, Any], event: dict[str, Any]) -> list[str]:
    """Check `event` against the clock `request` describes (its rule, facts, calendar
    and the events already recorded). Raises PermitEventRefused (or PermitClockError
    for a malformed request) when it must not be stored; returns its warnings."""
    if not isinstance(request, dict):
        raise PermitClockError("input: expected a JSON object")
    recorded = request.get("events") or []
    if not isinstance(recorded, list):
        raise PermitClockError("events: expected a list of events")
    index = len(recorded)
    try:
        parsed = parse_request({**request, "events": [*recorded, event]})
    except PermitClockError as err:
        message = str(err).replace(f"events[{index}].", "").replace(f"events[{index}]", "event")
        raise PermitEventRefused(message) from None
    issues: list[Issue] = []
    compute_request(parsed, sink=issues)
    new = parsed.events[index]
    label = f"{new.type} on {new.date.isoformat()}"
    refused = [i.message for i in issues if i.index == index and i.severity == "refuse"]
    if refused:
        raise PermitEventRefused(f"refused: {label}: {refused[0]}; nothing was recorded")
    return list(dict.fromkeys(i.message for i in issues if i.index == index))
