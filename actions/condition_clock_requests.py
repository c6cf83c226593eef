"""The condition clocks' request: open the clocks a project's conditions' time limits call
for. The action is in actions/condition_clocks.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from actions.fields import check_addresses


@dataclass(frozen=True, kw_only=True)
class OpenConditionClocks:
    """Open the clocks a project's conditions call for (idempotent: a clock already open
    is left as it is)."""

    permission: ClassVar[str] = "permit.open"

    project_id: str
    conditions: list[Any]
    # Anchor -> date; `approval` is the resolution's adoption date.
    anchors: dict[str, str] = field(default_factory=dict)
    jurisdiction: str = ""
    applicant_name: str = ""
    applicant_email: str = ""
    project_manager_email: str = ""

    def __post_init__(self) -> None:
        check_addresses(self, "applicant_email", "project_manager_email")
