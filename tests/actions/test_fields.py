"""Every request that takes an e-mail address validates it when made: a bad one is refused
(400) naming the field, before Temporal is asked anything; a good one is kept normalised."""

from __future__ import annotations

import pytest

from actions.condition_clock_requests import OpenConditionClocks
from actions.errors import ActionFailed
from actions.permit_clock_requests import OpenPermitClock
from actions.project_requests import ImportProject
from actions.shot_clock_requests import OpenShotClock
from rules.conditions.parser import parse_resolution
from settings import PROJECT_ROOT

RESOLUTION = PROJECT_ROOT / "stack" / "data" / "cotati-village-resolution.txt"

INJECTION = "a@b.example\r\nBcc: x@y.example"


def shot_clock(**values: str) -> OpenShotClock:
    fields = {
        "application_id": "WTF-1",
        "planner_email": "planner@cotati.example",
        "category": "macro_collocation",
        **values,
    }
    return OpenShotClock.from_fields(fields)


@pytest.mark.parametrize(
    "name", ["planner_email", "applicant_email", "supervisor_email", "attorney_email"]
)
def test_the_shot_clock_refuses_an_injected_address(name: str) -> None:
    with pytest.raises(ActionFailed) as info:
        shot_clock(**{name: INJECTION})
    assert info.value.status == 400
    assert info.value.message.startswith(f"{name}: ")
    assert "is not a valid e-mail address" in info.value.message
    assert "\n" not in info.value.message


def test_the_shot_clock_keeps_addresses_normalised() -> None:
    request = shot_clock(applicant_email=" SiteAcq@Carrier.EXAMPLE", attorney_email="")
    assert request.applicant_email == "SiteAcq@carrier.example"
    assert request.attorney_email == ""
    missing = pytest.raises(ActionFailed, match="^planner_email: give the planner")
    with missing:
        shot_clock(planner_email="")


@pytest.mark.parametrize("name", ["applicant_email", "staff_email", "project_manager_email"])
def test_a_permit_clock_refuses_an_injected_address(name: str) -> None:
    with pytest.raises(ActionFailed, match=f"^{name}: .* is not a valid e-mail address"):
        OpenPermitClock(clock_id="BP-1", rule="building_permit_expiry", **{name: INJECTION})
    ok = OpenPermitClock(clock_id="BP-1", rule="r", **{name: "Owner@Example.TEST"})
    assert getattr(ok, name) == "Owner@example.test"


def test_condition_clocks_refuse_an_injected_address() -> None:
    with pytest.raises(ActionFailed, match="^applicant_email: "):
        OpenConditionClocks(project_id="P-1", conditions=[], applicant_email=INJECTION)


def test_a_project_refuses_an_injected_address_and_keeps_a_good_one_normalised() -> None:
    parsed = parse_resolution(RESOLUTION.read_text(encoding="utf-8"))
    fields = {"project_id": "P-1", "resolution": parsed, "name": "Lofts"}
    with pytest.raises(ActionFailed, match="^applicant_email: .* is not a valid e-mail address"):
        ImportProject(
            **fields, project_manager_email="pm@cotati.example", applicant_email=INJECTION
        )
    with pytest.raises(ActionFailed, match="^project_manager_email: give an e-mail address"):
        ImportProject(**fields, applicant_email="a@b.example")
    made = ImportProject(
        **fields, project_manager_email="pm@Cotati.Example", applicant_email="a@B.example"
    )
    assert (made.project_manager_email, made.applicant_email) == (
        "pm@cotati.example",
        "a@b.example",
    )
