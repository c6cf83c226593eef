"""The applicant's planned dates (groundbreaking, grading, construction end, milestone
targets) that the windows of rules.conditions.window_schedule are computed from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

DATE_FIELDS: tuple[str, ...] = (
    "groundbreaking",
    "grading_start",
    "grading_end",
    "construction_end",
)
# Room for the year-either-side arithmetic of wrapping seasons and month shifts.
MIN_YEAR = 2
MAX_YEAR = 9997


def check_date(name: str, value: object) -> None:
    # datetime is a date subclass but compares badly with date: refuse it early.
    if value is None:
        return
    if type(value) is not date:
        raise TypeError(f"{name} must be a datetime.date or None, got {type(value).__name__}")
    if not MIN_YEAR <= value.year <= MAX_YEAR:
        raise ValueError(f"{name} {value.isoformat()} is outside years {MIN_YEAR}-{MAX_YEAR}")


def _parse_iso(name: str, value: object) -> date | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} must be an ISO date string or null, got {value!r}")
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"{name} is not an ISO date (YYYY-MM-DD): {value!r}") from exc


@dataclass(frozen=True)
class PlannedDates:
    """The applicant's planned dates; any may be unknown (None).

    ``milestone_targets`` maps gate keys (conditions.md §1) to target dates.
    """

    groundbreaking: date | None = None
    grading_start: date | None = None
    grading_end: date | None = None
    construction_end: date | None = None
    milestone_targets: dict[str, date] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in DATE_FIELDS:
            check_date(name, getattr(self, name))
        for gate, target in self.milestone_targets.items():
            if not isinstance(gate, str):
                raise TypeError(f"milestone target key {gate!r} must be a string")
            check_date(f"milestone_targets[{gate!r}]", target)

    @classmethod
    def from_iso(cls, data: Mapping[str, Any]) -> PlannedDates:
        """From the ISO-string dict workflows carry; None or "" means unknown."""
        unknown = set(data) - {*DATE_FIELDS, "milestone_targets"}
        if unknown:
            raise ValueError(f"unknown planned-date keys: {', '.join(sorted(unknown))}")
        targets_raw = data.get("milestone_targets") or {}
        if not isinstance(targets_raw, Mapping):
            raise ValueError("milestone_targets must be an object of gate -> ISO date")
        targets: dict[str, date] = {}
        for gate, value in targets_raw.items():
            parsed = _parse_iso(f"milestone_targets[{gate!r}]", value)
            if parsed is not None:
                targets[str(gate)] = parsed
        dates = {name: _parse_iso(name, data.get(name)) for name in DATE_FIELDS}
        return cls(**dates, milestone_targets=targets)

    def to_iso(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in DATE_FIELDS:
            value = getattr(self, name)
            out[name] = None if value is None else value.isoformat()
        out["milestone_targets"] = {
            gate: self.milestone_targets[gate].isoformat()
            for gate in sorted(self.milestone_targets)
        }
        return out
