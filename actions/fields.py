"""Reading a form's or a JSON body's fields into a request: dates, text, required values.
Each refusal is `bad(...)` (ActionFailed 400) naming the field."""

from __future__ import annotations

from typing import Any

from actions.errors import bad
from models.addresses import BadAddress, normalise_address
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


def check_address(value: Any, name: str, required: bool = False) -> str:
    """One e-mail address, normalised (models/addresses.py), or "" when empty and not
    required: "<name>: '<value>' is not a valid e-mail address (<reason>)"."""
    try:
        return normalise_address(value, name, required=required)
    except BadAddress as err:
        raise bad(str(err)) from None


def check_addresses(request: object, *names: str) -> None:
    """Normalise a frozen request's address fields in place (in __post_init__)."""
    for name in names:
        object.__setattr__(request, name, check_address(getattr(request, name), name))
