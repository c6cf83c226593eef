"""conditions' time limits and the project's approval date (issue 11)

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _has(table: str, column: str) -> bool:
    return column in {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}


def upgrade() -> None:
    # A database adopted from before migrations gets its missing tables from the current
    # models (models.database._adopt_pre_migration_database): they may have these already.
    if not _has("conditions", "time_limits"):
        with op.batch_alter_table("conditions") as batch:
            batch.add_column(sa.Column("time_limits", sa.JSON(), nullable=True))
    if not _has("projects", "approved_on"):
        with op.batch_alter_table("projects") as batch:
            batch.add_column(sa.Column("approved_on", sa.String(length=10), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("projects") as batch:
        batch.drop_column("approved_on")
    with op.batch_alter_table("conditions") as batch:
        batch.drop_column("time_limits")
