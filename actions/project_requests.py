"""A project's requests: plan its dates, sign off a milestone, send the applicant's
digest (each a project workflow update), and import a reviewed resolution as a project.
Validated when made, as every request (actions/shot_clock_requests.py); the actions are in
actions/projects.py. A condition's requests, also project workflow updates, are in
actions/condition_requests.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from actions.errors import ActionFailed, bad
from actions.fields import check_address, check_addresses, check_date, required, text_of
from models.conditions import (
    Actor,
    ConditionSpec,
    DigestPauseInput,
    DigestRequestInput,
    ParsedResolution,
    PlannedDatesInput,
    SignOffInput,
    SubItem,
)


@dataclass(frozen=True, kw_only=True)
class ProjectRequest:
    """An update of the project workflow (`update`), on behalf of `actor`."""

    permission: ClassVar[str]
    update: ClassVar[str]
    project_id: str

    @property
    def required_permission(self) -> str:
        """The permission this request needs (a condition's resolution has its own)."""
        return self.permission

    def payload(self, actor: Actor) -> Any:
        raise NotImplementedError


PLAN_DATES = ("groundbreaking", "grading_start", "grading_end", "construction_end")


@dataclass(frozen=True, kw_only=True)
class PlanDates(ProjectRequest):
    permission: ClassVar[str] = "project.plan"
    update: ClassVar[str] = "set_planned_dates"
    groundbreaking: str | None = None
    grading_start: str | None = None
    grading_end: str | None = None
    construction_end: str | None = None
    milestone_targets: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in PLAN_DATES:
            object.__setattr__(self, name, check_date(getattr(self, name), name))
        targets = self.milestone_targets or {}
        if not isinstance(targets, dict):
            raise bad("milestone_targets: give an object of milestone: date")
        object.__setattr__(
            self,
            "milestone_targets",
            {
                str(m): check_date(v, f"target for {m}", required=True) or ""
                for m, v in targets.items()
                if text_of(v)
            },
        )

    def payload(self, actor: Actor) -> Any:
        return PlannedDatesInput(
            actor,
            self.groundbreaking,
            self.grading_start,
            self.grading_end,
            self.construction_end,
            milestone_targets=dict(self.milestone_targets),
        )


@dataclass(frozen=True, kw_only=True)
class SignOffMilestone(ProjectRequest):
    permission: ClassVar[str] = "project.sign_off"
    update: ClassVar[str] = "sign_off_milestone"
    milestone: str

    def __post_init__(self) -> None:
        required(text_of(self.milestone), "milestone", "say which milestone to sign off")

    def payload(self, actor: Actor) -> Any:
        return SignOffInput(text_of(self.milestone), actor)


@dataclass(frozen=True, kw_only=True)
class SendDigest(ProjectRequest):
    permission: ClassVar[str] = "project.digest"
    update: ClassVar[str] = "send_digest"
    milestone: str | None = None

    def payload(self, actor: Actor) -> Any:
        return DigestRequestInput(actor, text_of(self.milestone) or None)


@dataclass(frozen=True, kw_only=True)
class PauseDigests(ProjectRequest):
    """Pause or resume the applicant's weekly and target-date digests. Legal notices
    and due-date reminders are not digests: nothing pauses them."""

    permission: ClassVar[str] = "project.digest_pause"
    update: ClassVar[str] = "pause_digests"
    paused: bool = True
    reason: str = ""

    def payload(self, actor: Actor) -> Any:
        return DigestPauseInput(actor, self.paused, self.reason)


def project_request(action: str, project_id: str, fields: dict[str, Any]) -> ProjectRequest:
    """The request for a project.* action from a form's or body's fields."""
    if action == "project.sign_off":
        return SignOffMilestone(project_id=project_id, milestone=text_of(fields.get("milestone")))
    if action == "project.plan":
        return PlanDates(
            project_id=project_id,
            **{k: fields.get(k) for k in PLAN_DATES},
            milestone_targets=fields.get("milestone_targets") or {},
        )
    if action == "project.digest":
        return SendDigest(project_id=project_id, milestone=text_of(fields.get("milestone")) or None)
    if action == "project.digest_pause":
        raw = fields.get("paused")
        paused = str(raw).lower() if isinstance(raw, bool) else text_of(raw).lower()
        if paused not in ("true", "false", "1", "0", "yes", "no"):
            raise bad("paused: say true (pause the digests) or false (resume them)")
        return PauseDigests(
            project_id=project_id,
            paused=paused in ("true", "1", "yes"),
            reason=text_of(fields.get("reason")),
        )
    raise ActionFailed(f"there is no action {action!r}", 404)


# -- importing a resolution ---------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ImportProject:
    """A parsed resolution (the parse contract), reviewed and corrected, becomes a project,
    or, with `existing`, joins an existing project (an amendment, a further approval).
    `corrections` is {number: {"gates"|"kind"|"department"|"time_limits": value}} (time
    limits in their short form, rules/conditions/time_limits.py); `prefix` numbers the
    conditions apart ("A-" gives "A-1"); `approved_on` is the adoption date when the parse
    found none (the `approval` their time limits count from)."""

    permission: ClassVar[str] = "project.import"
    project_id: str
    resolution: ParsedResolution
    name: str = ""
    project_manager_email: str = ""
    applicant_email: str = ""
    applicant_name: str = ""
    jurisdiction: str = ""
    corrections: dict[str, dict[str, str]] = field(default_factory=dict)
    existing: bool = False
    prefix: str = ""
    approved_on: str | None = None

    def __post_init__(self) -> None:
        pid = text_of(self.project_id)
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", pid):
            raise bad(f"project_id: letters, digits, '.', '_' and '-' only, not {pid!r}")
        object.__setattr__(self, "project_id", pid)
        if not self.existing:
            required(text_of(self.name), "name", "give the project a name")
            for name in ("project_manager_email", "applicant_email"):
                address = check_address(getattr(self, name), name, required=True)
                object.__setattr__(self, name, address)
        else:
            check_addresses(self, "project_manager_email", "applicant_email")
        prefix = text_of(self.prefix)
        if prefix and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.-]{0,9}", prefix):
            raise bad("prefix: up to 10 letters, digits, '.' or '-' (e.g. A-)")
        object.__setattr__(self, "prefix", prefix)
        approved = text_of(self.approved_on) or None
        if approved and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", approved):
            raise bad("approved_on: give the adoption date as YYYY-MM-DD")
        object.__setattr__(self, "approved_on", approved)
        if not self.resolution.conditions:
            raise bad("resolution: no conditions were found in it")


def _page(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def resolution_from_contract(raw: Any) -> ParsedResolution:
    """The parse contract's JSON (conditions.md §6) back into a ParsedResolution."""
    if not isinstance(raw, dict) or not isinstance(raw.get("conditions"), list):
        raise bad("resolution: give the parse contract {title, conditions, warnings}")

    def subs(items: Any, where: str) -> list[SubItem]:
        if not isinstance(items, list):
            raise bad(f"{where}.sub_items: give a list")
        return [
            SubItem(
                text_of(s.get("label")),
                str(s.get("text") or ""),
                subs(s.get("sub_items") or [], where),
            )
            for s in items
            if isinstance(s, dict)
        ]

    conditions = []
    for i, c in enumerate(raw["conditions"]):
        where = f"resolution.conditions[{i}]"
        if not isinstance(c, dict):
            raise bad(f"{where}: give an object")
        number, text = text_of(c.get("number")), str(c.get("text") or "")
        gates = c.get("gates")
        if not number or not text.strip() or not isinstance(gates, list):
            raise bad(f"{where}: needs a number, text and a list of gates")
        time_limits = c.get("time_limits") or []
        if not isinstance(time_limits, list) or not all(isinstance(t, dict) for t in time_limits):
            raise bad(f"{where}.time_limits: give a list of objects")
        conditions.append(
            ConditionSpec(
                number=number,
                code=c.get("code") or None,
                department=str(c["department"]) if c.get("department") else None,
                section=c.get("section") or None,
                text=text,
                gates=[str(g) for g in gates],
                gate_source=str(c.get("gate_source") or "none"),
                kind=str(c.get("kind") or "requirement"),
                sub_items=subs(c.get("sub_items") or [], where),
                related=[str(r) for r in c.get("related") or []],
                time_limits=[dict(t) for t in time_limits],
                page=_page(c.get("page")),
                department_source=str(c["department_source"])
                if c.get("department_source")
                else None,
                confidence=str(c.get("confidence") or "high")
                if c.get("confidence") in ("high", "medium", "low")
                else "high",
                evidence=dict(c["evidence"]) if isinstance(c.get("evidence"), dict) else {},
                warnings=[str(w) for w in c.get("warnings") or [] if isinstance(w, str)],
            )
        )
    warnings = raw.get("warnings") or []
    adopted = raw.get("adopted")
    return ParsedResolution(
        title=str(raw.get("title") or ""),
        conditions=conditions,
        warnings=[str(w) for w in warnings] if isinstance(warnings, list) else [],
        adopted=check_date(adopted, "resolution.adopted") if adopted else None,
    )
