"""Properties of the parser over generated resolutions in every numbering style of §7: no
numbered paragraph is lost (each one comes out as a condition or as a sub-item), and every
condition whose gate is `unspecified` has a warning saying so."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.conditions import SubItem
from rules.conditions.parser import parse_resolution

SENTENCES = [
    "The applicant shall submit a final landscape plan for review and approval.",
    "Prior to issuance of a building permit, the applicant shall pay the park fees.",
    "The applicant shall dedicate a ten-foot public utility easement along the frontage.",
    "Street trees shall be planted and maintained by the property owner.",
    "The developer shall record a reciprocal access agreement prior to map recordation.",
    "A construction management plan shall be approved before the start of construction.",
    "The applicant is encouraged to install solar panels on the carport roofs.",
    "Exterior lighting shall be shielded and directed downward.",
    "This condition shall not apply if the building is served by the public sewer system.",
    "The permit shall expire twenty-four (24) months from the date of approval.",
    "Fire hydrants shall be installed prior to final inspection.",
    "The applicant shall reimburse the City for review costs within 30 days of invoice.",
]
ITEMS = [
    "a parking plan;",
    "a trash enclosure detail;",
    "a photometric plan showing every fixture;",
    "an irrigation schedule.",
]
HEADINGS = [
    "GENERAL CONDITIONS",
    "PLANNING DIVISION",
    "PUBLIC WORKS DEPARTMENT (555) 555-0100",
    "PRIOR TO ISSUANCE OF BUILDING PERMITS",
    "FIRE DISTRICT",
    "ONGOING CONDITIONS",
]


@dataclass(frozen=True)
class Style:
    name: str

    def label(self, section: int, n: int) -> tuple[str, str]:
        """(as printed in the document, as the parser reports the number)"""
        if self.name == "num":
            return f"{n}.", str(n)
        if self.name == "paren":
            return f"{n})", str(n)
        if self.name == "wrapped":
            return f"({n})", str(n)
        if self.name == "coa":
            return f"COA-{n}.", f"COA-{n}"
        if self.name == "letter":
            letter = "ABCDEFGH"[section]
            return f"{letter}.{n}", f"{letter}.{n}"
        if self.name == "decimal":
            return f"{section + 1}.{n}", f"{section + 1}.{n}"
        if self.name == "prefix":
            prefix = ("PL", "ENG", "FIRE", "BLDG")[section % 4]
            return f"{prefix}-{n}.", f"{prefix}-{n}"
        if self.name == "condition":
            return f"Condition {n}:", str(n)
        return f"Condition No. {n}.", str(n)

    def restarts(self) -> bool:
        """Numbers start again at 1 in each section ("A.1", "B.1", "2.1", "ENG-1")."""
        return self.name in ("letter", "decimal", "prefix")


STYLES = [
    Style(n)
    for n in ("num", "paren", "wrapped", "coa", "letter", "decimal", "prefix", "condition", "cno")
]


@st.composite
def resolutions(draw: st.DrawFn) -> tuple[str, list[tuple[str, list[str]]]]:
    style = draw(st.sampled_from(STYLES))
    sections = draw(st.integers(1, 4))
    lines = [
        "RESOLUTION OF THE CITY COUNCIL OF THE CITY OF TESTVILLE APPROVING PROJECT P-1",
        "CONDITIONS OF APPROVAL",
    ]
    expected: list[tuple[str, list[str]]] = []
    n = 0
    for section in range(sections):
        heading = draw(st.sampled_from(HEADINGS))
        if style.name == "letter":
            heading = f"{'ABCDEFGH'[section]}. {heading}"
        elif style.name == "decimal":
            heading = f"{section + 1}.0 {heading}"
        if section or draw(st.booleans()) or style.name in ("letter", "decimal"):
            lines.append(heading)
        if style.restarts():
            n = 0
        for _ in range(draw(st.integers(1, 5))):
            n += 1
            printed, number = style.label(section, n)
            text = " ".join(draw(st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=3)))
            labels: list[str] = []
            items = draw(st.sampled_from(["none", "lines", "inline"]))
            if items == "lines":
                lead = "The applicant shall submit the following:"
                lines.append(f"{printed} {lead}")
                chosen = draw(st.lists(st.sampled_from(ITEMS), min_size=2, max_size=4))
                for i, item in enumerate(chosen):
                    label = "abcd"[i]
                    lines.append(f"{label}. {item}" if style.name != "cno" else f"({label}) {item}")
                    labels.append(label)
                if text:
                    lines.append(text)
            elif items == "inline":
                chosen = draw(st.lists(st.sampled_from(ITEMS), min_size=2, max_size=3))
                inline = " ".join(f"({'abc'[i]}) {t}" for i, t in enumerate(chosen))
                lines.append(f"{printed} {text} The applicant shall provide {inline}")
                labels = list("abc"[: len(chosen)])
            else:
                lines.append(f"{printed} {text}")
            expected.append((number, labels))
    lines.append("PASSED AND ADOPTED this 1st day of June, 2026.")
    return "\n".join(lines), expected


def _labels(items: list[SubItem]) -> list[str]:
    return [s.label for s in items]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(resolutions())
def test_no_numbered_paragraph_is_lost(doc: tuple[str, list[tuple[str, list[str]]]]) -> None:
    text, expected = doc
    parsed = parse_resolution(text)
    assert [c.number for c in parsed.conditions] == [n for n, _ in expected], text
    for c, (_, labels) in zip(parsed.conditions, expected, strict=True):
        assert _labels(c.sub_items) == labels, (c.number, text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(resolutions())
def test_every_unspecified_gate_has_a_warning(
    doc: tuple[str, list[tuple[str, list[str]]]],
) -> None:
    parsed = parse_resolution(doc[0])
    for c in parsed.conditions:
        assert c.gates, c.number
        if c.gates == ["unspecified"]:
            assert c.gate_source == "none"
            assert any(w.startswith(f"Condition {c.number}: no milestone") for w in parsed.warnings)
