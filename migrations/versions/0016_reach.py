"""staff may pause a project's applicant digests (legal notices are never paused)

Revision ID: 0016
Revises: 0014
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    bind = op.get_bind()
    # A database adopted from before migrations was made by create_all with today's
    # models (models/database.py): it may have the column already.
    have = {c["name"] for c in sa.inspect(bind).get_columns("projects")}
    if "digests_paused" not in have:
        with op.batch_alter_table("projects") as batch:
            batch.add_column(
                sa.Column("digests_paused", sa.Boolean(), nullable=False, server_default=sa.false())
            )


def downgrade() -> None:
    with op.batch_alter_table("projects") as batch:
        batch.drop_column("digests_paused")
