"""security: audit hash chain, login throttles, session idle time

Revision ID: 0004
Revises: 0002

Existing audit entries are chained on upgrade, per project, in the order they were
written (their row id), exactly as the record_project activity chains new ones.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from rules.audit_chain import GENESIS, link

revision: str = "0004"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _details(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return json.loads(value) if value else {}
    return dict(value or {})


def _chain_existing_entries() -> None:
    audit = sa.table(
        "audit_log",
        sa.column("id", sa.Integer),
        sa.column("project_id", sa.String),
        sa.column("audit_id", sa.String),
        sa.column("at", sa.String),
        sa.column("actor", sa.String),
        sa.column("role", sa.String),
        sa.column("action", sa.String),
        sa.column("condition_number", sa.String),
        sa.column("reason", sa.Text),
        sa.column("details", sa.JSON),
        sa.column("seq", sa.Integer),
        sa.column("prev_hash", sa.String),
        sa.column("entry_hash", sa.String),
    )
    bind = op.get_bind()
    projects = [r[0] for r in bind.execute(sa.select(audit.c.project_id).distinct())]
    for project_id in projects:
        rows = bind.execute(
            sa.select(audit).where(audit.c.project_id == project_id).order_by(audit.c.id)
        ).all()
        if any(r.entry_hash for r in rows):
            continue  # already chained
        contents = [
            {
                "project_id": r.project_id,
                "audit_id": r.audit_id,
                "at": r.at,
                "actor": r.actor,
                "role": r.role,
                "action": r.action,
                "condition_number": r.condition_number,
                "reason": r.reason,
                "details": _details(r.details),
            }
            for r in rows
        ]
        for row, (seq, prev_hash, digest) in zip(rows, link(GENESIS, 1, contents), strict=True):
            bind.execute(
                audit.update()
                .where(audit.c.id == row.id)
                .values(seq=seq, prev_hash=prev_hash, entry_hash=digest)
            )


def _present() -> tuple[set[str], dict[str, set[str]], dict[str, set[str | None]]]:
    """Tables, their columns and their indexes as they are now. A database made before
    migrations is adopted with create_all of the current models (models/database.py), so
    it may already have what this revision adds: each step adds only what is missing."""
    inspector = sa.inspect(op.get_bind())
    tables = set(inspector.get_table_names())
    columns = {t: {c["name"] for c in inspector.get_columns(t)} for t in tables}
    indexes = {t: {i["name"] for i in inspector.get_indexes(t)} for t in tables}
    return tables, columns, indexes


def upgrade() -> None:
    tables, columns, indexes = _present()
    if "seq" not in columns["audit_log"]:
        with op.batch_alter_table("audit_log", schema=None) as batch_op:
            batch_op.add_column(sa.Column("seq", sa.Integer(), nullable=True))
            batch_op.add_column(
                sa.Column("prev_hash", sa.String(length=64), nullable=False, server_default="")
            )
            batch_op.add_column(
                sa.Column("entry_hash", sa.String(length=64), nullable=False, server_default="")
            )
    _chain_existing_entries()
    if "ux_audit_log_project_seq" not in indexes["audit_log"]:
        with op.batch_alter_table("audit_log", schema=None) as batch_op:
            batch_op.create_index("ux_audit_log_project_seq", ["project_id", "seq"], unique=True)

    if "last_seen_at" not in columns["web_sessions"]:
        with op.batch_alter_table("web_sessions", schema=None) as batch_op:
            batch_op.add_column(
                sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True)
            )

    if "login_throttles" not in tables:
        op.create_table(
            "login_throttles",
            sa.Column("key_hash", sa.String(length=64), nullable=False),
            sa.Column("scope", sa.String(length=20), nullable=False),
            sa.Column("failures", sa.Integer(), nullable=False),
            sa.Column("last_failure_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("blocked_until", sa.DateTime(timezone=True), nullable=True),
            sa.PrimaryKeyConstraint("key_hash"),
        )
        with op.batch_alter_table("login_throttles", schema=None) as batch_op:
            batch_op.create_index(
                batch_op.f("ix_login_throttles_last_failure_at"),
                ["last_failure_at"],
                unique=False,
            )


def downgrade() -> None:
    with op.batch_alter_table("login_throttles", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_login_throttles_last_failure_at"))
    op.drop_table("login_throttles")
    with op.batch_alter_table("web_sessions", schema=None) as batch_op:
        batch_op.drop_column("last_seen_at")
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_index("ux_audit_log_project_seq")
        batch_op.drop_column("entry_hash")
        batch_op.drop_column("prev_hash")
        batch_op.drop_column("seq")
