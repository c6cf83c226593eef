"""The administrator's Jurisdictions pages, on the app alone (no clock is opened): set up
a city from the form, see an error naming the field and keep what was typed, save a
new version with its reason, export the city and import it again; other staff are
refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from settings import Settings
from tests.rules.kernel.test_jurisdiction_documents import sample
from tests.web.helpers import csrf_of
from tests.web.standalone import add_user, log_in, standalone_client, standalone_settings
from web.views.jurisdiction_form import form_values

ADMIN = "admin@city.example"
PLANNER = "planner@city.example"


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    settings = standalone_settings(tmp_path_factory.mktemp("jurisdictions"))
    add_user(settings, ADMIN, "admin")
    add_user(settings, PLANNER, "project_manager")
    return settings


@pytest.fixture(scope="module")
def admin(settings: Settings) -> Iterator[TestClient]:
    with standalone_client(settings) as client:
        assert log_in(client, ADMIN).status_code == 303
        yield client


def post_form(client: TestClient, url: str, page_url: str, fields: dict[str, str]) -> Any:
    token = csrf_of(client.get(page_url).text)
    return client.post(url, data={**fields, "csrf_token": token}, follow_redirects=False)


def new_city_fields() -> dict[str, str]:
    fields = form_values(sample())
    fields["key"] = "sebastopol"
    return fields


def test_a_new_city_from_the_form_with_a_bad_field_then_a_good_one(admin: TestClient) -> None:
    fields = new_city_fields()
    fields["departments"] += "\nfire | fire@sebastopol.example | chief@sebastopol.example | CEQA"
    page = post_form(admin, "/admin/jurisdictions/new", "/admin/jurisdictions/new", fields)
    assert page.status_code == 400
    assert "Refused: departments.fire.aliases: &#39;CEQA&#39; is already used by" in page.text
    assert "fire@sebastopol.example" in page.text  # what was typed is kept
    fields = new_city_fields()
    fields["holidays"] += "\nArbor Day | last Friday of April |"
    page = post_form(admin, "/admin/jurisdictions/new", "/admin/jurisdictions/new", fields)
    assert page.status_code == 400
    assert "adopted_holidays.holidays[2].citation: &#39;Arbor Day&#39; has no source" in page.text
    fields["holidays"] = fields["holidays"].replace("last Friday of April |", "Fool Day | x")
    page = post_form(admin, "/admin/jurisdictions/new", "/admin/jurisdictions/new", fields)
    assert "holidays line 3: &#39;Fool Day&#39; is not a date rule" in page.text
    created = post_form(
        admin, "/admin/jurisdictions/new", "/admin/jurisdictions/new", new_city_fields()
    )
    assert created.status_code == 303, created.text
    assert created.headers["location"] == "/admin/jurisdictions/sebastopol"
    page = admin.get("/admin/jurisdictions/sebastopol")
    assert "Saved sebastopol version 1" in page.text
    assert "Founders Day | March 17 | Resolution 2026-01 section 2" in page.text
    listing = admin.get("/admin/jurisdictions")
    assert 'data-key="sebastopol"' in listing.text and 'data-key="cotati"' in listing.text


def test_a_new_version_is_saved_with_its_reason_and_the_form_round_trips(
    admin: TestClient,
) -> None:
    url = "/admin/jurisdictions/sebastopol"
    fields = form_values(sample())
    # The form read back from the stored document gives the same document again.
    unchanged = post_form(admin, url, url, {**fields, "reason": "no change"})
    assert unchanged.status_code == 409 and "nothing changed" in unchanged.text
    fields["time_zone"] = "America/Lost_Angeles"
    refused = post_form(admin, url, url, fields)
    assert refused.status_code == 400
    assert "time_zone: &#39;America/Lost_Angeles&#39; is not a time zone" in refused.text
    fields["time_zone"] = "America/Los_Angeles"
    fields["reply_to_email"] = "desk@@sebastopol"
    refused = post_form(admin, url, url, fields)
    assert "contacts.reply_to_email: &#39;desk@@sebastopol&#39; is not a valid e-mail" in (
        refused.text
    )
    fields["reply_to_email"] = "desk@sebastopol.example"
    fields["reason"] = "the front desk answers replies"
    saved = post_form(admin, url, url, fields)
    assert saved.status_code == 303
    page = admin.get(url)
    assert (
        "Saved sebastopol version 2" in page.text and "the front desk answers replies" in page.text
    )


def test_export_and_import_as_one_file(admin: TestClient) -> None:
    exported = admin.get("/admin/jurisdictions/sebastopol/export")
    assert exported.headers["content-disposition"] == 'attachment; filename="sebastopol.json"'
    text = exported.text.replace("Sebastopol Resolution 2026-01", "Sebastopol Resolution 2026-02")
    token = csrf_of(admin.get("/admin/jurisdictions").text)
    imported = admin.post(
        "/admin/jurisdictions/import",
        data={"csrf_token": token, "reason": "council adopted 2026-02"},
        files={"file": ("sebastopol.json", text.encode(), "application/json")},
        follow_redirects=False,
    )
    assert imported.status_code == 303, imported.text
    assert admin.get("/admin/jurisdictions/sebastopol/export").text == text
    bad = admin.post(
        "/admin/jurisdictions/import",
        data={"csrf_token": token},
        files={"file": ("x.json", b"not json", "application/json")},
    )
    assert bad.status_code == 400 and "Not imported: file: not JSON" in bad.text


def test_other_staff_are_refused_and_an_unknown_city_is_not_found(
    settings: Settings, admin: TestClient
) -> None:
    assert admin.get("/admin/jurisdictions/nowhere").status_code == 404
    with standalone_client(settings) as client:
        log_in(client, PLANNER)
        assert client.get("/admin/jurisdictions").status_code == 403
        assert client.get("/admin/jurisdictions/cotati").status_code == 403
        # Another city's: as if it did not exist (the planner works in Cotati only).
        assert client.get("/admin/jurisdictions/sebastopol").status_code == 404
        assert 'value="sebastopol"' not in client.get("/permits/new").text


def test_the_calendar_page_shows_the_new_citys_holidays(admin: TestClient) -> None:
    page = admin.get("/admin/calendar?jurisdiction=sebastopol&year=2027")
    assert page.status_code == 200 and "Founders Day" in page.text
    assert "Sebastopol Resolution 2026-02" in page.text


def test_the_forms_offer_the_new_city(admin: TestClient, tmp_path: Path) -> None:
    assert 'value="sebastopol"' in admin.get("/permits/new").text
