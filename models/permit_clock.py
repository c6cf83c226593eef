"""Plain dataclasses that cross workflow, activity and surface boundaries for permit
clocks (permit-clocks.md): the Permit Streamlining Act, HAA, AB 2234, SB 330, map and
permit expirations and the local rules of a jurisdiction's pack.

Dates are ISO strings and counts ints (Temporal's default converter carries neither
`date` nor `timedelta`); an event's rule-specific fields travel in one dict in the
compute contract's vocabulary (`items`, `outcome`, `document`, `days`, `months`,
`reason`, `until`, `result`, `qualifying`, `units_change_pct`, `area_change_pct`).
"""

# No `from __future__ import annotations`: Temporal's converter reads these dataclasses'
# field types with typing.get_type_hints on every decode, and string annotations cost a
# compile and an eval per field each time (a tenth of the worker's time in an 08:00
# storm, docs/storm.md). Forward references are quoted instead.

from dataclasses import dataclass, field, replace
from typing import Any

from models.shot_clock import ClockUpdateResult

DEFAULT_PERMIT_REMINDER_OFFSETS = [30, 14, 7, 3, 1]

# The event fields of the compute contract (permit-clocks.md §4), besides `type`/`date`.
EVENT_FIELDS = (
    "items",
    "outcome",
    "document",
    "days",
    "months",
    "reason",
    "until",
    "result",
    "qualifying",
    "units_change_pct",
    "area_change_pct",
    "citation",
)


def all_clocks(clock: dict[str, Any]) -> list[dict[str, Any]]:
    """A computed permit clock and every clock it chains (`next`), depth first: the
    workflow's alerts and the read model's next deadline walk the same list."""
    out = [clock]
    for chained in clock.get("next") or []:
        out.extend(all_clocks(chained))
    return out


@dataclass
class PermitEvent:
    """One entry of a permit clock's timeline, in the compute contract's vocabulary."""

    type: str
    date: str
    fields: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    recorded_by: str = ""
    event_id: str = ""

    def to_contract(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "date": self.date}
        out.update({k: v for k, v in self.fields.items() if k in EVENT_FIELDS and v is not None})
        return out


@dataclass
class PermitCalendar:
    """The calendar and rule version a clock is counted on, frozen when it opens so a
    later change to the jurisdiction file or the pack does not move an open clock."""

    jurisdiction: str
    time_zone: str
    # Every calendar layer (federal, state, judicial, the city's adopted holidays and
    # closures) as `rules.kernel.calendars.CalendarLayers.to_dict()`; empty: the jurisdiction's
    # layers as the data files say now.
    layers: dict[str, Any] = field(default_factory=dict)
    fingerprint: str = ""
    rule_version: str = ""
    # The city's state, permit pack and local facts (PermitJurisdiction.to_dict), frozen
    # at opening; empty (clocks opened before): the jurisdiction file's.
    place: dict[str, Any] = field(default_factory=dict)


@dataclass
class PermitContacts:
    """Who hears about a permit clock."""

    staff_email: str
    supervisor_email: str
    attorney_email: str
    applicant_email: str = ""
    applicant_name: str = ""
    project_manager_email: str = ""


@dataclass
class PermitClockInfo:
    """What the city knows about a permit or application when it opens its clock."""

    clock_id: str
    rule: str
    calendar: PermitCalendar
    contacts: PermitContacts
    facts: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    site_address: str = ""
    # A sign permit follows its companion building permit's expiry (its clock id).
    companion_id: str = ""
    # A condition's time limit becomes a clock of its project (conditions.md §8).
    project_id: str = ""
    condition_number: str = ""
    reminder_offsets: list[int] = field(
        default_factory=lambda: list(DEFAULT_PERMIT_REMINDER_OFFSETS)
    )

    def for_activity(self) -> "PermitClockInfo":
        """This clock as an activity's input: without the frozen calendar layers, which
        activities never read (the workflow counts the days) and which would otherwise
        be repeated in every record and notice in the clock's history."""
        return replace(self, calendar=replace(self.calendar, layers={}))


@dataclass
class PermitClockInput:
    """Workflow input; on continue-as-new it also carries what has been sent and who
    follows this clock's expiry."""

    info: PermitClockInfo
    events: list[PermitEvent]
    sent_alert_keys: list[str] = field(default_factory=list)
    skipped_alert_keys: list[str] = field(default_factory=list)
    event_sequence: int = 0
    followers: list[str] = field(default_factory=list)
    announced_expiry: str = ""
    # When the previous run last planned its alerts (ISO instant): a continued run sends
    # what fell due since then instead of skipping it as a late-opened clock would.
    planned_at: str = ""
    # Closure days added after the clock was opened, with what each moved (the ledger's
    # lines for them); the days themselves are in `info.calendar.layers`.
    closures: list[dict[str, Any]] = field(default_factory=list)
    # Audited rebases onto a newer rule version (the ledger's lines for them).
    rebases: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class PermitRebaseInput:
    """An administrator's audited switch of a running clock to the current version of its
    rule (the clock keeps the version it was opened under until then)."""

    rule_version: str
    requested_by: str
    reason: str


@dataclass
class PermitEventInput:
    """A staff action on a permit clock: one event of the rule's vocabulary."""

    type: str
    date: str
    fields: dict[str, Any] = field(default_factory=dict)
    recorded_by: str = ""
    note: str = ""


@dataclass
class CompanionExpiryInput:
    """The companion building permit's expiry moved (signal between two clocks)."""

    companion_id: str
    until: str


@dataclass
class FollowInput:
    """A clock asks to hear about this clock's expiry (a sign permit of this building
    permit)."""

    follower_id: str


# What an update returns, the same for both clocks: the event's id and the new clock.
PermitUpdateResult = ClockUpdateResult


@dataclass
class PermitNoticeRequest:
    """Render and deliver one permit-clock notice; `notice_key` makes it exactly-once."""

    notice_key: str
    kind: str
    info: PermitClockInfo
    to: list[str]
    cc: list[str]
    clock: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class PermitClockRecord:
    """Upsert the clock and its latest computation into the read model."""

    info: PermitClockInfo
    clock: dict[str, Any]
    workflow_id: str
    escalated: bool = False
    # The clock's events, written with it in one transaction: its opening's record.
    events: list[PermitEvent] = field(default_factory=list)


@dataclass
class PermitEventRecord:
    clock_id: str
    event: PermitEvent


@dataclass
class PermitClockSummary:
    """What `clearance permit show` and the clock's page display."""

    info: PermitClockInfo
    events: list[PermitEvent]
    clock: dict[str, Any]
    upcoming_alerts: list[dict[str, str]]
    sent_alerts: list[str]
    followers: list[str]


@dataclass
class ReassignInput:
    """Hand a clock to another person: its owner hears its reminders and finds it in their
    inbox. The action layer checks that the person can log in."""

    email: str
    recorded_by: str
    reason: str = ""
