"""Permit clocks: California and local deadlines as rule records, computed purely.

Public API (pure, no I/O; safe to import from workflow code through pass-through):
- `compute_permit_clock(request) -> dict`: the permit-clocks.md §4 contract.
- `check_new_event(request, event) -> list[str]`: refuses an event the clock cannot
  take (raises `PermitEventRefused`), else returns its warnings.
- `reminder_plan(request, offsets) -> list[Reminder]`: when to remind, per clock.
- `rule_catalog()`: the rules, their events and facts, for forms and docs.
"""

from rules.permit_clocks.alerts import Reminder, reminder_plan
from rules.permit_clocks.catalog import rule_catalog
from rules.permit_clocks.checks import PermitEventRefused, check_new_event
from rules.permit_clocks.compute import compute_permit_clock, compute_request
from rules.permit_clocks.packs import PERMIT_PACKS, PERMIT_RULES, Rule
from rules.permit_clocks.request import PermitClockError, parse_request

__all__ = [
    "PERMIT_PACKS",
    "PERMIT_RULES",
    "PermitClockError",
    "PermitEventRefused",
    "Reminder",
    "Rule",
    "check_new_event",
    "compute_permit_clock",
    "compute_request",
    "parse_request",
    "reminder_plan",
    "rule_catalog",
]
