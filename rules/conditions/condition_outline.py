"""The outline of the conditions section: one walk over its joined lines that opens a
condition at each number in sequence (step 5 of rules.conditions.parser), nests its
sub-items (step 6), and keeps the department, section and preamble in force with the gates
they give (step 7: what a condition inherits)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from models.conditions import SubItem
from rules.conditions.condition_headings import (
    caps,
    clean_heading,
    heading_label,
    heading_shape,
    is_topic,
)
from rules.conditions.condition_labels import TERMINAL, Candidate, candidates
from rules.conditions.gates import MilestoneSet

# A mitigation code after the condition's number: "BIO-1:", "(MM AQ-1)", "UTI -3:".
_CODE = re.compile(
    r"^\s*\(?\s*(?:(?:Mitigation\s+Measure|MM)\s*)?(?P<p>[A-Z]{2,5})\s*-\s*(?P<n>\d{1,2}[a-z]?)\s*\)?"
    r"\s*[:.\u2013\u2014-]\s*"
)

_QUOTES = '"\u201c\u201d'


@dataclass
class OutlineItem:
    label: str
    paras: list[list[str]] = field(default_factory=list)
    children: list[OutlineItem] = field(default_factory=list)
    quoted: bool = False  # a note to print on the plans, not an obligation

    def add(self, text: str, new_para: bool) -> None:
        text = text.strip()
        if not text:
            return
        if new_para or not self.paras:
            self.paras.append([text])
        else:
            self.paras[-1].append(text)

    @property
    def text(self) -> str:
        return "\n".join(" ".join(p) for p in self.paras)

    def to_sub_item(self) -> SubItem:
        return SubItem(self.label, self.text, [c.to_sub_item() for c in self.children])

    def obligation_texts(self) -> Iterable[str]:
        """Texts of the sub-items below, skipping quoted notes and everything under them."""
        for child in self.children:
            if child.quoted:
                continue
            yield child.text
            yield from child.obligation_texts()


@dataclass
class OutlineCondition:
    number: str
    value: int
    code: str | None
    department: str | None
    section: str | None
    inherited: list[str]
    inherited_source: str
    root: OutlineItem
    stack: list[tuple[str, int, OutlineItem]] = field(default_factory=list)
    series: str = ""
    label: str = ""  # the number as printed, before any "(2)" for a repeat

    @property
    def target(self) -> OutlineItem:
        return self.stack[-1][2] if self.stack else self.root


class OutlineReader:
    """Walks the joined lines of the conditions section once, keeping the heading context."""

    def __init__(
        self,
        ms: MilestoneSet,
        lines: Sequence[str],
        warnings: list[str],
        styles: frozenset[str] = frozenset({"num", "cno"}),
    ) -> None:
        self.ms = ms
        self.warnings = warnings
        self.styles = styles
        self.numbered_headings = "num" not in styles
        # Where every condition-shaped number sits, to tell a gap from a stray number.
        self.later: dict[tuple[str, int], list[tuple[int, int]]] = {}
        for i, line in enumerate(lines):
            for c in candidates(line):
                if c.style in styles and not c.inline:
                    self.later.setdefault((c.series, c.value), []).append((i, c.start))
        self.conditions: list[OutlineCondition] = []
        # (index in warnings, number of the condition it was raised at): a gap or a repeat
        # is placed at the condition after it, and the parser adds that condition's page.
        self.placed: list[tuple[int, str]] = []
        self.last_in_series: dict[str, int] = {}
        self.in_section = 0  # conditions under the current section heading
        self.current: OutlineCondition | None = None
        self.department: str | None = None
        self.department_gates: list[str] = []
        self.global_gates: list[str] = []
        self.section: str | None = None
        self.section_gates: list[str] = []
        self.heading_gates: list[str] = []
        # A milestone heading over the departments that follow it: (its name, its gates).
        self.over_departments: tuple[str, list[str]] | None = None
        self.preamble_target = "global"
        self.preamble: list[str] = []

    # -- headings and preambles

    def department_heading(self, name: str) -> None:
        """A department's conditions. Under a milestone heading that no condition followed
        before the department did ("PRIOR TO OCCUPANCY" / "PLANNING" / ... / "FIRE"), the
        resolution is ordered by milestone: each department under it keeps its gate."""
        if self.heading_gates and self.in_section == 0 and self.section is not None:
            self.over_departments = (self.section, list(self.section_gates))
        self.current = None
        self.department = name
        self.department_gates = self.ms.default_for_department(name)
        self.section, self.section_gates, self.heading_gates = None, [], []
        if self.over_departments is not None:
            self.section, self.section_gates = self.over_departments[0], [*self.over_departments[1]]
        self.in_section = 0
        self.preamble_target, self.preamble = "department", []

    def section_heading(self, name: str, top_level: bool = False, labelled: bool = False) -> None:
        """A milestone section gives its gate; a topic section none. A capitals heading is a
        top-level section (it ends the gate of the section before); a title-case one is a
        subsection and keeps it ("Improvement Plans" covers "General Requirements"). A
        lettered or numbered one ("B. PRIOR TO OCCUPANCY") stands beside the departments."""
        # "General Requirements" after the conditions of "Prior to Release of the Performance
        # Bond" is that section's sibling: a topic, under no milestone.
        sibling = is_topic(name) and bool(self.heading_gates) and self.in_section > 0
        self.current = None
        self.section = name
        self.heading_gates = self.ms.detect(name, heading=True)
        if self.heading_gates or top_level or labelled:
            # Another milestone (or a top-level part) ends the one over the departments; a
            # department's own title-case subsection does not.
            self.over_departments = None
        self.in_section = 0
        if labelled:
            self.department, self.department_gates = None, []
        if self.heading_gates or top_level or sibling:
            self.section_gates = list(self.heading_gates)
        self.preamble_target, self.preamble = "section", []

    def section_preamble(self, text: str) -> None:
        """A preamble sentence between conditions starts a new unnamed part of the section."""
        self.current = None
        self.heading_gates = []
        self.preamble_target, self.preamble = "section", []
        self.add_preamble(text)

    def add_preamble(self, text: str) -> None:
        self.preamble.append(text.strip())
        gates = self.ms.detect(" ".join(self.preamble))
        if not gates:
            return
        if self.preamble_target == "department":
            self.department_gates = gates
        elif self.preamble_target == "section":
            self.section_gates = self.ms.ordered([*self.heading_gates, *gates])
        else:
            self.global_gates = gates

    # -- labels

    def _condition_ok(
        self, c: Candidate, line_no: int, prev_terminal: bool, rest: str
    ) -> tuple[bool, str | None]:
        if c.style not in self.styles or c.inline:
            return False, None
        n = c.value
        if not self.conditions:
            if c.at_start or n == 1:
                return True, None if n == 1 else f"Conditions start at number {c.label}, not 1"
            return False, None
        last = self.last_in_series.get(c.series)
        if last is None:
            # A new series ("ENG-1" after "PL-4", "B.1", "2.1") starts at 1 or goes on counting.
            ok = c.at_start and n in (1, self.conditions[-1].value + 1)
            return ok, None
        if n == last + 1:
            return True, None
        # A jump or a repeat only at a line start after a finished sentence, never mid-text.
        if not (c.at_start and prev_terminal and rest[:1].isupper()):
            return False, None
        if last + 1 < n <= last + 5:
            if any(p > (line_no, c.start) for p in self.later.get((c.series, last + 1), [])):
                return False, None
            lead = c.label[: len(c.label) - len(str(n))]
            missing = f"{lead}{last + 1}" if n == last + 2 else f"{lead}{last + 1}-{lead}{n - 1}"
            return (
                True,
                f"Condition numbering skips from {lead}{last} to {c.label} (missing {missing})",
            )
        if n == last:
            return True, (
                f"Condition number {c.label} is printed twice; "
                f"the second is listed as {c.label} (2)"
            )
        return False, None

    def _open_condition(self, c: Candidate, line: str) -> int:
        n = c.value
        repeats = sum(1 for x in self.conditions if x.label == c.label)
        number = c.label if not repeats else f"{c.label} ({repeats + 1})"
        self.last_in_series[c.series] = n
        self.in_section += 1
        if self.section_gates:
            inherited, source = list(self.section_gates), "section"
        elif self.department_gates:
            inherited, source = list(self.department_gates), "department"
        elif self.global_gates:
            inherited, source = list(self.global_gates), "department"
        else:
            inherited, source = [], "none"
        cond = OutlineCondition(
            number,
            n,
            None,
            self.department,
            self.section,
            inherited,
            source,
            OutlineItem(number),
            series=c.series,
            label=c.label,
        )
        end = c.end
        m = _CODE.match(line[end:])
        if m:
            # "UTI -3:" and "UTI-1:The" are the same code shape; print it one way.
            cond.code = f"{m.group('p')}-{m.group('n')}"
            end += m.end()
        self.conditions.append(cond)
        self.current = cond
        return end

    def _sub_ok(self, c: Candidate) -> bool:
        assert self.current is not None
        stack = self.current.stack
        depth = next((d for d, (style, _, _) in enumerate(stack) if style == c.style), None)
        if depth is not None:
            return c.style == "bu" or c.value == stack[depth][1] + 1
        # A new list starts at its first label, mid-line only right after a colon or as an
        # inline run ("shall (a) submit ... (b) pay ...", checked by the caller).
        return c.style == "bu" or (c.value == 1 and (c.at_start or c.after_colon or c.inline))

    def _open_sub_item(self, c: Candidate) -> OutlineItem:
        assert self.current is not None
        stack = self.current.stack
        depth = next((d for d, (style, _, _) in enumerate(stack) if style == c.style), None)
        if depth is not None:
            del stack[depth:]
        item = OutlineItem(c.label)
        self.current.target.children.append(item)
        stack.append((c.style, c.value, item))
        return item

    def _emit(self, text: str, new_para: bool) -> None:
        if not text.strip():
            return
        if self.current is None:
            self.add_preamble(text)
        else:
            self.current.target.add(text, new_para)

    def process(self, line: str, line_no: int, prev_terminal: bool) -> None:
        """Split a line at the labels that open a condition or a sub-item."""
        pos, first = 0, True
        cands = candidates(line)
        for found in cands:
            if found.start < pos:
                continue
            rest = line[found.end :].lstrip()
            c = self._in_run(found, cands)
            if c is None:
                continue
            if c.style in self.styles or c.style in ("num", "dec", "alnum", "pfx"):
                ok, warning = self._condition_ok(c, line_no, prev_terminal, rest)
                if ok:
                    self._emit(line[pos : c.start], first)
                    pos, first = self._open_condition(c, line), False
                    if warning:
                        self.warnings.append(warning)
                        self.placed.append((len(self.warnings) - 1, self.conditions[-1].number))
                    continue
                c = self._not_a_condition(c)
                if c is None:
                    continue
            if self.current is not None and self._sub_ok(c):
                self._emit(line[pos : c.start], first)
                self._open_sub_item(c).quoted = rest[:1] in _QUOTES
                pos, first = c.end, False
        self._emit(line[pos:], first)

    def _in_run(self, c: Candidate, cands: Sequence[Candidate]) -> Candidate | None:
        """Mid-line, a list starts only as a run with its second label in the same line
        ("shall (a) submit ... (b) pay ...", "...; i. no sound; ii. doors closed"): a first
        label without one is a reference, not a list (None)."""
        if c.value != 1 or c.at_start or c.after_colon or c.style == "bu":
            return c
        run = any(x.style == c.style and x.value == 2 and x.start > c.start for x in cands)
        if c.inline and not run:
            return None  # "(a)" alone mid-sentence is a reference, not a list
        if run and c.style not in self.styles:
            return replace(c, inline=True)
        return c

    def _not_a_condition(self, c: Candidate) -> Candidate | None:
        """A condition-shaped label that opens no condition: "1." at a line start inside a
        condition numbers a sub-item ("nd"); "1.2", "A.1", "PL-3" and "Condition No. 5"
        stay text (None)."""
        if c.style in ("cno", "dec", "alnum", "pfx"):
            return None
        if c.style == "num":
            if not c.at_start or self.current is None:
                return None
            return Candidate(c.start, c.end, "nd", c.value, c.label, c.at_start, c.after_colon)
        return c

    def run(self, lines: Sequence[str], kinds: Sequence[str | None]) -> None:
        prev_terminal = True
        for i, line in enumerate(lines):
            kind = kinds[i]
            if kind == "preamble":
                # Before any condition it is the heading's preamble as usual; after one it
                # would otherwise be read as that condition's last sentence.
                if self.current is not None:
                    self.section_preamble(line)
                else:
                    self.add_preamble(line)
                prev_terminal = True
                continue
            if kind is not None:
                body = heading_shape(line, self.numbered_headings) or line
                name = clean_heading(body)
                if kind == "department":
                    self.department_heading(name)
                else:
                    labelled = heading_label(line, self.numbered_headings) is not None
                    self.section_heading(name, top_level=caps(body), labelled=labelled)
                prev_terminal = True
                continue
            self.process(line, i, prev_terminal)
            prev_terminal = line[-1] in TERMINAL
