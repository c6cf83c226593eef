"""personal access tokens with limits: scope, expiry, last use, why revoked

Revision ID: 0010
Revises: 0009

Tokens made before this had no expiry and could do all their owner could: each keeps
the scope "act" and expires 90 days from this migration (docs/security.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As web/auth/accounts.DEFAULT_TOKEN_DAYS on the day this migration was written.
EXISTING_TOKEN_DAYS = 90


def upgrade() -> None:
    bind = op.get_bind()
    # A database adopted from before migrations was made by create_all with today's
    # models (models/database.py): it may have these already.
    have = {c["name"] for c in sa.inspect(bind).get_columns("api_tokens")}
    with op.batch_alter_table("api_tokens") as batch:
        if "scope" not in have:
            batch.add_column(sa.Column("scope", sa.String(length=10), nullable=True))
        if "expires_at" not in have:
            batch.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
        if "last_used_at" not in have:
            batch.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True)))
        if "revoked_reason" not in have:
            batch.add_column(sa.Column("revoked_reason", sa.String(length=40), nullable=True))
    tokens = sa.table(
        "api_tokens",
        sa.column("scope", sa.String),
        sa.column("expires_at", sa.DateTime(timezone=True)),
        sa.column("revoked_reason", sa.String),
    )
    expires = datetime.now(UTC) + timedelta(days=EXISTING_TOKEN_DAYS)
    bind.execute(tokens.update().where(tokens.c.scope.is_(None)).values(scope="act"))
    bind.execute(tokens.update().where(tokens.c.expires_at.is_(None)).values(expires_at=expires))
    bind.execute(tokens.update().where(tokens.c.revoked_reason.is_(None)).values(revoked_reason=""))
    with op.batch_alter_table("api_tokens") as batch:
        batch.alter_column("scope", existing_type=sa.String(length=10), nullable=False)
        batch.alter_column("expires_at", existing_type=sa.DateTime(timezone=True), nullable=False)
        batch.alter_column("revoked_reason", existing_type=sa.String(length=40), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("revoked_reason")
        batch.drop_column("last_used_at")
        batch.drop_column("expires_at")
        batch.drop_column("scope")
