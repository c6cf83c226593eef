"""The vocabulary: labels for keys, unknown keys as words, departments by the project's
own contacts first, and a milestone file read again when it changes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from notices import vocabulary
from notices.vocabulary import (
    CONDITION_STATUS_LABELS,
    department_label,
    jurisdiction_name,
    labeller,
    milestone_label,
    milestone_order,
    words,
)
from tests.activities.project_fixtures import make_project
from tests.notices.milestones import use_milestone_file


def test_labels_and_unknown_keys() -> None:
    label = labeller(CONDITION_STATUS_LABELS)
    assert label("returned") == "returned for changes"
    assert label("on_hold") == "on hold"
    assert label(None) == label("") == ""
    assert words("grading_permit") == "Grading permit"
    assert jurisdiction_name("atlantis") == "atlantis"


def test_departments_from_the_project_first_then_the_file() -> None:
    project = make_project()
    named = {d.department_key: d.name for d in project.departments if d.name}
    key, name = next(iter(named.items()))
    assert department_label(key, project) == name
    assert department_label("engineering") == "Public Works / Engineering"
    assert department_label("PUBLIC WORKS") == "PUBLIC WORKS"  # a heading as printed
    assert department_label(None) == ""


def test_milestone_order_is_the_projects_own_else_the_files(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "milestones.json"
    path.write_text(json.dumps({"milestones": [{"key": "b"}, {"key": "a"}]}))
    use_milestone_file(monkeypatch, path)
    assert milestone_order() == ["b", "a"]
    assert milestone_order(["a", "c"]) == ["a", "c"]


def test_an_edited_milestone_file_is_read_again_within_a_second(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    now = [1000.0]
    monkeypatch.setattr(vocabulary, "monotonic", lambda: now[0])
    path = tmp_path / "milestones.json"

    def write(label: str, mtime_s: int) -> None:
        path.write_text(json.dumps({"milestones": [{"key": "grading_permit", "label": label}]}))
        os.utime(path, ns=(mtime_s * 10**9, mtime_s * 10**9))

    write("Grading permit issued", 1_700_000_000)
    use_milestone_file(monkeypatch, path)
    assert milestone_label("grading_permit") == "Grading permit issued"
    write("Rough grading permit issued", 1_700_000_100)
    now[0] += 0.5  # the file's date is looked at once a second at most
    assert milestone_label("grading_permit") == "Grading permit issued"
    now[0] += 1.0
    assert milestone_label("grading_permit") == "Rough grading permit issued"
