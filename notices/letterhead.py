"""Who a letter is from: the city's own address, with the person responsible for the
record as Reply-To, so an answer reaches someone who can act. Both are jurisdiction
data (contacts.mail_from, contacts.planner_email, contacts.reply_to_email); the record's
own planner, staff contact or project manager takes the place of the city's planner.

The sending activity hands over the city's current document (an administrator's saved
version, activities/cities.py); without one, the shipped file is read."""

from __future__ import annotations

from typing import Any

from rules.kernel.jurisdictions import JURISDICTIONS, Jurisdiction


def city_of(jurisdiction_key: str, city: Jurisdiction | None = None) -> Jurisdiction | None:
    """The document handed over, else the shipped city by key or name."""
    if city is not None:
        return city
    return JURISDICTIONS.get(jurisdiction_key) or next(
        (j for j in JURISDICTIONS.values() if j.name == jurisdiction_key), None
    )


def letterhead(
    jurisdiction_key: str, responsible: str = "", city: Jurisdiction | None = None
) -> dict[str, Any]:
    """The context keys the renderer reads: `mail_from` and `reply_to` ("" when unknown),
    and `letterhead_lines` (the city's letterhead, possibly empty)."""
    found = city_of(jurisdiction_key, city)
    fallback = (found.planner_email or found.reply_to_email) if found is not None else ""
    return {
        "mail_from": found.mail_from if found is not None else "",
        "reply_to": (responsible or fallback).strip(),
        "letterhead_lines": list(found.letterhead) if found is not None else [],
    }
