"""How the pages say things: risk of a clock, days left, labels. Pure functions."""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from babel.dates import format_date, format_datetime

from notices.vocabulary import (
    CATEGORY_LABELS,
    CONDITION_STATUS_LABELS,
    OUTCOME_LABELS,
    milestone_label,
)
from rules.conditions.lifecycle import DEPARTMENTS
from rules.kernel.citations import citation_source, citation_title, without_sources
from rules.shot_clock.outcomes import TERMINAL_STATUSES

CLOCK_STATUS_LABELS = {
    "running": "running",
    "tolled": "tolled (notice outstanding)",
    "reset_pending": "reset pending (notice outstanding)",
    "expired": "EXPIRED: deadline passed without a decision",
    "decided_on_time": "decided on time",
    "decided_late": "decided late",
    "withdrawn": "withdrawn",
    "deemed_granted": "deemed granted",
    "deemed_approved": "deemed approved",
}
EVENT_LABELS = {
    "pre_application": "pre-application meeting",
    "submitted": "application submitted",
    "incomplete_notice": "notice of incompleteness",
    "resubmitted": "applicant resubmitted",
    "tolling_agreement": "tolling agreement",
    "decision": "decision",
    "withdrawn": "withdrawn",
    "deemed_granted_notice": "applicant's deemed-granted notice",
    "applicant_public_notice": "applicant's public notice",
    "deemed_approved_notice": "applicant's deemed-approved notice",
    "moratorium": "moratorium (does not toll)",
    "hearing_notice": "hearing notice (does not toll)",
    "appeal": "appeal (does not toll)",
    "roll_forward": "rolled forward past a closed day",
}
WINDOW_LABELS = {
    "first_notice": "first notice of incompleteness",
    "later_notice": "later notice (items from the first notice only)",
    "swf_reset": "small wireless reset notice (day 10)",
}


def days_between(start: date, end_iso: str | None) -> int | None:
    if not end_iso:
        return None
    return (date.fromisoformat(end_iso) - start).days


# Closed and still at risk: the applicant's deemed status. A decided clock (on time or
# late) is closed: its status says which, and it is never badged at risk.
AT_RISK_CLOSED = ("deemed_granted", "deemed_approved")


def clock_risk(status: str, conservative_date: str | None, risk_flagged: bool, today: date) -> str:
    """A colour class for a clock: expired, urgent (7 days), soon (30), ok, tolled, closed.

    Called with the conservative status: a decision late under the earliest reading, or
    an applicant's notice effective under it, is at risk whatever the literal one says."""
    if status in TERMINAL_STATUSES:
        return "closed" if status not in AT_RISK_CLOSED else "expired"
    if status == "expired" or risk_flagged:
        return "expired"
    if status in ("tolled", "reset_pending"):
        return "tolled"
    left = days_between(today, conservative_date)
    if left is None:
        return "ok"
    if left < 0:
        return "expired"
    if left <= 7:
        return "urgent"
    if left <= 30:
        return "soon"
    return "ok"


RISK_LABELS = {
    "expired": "expired / at risk",
    "urgent": "7 days or fewer",
    "soon": "30 days or fewer",
    "ok": "more than 30 days",
    "tolled": "tolled",
    "closed": "closed",
}


def days_left_phrase(left: int | None) -> str:
    if left is None:
        return "no date"
    if left < 0:
        return f"{-left} day{'s' if left != -1 else ''} overdue"
    if left == 0:
        return "today"
    return f"{left} day{'s' if left != 1 else ''} left"


def status_label(status: Any) -> str:
    value = str(status or "")
    return CLOCK_STATUS_LABELS.get(value) or CONDITION_STATUS_LABELS.get(
        value, value.replace("_", " ")
    )


def event_label(kind: Any) -> str:
    value = str(kind or "")
    return EVENT_LABELS.get(value, value.replace("_", " "))


def window_label(kind: Any) -> str:
    value = str(kind or "")
    return WINDOW_LABELS.get(value, value.replace("_", " "))


def department_label(key: Any) -> str:
    value = str(key or "")
    return DEPARTMENTS.get(value, value.replace("_", " "))


def tolled_so_far(
    tolled_days: int, status: str, last_notice: str | None, today: date
) -> int | None:
    """Days tolled to date: while a notice is outstanding the clock is paused from the day
    after the notice, so the days since it count too (the stored figure only counts
    stretches that have ended). None when nothing is tolled now."""
    if status != "tolled" or not last_notice:
        return None
    return tolled_days + max(0, (today - date.fromisoformat(last_notice)).days)


# -- dates for people: "Mon 7 Dec 2026", in the city's time ---------------------------------

DATE_FORMAT = "EEE d MMM y"
DATETIME_FORMAT = "EEE d MMM y, h:mm a zzz"
LOCALE = "en_US"


def _as_date(value: Any) -> date | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def human_date(value: Any) -> str:
    """'2026-12-07' (or a date) -> 'Mon 7 Dec 2026'; empty -> '-'; anything else as given."""
    day = _as_date(value)
    if day is None:
        return "-" if value in (None, "") else str(value)
    return _day_in_words(day)


@lru_cache(maxsize=8192)
def _day_in_words(day: date) -> str:
    # Babel formats a date in ~50 us; an inbox shows hundreds of (mostly the same) dates.
    return format_date(day, DATE_FORMAT, locale=LOCALE)


def human_datetime(value: Any, time_zone: str) -> str:
    """An instant as the city reads it: 'Mon 7 Dec 2026, 9:30 AM PST'. Naive values are
    taken as UTC (the database stores UTC)."""
    if value is None or value == "":
        return "-"
    moment = value
    if not isinstance(moment, datetime):
        try:
            moment = datetime.fromisoformat(str(value))
        except ValueError:
            return str(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=ZoneInfo("UTC"))
    # The format shows minutes: one Babel call per minute and city (an inbox shows dozens).
    return _moment_in_words(moment.replace(second=0, microsecond=0), time_zone)


@lru_cache(maxsize=8192)
def _moment_in_words(moment: datetime, time_zone: str) -> str:
    return format_datetime(moment, DATETIME_FORMAT, tzinfo=ZoneInfo(time_zone), locale=LOCALE)


def category_label(key: Any) -> str:
    value = str(key or "")
    if not value:
        return "small wireless batch"
    return CATEGORY_LABELS.get(value, value.replace("_", " "))


def outcome_label(key: Any) -> str:
    value = str(key or "")
    return OUTCOME_LABELS.get(value, value.replace("_", " "))


def urgency(days_left: int | None) -> str:
    """The colour class for something due in `days_left` days (same scale as clocks)."""
    if days_left is None:
        return "ok"
    if days_left < 0:
        return "expired"
    if days_left <= 7:
        return "urgent"
    if days_left <= 30:
        return "soon"
    return "ok"


_ISO_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


def readable(text: Any) -> str:
    """Explanations from the rules core as a person reads them: a category key with its
    own gloss in brackets becomes the gloss, any other key its label, ISO dates
    'Mon 7 Dec 2026'. (The JSON API keeps the rules' exact words.)"""
    out = str(text or "")
    for key, label in CATEGORY_LABELS.items():
        if key in out:
            out = re.sub(rf"\b{key} \(([^)]*)\)", r"\1", out)
            out = re.sub(rf"\b{key}\b", label, out)
    return _ISO_DATE.sub(lambda m: human_date(m.group(1)), out)


def blocker_summary(milestone: str, departments: list[str]) -> str:
    """'21 conditions still block Grading permit: 12 Public Works / Engineering,
    9 Planning Division.' in one short line, largest department first."""
    if not departments:
        return f"nothing blocks {milestone_label(milestone)}"
    counts: dict[str, int] = {}
    for d in departments:
        counts[d] = counts.get(d, 0) + 1
    parts = ", ".join(
        f"{n} {department_label(d)}"
        for d, n in sorted(counts.items(), key=lambda kv: (-kv[1], department_label(kv[0])))
    )
    total = len(departments)
    return (
        f"{total} condition{'s' if total != 1 else ''} still block "
        f"{milestone_label(milestone)}: {parts}"
    )


def describe_time_limit(limit: dict[str, Any]) -> str:
    from rules.conditions.time_limits import describe

    return describe(limit)


def time_limit_ends(limit: dict[str, Any], approved_on: str | None = None) -> str:
    """When it runs out, or what it waits for ("counts from invoice, not recorded yet")."""
    from rules.conditions.time_limits import ends_on

    anchor = approved_on if limit.get("anchor") == "approval" else None
    end = ends_on(limit, anchor)
    if end:
        return end
    return f"counts from {limit.get('anchor') or 'an event'}, not recorded yet"


def filters() -> dict[str, Any]:
    return {
        "human_date": human_date,
        "category_label": category_label,
        "readable": readable,
        "outcome_label": outcome_label,
        "status_label": status_label,
        "event_label": event_label,
        "window_label": window_label,
        "department_label": department_label,
        "milestone_label": milestone_label,
        "days_left": days_left_phrase,
        "risk_label": lambda r: RISK_LABELS.get(r, r),
        "time_limit": describe_time_limit,
        "time_limit_ends": time_limit_ends,
        "cite": citation_title,
        "cite_source": citation_source,
        "plain": without_sources,
    }
