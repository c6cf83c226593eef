"""Read a resolution's conditions of approval into ConditionSpecs (reference conditions.md §6).

`parse_resolution` is pure: the text of the pages in, ParsedResolution out. Files (text,
PDF, scanned PDF through OCR, Word) are read into pages outside the rules, by
operations/documents.py; actions/resolution_files.py puts the two together for the CLI,
the web import and the API.

The steps, each built from rules that hold across cities rather than from one city's lines:

0. Per page: running headers and footers, page numbers and line numbers removed
   (page_furniture); the pages are joined, so a condition runs on across a page break.
1. Normalise: drop PDF page markers wherever they sit ("301 of 403", "293 of403", "Page 3
   of 9"; a "N of M" counts as a marker when its total M recurs or it says "Page"), bare page
   numbers, and running headers/footers (a short line repeated on every page).
2. Find the resolution title ("RESOLUTION OF ...") and the conditions section: a heading
   "CONDITIONS OF APPROVAL" (optionally "EXHIBIT A -"), or a sentence that ends in ":" and
   introduces conditions "below" / "following". It ends at the certification or adoption
   block ("IT IS HEREBY CERTIFIED", "PASSED AND ADOPTED", "*****", "END OF CONDITIONS").
3. Join wrapped lines (a line that ends mid-sentence continues on the next).
4. Headings are short title-case or capitals lines without a closing period. Capitals
   headings naming a department (data: departments.keywords) start a department; headings
   naming a milestone ("PRIOR TO ISSUANCE OF BUILDING PERMITS", "During Construction
   Operations ...") and title-case headings are sections. A heading must be followed by
   conditions or by more headings, never directly by sub-items; one ending in ":" must be
   followed by a condition (this keeps "IMPORTANT NOTICE TO ...:" inside condition 25).
   Text after a heading and before its first condition is its preamble. A sentence that
   ends in ":", names a milestone and is followed by a condition ("The following shall be
   satisfied prior to issuance of a building permit:") is a preamble even between
   conditions: it starts a new part of the section instead of ending the condition above.
5. Conditions are numbered "N." or "Condition No. N" (after ocr_numbers has rewritten
   "14.)", "(14)." and OCR-damaged numbers such as "l4." or "53_" that are the next in
   sequence). A number is a condition only when it
   is the next in sequence (previous + 1), at a line start or right after a sentence end;
   so "Highway 116. This", "Section 505.2. No" and "Chapter 8. Water" stay text. A jump of
   a few numbers, or a repeat, is accepted at a line start after a finished sentence, with
   a warning.
6. Sub-items: "A.", "a.", "1)", "(a)", "(1)", "(A)", bullets, and "1." inside conditions
   numbered "Condition No. N". A new style nests one level deeper; a style already open
   continues its list only with its next label (B after A), so "U.S." or "Exhibit C." are
   not items. A paragraph without a label continues the deepest open item.
7. Gates (§2): the condition's own words win ("explicit"); else the section in force (the
   last heading or preamble in the department that states one, so "Improvement Plans" and
   its preamble cover the subsections under it until a heading names another milestone);
   else the department's preamble ("department"); else words in its sub-items (quoted plan
   notes excluded) ("explicit"); else ["unspecified"] ("none"). When the own words name
   only monitored periods (during construction, ongoing), the inherited milestone is kept
   too, so an erosion control plan that must also stay on site still holds the grading
   permit (not for event or conditional conditions, which sleep until their trigger).
8. Kinds: rules.conditions.kinds. Related: the same mitigation code, or a substantive
   sentence that two conditions (and no third) share near-verbatim.
9. Each condition's page (where its words start), the warnings about it, and its
   confidence (review.py).

The steps live in these modules: 1-3 and the adoption date in rules.conditions.
resolution_layout; 4 in condition_headings; 5-6's labels in condition_labels; the walk that
opens conditions and sub-items and keeps the headings in force in condition_outline; 7 and
the kind in condition_specs; related conditions in related_conditions. This module puts
them together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from models.conditions import ParsedResolution
from rules.conditions.condition_headings import classify_headings
from rules.conditions.condition_labels import number_style
from rules.conditions.condition_outline import OutlineReader
from rules.conditions.condition_specs import condition_spec
from rules.conditions.gates import DEFAULT, UNSPECIFIED, MilestoneSet
from rules.conditions.ocr_numbers import repair_numbers
from rules.conditions.page_furniture import remove_furniture
from rules.conditions.related_conditions import link_related
from rules.conditions.resolution_layout import (
    adoption_date,
    conditions_bounds,
    conditions_lines,
    drop_running_lines,
    join_wrapped,
    resolution_title,
    strip_markers,
)
from rules.conditions.review import review, unknown_gate_phrase

# ------------------------------------------------------------------ public API


def parse_resolution(
    text: str | Sequence[str],
    milestones: MilestoneSet | None = None,
    department_aliases: Mapping[str, str] | None = None,
) -> ParsedResolution:
    """Parse a resolution's text (one string, pages split by form feeds, or a sequence of
    pages) into its numbered conditions (reference conditions.md §6, §9)."""
    ms = milestones or DEFAULT
    pages = text.split("\f") if isinstance(text, str) else list(text)
    pages = remove_furniture(pages)
    warnings: list[str] = []
    lines = strip_markers("\n".join(pages))
    start, end, found = conditions_bounds(lines)
    title, has_title = resolution_title(lines, start)
    if not has_title:
        warnings.append("No 'RESOLUTION OF ...' title found; the first line is used")
    if not found:
        warnings.append(
            "No 'Conditions of Approval' heading or introduction found; the whole text was read"
        )
    region, repaired = repair_numbers(drop_running_lines(conditions_lines(lines, start, end), ms))
    styles = number_style(region)
    region = join_wrapped(region, styles)
    outline = OutlineReader(ms, region, warnings, styles)
    outline.run(region, classify_headings(region, ms, styles))
    if not outline.conditions:
        warnings.append("No numbered conditions found")
    specs = [condition_spec(c, ms, warnings, department_aliases) for c in outline.conditions]
    link_related(specs, warnings)
    by_number = {s.number: s for s in specs}
    for s in specs:
        if s.gates == [UNSPECIFIED]:
            hint = next(
                (
                    f"; related condition {r} is gated {', '.join(by_number[r].gates)}"
                    for r in s.related
                    if by_number[r].gates != [UNSPECIFIED]
                ),
                "",
            )
            phrase = unknown_gate_phrase(s)
            said = f" ({phrase!r} is no milestone Clearance knows)" if phrase else ""
            warnings.append(
                f"Condition {s.number}: no milestone in its words, section or department; "
                f"listed as unspecified{said}{hint}"
            )
    review(specs, pages, warnings, repaired, outline.placed)
    return ParsedResolution(
        title=title, conditions=specs, warnings=warnings, adopted=adoption_date(lines, start, end)
    )


class ResolutionError(ValueError):
    """The file is no resolution this parser can read; the message is one line for the user."""


def read_pages(
    pages: Sequence[str],
    milestones: MilestoneSet | None = None,
    department_aliases: Mapping[str, str] | None = None,
) -> ParsedResolution:
    """The pages of a file to a parse with at least one condition, or ResolutionError saying
    in one line what is wrong: no text, a text that is not a resolution, or a resolution in
    which no condition was found."""
    text = "\f".join(pages)
    if not text.strip():
        raise ResolutionError("no text found in the file")
    parsed = parse_resolution(pages, milestones, department_aliases)
    if parsed.conditions:
        return parsed
    lines = strip_markers(text)
    _, _, has_heading = conditions_bounds(lines)
    _, has_title = resolution_title(lines, len(lines))
    if not (has_heading or has_title):
        raise ResolutionError(
            "not a resolution: no 'RESOLUTION ...' title, no 'Conditions of Approval' heading "
            "and no numbered conditions"
        )
    raise ResolutionError(
        "no conditions found: no numbered condition (1., COA-1, A.1, 1.1, PL-3, "
        "Condition No. 5 ...) in the resolution"
    )
