"""What the journeys share: the city's today, setting a scene up from the command line
(as staff in another terminal would), and opening a page once the read model has it."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from datetime import date
from pathlib import Path
from typing import Any

import pendulum

from tests.browser.harness import RunningStack

CITY_TIME_ZONE = "America/Los_Angeles"
APPLICANT = "applicant@birch-lane.example"
# A small resolution: two conditions gate the grading permit, one for each of two
# departments; a third gates the building permit.
BIRCH_LANE = """\
RESOLUTION NO. 2026-07
RESOLUTION OF THE CITY COUNCIL OF THE CITY OF COTATI APPROVING THE BIRCH LANE TOWNHOMES
NOW, THEREFORE, BE IT RESOLVED that the City Council approves the project subject to the
following Conditions of Approval:
CONDITIONS OF APPROVAL
PUBLIC WORKS / ENGINEERING DEPARTMENT
The following shall be satisfied prior to issuance of a grading permit:
1. The Applicant shall submit a final drainage report prepared by a registered civil engineer.
PLANNING DIVISION
2. Prior to issuance of a grading permit, the Applicant shall submit a tree protection plan \
for review and approval.
PRIOR TO ISSUANCE OF A BUILDING PERMIT
3. The Applicant shall pay the park in-lieu fees.
"""


def city_today() -> date:
    """Today where the city is: the date every form defaults to."""
    return pendulum.now(CITY_TIME_ZONE).date()


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6].upper()}"


def import_birch_lane(stack: RunningStack, folder: Path) -> str:
    """Import the small resolution as a new project; returns its id."""
    path = folder / "birch-lane.txt"
    path.write_text(BIRCH_LANE)
    parsed = json.loads(stack.ok("conditions", "parse", str(path), "--json").stdout)
    gates = {c["number"]: c["gates"] for c in parsed["conditions"]}
    assert gates == {"1": ["grading_permit"], "2": ["grading_permit"], "3": ["building_permit"]}
    project_id = new_id("BIRCH")
    stack.ok(
        "conditions", "import", str(path), "--project", project_id,
        "--name", f"Birch Lane Townhomes {project_id}", "--pm", "pm@cotati.example",
        "--applicant-email", APPLICANT, "--applicant-name", "Birch Lane LLC", "--yes",
    )  # fmt: skip
    return project_id


async def open_when_ready(page: Any, url: str, timeout_s: float = 30.0) -> None:
    """Open `url`, waiting while the read model has not caught up (404) with a record
    started from the command line a moment ago."""
    deadline = time.monotonic() + timeout_s
    while True:
        response = await page.goto(url)
        if response is not None and response.status == 200:
            return
        if time.monotonic() > deadline:
            status = response.status if response is not None else "no response"
            raise AssertionError(f"{url} still answers {status} after {timeout_s:.0f} s")
        await asyncio.sleep(0.5)
