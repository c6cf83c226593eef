"""E-mail addresses: validated once where they enter, carried as plain normalised strings.

Every address a person or a file gives Clearance (an applicant's, a planner's, a
jurisdiction's contacts, a user's, the deployment's from-address) passes through
`normalise_address` where it is read, with `email-validator` (no DNS: syntax only), and
is stored in the form it returns: one bare address, the domain lower-cased, nothing a
mail header could be split on. A value that is not one valid address is refused with a
one-line message naming the field.

`recipient` is the send path's check (activities/mail.py): a stored value is used as a
recipient only if it is exactly one valid address, so a row written before validation
existed can never add a header or a recipient to a letter. It is cached: an 08:00 storm
sends to the same few hundred addresses many times.
"""

from __future__ import annotations

from email.utils import getaddresses
from functools import lru_cache

from email_validator import EmailNotValidError, validate_email

# Syntax only (no DNS lookups, which the deployment may not be able to make). `.test`
# domains (RFC 2606: reserved for testing) are allowed for practice deployments.
_OPTIONS = {"check_deliverability": False, "test_environment": True}


class BadAddress(ValueError):
    """Not one valid e-mail address; the message is one line and names the field."""


def _reason(err: Exception) -> str:
    return str(err).rstrip(".").replace("\r", " ").replace("\n", " ")


def normalise_address(value: object, field: str, *, required: bool = False) -> str:
    """The normalised form of one e-mail address given for `field` ("" when empty and
    not required). Raises BadAddress: "<field>: '<value>' is not a valid e-mail address
    (<reason>)"."""
    text = str(value or "").strip()
    if not text:
        if required:
            raise BadAddress(f"{field}: give an e-mail address")
        return ""
    try:
        return validate_email(text, **_OPTIONS).normalized  # type: ignore[arg-type]
    except EmailNotValidError as err:
        raise BadAddress(
            f"{field}: {text!r} is not a valid e-mail address ({_reason(err)})"
        ) from None


def one_address(value: str, field: str = "", *, validate: bool = True) -> tuple[str, str]:
    """(display name, address) of a value that is exactly one address, optionally with a
    display name ("City Clerk <clerk@city.example>"). Raises BadAddress for a CR,
    LF or NUL, several addresses or none, and (with `validate`) an address
    email-validator refuses. `validate=False` is for the deployment's own from-address,
    which may be a development host's (clearance@localhost)."""
    where = f"{field}: " if field else ""
    if any(c in value for c in "\r\n\0"):
        raise BadAddress(f"{where}{value!r} contains a line break: not one e-mail address")
    pairs = getaddresses([value])
    if len(pairs) != 1 or "@" not in pairs[0][1]:
        raise BadAddress(f"{where}{value!r} is not one e-mail address")
    name, addr = pairs[0]
    if validate:
        try:
            validate_email(addr, **_OPTIONS)  # type: ignore[arg-type]
        except EmailNotValidError as err:
            raise BadAddress(
                f"{where}{value!r} is not a valid e-mail address ({_reason(err)})"
            ) from None
    return name, addr


@lru_cache(maxsize=4096)
def recipient(value: str) -> tuple[str, str]:
    """A stored recipient as (display name, address), or BadAddress (see one_address)."""
    try:
        return one_address(value)
    except BadAddress as err:
        raise BadAddress(f"recipient {err}: refused") from None


@lru_cache(maxsize=16)
def sender(value: str) -> tuple[str, str]:
    """The deployment's from-address as (display name, address): one address, no line
    break (checked when the settings are read, and again here)."""
    return one_address(value, "from-address", validate=False)
