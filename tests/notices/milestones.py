"""A milestone file for tests: the canonical keys, read through the rules' milestone
loader, without their labels, so every milestone label reads as its key's words whatever
labels rules/data/milestones/ holds today."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from notices import vocabulary
from rules.conditions.gates import load_milestones


def keys_only_file(folder: Path) -> Path:
    path = folder / "milestone-keys.json"
    keys = load_milestones().keys
    path.write_text(json.dumps({"milestones": [{"key": k} for k in keys]}), "utf-8")
    return path


def use_milestone_file(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(vocabulary, "MILESTONES_FILE", path)


def use_keys_only_milestones(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    use_milestone_file(monkeypatch, keys_only_file(folder))
