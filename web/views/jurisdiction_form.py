"""The administrator's jurisdiction form and the jurisdiction document, both ways.

The form shows each part of a city in a few fields an administrator can type in: one
line per holiday (``name | when | source``), per department (``key | reviewer | head |
aliases | review days``) and per local fact (``rule.fact = value``). Turning the form back
into a document starts from the version being edited, so anything the form does not
show (a holiday's note, its effective years) is kept. A line that cannot be read is
refused with its field and line number; the document itself is checked by the action."""

from __future__ import annotations

import calendar
import copy
import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from actions.errors import bad

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_ORDINALS = {"1st": 1, "first": 1, "2nd": 2, "second": 2, "3rd": 3, "third": 3, "4th": 4,
             "fourth": 4}  # fmt: skip
_ORDINAL_TEXT = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
CONTACTS = ("mail_from", "reply_to_email", "planner_email", "supervisor_email", "attorney_email")


def rule_text(rule: Mapping[str, Any]) -> str:
    """'July 4', '3rd Monday of January', 'last Monday of May', 'day after Thanksgiving
    Day', or the listed dates."""
    ((kind, spec),) = rule.items()
    if kind == "fixed":
        return f"{calendar.month_name[spec['month']]} {spec['day']}"
    if kind == "nth_weekday":
        return (
            f"{_ORDINAL_TEXT[spec['n']]} {calendar.day_name[spec['weekday']]} of "
            f"{calendar.month_name[spec['month']]}"
        )
    if kind == "last_weekday":
        return f"last {calendar.day_name[spec['weekday']]} of {calendar.month_name[spec['month']]}"
    if kind == "day_after":
        return f"day after {spec}"
    return ", ".join(spec)


def parse_rule(text: str, where: str) -> dict[str, Any]:
    words = text.strip()
    low = words.lower()
    if low.startswith("day after "):
        return {"day_after": words[10:].strip()}
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}(\s*,\s*\d{4}-\d{2}-\d{2})*", words):
        return {"dates": [d.strip() for d in words.split(",")]}
    fixed = re.fullmatch(r"([a-z]+)\s+(\d{1,2})", low)
    if fixed and fixed.group(1) in MONTHS:
        return {"fixed": {"month": MONTHS[fixed.group(1)], "day": int(fixed.group(2))}}
    nth = re.fullmatch(r"(\w+)\s+([a-z]+)\s+of\s+([a-z]+)", low)
    if nth and nth.group(2) in WEEKDAYS and nth.group(3) in MONTHS:
        weekday, month = WEEKDAYS[nth.group(2)], MONTHS[nth.group(3)]
        if nth.group(1) == "last":
            return {"last_weekday": {"month": month, "weekday": weekday}}
        if nth.group(1) in _ORDINALS:
            return {
                "nth_weekday": {"month": month, "weekday": weekday, "n": _ORDINALS[nth.group(1)]}
            }
    raise bad(
        f"{where}: {text.strip()!r} is not a date rule (write e.g. 'July 4', '3rd Monday "
        "of January', 'last Monday of May', 'day after Thanksgiving Day' or 2027-03-15)"
    )


def _lines(text: str) -> list[tuple[int, list[str]]]:
    out = []
    for number, line in enumerate(str(text or "").splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            out.append((number, [part.strip() for part in line.split("|")]))
    return out


def form_values(doc: Mapping[str, Any]) -> dict[str, str]:
    """The form's fields for a document (a new city: an empty one)."""
    contacts = doc.get("contacts", {})
    layer = doc.get("adopted_holidays") or {}
    holidays = [
        " | ".join(
            [h["name"], rule_text(h["rule"]), h.get("citation", "")]
            + ([f"observed {h['observed']}"] if h.get("observed", "none") != "none" else [])
        )
        for h in layer.get("holidays", [])
    ]
    departments = [
        " | ".join(
            [
                key,
                d.get("reviewer_email", ""),
                d.get("head_email", ""),
                ", ".join(d.get("aliases", [])),
                str(d.get("review_sla_business_days", "")),
            ]
        ).rstrip(" |")
        for key, d in doc.get("departments", {}).items()
    ]
    facts = [
        f"{rule}.{name} = {_value_text(value)}"
        for rule, values in doc.get("fact_defaults", {}).items()
        for name, value in values.items()
    ]
    return {
        "key": str(doc.get("key", "")),
        "name": str(doc.get("name", "")),
        "state": str(doc.get("state") or ""),
        "time_zone": str(doc.get("time_zone", "")),
        "rule_pack": str(doc.get("rule_pack", "")),
        "permit_pack": str(doc.get("permit_pack") or ""),
        **{name: str(contacts.get(name, "")) for name in CONTACTS},
        "letterhead": "\n".join(doc.get("letterhead", [])),
        "holiday_source": str(layer.get("source", "")),
        "holidays": "\n".join(holidays),
        "local_closures": "\n".join(doc.get("local_closures", [])),
        "departments": "\n".join(departments),
        "review_sla_business_days": str(doc.get("review_sla_business_days", 10)),
        "escalation_after_business_days": str(doc.get("escalation_after_business_days", 5)),
        "reminder_offsets": ", ".join(
            str(n) for n in doc.get("reminder_offsets", [30, 14, 7, 3, 1])
        ),
        "fact_defaults": "\n".join(facts),
        "effective_from": "",
        "reason": "",
    }


def _value_text(value: Any) -> str:
    return "true" if value is True else "false" if value is False else str(value)


def _number(text: str, where: str) -> int:
    try:
        return int(str(text).strip())
    except ValueError:
        raise bad(f"{where}: {text.strip()!r} is not a whole number") from None


def document_from_form(
    form: Mapping[str, str], base: Mapping[str, Any], today: date
) -> dict[str, Any]:
    """The document the form describes, over ``base`` (the version edited, or {})."""
    doc: dict[str, Any] = copy.deepcopy(dict(base))
    key = str(form.get("key") or base.get("key") or "").strip().lower()
    name = str(form.get("name", "")).strip()
    doc.update(
        key=key,
        name=name,
        state=str(form.get("state", "")).strip().upper() or None,
        time_zone=str(form.get("time_zone", "")).strip(),
        rule_pack=str(form.get("rule_pack", "")).strip(),
        permit_pack=str(form.get("permit_pack", "")).strip() or None,
    )
    doc["contacts"] = {
        n: str(form.get(n, "")).strip() for n in CONTACTS if str(form.get(n, "")).strip()
    }
    doc["letterhead"] = [
        line.strip() for line in str(form.get("letterhead", "")).splitlines() if line.strip()
    ]
    # One date per line; anything after the date (a reason) is for the reader.
    doc["local_closures"] = [
        line.split()[0] for line in str(form.get("local_closures", "")).splitlines() if line.strip()
    ]
    doc["adopted_holidays"] = _holiday_layer(form, doc, today)
    if doc["adopted_holidays"] is None:
        del doc["adopted_holidays"]
    doc["departments"] = _departments(form, base.get("departments", {}))
    doc["review_sla_business_days"] = _number(
        form.get("review_sla_business_days", "10"), "review_sla_business_days"
    )
    doc["escalation_after_business_days"] = _number(
        form.get("escalation_after_business_days", "5"), "escalation_after_business_days"
    )
    doc["reminder_offsets"] = [
        _number(part, "reminder_offsets")
        for part in str(form.get("reminder_offsets", "")).split(",")
        if part.strip()
    ]
    doc["fact_defaults"] = _facts(str(form.get("fact_defaults", "")))
    return doc


def _holiday_layer(
    form: Mapping[str, str], doc: Mapping[str, Any], today: date
) -> dict[str, Any] | None:
    old = dict(doc.get("adopted_holidays") or {})
    by_name = {h["name"]: h for h in old.get("holidays", [])}
    holidays = []
    for number, parts in _lines(str(form.get("holidays", ""))):
        where = f"holidays line {number}"
        if len(parts) < 2 or not parts[0]:
            raise bad(
                f"{where}: write 'name | when | source' "
                "(e.g. 'Juneteenth | June 19 | Res. 2026-14')"
            )
        entry = dict(by_name.get(parts[0], {"effective_from": None}))
        observed = "none"
        if len(parts) > 3 and parts[3]:
            observed = parts[3].removeprefix("observed").strip()
        entry.update(
            name=parts[0],
            rule=parse_rule(parts[1], where),
            citation=parts[2] if len(parts) > 2 else "",
            observed=observed,
        )
        holidays.append(entry)
    source = str(form.get("holiday_source", "")).strip()
    if not holidays and not source:
        return None
    name = str(doc.get("name") or doc.get("key"))
    old.setdefault("key", f"{doc.get('key')}_adopted")
    old.setdefault("name", f"{name} adopted holidays (city offices closed)")
    old.setdefault("closure_label", f"{name} holiday")
    old.setdefault("effective_from", f"{today.year}-01-01")
    old.update(kind="adopted", state=doc.get("state"), source=source, holidays=holidays)
    if not str(old.get("citation") or "").strip() or old.get("citation") == old.get("source"):
        old["citation"] = source
    return old


def _departments(form: Mapping[str, str], old: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, parts in _lines(str(form.get("departments", ""))):
        where = f"departments line {number}"
        if len(parts) < 3:
            raise bad(
                f"{where}: write 'key | reviewer e-mail | head e-mail | aliases | review days'"
            )
        key = parts[0].lower()
        if key in out:
            raise bad(f"{where}: department {key!r} is listed twice")
        entry = dict(old.get(key, {}))
        entry.update(reviewer_email=parts[1], head_email=parts[2])
        entry["aliases"] = [
            a.strip() for a in (parts[3] if len(parts) > 3 else "").split(",") if a.strip()
        ]
        if not entry["aliases"]:
            del entry["aliases"]
        if len(parts) > 4 and parts[4]:
            entry["review_sla_business_days"] = _number(parts[4], f"{where} (review days)")
        else:
            entry.pop("review_sla_business_days", None)
        out[key] = entry
    return out


def _facts(text: str) -> dict[str, Any]:
    out: dict[str, dict[str, Any]] = {}
    for number, _ in _lines(text):
        line = text.splitlines()[number - 1]
        found = re.fullmatch(r"\s*([\w-]+)\.(\w+)\s*=\s*(\S+)\s*", line)
        if not found:
            raise bad(
                f"fact_defaults line {number}: write 'rule.fact = value' "
                "(e.g. ca_tentative_map_expiry.ordinance_months = 12)"
            )
        rule, name, raw = found.groups()
        value: Any = {"true": True, "false": False}.get(raw.lower())
        if value is None:
            value = _number(raw, f"fact_defaults line {number}")
        out.setdefault(rule, {})[name] = value
    return out
