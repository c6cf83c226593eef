"""The shot clock's requests: one input dataclass per action on a wireless application's
shot clock, validated when made: a request that exists is well formed (dates are dates,
kinds are known, a notice lists items), so bad input is refused with a message naming the
field (ActionFailed 400) before Temporal is asked anything.

Each request names the permission it needs (`permission`, a key of rules/access.ACTIONS)
and, for an event, the workflow update that records it (`update`); `from_fields` builds
one from a form's or a JSON body's fields. The actions are in actions/shot_clocks.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from actions.errors import ActionFailed, bad
from actions.fields import check_address, check_addresses, check_date, required, text_of
from models.shot_clock import (
    ApplicantNoticeInput,
    DecisionInput,
    IncompleteNoticeInput,
    LocalClosureInput,
    NonTollingEventInput,
    NoticeItem,
    ResubmissionInput,
    TollingAgreementInput,
    WithdrawalInput,
)

OUTCOMES = ("approved", "approved_with_conditions", "denied")
APPLICANT_NOTICE_KINDS = (
    "deemed_granted_notice",
    "applicant_public_notice",
    "deemed_approved_notice",
)
NON_TOLLING_KINDS = ("moratorium", "hearing_notice", "appeal")


def parse_items(raw: Any) -> list[NoticeItem]:
    """Notice items from a list of {id, text, rule}; empty rows are dropped."""
    if not isinstance(raw, list):
        raise bad("items: give a list of {id, text, rule}")
    items = []
    for i, entry in enumerate(raw):
        if isinstance(entry, NoticeItem):
            entry = entry.__dict__
        if not isinstance(entry, dict):
            raise bad(f"items[{i}]: give an object with id, text and rule")
        item = NoticeItem(
            id=text_of(entry.get("id")),
            text=text_of(entry.get("text")),
            rule=text_of(entry.get("rule")),
        )
        if not (item.id or item.text or item.rule):
            continue
        if not item.id:
            raise bad(f"item {i + 1}: give it an id (a letter, e.g. A)")
        items.append(item)
    return items


@dataclass(frozen=True, kw_only=True)
class OpenShotClock:
    """Open a wireless application: starts its durable shot clock. Empty contacts and
    offsets come from the jurisdiction file; an empty jurisdiction is the default one."""

    permission: ClassVar[str] = "clock.open"
    application_id: str
    planner_email: str
    category: str | None = None
    batch: list[str] = field(default_factory=list)
    jurisdiction: str = ""
    submitted: str | None = None
    pre_application: str | None = None
    site_address: str = ""
    description: str = ""
    applicant_name: str = ""
    applicant_email: str = ""
    supervisor_email: str = ""
    attorney_email: str = ""
    reminder_offsets: list[int] | None = None

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> OpenShotClock:
        """From a form (text fields) or a JSON body (lists)."""

        def listed(value: Any) -> list[str]:
            if isinstance(value, list):
                return [str(v) for v in value]
            return [v for v in re.split(r"[,\s]+", str(value or "")) if v]

        offsets = fields.get("reminder_offsets")
        return cls(
            application_id=text_of(fields.get("application_id")),
            planner_email=text_of(fields.get("planner_email")),
            category=text_of(fields.get("category")) or None,
            batch=listed(fields.get("batch")),
            jurisdiction=text_of(fields.get("jurisdiction")),
            submitted=text_of(fields.get("submitted")) or None,
            pre_application=text_of(fields.get("pre_application")) or None,
            site_address=text_of(fields.get("site_address")),
            description=text_of(fields.get("description")),
            applicant_name=text_of(fields.get("applicant_name")),
            applicant_email=text_of(fields.get("applicant_email")),
            supervisor_email=text_of(fields.get("supervisor_email")),
            attorney_email=text_of(fields.get("attorney_email")),
            reminder_offsets=None if offsets in (None, "", []) else listed(offsets),  # type: ignore[arg-type]
        )

    def __post_init__(self) -> None:
        app_id = text_of(self.application_id)
        required(app_id, "application_id", "give the city's application number")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", app_id):
            raise bad(
                f"application_id: letters, digits, '.', '_' and '-' only (up to 64), not {app_id!r}"
            )
        object.__setattr__(self, "application_id", app_id)
        if not text_of(self.planner_email):
            raise bad("planner_email: give the planner's e-mail address (reminders go there)")
        object.__setattr__(
            self, "planner_email", check_address(self.planner_email, "planner_email")
        )
        check_addresses(self, "applicant_email", "supervisor_email", "attorney_email")
        category = text_of(self.category) or None
        batch = [text_of(b) for b in self.batch or [] if text_of(b)]
        if (category is None) == (not batch):
            raise bad("give a category, or the category of each site of an SWF batch")
        object.__setattr__(self, "category", category)
        object.__setattr__(self, "batch", batch)
        object.__setattr__(self, "submitted", check_date(self.submitted, "submitted"))
        object.__setattr__(
            self, "pre_application", check_date(self.pre_application, "pre_application")
        )
        if self.reminder_offsets is not None:
            try:
                offsets = sorted({int(x) for x in self.reminder_offsets}, reverse=True)
            except (TypeError, ValueError):
                raise bad("reminder_offsets: give whole days, e.g. [30, 14, 7]") from None
            if any(o < 0 for o in offsets):
                raise bad("reminder_offsets: offsets must not be negative")
            object.__setattr__(self, "reminder_offsets", offsets)


# (field, the values it may take), for a request's `choices`.
Choices = tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True, kw_only=True)
class ShotClockEvent:
    """An event on an open clock; an empty date means today in the clock's city."""

    permission: ClassVar[str]
    update: ClassVar[str]
    # (field, the values it may take): each checked before anything is sent.
    choices: ClassVar[Choices] = ()
    application_id: str
    date: str | None = None
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "date", check_date(self.date, "date"))
        object.__setattr__(self, "note", str(self.note or ""))
        for name, allowed in self.choices:
            if getattr(self, name) not in allowed:
                raise bad(f"{name}: one of {', '.join(allowed)}")

    @classmethod
    def from_fields(cls, application_id: str, fields: dict[str, Any]) -> Self:
        return cls(**cls.common(application_id, fields), **cls.own_fields(fields))

    @staticmethod
    def common(application_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        return {
            "application_id": application_id,
            "date": fields.get("date"),
            "note": fields.get("note") or "",
        }

    @classmethod
    def own_fields(cls, fields: dict[str, Any]) -> dict[str, Any]:
        """This event's own fields (beyond date and note) from a form or a body."""
        return {}

    def payload(self, by: str, when: str) -> Any:
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class RecordNotice(ShotClockEvent):
    permission: ClassVar[str] = "clock.notice"
    update: ClassVar[str] = "record_incomplete_notice"
    items: list[NoticeItem]

    def __post_init__(self) -> None:
        super().__post_init__()
        items = parse_items(self.items)
        if not items:
            raise bad("a notice of incompleteness must list each missing item")
        object.__setattr__(self, "items", items)

    @classmethod
    def own_fields(cls, fields: dict[str, Any]) -> dict[str, Any]:
        return {"items": fields.get("items") or []}

    def payload(self, by: str, when: str) -> Any:
        return IncompleteNoticeInput(when, list(self.items), by, self.note)


@dataclass(frozen=True, kw_only=True)
class RecordResubmission(ShotClockEvent):
    permission: ClassVar[str] = "clock.resubmission"
    update: ClassVar[str] = "record_resubmission"

    def payload(self, by: str, when: str) -> Any:
        return ResubmissionInput(when, by, self.note)


@dataclass(frozen=True, kw_only=True)
class RecordTollingAgreement(ShotClockEvent):
    permission: ClassVar[str] = "clock.tolling_agreement"
    update: ClassVar[str] = "record_tolling_agreement"
    days: int | None = None
    new_date: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        days: Any = self.days
        if days in (None, ""):
            days = None
        else:
            try:
                days = int(days)
            except (TypeError, ValueError):
                raise bad("days: give a whole number of days") from None
            if days <= 0:
                raise bad("days: must be a positive whole number")
        new_date = check_date(self.new_date, "new_date")
        if (days is None) == (new_date is None):
            raise bad("a tolling agreement gives either days or an agreed new date")
        object.__setattr__(self, "days", days)
        object.__setattr__(self, "new_date", new_date)

    @classmethod
    def own_fields(cls, fields: dict[str, Any]) -> dict[str, Any]:
        return {"days": fields.get("days"), "new_date": fields.get("new_date")}

    def payload(self, by: str, when: str) -> Any:
        return TollingAgreementInput(when, self.days, self.new_date, by, self.note)


@dataclass(frozen=True, kw_only=True)
class RecordDecision(ShotClockEvent):
    permission: ClassVar[str] = "clock.decision"
    update: ClassVar[str] = "record_decision"
    choices: ClassVar[Choices] = (("outcome", OUTCOMES),)
    outcome: str

    @classmethod
    def own_fields(cls, fields: dict[str, Any]) -> dict[str, Any]:
        return {"outcome": text_of(fields.get("outcome"))}

    def payload(self, by: str, when: str) -> Any:
        return DecisionInput(when, self.outcome, by, self.note)


@dataclass(frozen=True, kw_only=True)
class RecordWithdrawal(ShotClockEvent):
    permission: ClassVar[str] = "clock.withdrawal"
    update: ClassVar[str] = "record_withdrawal"

    def payload(self, by: str, when: str) -> Any:
        return WithdrawalInput(when, by, self.note)


@dataclass(frozen=True, kw_only=True)
class _KindOfEvent(ShotClockEvent):
    """An event whose one field of its own is its `kind`, from the class's choices."""

    kind: str

    @classmethod
    def own_fields(cls, fields: dict[str, Any]) -> dict[str, Any]:
        return {"kind": text_of(fields.get("kind"))}


@dataclass(frozen=True, kw_only=True)
class RecordApplicantNotice(_KindOfEvent):
    permission: ClassVar[str] = "clock.applicant_notice"
    update: ClassVar[str] = "record_applicant_notice"
    choices: ClassVar[Choices] = (("kind", APPLICANT_NOTICE_KINDS),)

    def payload(self, by: str, when: str) -> Any:
        return ApplicantNoticeInput(when, self.kind, by, self.note)


@dataclass(frozen=True, kw_only=True)
class RecordNonTollingEvent(_KindOfEvent):
    permission: ClassVar[str] = "clock.non_tolling_event"
    update: ClassVar[str] = "record_non_tolling_event"
    choices: ClassVar[Choices] = (("kind", NON_TOLLING_KINDS),)

    def payload(self, by: str, when: str) -> Any:
        return NonTollingEventInput(when, self.kind, by, self.note)


@dataclass(frozen=True, kw_only=True)
class AddLocalClosure(ShotClockEvent):
    """A day this clock's city is closed (the date is required: never 'today')."""

    permission: ClassVar[str] = "clock.closure"
    update: ClassVar[str] = "add_local_closure"

    def __post_init__(self) -> None:
        object.__setattr__(self, "date", check_date(self.date, "date", required=True))

    def payload(self, by: str, when: str) -> Any:
        return LocalClosureInput(when, by, self.note)


@dataclass(frozen=True, kw_only=True)
class RebaseShotClock(ShotClockEvent):
    """Apply the current rule pack and calendar layers to a running clock (shot-clocks.md
    8.9). Its payload carries the data, read by the action (ShotClockActions.rebase_payload)."""

    permission: ClassVar[str] = "clock.rebase"
    update: ClassVar[str] = "rebase"
    reason: str

    def __post_init__(self) -> None:
        super().__post_init__()
        reason = str(self.reason or "").strip()
        if not reason:
            raise bad("reason: say why the clock is rebased (it goes into the ledger)")
        object.__setattr__(self, "reason", reason)

    @classmethod
    def own_fields(cls, fields: dict[str, Any]) -> dict[str, Any]:
        return {"reason": text_of(fields.get("reason"))}

    def payload(self, by: str, when: str) -> Any:
        raise TypeError("a rebase payload is built by ShotClockActions.rebase_payload")


SHOT_CLOCK_EVENTS: dict[str, type[ShotClockEvent]] = {
    r.permission: r
    for r in (
        RecordNotice,
        RecordResubmission,
        RecordTollingAgreement,
        RecordDecision,
        RecordWithdrawal,
        RecordApplicantNotice,
        RecordNonTollingEvent,
        AddLocalClosure,
        RebaseShotClock,
    )
}


def event_request(action: str, application_id: str, fields: dict[str, Any]) -> ShotClockEvent:
    """The request for `action` (a clock.* permission) from a form's or body's fields."""
    kind = SHOT_CLOCK_EVENTS.get(action)
    if kind is None:
        raise ActionFailed(f"there is no action {action!r}", 404)
    return kind.from_fields(application_id, fields)
