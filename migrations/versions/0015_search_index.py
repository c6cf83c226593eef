"""search across projects, condition text, clocks and people; outbound webhooks

Revision ID: 0015
Revises: 0012

webhook_subscriptions, webhook_deliveries, webhook_cursors: signed outbound webhooks on
deadline events (activities/webhooks.py).

PostgreSQL: a GIN full-text index per searched table, over the expression the search
query repeats (models/search.py). SQLite: an FTS5 table per kind with external content
over its table, filled now and kept current by triggers on insert, update and delete.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from models.search import SEARCHED

revision: str = "0015"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _sqlite_upgrade() -> None:
    for s in SEARCHED:
        cols = ", ".join(s.columns)
        new = ", ".join(f"new.{c}" for c in s.columns)
        old = ", ".join(f"old.{c}" for c in s.columns)
        fts = s.fts_table
        op.execute(
            f"CREATE VIRTUAL TABLE {fts} USING fts5({cols}, content='{s.table}', "
            f"content_rowid='{s.rowid}', tokenize='porter unicode61')"
        )
        op.execute(
            f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {s.table} BEGIN "
            f"INSERT INTO {fts}(rowid, {cols}) VALUES (new.{s.rowid}, {new}); END"
        )
        op.execute(
            f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {s.table} BEGIN "
            f"INSERT INTO {fts}({fts}, rowid, {cols}) VALUES ('delete', old.{s.rowid}, {old}); "
            "END"
        )
        # Only a change to a searched column re-indexes the row (a status change does not).
        op.execute(
            f"CREATE TRIGGER {fts}_au AFTER UPDATE OF {cols} ON {s.table} BEGIN "
            f"INSERT INTO {fts}({fts}, rowid, {cols}) VALUES ('delete', old.{s.rowid}, {old}); "
            f"INSERT INTO {fts}(rowid, {cols}) VALUES (new.{s.rowid}, {new}); END"
        )
        op.execute(f"INSERT INTO {fts}({fts}) VALUES ('rebuild')")


def _webhook_tables() -> None:
    op.create_table(
        "webhook_subscriptions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("url", sa.String(length=500), nullable=False),
        sa.Column("secret", sa.String(length=100), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "subscription_id",
            sa.Integer(),
            sa.ForeignKey("webhook_subscriptions.id"),
            nullable=False,
        ),
        sa.Column("event_key", sa.String(length=300), nullable=False),
        sa.Column("event_type", sa.String(length=40), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("log", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("subscription_id", "event_key"),
    )
    op.create_index(
        "ix_webhook_deliveries_subscription_id", "webhook_deliveries", ["subscription_id"]
    )
    op.create_index("ix_webhook_deliveries_state", "webhook_deliveries", ["state"])
    op.create_index(
        "ix_webhook_deliveries_next_attempt_at", "webhook_deliveries", ["next_attempt_at"]
    )
    op.create_table(
        "webhook_cursors",
        sa.Column("source", sa.String(length=40), primary_key=True),
        sa.Column("last_id", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=True),
    )


def upgrade() -> None:
    _webhook_tables()
    if op.get_bind().dialect.name == "postgresql":
        for s in SEARCHED:
            op.execute(
                f"CREATE INDEX IF NOT EXISTS {s.pg_index} ON {s.table} "
                f"USING gin (({s.pg_document()}))"
            )
    else:
        _sqlite_upgrade()


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for s in SEARCHED:
            op.execute(f"DROP INDEX IF EXISTS {s.pg_index}")
    else:
        for s in SEARCHED:
            for suffix in ("ai", "ad", "au"):
                op.execute(f"DROP TRIGGER IF EXISTS {s.fts_table}_{suffix}")
            op.execute(f"DROP TABLE IF EXISTS {s.fts_table}")
    op.drop_table("webhook_cursors")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_subscriptions")
