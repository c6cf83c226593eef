"""Web test helpers: a small project and a fresh clock on the shared stack, log-ins with
the demo users, and the CSRF token of a page."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import pendulum
from fastapi.testclient import TestClient

from models.conditions import ConditionSpec, ParsedResolution
from rules.conditions.onboarding import new_project
from rules.kernel.jurisdictions import jurisdiction
from settings import Settings
from stack.demo import DEMO_PASSWORD, DEMO_USERS, DemoClock, demo_application
from web.context import SESSION_COOKIE

ROLE_USERS = {
    "project_manager": "pm@cotati.example",
    "engineering": "engineer@cotati.example",
    "department_reviewer": "publicworks@cotati.example",  # clears engineering conditions
    "planning_manager": "manager@cotati.example",
    "city_attorney": "attorney@cotati.example",
    "admin": "admin@cotati.example",
}
assert {u for u, _, _ in DEMO_USERS} >= set(ROLE_USERS.values())

# How long a workflow may take to reach the read model on a loaded 2-core machine.
READ_MODEL_WAIT = 60.0
SCRIPT = '<script>alert("x")</script>'


def city_today() -> date:
    """Today where the demo city is: the workflows judge dates there."""
    return pendulum.now("America/Los_Angeles").date()


def spec(number: str, department: str, text: str, gates: list[str], kind: str = "requirement"):
    return ConditionSpec(
        number=number,
        code=None,
        department=department,
        section=None,
        text=text,
        gates=gates,
        gate_source="explicit",
        kind=kind,
    )


def small_resolution() -> ParsedResolution:
    """Five conditions: two block the grading permit (engineering, planning), one is
    advisory, one conditional, and one whose text carries a script tag."""
    return ParsedResolution(
        title="Test resolution",
        conditions=[
            spec(
                "1",
                "PUBLIC WORKS",
                "Submit an erosion control plan prior to grading permit.",
                ["grading_permit"],
            ),
            spec("2", "PLANNING", "Pay the park fees prior to grading permit.", ["grading_permit"]),
            spec(
                "3",
                "PLANNING",
                "The applicant is advised of the noise ordinance.",
                ["grading_permit"],
                kind="advisory",
            ),
            spec(
                "4",
                "PUBLIC WORKS",
                "If archaeological resources are found, stop work.",
                ["building_permit"],
                kind="conditional",
            ),
            spec(
                "5",
                "PUBLIC WORKS",
                f"Provide the sewer report {SCRIPT} before building permit.",
                ["building_permit"],
            ),
        ],
    )


@dataclass
class Stackish:
    settings: Settings

    async def _client(self):  # type: ignore[no-untyped-def]
        from worker import connect

        return await connect(self.settings)

    def new_project(self, prefix: str = "P") -> str:
        """Start a project workflow and wait for its read model."""
        from models.workflow_ids import project_workflow_id
        from workflows.project import ProjectWorkflow

        project_id = f"{prefix}-{uuid.uuid4().hex[:8]}"
        start = new_project(
            small_resolution(),
            project_id=project_id,
            name=f"Test project {project_id}",
            city=jurisdiction("cotati"),
            applicant_name="Test Applicant",
            applicant_email="applicant@test.example",
            project_manager_email="pm@cotati.example",
        )

        async def go() -> None:
            client = await self._client()
            handle = await client.start_workflow(
                ProjectWorkflow.run,
                start,
                id=project_workflow_id(project_id),
                task_queue=self.settings.task_queue,
            )
            await handle.query("status_by_milestone")

        asyncio.run(go())
        self.wait_for_project(project_id)
        return project_id

    def wait_for_project(self, project_id: str) -> None:
        from sqlalchemy import func, select

        from models.database import make_engine, session_factory
        from models.schema import ConditionRow

        engine = make_engine(self.settings.database_url)
        deadline = time.monotonic() + READ_MODEL_WAIT
        while time.monotonic() < deadline:
            with session_factory(engine)() as s:
                n = s.scalar(
                    select(func.count())
                    .select_from(ConditionRow)
                    .where(ConditionRow.project_id == project_id)
                )
            if n == 5:
                return
            time.sleep(0.05)
        raise AssertionError(f"project {project_id} never reached the read model")

    def new_clock(
        self, category: str = "macro_collocation", days_ago: int = 10, prefix: str = "APP"
    ) -> str:
        """Open a shot clock submitted `days_ago` days ago; wait for its read model."""
        from models.shot_clock import ClockEvent, ShotClockInput
        from models.workflow_ids import shot_clock_workflow_id
        from workflows.shot_clock import ShotClockWorkflow

        application_id = f"{prefix}-{uuid.uuid4().hex[:8]}"
        info = demo_application(DemoClock(application_id, category, days_ago, "1 Test St", ""))
        submitted = city_today() - timedelta(days=days_ago)

        async def go() -> None:
            client = await self._client()
            await client.start_workflow(
                ShotClockWorkflow.run,
                ShotClockInput(
                    application=info, events=[ClockEvent("submitted", submitted.isoformat())]
                ),
                id=shot_clock_workflow_id(application_id),
                task_queue=self.settings.task_queue,
            )

        asyncio.run(go())
        self.wait_for_clock(application_id)
        return application_id

    def wait_for_clock(self, application_id: str) -> None:
        from models.database import make_engine, session_factory
        from models.schema import Application

        engine = make_engine(self.settings.database_url)
        deadline = time.monotonic() + READ_MODEL_WAIT
        while time.monotonic() < deadline:
            with session_factory(engine)() as s:
                if s.get(Application, application_id) is not None:
                    return
            time.sleep(0.05)
        raise AssertionError(f"clock {application_id} never reached the read model")


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "no csrf_token on the page"
    return match.group(1)


class Browser:
    """One TestClient (one event loop) shared by every user: each call runs with that
    user's session cookie."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.tokens: dict[str, str] = {}

    def login(self, email: str, password: str = DEMO_PASSWORD) -> str:
        if email in self.tokens:
            return self.tokens[email]
        self.client.cookies.clear()
        page = self.client.get("/login")
        response = self.client.post(
            "/login",
            data={"email": email, "password": password, "csrf_token": csrf_of(page.text)},
            follow_redirects=False,
        )
        assert response.status_code == 303, response.text
        token = response.cookies[SESSION_COOKIE]
        self.tokens[email] = token
        return token

    def as_(self, email: str | None) -> TestClient:
        self.client.cookies.clear()
        if email is not None:
            self.client.cookies.set(SESSION_COOKIE, self.login(email))
        return self.client

    def csrf(self, email: str) -> str:
        return csrf_of(self.as_(email).get("/me").text)

    def api(self, email: str, method: str, path: str, json: Any = None) -> Any:
        client = self.as_(email)
        headers = {"X-CSRF-Token": self.csrf(email)} if method != "GET" else {}
        client = self.as_(email)
        return client.request(method, path, json=json, headers=headers)
