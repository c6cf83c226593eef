"""A user of one city gets 404 for another city's objects on every route, proved from the
app's own route table: every path parameter of every route must be one the scope knows
(web/queries/scope.py OWNERS: it names an object of a city; NOT_OBJECTS: why it needs no
check), so a route added later cannot be forgotten. Cotati's records are rows in the
read model (no workflow is needed: the refusal comes before any action)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from actions.layer import Actions
from actions.temporal import Gateway
from models.database import make_engine, session_factory
from models.schema import (
    ApplicantLink,
    Application,
    AuditRow,
    CaseloadImport,
    ConditionRow,
    EvidenceFile,
    Notice,
    PermitClockRow,
    Project,
    User,
)
from rules.access import Principal
from settings import Settings
from tests.rules.kernel.test_jurisdiction_documents import sample
from tests.web.standalone import add_user, log_in, standalone_client, standalone_settings
from tests.web.test_matrix import app_routes
from web.auth.accounts import Accounts
from web.queries.scope import NOT_OBJECTS, OWNERS, grant

COTATI_PLANNER = "planner@cotati.example"
SEBASTOPOL_ADMIN = "admin@sebastopol.example"
NOW = datetime.now(UTC)
# Cotati's records, by the path parameter that names each.
COTATI = {
    "application_id": "ISO-APP-1",
    "project_id": "ISO-PRJ-1",
    "clock_id": "ISO-PMT-1",
    "link_id": "isolink1",
    "notice_key": "iso:notice:1",
    "key": "cotati",
}
MARKERS = ("ISO-APP-1", "ISO-PRJ-1", "ISO-PMT-1", "isolink1", "iso:notice:1", "ISO-RUN")
# What fills the other parameters (an object inside the one named, or a format).
FILL = {
    "number": "1",
    "milestone": "building_permit",
    "kind": "clearance",
    "fmt": "pdf",
    "name": "notice",
    "department": "planning",
    "job_id": "nojob",
    "token_id": "1",
    "token": "no-such-token",
    "report": "lapsing-90-days",
    "subscription_id": "1",
}
# Routes that name none of a city's objects and need no check here, and why.
EXEMPT = {
    "/a/{token}": "the applicant portal: the signed link is the credential for one record",
    "/calendar/{token}.ics": "a calendar feed: test_a_calendar_feed_is_scoped covers it",
}


def cotati_rows(settings: Settings) -> dict[str, str]:
    sessions = session_factory(make_engine(settings.database_url))
    common = {"created_at": NOW, "updated_at": NOW}
    with sessions.begin() as s:
        s.add(
            Application(
                application_id=COTATI["application_id"], workflow_id="w", jurisdiction="cotati",
                state="CA", category="macro_collocation", status="running", clock={},
                shot_clock_date="2027-01-15", conservative_date="2027-01-15", **common,
            )
        )  # fmt: skip
        s.add(
            Project(
                project_id=COTATI["project_id"], workflow_id="w", name="Iso project",
                jurisdiction="cotati", **common,
            )
        )  # fmt: skip
        s.add(
            PermitClockRow(
                clock_id=COTATI["clock_id"], workflow_id="w", jurisdiction="cotati",
                rule="ca_psa_completeness", status="running", clock={}, **common,
            )
        )  # fmt: skip
    with sessions.begin() as s:
        s.add(
            ConditionRow(
                project_id=COTATI["project_id"], number="1", position=1, department="Planning",
                department_key="planning", text="Iso condition", gate_source="stated",
                kind="standard", status="open",
            )
        )  # fmt: skip
        s.add(
            Notice(
                notice_key=COTATI["notice_key"], application_id=COTATI["application_id"],
                kind="reminder", subject="ISO-APP-1 reminder", message_id="<m@x>",
                body_text="ISO-APP-1", body_html="ISO-APP-1", created_at=NOW,
            )
        )  # fmt: skip
        s.add(
            ApplicantLink(
                link_id=COTATI["link_id"], scope="project", scope_id=COTATI["project_id"],
                created_by=COTATI_PLANNER, created_at=NOW, expires_at=NOW + timedelta(days=9),
            )
        )  # fmt: skip
        evidence = EvidenceFile(
            scope="project", scope_id=COTATI["project_id"], filename="iso.pdf", size=1,
            sha256="0" * 64, uploaded_by=COTATI_PLANNER, uploaded_at=NOW,
        )  # fmt: skip
        s.add(evidence)
        s.add(
            AuditRow(
                project_id=COTATI["project_id"], audit_id="a1", at=NOW.isoformat(),
                actor=COTATI_PLANNER, role="project_manager", action="import",
            )
        )  # fmt: skip
        s.flush()
        s.add(
            CaseloadImport(
                id="isorun1", kind="wireless", filename="ISO-RUN.csv", sha256="0" * 64,
                content=b"", created_by=COTATI_PLANNER, created_at=NOW, state="previewed",
            )
        )  # fmt: skip
        planner = s.query(User).filter_by(email=COTATI_PLANNER).one()
        return {
            **COTATI,
            "file_id": str(evidence.id),
            "user_id": str(planner.id),
            "run_id": "isorun1",
        }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, dict[str, str]]]:
    settings = standalone_settings(tmp_path_factory.mktemp("isolation"))
    add_user(settings, COTATI_PLANNER, "project_manager")
    add_user(settings, SEBASTOPOL_ADMIN, "admin")
    engine = make_engine(settings.database_url)
    actions = Actions(settings, engine, Gateway(settings))
    sessions = session_factory(engine)
    with sessions() as s:
        admin_id = s.query(User).filter_by(email=SEBASTOPOL_ADMIN).one().id
    # The Sebastopol administrator works in Sebastopol only.
    grant(sessions, admin_id, "sebastopol", "admin")
    asyncio.run(actions.jurisdictions.save(Principal(SEBASTOPOL_ADMIN, "admin"), sample()))
    ids = cotati_rows(settings)
    with standalone_client(settings) as client, standalone_client(settings) as own:
        assert log_in(client, SEBASTOPOL_ADMIN).status_code == 303
        assert log_in(own, COTATI_PLANNER).status_code == 303
        client.own = own  # type: ignore[attr-defined]
        accounts = Accounts(engine)
        client.feeds = {  # type: ignore[attr-defined]
            email: accounts.new_calendar_token(accounts.get_user(email).id)  # type: ignore[union-attr]
            for email in (COTATI_PLANNER, SEBASTOPOL_ADMIN)
        }
        yield client, ids


def params(path: str) -> list[str]:
    return re.findall(r"\{([a-z_]+)", path)


def test_every_path_parameter_is_known_to_the_scope(world: Any) -> None:
    client, _ = world
    known = set(OWNERS) | set(NOT_OBJECTS)
    unknown = sorted(
        {(p, path) for _, path in app_routes(client.app) for p in params(path) if p not in known}
    )
    assert not unknown, (
        "path parameters web/queries/scope.py does not know: add each to OWNERS (the city "
        f"of the object it names) or NOT_OBJECTS (why it needs no check): {unknown}"
    )


def test_another_citys_object_is_not_found_on_every_route(world: Any) -> None:
    client, ids = world
    checked = []
    for method, path in sorted(app_routes(client.app)):
        names = params(path)
        if path in EXEMPT or not any(n in OWNERS for n in names):
            continue
        url = re.sub(r"\{([a-z_]+)(:path)?\}", lambda m: ids.get(m[1]) or FILL[m[1]], path)
        response = client.request(method, url, follow_redirects=False)
        assert response.status_code == 404, (
            method,
            path,
            response.status_code,
            response.text[:200],
        )
        checked.append(path)
    # Every kind of object was tried.
    assert {n for p in checked for n in params(p)} >= set(OWNERS)


def test_the_citys_own_staff_do_see_its_records(world: Any) -> None:
    """The control for the two tests above: the same records, asked for by Cotati's
    planner, are found (the guard's 404 is not what they get) and listed."""
    client, ids = world
    own = client.own
    for path in ("/outbox/{notice_key}", "/admin/users/{user_id}/disable"):
        url = re.sub(r"\{([a-z_]+)\}", lambda m: ids[m[1]], path)
        assert (
            "There is no such record."
            not in own.request("POST" if path.endswith("disable") else "GET", url).text
        ), path
    assert "ISO-PMT-1" in own.get("/api/v1/permits").text
    assert "ISO-APP-1" in own.get("/applications").text


def test_lists_and_feeds_show_nothing_of_another_city(world: Any) -> None:
    client, _ = world
    for method, path in sorted(app_routes(client.app)):
        names = params(path)
        if method != "GET" or path in EXEMPT or any(n in OWNERS for n in names):
            continue
        url = re.sub(r"\{([a-z_]+)(:path)?\}", lambda m: FILL[m[1]], path)
        response = client.get(url, follow_redirects=False)
        for marker in MARKERS:
            assert marker not in response.text, (path, marker)


def test_a_calendar_feed_is_scoped(world: Any) -> None:
    client, _ = world
    own = client.get(f"/calendar/{client.feeds[COTATI_PLANNER]}.ics")
    other = client.get(f"/calendar/{client.feeds[SEBASTOPOL_ADMIN]}.ics")
    assert own.status_code == other.status_code == 200
    assert "ISO-APP-1" in own.text
    assert "ISO-APP-1" not in other.text


def test_opening_in_another_city_is_refused_as_unknown(world: Any) -> None:
    client, _ = world
    page = client.get("/me")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token
    response = client.post(
        "/api/v1/permits",
        json={
            "clock_id": "ISO-NEW-1",
            "rule": "ca_psa_completeness",
            "jurisdiction": "cotati",
            "events": [{"type": "submitted", "date": "2026-11-02"}],
        },
        headers={"X-CSRF-Token": token[1]},
    )
    # Refused as an unknown jurisdiction would be: another city's is not revealed.
    assert response.status_code == 400, response.text
    assert response.json() == {
        "error": "jurisdiction: unknown jurisdiction 'cotati' (known: sebastopol)"
    }


def holding(settings: Any, email: str, **roles: tuple[str, str]) -> None:
    """A new person holding a (role, department) in each city named."""
    add_user(settings, email, "planning_manager")
    sessions = session_factory(make_engine(settings.database_url))
    with sessions() as s:
        user_id = s.query(User).filter_by(email=email).one().id
    for key, (role, department) in roles.items():
        grant(sessions, user_id, key, role, department)


def test_a_person_holds_a_different_role_in_each_city(world: Any) -> None:
    """A contract manager: project manager in Cotati, administrator in Sebastopol. About a
    record, they act with their role in its city."""
    client, _ = world
    settings = client.app.state.ctx.settings
    holding(
        settings, "contract@firm.example", cotati=("project_manager", ""), sebastopol=("admin", "")
    )
    with standalone_client(settings) as person:
        assert log_in(person, "contract@firm.example").status_code == 303
        assert person.get("/admin/jurisdictions/sebastopol").status_code == 200
        refused = person.get("/admin/jurisdictions/cotati")
        assert refused.status_code == 403 and "project manager" in refused.text
        assert "ISO-APP-1" in person.get("/applications").text  # both cities' lists


def test_the_dashboards_review_queue_follows_the_role_held_in_each_city(world: Any) -> None:
    client, _ = world
    settings = client.app.state.ctx.settings
    holding(
        settings,
        "reviewer@firm.example",
        cotati=("department_reviewer", "engineering"),
        sebastopol=("planning_manager", ""),
    )
    with standalone_client(settings) as person:
        assert log_in(person, "reviewer@firm.example").status_code == 303
        page = person.get("/")
    assert page.status_code == 200
    assert (
        "My review queues: Public Works / Engineering (City of Cotati); "
        "all departments (City of Sebastopol (test city))"
    ) in page.text
