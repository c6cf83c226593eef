"""jurisdictions managed in the web app: versioned, effective-dated, audited documents

Revision ID: 0017
Revises: 0010

A database from before this has no versions: each city keeps its shipped file (or the
file in CLEARANCE_JURISDICTIONS_DIR) as its only version until an administrator saves one.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if "jurisdiction_versions" in sa.inspect(op.get_bind()).get_table_names():
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


def downgrade() -> None:
    op.drop_index("ix_jurisdiction_versions_jurisdiction", table_name="jurisdiction_versions")
    op.drop_table("jurisdiction_versions")
