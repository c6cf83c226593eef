"""The Jinja filters the notice templates use: dates as a letter writes them, days,
sentences, one-line text, and every label of the vocabulary."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from notices.vocabulary import (
    CATEGORY_LABELS,
    CONDITION_STATUS_LABELS,
    CONSEQUENCE_LABELS,
    EVENT_LABELS,
    OUTCOME_LABELS,
    PERMIT_STATUS_LABELS,
    STATUS_LABELS,
    WINDOW_LABELS,
    WINDOW_PHRASES,
    WINDOW_STATE_LABELS,
    labeller,
    milestone_label,
    rule_title,
)
from rules.kernel.citations import citation_source, citation_title, without_sources


def longdate(value: Any) -> str:
    """'2026-04-20' -> 'Monday, April 20, 2026'; letters read better with the weekday."""
    if not value:
        return "not yet determined"
    try:
        d = date.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return f"{d:%A}, {d:%B} {d.day}, {d.year}"


def letterdate(value: Any) -> str:
    """'2026-04-20' -> 'April 20, 2026', the form a formal letter is dated with."""
    if not value:
        return "not yet determined"
    try:
        d = date.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return f"{d:%B} {d.day}, {d.year}"


def sentence(value: Any) -> str:
    """'tolls the clock' -> 'Tolls the clock.': ledger effects are phrases; letters want
    sentences."""
    text = str(value or "").strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def days(value: Any) -> str:
    if value is None or value == "":
        return ""
    n = int(value)
    return f"{n} day" if abs(n) == 1 else f"{n} days"


def days_remaining(target: Any, since: Any) -> str:
    """How many days remain from `since` (the letter's date) to `target`, in words:
    '42 days remain', '1 day remains', 'that is today', '3 days ago'."""
    try:
        n = (date.fromisoformat(str(target)) - date.fromisoformat(str(since))).days
    except ValueError:
        return ""
    if n == 0:
        return "that is today"
    if n < 0:
        return f"{days(-n)} ago"
    return f"{days(n)} remain" if n != 1 else "1 day remains"


def oneline(value: Any, limit: int = 0) -> str:
    """Collapse whitespace (resolution text keeps the PDF's line breaks); optionally
    shorten to `limit` characters."""
    text = re.sub(r"\s+", " ", str(value or "")).strip()
    if limit and len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    return text


def localtime(value: Any, tz: str = "") -> str:
    """'2027-01-04T17:30:00+00:00' -> 'January 4, 2027, 9:30 AM PST' in the project's time
    zone; a plain date or anything unparseable passes through."""
    text = str(value or "").strip()
    if "T" not in text:
        return text
    try:
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is not None and tz:
            moment = moment.astimezone(ZoneInfo(tz))
    except (ValueError, ZoneInfoNotFoundError):
        return text
    hour = moment.hour % 12 or 12
    zone = f" {moment.tzname()}" if moment.tzinfo is not None else ""
    return (
        f"{moment:%B} {moment.day}, {moment.year}, "
        f"{hour}:{moment:%M} {'AM' if moment.hour < 12 else 'PM'}{zone}"
    )


def plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {plural or word + 's'}"


def template_filters() -> dict[str, Callable[..., str]]:
    """The filters every notice template may use, by name."""
    return {
        "category_label": labeller(CATEGORY_LABELS),
        "status_label": labeller(STATUS_LABELS),
        "event_label": labeller(EVENT_LABELS),
        "outcome_label": labeller(OUTCOME_LABELS),
        "window_label": labeller(WINDOW_LABELS),
        "window_state_label": labeller(WINDOW_STATE_LABELS),
        "window_phrase": labeller(WINDOW_PHRASES),
        "longdate": longdate,
        "letterdate": letterdate,
        "days": days,
        "days_remaining": days_remaining,
        "sentence": sentence,
        "milestone_label": milestone_label,
        "condition_status_label": labeller(CONDITION_STATUS_LABELS),
        "oneline": oneline,
        "localtime": localtime,
        # permit clocks
        "consequence_label": labeller(CONSEQUENCE_LABELS),
        "permit_status_label": labeller(PERMIT_STATUS_LABELS),
        "rule_title": rule_title,
        # A citation's law title for the reader; its document line only in ledgers.
        "cite": citation_title,
        "cite_source": citation_source,
        "plain": without_sources,
    }
