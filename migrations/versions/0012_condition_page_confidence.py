"""conditions keep the page they were printed on, how sure the parse was, and its evidence
(issue 26, conditions.md §9)

Revision ID: 0012
Revises: 0017

Rows imported before this have none of them: page and confidence stay empty (unknown),
the evidence an empty object.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = (
    ("page", sa.Integer()),
    ("confidence", sa.String(length=10)),
    ("department_source", sa.String(length=10)),
    ("parse_evidence", sa.JSON()),
)


def upgrade() -> None:
    # A database adopted from before migrations may have them from the current models.
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("conditions")}
    with op.batch_alter_table("conditions") as batch:
        for name, kind in COLUMNS:
            if name not in have:
                batch.add_column(sa.Column(name, kind, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("conditions") as batch:
        for name, _ in reversed(COLUMNS):
            batch.drop_column(name)
