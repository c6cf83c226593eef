"""Plain dataclasses that cross workflow, activity and CLI boundaries for shot clocks.

Dates are ISO strings (YYYY-MM-DD) and day counts are ints: Temporal's default
payload converter does not carry `date` or `timedelta`.
"""

# No `from __future__ import annotations`: Temporal's converter reads these dataclasses'
# field types with typing.get_type_hints on every decode, and string annotations cost a
# compile and an eval per field each time (a tenth of the worker's time in an 08:00
# storm, docs/storm.md). Forward references are quoted instead.

from dataclasses import dataclass, field, replace
from typing import Any

DEFAULT_REMINDER_OFFSETS = [30, 14, 7, 3, 1]
DEFAULT_WINDOW_ALERT_OFFSETS = [3, 1]
DEFAULT_JUDICIAL_REVIEW_OFFSETS = [14, 7, 3, 1, 0]


@dataclass
class NoticeItem:
    """One missing item in an incompleteness notice, with the rule that requires it."""

    id: str
    text: str = ""
    rule: str = ""


@dataclass
class ClockEvent:
    """One entry of an application's timeline, in the compute contract's vocabulary."""

    type: str
    date: str
    items: list[NoticeItem] = field(default_factory=list)
    days: int | None = None
    new_date: str | None = None
    outcome: str | None = None
    note: str = ""
    recorded_by: str = ""
    event_id: str = ""

    def to_contract(self) -> dict[str, Any]:
        """The event as the compute contract's JSON shape."""
        out: dict[str, Any] = {"type": self.type, "date": self.date}
        if self.items:
            out["items"] = [{"id": i.id, "text": i.text, "rule": i.rule} for i in self.items]
        if self.days is not None:
            out["days"] = self.days
        if self.new_date is not None:
            out["new_date"] = self.new_date
        if self.outcome is not None:
            out["outcome"] = self.outcome
        return out


@dataclass
class CalendarSnapshot:
    """The calendar a clock is counted on, frozen into the workflow so replays agree.

    `layers` (rules.kernel.calendars.CalendarLayers.to_dict: every holiday layer and the
    closures known when the clock was opened) and `pack_data` (the rule pack's data)
    are frozen at open (shot-clocks.md 8.9): a later edit of the data files changes new
    clocks only, until an audited rebase. None: a clock opened before freezing existed,
    counted on the current data files."""

    jurisdiction: str
    state: str | None
    time_zone: str
    rule_pack: str
    local_holidays: list[str] = field(default_factory=list)
    layers: dict[str, Any] | None = None
    pack_data: dict[str, Any] | None = None


@dataclass
class Contacts:
    """Who hears about a clock."""

    planner_email: str
    supervisor_email: str
    attorney_email: str
    applicant_email: str = ""
    applicant_name: str = ""


@dataclass
class ApplicationInfo:
    """What the city knows about a wireless application when it opens the clock."""

    application_id: str
    category: str | None
    batch: list[str]
    site_address: str
    calendar: CalendarSnapshot
    contacts: Contacts
    reminder_offsets: list[int] = field(default_factory=lambda: list(DEFAULT_REMINDER_OFFSETS))
    window_alert_offsets: list[int] = field(
        default_factory=lambda: list(DEFAULT_WINDOW_ALERT_OFFSETS)
    )
    judicial_review_offsets: list[int] = field(
        default_factory=lambda: list(DEFAULT_JUDICIAL_REVIEW_OFFSETS)
    )
    description: str = ""

    def for_activity(self) -> "ApplicationInfo":
        """This application as an activity's input: without the frozen calendar layers
        and rule pack. Activities never count days (the workflow does), and the frozen
        data (about 17 KiB) repeated in every activity input made each reminder's
        history, and its replay after eviction, ten times heavier (docs/storm.md)."""
        calendar = replace(self.calendar, layers=None, pack_data=None)
        return replace(self, calendar=calendar)


@dataclass
class ShotClockInput:
    """Workflow input; on continue-as-new it also carries what has been sent."""

    application: ApplicationInfo
    events: list[ClockEvent]
    sent_alert_keys: list[str] = field(default_factory=list)
    skipped_alert_keys: list[str] = field(default_factory=list)
    risk_flagged: bool = False
    event_sequence: int = 0
    # Audited rebases so far (RebaseRecord as dicts), kept across continue-as-new.
    rebases: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class NoticeRequest:
    """Render and deliver one notice; `notice_key` makes it exactly-once."""

    notice_key: str
    kind: str
    application: ApplicationInfo
    to: list[str]
    cc: list[str]
    clock: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class NoticeReceipt:
    notice_key: str
    delivered: bool
    already_sent: bool
    transport: str
    location: str


@dataclass
class ApplicationRecord:
    """Upsert the application and its computed clock into the read model."""

    application: ApplicationInfo
    clock: dict[str, Any]
    workflow_id: str
    risk_flagged: bool = False
    # The clock's events, written with it in one transaction: its opening's record.
    events: list[ClockEvent] = field(default_factory=list)


@dataclass
class EventRecord:
    application_id: str
    event: ClockEvent


@dataclass
class ClockUpdateResult:
    """What an update returns to the caller: the event as recorded and the new clock."""

    event_id: str
    clock: dict[str, Any]


@dataclass
class IncompleteNoticeInput:
    """A written notice of incompleteness: each missing item with the rule requiring it."""

    date: str
    items: list[NoticeItem]
    recorded_by: str = ""
    note: str = ""


@dataclass
class ResubmissionInput:
    date: str
    recorded_by: str = ""
    note: str = ""


@dataclass
class ApplicantUploadInput:
    """The applicant uploaded a document through their link: tell the planner (once per
    file, by its sha256), who checks it and records the resubmission."""

    filename: str
    sha256: str
    size: int
    uploaded_by: str
    uploaded_at: str  # ISO instant
    item: str = ""  # the notice item it answers, if the applicant said


@dataclass
class TollingAgreementInput:
    """A written tolling agreement: extends by `days` or sets `new_date`."""

    date: str
    days: int | None = None
    new_date: str | None = None
    recorded_by: str = ""
    note: str = ""


@dataclass
class DecisionInput:
    date: str
    outcome: str
    recorded_by: str = ""
    note: str = ""


@dataclass
class WithdrawalInput:
    date: str
    recorded_by: str = ""
    note: str = ""


@dataclass
class ApplicantNoticeInput:
    """deemed_granted_notice, applicant_public_notice or deemed_approved_notice."""

    date: str
    kind: str
    recorded_by: str = ""
    note: str = ""


@dataclass
class NonTollingEventInput:
    """A moratorium, hearing notice or appeal: recorded, never tolls."""

    date: str
    kind: str
    recorded_by: str = ""
    note: str = ""


@dataclass
class LocalClosureInput:
    """A day the city's offices are closed, entered after the clock was opened."""

    date: str
    recorded_by: str = ""
    # Why the offices are closed, as the administrator gave it (the ledger repeats it).
    reason: str = ""


@dataclass
class RebaseInput:
    """Apply the current rule pack and calendar layers to a running clock (an
    administrator's audited correction, shot-clocks.md 8.9). The caller reads the current
    data (and the stored closure days) and sends it, so the workflow never reads files."""

    reason: str
    requested_by: str
    layers: dict[str, Any]
    pack_data: dict[str, Any]
    date: str = ""  # the day it is recorded (default: today in the city)


@dataclass
class ClockSummary:
    """What `clearance clock show` displays: the application, its timeline and clock."""

    application: ApplicationInfo
    events: list[ClockEvent]
    clock: dict[str, Any]
    upcoming_alerts: list[dict[str, str]]
    sent_alerts: list[str]
    risk_flagged: bool


@dataclass
class ClockClosureInput:
    """One clock's share of a jurisdiction-wide closure day."""

    application_id: str
    date: str
    added_by: str
    reason: str = ""


@dataclass
class JurisdictionClosureInput:
    """A closure day an administrator added, for every clock open in the jurisdiction:
    the shot clocks (`application_ids`) and the permit clocks (`permit_clock_ids`)."""

    jurisdiction: str
    date: str
    added_by: str
    application_ids: list[str]
    permit_clock_ids: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class JurisdictionClosureResult:
    changed: list[str]
    # "APP-1: reason" for each clock that refused the day (closed meanwhile, say).
    refused: list[str]
    # The same for the permit clocks (their ids may look like application ids).
    permit_changed: list[str] = field(default_factory=list)
    permit_refused: list[str] = field(default_factory=list)
