"""Who may do what to a condition, and what blocks a milestone: pure rules shared by the
project workflow's validators, the CLI and (later) the web app."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from models.conditions import (
    CLEARED,
    IN_REVIEW,
    NOT_APPLICABLE,
    OPEN,
    RESOLVED_STATUSES,
    RETURNED,
    SATISFIED_BY_ALTERNATIVE,
    SUBMITTED,
    WAIVED,
    Actor,
    ConditionState,
)

_DATA = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "departments.json").read_text("utf-8")
)
DEPARTMENTS: dict[str, str] = {d["key"]: d["name"] for d in _DATA["departments"]}
_PATTERNS = [(d["key"], [p.lower() for p in d["patterns"]]) for d in _DATA["departments"]]
_PREFIXES = {p.upper(): d["key"] for d in _DATA["departments"] for p in d.get("prefixes", [])}
_OFFICIALS = [
    (
        re.compile(r"\bsatisfaction of (?:the )?(?:city |county )?" + re.escape(o.lower()) + r"\b"),
        d["key"],
    )
    for d in _DATA["departments"]
    for o in d.get("officials", [])
]

# Gates that describe obligations rather than a moment: they are monitored, never signed off.
MONITORED_GATES = frozenset({"during_construction", "ongoing"})
DORMANT_KINDS = frozenset({"conditional", "event"})
ROLES = (
    "project_manager",
    "engineering",
    "department_reviewer",
    "planning_manager",
    "city_attorney",
    "admin",
    "applicant",
)


class ActionRefused(ValueError):
    """The action is not allowed; the message says why, in the user's words."""


def department_prefixes() -> dict[str, str]:
    """Condition-number prefixes that name a department ("ENG" -> "engineering")."""
    return dict(_PREFIXES)


def department_of_official(text: str) -> str | None:
    """The department named by "to the satisfaction of the City Engineer" and the like."""
    s = " ".join(text.lower().split())
    if "satisfaction of" not in s:
        return None
    for pattern, key in _OFFICIALS:
        if pattern.search(s):
            return key
    return None


def department_key(heading: str | None) -> str:
    """The department that clears a condition printed under `heading` (None: the fallback)."""
    text = (heading or "").lower()
    for key, patterns in _PATTERNS:
        if any(p in text for p in patterns):
            return key
    return _DATA["fallback"]


def blocks(condition: ConditionState, milestone: str) -> bool:
    """Does this condition, as it stands, stop `milestone` from being signed off?"""
    if milestone not in condition.spec.gates or milestone in MONITORED_GATES:
        return False
    if condition.spec.kind == "advisory":
        return False
    if condition.spec.kind in DORMANT_KINDS and not condition.triggered:
        return False
    return condition.status not in RESOLVED_STATUSES


def blockers(conditions: Iterable[ConditionState], milestone: str) -> list[ConditionState]:
    return [c for c in conditions if blocks(c, milestone)]


def owed_by_applicant(conditions: Iterable[ConditionState]) -> list[ConditionState]:
    """What the applicant still has to provide: open or returned, and in force."""
    return [
        c
        for c in conditions
        if c.status in (OPEN, RETURNED)
        and c.spec.kind != "advisory"
        and not (c.spec.kind in DORMANT_KINDS and not c.triggered)
        and not set(c.spec.gates) <= MONITORED_GATES
    ]


def next_milestone(
    milestones: Sequence[str], signed_off: Iterable[str], conditions: Sequence[ConditionState]
) -> str | None:
    """The first milestone in order that is not signed off and has conditions gating it."""
    done = set(signed_off)
    gated = {g for c in conditions for g in c.spec.gates}
    for m in milestones:
        if m not in done and m in gated and m not in MONITORED_GATES:
            return m
    return None


def describe(condition: ConditionState) -> str:
    code = f" ({condition.spec.code})" if condition.spec.code else ""
    text = re.sub(r"\s+", " ", condition.spec.text).strip()
    short = text if len(text) <= 110 else text[:107].rstrip() + "..."
    return (
        f"#{condition.spec.number}{code} [{condition.status}, {condition.department_key}] {short}"
    )


# -- permissions ------------------------------------------------------------------------------


def _require(condition: ConditionState | None, number: str) -> ConditionState:
    if condition is None:
        raise ActionRefused(f"there is no condition #{number} in this project")
    return condition


def check_submit_evidence(condition: ConditionState | None, number: str, actor: Actor) -> None:
    c = _require(condition, number)
    if actor.role not in ("applicant", "project_manager", "admin"):
        raise ActionRefused(f"a {actor.role} cannot submit evidence; the applicant or the PM can")
    if c.status in RESOLVED_STATUSES:
        raise ActionRefused(f"condition #{number} is already {c.status}")
    if c.spec.kind in DORMANT_KINDS and not c.triggered:
        raise ActionRefused(
            f"condition #{number} is {c.spec.kind} and has not been triggered: nothing is owed yet"
        )


def check_review(
    condition: ConditionState | None, number: str, actor: Actor, decision: str, comment: str = ""
) -> None:
    c = _require(condition, number)
    if decision not in (CLEARED, RETURNED, IN_REVIEW):
        raise ActionRefused(
            f"a review decision is 'in_review', 'cleared' or 'returned', not {decision!r}"
        )
    responsible = actor.role == "department_reviewer" and actor.department == c.department_key
    if not (responsible or actor.role == "admin"):
        owner = DEPARTMENTS.get(c.department_key, c.department_key)
        who = f"{actor.role}, {actor.department}" if actor.department else actor.role
        raise ActionRefused(
            f"condition #{number} is cleared by {owner}; {actor.email} ({who}) is not its reviewer"
        )
    if c.status not in (SUBMITTED, IN_REVIEW):
        raise ActionRefused(
            f"condition #{number} is {c.status}: only submitted evidence can be reviewed"
        )
    if decision == IN_REVIEW and c.status == IN_REVIEW:
        raise ActionRefused(f"condition #{number} is already in review")
    if decision == RETURNED and actor.role != "admin" and not comment.strip():
        raise ActionRefused("returning evidence needs a comment saying what is missing")


RESOLUTION_ROLES = {
    WAIVED: ("planning_manager", "admin"),
    NOT_APPLICABLE: ("planning_manager", "department_reviewer", "admin"),
    SATISFIED_BY_ALTERNATIVE: ("planning_manager", "department_reviewer", "admin"),
}


def check_resolve(
    condition: ConditionState | None, number: str, actor: Actor, resolution: str, reason: str
) -> None:
    c = _require(condition, number)
    if resolution not in RESOLUTION_ROLES:
        raise ActionRefused(f"{resolution!r} is not one of {', '.join(RESOLUTION_ROLES)}")
    if not reason.strip():
        raise ActionRefused(f"marking condition #{number} {resolution} needs a reason")
    allowed = RESOLUTION_ROLES[resolution]
    if actor.role not in allowed:
        raise ActionRefused(
            f"only {' or '.join(allowed)} may mark a condition {resolution}; "
            f"{actor.email} is {actor.role}"
        )
    if actor.role == "department_reviewer" and actor.department != c.department_key:
        raise ActionRefused(
            f"condition #{number} belongs to {c.department_key}, not to {actor.department}"
        )
    if c.status in RESOLVED_STATUSES:
        raise ActionRefused(f"condition #{number} is already {c.status}")


def check_trigger(condition: ConditionState | None, number: str, actor: Actor, reason: str) -> None:
    c = _require(condition, number)
    if c.spec.kind not in DORMANT_KINDS:
        raise ActionRefused(
            f"condition #{number} is a {c.spec.kind} condition: it is in force already"
        )
    if c.triggered:
        raise ActionRefused(f"condition #{number} was already triggered")
    if actor.role not in ("project_manager", "department_reviewer", "planning_manager", "admin"):
        raise ActionRefused(f"a {actor.role} cannot trigger a condition")
    if not reason.strip():
        raise ActionRefused("say what triggered the condition (reason)")


def check_reassign(
    condition: ConditionState | None,
    number: str,
    actor: Actor,
    owner: Actor,
    owner_active: bool,
    current_owner: str,
) -> None:
    """The project manager (or an administrator) hands a condition to someone who can log
    in and review it: the responsible department's reviewer, or an administrator."""
    c = _require(condition, number)
    if actor.role not in ("project_manager", "admin"):
        raise ActionRefused(f"a {actor.role} cannot reassign a condition")
    if c.status in RESOLVED_STATUSES:
        raise ActionRefused(f"condition #{number} is {c.status}: there is nothing left to own")
    if not owner_active:
        raise ActionRefused(f"{owner.email or '(empty)'} is not a user who can log in")
    if not (
        owner.role == "admin"
        or (owner.role == "department_reviewer" and owner.department == c.department_key)
    ):
        dept = DEPARTMENTS.get(c.department_key, c.department_key)
        raise ActionRefused(
            f"{owner.email} cannot review condition #{number}: it is cleared by {dept}"
        )
    if owner.email == current_owner:
        raise ActionRefused(f"condition #{number} is already with {owner.email}")


def check_sign_off(
    conditions: Sequence[ConditionState],
    milestone: str,
    actor: Actor,
    milestones: Sequence[str],
    signed_off: Iterable[str],
) -> None:
    if actor.role not in ("engineering", "admin"):
        raise ActionRefused(
            f"milestones are signed off by engineering; {actor.email} is {actor.role}"
        )
    if milestone not in milestones:
        raise ActionRefused(f"{milestone!r} is not a milestone of this project")
    if milestone in MONITORED_GATES:
        raise ActionRefused(f"{milestone} is monitored throughout, not signed off")
    if milestone in set(signed_off):
        raise ActionRefused(f"{milestone} is already signed off")
    blocking = blockers(conditions, milestone)
    if blocking:
        listed = "; ".join(describe(c) for c in blocking)
        raise ActionRefused(
            f"{milestone} cannot be signed off: {len(blocking)} condition(s) still open: {listed}"
        )


IMPORT_ROLES = ("project_manager", "planning_manager", "admin")


def check_import(
    existing: Iterable[str], numbers: Sequence[str], actor: Actor, milestones: Sequence[str]
) -> None:
    """Conditions of a further resolution may join a project when none of their numbers is
    taken (a number names one condition in the audit log, the pages and the links)."""
    if actor.role not in IMPORT_ROLES:
        raise ActionRefused(f"a {actor.role} cannot import conditions")
    if not numbers:
        raise ActionRefused("the resolution has no conditions to import")
    taken = sorted(set(existing) & set(numbers), key=numbers.index)
    if taken:
        shown = ", ".join(f"#{n}" for n in taken[:8]) + (" ..." if len(taken) > 8 else "")
        raise ActionRefused(
            f"conditions {shown} are already in the project: import with a number prefix "
            "(e.g. 'A-') so each keeps its own number"
        )
    if len(set(numbers)) != len(numbers):
        raise ActionRefused("the resolution gives two conditions the same number")


def check_correction(
    condition: ConditionState | None,
    number: str,
    actor: Actor,
    reason: str,
    gates: list[str] | None,
    kind: str | None,
    department: str | None,
    milestones: Sequence[str],
    kinds: Sequence[str],
) -> None:
    _require(condition, number)
    if actor.role not in ("project_manager", "planning_manager", "admin"):
        raise ActionRefused(f"a {actor.role} cannot correct a condition")
    if not reason.strip():
        raise ActionRefused("a correction needs a reason (it is kept in the audit log)")
    if gates is None and kind is None and department is None:
        raise ActionRefused("nothing to correct: give gates, a kind or a department")
    if gates is not None:
        unknown = [g for g in gates if g not in milestones and g != "unspecified"]
        if not gates or unknown:
            raise ActionRefused(
                f"unknown gate(s) {', '.join(unknown) or '(none given)'}; "
                f"known: {', '.join(milestones)}"
            )
    if kind is not None and kind not in kinds:
        raise ActionRefused(f"unknown kind {kind!r}; known: {', '.join(kinds)}")
    if department is not None and department not in DEPARTMENTS:
        raise ActionRefused(f"unknown department {department!r}; known: {', '.join(DEPARTMENTS)}")
