"""A jurisdiction file's contacts are e-mail addresses: a bad one refuses the file at
load, in one line naming the file and the field; good ones are kept normalised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.kernel import jurisdictions
from rules.kernel.jurisdictions import JURISDICTIONS, add_jurisdictions

COTATI = Path(__file__).resolve().parents[3] / "rules" / "data" / "jurisdictions" / "cotati.json"


def write_city(folder: Path, key: str, **contacts: str) -> Path:
    raw = json.loads(COTATI.read_text(encoding="utf-8"))
    raw["key"] = key
    raw["default"] = False
    raw["contacts"].update(contacts)
    path = folder / f"{key}.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


@pytest.mark.parametrize("field", ["supervisor_email", "attorney_email", "planner_email"])
def test_a_contact_that_would_add_a_recipient_refuses_the_file(tmp_path: Path, field: str) -> None:
    path = write_city(tmp_path, "badtown", **{field: "a@b.example\r\nBcc: x@y.example"})
    with pytest.raises(ValueError) as info:
        add_jurisdictions(tmp_path)
    message = str(info.value)
    assert message.startswith(f"{path}: contacts.{field}: ")
    assert "is not a valid e-mail address" in message and "\n" not in message
    assert "badtown" not in JURISDICTIONS


def test_a_departments_address_is_checked_too(tmp_path: Path) -> None:
    path = write_city(tmp_path, "badtown2")
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["departments"]["planning"]["head_email"] = "head@cotati.example, x@y.example"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(ValueError, match=r"badtown2\.json: departments\.planning\.head_email: "):
        add_jurisdictions(tmp_path)


def test_contacts_are_kept_normalised(tmp_path: Path) -> None:
    write_city(tmp_path, "goodtown", planner_email="Planner@GoodTown.EXAMPLE")
    try:
        assert add_jurisdictions(tmp_path) == ["goodtown"]
        assert JURISDICTIONS["goodtown"].planner_email == "Planner@goodtown.example"
    finally:
        jurisdictions._JURISDICTIONS.pop("goodtown", None)


def test_the_shipped_files_load() -> None:
    assert JURISDICTIONS["cotati"].attorney_email == "city.attorney@cotati.example"
