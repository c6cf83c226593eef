"""The rules as a catalogue for forms, the API and the docs (no computation)."""

from __future__ import annotations

from typing import Any

from rules.permit_clocks.packs import PERMIT_PACKS, PERMIT_RULES
from rules.permit_clocks.request import EVENT_FIELDS, events_taken


def rule_catalog() -> list[dict[str, Any]]:
    """One entry per rule: what starts it, what it takes, its facts and consequence."""
    out = []
    for rule in PERMIT_RULES.values():
        taken = sorted(events_taken(rule))
        out.append(
            {
                "id": rule.id,
                "title": rule.title,
                "citation": rule.citation,
                "pack": rule.pack,
                "rule_version": rule.rule_version,
                "family": rule.family,
                "unit": rule.period.unit,
                "counting": rule.period.counting,
                "provisional": rule.provisional,
                "start_events": list(rule.start.events),
                "events": taken,
                "event_fields": {k: sorted(EVENT_FIELDS[k]) for k in taken if k in EVENT_FIELDS},
                "facts": [
                    {
                        "name": f.name,
                        "type": f.kind,
                        "required": f.required,
                        "default": f.default,
                        "min": f.minimum,
                        "max": f.maximum,
                        "label": f.label,
                    }
                    for f in rule.facts.values()
                ],
                "consequence": rule.consequence.default,
                "consequence_text": rule.consequence.text,
                "extension_help": rule.extensions.help if rule.extensions else "",
                "next": [c.rule for c in rule.next],
            }
        )
    return out


def pack_catalog() -> list[dict[str, Any]]:
    """Each pack with its rules and what it leaves out (`not_modelled`)."""
    return [
        {
            "key": p.key,
            "name": p.name,
            "version": p.version,
            "kind": p.kind,
            "citation": p.citation,
            "rules": list(p.rules),
            "not_modelled": [dict(e) for e in p.not_modelled],
            "notes": list(p.notes),
        }
        for p in PERMIT_PACKS.values()
    ]
