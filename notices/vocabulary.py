"""Every word a letter prints for a key: categories, clock and condition statuses, events,
outcomes, notice windows, permit statuses and consequences, milestones and departments.

Milestone labels and their usual order are data: the rules' one milestone loader
(rules.conditions.gates.load_milestones) reads them from `MILESTONES_FILE`, the canonical
rules/data/milestones/default.json unless a deployment (or a test) points it at a
jurisdiction's own file of that shape.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from time import monotonic
from typing import Any

from models.conditions import ProjectInfo
from rules.conditions import gates
from rules.conditions.gates import MilestoneSet
from rules.kernel.jurisdictions import JURISDICTIONS
from settings import PROJECT_ROOT

logger = logging.getLogger(__name__)

# -- shot clocks ---------------------------------------------------------------------------

CATEGORY_LABELS = {
    "swf_collocation": "small wireless facility on an existing structure",
    "macro_collocation": "collocation on an existing structure (not a small wireless facility)",
    "swf_new_structure": "small wireless facility on a new structure",
    "macro_new_structure": "new structure (not a small wireless facility)",
    "eligible_facilities_request": "eligible facilities request (Section 6409(a))",
}

STATUS_LABELS = {
    "awaiting_submission": "awaiting submission",
    "running": "running",
    "tolled": "tolled (an incompleteness notice is outstanding)",
    "reset_pending": "reset pending (waiting for the applicant's complete resubmission)",
    "decided_on_time": "decided on time",
    "decided_late": "decided after the shot clock date",
    "expired": "expired (no decision by the shot clock date)",
    "withdrawn": "withdrawn",
    "deemed_granted": "deemed granted",
    "deemed_approved": "deemed approved",
}

EVENT_LABELS = {
    "pre_application": "pre-application",
    "submitted": "application submitted",
    "incomplete_notice": "incompleteness notice",
    "resubmitted": "resubmission",
    "tolling_agreement": "tolling agreement",
    "decision": "decision",
    "withdrawn": "withdrawn",
    "deemed_granted_notice": "applicant's deemed-granted notice",
    "applicant_public_notice": "applicant's public notice",
    "deemed_approved_notice": "applicant's deemed-approved notice",
    "deemed_granted": "deemed granted",
    "deemed_approved": "deemed approved",
    "roll_forward": "roll-forward",
    "moratorium": "moratorium",
    "hearing_notice": "hearing notice",
    "appeal": "appeal",
}

OUTCOME_LABELS = {
    "approved": "approved",
    "approved_with_conditions": "approved with conditions",
    "denied": "denied",
}

WINDOW_STATE_LABELS = {"open": "open", "used": "used", "lapsed": "closed"}

WINDOW_LABELS = {
    "reset_notice": "small wireless reset window (day 10)",
    "first_notice": "first incompleteness notice window",
    "later_notice": "later incompleteness notice window",
}

# The same windows in a letter's sentence: "Until May 1, 2026, the City may send ...".
WINDOW_PHRASES = {
    "reset_notice": "the notice of incompleteness that restarts a small wireless shot clock",
    "first_notice": "a notice of incompleteness",
    "later_notice": (
        "a further notice of incompleteness, only about items the first notice asked for"
    ),
}

# -- conditions of approval ----------------------------------------------------------------

CONDITION_STATUS_LABELS = {
    "open": "open",
    "submitted": "submitted, awaiting review",
    "in_review": "in review",
    "cleared": "cleared",
    "returned": "returned for changes",
    "waived": "waived",
    "not_applicable": "not applicable",
    "satisfied_by_alternative": "satisfied by an alternative",
}

# -- permit clocks -------------------------------------------------------------------------

# What each consequence means for the person reading the letter.
CONSEQUENCE_LABELS = {
    "deemed_complete": "the application is deemed complete by operation of law",
    "deemed_consistent": "the project is deemed consistent with the applicable plans "
    "and zoning (Housing Accountability Act)",
    "deemed_approved": "the project may be deemed approved by operation of law",
    "writ_available": "the applicant may seek a writ of mandate compelling a decision",
    "haa_violation": "the city is in violation of the Housing Accountability Act",
    "vesting_lost": "the preliminary application's vested rights are lost",
    "expired": "the permit or approval expires and is void",
    "missed": "the decision deadline is missed (the code states no remedy; judicial "
    "review may follow)",
    "violation": "the condition is not met in time: a violation of the conditions of approval",
    "no_consultation": "no tribe accepted consultation in time: the 30 days for final action "
    "(Pub. Resources Code 21080.66) have started",
    "consultation_over": "the tribal consultation period ended: the 30 days for final action "
    "(Pub. Resources Code 21080.66) have started",
}

PERMIT_STATUS_LABELS = {
    "awaiting_start": "awaiting its start event",
    "running": "running",
    "paused": "paused",
    "met": "met on time",
    "met_late": "met after the deadline",
    "lapsed": "lapsed",
    "withdrawn": "withdrawn",
}


def labeller(table: Mapping[str, str]) -> Callable[[Any], str]:
    """A key's label from `table`; an unknown key still reads as words, not snake_case."""

    def label(value: Any) -> str:
        if value is None or value == "":
            return ""
        return table.get(str(value), str(value).replace("_", " "))

    return label


def rule_title(rule: str) -> str:
    return rule.replace("_", " ")


def words(key: Any) -> str:
    """'grading_permit' -> 'Grading permit': a key nothing labels."""
    text = str(key).replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def jurisdiction_name(key: str) -> str:
    """The calendar holds the jurisdiction's key; letters use the city's name."""
    city = JURISDICTIONS.get(key)
    return city.name if city is not None else key


# -- milestones ----------------------------------------------------------------------------

# The milestone file the labels and the usual order come from (see the module's note).
MILESTONES_FILE: Path = gates.DATA_FILE


class _Milestones:
    """One version of the milestone file, as the labels need it."""

    __slots__ = ("given", "file", "stamp", "checked", "milestones", "keys", "labels")

    def __init__(
        self, file: Path, stamp: int | None, checked: float, milestones: MilestoneSet
    ) -> None:
        self.given: object = MILESTONES_FILE  # the setting's object this was read for
        self.file = file
        self.stamp = stamp
        self.checked = checked
        self.milestones = milestones
        self.keys = tuple(milestones.keys)
        self.labels = {m.key: m.label for m in milestones.milestones}


_current: _Milestones | None = None


def _stamp(file: Path) -> int | None:
    try:
        return file.stat().st_mtime_ns
    except OSError:
        return None


def _load(file: Path, stamp: int | None) -> MilestoneSet:
    """The file through the rules' loader; the canonical set when it cannot be read (a
    letter is never held back for its labels)."""
    if stamp is None:
        logger.warning("milestone file %s is missing: using the canonical milestones", file)
        return gates.DEFAULT
    try:
        return gates.load_milestones(file)
    except (OSError, ValueError, TypeError, AttributeError) as err:
        logger.warning(
            "milestone file %s is unreadable (%s): using the canonical milestones", file, err
        )
        return gates.DEFAULT


def _milestones() -> _Milestones:
    # Pages label hundreds of milestones each: one table per version of the file, and the
    # file's date looked at once a second at most (a stat per label cost 0.1 ms). Keyed by
    # the file too: a deployment (or a test) that points elsewhere is read at once.
    global _current
    now = monotonic()
    cached = _current
    # The setting as given is compared first: building a Path per label cost more than
    # the label (an inbox labels thousands).
    if cached is not None and cached.given is MILESTONES_FILE and now - cached.checked < 1.0:
        return cached
    file = Path(MILESTONES_FILE)
    if cached is not None and cached.file == file:
        cached.given = MILESTONES_FILE
        if now - cached.checked < 1.0:
            return cached
        stamp = _stamp(file)
        if stamp == cached.stamp:
            cached.checked = now
            return cached
    else:
        stamp = _stamp(file)
    _current = _Milestones(file, stamp, now, _load(file, stamp))
    return _current


def milestone_set() -> MilestoneSet:
    """The milestones letters and pages are labelled and ordered by."""
    return _milestones().milestones


def milestone_keys() -> list[str]:
    """Milestone keys in the milestone file's order."""
    return list(_milestones().keys)


def milestone_label(key: Any) -> str:
    if key is None or key == "":
        return ""
    if key == gates.UNSPECIFIED:
        return "Unspecified (no gate assigned)"
    return _milestones().labels.get(str(key)) or words(key)


def milestone_order(project_milestones: list[str] | None = None) -> list[str]:
    """The project's own milestone order if it has one, else the milestone file's."""
    if project_milestones:
        return list(project_milestones)
    return milestone_keys()


# -- departments ---------------------------------------------------------------------------

DEPARTMENTS_FILE = PROJECT_ROOT / "rules" / "data" / "departments.json"


def department_names() -> dict[str, str]:
    try:
        data = json.loads(DEPARTMENTS_FILE.read_text("utf-8"))
        return {d["key"]: d["name"] for d in data.get("departments", [])}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def department_label(key: Any, project: ProjectInfo | None = None) -> str:
    """A department key as its name: the project's contact list first, then the
    department file; a heading as printed passes through unchanged."""
    if key is None or key == "":
        return ""
    if project is not None:
        for d in project.departments:
            if d.department_key == key and d.name:
                return d.name
    return department_names().get(str(key), str(key))
