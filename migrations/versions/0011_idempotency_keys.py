"""idempotency keys (each request's first outcome, per user) and the readiness probe row

Revision ID: 0011
Revises: 0010

A retry with the same idempotency key gets the first outcome back and never acts twice;
/readyz writes the probe row to show the database takes writes (docs/security.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A database adopted from before migrations was made by create_all with today's
    # models (models/database.py): it may have these already.
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "idempotency_keys" not in have:
        op.create_table(
            "idempotency_keys",
            sa.Column("scope", sa.String(length=80), nullable=False),
            sa.Column("idem_key", sa.String(length=200), nullable=False),
            sa.Column("fingerprint", sa.String(length=64), nullable=False),
            sa.Column("method", sa.String(length=10), nullable=False),
            sa.Column("path", sa.String(length=500), nullable=False),
            sa.Column("state", sa.String(length=10), nullable=False),
            sa.Column("status", sa.Integer(), nullable=True),
            sa.Column("headers", sa.JSON(), nullable=True),
            sa.Column("body", sa.LargeBinary(), nullable=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
            sa.PrimaryKeyConstraint("scope", "idem_key"),
        )
        op.create_index(
            "ix_idempotency_keys_created_at", "idempotency_keys", ["created_at"], unique=False
        )
    if "readiness_probe" not in have:
        op.create_table(
            "readiness_probe",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )


def downgrade() -> None:
    op.drop_table("readiness_probe")
    op.drop_index("ix_idempotency_keys_created_at", table_name="idempotency_keys")
    op.drop_table("idempotency_keys")
