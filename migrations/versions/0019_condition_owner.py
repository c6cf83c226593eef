"""a condition keeps the owner its project manager chose (issue 27)

Revision ID: 0019
Revises: 0015

Rows recorded before this have none: NULL, and the department's reviewer owns them as
before.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A database adopted from before migrations may have it from the current models.
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("conditions")}
    if "owner_email" not in have:
        with op.batch_alter_table("conditions") as batch:
            batch.add_column(sa.Column("owner_email", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("conditions") as batch:
        batch.drop_column("owner_email")
