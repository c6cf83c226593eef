"""Secrets: password hashes (argon2), random tokens stored only as their sha256, the
signing key, and signed applicant-link tokens. (Log-in throttling: web/auth/login_throttle.py.)"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from itsdangerous import BadSignature

from operations.signing import link_serializer

_hasher = PasswordHasher()
# Verified against when the e-mail is unknown, so a wrong address takes as long as a
# wrong password (no user enumeration by timing).
_DUMMY_HASH = _hasher.hash("not a password anyone has")


def hash_password(password: str) -> str:
    if len(password) < 8:
        raise ValueError("a password needs at least 8 characters")
    return _hasher.hash(password)


def verify_password(stored_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(stored_hash or _DUMMY_HASH, password) and stored_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Signer:
    """Signs applicant-link ids and per-link form tokens with the app's key."""

    def __init__(self, key: str) -> None:
        self._key = key.encode("utf-8")
        self._links = link_serializer(key)

    def link_token(self, link_id: str) -> str:
        return str(self._links.dumps(link_id))

    def link_id(self, token: str) -> str | None:
        try:
            value = self._links.loads(token)
        except BadSignature:
            return None
        return value if isinstance(value, str) else None

    def form_token(self, purpose: str, subject: str) -> str:
        """A CSRF token for a form with no session (login, applicant portal)."""
        message = f"{purpose}:{subject}".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def check_form_token(self, purpose: str, subject: str, given: str) -> bool:
        return hmac.compare_digest(self.form_token(purpose, subject), given or "")
