"""Workflow ids: how every layer finds a running workflow. They are contracts with the
clocks already running (a clock is found by its id, never looked up): change one only
with a migration of the running workflows."""


def shot_clock_workflow_id(application_id: str) -> str:
    return f"shot-clock-{application_id}"


def permit_clock_workflow_id(clock_id: str) -> str:
    return f"permit-clock-{clock_id}"


def project_workflow_id(project_id: str) -> str:
    return f"project-{project_id}"


def closure_workflow_id(jurisdiction: str, day: str) -> str:
    """The fan-out of one closure day to a jurisdiction's clocks: one per day, so a
    second request for the same day joins the first."""
    return f"closure-{jurisdiction}-{day}"
