"""a claimed idempotency key names the process serving it

Revision ID: 0021
Revises: 0020

A retry whose first attempt died with its process (a crash, a restart mid-request) took
the key over only after the five-minute lease. With the holder recorded, a retry on the
same host sees it is gone and runs at once. Keys claimed before this have none: the
lease alone ends them, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A database adopted from before migrations may have it from the current models.
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("idempotency_keys")}
    if "holder" not in have:
        with op.batch_alter_table("idempotency_keys") as batch:
            batch.add_column(sa.Column("holder", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("idempotency_keys") as batch:
        batch.drop_column("holder")
