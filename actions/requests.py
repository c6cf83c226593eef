"""One input dataclass per action, validated when made: a request that exists is well
formed (dates are dates, kinds are known, a notice lists items), so bad input is refused
with a message naming the field (ActionFailed 400) before Temporal is asked anything.

Each request names the permission it needs (`permission`, a key of rules/access.ACTIONS).
`clock_request` and `project_request` build them from a form's or a JSON body's fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from actions.errors import ActionFailed, bad
from models.conditions import (
    Actor,
    ConditionSpec,
    CorrectionInput,
    DigestRequestInput,
    ParsedResolution,
    PlannedDatesInput,
    ResolveInput,
    ReviewInput,
    SignOffInput,
    SubItem,
    SubmitEvidenceInput,
    TriggerInput,
)
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
from rules.access import RESOLUTION_ACTIONS
from rules.kernel.input import TimelineError, parse_date

OUTCOMES = ("approved", "approved_with_conditions", "denied")
APPLICANT_NOTICE_KINDS = (
    "deemed_granted_notice",
    "applicant_public_notice",
    "deemed_approved_notice",
)
NON_TOLLING_KINDS = ("moratorium", "hearing_notice", "appeal")
REVIEW_DECISIONS = ("in_review", "cleared", "returned")


def check_date(value: Any, name: str, required: bool = False) -> str | None:
    """An ISO date string, or None when empty and not required."""
    text = str(value or "").strip()
    if not text:
        if required:
            raise bad(f"{name}: give a date (YYYY-MM-DD)")
        return None
    try:
        return parse_date(text, name).isoformat()
    except TimelineError as err:
        raise bad(str(err)) from None


def _text(value: Any) -> str:
    return str(value or "").strip()


def _required(value: str, name: str, what: str) -> None:
    if not value:
        raise bad(f"{name}: {what}")


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
            id=_text(entry.get("id")), text=_text(entry.get("text")), rule=_text(entry.get("rule"))
        )
        if not (item.id or item.text or item.rule):
            continue
        if not item.id:
            raise bad(f"item {i + 1}: give it an id (a letter, e.g. A)")
        items.append(item)
    return items


# -- wireless applications ------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class OpenApplication:
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

    def __post_init__(self) -> None:
        app_id = _text(self.application_id)
        _required(app_id, "application_id", "give the city's application number")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", app_id):
            raise bad(
                f"application_id: letters, digits, '.', '_' and '-' only (up to 64), not {app_id!r}"
            )
        object.__setattr__(self, "application_id", app_id)
        planner = _text(self.planner_email)
        if "@" not in planner:
            raise bad("planner_email: give the planner's e-mail address (reminders go there)")
        object.__setattr__(self, "planner_email", planner)
        for name in ("applicant_email", "supervisor_email", "attorney_email"):
            value = _text(getattr(self, name))
            if value and "@" not in value:
                raise bad(f"{name}: {value!r} is not an e-mail address")
            object.__setattr__(self, name, value)
        category = _text(self.category) or None
        batch = [_text(b) for b in self.batch or [] if _text(b)]
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
class ClockEventRequest:
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

    def payload(self, by: str, when: str) -> Any:
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class RecordNotice(ClockEventRequest):
    permission: ClassVar[str] = "clock.notice"
    update: ClassVar[str] = "record_incomplete_notice"
    items: list[NoticeItem]

    def __post_init__(self) -> None:
        super().__post_init__()
        items = parse_items(self.items)
        if not items:
            raise bad("a notice of incompleteness must list each missing item")
        object.__setattr__(self, "items", items)

    def payload(self, by: str, when: str) -> Any:
        return IncompleteNoticeInput(when, list(self.items), by, self.note)


@dataclass(frozen=True, kw_only=True)
class RecordResubmission(ClockEventRequest):
    permission: ClassVar[str] = "clock.resubmission"
    update: ClassVar[str] = "record_resubmission"

    def payload(self, by: str, when: str) -> Any:
        return ResubmissionInput(when, by, self.note)


@dataclass(frozen=True, kw_only=True)
class RecordTollingAgreement(ClockEventRequest):
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

    def payload(self, by: str, when: str) -> Any:
        return TollingAgreementInput(when, self.days, self.new_date, by, self.note)


@dataclass(frozen=True, kw_only=True)
class RecordDecision(ClockEventRequest):
    permission: ClassVar[str] = "clock.decision"
    update: ClassVar[str] = "record_decision"
    choices: ClassVar[Choices] = (("outcome", OUTCOMES),)
    outcome: str

    def payload(self, by: str, when: str) -> Any:
        return DecisionInput(when, self.outcome, by, self.note)


@dataclass(frozen=True, kw_only=True)
class RecordWithdrawal(ClockEventRequest):
    permission: ClassVar[str] = "clock.withdrawal"
    update: ClassVar[str] = "record_withdrawal"

    def payload(self, by: str, when: str) -> Any:
        return WithdrawalInput(when, by, self.note)


@dataclass(frozen=True, kw_only=True)
class RecordApplicantNotice(ClockEventRequest):
    permission: ClassVar[str] = "clock.applicant_notice"
    update: ClassVar[str] = "record_applicant_notice"
    choices: ClassVar[Choices] = (("kind", APPLICANT_NOTICE_KINDS),)
    kind: str

    def payload(self, by: str, when: str) -> Any:
        return ApplicantNoticeInput(when, self.kind, by, self.note)


@dataclass(frozen=True, kw_only=True)
class RecordNonTollingEvent(ClockEventRequest):
    permission: ClassVar[str] = "clock.non_tolling_event"
    update: ClassVar[str] = "record_non_tolling_event"
    choices: ClassVar[Choices] = (("kind", NON_TOLLING_KINDS),)
    kind: str

    def payload(self, by: str, when: str) -> Any:
        return NonTollingEventInput(when, self.kind, by, self.note)


@dataclass(frozen=True, kw_only=True)
class AddLocalClosure(ClockEventRequest):
    """A day this clock's city is closed (the date is required: never 'today')."""

    permission: ClassVar[str] = "clock.closure"
    update: ClassVar[str] = "add_local_closure"

    def __post_init__(self) -> None:
        object.__setattr__(self, "date", check_date(self.date, "date", required=True))

    def payload(self, by: str, when: str) -> Any:
        return LocalClosureInput(when, by, self.note)


@dataclass(frozen=True, kw_only=True)
class RebaseClock(ClockEventRequest):
    """Apply the current rule pack and calendar layers to a running clock (shot-clocks.md
    8.9). Its payload carries the data, read by the action (ClockActions.rebase_payload)."""

    permission: ClassVar[str] = "clock.rebase"
    update: ClassVar[str] = "rebase"
    reason: str

    def __post_init__(self) -> None:
        super().__post_init__()
        reason = str(self.reason or "").strip()
        if not reason:
            raise bad("reason: say why the clock is rebased (it goes into the ledger)")
        object.__setattr__(self, "reason", reason)

    def payload(self, by: str, when: str) -> Any:
        raise TypeError("a rebase payload is built by ClockActions.rebase_payload")


CLOCK_REQUESTS: dict[str, type[ClockEventRequest]] = {
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
        RebaseClock,
    )
}


def clock_request(action: str, application_id: str, fields: dict[str, Any]) -> ClockEventRequest:
    """The request for `action` (a clock.* permission) from a form's or body's fields."""
    kind = CLOCK_REQUESTS.get(action)
    if kind is None:
        raise ActionFailed(f"there is no action {action!r}", 404)
    common: dict[str, Any] = {
        "application_id": application_id,
        "date": fields.get("date"),
        "note": fields.get("note") or "",
    }
    if kind is RecordNotice:
        return RecordNotice(**common, items=fields.get("items") or [])
    if kind is RecordTollingAgreement:
        return RecordTollingAgreement(
            **common, days=fields.get("days"), new_date=fields.get("new_date")
        )
    if kind is RecordDecision:
        return RecordDecision(**common, outcome=_text(fields.get("outcome")))
    if kind in (RecordApplicantNotice, RecordNonTollingEvent):
        return kind(**common, kind=_text(fields.get("kind")))  # type: ignore[call-arg]
    if kind is RebaseClock:
        return RebaseClock(**common, reason=_text(fields.get("reason")))
    return kind(**common)


def open_request(fields: dict[str, Any]) -> OpenApplication:
    """OpenApplication from a form (text fields) or a JSON body (lists)."""

    def listed(value: Any) -> list[str]:
        if isinstance(value, list):
            return [str(v) for v in value]
        return [v for v in re.split(r"[,\s]+", str(value or "")) if v]

    offsets = fields.get("reminder_offsets")
    return OpenApplication(
        application_id=_text(fields.get("application_id")),
        planner_email=_text(fields.get("planner_email")),
        category=_text(fields.get("category")) or None,
        batch=listed(fields.get("batch")),
        jurisdiction=_text(fields.get("jurisdiction")),
        submitted=_text(fields.get("submitted")) or None,
        pre_application=_text(fields.get("pre_application")) or None,
        site_address=_text(fields.get("site_address")),
        description=_text(fields.get("description")),
        applicant_name=_text(fields.get("applicant_name")),
        applicant_email=_text(fields.get("applicant_email")),
        supervisor_email=_text(fields.get("supervisor_email")),
        attorney_email=_text(fields.get("attorney_email")),
        reminder_offsets=None if offsets in (None, "", []) else listed(offsets),  # type: ignore[arg-type]
    )


# -- conditions and projects ----------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ProjectRequest:
    permission: ClassVar[str]
    update: ClassVar[str]
    project_id: str

    def payload(self, actor: Actor) -> Any:
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class SubmitEvidence(ProjectRequest):
    permission: ClassVar[str] = "condition.submit_evidence"
    update: ClassVar[str] = "submit_evidence"
    number: str
    description: str
    filename: str = ""
    document_date: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "description", _text(self.description))
        object.__setattr__(self, "filename", _text(self.filename))
        object.__setattr__(self, "document_date", check_date(self.document_date, "document_date"))

    def payload(self, actor: Actor) -> Any:
        return SubmitEvidenceInput(
            self.number, actor, self.description, self.filename, self.document_date
        )


@dataclass(frozen=True, kw_only=True)
class ReviewCondition(ProjectRequest):
    permission: ClassVar[str] = "condition.review"
    update: ClassVar[str] = "review_condition"
    number: str
    decision: str
    comment: str = ""

    def __post_init__(self) -> None:
        if self.decision not in REVIEW_DECISIONS:
            raise bad(f"decision: one of {', '.join(REVIEW_DECISIONS)}")

    def payload(self, actor: Actor) -> Any:
        return ReviewInput(self.number, actor, self.decision, _text(self.comment))


@dataclass(frozen=True, kw_only=True)
class ResolveCondition(ProjectRequest):
    """Waive, not applicable, or satisfied by an alternative: each has its own roles."""

    permission: ClassVar[str] = "condition.resolve"
    update: ClassVar[str] = "resolve_condition"
    number: str
    resolution: str
    reason: str

    def __post_init__(self) -> None:
        if self.resolution not in RESOLUTION_ACTIONS:
            raise bad(f"resolution: one of {', '.join(RESOLUTION_ACTIONS)}")

    @property
    def required_permission(self) -> str:
        return RESOLUTION_ACTIONS[self.resolution]

    def payload(self, actor: Actor) -> Any:
        return ResolveInput(self.number, actor, self.resolution, _text(self.reason))


@dataclass(frozen=True, kw_only=True)
class TriggerCondition(ProjectRequest):
    permission: ClassVar[str] = "condition.trigger"
    update: ClassVar[str] = "trigger_condition"
    number: str
    reason: str

    def payload(self, actor: Actor) -> Any:
        return TriggerInput(self.number, actor, _text(self.reason))


@dataclass(frozen=True, kw_only=True)
class CorrectCondition(ProjectRequest):
    permission: ClassVar[str] = "condition.correct"
    update: ClassVar[str] = "correct_condition"
    number: str
    reason: str
    gates: list[str] | None = None
    kind: str | None = None
    department_key: str | None = None

    def __post_init__(self) -> None:
        gates: Any = self.gates
        if isinstance(gates, str):
            gates = [g for g in re.split(r"[,\s]+", gates) if g] or None
        object.__setattr__(self, "gates", gates or None)
        object.__setattr__(self, "kind", _text(self.kind) or None)
        object.__setattr__(self, "department_key", _text(self.department_key) or None)

    def payload(self, actor: Actor) -> Any:
        return CorrectionInput(
            self.number, actor, _text(self.reason), self.gates, self.kind, self.department_key
        )


PLAN_DATES = ("groundbreaking", "grading_start", "grading_end", "construction_end")


@dataclass(frozen=True, kw_only=True)
class PlanDates(ProjectRequest):
    permission: ClassVar[str] = "project.plan"
    update: ClassVar[str] = "set_planned_dates"
    groundbreaking: str | None = None
    grading_start: str | None = None
    grading_end: str | None = None
    construction_end: str | None = None
    milestone_targets: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in PLAN_DATES:
            object.__setattr__(self, name, check_date(getattr(self, name), name))
        targets = self.milestone_targets or {}
        if not isinstance(targets, dict):
            raise bad("milestone_targets: give an object of milestone: date")
        object.__setattr__(
            self,
            "milestone_targets",
            {
                str(m): check_date(v, f"target for {m}", required=True) or ""
                for m, v in targets.items()
                if _text(v)
            },
        )

    def payload(self, actor: Actor) -> Any:
        return PlannedDatesInput(
            actor,
            self.groundbreaking,
            self.grading_start,
            self.grading_end,
            self.construction_end,
            milestone_targets=dict(self.milestone_targets),
        )


@dataclass(frozen=True, kw_only=True)
class SignOffMilestone(ProjectRequest):
    permission: ClassVar[str] = "project.sign_off"
    update: ClassVar[str] = "sign_off_milestone"
    milestone: str

    def __post_init__(self) -> None:
        _required(_text(self.milestone), "milestone", "say which milestone to sign off")

    def payload(self, actor: Actor) -> Any:
        return SignOffInput(_text(self.milestone), actor)


@dataclass(frozen=True, kw_only=True)
class SendDigest(ProjectRequest):
    permission: ClassVar[str] = "project.digest"
    update: ClassVar[str] = "send_digest"
    milestone: str | None = None

    def payload(self, actor: Actor) -> Any:
        return DigestRequestInput(actor, _text(self.milestone) or None)


def condition_request(
    action: str, project_id: str, number: str, fields: dict[str, Any]
) -> ProjectRequest:
    """The request for a condition.* action from a form's or body's fields."""
    text = lambda key: _text(fields.get(key))  # noqa: E731
    if action == "condition.submit_evidence":
        return SubmitEvidence(
            project_id=project_id,
            number=number,
            description=text("description"),
            filename=text("filename"),
            document_date=fields.get("document_date"),
        )
    if action == "condition.review":
        return ReviewCondition(
            project_id=project_id,
            number=number,
            decision=text("decision"),
            comment=text("comment"),
        )
    if action in ("condition.resolve", *RESOLUTION_ACTIONS.values()):
        return ResolveCondition(
            project_id=project_id,
            number=number,
            resolution=text("resolution"),
            reason=text("reason"),
        )
    if action == "condition.trigger":
        return TriggerCondition(project_id=project_id, number=number, reason=text("reason"))
    if action == "condition.correct":
        return CorrectCondition(
            project_id=project_id,
            number=number,
            reason=text("reason"),
            gates=fields.get("gates"),
            kind=fields.get("kind"),
            department_key=fields.get("department_key"),
        )
    raise ActionFailed(f"there is no action {action!r}", 404)


def project_request(action: str, project_id: str, fields: dict[str, Any]) -> ProjectRequest:
    """The request for a project.* action from a form's or body's fields."""
    if action == "project.sign_off":
        return SignOffMilestone(project_id=project_id, milestone=_text(fields.get("milestone")))
    if action == "project.plan":
        return PlanDates(
            project_id=project_id,
            **{k: fields.get(k) for k in PLAN_DATES},
            milestone_targets=fields.get("milestone_targets") or {},
        )
    if action == "project.digest":
        return SendDigest(project_id=project_id, milestone=_text(fields.get("milestone")) or None)
    raise ActionFailed(f"there is no action {action!r}", 404)


# -- importing a resolution ---------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ImportProject:
    """A parsed resolution (the parse contract), reviewed and corrected, becomes a project,
    or, with `existing`, joins an existing project (an amendment, a further approval).
    `corrections` is {number: {"gates"|"kind"|"department"|"time_limits": value}} (time
    limits in their short form, rules/conditions/time_limits.py); `prefix` numbers the
    conditions apart ("A-" gives "A-1"); `approved_on` is the adoption date when the parse
    found none (the `approval` their time limits count from)."""

    permission: ClassVar[str] = "project.import"
    project_id: str
    resolution: ParsedResolution
    name: str = ""
    project_manager_email: str = ""
    applicant_email: str = ""
    applicant_name: str = ""
    jurisdiction: str = ""
    corrections: dict[str, dict[str, str]] = field(default_factory=dict)
    existing: bool = False
    prefix: str = ""
    approved_on: str | None = None

    def __post_init__(self) -> None:
        pid = _text(self.project_id)
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", pid):
            raise bad(f"project_id: letters, digits, '.', '_' and '-' only, not {pid!r}")
        object.__setattr__(self, "project_id", pid)
        if not self.existing:
            _required(_text(self.name), "name", "give the project a name")
            for name in ("project_manager_email", "applicant_email"):
                if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", _text(getattr(self, name))):
                    raise bad(f"{name}: give an e-mail address")
        prefix = _text(self.prefix)
        if prefix and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.-]{0,9}", prefix):
            raise bad("prefix: up to 10 letters, digits, '.' or '-' (e.g. A-)")
        object.__setattr__(self, "prefix", prefix)
        approved = _text(self.approved_on) or None
        if approved and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", approved):
            raise bad("approved_on: give the adoption date as YYYY-MM-DD")
        object.__setattr__(self, "approved_on", approved)
        if not self.resolution.conditions:
            raise bad("resolution: no conditions were found in it")


def resolution_from_contract(raw: Any) -> ParsedResolution:
    """The parse contract's JSON (conditions.md §6) back into a ParsedResolution."""
    if not isinstance(raw, dict) or not isinstance(raw.get("conditions"), list):
        raise bad("resolution: give the parse contract {title, conditions, warnings}")

    def subs(items: Any, where: str) -> list[SubItem]:
        if not isinstance(items, list):
            raise bad(f"{where}.sub_items: give a list")
        return [
            SubItem(
                _text(s.get("label")),
                str(s.get("text") or ""),
                subs(s.get("sub_items") or [], where),
            )
            for s in items
            if isinstance(s, dict)
        ]

    conditions = []
    for i, c in enumerate(raw["conditions"]):
        where = f"resolution.conditions[{i}]"
        if not isinstance(c, dict):
            raise bad(f"{where}: give an object")
        number, text = _text(c.get("number")), str(c.get("text") or "")
        gates = c.get("gates")
        if not number or not text.strip() or not isinstance(gates, list):
            raise bad(f"{where}: needs a number, text and a list of gates")
        time_limits = c.get("time_limits") or []
        if not isinstance(time_limits, list) or not all(isinstance(t, dict) for t in time_limits):
            raise bad(f"{where}.time_limits: give a list of objects")
        conditions.append(
            ConditionSpec(
                number=number,
                code=c.get("code") or None,
                department=str(c["department"]) if c.get("department") else None,
                section=c.get("section") or None,
                text=text,
                gates=[str(g) for g in gates],
                gate_source=str(c.get("gate_source") or "none"),
                kind=str(c.get("kind") or "requirement"),
                sub_items=subs(c.get("sub_items") or [], where),
                related=[str(r) for r in c.get("related") or []],
                time_limits=[dict(t) for t in time_limits],
            )
        )
    warnings = raw.get("warnings") or []
    adopted = raw.get("adopted")
    return ParsedResolution(
        title=str(raw.get("title") or ""),
        conditions=conditions,
        warnings=[str(w) for w in warnings] if isinstance(warnings, list) else [],
        adopted=check_date(adopted, "resolution.adopted") if adopted else None,
    )
