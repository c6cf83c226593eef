"""The password policy (OWASP ASVS L2, 2.1): at least 12 characters, at most 128, and
not a common or breached password, checked offline with zxcvbn, whose frequency lists
come from leaked-password corpora. No composition rules (no "one digit, one capital").

Pure: no I/O. It applies when a password is set, changed or reset; a stored password is
never re-checked, so existing accounts still log in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zxcvbn import zxcvbn

MIN_LENGTH = 12
MAX_LENGTH = 128
# zxcvbn's score: 0 too guessable, 1 very guessable, 2 somewhat guessable, 3 safely
# unguessable, 4 very unguessable. Below 3 is refused.
MIN_SCORE = 3
# zxcvbn's cost grows with the length; past this many characters the rest adds strength
# but is not needed to judge it.
CHECKED_CHARS = 64


@dataclass(frozen=True)
class Strength:
    """What zxcvbn made of a password: its score (0-4), its warning and suggestions."""

    score: int
    warning: str
    suggestions: tuple[str, ...]

    @property
    def feedback(self) -> str:
        """The warning and suggestions in one line ("" when there is nothing to say)."""
        parts = [self.warning.rstrip(".")] if self.warning else []
        parts += [s.rstrip(".") for s in self.suggestions]
        return "; ".join(parts)


class WeakPassword(ValueError):
    """A password the policy refuses; the one-line message says why and what would help."""


def strength(password: str, user_inputs: Sequence[str] = ()) -> Strength:
    """zxcvbn's judgement, with the account's own words (e-mail, name) counted as known."""
    words = [w for value in user_inputs for w in _words(value)]
    result = zxcvbn(password[:CHECKED_CHARS], user_inputs=words)
    feedback = result.get("feedback") or {}
    return Strength(
        score=int(result["score"]),
        warning=str(feedback.get("warning") or ""),
        suggestions=tuple(str(s) for s in feedback.get("suggestions") or ()),
    )


def check_password(password: str, user_inputs: Sequence[str] = ()) -> Strength:
    """The password's strength if the policy accepts it; else WeakPassword saying why."""
    if len(password) < MIN_LENGTH:
        raise WeakPassword(
            f"a password needs at least {MIN_LENGTH} characters (this one has "
            f"{len(password)}); a few unrelated words make a good one"
        )
    if len(password) > MAX_LENGTH:
        raise WeakPassword(f"a password may have at most {MAX_LENGTH} characters")
    judged = strength(password, user_inputs)
    if judged.score < MIN_SCORE:
        why = judged.feedback or "Add another word or two; uncommon words are better"
        raise WeakPassword(f"that password is too easy to guess: {why}")
    return judged


def _words(value: str) -> list[str]:
    """An e-mail address or a name, and its parts ("ana.ruiz@city.example" gives "ana",
    "ruiz", "city"...), so a password made of them is judged guessable."""
    value = value.strip().lower()
    if not value:
        return []
    parts = [p for p in value.replace("@", " ").replace(".", " ").replace("-", " ").split() if p]
    return [value, *parts]
