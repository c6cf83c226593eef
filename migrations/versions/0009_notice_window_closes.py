"""the next notice window's closing day on applications (the inboxes search by it)

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500


def _open_window_closes(clock: Any) -> tuple[str | None, str | None]:
    # As activities/records.open_window_closes on the day this migration was written.
    if isinstance(clock, str):  # a driver that hands JSON back as text
        clock = json.loads(clock) if clock else {}
    windows = clock.get("notice_windows") or [] if isinstance(clock, dict) else []
    closes = [w["closes"] for w in windows if w.get("state") == "open" and w.get("closes")]
    return (min(closes), max(closes)) if closes else (None, None)


def upgrade() -> None:
    bind = op.get_bind()
    # A database adopted from before migrations was made by create_all with today's
    # models (models/database.py): it may have these already.
    have = {c["name"] for c in sa.inspect(bind).get_columns("applications")}
    indexes = {i["name"] for i in sa.inspect(bind).get_indexes("applications")}
    with op.batch_alter_table("applications") as batch:
        for column in ("notice_window_closes", "notice_window_last_closes"):
            if column not in have:
                batch.add_column(sa.Column(column, sa.String(length=10)))
        if "ix_applications_status_window" not in indexes:
            batch.create_index(
                "ix_applications_status_window",
                ["status", "notice_window_closes", "application_id"],
            )
        if "ix_applications_status_last_window" not in indexes:
            batch.create_index(
                "ix_applications_status_last_window",
                ["status", "notice_window_last_closes", "notice_window_closes"],
            )
    # Every clock recorded before keeps its open windows in the inbox: read each one's
    # windows once, in batches, and fill the column.
    applications = sa.table(
        "applications",
        sa.column("application_id", sa.String),
        sa.column("clock", sa.JSON),
        sa.column("notice_window_closes", sa.String),
        sa.column("notice_window_last_closes", sa.String),
    )
    after = ""  # the last application id read: the next batch starts past it
    while True:
        rows = bind.execute(
            sa.select(applications.c.application_id, applications.c.clock)
            .where(applications.c.application_id > after)
            .order_by(applications.c.application_id)
            .limit(BATCH)
        ).all()
        if not rows:
            break
        updates = [
            {"id": application_id, "first": first, "last": latest}
            for application_id, clock in rows
            for first, latest in [_open_window_closes(clock)]
            if first is not None
        ]
        if updates:
            bind.execute(
                applications.update()
                .where(applications.c.application_id == sa.bindparam("id"))
                .values(
                    notice_window_closes=sa.bindparam("first"),
                    notice_window_last_closes=sa.bindparam("last"),
                ),
                updates,
            )
        after = rows[-1][0]


def downgrade() -> None:
    with op.batch_alter_table("applications") as batch:
        batch.drop_index("ix_applications_status_last_window")
        batch.drop_index("ix_applications_status_window")
        batch.drop_column("notice_window_last_closes")
        batch.drop_column("notice_window_closes")
