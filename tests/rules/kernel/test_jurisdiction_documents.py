"""A jurisdiction document (a shipped file, an import, an administrator's edit) is read by
one parser: each kind of bad input is refused in one line naming the field, and a good
document keeps what it says (departments with aliases, letterhead, From and Reply-To)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from rules.kernel.jurisdictions import JurisdictionError, parse_jurisdiction
from settings import PROJECT_ROOT

SAMPLE = PROJECT_ROOT / "tests" / "data" / "jurisdictions_admin" / "sebastopol.json"


def sample() -> dict[str, Any]:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


def refused(doc: dict[str, Any]) -> str:
    with pytest.raises(JurisdictionError) as info:
        parse_jurisdiction(doc)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_good_document_keeps_its_departments_contacts_and_letterhead() -> None:
    city = parse_jurisdiction(sample())
    assert city.department_for("ceqa") == "environmental"
    assert city.department_for("Community Development") == "planning"
    assert city.department_for("fire") is None
    assert [d.review_sla_business_days for d in city.department_details] == [None, 15]
    assert city.mail_from == "City of Sebastopol Planning <planning@sebastopol.example>"
    assert city.reply_to_email == "planner@sebastopol.example"
    assert city.letterhead[0] == "City of Sebastopol"
    assert dict(city.fact_defaults) == {"ca_tentative_map_expiry": {"ordinance_months": 12}}
    assert dict(city.document) == sample()


def test_the_shipped_files_read_the_same_way() -> None:
    for name in ("cotati", "federal"):
        path = PROJECT_ROOT / "rules" / "data" / "jurisdictions" / f"{name}.json"
        assert parse_jurisdiction(json.loads(path.read_text(encoding="utf-8"))).key == name


def test_a_holiday_without_a_source_is_refused() -> None:
    doc = sample()
    doc["adopted_holidays"]["holidays"][1]["citation"] = " "
    assert refused(doc).startswith("adopted_holidays.holidays[1].citation: 'Cesar Chavez Day'")
    doc = sample()
    doc["adopted_holidays"]["source"] = ""
    assert refused(doc).startswith("adopted_holidays.source: name the resolution or MOU")


def test_two_departments_with_the_same_alias_are_refused() -> None:
    doc = sample()
    doc["departments"]["planning"]["aliases"].append("ceqa")
    message = refused(doc)
    assert message.startswith("departments.")
    assert "'ceqa'" in message.lower() and "two departments cannot share" in message


def test_an_alias_that_is_another_departments_key_is_refused() -> None:
    doc = sample()
    doc["departments"]["environmental"]["aliases"] = ["Planning"]
    assert "already used by departments.planning" in refused(doc)


def test_a_time_zone_that_does_not_exist_is_refused() -> None:
    doc = sample()
    doc["time_zone"] = "America/Sebastopol"
    assert refused(doc).startswith("time_zone: 'America/Sebastopol' is not a time zone")


@pytest.mark.parametrize(
    ("where", "field"),
    [
        (("contacts", "reply_to_email"), "contacts.reply_to_email"),
        (("contacts", "mail_from"), "contacts.mail_from"),
        (
            ("departments", "environmental", "reviewer_email"),
            "departments.environmental.reviewer_email",
        ),
    ],
)
def test_an_invalid_contact_address_is_refused(where: tuple[str, ...], field: str) -> None:
    doc = sample()
    target = doc
    for part in where[:-1]:
        target = target[part]
    target[where[-1]] = "planner at sebastopol"
    assert refused(doc).startswith(f"{field}: 'planner at sebastopol' is not ")
    assert "e-mail address" in refused(doc)


@pytest.mark.parametrize(
    ("change", "starts"),
    [
        ({"colour": "blue"}, "colour: unknown field"),
        ({"key": "Sebastopol City"}, "key: "),
        ({"rule_pack": "nowhere"}, "rule_pack: 'nowhere' is not a rule pack"),
        ({"local_closures": ["2026-02-30"]}, "local_closures[0]: '2026-02-30' is not a date"),
        ({"reminder_offsets": [7, 0]}, "reminder_offsets[1]: "),
        ({"state": "California"}, "state: 'California' is not a two-letter"),
    ],
)
def test_other_bad_fields_are_named(change: dict[str, Any], starts: str) -> None:
    doc = copy.deepcopy(sample())
    doc.update(change)
    assert refused(doc).startswith(starts)
