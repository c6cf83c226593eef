"""When a project needs to tell someone something, computed from its state: review
service levels, applicant digests, seasonal and freshness windows, construction
check-ins. Pure, so the project workflow's timers and the tests agree.

Keys carry what they are about (the condition, the submission time, the date), so a
resubmission or a moved target plans new alerts and an alert already sent is never
sent again.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import Any

from models.conditions import (
    IN_REVIEW,
    SUBMITTED,
    ConditionState,
    MilestoneSignoff,
    ProjectInfo,
)
from rules.conditions.full_text import full_text
from rules.conditions.lifecycle import MONITORED_GATES, owed_by_applicant
from rules.conditions.planned_dates import PlannedDates
from rules.conditions.progress import next_milestone_of
from rules.conditions.window_schedule import schedule
from rules.kernel.alerts import SEND_AT, Alert, local_instant, local_today
from rules.kernel.calendars import calendar_for

CHECKIN_EVERY_DAYS = 30


def _submitted_day(condition: ConditionState, time_zone: str) -> date:
    assert condition.submitted_at is not None
    return local_today(datetime.fromisoformat(condition.submitted_at), time_zone)


def condition_summary(c: ConditionState) -> dict[str, Any]:
    return {
        "number": c.spec.number,
        "code": c.spec.code,
        # With its sub-items: a letter never stops at the colon that introduces them.
        "text": full_text(c.spec.text, c.spec.sub_items),
        "department": c.department_key,
        "status": c.status,
        "gates": list(c.spec.gates),
        "time_limits": [dict(t) for t in c.spec.time_limits],
        "submitted_at": c.submitted_at,
        "evidence": [
            {"description": e.description, "filename": e.filename, "submitted_at": e.submitted_at}
            for e in c.evidence
        ],
        "comments": [{"author": m.author, "at": m.at, "text": m.text} for m in c.comments],
    }


def evidence_dates(conditions: Sequence[ConditionState]) -> dict[str, date]:
    """The newest dated document per condition, for freshness rules."""
    out: dict[str, date] = {}
    for c in conditions:
        dated = [date.fromisoformat(e.document_date) for e in c.evidence if e.document_date]
        if dated:
            out[c.spec.number] = max(dated)
    return out


def plan_project_alerts(
    info: ProjectInfo,
    conditions: Sequence[ConditionState],
    planned: dict[str, Any],
    signoffs: Sequence[MilestoneSignoff],
    now: datetime,
    digests_paused: bool = False,
) -> list[Alert]:
    """Every alert the project needs now. `digests_paused` (staff paused the applicant's
    digests) drops the weekly and target-date digests only: review deadlines, due-date
    reminders and every legal notice still go out."""
    tz = info.time_zone
    cal = calendar_for(info.state, [date.fromisoformat(d) for d in info.local_holidays])
    today = local_today(now, tz)
    alerts: list[Alert] = []

    # Review service levels: reminder at the SLA, escalation some business days later.
    for c in conditions:
        if c.status not in (SUBMITTED, IN_REVIEW) or c.submitted_at is None:
            continue
        submitted = _submitted_day(c, tz)
        due = cal.add_business_days(submitted, info.review_sla_business_days)
        overdue = cal.add_business_days(due, info.escalation_after_business_days)
        details = {
            "conditions": [condition_summary(c)],
            "due": due.isoformat(),
            "sla_business_days": info.review_sla_business_days,
            "department": c.department_key,
        }
        alerts.append(
            Alert(
                f"review-reminder:{c.spec.number}:{c.submitted_at}",
                "review_reminder",
                local_instant(due, SEND_AT, tz),
                details,
            )
        )
        alerts.append(
            Alert(
                f"review-escalation:{c.spec.number}:{c.submitted_at}",
                "review_escalation",
                local_instant(overdue, SEND_AT, tz),
                {**details, "overdue_business_days": info.escalation_after_business_days},
            )
        )

    # Applicant digests: weekly while anything is owed, and ahead of a target date.
    signed = [s.milestone for s in signoffs]
    owed = owed_by_applicant(conditions)
    targets: dict[str, str] = dict(planned.get("milestone_targets") or {})
    urgent = next_milestone_of(info.milestones, conditions, targets, signed)
    upcoming = urgent.milestone if urgent else None
    weekday = info.digest_weekday
    if owed and weekday is not None and not digests_paused:
        # This week's digest day while it is due (the alert must still be in the plan at
        # the instant it fires), otherwise next week's. The key keeps its historical
        # name ("monday") for whichever weekday the city chose.
        monday = today - timedelta(days=(today.weekday() - weekday) % 7)
        if now > local_instant(monday, SEND_AT, tz) + timedelta(days=1):
            monday += timedelta(days=7)
        milestone = upcoming or next((g for c in owed for g in c.spec.gates), None)
        alerts.append(
            Alert(
                f"digest:weekly:{monday.isoformat()}",
                "applicant_digest",
                local_instant(monday, SEND_AT, tz),
                digest_details(owed, milestone, targets.get(milestone or ""), "weekly"),
            )
        )
    for milestone, target in sorted(targets.items()):
        if milestone in signed or milestone in MONITORED_GATES or digests_paused:
            continue
        owed_here = [c for c in owed if milestone in c.spec.gates]
        if not owed_here:
            continue
        for offset in info.target_digest_offsets:
            day = date.fromisoformat(target) - timedelta(days=offset)
            alerts.append(
                Alert(
                    f"digest:target:{milestone}:{target}:{offset}d",
                    "applicant_digest",
                    local_instant(day, SEND_AT, tz),
                    digest_details(owed_here, milestone, target, "target"),
                )
            )

    # Seasonal and freshness windows from the planned dates.
    dates = PlannedDates.from_iso(planned)
    items, _conflicts = schedule(
        [c.spec for c in conditions],
        dates,
        evidence_dates(conditions),
        jurisdiction=info.jurisdiction,
    )
    resolved = {
        c.spec.number
        for c in conditions
        if c.status in ("cleared", "waived", "not_applicable", "satisfied_by_alternative")
    }
    for item in items:
        if item.condition_number in resolved:
            continue
        remind_on = item.remind_on
        if info.condition_due_offsets is not None:
            remind_on = tuple(
                sorted({item.due - timedelta(days=n) for n in info.condition_due_offsets})
            )
        for day in remind_on:
            alerts.append(
                Alert(
                    f"window:{item.condition_number}:{item.rule_key}:{item.due}:{day}",
                    "window_reminder",
                    local_instant(day, SEND_AT, tz),
                    {
                        "number": item.condition_number,
                        "code": item.code,
                        "rule_key": item.rule_key,
                        "due": item.due.isoformat(),
                        "window_start": item.window_start.isoformat()
                        if item.window_start
                        else None,
                        "description": item.description,
                        "citation": item.citation,
                    },
                )
            )

    # During construction: periodic check-ins on the recurring conditions.
    recurring = [
        c
        for c in conditions
        if (c.spec.kind == "recurring" or "during_construction" in c.spec.gates)
        and c.status not in ("waived", "not_applicable")
    ]
    if recurring and dates.groundbreaking and "occupancy" not in signed:
        end = dates.construction_end or (dates.groundbreaking + timedelta(days=730))
        day = dates.groundbreaking
        planned_checkins = 0
        # The current period's check-in and the next one, so a timer is always pending.
        while day <= end and planned_checkins < 2:
            period_end = min(day + timedelta(days=CHECKIN_EVERY_DAYS - 1), end)
            if period_end >= today:
                planned_checkins += 1
                alerts.append(
                    Alert(
                        f"checkin:{day.isoformat()}",
                        "construction_checkin",
                        local_instant(day, time(9, 0), tz),
                        {
                            "conditions": [condition_summary(c) for c in recurring],
                            "period_start": day.isoformat(),
                            "period_end": period_end.isoformat(),
                        },
                    )
                )
            day += timedelta(days=CHECKIN_EVERY_DAYS)

    alerts.sort(key=lambda a: (a.fire_at, a.key))
    return alerts


def digest_details(
    owed: Sequence[ConditionState], milestone: str | None, target: str | None, reason: str
) -> dict[str, Any]:
    return {
        "milestone": milestone,
        "target_date": target,
        "owed": [condition_summary(c) for c in owed],
        "reason": reason,
    }
