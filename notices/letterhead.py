"""Who a letter is from: the city's own address, with the person responsible for the
record as Reply-To, so an answer reaches someone who can act. Both are jurisdiction
data (contacts.mail_from, contacts.planner_email); the record's own planner, staff
contact or project manager takes the place of the city's planner."""

from __future__ import annotations

from rules.kernel.jurisdictions import JURISDICTIONS


def letterhead(jurisdiction_key: str, responsible: str = "") -> dict[str, str]:
    """The context keys the renderer reads: `mail_from` and `reply_to` ("" when unknown)."""
    city = JURISDICTIONS.get(jurisdiction_key) or next(
        (j for j in JURISDICTIONS.values() if j.name == jurisdiction_key), None
    )
    return {
        "mail_from": city.mail_from if city is not None else "",
        "reply_to": (responsible or (city.planner_email if city is not None else "")).strip(),
    }
