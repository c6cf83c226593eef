"""indexes that let a city-scoped review queue be counted from the index alone

Revision ID: 0020
Revises: 0019

The dashboard counts the queued (submitted, in review) conditions of the user's cities:
`status IN (...) AND project_id IN (the cities' projects)`. With only (status, ...) the
count read every queued row from the table (18 ms at 100,000 conditions); with
project_id in the index it is an index-only scan (4 ms). Same for one department.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = {
    "ix_conditions_status_project": ["status", "project_id"],
    "ix_conditions_department_status_project": ["department_key", "status", "project_id"],
}


def upgrade() -> None:
    # A database adopted from before migrations may have them from the current models.
    have = {i["name"] for i in sa.inspect(op.get_bind()).get_indexes("conditions")}
    for name, columns in INDEXES.items():
        if name not in have:
            op.create_index(name, "conditions", columns)


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name="conditions")
