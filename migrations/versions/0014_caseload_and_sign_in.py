"""caseload imports (each previewed or imported caseload file, its progress and errors)
and external identities (staff signing in with the city's OpenID Connect provider)

Revision ID: 0014
Revises: 0011
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A database adopted from before migrations was made by create_all with today's
    # models (models/database.py): it may have the tables already.
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "external_identities" not in have:
        op.create_table(
            "external_identities",
            sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
            sa.Column("issuer", sa.String(length=300), nullable=False),
            sa.Column("subject", sa.String(length=300), nullable=False),
            sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("last_login_at", sa.DateTime(timezone=True), nullable=False),
            sa.UniqueConstraint("issuer", "subject"),
        )
        op.create_index("ix_external_identities_user_id", "external_identities", ["user_id"])
    if "caseload_imports" in have:
        return
    op.create_table(
        "caseload_imports",
        sa.Column("id", sa.String(length=40), primary_key=True),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("filename", sa.String(length=300), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("created", sa.Integer(), nullable=False),
        sa.Column("existing", sa.Integer(), nullable=False),
        sa.Column("errors", sa.JSON(), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_caseload_imports_sha256", "caseload_imports", ["sha256"])


def downgrade() -> None:
    op.drop_index("ix_external_identities_user_id", table_name="external_identities")
    op.drop_table("external_identities")
    op.drop_index("ix_caseload_imports_sha256", table_name="caseload_imports")
    op.drop_table("caseload_imports")
