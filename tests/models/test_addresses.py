"""E-mail addresses: one valid address, normalised, or a one-line refusal naming the field
(models/addresses.py, on email-validator without DNS)."""

from __future__ import annotations

import pytest

from models.addresses import BadAddress, normalise_address, one_address, recipient

INJECTION = "a@b.example\r\nBcc: x@y.example"


def test_a_valid_address_is_normalised() -> None:
    assert normalise_address("  Planner@City.EXAMPLE ", "planner_email") == "Planner@city.example"
    assert normalise_address("", "applicant_email") == ""
    assert normalise_address("owner@applicant.test", "applicant_email") == "owner@applicant.test"


@pytest.mark.parametrize(
    "value",
    [INJECTION, "a@b.example\nBcc: x@y.example", "a@b.example, c@d.example", "nobody", "a@b"],
)
def test_anything_but_one_address_is_refused_in_one_line_naming_the_field(value: str) -> None:
    with pytest.raises(BadAddress) as info:
        normalise_address(value, "applicant_email")
    message = str(info.value)
    assert message.startswith("applicant_email: ")
    assert "is not a valid e-mail address (" in message
    assert "\n" not in message and "\r" not in message


def test_a_required_address_must_be_given() -> None:
    with pytest.raises(BadAddress, match="^email: give an e-mail address$"):
        normalise_address(" ", "email", required=True)


def test_a_recipient_is_exactly_one_address_with_an_optional_name() -> None:
    assert recipient("clerk@cotati.example") == ("", "clerk@cotati.example")
    assert recipient("City Clerk <clerk@cotati.example>") == ("City Clerk", "clerk@cotati.example")
    for value in (INJECTION, "a@b.example, c@d.example", "x@y.example\n", "no address"):
        with pytest.raises(BadAddress, match="refused"):
            recipient(value)


def test_the_from_address_may_be_a_development_host_but_never_two_lines() -> None:
    assert one_address("Clearance <clearance@localhost>", validate=False) == (
        "Clearance",
        "clearance@localhost",
    )
    with pytest.raises(BadAddress, match="line break"):
        one_address("Clearance <c@localhost>\r\nBcc: x@y.example", validate=False)
