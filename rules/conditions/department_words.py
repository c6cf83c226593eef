"""The department a condition names in its own words, as the reviewer or recipient ("to the
satisfaction of the Police Department", "submitted to the Planning Division for review",
"approved by the Director of Community Development"), through the department list and its
aliases (rules/data/departments.json) and the jurisdiction's own aliases (its
departments.<key>.aliases). A department named only in passing ("the Fire District's
access road") is not the reviewer, so a role word must come right before the name."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

_DATA = Path(__file__).resolve().parents[1] / "data" / "departments.json"

# Words that make the name after them the reviewer or the recipient.
_ROLE = (
    r"(?:satisfaction\s+of|approv(?:ed|al)\s+(?:by|of)|review(?:ed)?\s+(?:by|of)"
    r"|(?:submitted|submit|provided|provide|delivered|deliver|returned|return|sent|send|furnished"
    r"|furnish|paid|pay|filed|file|given|give)\s+(?:[\w-]+\s+){0,8}?to"
    r"|(?<!on\s)(?:filed|file|lodged|lodge|submitted|submit)\s+(?:[\w-]+\s+){0,6}?with|verified\s+by|accepted\s+by"
    r"|inspected\s+by|determined\s+by|discretion\s+of|direction\s+of|acceptable\s+to"
    r"|contact(?:ing)?|coordinate\s+with|consult(?:ation)?\s+with|permit\s+from"
    r"|clearance\s+from|sign-?off\s+from|approval\s+from|obtained\s+from|issued\s+by)"
)
_ARTICLE = r"\s+(?:the\s+)?(?:city(?:'s)?\s+|county(?:'s)?\s+|town(?:'s)?\s+)?"


@lru_cache(maxsize=1)
def _shipped() -> tuple[tuple[str, str], ...]:
    data = json.loads(_DATA.read_text("utf-8"))
    out: list[tuple[str, str]] = []
    for d in data["departments"]:
        for name in [*d.get("officials", []), *d.get("aliases", [])]:
            out.append((" ".join(name.lower().split()), d["key"]))
    return tuple(out)


@lru_cache(maxsize=32)
def _pattern(aliases: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str], dict[str, str]]:
    names: dict[str, str] = {}
    for name, key in (*aliases, *_shipped()):  # the city's own names first
        names.setdefault(name, key)
    alternation = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"\b{_ROLE}{_ARTICLE}(?P<name>{alternation})\b"), names


def department_in_words(
    text: str, aliases: Mapping[str, str] | None = None
) -> tuple[str, str] | None:
    """(department key, the words that name it) for the first reviewer or recipient the
    text names, or None."""
    s = " ".join(text.lower().replace("\u2019", "'").split())
    pattern, names = _pattern(tuple(sorted((aliases or {}).items())))
    m = pattern.search(s)
    if m is None:
        return None
    return names[m.group("name")], " ".join(text.split())[m.start() : m.end()]
