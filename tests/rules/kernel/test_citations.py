"""People read the law's title; the seed document's line stays apart, for the ledger."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rules.kernel.citations import citation_source, citation_title, cite

DATA = Path(__file__).resolve().parents[3] / "rules" / "data"
SEED_LINE = re.compile(r"\.txt\b|\.md\b|shared/")


def every_citation() -> list[str]:
    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("citation", "rule", "agreement_rule") and isinstance(value, str):
                    found.add(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in sorted(DATA.rglob("*.json")):
        if path.name != "citations.json":
            walk(json.loads(path.read_text(encoding="utf-8")))
    return sorted(found)


@pytest.mark.parametrize(
    ("text", "title", "source"),
    [
        ("CMC 17.38.050", "Cotati Municipal Code § 17.38.050", ""),
        (
            "CMC 17.38.100, cotati-fod-overlay-ordinance.txt:435; "
            "cotati-zoning-code-article3.txt:2247",
            "Cotati Municipal Code § 17.38.100",
            "cotati-fod-overlay-ordinance.txt:435; cotati-zoning-code-article3.txt:2247",
        ),
        # A bare document line takes the title of the section it falls in.
        (
            "cotati-zoning-code-article3.txt:379",
            "Cotati Municipal Code § 17.30.070",
            "cotati-zoning-code-article3.txt:379",
        ),
        (
            "cotati-fod-overlay-ordinance.txt:468-469 (up to two one-year extensions)",
            "Cotati Municipal Code § 17.62.030 (up to two one-year extensions)",
            "cotati-fod-overlay-ordinance.txt:468-469",
        ),
        ("Gov. Code 65950, 65956, 65957", "Gov. Code 65950, 65956, 65957", ""),
        # Our design notes are not law: a legacy ledger line keeps only its words.
        ("shot-clocks.md 8.9 (audited rebase)", "Audited rebase", ""),
        ("", "", ""),
    ],
)
def test_a_citation_reads_as_its_title_with_the_line_apart(
    text: str, title: str, source: str
) -> None:
    assert cite(text).title == title
    assert cite(text).source == source


@pytest.mark.parametrize("text", every_citation())
def test_no_citation_in_the_data_shows_a_file_name_to_a_reader(text: str) -> None:
    title = citation_title(text)
    assert title, text
    assert not SEED_LINE.search(title), (text, title)
    # What was taken out is kept for the ledger, never lost.
    if ".txt:" in text:
        assert citation_source(text)
