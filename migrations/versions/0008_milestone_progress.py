"""milestone progress on projects (the inboxes rank by it)

Revision ID: 0008
Revises: 0006
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A database adopted from before migrations was made by create_all with today's
    # models (models/database.py): it may have these already.
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("projects")}
    indexes = {i["name"] for i in sa.inspect(op.get_bind()).get_indexes("projects")}
    with op.batch_alter_table("projects") as batch:
        if "milestones" not in have:
            batch.add_column(
                sa.Column("milestones", sa.JSON(), nullable=False, server_default="[]")
            )
        if "urgent_target" not in have:
            batch.add_column(sa.Column("urgent_target", sa.String(length=10), nullable=True))
        if "signoff_ready" not in have:
            batch.add_column(
                sa.Column("signoff_ready", sa.Integer(), nullable=False, server_default="0")
            )
        if "ix_projects_urgent_target" not in indexes:
            batch.create_index("ix_projects_urgent_target", ["urgent_target"])


def downgrade() -> None:
    with op.batch_alter_table("projects") as batch:
        batch.drop_index("ix_projects_urgent_target")
        batch.drop_column("signoff_ready")
        batch.drop_column("urgent_target")
        batch.drop_column("milestones")
