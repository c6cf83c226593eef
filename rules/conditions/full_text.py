"""A condition's whole text: its words and every sub-item ("a.", "(1)"), in order, so a
list, a report or a letter never stops at the colon that introduces them. Pure."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def _items(items: Iterable[Any]) -> list[str]:
    out: list[str] = []
    for item in items or []:
        if isinstance(item, Mapping):
            label, text, children = item.get("label"), item.get("text"), item.get("sub_items")
        else:
            label, text, children = item.label, item.text, item.sub_items
        words = " ".join(f"{label or ''} {text or ''}".split()).rstrip(";,")
        if words:
            out.append(words)
        out += _items(children or [])
    return out


def full_text(text: str | None, sub_items: Iterable[Any] | None) -> str:
    """'Submit a plan showing:' + [a. trees, b. fences] ->
    'Submit a plan showing: a. trees; b. fences'."""
    head = " ".join(str(text or "").split())
    parts = _items(sub_items or [])
    return " ".join([head, "; ".join(parts)]).strip() if parts else head
