"""SQLAlchemy schema: the read model for dashboards, reports and the CLI's lists.

Workflows are the source of truth; activities keep these tables current and every
write is an upsert keyed by something stable, so a retried activity writes no second row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class Application(Base):
    """A wireless application and the latest computation of its shot clock."""

    __tablename__ = "applications"
    __table_args__ = (
        # Nearest first without a sort; the second finds earlier windows closed since.
        Index("ix_applications_status_window", "status", "notice_window_closes", "application_id"),
        Index(
            "ix_applications_status_last_window",
            "status",
            "notice_window_last_closes",
            "notice_window_closes",
        ),
    )

    application_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    workflow_id: Mapped[str] = mapped_column(String(200))
    jurisdiction: Mapped[str] = mapped_column(String(100), index=True)
    state: Mapped[str | None] = mapped_column(String(2))
    category: Mapped[str] = mapped_column(String(50))
    batch: Mapped[list[Any]] = mapped_column(JSON, default=list)
    site_address: Mapped[str] = mapped_column(String(300), default="")
    description: Mapped[str] = mapped_column(Text, default="")
    applicant_name: Mapped[str] = mapped_column(String(200), default="")
    applicant_email: Mapped[str] = mapped_column(String(200), default="")
    planner_email: Mapped[str] = mapped_column(String(200), default="")
    supervisor_email: Mapped[str] = mapped_column(String(200), default="")
    attorney_email: Mapped[str] = mapped_column(String(200), default="")
    status: Mapped[str] = mapped_column(String(40), index=True)
    start_date: Mapped[str | None] = mapped_column(String(10))
    shot_clock_date: Mapped[str | None] = mapped_column(String(10))
    conservative_date: Mapped[str | None] = mapped_column(String(10), index=True)
    # The status under the earliest reading (shot-clocks.md 8.1): risk, colours, --at-risk.
    conservative_status: Mapped[str | None] = mapped_column(String(40), index=True)
    tolled_days: Mapped[int] = mapped_column(Integer, default=0)
    reset_on: Mapped[str | None] = mapped_column(String(10))
    judicial_review_deadline: Mapped[str | None] = mapped_column(String(10))
    # The earliest and the latest closing day among the clock's notice windows that were
    # open when it was recorded: the inboxes find the windows about to close by these
    # (indexes below), not by reading every running clock's windows.
    notice_window_closes: Mapped[str | None] = mapped_column(String(10))
    notice_window_last_closes: Mapped[str | None] = mapped_column(String(10))
    risk_flagged: Mapped[bool] = mapped_column(Boolean, default=False)
    clock: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ClockEventRow(Base):
    """One recorded timeline event; (application, event id) is unique."""

    __tablename__ = "clock_events"
    __table_args__ = (UniqueConstraint("application_id", "event_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    application_id: Mapped[str] = mapped_column(
        ForeignKey("applications.application_id"), index=True
    )
    event_id: Mapped[str] = mapped_column(String(100))
    type: Mapped[str] = mapped_column(String(40))
    date: Mapped[str] = mapped_column(String(10))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    recorded_by: Mapped[str] = mapped_column(String(200), default="")
    note: Mapped[str] = mapped_column(Text, default="")
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Notice(Base):
    """One notice, rendered and (once delivered) sent exactly once by its key."""

    __tablename__ = "notices"

    notice_key: Mapped[str] = mapped_column(String(300), primary_key=True)
    application_id: Mapped[str] = mapped_column(String(100), index=True)
    kind: Mapped[str] = mapped_column(String(50))
    subject: Mapped[str] = mapped_column(String(500))
    to_addrs: Mapped[list[Any]] = mapped_column(JSON, default=list)
    cc_addrs: Mapped[list[Any]] = mapped_column(JSON, default=list)
    message_id: Mapped[str] = mapped_column(String(300))
    body_text: Mapped[str] = mapped_column(Text)
    body_html: Mapped[str] = mapped_column(Text)
    delivery_state: Mapped[str] = mapped_column(String(20), default="pending")
    transport: Mapped[str] = mapped_column(String(20), default="")
    location: Mapped[str] = mapped_column(String(500), default="")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Project(Base):
    """A development project with conditions of approval (read model of ProjectWorkflow)."""

    __tablename__ = "projects"

    project_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    workflow_id: Mapped[str] = mapped_column(String(200))
    name: Mapped[str] = mapped_column(String(300))
    jurisdiction: Mapped[str] = mapped_column(String(100), index=True)
    resolution_title: Mapped[str] = mapped_column(Text, default="")
    applicant_name: Mapped[str] = mapped_column(String(200), default="")
    applicant_email: Mapped[str] = mapped_column(String(200), default="")
    project_manager_email: Mapped[str] = mapped_column(String(200), default="")
    next_milestone: Mapped[str | None] = mapped_column(String(60))
    next_milestone_blockers: Mapped[int] = mapped_column(Integer, default=0)
    open_conditions: Mapped[int] = mapped_column(Integer, default=0)
    # Staff paused the applicant's scheduled digests (legal notices are never paused).
    digests_paused: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Each milestone's progress (rules/conditions/progress.py), and for the inboxes: the
    # most urgent milestone's target date and how many milestones await a sign-off.
    milestones: Mapped[list[Any]] = mapped_column(JSON, default=list)
    urgent_target: Mapped[str | None] = mapped_column(String(10), index=True)
    signoff_ready: Mapped[int] = mapped_column(Integer, default=0)
    planned: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    signoffs: Mapped[list[Any]] = mapped_column(JSON, default=list)
    departments: Mapped[list[Any]] = mapped_column(JSON, default=list)
    # The resolution's adoption date (ISO): the `approval` anchor of its time limits.
    approved_on: Mapped[str | None] = mapped_column(String(10), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ConditionRow(Base):
    """One condition of approval and where it stands; (project, number) is unique."""

    __tablename__ = "conditions"
    __table_args__ = (UniqueConstraint("project_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.project_id"), index=True)
    number: Mapped[str] = mapped_column(String(20))
    position: Mapped[int] = mapped_column(Integer)
    code: Mapped[str | None] = mapped_column(String(30))
    department: Mapped[str] = mapped_column(String(200))
    department_key: Mapped[str] = mapped_column(String(40), index=True)
    section: Mapped[str | None] = mapped_column(String(300))
    text: Mapped[str] = mapped_column(Text)
    gates: Mapped[list[Any]] = mapped_column(JSON, default=list)
    gate_source: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(30), index=True)
    triggered: Mapped[bool] = mapped_column(Boolean, default=False)
    submitted_at: Mapped[str | None] = mapped_column(String(40))
    resolution_reason: Mapped[str] = mapped_column(Text, default="")
    evidence: Mapped[list[Any]] = mapped_column(JSON, default=list)
    comments: Mapped[list[Any]] = mapped_column(JSON, default=list)
    sub_items: Mapped[list[Any]] = mapped_column(JSON, default=list)
    related: Mapped[list[Any]] = mapped_column(JSON, default=list)
    # Time limits written in the condition (conditions.md §8), as parsed or corrected.
    time_limits: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    # Where the resolution printed it and how sure the parse was (§9); the words that set
    # its number, gates, department, kind and time limits (not `evidence`: the applicant's).
    page: Mapped[int | None] = mapped_column(Integer, nullable=True)
    confidence: Mapped[str | None] = mapped_column(String(10), nullable=True)
    department_source: Mapped[str | None] = mapped_column(String(10), nullable=True)
    parse_evidence: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # The owner the project manager chose (NULL: the department's reviewer owns it).
    owner_email: Mapped[str | None] = mapped_column(String(200), nullable=True)


class AuditRow(Base):
    """The audit log: every action on a project, appended once by its audit id."""

    __tablename__ = "audit_log"
    __table_args__ = (UniqueConstraint("project_id", "audit_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    project_id: Mapped[str] = mapped_column(String(100), index=True)
    audit_id: Mapped[str] = mapped_column(String(100))
    at: Mapped[str] = mapped_column(String(40))
    actor: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(40))
    action: Mapped[str] = mapped_column(String(60))
    condition_number: Mapped[str | None] = mapped_column(String(20))
    reason: Mapped[str] = mapped_column(Text, default="")
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # Tamper evidence (rules/audit_chain.py): the entry's place in its project's chain,
    # the hash of the entry before it, and its own hash over its content and that link.
    seq: Mapped[int | None] = mapped_column(Integer)
    prev_hash: Mapped[str] = mapped_column(String(64), default="")
    entry_hash: Mapped[str] = mapped_column(String(64), default="")


# -- Operations: alerts raised to the operator (owned by the operations code) -------------


class OperatorAlert(Base):
    """Something an operator must act on, raised once by its key (e.g. a notice whose
    delivery has kept failing); `resolved_at` is set when the cause has cleared."""

    __tablename__ = "operator_alerts"

    alert_key: Mapped[str] = mapped_column(String(350), primary_key=True)
    kind: Mapped[str] = mapped_column(String(50))
    subject_key: Mapped[str] = mapped_column(String(300), index=True)
    message: Mapped[str] = mapped_column(Text)
    recipient: Mapped[str] = mapped_column(String(200), default="")
    location: Mapped[str] = mapped_column(String(500), default="")
    raised_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


# -- web app access (issue 4): users, sessions, API tokens, applicant links, calendar
# tokens and uploaded evidence files. Secrets are never stored: only their sha256.


class User(Base):
    """A staff member who logs in to the web app; the role decides what they may do."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    email: Mapped[str] = mapped_column(String(200), unique=True)
    password_hash: Mapped[str] = mapped_column(String(300))
    role: Mapped[str] = mapped_column(String(40))
    department: Mapped[str] = mapped_column(String(40), default="")
    display_name: Mapped[str] = mapped_column(String(200), default="")
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ExternalIdentity(Base):
    """A staff user as an OpenID Connect provider knows them (issuer and subject): how a
    sign-in through the city's provider finds the account (docs/security.md)."""

    __tablename__ = "external_identities"
    __table_args__ = (UniqueConstraint("issuer", "subject"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    issuer: Mapped[str] = mapped_column(String(300))
    subject: Mapped[str] = mapped_column(String(300))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_login_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class WebSession(Base):
    """A logged-in browser: the cookie holds the secret, this row its hash and CSRF token."""

    __tablename__ = "web_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # When the session was last used (kept to the minute): idle past the setting, it ends.
    last_seen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class LoginThrottleRow(Base):
    """Failed log-ins counted per account, per (account, address) and per address, shared
    by every web process. The key is a hash, so no typed e-mail (or password typed into the
    e-mail field) is kept."""

    __tablename__ = "login_throttles"

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    scope: Mapped[str] = mapped_column(String(20))  # account | account_address | address
    failures: Mapped[int] = mapped_column(Integer, default=0)
    last_failure_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    blocked_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ApiToken(Base):
    """A bearer token for the JSON API, acting as its user within its scope (read: only
    reads; act: reads and actions) until it expires or is revoked (by its owner, or when
    the owner's password is changed or reset or the account disabled: revoked_reason)."""

    __tablename__ = "api_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    label: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    scope: Mapped[str] = mapped_column(String(10), default="act")  # read | act
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_reason: Mapped[str] = mapped_column(String(40), default="")


class ApplicantLink(Base):
    """A signed link an applicant uses for one project or application, until it expires
    or staff revoke it."""

    __tablename__ = "applicant_links"

    link_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    scope: Mapped[str] = mapped_column(String(20))  # project | application
    scope_id: Mapped[str] = mapped_column(String(100), index=True)
    email: Mapped[str] = mapped_column(String(200), default="")
    created_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_by: Mapped[str] = mapped_column(String(200), default="")


class CalendarToken(Base):
    """The secret in a user's ICS feed address; one live token per user."""

    __tablename__ = "calendar_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class EvidenceFile(Base):
    """A file uploaded as evidence, stored under the data folder by its sha256."""

    __tablename__ = "evidence_files"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    scope: Mapped[str] = mapped_column(String(20))  # project | application
    scope_id: Mapped[str] = mapped_column(String(100), index=True)
    condition_number: Mapped[str | None] = mapped_column(String(20))
    filename: Mapped[str] = mapped_column(String(300))
    content_type: Mapped[str] = mapped_column(String(100), default="")
    size: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    uploaded_by: Mapped[str] = mapped_column(String(200))
    link_id: Mapped[str | None] = mapped_column(String(40))
    uploaded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ClosureDay(Base):
    """A local closure an administrator added from the web app, and the clocks given it."""

    __tablename__ = "closure_days"
    __table_args__ = (UniqueConstraint("jurisdiction", "date"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    jurisdiction: Mapped[str] = mapped_column(String(100))
    date: Mapped[str] = mapped_column(String(10))
    reason: Mapped[str] = mapped_column(String(300), default="")
    added_by: Mapped[str] = mapped_column(String(200))
    added_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    applications: Mapped[list[Any]] = mapped_column(JSON, default=list)


# Review queues list submitted conditions oldest first, for one department or all: these
# indexes serve the filter and the order together (bench/web_pages.py: 45 ms to under 1 ms
# with 100,000 conditions). The outbox lists notices newest first.
Index(
    "ix_conditions_department_status_submitted",
    ConditionRow.department_key,
    ConditionRow.status,
    ConditionRow.submitted_at,
    ConditionRow.id,
)
Index(
    "ix_conditions_status_submitted",
    ConditionRow.status,
    ConditionRow.submitted_at,
    ConditionRow.id,
)
# The dashboard counts a city's queue (status, or department and status, and the city's
# projects): with project_id in the index the count never reads the table (migration 0020).
Index("ix_conditions_status_project", ConditionRow.status, ConditionRow.project_id)
Index(
    "ix_conditions_department_status_project",
    ConditionRow.department_key,
    ConditionRow.status,
    ConditionRow.project_id,
)
Index("ix_notices_created_at", Notice.created_at)


# -- Permit clocks (issue 10): PSA, HAA, AB 2234, SB 330, map/permit expirations, local
# rules; one row per permit or application, its chained clocks inside `clock["next"]`.


class PermitClockRow(Base):
    """A permit or application and the latest computation of its clock (read model of
    PermitClockWorkflow)."""

    __tablename__ = "permit_clocks"

    clock_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    workflow_id: Mapped[str] = mapped_column(String(200))
    jurisdiction: Mapped[str] = mapped_column(String(100), index=True)
    rule: Mapped[str] = mapped_column(String(80), index=True)
    citation: Mapped[str] = mapped_column(String(300), default="")
    rule_version: Mapped[str] = mapped_column(String(80), default="")
    provisional: Mapped[bool] = mapped_column(Boolean, default=False)
    title: Mapped[str] = mapped_column(String(300), default="")
    site_address: Mapped[str] = mapped_column(String(300), default="")
    companion_id: Mapped[str] = mapped_column(String(100), default="")
    project_id: Mapped[str | None] = mapped_column(String(100), index=True)
    condition_number: Mapped[str | None] = mapped_column(String(20))
    applicant_name: Mapped[str] = mapped_column(String(200), default="")
    applicant_email: Mapped[str] = mapped_column(String(200), default="")
    staff_email: Mapped[str] = mapped_column(String(200), default="")
    status: Mapped[str] = mapped_column(String(40), index=True)
    conservative_status: Mapped[str] = mapped_column(String(40), default="")
    consequence: Mapped[str] = mapped_column(String(60), default="")
    start_date: Mapped[str | None] = mapped_column(String(10))
    due_date: Mapped[str | None] = mapped_column(String(10))
    conservative_date: Mapped[str | None] = mapped_column(String(10), index=True)
    # The earliest conservative date over this clock and its chained clocks: what the
    # Deadlines list orders by.
    next_deadline: Mapped[str | None] = mapped_column(String(10), index=True)
    hard_stop: Mapped[str | None] = mapped_column(String(10))
    escalated: Mapped[bool] = mapped_column(Boolean, default=False)
    clock: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PermitEventRow(Base):
    """One recorded permit-clock event; (clock, event id) is unique."""

    __tablename__ = "permit_clock_events"
    __table_args__ = (UniqueConstraint("clock_id", "event_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    clock_id: Mapped[str] = mapped_column(ForeignKey("permit_clocks.clock_id"), index=True)
    event_id: Mapped[str] = mapped_column(String(100))
    type: Mapped[str] = mapped_column(String(40))
    date: Mapped[str] = mapped_column(String(10))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    recorded_by: Mapped[str] = mapped_column(String(200), default="")
    note: Mapped[str] = mapped_column(Text, default="")
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class CaseloadImport(Base):
    """One caseload file an administrator previewed or imported (docs/onboarding.md): the
    file itself (re-read, never trusted from a form, when the import is confirmed), the
    progress the page shows, and every row's error for the downloadable report."""

    __tablename__ = "caseload_imports"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))  # wireless | permits | projects
    filename: Mapped[str] = mapped_column(String(300))
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    content: Mapped[bytes] = mapped_column(LargeBinary)
    created_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    state: Mapped[str] = mapped_column(String(20))  # previewed | refused | running | done | failed
    total: Mapped[int] = mapped_column(Integer, default=0)
    done: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[int] = mapped_column(Integer, default=0)
    existing: Mapped[int] = mapped_column(Integer, default=0)
    errors: Mapped[list[Any]] = mapped_column(JSON, default=list)
    message: Mapped[str] = mapped_column(Text, default="")
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


# One entry per place in a project's audit chain: two writers racing would fail, not fork it.
Index("ux_audit_log_project_seq", AuditRow.project_id, AuditRow.seq, unique=True)


class IdempotencyRecord(Base):
    """The first outcome of a request sent with an idempotency key (the API's
    `Idempotency-Key` header, a form's hidden `idempotency_key`), per user: a retry with
    the same key gets this answer back instead of acting again (web/middleware/
    idempotency.py). `state` is "running" while the first attempt is served and "done"
    once its answer is stored; an answer that left the outcome unknown (5xx) is not
    stored, so its retry runs again, with the same Temporal update ids."""

    __tablename__ = "idempotency_keys"

    scope: Mapped[str] = mapped_column(String(80), primary_key=True)  # "user:<id>"
    idem_key: Mapped[str] = mapped_column(String(200), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))  # sha256 of method, path, body
    method: Mapped[str] = mapped_column(String(10))
    path: Mapped[str] = mapped_column(String(500))
    state: Mapped[str] = mapped_column(String(10))  # running | done
    # The process serving a running first attempt ("<host>:<pid>:<start>", migration
    # 0021): a retry that finds it gone takes the key over at once.
    holder: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[int | None] = mapped_column(Integer)
    headers: Mapped[list[Any] | None] = mapped_column(JSON)
    body: Mapped[bytes | None] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ReadinessProbe(Base):
    """One row that /readyz writes on each check: a database that can be read but not
    written (locked, read-only, out of space) is not ready."""

    __tablename__ = "readiness_probe"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    checked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# -- Jurisdictions an administrator manages (issue 29): every change is a new version,
# effective from a date and kept with who made it and why; the shipped files are the
# defaults until a city has a version here.


class JurisdictionVersion(Base):
    """One version of a jurisdiction's document (the same JSON a jurisdiction file holds),
    effective from a date; never updated or deleted (the audit of every change)."""

    __tablename__ = "jurisdiction_versions"
    __table_args__ = (UniqueConstraint("jurisdiction", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    jurisdiction: Mapped[str] = mapped_column(String(100), index=True)
    version: Mapped[int] = mapped_column(Integer)
    effective_from: Mapped[str] = mapped_column(String(10))
    document: Mapped[dict[str, Any]] = mapped_column(JSON)
    changed: Mapped[list[Any]] = mapped_column(JSON, default=list)
    actor: Mapped[str] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(Text, default="")
    # An audited rebase: a past closure may move running clocks' dates.
    rebase: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class UserJurisdiction(Base):
    """A staff user's role in one jurisdiction: a person may hold different roles in
    different cities, and a contract firm's manager may hold one in several. A user with
    none works in the deployment's default jurisdiction with their own role."""

    __tablename__ = "user_jurisdictions"
    __table_args__ = (UniqueConstraint("user_id", "jurisdiction"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    jurisdiction: Mapped[str] = mapped_column(String(100), index=True)
    role: Mapped[str] = mapped_column(String(40))
    department: Mapped[str] = mapped_column(String(40), default="")


# -- Outbound webhooks (issue 28, migration 0015): an integrator's subscription to deadline
# events, and each delivery of each event to it with its attempts (activities/webhooks.py).


class WebhookSubscription(Base):
    __tablename__ = "webhook_subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    url: Mapped[str] = mapped_column(String(500))
    # The HMAC-SHA256 key of X-Clearance-Signature; the receiver holds the same.
    secret: Mapped[str] = mapped_column(String(100))
    events: Mapped[list[Any]] = mapped_column(JSON, default=list)  # [] is every event
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_by: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class WebhookDelivery(Base):
    """One event for one subscription; (subscription, event key) is unique, so an event
    found again is never queued twice. `log` holds every attempt."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (UniqueConstraint("subscription_id", "event_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    subscription_id: Mapped[int] = mapped_column(ForeignKey("webhook_subscriptions.id"), index=True)
    event_key: Mapped[str] = mapped_column(String(300))
    event_type: Mapped[str] = mapped_column(String(40))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    state: Mapped[str] = mapped_column(String(20), default="pending", index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    last_error: Mapped[str] = mapped_column(Text, default="")
    log: Mapped[list[Any]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class WebhookCursor(Base):
    """How far the dispatcher has read each source of events (an id, or an instant)."""

    __tablename__ = "webhook_cursors"

    source: Mapped[str] = mapped_column(String(40), primary_key=True)
    last_id: Mapped[int] = mapped_column(Integer, default=0)
    last_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
