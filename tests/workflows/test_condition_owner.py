"""A condition is handed to another owner through ProjectWorkflow's reassign_condition
update: refused in one line for an unknown condition, a role that may not, or a person who
cannot log in or review it; recorded in the audit log; and the history replays with
today's code (the update is new: no existing path changed)."""

from __future__ import annotations

from temporalio.worker import Replayer

from models.conditions import Actor, ReassignConditionInput, ReviewInput, SubmitEvidenceInput
from tests.workflows.test_project_workflow import (  # noqa: F401 (the fixture)
    APPLICANT,
    ENGINEERING_REVIEWER,
    PLANNING_REVIEWER,
    PM,
    Harness,
    harness,
    project,
    refused,
)
from worker import WORKFLOW_RUNNER
from workflows.project import ProjectWorkflow

COLLEAGUE = Actor("eng2@city.test", "department_reviewer", "engineering")


def handing(number: str, actor: Actor, owner: Actor, active: bool = True) -> ReassignConditionInput:
    return ReassignConditionInput(number, actor, owner, active, "on leave")


async def test_a_condition_is_handed_on_audited_and_replays(harness: Harness) -> None:  # noqa: F811
    handle = await harness.start(project())
    update = ProjectWorkflow.reassign_condition
    # Condition #1 is cleared by engineering.
    assert "there is no condition #99" in await refused(
        handle, update, handing("99", PM, COLLEAGUE)
    )
    assert "a department_reviewer cannot reassign" in await refused(
        handle, update, handing("1", ENGINEERING_REVIEWER, COLLEAGUE)
    )
    assert "eng2@city.test is not a user who can log in" in await refused(
        handle, update, handing("1", PM, COLLEAGUE, active=False)
    )
    assert "plan@city.test cannot review condition #1" in await refused(
        handle, update, handing("1", PM, PLANNING_REVIEWER)
    )
    result = await handle.execute_update(update, handing("1", PM, COLLEAGUE))
    assert result.ok
    assert "already with eng2@city.test" in await refused(
        handle, update, handing("1", PM, COLLEAGUE)
    )
    owners = {c["number"]: c["owner_email"] for c in await handle.query(ProjectWorkflow.conditions)}
    assert (owners["1"], owners["2"]) == ("eng2@city.test", "")
    audit = [a for a in await handle.query(ProjectWorkflow.audit) if a.action == "reassigned"]
    assert [(a.actor, a.reason, a.details) for a in audit] == [
        ("pm@city.test", "on leave", {"from": "", "to": "eng2@city.test"})
    ]
    # A resolved condition has nothing left to own.
    await handle.execute_update(
        ProjectWorkflow.submit_evidence, SubmitEvidenceInput("2", APPLICANT, "report")
    )
    await handle.execute_update(
        ProjectWorkflow.review_condition, ReviewInput("2", ENGINEERING_REVIEWER, "cleared")
    )
    assert "condition #2 is cleared: there is nothing left to own" in await refused(
        handle, update, handing("2", PM, COLLEAGUE)
    )
    # The history with the new update replays deterministically.
    replayer = Replayer(workflows=[ProjectWorkflow], workflow_runner=WORKFLOW_RUNNER)
    await replayer.replay_workflow(await handle.fetch_history())
