"""permit clocks: the read model of PermitClockWorkflow

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "permit_clocks",
        sa.Column("clock_id", sa.String(length=100), nullable=False),
        sa.Column("workflow_id", sa.String(length=200), nullable=False),
        sa.Column("jurisdiction", sa.String(length=100), nullable=False),
        sa.Column("rule", sa.String(length=80), nullable=False),
        sa.Column("citation", sa.String(length=300), nullable=False),
        sa.Column("rule_version", sa.String(length=80), nullable=False),
        sa.Column("provisional", sa.Boolean(), nullable=False),
        sa.Column("title", sa.String(length=300), nullable=False),
        sa.Column("site_address", sa.String(length=300), nullable=False),
        sa.Column("companion_id", sa.String(length=100), nullable=False),
        sa.Column("project_id", sa.String(length=100), nullable=True),
        sa.Column("condition_number", sa.String(length=20), nullable=True),
        sa.Column("applicant_name", sa.String(length=200), nullable=False),
        sa.Column("applicant_email", sa.String(length=200), nullable=False),
        sa.Column("staff_email", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=40), nullable=False),
        sa.Column("conservative_status", sa.String(length=40), nullable=False),
        sa.Column("consequence", sa.String(length=60), nullable=False),
        sa.Column("start_date", sa.String(length=10), nullable=True),
        sa.Column("due_date", sa.String(length=10), nullable=True),
        sa.Column("conservative_date", sa.String(length=10), nullable=True),
        sa.Column("next_deadline", sa.String(length=10), nullable=True),
        sa.Column("hard_stop", sa.String(length=10), nullable=True),
        sa.Column("escalated", sa.Boolean(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("clock_id"),
    )
    with op.batch_alter_table("permit_clocks", schema=None) as batch_op:
        for column in (
            "jurisdiction",
            "rule",
            "project_id",
            "status",
            "conservative_date",
            "next_deadline",
        ):
            batch_op.create_index(batch_op.f(f"ix_permit_clocks_{column}"), [column], unique=False)

    op.create_table(
        "permit_clock_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("clock_id", sa.String(length=100), nullable=False),
        sa.Column("event_id", sa.String(length=100), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("date", sa.String(length=10), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("recorded_by", sa.String(length=200), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["clock_id"], ["permit_clocks.clock_id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("clock_id", "event_id"),
    )
    with op.batch_alter_table("permit_clock_events", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_permit_clock_events_clock_id"), ["clock_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("permit_clock_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_permit_clock_events_clock_id"))
    op.drop_table("permit_clock_events")
    with op.batch_alter_table("permit_clocks", schema=None) as batch_op:
        for column in (
            "next_deadline",
            "conservative_date",
            "status",
            "project_id",
            "rule",
            "jurisdiction",
        ):
            batch_op.drop_index(batch_op.f(f"ix_permit_clocks_{column}"))
    op.drop_table("permit_clocks")
