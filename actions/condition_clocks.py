"""Conditions' time limits become clocks of their project (conditions.md §8, issue 10
item 7): the hook a project import calls with its parsed conditions.

Each `time_limits` entry whose anchor the project knows (`approval`: the resolution's
adoption date; others once recorded) becomes a PermitClockWorkflow on a rule of the
`conditions` pack (rules/data/permit_packs/conditions.json): months counted to the same
day, days by ccp12, expirations unrolled; reminders go to the applicant with the project
manager copied. An `until` limit or an unknown anchor is reported, not opened. A recurring
review ("at six months, at one year and then annually") is a series: one `due` clock per
review, the repeats for five years after the anchor.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from actions.condition_clock_requests import OpenConditionClocks
from actions.errors import bad
from actions.permit_clock_requests import OpenPermitClock
from actions.permit_clocks import PermitClockActions
from actions.waiting import wait_for
from models.schema import Project
from rules.access import Principal, require
from rules.conditions.time_limits import review_dates

# (kind, unit) -> rule of the conditions pack.
CONDITION_RULES = {
    ("expiry", "months"): "condition_expiry_months",
    ("expiry", "days"): "condition_expiry_days",
    ("term", "months"): "condition_term_months",
    ("term", "days"): "condition_expiry_days",
    ("due", "days"): "condition_due_days",
    ("due", "months"): "condition_due_months",
}


@dataclass(frozen=True)
class ConditionClockPlan:
    """One clock to open for one time limit of one condition."""

    clock_id: str
    condition_number: str
    rule: str
    facts: dict[str, Any]
    start_date: str
    text: str


@dataclass(frozen=True)
class SkippedLimit:
    condition_number: str
    text: str
    reason: str


def _get(condition: Any, name: str, default: Any = None) -> Any:
    if isinstance(condition, Mapping):
        return condition.get(name, default)
    return getattr(condition, name, default)


def plan_condition_clocks(
    project_id: str, conditions: Iterable[Any], anchors: Mapping[str, str]
) -> tuple[list[ConditionClockPlan], list[SkippedLimit]]:
    """Pure: which clocks a project's conditions call for. `conditions` are objects or
    dicts with `number` and `time_limits` (conditions.md §8); `anchors` maps an anchor
    the project knows (`approval`, ...) to its date."""
    plans: list[ConditionClockPlan] = []
    skipped: list[SkippedLimit] = []
    for condition in conditions:
        number = str(_get(condition, "number", ""))
        for i, limit in enumerate(_get(condition, "time_limits", None) or []):
            limit = dict(limit) if isinstance(limit, Mapping) else dict(vars(limit))
            text = str(limit.get("text") or "")
            kind = str(limit.get("kind") or "")
            unit = "months" if limit.get("months") else "days" if limit.get("days") else ""
            if kind == "review":
                _review_series(project_id, number, i, limit, anchors, plans, skipped)
                continue
            rule = CONDITION_RULES.get((kind, unit))
            if rule is None:
                reason = (
                    "an end date, not a counted period: shown on the condition as written"
                    if kind == "until"
                    else f"no clock for a {kind or 'missing'} limit in {unit or 'no unit'}"
                )
                skipped.append(SkippedLimit(number, text, reason))
                continue
            anchor = str(limit.get("anchor") or "")
            start = anchors.get(anchor)
            if not start:
                skipped.append(
                    SkippedLimit(
                        number, text, f"waits for its anchor '{anchor or '?'}' to be recorded"
                    )
                )
                continue
            facts: dict[str, Any] = {unit: int(limit[unit])}
            extensions = limit.get("extensions") or {}
            if rule not in ("condition_due_days", "condition_due_months"):
                facts["extensions_allowed"] = int(extensions.get("count") or 0)
            suffix = f"-{i + 1}" if i else ""
            plans.append(
                ConditionClockPlan(
                    clock_id=f"{project_id}-COA-{number}{suffix}".replace(" ", "_"),
                    condition_number=number,
                    rule=rule,
                    facts=facts,
                    start_date=start,
                    text=text,
                )
            )
    return plans, skipped


def _review_series(
    project_id: str,
    number: str,
    index: int,
    limit: dict[str, Any],
    anchors: Mapping[str, str],
    plans: list[ConditionClockPlan],
    skipped: list[SkippedLimit],
) -> None:
    """A recurring review's clocks: each review is due its months after the anchor."""
    text = str(limit.get("text") or "")
    anchor = str(limit.get("anchor") or "approval")
    start = anchors.get(anchor)
    if not start:
        skipped.append(
            SkippedLimit(number, text, f"waits for its anchor '{anchor}' to be recorded")
        )
        return
    suffix = f"-{index + 1}" if index else ""
    for months in review_dates(limit):
        plans.append(
            ConditionClockPlan(
                clock_id=f"{project_id}-COA-{number}{suffix}-review-{months}m".replace(" ", "_"),
                condition_number=number,
                rule=CONDITION_RULES[("due", "months")],
                facts={"months": months},
                start_date=start,
                text=f"review at {months} months: {text}",
            )
        )


@dataclass
class ConditionClocksOpened:
    opened: list[str]
    already_open: list[str]
    skipped: list[SkippedLimit]


class ConditionClockActions:
    """`actions.condition_clocks`: the time-limit hook, opening permit clocks
    (`actions.permit_clocks`) for a project's conditions."""

    def __init__(self, sessions: sessionmaker[Session], permit_clocks: PermitClockActions) -> None:
        self.sessions = sessions
        self.permit_clocks = permit_clocks

    async def open(self, who: Principal, request: OpenConditionClocks) -> ConditionClocksOpened:
        require(who, request.permission)
        if not request.project_id:
            raise bad("project_id: missing")
        plans, skipped = plan_condition_clocks(
            request.project_id, request.conditions, request.anchors
        )
        project = self._project_row(request.project_id)
        if project is None and plans:
            # A project imported a moment ago: its row (with the applicant and the project
            # manager) is written by its workflow's first activity.
            await wait_for(lambda: self._project_row(request.project_id) is not None, 10)
            project = self._project_row(request.project_id)
        pm = request.project_manager_email or (project.project_manager_email if project else "")
        applicant_email = request.applicant_email or (project.applicant_email if project else "")
        applicant_name = request.applicant_name or (project.applicant_name if project else "")
        jurisdiction = request.jurisdiction or (project.jurisdiction if project else "")
        opened: list[str] = []
        already: list[str] = []
        for plan in plans:
            if self.permit_clocks.row(plan.clock_id) is not None:
                already.append(plan.clock_id)
                continue
            await self.permit_clocks.open(
                who,
                OpenPermitClock(
                    clock_id=plan.clock_id,
                    rule=plan.rule,
                    jurisdiction=jurisdiction,
                    events=[{"type": "approved", "date": plan.start_date}],
                    facts=plan.facts,
                    title=f"Condition {plan.condition_number}: {plan.text}"[:300],
                    applicant_name=applicant_name,
                    applicant_email=applicant_email,
                    staff_email=pm,
                    project_id=request.project_id,
                    condition_number=plan.condition_number,
                    project_manager_email=pm,
                ),
            )
            opened.append(plan.clock_id)
        return ConditionClocksOpened(opened, already, skipped)

    def _project_row(self, project_id: str) -> Project | None:
        with self.sessions() as session:
            row = session.get(Project, project_id)
            if row is not None:
                session.expunge(row)
            return row
