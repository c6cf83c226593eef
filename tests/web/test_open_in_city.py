"""Opening a clock in a city is authorized by the person's role in that city, not their
role at home: an engineer at home who manages projects in an app-made city may
open a clock there (and not at home); a project manager at home who only reads in that
city may not open one there. On the app alone: the refusal (403) comes before any
workflow is asked, and a bad category (400) shows the role was accepted."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from actions.layer import Actions
from actions.temporal import Gateway
from models.database import make_engine, session_factory
from models.schema import User, UserJurisdiction
from rules.access import Principal
from settings import Settings
from tests.rules.kernel.test_jurisdiction_documents import sample
from tests.web.helpers import csrf_of
from tests.web.standalone import add_user, log_in, standalone_client, standalone_settings
from web.auth.accounts import Accounts

ENGINEER_AT_HOME = "engineer@city.example"
READER_THERE = "manager@city.example"


def grant(settings: Settings, email: str, roles: dict[str, str]) -> None:
    with session_factory(make_engine(settings.database_url)).begin() as s:
        user_id = s.scalar(select(User.id).where(User.email == email))
        assert user_id is not None
        for key, role in roles.items():
            s.add(UserJurisdiction(user_id=user_id, jurisdiction=key, role=role, department=""))


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    settings = standalone_settings(tmp_path_factory.mktemp("open_in_city"))
    actions = Actions(settings, make_engine(settings.database_url), Gateway(settings))
    asyncio.run(actions.jurisdictions.save(Principal("admin@city.example", "admin"), sample()))
    add_user(settings, ENGINEER_AT_HOME, "engineering")
    grant(settings, ENGINEER_AT_HOME, {"cotati": "engineering", "sebastopol": "project_manager"})
    add_user(settings, READER_THERE, "project_manager")
    grant(settings, READER_THERE, {"cotati": "project_manager", "sebastopol": "city_attorney"})
    return settings


def client_for(settings: Settings, email: str) -> Iterator[TestClient]:
    with standalone_client(settings) as client:
        assert log_in(client, email).status_code == 303
        yield client


def open_form(client: TestClient, city: str) -> int:
    token = csrf_of(client.get("/me").text)
    fields = {"application_id": "WT-1", "category": "no_such_category", "jurisdiction": city}
    page = client.post(
        "/applications/new", data={**fields, "csrf_token": token}, follow_redirects=False
    )
    return int(page.status_code)


@pytest.mark.parametrize(
    ("email", "city", "status"),
    [
        (ENGINEER_AT_HOME, "sebastopol", 400),  # a project manager there: on to the fields
        (ENGINEER_AT_HOME, "cotati", 403),
        (READER_THERE, "sebastopol", 403),  # only the attorney's reader there
        (READER_THERE, "cotati", 400),
    ],
)
def test_the_form_opens_with_the_role_held_in_the_clocks_city(
    settings: Settings, email: str, city: str, status: int
) -> None:
    for client in client_for(settings, email):
        assert open_form(client, city) == status


@pytest.mark.parametrize(
    ("email", "city", "status"),
    [(ENGINEER_AT_HOME, "sebastopol", 400), (READER_THERE, "sebastopol", 403)],
)
def test_the_api_opens_with_the_role_held_in_the_clocks_city(
    settings: Settings, email: str, city: str, status: int
) -> None:
    token = Accounts(make_engine(settings.database_url)).new_api_token(email)
    bodies = {
        "/api/v1/applications": {
            "application_id": "WT-2",
            "planner_email": "planner@sebastopol.example",
            "category": "no_such_category",
            "jurisdiction": city,
        },
        "/api/v1/permits": {
            "clock_id": "BP-2",
            "rule": "no_such_rule",
            "jurisdiction": city,
            "events": [{"type": "issued", "date": "2026-01-05"}],
        },
    }
    with standalone_client(settings) as client:
        for path, body in bodies.items():
            answer = client.post(path, json=body, headers={"Authorization": f"Bearer {token}"})
            assert answer.status_code == status, (path, answer.text)
