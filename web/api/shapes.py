"""The JSON shapes more than one capability's routes answer with."""

from __future__ import annotations

from typing import Any

from web.queries import readmodel


def page_json(page: readmodel.Page, items: list[Any]) -> dict[str, Any]:
    return {"items": items, "page": page.page, "pages": page.pages, "total": page.total}


def project_json(p: Any) -> dict[str, Any]:
    return {
        "project_id": p.project_id,
        "name": p.name,
        "jurisdiction": p.jurisdiction,
        "next_milestone": p.next_milestone,
        "next_milestone_blockers": p.next_milestone_blockers,
        "next_milestone_target": p.urgent_target,
        "milestones": p.milestones,
        "open_conditions": p.open_conditions,
        "planned": p.planned,
        "signoffs": p.signoffs,
    }


def condition_json(c: Any) -> dict[str, Any]:
    return {
        "number": c.number,
        "code": c.code,
        "department_key": c.department_key,
        "text": c.text,
        "gates": c.gates,
        "kind": c.kind,
        "status": c.status,
        "triggered": c.triggered,
        "evidence": c.evidence,
        "comments": c.comments,
        # The owner the project manager chose; null: the department's reviewer owns it.
        "owner_email": c.owner_email,
    }


def result_json(result: Any) -> dict[str, Any]:
    """An action on a project or a condition: the workflow's answer."""
    return {"ok": result.ok, "message": result.message, "condition": result.condition}
