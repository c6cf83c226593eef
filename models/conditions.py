"""Plain dataclasses for conditions of approval: what the parser emits, what the project
workflow keeps, and what crosses into activities. Dates are ISO strings."""

# No `from __future__ import annotations`: Temporal's converter reads these dataclasses'
# field types with typing.get_type_hints on every decode, and string annotations cost a
# compile and an eval per field each time (a tenth of the worker's time in an 08:00
# storm, docs/storm.md). Forward references are quoted instead.

from dataclasses import dataclass, field
from typing import Any

# Statuses a condition can be in (reference conditions.md §5).
OPEN = "open"
SUBMITTED = "submitted"
IN_REVIEW = "in_review"
CLEARED = "cleared"
RETURNED = "returned"
WAIVED = "waived"
NOT_APPLICABLE = "not_applicable"
SATISFIED_BY_ALTERNATIVE = "satisfied_by_alternative"
RESOLVED_STATUSES = frozenset({CLEARED, WAIVED, NOT_APPLICABLE, SATISFIED_BY_ALTERNATIVE})

KINDS = ("requirement", "conditional", "waivable", "advisory", "recurring", "event", "seasonal")


@dataclass
class SubItem:
    label: str
    text: str
    sub_items: list["SubItem"] = field(default_factory=list)


@dataclass
class ConditionSpec:
    """One condition as printed in the resolution (the parse contract, §6)."""

    number: str
    code: str | None
    department: str | None  # the heading as printed, a prefix's department, or None
    section: str | None
    text: str
    gates: list[str]
    gate_source: str  # explicit | section | department | none | corrected
    kind: str
    sub_items: list[SubItem] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    # §8: {"kind": expiry|term|until|due, "days"|"months"|"until", "anchor", "extensions",
    # "text"}; plain dicts in the contract's shape so the permit-clock hook reads them as is.
    time_limits: list[dict[str, Any]] = field(default_factory=list)
    # §9: the page it was printed on (1-based; None when unknown), who named the department
    # (heading | prefix | text | None), how sure the parse is (high | medium | low), the
    # words that set its number, gates, department, kind and time limits, and the warnings
    # about it.
    page: int | None = None
    department_source: str | None = None
    confidence: str = "high"
    evidence: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_contract(self) -> dict[str, Any]:
        def sub(items: list[SubItem]) -> list[dict[str, Any]]:
            return [
                {"label": s.label, "text": s.text, "sub_items": sub(s.sub_items)} for s in items
            ]

        return {
            "number": self.number,
            "code": self.code,
            "department": self.department,
            "section": self.section,
            "text": self.text,
            "gates": list(self.gates),
            "gate_source": self.gate_source,
            "kind": self.kind,
            "time_limits": [dict(t) for t in self.time_limits],
            "sub_items": sub(self.sub_items),
            "related": list(self.related),
            "page": self.page,
            "department_source": self.department_source,
            "confidence": self.confidence,
            "evidence": dict(self.evidence),
            "warnings": list(self.warnings),
        }


@dataclass
class ParsedResolution:
    title: str
    conditions: list[ConditionSpec]
    warnings: list[str] = field(default_factory=list)
    adopted: str | None = None  # ISO date the resolution was adopted (the approval), if printed

    def to_contract(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "adopted": self.adopted,
            "conditions": [c.to_contract() for c in self.conditions],
            "warnings": list(self.warnings),
        }


# -- tracking: what the project workflow keeps --------------------------------------------


@dataclass
class Actor:
    """Who acts, in which role; department for department reviewers."""

    email: str
    role: str  # project_manager | engineering | department_reviewer | planning_manager |
    #            city_attorney | admin | applicant
    department: str = ""


@dataclass
class Evidence:
    evidence_id: str
    description: str
    filename: str
    submitted_by: str
    submitted_at: str  # ISO datetime
    document_date: str | None = None  # e.g. the date of a title report (freshness rules)


@dataclass
class Comment:
    author: str
    at: str
    text: str


@dataclass
class AuditEvent:
    """Every change: who, when, why. Corrections are audited events, never silent edits."""

    audit_id: str
    at: str
    actor: str
    role: str
    action: str
    condition_number: str | None
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class ConditionState:
    spec: ConditionSpec
    department_key: str
    status: str = OPEN
    triggered: bool = False
    submitted_at: str | None = None
    resolution_reason: str = ""
    evidence: list[Evidence] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    # The owner the project manager chose; '' until then: the department's reviewer owns it.
    owner_email: str = ""


@dataclass
class DepartmentContact:
    department_key: str
    name: str
    reviewer_email: str
    head_email: str


@dataclass
class ProjectInfo:
    project_id: str
    name: str
    jurisdiction: str
    resolution_title: str
    applicant_name: str
    applicant_email: str
    project_manager_email: str
    departments: list[DepartmentContact]
    review_sla_business_days: int = 10
    escalation_after_business_days: int = 5
    time_zone: str = "America/Los_Angeles"
    state: str | None = "CA"
    local_holidays: list[str] = field(default_factory=list)
    milestones: list[str] = field(default_factory=list)
    # The resolution's adoption date: the anchor `approval` of the conditions' time limits.
    approved_on: str | None = None
    # The city's reminder ladder, frozen at import (rules.kernel.jurisdictions
    # ReminderLadder): the weekly digest's weekday (None: none), the digests before a
    # milestone's target date, and the reminders before a condition's due date (None:
    # each window rule's own).
    digest_weekday: int | None = 0
    target_digest_offsets: list[int] = field(default_factory=lambda: [14, 7])
    condition_due_offsets: list[int] | None = None


@dataclass
class MilestoneSignoff:
    milestone: str
    signed_by: str
    at: str


@dataclass
class ProjectInput:
    info: ProjectInfo
    conditions: list[ConditionState]
    planned: dict[str, Any] = field(default_factory=dict)
    signoffs: list[MilestoneSignoff] = field(default_factory=list)
    audit: list[AuditEvent] = field(default_factory=list)
    sent_alert_keys: list[str] = field(default_factory=list)
    skipped_alert_keys: list[str] = field(default_factory=list)
    sequence: int = 0
    imported_warnings: list[str] = field(default_factory=list)
    # Corrections staff made while reviewing the parse; each becomes an audit event.
    import_corrections: list[str] = field(default_factory=list)
    imported_by: str = ""
    # A project brought in from a caseload file: each status and sign-off it already had,
    # logged as audit events when the workflow starts (docs/onboarding.md).
    history: list[AuditEvent] = field(default_factory=list)
    # Staff paused the applicant's weekly and target-date digests (never a legal notice).
    digests_paused: bool = False


# -- update inputs: one dataclass per action ------------------------------------------------


@dataclass
class SubmitEvidenceInput:
    number: str
    actor: Actor
    description: str
    filename: str = ""
    document_date: str | None = None


@dataclass
class ReviewInput:
    number: str
    actor: Actor
    decision: str  # cleared | returned
    comment: str = ""


@dataclass
class ResolveInput:
    """Waive, mark not applicable, or satisfied by an alternative: reason required."""

    number: str
    actor: Actor
    resolution: str  # waived | not_applicable | satisfied_by_alternative
    reason: str


@dataclass
class ReassignConditionInput:
    """Hand a condition to another owner. The action layer reads the person's account
    (active, role, department) so the workflow's validator can refuse, deterministically,
    someone who cannot log in or cannot review the condition."""

    number: str
    actor: Actor
    owner: Actor  # the new owner's account (e-mail, role, department) as the action found it
    owner_active: bool
    reason: str = ""


@dataclass
class TriggerInput:
    number: str
    actor: Actor
    reason: str


@dataclass
class PlannedDatesInput:
    actor: Actor
    groundbreaking: str | None = None
    grading_start: str | None = None
    grading_end: str | None = None
    construction_end: str | None = None
    milestone_targets: dict[str, str] = field(default_factory=dict)


@dataclass
class SignOffInput:
    milestone: str
    actor: Actor


@dataclass
class CorrectionInput:
    number: str
    actor: Actor
    reason: str
    gates: list[str] | None = None
    kind: str | None = None
    department_key: str | None = None


@dataclass
class ImportConditionsInput:
    """Add a further resolution's conditions to an existing project (an amendment, a second
    approval): the reviewed and corrected parse, each correction audited."""

    actor: Actor
    conditions: list[ConditionState]
    resolution_title: str
    warnings: list[str] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)
    approved_on: str | None = None


@dataclass
class ActionResult:
    ok: bool
    message: str
    condition: dict[str, Any] | None = None


@dataclass
class ProjectRecord:
    """Upsert a project and the conditions that changed since the last record; append new
    audit rows. Only what changed travels, so a project's history stays small over years."""

    info: ProjectInfo
    conditions: list[ConditionState]
    positions: list[int]  # each condition's place in the resolution, parallel to `conditions`
    audit: list[AuditEvent]
    signoffs: list[MilestoneSignoff]
    planned: dict[str, Any]
    workflow_id: str
    next_milestone: str | None = None
    next_milestone_blockers: int = 0
    open_conditions: int = 0
    digests_paused: bool = False


@dataclass
class ProjectNoticeRequest:
    """Render and deliver one project notice; `notice_key` makes it exactly-once.

    kinds: review_reminder, review_escalation, applicant_digest, window_reminder,
    construction_checkin, signoff_confirmation.
    """

    notice_key: str
    kind: str
    project: ProjectInfo
    to: list[str]
    cc: list[str]
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class DigestPauseInput:
    """Pause (or resume) the applicant's scheduled digests, with the reason."""

    actor: Actor
    paused: bool
    reason: str = ""


@dataclass
class DigestRequestInput:
    """Send the applicant their digest now (for one milestone, or the next one)."""

    actor: Actor
    milestone: str | None = None
