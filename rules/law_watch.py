"""The law watch: which rules of every pack (the shot clock's and the permit clocks') are
provisional, which were not checked against the official text in the last
STALE_AFTER_MONTHS months (or never), and which changes of the law the packs know of
but are not in force. Pure: it reads the packs loaded at import and a day.

Twelve months: the Legislature's bills take effect each January 1 (and budget trailer
bills mid-year, as AB 130 did on 2025-06-30), so a rule unchecked for a year may have
missed a whole session's changes. `clearance rules status` and the administrator's
page (/admin/rules) show the same lists."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from rules.kernel.counting import add_months
from rules.permit_clocks.packs import PERMIT_PACKS, Rule
from rules.shot_clock.packs import RULE_PACKS

STALE_AFTER_MONTHS = 12


def _permit_notes(rule: Rule) -> list[str]:
    """Why a permit rule (or a part of it) is provisional."""
    notes = [rule.provisional_note or "provisional rule"] if rule.provisional else []
    notes += [c.provisional_note for c in rule.period.cases if c.provisional_note]
    if rule.cure is not None and rule.cure.provisional_note:
        notes.append(rule.cure.provisional_note)
    if rule.start.restart_provisional:
        notes.append(f"{', '.join(rule.start.restart)} restarts it: the text was not confirmed")
    return notes


def _entries() -> list[dict[str, Any]]:
    """Every rule of every pack, in one shape."""
    out: list[dict[str, Any]] = []
    for pack in PERMIT_PACKS.values():
        for rule in pack.rules.values():
            out.append(
                {
                    "pack": f"{pack.key}@{pack.version}",
                    "rule": rule.id,
                    "title": rule.title,
                    "citation": rule.citation,
                    "read_at": rule.read_at,
                    "verified_on": rule.verified_on,
                    "provisional": _permit_notes(rule),
                }
            )
        for ext in pack.statutory_extensions:
            out.append(
                {
                    "pack": f"{pack.key}@{pack.version}",
                    "rule": ext.id,
                    "title": ext.title,
                    "citation": ext.citation,
                    "read_at": ext.source,
                    "verified_on": ext.verified_on,
                    "provisional": [ext.provisional_note] if ext.provisional_note else [],
                }
            )
    for shot in RULE_PACKS.values():
        for key, raw in shot.data["categories"].items():
            out.append(
                {
                    "pack": shot.key,
                    "rule": key,
                    "title": str(raw.get("label", key)),
                    "citation": str(raw.get("rule", "")),
                    "read_at": str(raw.get("source", "")),
                    "verified_on": _day(raw.get("verified_on")),
                    "provisional": [],
                }
            )
    return out


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _pending() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for pack in PERMIT_PACKS.values():
        for change in pack.pending_changes:
            out.append(
                {
                    "pack": f"{pack.key}@{pack.version}",
                    "id": change.id,
                    "title": change.title,
                    "citation": change.citation,
                    "status": change.status,
                    "affects": change.affects,
                    "source": change.source,
                    "verified_on": change.verified_on.isoformat(),
                }
            )
    for shot in RULE_PACKS.values():
        for raw in shot.data.get("pending_changes", []):
            if isinstance(raw, Mapping):
                out.append({"pack": shot.key, **{k: str(v) for k, v in raw.items()}})
    return out


def law_watch(today: date) -> dict[str, Any]:
    """The three lists as of `today`: provisional, stale, pending."""
    since = add_months(today, -STALE_AFTER_MONTHS)
    entries = _entries()
    provisional = [
        {**_public(e), "why": "; ".join(e["provisional"])} for e in entries if e["provisional"]
    ]
    stale = [
        {
            **_public(e),
            "why": (
                "never verified against the official text"
                if e["verified_on"] is None
                else f"last verified {e['verified_on'].isoformat()}, more than "
                f"{STALE_AFTER_MONTHS} months before {today.isoformat()}"
            ),
        }
        for e in entries
        if e["verified_on"] is None or e["verified_on"] < since
    ]
    return {
        "as_of": today.isoformat(),
        "stale_after_months": STALE_AFTER_MONTHS,
        "rules": len(entries),
        "provisional": provisional,
        "stale": stale,
        "pending": _pending(),
    }


def _public(entry: Mapping[str, Any]) -> dict[str, Any]:
    when = entry["verified_on"]
    return {
        "pack": entry["pack"],
        "rule": entry["rule"],
        "title": entry["title"],
        "citation": entry["citation"],
        "read_at": entry["read_at"],
        "verified_on": when.isoformat() if when else None,
    }
