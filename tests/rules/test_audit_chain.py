"""The audit hash chain: an intact chain verifies, and every kind of tampering (an edit, a
removal, an insertion, a reordering, a stripped hash) is named at the first entry it
breaks."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from rules.audit_chain import GENESIS, ChainEntry, entry_hash, link, verify


def content(n: int) -> dict:
    return {
        "project_id": "P-1",
        "audit_id": f"{n:06d}",
        "at": f"2027-01-{n:02d}T10:00:00-08:00",
        "actor": "pm@city.example",
        "role": "project_manager",
        "action": "condition.review",
        "condition_number": str(n),
        "reason": f"reason {n}",
        "details": {"to": "cleared", "n": n},
    }


def chain(size: int) -> list[ChainEntry]:
    contents = [content(n) for n in range(1, size + 1)]
    return [
        ChainEntry(**{**c, "seq": seq, "prev_hash": prev, "entry_hash": digest})
        for c, (seq, prev, digest) in zip(contents, link(GENESIS, 1, contents), strict=True)
    ]


def test_an_intact_chain_verifies_and_reports_its_head() -> None:
    entries = chain(5)
    report = verify(entries)
    assert report.intact and report.entries == 5 and report.head == entries[-1].entry_hash
    # Order of presentation does not matter: the chain's order is its seq.
    assert verify(list(reversed(entries))).intact
    assert verify([]).intact and verify([]).head == GENESIS


def test_an_edited_entry_is_named() -> None:
    entries = chain(5)
    entries[2] = dataclasses.replace(entries[2], reason="nothing to see here")
    report = verify(entries)
    assert not report.intact
    assert report.first_break.seq == 3 and "content does not match its hash" in str(
        report.first_break
    )


def test_an_edit_rehashed_in_place_is_caught_at_the_next_link() -> None:
    entries = chain(5)
    forged = dataclasses.replace(entries[2], actor="someone-else@city.example")
    fields = {k: getattr(forged, k) for k in content(1)} | {"seq": 3}
    entries[2] = dataclasses.replace(forged, entry_hash=entry_hash(forged.prev_hash, fields))
    report = verify(entries)
    assert report.first_break.seq == 4 and "does not match the hash of the entry before" in str(
        report.first_break
    )


def test_a_removed_entry_is_named() -> None:
    entries = chain(5)
    del entries[1]
    report = verify(entries)
    assert report.first_break.seq == 3 and "an entry was removed" in report.first_break.problem


def test_swapped_entries_are_named() -> None:
    entries = chain(5)
    a, b = entries[1], entries[2]
    entries[1] = dataclasses.replace(b, seq=2)
    entries[2] = dataclasses.replace(a, seq=3)
    assert verify(entries).first_break.seq == 2


def test_an_entry_without_a_hash_is_named() -> None:
    entries = chain(3)
    entries.append(dataclasses.replace(entries[2], seq=None, entry_hash="", audit_id="x"))
    report = verify(entries)
    assert report.first_break.audit_id == "x" and "no chain hash" in report.first_break.problem


def test_empty_condition_and_details_hash_alike_however_they_are_written() -> None:
    base = {**content(1), "seq": 1}
    assert entry_hash(GENESIS, {**base, "condition_number": None, "details": None}) == entry_hash(
        GENESIS, {**base, "condition_number": "", "details": {}}
    )


@given(st.integers(min_value=1, max_value=12), st.data())
def test_any_single_field_edit_breaks_the_chain_at_that_entry(size: int, data) -> None:
    entries = chain(size)
    index = data.draw(st.integers(min_value=0, max_value=size - 1))
    field = data.draw(
        st.sampled_from(["audit_id", "at", "actor", "role", "action", "reason", "project_id"])
    )
    entries[index] = dataclasses.replace(entries[index], **{field: "tampered"})
    report = verify(entries)
    assert report.first_break is not None and report.first_break.seq == index + 1


def test_link_continues_a_chain() -> None:
    first = link(GENESIS, 1, [content(1)])
    more = link(first[0][2], 2, [content(2), content(3)])
    assert [s for s, _, _ in more] == [2, 3]
    assert more[0][1] == first[0][2] and more[1][1] == more[0][2]
    assert link("a" * 64, 4, []) == []
