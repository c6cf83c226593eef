"""many jurisdictions: versioned city documents, and each user's role per city

Revision ID: 0017
Revises: 0016

A database from before this has no versions: each city keeps its shipped file (or the
file in CLEARANCE_JURISDICTIONS_DIR) as its only version until an administrator saves one.
Every existing user is given their role and department in the deployment's jurisdiction
(CLEARANCE_DEFAULT_JURISDICTION, else the shipped default), and in every other
jurisdiction that already has a clock or a project, so nobody loses sight of a record
they could see before. Clocks, projects and their rows already name their jurisdiction.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    bind = op.get_bind()
    tables = set(sa.inspect(bind).get_table_names())
    if "user_jurisdictions" not in tables:
        op.create_table(
            "user_jurisdictions",
            sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
            sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
            sa.Column("jurisdiction", sa.String(length=100), nullable=False),
            sa.Column("role", sa.String(length=40), nullable=False),
            sa.Column("department", sa.String(length=40), nullable=False),
            sa.UniqueConstraint("user_id", "jurisdiction"),
        )
        op.create_index("ix_user_jurisdictions_user_id", "user_jurisdictions", ["user_id"])
        op.create_index(
            "ix_user_jurisdictions_jurisdiction", "user_jurisdictions", ["jurisdiction"]
        )
        _give_users_their_cities(bind)
    if "jurisdiction_versions" in tables:
        return  # adopted from create_all with today's models
    op.create_table(
        "jurisdiction_versions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("jurisdiction", sa.String(length=100), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("effective_from", sa.String(length=10), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("changed", sa.JSON(), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("rebase", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("jurisdiction", "version"),
    )
    op.create_index(
        "ix_jurisdiction_versions_jurisdiction", "jurisdiction_versions", ["jurisdiction"]
    )


def _give_users_their_cities(bind: sa.Connection) -> None:
    from rules.kernel.jurisdictions import default_jurisdiction

    keys = {default_jurisdiction(os.environ.get("CLEARANCE_DEFAULT_JURISDICTION", "")).key}
    for table in ("applications", "projects", "permit_clocks"):
        keys |= {k for (k,) in bind.execute(sa.text(f"SELECT DISTINCT jurisdiction FROM {table}"))}
    users = bind.execute(sa.text("SELECT id, role, department FROM users")).all()
    rows = [
        {"user_id": uid, "jurisdiction": key, "role": role, "department": department or ""}
        for uid, role, department in users
        for key in sorted(keys)
    ]
    if rows:
        bind.execute(
            sa.text(
                "INSERT INTO user_jurisdictions (user_id, jurisdiction, role, department) "
                "VALUES (:user_id, :jurisdiction, :role, :department)"
            ),
            rows,
        )


def downgrade() -> None:
    op.drop_index("ix_user_jurisdictions_jurisdiction", table_name="user_jurisdictions")
    op.drop_index("ix_user_jurisdictions_user_id", table_name="user_jurisdictions")
    op.drop_table("user_jurisdictions")
    op.drop_index("ix_jurisdiction_versions_jurisdiction", table_name="jurisdiction_versions")
    op.drop_table("jurisdiction_versions")
