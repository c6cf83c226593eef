"""A permit clock's requests: open a clock, record an event on it. The actions are in
actions/permit_clocks.py (`plan_open` checks an opening against the rules core)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from actions.fields import check_addresses


@dataclass(frozen=True, kw_only=True)
class OpenPermitClock:
    """Open the clock of one permit or application on a rule of the jurisdiction
    (empty: the deployment's default jurisdiction)."""

    permission: ClassVar[str] = "permit.open"

    clock_id: str
    rule: str
    jurisdiction: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    site_address: str = ""
    applicant_name: str = ""
    applicant_email: str = ""
    staff_email: str = ""
    companion_id: str = ""
    project_id: str = ""
    condition_number: str = ""
    project_manager_email: str = ""
    reminder_offsets: list[int] | None = None

    def __post_init__(self) -> None:
        check_addresses(self, "applicant_email", "staff_email", "project_manager_email")


@dataclass(frozen=True, kw_only=True)
class RebasePermitClock:
    """Apply the current version of the clock's rule (administrators; audited)."""

    permission: ClassVar[str] = "clock.rebase"

    clock_id: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class RecordPermitEvent:
    permission: ClassVar[str] = "permit.record"

    clock_id: str
    type: str
    date: str
    fields: dict[str, Any] = field(default_factory=dict)
    note: str = ""
