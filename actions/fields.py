"""Reading a form's or a JSON body's fields into a request: dates, text, required values.
Each refusal is `bad(...)` (ActionFailed 400) naming the field."""

from __future__ import annotations

from typing import Any

from actions.errors import bad
from rules.kernel.input import TimelineError, parse_date


def check_date(value: Any, name: str, required: bool = False) -> str | None:
    """An ISO date string, or None when empty and not required."""
    text = str(value or "").strip()
    if not text:
        if required:
            raise bad(f"{name}: give a date (YYYY-MM-DD)")
        return None
    try:
        return parse_date(text, name).isoformat()
    except TimelineError as err:
        raise bad(str(err)) from None


def text_of(value: Any) -> str:
    return str(value or "").strip()


def required(value: str, name: str, what: str) -> None:
    if not value:
        raise bad(f"{name}: {what}")
