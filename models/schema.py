"""SQLAlchemy schema: the read model for dashboards, reports and the CLI's lists.

Workflows are the source of truth; activities keep these tables current and every
write is an upsert keyed by something stable, so a retried activity writes no second row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class Application(Base):
    """A wireless application and the latest computation of its shot clock."""

    __tablename__ = "applications"

    application_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    workflow_id: Mapped[str] = mapped_column(String(200))
    jurisdiction: Mapped[str] = mapped_column(String(100), index=True)
    state: Mapped[str | None] = mapped_column(String(2))
    category: Mapped[str] = mapped_column(String(50))
    batch: Mapped[list[Any]] = mapped_column(JSON, default=list)
    site_address: Mapped[str] = mapped_column(String(300), default="")
    description: Mapped[str] = mapped_column(Text, default="")
    applicant_name: Mapped[str] = mapped_column(String(200), default="")
    applicant_email: Mapped[str] = mapped_column(String(200), default="")
    planner_email: Mapped[str] = mapped_column(String(200), default="")
    supervisor_email: Mapped[str] = mapped_column(String(200), default="")
    attorney_email: Mapped[str] = mapped_column(String(200), default="")
    status: Mapped[str] = mapped_column(String(40), index=True)
    start_date: Mapped[str | None] = mapped_column(String(10))
    shot_clock_date: Mapped[str | None] = mapped_column(String(10))
    conservative_date: Mapped[str | None] = mapped_column(String(10), index=True)
    tolled_days: Mapped[int] = mapped_column(Integer, default=0)
    reset_on: Mapped[str | None] = mapped_column(String(10))
    judicial_review_deadline: Mapped[str | None] = mapped_column(String(10))
    risk_flagged: Mapped[bool] = mapped_column(Boolean, default=False)
    clock: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ClockEventRow(Base):
    """One recorded timeline event; (application, event id) is unique."""

    __tablename__ = "clock_events"
    __table_args__ = (UniqueConstraint("application_id", "event_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    application_id: Mapped[str] = mapped_column(
        ForeignKey("applications.application_id"), index=True
    )
    event_id: Mapped[str] = mapped_column(String(100))
    type: Mapped[str] = mapped_column(String(40))
    date: Mapped[str] = mapped_column(String(10))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    recorded_by: Mapped[str] = mapped_column(String(200), default="")
    note: Mapped[str] = mapped_column(Text, default="")
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Notice(Base):
    """One notice, rendered and (once delivered) sent exactly once by its key."""

    __tablename__ = "notices"

    notice_key: Mapped[str] = mapped_column(String(300), primary_key=True)
    application_id: Mapped[str] = mapped_column(String(100), index=True)
    kind: Mapped[str] = mapped_column(String(50))
    subject: Mapped[str] = mapped_column(String(500))
    to_addrs: Mapped[list[Any]] = mapped_column(JSON, default=list)
    cc_addrs: Mapped[list[Any]] = mapped_column(JSON, default=list)
    message_id: Mapped[str] = mapped_column(String(300))
    body_text: Mapped[str] = mapped_column(Text)
    body_html: Mapped[str] = mapped_column(Text)
    delivery_state: Mapped[str] = mapped_column(String(20), default="pending")
    transport: Mapped[str] = mapped_column(String(20), default="")
    location: Mapped[str] = mapped_column(String(500), default="")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
