"""Reading the fields of a permit pack's JSON: each helper raises PackError naming the
field (the pack loader's vocabulary, shared by packs.py and law.py)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from rules.permit_clocks.pack_records import OPS, Cond, PackError


def need(raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in raw:
        raise PackError(f"{where}: missing field {key!r}")
    value = raw[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise PackError(f"{where}.{key}: wrong type ({value!r})")
    return value


def opt(raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if raw.get(key) is None:
        return None
    return need(raw, key, kind, where)


def known(raw: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = set(raw) - allowed
    if unknown:
        raise PackError(f"{where}: unknown field {sorted(unknown)[0]!r}")


def pack_date(raw: Mapping[str, Any], key: str, where: str) -> date | None:
    value = opt(raw, key, str, where)
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise PackError(f"{where}.{key}: {value!r} is not an ISO date") from None


def cond(raw: Any, where: str) -> Cond:
    if not isinstance(raw, dict):
        raise PackError(f"{where}: a condition is an object")
    known(raw, {"fact", "field", "op", "value"}, where)
    if ("fact" in raw) == ("field" in raw):
        raise PackError(f"{where}: a condition names one 'fact' or one 'field'")
    source = "fact" if "fact" in raw else "field"
    op = raw.get("op", "eq")
    if op not in OPS:
        raise PackError(f"{where}.op: {op!r} is not one of {', '.join(OPS)}")
    if "value" not in raw:
        raise PackError(f"{where}: missing field 'value'")
    return Cond(source, need(raw, source, str, where), op, raw["value"])


def conds(raw: Any, where: str) -> tuple[Cond, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise PackError(f"{where}: expected a list of conditions")
    return tuple(cond(c, f"{where}[{i}]") for i, c in enumerate(raw))


def names(raw: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise PackError(f"{where}.{key}: expected a list of names")
    return tuple(value)


def positive(raw: Mapping[str, Any], key: str, where: str) -> int | None:
    value = opt(raw, key, int, where)
    if value is not None and value <= 0:
        raise PackError(f"{where}.{key}: must be positive")
    return value


def required_positive(raw: Mapping[str, Any], key: str, where: str) -> int:
    value: int = need(raw, key, int, where)
    if value <= 0:
        raise PackError(f"{where}.{key}: must be positive")
    return value
