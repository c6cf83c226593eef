"""ProjectWorkflow on the real dev server with per-workflow time skipping: sign-off refused
with its blockers then allowed, only the responsible department reviews, review service
levels remind then escalate, digests and seasonal windows reach the applicant, linked
duplicates clear together, corrections are audited, and continue-as-new keeps it all."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.testing import WorkflowEnvironment

from models.conditions import (
    Actor,
    ConditionSpec,
    ConditionState,
    CorrectionInput,
    DepartmentContact,
    DigestPauseInput,
    PlannedDatesInput,
    ProjectInfo,
    ProjectInput,
    ResolveInput,
    ReviewInput,
    SignOffInput,
    SubmitEvidenceInput,
    TriggerInput,
)
from models.workflow_ids import project_workflow_id
from rules.kernel.alerts import local_instant
from rules.kernel.calendars import calendar_for
from tests.conftest import start_time_skipping_server
from tests.polling import polls
from tests.workflows.clock_helpers import notice_keys, outbox_messages, settings_for_test
from tests.workflows.test_shot_clock_workflow import query_when_ready, wait_for
from worker import build_worker
from workflows.project import ProjectWorkflow

PM = Actor("pm@city.test", "project_manager")
APPLICANT = Actor("applicant@dev.test", "applicant")
ENGINEERING_REVIEWER = Actor("eng@city.test", "department_reviewer", "engineering")
PLANNING_REVIEWER = Actor("plan@city.test", "department_reviewer", "planning")
ENVIRONMENTAL_REVIEWER = Actor("env@city.test", "department_reviewer", "environmental")
PLANNING_MANAGER = Actor("planmgr@city.test", "planning_manager")
ENGINEER = Actor("cityengineer@city.test", "engineering")
MILESTONES = [
    "improvement_plan_approval",
    "grading_permit",
    "building_permit",
    "during_construction",
    "occupancy",
    "acceptance_of_improvements",
]

NESTING_BIRDS = (
    "BIO-3: If construction begins during the nesting season (February 1 through August 31), "
    "a qualified biologist shall conduct a pre-construction nesting bird survey within 7 days "
    "prior to the start of ground disturbance."
)


def spec(number: str, text: str, gates: list[str], department: str, **kw: Any) -> ConditionSpec:
    return ConditionSpec(
        number=number,
        code=kw.get("code"),
        department=department,
        section=None,
        text=text,
        gates=gates,
        gate_source="explicit",
        kind=kw.get("kind", "requirement"),
        related=kw.get("related", []),
    )


def project(time_zone: str = "UTC") -> ProjectInput:
    pid = f"P-{uuid.uuid4().hex[:8]}"
    conditions = [
        ConditionState(
            spec(
                "1",
                "Prior to issuance of a grading permit, submit a drainage report.",
                ["grading_permit"],
                "Public Works",
            ),
            "engineering",
        ),
        ConditionState(
            spec(
                "2",
                "Prior to issuance of a grading permit, record the easement.",
                ["grading_permit"],
                "Public Works",
            ),
            "engineering",
        ),
        ConditionState(
            spec(
                "3",
                "Prior to issuance of a building permit, pay the park fees.",
                ["building_permit"],
                "Planning Division",
            ),
            "planning",
        ),
        ConditionState(
            spec(
                "4",
                "Applicant should consider solar panels.",
                ["building_permit"],
                "Planning Division",
                kind="advisory",
            ),
            "planning",
        ),
        ConditionState(
            spec(
                "5",
                "If requested by the tribe, provide a monitor.",
                ["grading_permit"],
                "Planning Division",
                kind="conditional",
            ),
            "planning",
        ),
        ConditionState(
            spec(
                "6",
                "UTI-3: Install the water line before occupancy.",
                ["occupancy"],
                "CEQA",
                code="UTI-3",
                related=["7"],
            ),
            "environmental",
        ),
        ConditionState(
            spec(
                "7",
                "UTI-3: Install the water line before occupancy.",
                ["occupancy"],
                "CEQA",
                code="UTI-3",
                related=["6"],
            ),
            "environmental",
        ),
        ConditionState(
            spec("8", NESTING_BIRDS, ["pre_construction"], "CEQA", code="BIO-3", kind="seasonal"),
            "environmental",
        ),
    ]
    info = ProjectInfo(
        project_id=pid,
        name="Test Village",
        jurisdiction="cotati",
        resolution_title="RESOLUTION APPROVING TEST VILLAGE",
        applicant_name="Test Village LLC",
        applicant_email=APPLICANT.email,
        project_manager_email=PM.email,
        departments=[
            DepartmentContact(
                "engineering", "Engineering", "eng@city.test", "engineer.head@city.test"
            ),
            DepartmentContact("planning", "Planning", "plan@city.test", "plan.head@city.test"),
            DepartmentContact(
                "environmental", "Environmental", "env@city.test", "env.head@city.test"
            ),
        ],
        time_zone=time_zone,
        milestones=MILESTONES,
    )
    return ProjectInput(info=info, conditions=conditions)


@dataclass
class Harness:
    env: WorkflowEnvironment
    outbox: Path
    task_queue: str

    async def start(self, start: ProjectInput) -> WorkflowHandle[Any, Any]:
        with self.env.with_time_skipping_disabled():
            return await self.env.client.start_workflow(
                ProjectWorkflow.run,
                start,
                id=project_workflow_id(start.info.project_id),
                task_queue=self.task_queue,
            )

    def sent(self, project_id: str) -> list[str]:
        prefix = f"{project_id}:"
        return [k[len(prefix) :] for k in notice_keys(self.outbox) if k.startswith(prefix)]

    async def forward_to(self, handle: WorkflowHandle[Any, Any], instant: datetime) -> None:
        now = await self.env.get_current_time(handle)
        assert instant > now
        await self.env.fast_forward(handle, instant - now)


@pytest_asyncio.fixture
async def harness(
    time_skipping_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    database_url: str,
    activity_executor: Any,
) -> AsyncIterator[Harness]:
    settings = settings_for_test(data_dir, task_queue, database_url)
    async with build_worker(time_skipping_env.client, settings, executor=activity_executor):
        yield Harness(time_skipping_env, settings.outbox_dir, task_queue)


async def refused(handle: WorkflowHandle[Any, Any], update: Any, payload: Any) -> str:
    with pytest.raises(WorkflowUpdateFailedError) as err:
        await handle.execute_update(update, payload)
    return str(err.value.cause)


async def test_sign_off_is_refused_with_blockers_then_allowed(harness: Harness) -> None:
    start = project()
    handle = await harness.start(start)
    why = await refused(
        handle, ProjectWorkflow.sign_off_milestone, SignOffInput("grading_permit", ENGINEER)
    )
    assert "2 condition(s) still open" in why and "#1" in why and "#2" in why
    # The dormant conditional (#5) does not block until triggered.
    assert "#5" not in why
    assert [
        c["number"] for c in await handle.query(ProjectWorkflow.blockers, "grading_permit")
    ] == ["1", "2"]

    for number in ("1", "2"):
        await handle.execute_update(
            ProjectWorkflow.submit_evidence,
            SubmitEvidenceInput(number, APPLICANT, "report attached", "report.pdf"),
        )
    await handle.execute_update(
        ProjectWorkflow.review_condition, ReviewInput("1", ENGINEERING_REVIEWER, "cleared")
    )
    why = await refused(
        handle, ProjectWorkflow.sign_off_milestone, SignOffInput("grading_permit", ENGINEER)
    )
    assert "1 condition(s) still open" in why and "#2" in why

    await handle.execute_update(
        ProjectWorkflow.trigger_condition, TriggerInput("5", PM, "the tribe asked for a monitor")
    )
    await handle.execute_update(
        ProjectWorkflow.review_condition, ReviewInput("2", ENGINEERING_REVIEWER, "cleared")
    )
    why = await refused(
        handle, ProjectWorkflow.sign_off_milestone, SignOffInput("grading_permit", ENGINEER)
    )
    assert "#5" in why  # triggered: it blocks now
    await handle.execute_update(
        ProjectWorkflow.resolve_condition,
        ResolveInput(
            "5", PLANNING_MANAGER, "satisfied_by_alternative", "monitor provided by the county"
        ),
    )
    # Only engineering signs off.
    assert "signed off by engineering" in await refused(
        handle, ProjectWorkflow.sign_off_milestone, SignOffInput("grading_permit", PM)
    )
    result = await handle.execute_update(
        ProjectWorkflow.sign_off_milestone, SignOffInput("grading_permit", ENGINEER)
    )
    assert result.ok
    status = await handle.query(ProjectWorkflow.status_by_milestone)
    grading = next(m for m in status["milestones"] if m["milestone"] == "grading_permit")
    assert grading["signed_off"]["by"] == ENGINEER.email and grading["blocking"] == []
    await wait_for(
        lambda: "signoff:grading_permit" in harness.sent(start.info.project_id), "sign-off notice"
    )


async def test_only_the_responsible_department_reviews_and_reasons_are_required(
    harness: Harness,
) -> None:
    start = project()
    handle = await harness.start(start)
    await handle.execute_update(
        ProjectWorkflow.submit_evidence, SubmitEvidenceInput("3", APPLICANT, "receipt")
    )
    assert "not its reviewer" in await refused(
        handle, ProjectWorkflow.review_condition, ReviewInput("3", ENGINEERING_REVIEWER, "cleared")
    )
    assert "needs a comment" in await refused(
        handle, ProjectWorkflow.review_condition, ReviewInput("3", PLANNING_REVIEWER, "returned")
    )
    returned = await handle.execute_update(
        ProjectWorkflow.review_condition,
        ReviewInput("3", PLANNING_REVIEWER, "returned", "receipt unsigned"),
    )
    assert returned.condition["status"] == "returned"
    # The applicant hears at once (not at the next digest), with the reviewer's words.
    [letter] = [
        m for m in outbox_messages(harness.outbox) if ":returned:3:" in m["X-Clearance-Notice-Key"]
    ]
    assert letter["To"] == start.info.applicant_email
    assert "returned with comments" in letter["Subject"]
    assert "receipt unsigned" in letter.as_string()
    assert "needs a reason" in await refused(
        handle,
        ProjectWorkflow.resolve_condition,
        ResolveInput("3", PLANNING_MANAGER, "waived", " "),
    )
    assert "only planning_manager" in await refused(
        handle,
        ProjectWorkflow.resolve_condition,
        ResolveInput("3", PM, "waived", "council waived it"),
    )
    assert "not been triggered" in await refused(
        handle,
        ProjectWorkflow.submit_evidence,
        SubmitEvidenceInput("5", APPLICANT, "monitor contract"),
    )
    owes = await handle.query(ProjectWorkflow.applicant_owes)
    assert "3" in [c["number"] for c in owes["owed"]]
    assert "4" not in [c["number"] for c in owes["owed"]]  # advisory


async def test_linked_duplicates_clear_together_and_corrections_are_audited(
    harness: Harness,
) -> None:
    start = project()
    handle = await harness.start(start)
    await handle.execute_update(
        ProjectWorkflow.submit_evidence, SubmitEvidenceInput("6", APPLICANT, "as-built")
    )
    await handle.execute_update(
        ProjectWorkflow.review_condition, ReviewInput("6", ENVIRONMENTAL_REVIEWER, "cleared")
    )
    conditions = {c["number"]: c for c in await handle.query(ProjectWorkflow.conditions)}
    assert conditions["6"]["status"] == conditions["7"]["status"] == "cleared"

    assert "needs a reason" in await refused(
        handle, ProjectWorkflow.correct_condition, CorrectionInput("4", PM, "", gates=["occupancy"])
    )
    assert "unknown gate" in await refused(
        handle, ProjectWorkflow.correct_condition, CorrectionInput("4", PM, "typo", gates=["nope"])
    )
    await handle.execute_update(
        ProjectWorkflow.correct_condition,
        CorrectionInput(
            "4", PM, "the council meant occupancy", gates=["occupancy"], kind="requirement"
        ),
    )
    audit = await handle.query(ProjectWorkflow.audit)
    correction = [a for a in audit if a.action == "corrected"][0]
    assert correction.reason == "the council meant occupancy"
    assert correction.details["from"]["gates"] == ["building_permit"]
    assert correction.details["to"]["gates"] == ["occupancy"]
    assert [a.action for a in audit][0] == "imported"
    assert "linked_cleared" in [a.action for a in audit]


async def test_review_service_level_reminds_then_escalates(harness: Harness) -> None:
    start = project()
    handle = await harness.start(start)
    submitted = await handle.execute_update(
        ProjectWorkflow.submit_evidence, SubmitEvidenceInput("1", APPLICANT, "drainage report")
    )
    submitted_at = submitted.condition["submitted_at"]
    day = datetime.fromisoformat(submitted_at).date()
    cal = calendar_for("CA")
    due = cal.add_business_days(day, 10)
    overdue = cal.add_business_days(due, 5)
    eight = datetime.min.time().replace(hour=8)

    await harness.forward_to(handle, local_instant(due, eight, "UTC") + timedelta(hours=1))
    key = f"review-reminder:1:{submitted_at}"
    await wait_for(lambda: key in harness.sent(start.info.project_id), "the review reminder")
    assert f"review-escalation:1:{submitted_at}" not in harness.sent(start.info.project_id)
    await harness.forward_to(handle, local_instant(overdue, eight, "UTC") + timedelta(hours=1))
    await wait_for(
        lambda: f"review-escalation:1:{submitted_at}" in harness.sent(start.info.project_id),
        "the escalation",
    )
    escalation = [
        m
        for m in outbox_messages(harness.outbox)
        if m["X-Clearance-Notice-Key"].endswith(f"review-escalation:1:{submitted_at}")
    ][0]
    assert "engineer.head@city.test" in escalation["To"]
    # The weekly digest to the applicant went out on the Mondays in between.
    assert any(k.startswith("digest:weekly:") for k in harness.sent(start.info.project_id))


async def test_seasonal_window_and_target_digest_reach_the_applicant(harness: Harness) -> None:
    start = project()
    handle = await harness.start(start)
    now = await harness.env.get_current_time(handle)
    year = now.year + 1
    groundbreaking = date(year, 4, 15)  # inside Feb 1 - Aug 31: a nesting bird survey is due
    target = now.date() + timedelta(days=30)
    await handle.execute_update(
        ProjectWorkflow.set_planned_dates,
        PlannedDatesInput(
            PM,
            groundbreaking=groundbreaking.isoformat(),
            milestone_targets={"grading_permit": target.isoformat()},
        ),
    )
    pid = start.info.project_id
    digest_key = f"digest:target:grading_permit:{target}:14d"
    await harness.forward_to(
        handle,
        local_instant(target - timedelta(days=14), datetime.min.time().replace(hour=9), "UTC"),
    )
    await wait_for(lambda: digest_key in harness.sent(pid), "the target digest")
    digest = [
        m
        for m in outbox_messages(harness.outbox)
        if m["X-Clearance-Notice-Key"].endswith(digest_key)
    ][0]
    assert digest["To"] == APPLICANT.email

    await harness.forward_to(
        handle, local_instant(groundbreaking, datetime.min.time().replace(hour=9), "UTC")
    )
    await wait_for(
        lambda: any(k.startswith("window:8:") for k in harness.sent(pid)),
        "the nesting-bird reminder",
    )


@pytest_asyncio.fixture
async def early_continue_as_new_env() -> AsyncIterator[WorkflowEnvironment]:
    env = await start_time_skipping_server(30)
    yield env
    await env.shutdown()


async def test_continue_as_new_keeps_conditions_audit_and_sent_notices(
    early_continue_as_new_env: WorkflowEnvironment,
    task_queue: str,
    data_dir: Path,
    database_url: str,
    activity_executor: Any,
) -> None:
    env = early_continue_as_new_env
    settings = settings_for_test(data_dir, task_queue, database_url)
    async with build_worker(env.client, settings, executor=activity_executor):
        h = Harness(env, settings.outbox_dir, task_queue)
        start = project()
        handle = await h.start(start)
        first_run = (await handle.describe()).run_id
        for number in ("1", "2", "3"):
            await handle.execute_update(
                ProjectWorkflow.submit_evidence,
                SubmitEvidenceInput(number, APPLICANT, f"doc {number}"),
            )
        await handle.execute_update(
            ProjectWorkflow.review_condition, ReviewInput("1", ENGINEERING_REVIEWER, "cleared")
        )
        await handle.execute_update(
            ProjectWorkflow.review_condition, ReviewInput("3", PLANNING_REVIEWER, "in_review")
        )
        now = await env.get_current_time(handle)
        await env.fast_forward(handle, timedelta(days=10))
        await wait_for(
            lambda: any(k.startswith("digest:weekly") for k in h.sent(start.info.project_id)),
            "a digest",
        )
        for _ in polls():
            if (await handle.describe()).run_id != first_run:
                break
            await __import__("asyncio").sleep(0.1)
        assert (await handle.describe()).run_id != first_run, "no continue-as-new happened"
        conditions = {
            c["number"]: c for c in await query_when_ready(handle, ProjectWorkflow.conditions)
        }
        assert conditions["1"]["status"] == "cleared"
        assert conditions["2"]["status"] == "submitted"
        assert conditions["3"]["status"] == "in_review"
        assert len(conditions["2"]["evidence"]) == 1
        audit = await query_when_ready(handle, ProjectWorkflow.audit)
        assert [a.action for a in audit][:2] == ["imported", "evidence_submitted"]
        sent = h.sent(start.info.project_id)
        assert len(sent) == len(set(sent))
        assert now  # the clock moved forward from here


async def test_staff_pause_the_digests_but_not_the_legal_notices(harness: Harness) -> None:
    start = project()
    pid = start.info.project_id
    handle = await harness.start(start)
    assert "say why" in await refused(
        handle, ProjectWorkflow.pause_digests, DigestPauseInput(PM, True)
    )
    assert "cannot pause" in await refused(
        handle,
        ProjectWorkflow.pause_digests,
        DigestPauseInput(APPLICANT, True, "no"),
    )
    await handle.execute_update(
        ProjectWorkflow.pause_digests,
        DigestPauseInput(PM, True, "applicant on holiday"),
    )
    await handle.execute_update(
        ProjectWorkflow.submit_evidence, SubmitEvidenceInput("1", APPLICANT, "drainage report")
    )
    now = await harness.env.get_current_time(handle)
    # Three weeks: no weekly digest, but the review deadline still reaches the reviewer.
    await harness.forward_to(handle, now + timedelta(days=21))
    await wait_for(
        lambda: any(k.startswith("review-reminder:1:") for k in harness.sent(pid)),
        "the review reminder",
    )
    assert not [k for k in harness.sent(pid) if k.startswith("digest:")]
    await handle.execute_update(ProjectWorkflow.pause_digests, DigestPauseInput(PM, False))
    await harness.forward_to(handle, now + timedelta(days=29))
    await wait_for(
        lambda: any(k.startswith("digest:weekly:") for k in harness.sent(pid)),
        "the weekly digest once resumed",
    )
