"""Which fields of a form a refusal names, for the error summary at the top of every page
that opens or imports a record (templates/web/_form_page.html.j2). Pure."""

from __future__ import annotations

import re
from collections.abc import Mapping


def fields_named(message: str, fields: Mapping[str, str]) -> list[tuple[str, str]]:
    """(name, label) of each field the message names, in the form's order.

    The action layer's refusals name the field they reject by its key ("submitted: ...",
    "planner_email: ...", "there is no rule 'x'"), so a key, the key with spaces
    ("start date") or the field's label, as whole words, names it."""
    said = message.lower()
    named = []
    for name, label in fields.items():
        spellings = {name.lower(), name.lower().replace("_", " "), label.lower().strip()}
        if any(_says(said, s) for s in spellings if s):
            named.append((name, label))
    return named


def _says(text: str, words: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(words)}(?![\w-])", text) is not None
