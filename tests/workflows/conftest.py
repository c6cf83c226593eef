"""The workflow-test harness (time-skipping server, worker, outbox), shared by the shot
clock test modules."""

from tests.workflows.test_shot_clock_workflow import harness  # noqa: F401
