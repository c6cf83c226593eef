"""The input contract every clock shares: strict JSON, dates and items, and one error type.

Every error names the field that is wrong, in one line (`events[2].date: ... is not a
date in the form YYYY-MM-DD`), so the CLI, the workflows' update validators and the web
forms can show it to a planner as is.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

# 8.8: dates and day counts a real application can have; anything outside is a typo or
# an attack, refused with the field named rather than overflowing later.
MIN_DATE = date(1990, 1, 1)
MAX_DATE = date(2199, 12, 31)
MAX_ITEMS = 1_000
MAX_DEPTH = 32
MAX_INPUT_BYTES = 64 * 1024 * 1024
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class TimelineError(ValueError):
    """Invalid input; the message names the field and what is wrong with it."""


@dataclass(frozen=True)
class Item:
    id: str
    text: str = ""
    rule: str = ""


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 12:
        raise TimelineError(f"input: the number {text[:20]}... is out of range")
    return int(text)


_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _depth_ok(text: str) -> bool:
    """No JSON nesting deeper than MAX_DEPTH, counted before parsing (strings skipped)."""
    depth = 0
    for match in _STRUCTURE.finditer(text):
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif char in "]}":
            depth -= 1
    return True


def load_json(text: str | bytes) -> Any:
    """Decode the contract's JSON strictly (8.8): a UTF-8 byte-order mark is accepted;
    duplicate keys, nesting deeper than 32, numbers too long to be a day count, NaN
    and Infinity, and non-UTF-8 input are TimelineErrors naming what is wrong."""
    if isinstance(text, bytes):
        if len(text) > MAX_INPUT_BYTES:
            raise TimelineError(f"input: larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise TimelineError(f"input: not UTF-8 (byte {err.start})") from None
    if len(text) > MAX_INPUT_BYTES:
        raise TimelineError(f"input: larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB")
    text = text.removeprefix("\ufeff")
    if not _depth_ok(text):
        raise TimelineError(f"input: nested deeper than {MAX_DEPTH} levels")

    def constant(name: str) -> Any:
        raise TimelineError(f"input: {name} is not a number JSON allows")

    try:
        return json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_int=_bounded_int,
            parse_constant=constant,
        )
    except _DuplicateKey as err:
        raise TimelineError(f"{err.args[0]}: the key appears twice in one object") from None
    except json.JSONDecodeError as err:
        raise TimelineError(f"input: not valid JSON ({err.msg} at line {err.lineno})") from None
    except RecursionError:
        raise TimelineError(f"input: nested deeper than {MAX_DEPTH} levels") from None


def parse_date(value: Any, field: str) -> date:
    if not isinstance(value, str) or not _ISO_DATE.match(value):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "..."
        raise TimelineError(f"{field}: {shown} is not a date in the form YYYY-MM-DD")
    try:
        parsed = date.fromisoformat(value)
    except ValueError:
        raise TimelineError(f"{field}: {value!r} is not a valid calendar date") from None
    if not MIN_DATE <= parsed <= MAX_DATE:
        raise TimelineError(f"{field}: {value} is out of range ({MIN_DATE} to {MAX_DATE})")
    return parsed


def parse_items(
    raw: Any,
    field: str,
    *,
    error: type[TimelineError] = TimelineError,
    citation: str = "",
    limit: int | None = MAX_ITEMS,
) -> tuple[Item, ...]:
    """A notice's missing items: each a string id or an object with id, text and rule.
    `citation` is the rule that requires the list, named when none is given."""
    if not isinstance(raw, list) or not raw:
        cited = f" ({citation})" if citation else ""
        raise error(
            f"{field}: a notice of incompleteness must list each missing item{cited}; none given"
        )
    if limit is not None and len(raw) > limit:
        raise error(f"{field}: more than {limit} items")
    items: list[Item] = []
    for i, entry in enumerate(raw):
        where = f"{field}[{i}]"
        if isinstance(entry, str):
            if not entry.strip():
                raise error(f"{where}: an item id must not be empty")
            items.append(Item(id=entry.strip()))
        elif isinstance(entry, dict):
            unknown = set(entry) - {"id", "text", "rule"}
            if unknown:
                raise error(f"{where}: unknown field '{sorted(unknown)[0]}'")
            for key in ("id", "text", "rule"):
                if key in entry and not isinstance(entry[key], str):
                    raise error(f"{where}.{key}: must be a string")
            ident = (entry.get("id") or entry.get("text") or "").strip()
            if not ident:
                raise error(f"{where}: an item needs an id or a text")
            items.append(
                Item(
                    id=ident,
                    text=(entry.get("text") or "").strip(),
                    rule=(entry.get("rule") or "").strip(),
                )
            )
        else:
            raise error(f"{where}: an item is a string id or an object")
    return tuple(items)
