"""The audit trail's hash chain: pure, no I/O.

Each project's audit entries form one chain in the order they were written: entry `seq`
carries the hash of entry `seq - 1` (`prev_hash`; the first carries GENESIS) and its own
hash over its content and that link. Editing, removing, inserting or reordering an entry
breaks the chain at that entry, and `verify` names the first break. What a chain cannot
show by itself: entries cut off its end, or a chain rewritten whole from the edit onward;
the head hash that `verify` reports, noted somewhere else, catches both.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64

# The content a hash covers, beyond the link; an entry's project and place are part of it,
# so an entry cannot be moved to another project or another place unnoticed.
CONTENT_FIELDS = (
    "project_id",
    "seq",
    "audit_id",
    "at",
    "actor",
    "role",
    "action",
    "condition_number",
    "reason",
    "details",
)


@dataclass(frozen=True)
class ChainEntry:
    project_id: str
    seq: int | None
    audit_id: str
    at: str
    actor: str
    role: str
    action: str
    condition_number: str | None
    reason: str
    details: Mapping[str, Any]
    prev_hash: str
    entry_hash: str


@dataclass(frozen=True)
class ChainBreak:
    """The first place the chain does not hold, and why."""

    seq: int | None
    audit_id: str
    problem: str

    def __str__(self) -> str:
        where = f"entry {self.seq}" if self.seq is not None else "an entry with no place"
        return f"{where} (audit id {self.audit_id}): {self.problem}"


@dataclass(frozen=True)
class ChainReport:
    entries: int
    head: str  # the last entry's hash: note it elsewhere to catch a cut or rewritten end
    first_break: ChainBreak | None

    @property
    def intact(self) -> bool:
        return self.first_break is None


def entry_hash(prev_hash: str, content: Mapping[str, Any]) -> str:
    """sha256 over the link and the content, as canonical JSON (sorted keys, no spaces).
    An empty condition number and empty details hash alike whether they are None or empty,
    as CSV cannot tell those apart."""
    body = {name: content.get(name) for name in CONTENT_FIELDS}
    body["condition_number"] = body["condition_number"] or ""
    body["reason"] = body["reason"] or ""
    body["details"] = dict(body["details"] or {})
    body["prev_hash"] = prev_hash
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def link(
    prev_hash: str, next_seq: int, contents: Iterable[Mapping[str, Any]]
) -> list[tuple[int, str, str]]:
    """(seq, prev_hash, entry_hash) for entries appended after `prev_hash` at `next_seq`."""
    chained = []
    for offset, content in enumerate(contents):
        seq = next_seq + offset
        digest = entry_hash(prev_hash, {**content, "seq": seq})
        chained.append((seq, prev_hash, digest))
        prev_hash = digest
    return chained


def _content(entry: ChainEntry) -> dict[str, Any]:
    return {name: getattr(entry, name) for name in CONTENT_FIELDS}


def verify(
    entries: Iterable[ChainEntry], alternatives: Mapping[str, list[ChainEntry]] | None = None
) -> ChainReport:
    """Walk the chain in `seq` order; `alternatives` (by audit id) are other readings of
    the same entry (e.g. a CSV cell with or without its formula escape), any of which may
    match its hash."""
    ordered = sorted(entries, key=lambda e: (e.seq is None, e.seq or 0))
    prev = GENESIS
    for position, entry in enumerate(ordered, start=1):
        if entry.seq is None or not entry.entry_hash:
            return ChainReport(
                len(ordered),
                prev,
                ChainBreak(
                    entry.seq,
                    entry.audit_id,
                    "it carries no chain hash (written outside the audit trail, or stripped)",
                ),
            )
        if entry.seq != position:
            missing = "removed" if entry.seq > position else "duplicated"
            return ChainReport(
                len(ordered),
                prev,
                ChainBreak(
                    entry.seq,
                    entry.audit_id,
                    f"expected entry {position} here: an entry was {missing}",
                ),
            )
        if entry.prev_hash != prev:
            return ChainReport(
                len(ordered),
                prev,
                ChainBreak(
                    entry.seq,
                    entry.audit_id,
                    "its link does not match the hash of the entry before it "
                    "(an entry before it was removed, inserted, reordered or re-hashed)",
                ),
            )
        readings = [entry, *((alternatives or {}).get(entry.audit_id, []))]
        if not any(entry_hash(prev, _content(r)) == entry.entry_hash for r in readings):
            return ChainReport(
                len(ordered),
                prev,
                ChainBreak(
                    entry.seq,
                    entry.audit_id,
                    "its content does not match its hash (edited after it was written)",
                ),
            )
        prev = entry.entry_hash
    return ChainReport(len(ordered), prev, None)
