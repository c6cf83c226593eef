"""initial schema

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "applicant_links",
        sa.Column("link_id", sa.String(length=40), nullable=False),
        sa.Column("scope", sa.String(length=20), nullable=False),
        sa.Column("scope_id", sa.String(length=100), nullable=False),
        sa.Column("email", sa.String(length=200), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_by", sa.String(length=200), nullable=False),
        sa.PrimaryKeyConstraint("link_id"),
    )
    with op.batch_alter_table("applicant_links", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_applicant_links_scope_id"), ["scope_id"], unique=False)

    op.create_table(
        "applications",
        sa.Column("application_id", sa.String(length=100), nullable=False),
        sa.Column("workflow_id", sa.String(length=200), nullable=False),
        sa.Column("jurisdiction", sa.String(length=100), nullable=False),
        sa.Column("state", sa.String(length=2), nullable=True),
        sa.Column("category", sa.String(length=50), nullable=False),
        sa.Column("batch", sa.JSON(), nullable=False),
        sa.Column("site_address", sa.String(length=300), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("applicant_name", sa.String(length=200), nullable=False),
        sa.Column("applicant_email", sa.String(length=200), nullable=False),
        sa.Column("planner_email", sa.String(length=200), nullable=False),
        sa.Column("supervisor_email", sa.String(length=200), nullable=False),
        sa.Column("attorney_email", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=40), nullable=False),
        sa.Column("start_date", sa.String(length=10), nullable=True),
        sa.Column("shot_clock_date", sa.String(length=10), nullable=True),
        sa.Column("conservative_date", sa.String(length=10), nullable=True),
        sa.Column("tolled_days", sa.Integer(), nullable=False),
        sa.Column("reset_on", sa.String(length=10), nullable=True),
        sa.Column("judicial_review_deadline", sa.String(length=10), nullable=True),
        sa.Column("risk_flagged", sa.Boolean(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("application_id"),
    )
    with op.batch_alter_table("applications", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_applications_conservative_date"), ["conservative_date"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_applications_jurisdiction"), ["jurisdiction"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_applications_status"), ["status"], unique=False)

    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("project_id", sa.String(length=100), nullable=False),
        sa.Column("audit_id", sa.String(length=100), nullable=False),
        sa.Column("at", sa.String(length=40), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=40), nullable=False),
        sa.Column("action", sa.String(length=60), nullable=False),
        sa.Column("condition_number", sa.String(length=20), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("project_id", "audit_id"),
    )
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_audit_log_project_id"), ["project_id"], unique=False)

    op.create_table(
        "closure_days",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("jurisdiction", sa.String(length=100), nullable=False),
        sa.Column("date", sa.String(length=10), nullable=False),
        sa.Column("reason", sa.String(length=300), nullable=False),
        sa.Column("added_by", sa.String(length=200), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("applications", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("jurisdiction", "date"),
    )
    op.create_table(
        "evidence_files",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("scope", sa.String(length=20), nullable=False),
        sa.Column("scope_id", sa.String(length=100), nullable=False),
        sa.Column("condition_number", sa.String(length=20), nullable=True),
        sa.Column("filename", sa.String(length=300), nullable=False),
        sa.Column("content_type", sa.String(length=100), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("uploaded_by", sa.String(length=200), nullable=False),
        sa.Column("link_id", sa.String(length=40), nullable=True),
        sa.Column("uploaded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("evidence_files", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_evidence_files_scope_id"), ["scope_id"], unique=False)

    op.create_table(
        "notices",
        sa.Column("notice_key", sa.String(length=300), nullable=False),
        sa.Column("application_id", sa.String(length=100), nullable=False),
        sa.Column("kind", sa.String(length=50), nullable=False),
        sa.Column("subject", sa.String(length=500), nullable=False),
        sa.Column("to_addrs", sa.JSON(), nullable=False),
        sa.Column("cc_addrs", sa.JSON(), nullable=False),
        sa.Column("message_id", sa.String(length=300), nullable=False),
        sa.Column("body_text", sa.Text(), nullable=False),
        sa.Column("body_html", sa.Text(), nullable=False),
        sa.Column("delivery_state", sa.String(length=20), nullable=False),
        sa.Column("transport", sa.String(length=20), nullable=False),
        sa.Column("location", sa.String(length=500), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("notice_key"),
    )
    with op.batch_alter_table("notices", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_notices_application_id"), ["application_id"], unique=False
        )
        batch_op.create_index("ix_notices_created_at", ["created_at"], unique=False)

    op.create_table(
        "operator_alerts",
        sa.Column("alert_key", sa.String(length=350), nullable=False),
        sa.Column("kind", sa.String(length=50), nullable=False),
        sa.Column("subject_key", sa.String(length=300), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("recipient", sa.String(length=200), nullable=False),
        sa.Column("location", sa.String(length=500), nullable=False),
        sa.Column("raised_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("alert_key"),
    )
    with op.batch_alter_table("operator_alerts", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_operator_alerts_subject_key"), ["subject_key"], unique=False
        )

    op.create_table(
        "projects",
        sa.Column("project_id", sa.String(length=100), nullable=False),
        sa.Column("workflow_id", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=300), nullable=False),
        sa.Column("jurisdiction", sa.String(length=100), nullable=False),
        sa.Column("resolution_title", sa.Text(), nullable=False),
        sa.Column("applicant_name", sa.String(length=200), nullable=False),
        sa.Column("applicant_email", sa.String(length=200), nullable=False),
        sa.Column("project_manager_email", sa.String(length=200), nullable=False),
        sa.Column("next_milestone", sa.String(length=60), nullable=True),
        sa.Column("next_milestone_blockers", sa.Integer(), nullable=False),
        sa.Column("open_conditions", sa.Integer(), nullable=False),
        sa.Column("planned", sa.JSON(), nullable=False),
        sa.Column("signoffs", sa.JSON(), nullable=False),
        sa.Column("departments", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("project_id"),
    )
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_projects_jurisdiction"), ["jurisdiction"], unique=False
        )

    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("email", sa.String(length=200), nullable=False),
        sa.Column("password_hash", sa.String(length=300), nullable=False),
        sa.Column("role", sa.String(length=40), nullable=False),
        sa.Column("department", sa.String(length=40), nullable=False),
        sa.Column("display_name", sa.String(length=200), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("email"),
    )
    op.create_table(
        "api_tokens",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_tokens_user_id"), ["user_id"], unique=False)

    op.create_table(
        "calendar_tokens",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    with op.batch_alter_table("calendar_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_calendar_tokens_user_id"), ["user_id"], unique=False)

    op.create_table(
        "clock_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("application_id", sa.String(length=100), nullable=False),
        sa.Column("event_id", sa.String(length=100), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("date", sa.String(length=10), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("recorded_by", sa.String(length=200), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["application_id"],
            ["applications.application_id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("application_id", "event_id"),
    )
    with op.batch_alter_table("clock_events", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_clock_events_application_id"), ["application_id"], unique=False
        )

    op.create_table(
        "conditions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("project_id", sa.String(length=100), nullable=False),
        sa.Column("number", sa.String(length=20), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=30), nullable=True),
        sa.Column("department", sa.String(length=200), nullable=False),
        sa.Column("department_key", sa.String(length=40), nullable=False),
        sa.Column("section", sa.String(length=300), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("gates", sa.JSON(), nullable=False),
        sa.Column("gate_source", sa.String(length=20), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=30), nullable=False),
        sa.Column("triggered", sa.Boolean(), nullable=False),
        sa.Column("submitted_at", sa.String(length=40), nullable=True),
        sa.Column("resolution_reason", sa.Text(), nullable=False),
        sa.Column("evidence", sa.JSON(), nullable=False),
        sa.Column("comments", sa.JSON(), nullable=False),
        sa.Column("sub_items", sa.JSON(), nullable=False),
        sa.Column("related", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.project_id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("project_id", "number"),
    )
    with op.batch_alter_table("conditions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_conditions_department_key"), ["department_key"], unique=False
        )
        batch_op.create_index(
            "ix_conditions_department_status_submitted",
            ["department_key", "status", "submitted_at", "id"],
            unique=False,
        )
        batch_op.create_index(batch_op.f("ix_conditions_project_id"), ["project_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_conditions_status"), ["status"], unique=False)
        batch_op.create_index(
            "ix_conditions_status_submitted", ["status", "submitted_at", "id"], unique=False
        )

    op.create_table(
        "web_sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("csrf_token", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    with op.batch_alter_table("web_sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_web_sessions_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("web_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_web_sessions_user_id"))

    op.drop_table("web_sessions")
    with op.batch_alter_table("conditions", schema=None) as batch_op:
        batch_op.drop_index("ix_conditions_status_submitted")
        batch_op.drop_index(batch_op.f("ix_conditions_status"))
        batch_op.drop_index(batch_op.f("ix_conditions_project_id"))
        batch_op.drop_index("ix_conditions_department_status_submitted")
        batch_op.drop_index(batch_op.f("ix_conditions_department_key"))

    op.drop_table("conditions")
    with op.batch_alter_table("clock_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_clock_events_application_id"))

    op.drop_table("clock_events")
    with op.batch_alter_table("calendar_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_calendar_tokens_user_id"))

    op.drop_table("calendar_tokens")
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_tokens_user_id"))

    op.drop_table("api_tokens")
    op.drop_table("users")
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_projects_jurisdiction"))

    op.drop_table("projects")
    with op.batch_alter_table("operator_alerts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_operator_alerts_subject_key"))

    op.drop_table("operator_alerts")
    with op.batch_alter_table("notices", schema=None) as batch_op:
        batch_op.drop_index("ix_notices_created_at")
        batch_op.drop_index(batch_op.f("ix_notices_application_id"))

    op.drop_table("notices")
    with op.batch_alter_table("evidence_files", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_evidence_files_scope_id"))

    op.drop_table("evidence_files")
    op.drop_table("closure_days")
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_audit_log_project_id"))

    op.drop_table("audit_log")
    with op.batch_alter_table("applications", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_applications_status"))
        batch_op.drop_index(batch_op.f("ix_applications_jurisdiction"))
        batch_op.drop_index(batch_op.f("ix_applications_conservative_date"))

    op.drop_table("applications")
    with op.batch_alter_table("applicant_links", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_applicant_links_scope_id"))

    op.drop_table("applicant_links")
