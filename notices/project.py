"""What a project letter (conditions of approval) says: its template context, checked
for what the letter must state, and its subject line."""

from __future__ import annotations

from typing import Any

from models.conditions import ProjectInfo, ProjectNoticeRequest
from notices.filters import letterdate, oneline, plural
from notices.letter import InvalidNoticeDetails
from notices.letterhead import letterhead
from notices.vocabulary import (
    department_label,
    jurisdiction_name,
    milestone_label,
    milestone_order,
)
from rules.kernel.jurisdictions import Jurisdiction

PROJECT_NOTICE_KINDS = (
    "review_reminder",
    "review_escalation",
    "applicant_digest",
    "window_reminder",
    "construction_checkin",
    "signoff_confirmation",
    "condition_returned",
)


def context(req: ProjectNoticeRequest, city: Jurisdiction | None = None) -> dict[str, Any]:
    project = req.project
    details = dict(req.details or {})
    ctx: dict[str, Any] = {
        "kind": req.kind,
        "notice_key": req.notice_key,
        "project": project,
        # Dates in the letter are the city's: its current time zone, else the project's.
        "tz": city.time_zone if city is not None else project.time_zone,
        "details": details,
        "jurisdiction_name": details.get("jurisdiction_name")
        or (city.name if city is not None else jurisdiction_name(project.jurisdiction)),
        "to": req.to,
        "cc": req.cc,
        **letterhead(project.jurisdiction, project.project_manager_email, city),
    }
    kind = req.kind

    def need(*keys: str) -> None:
        missing = [k for k in keys if details.get(k) in (None, "", [])]
        if missing:
            raise InvalidNoticeDetails(
                f"{kind} notice {req.notice_key} for {project.project_id} is missing "
                f"{', '.join(missing)}"
            )

    if kind in ("review_reminder", "review_escalation"):
        need("conditions", "due")
        if kind == "review_escalation":
            need("overdue_business_days")
        conditions = [_condition(c, project, kind) for c in details["conditions"]]
        dept = details.get("department") or conditions[0]["department"]
        ctx.update(
            conditions=conditions,
            department=dept,
            department_name=department_label(dept, project),
            due=str(details["due"]),
            sla_business_days=details.get("sla_business_days") or project.review_sla_business_days,
            overdue_business_days=details.get("overdue_business_days"),
        )
    elif kind == "applicant_digest":
        if not isinstance(details.get("owed"), list):
            need("owed")
        owed = [_condition(c, project, kind) for c in details["owed"]]
        milestone = details.get("milestone")
        label = details.get("milestone_label") or (
            milestone_label(milestone) if milestone else "the next milestone"
        )
        ctx.update(
            milestone=milestone,
            milestone_label=label,
            target_date=details.get("target_date"),
            reason=details.get("reason") or "weekly",
            owed=owed,
            returned=[c for c in owed if c["status"] == "returned"],
            groups=_digest_groups(owed, milestone, label, project),
        )
    elif kind == "window_reminder":
        need("number", "due")
        ctx.update(
            number=str(details["number"]),
            code=details.get("code") or "",
            rule_key=details.get("rule_key") or "",
            due=str(details["due"]),
            window_start=details.get("window_start"),
            description=oneline(details.get("description")),
            citation=oneline(details.get("citation")),
        )
    elif kind == "condition_returned":
        need("conditions")
        ctx.update(conditions=[_condition(c, project, kind) for c in details["conditions"]])
    elif kind == "construction_checkin":
        need("conditions", "period_start", "period_end")
        conditions = [_condition(c, project, kind) for c in details["conditions"]]
        ctx.update(
            conditions=conditions,
            period_start=str(details["period_start"]),
            period_end=str(details["period_end"]),
            by_department=_by_department(conditions),
        )
    else:  # signoff_confirmation
        need("milestone", "signed_by", "at")
        milestone = details["milestone"]
        ctx.update(
            milestone=milestone,
            milestone_label=details.get("milestone_label") or milestone_label(milestone),
            signed_by=details["signed_by"],
            at=str(details["at"]),
            conditions_cleared=int(details.get("conditions_cleared") or 0),
        )
    return ctx


def subject(req: ProjectNoticeRequest, ctx: dict[str, Any]) -> str:
    name = req.project.name or req.project.project_id
    kind = req.kind
    if kind in ("review_reminder", "review_escalation"):
        conds = _conditions_phrase(ctx["conditions"])
        if kind == "review_reminder":
            return (
                f"Review reminder — {name}: {conds} awaiting {ctx['department_name']} "
                f"review, due {letterdate(ctx['due'])}"
            )
        days = plural(int(ctx["overdue_business_days"]), "business day")
        return (
            f"Overdue review — {name}: {conds} {days} past the {letterdate(ctx['due'])} "
            f"review date ({ctx['department_name']})"
        )
    if kind == "applicant_digest":
        n = len(ctx["owed"])
        what = f"{plural(n, 'condition')} still owed" if n else "nothing owed"
        target = f" (target {letterdate(ctx['target_date'])})" if ctx["target_date"] else ""
        return f"{name}: {what} before {ctx['milestone_label']}{target}"
    if kind == "window_reminder":
        code = f" ({ctx['code']})" if ctx["code"] else ""
        what = f" — {oneline(ctx['description'], 80)}" if ctx["description"] else ""
        return f"{name}: condition #{ctx['number']}{code} due {letterdate(ctx['due'])}{what}"
    if kind == "construction_checkin":
        n = len(ctx["conditions"])
        return (
            f"{name}: construction check-in, {plural(n, 'condition')} to verify "
            f"({letterdate(ctx['period_start'])} to {letterdate(ctx['period_end'])})"
        )
    if kind == "condition_returned":
        return f"{name}: {_conditions_phrase(ctx['conditions'])} returned with comments"
    n = ctx["conditions_cleared"]
    return (
        f"{name}: milestone signed off — {ctx['milestone_label']} "
        f"({plural(n, 'condition')} cleared)"
    )


def _conditions_phrase(conditions: list[dict[str, Any]]) -> str:
    if len(conditions) == 1:
        c = conditions[0]
        code = f" ({c['code']})" if c["code"] else ""
        return f"condition #{c['number']}{code}"
    if len(conditions) <= 4:
        return "conditions " + ", ".join(f"#{c['number']}" for c in conditions)
    return f"{len(conditions)} conditions"


def _evidence(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {"description": str(raw), "filename": "", "submitted_at": "", "submitted_by": ""}
    return {
        "description": oneline(raw.get("description")),
        "filename": raw.get("filename") or "",
        "submitted_at": raw.get("submitted_at") or "",
        "submitted_by": raw.get("submitted_by") or "",
        "document_date": raw.get("document_date") or "",
    }


def _comment(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {"author": "", "at": "", "text": str(raw)}
    return {
        "author": raw.get("author") or "",
        "at": raw.get("at") or "",
        "text": str(raw.get("text") or "").strip(),
    }


def _condition(raw: Any, project: ProjectInfo, kind: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or raw.get("number") in (None, ""):
        raise InvalidNoticeDetails(f"{kind}: each condition needs at least a number, got {raw!r}")
    gates = [str(g) for g in raw.get("gates") or []]
    dept = raw.get("department") or ""
    return {
        "number": str(raw["number"]),
        "code": raw.get("code") or "",
        "text": oneline(raw.get("text")),
        "department": dept,
        "department_name": department_label(dept, project),
        "status": raw.get("status") or "",
        "gates": gates,
        "gate_labels": [milestone_label(g) for g in gates],
        "submitted_at": raw.get("submitted_at") or "",
        "evidence": [_evidence(e) for e in raw.get("evidence") or []],
        "comments": [_comment(c) for c in raw.get("comments") or []],
    }


def _by_department(conditions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for c in conditions:
        group = groups.setdefault(
            c["department"],
            {"department": c["department"], "name": c["department_name"], "conditions": []},
        )
        group["conditions"].append(c)
    return sorted(groups.values(), key=lambda g: g["name"].lower())


def _digest_groups(
    owed: list[dict[str, Any]], milestone: str | None, label: str, project: ProjectInfo
) -> list[dict[str, Any]]:
    """Owed conditions by milestone (the digest's own first, then in milestone order)
    and, within each, by department."""
    order = milestone_order(project.milestones)
    rank = {m: i for i, m in enumerate(order)}

    def home(c: dict[str, Any]) -> str:
        if milestone and milestone in c["gates"]:
            return milestone
        gates = sorted(c["gates"], key=lambda g: rank.get(g, len(rank)))
        return gates[0] if gates else "unspecified"

    by_milestone: dict[str, list[dict[str, Any]]] = {}
    for c in owed:
        by_milestone.setdefault(home(c), []).append(c)
    keys = sorted(by_milestone, key=lambda m: (m != milestone, rank.get(m, len(rank)), m))
    return [
        {
            "milestone": m,
            "label": label if m == milestone else milestone_label(m),
            "count": len(by_milestone[m]),
            "departments": _by_department(by_milestone[m]),
        }
        for m in keys
    ]
