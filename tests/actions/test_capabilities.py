"""The action layer as a reader follows it: `Actions` holds one object per capability,
and each request's `update` is an update its workflow really has (so a route's call,
e.g. `actions.shot_clocks.record_from_fields(who, RecordNotice, ...)`, leads to the
update that records it)."""

from __future__ import annotations

import ast
from pathlib import Path

from temporalio import workflow

from actions.condition_requests import (
    CorrectCondition,
    ResolveCondition,
    ReviewCondition,
    SubmitEvidence,
    TriggerCondition,
)
from actions.layer import Actions
from actions.project_requests import PlanDates, SendDigest, SignOffMilestone
from actions.shot_clock_requests import SHOT_CLOCK_EVENTS
from settings import PROJECT_ROOT
from tests.web.standalone import standalone_settings
from workflows.project import ProjectWorkflow
from workflows.shot_clock import ShotClockWorkflow


def updates(cls: type) -> set[str | None]:
    return set(workflow._Definition.must_from_class(cls).updates)


def test_each_shot_clock_event_names_an_update_of_the_shot_clock_workflow() -> None:
    assert {r.update for r in SHOT_CLOCK_EVENTS.values()} <= updates(ShotClockWorkflow)


def test_each_project_and_condition_request_names_an_update_of_the_project_workflow() -> None:
    requests = (SubmitEvidence, ReviewCondition, ResolveCondition, TriggerCondition)
    requests += (CorrectCondition, PlanDates, SignOffMilestone, SendDigest)  # type: ignore[assignment]
    assert {r.update for r in requests} <= updates(ProjectWorkflow)


def test_each_shot_clock_event_route_names_its_request() -> None:
    """Every event route of the JSON API passes a request class of SHOT_CLOCK_EVENTS to
    `actions.shot_clocks.record_from_fields`, so the route names the update it sends."""
    source = (PROJECT_ROOT / "web" / "api" / "routes" / "shot_clocks.py").read_text()
    named = {kind.__name__ for kind in SHOT_CLOCK_EVENTS.values()}
    passed = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_record":
            passed.add(node.args[2].id)  # type: ignore[attr-defined]
    assert passed == named


def test_actions_holds_one_object_per_capability(tmp_path: Path) -> None:
    from actions.temporal import Gateway
    from models.database import make_engine

    settings = standalone_settings(tmp_path)
    actions = Actions(settings, make_engine(settings.database_url), Gateway(settings))
    for capability in ("shot_clocks", "permit_clocks", "projects", "conditions"):
        assert getattr(actions, capability).gateway is actions.gateway, capability
    assert actions.condition_clocks.permit_clocks is actions.permit_clocks
    assert actions.projects.condition_clocks is actions.condition_clocks


def test_every_action_checks_the_role_first() -> None:
    """Every public async method of a capability calls `require` before anything else,
    except the applicant-link notice (the link is the credential)."""
    for path in sorted((PROJECT_ROOT / "actions").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or not node.name.endswith("Actions"):
                continue
            for method in node.body:
                if not isinstance(method, ast.AsyncFunctionDef) or method.name.startswith("_"):
                    continue
                if method.name == "announce_applicant_upload":
                    continue
                body = [
                    s
                    for s in method.body
                    if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
                    and not isinstance(s, ast.ImportFrom | ast.Import)
                ]
                if _raises_on_an_unknown_name(body[0]):
                    body = body[1:]  # `require` would raise KeyError on an unknown action
                source = ast.unparse(body[0]) if body else ""
                assert source.startswith("require(") or (
                    # Resolving: the resolution's own permission, checked once it is read.
                    node.name == "ConditionActions" and method.name == "from_fields"
                ), f"{path.name}: {node.name}.{method.name} starts with {source!r}"


def _raises_on_an_unknown_name(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.If)
        and isinstance(statement.test, ast.Compare)
        and isinstance(statement.test.ops[0], ast.NotIn)
        and all(isinstance(s, ast.Raise) for s in statement.body)
    )
