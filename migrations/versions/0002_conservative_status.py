"""applications.conservative_status: the status under the earliest reading

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("applications")}
    if "conservative_status" in columns:
        # A database made by create_all before migrations existed, stamped at 0001
        # from the current models, already has the column.
        return
    with op.batch_alter_table("applications", schema=None) as batch_op:
        batch_op.add_column(sa.Column("conservative_status", sa.String(length=40), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_applications_conservative_status"), ["conservative_status"], unique=False
        )
    # Rows written before this revision: the literal status is the best known answer
    # until the clock's next recomputation writes the conservative one.
    op.execute("UPDATE applications SET conservative_status = status")


def downgrade() -> None:
    with op.batch_alter_table("applications", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_applications_conservative_status"))
        batch_op.drop_column("conservative_status")
