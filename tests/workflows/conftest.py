"""The workflow-test harness (time-skipping server, worker, outbox), shared by the shot
clock and permit clock test modules."""

from tests.workflows.permit_helpers import permit_harness  # noqa: F401
from tests.workflows.smtp_helpers import smtp_worker  # noqa: F401
from tests.workflows.test_shot_clock_workflow import harness  # noqa: F401
