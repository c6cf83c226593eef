"""The app's signing key and the applicant-link token, shared by the web app (which
checks a link) and the worker (which puts a link in every letter to an applicant).
Both must use the same key: CLEARANCE_SECRET_KEY, or the key kept in the data folder."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from itsdangerous import BadSignature, URLSafeSerializer

from settings import Settings

LINK_SALT = "applicant-link"


def secret_key(settings: Settings) -> str:
    """CLEARANCE_SECRET_KEY, or a key generated once and kept in the data folder."""
    if settings.secret_key:
        return settings.secret_key
    path = Path(settings.data_dir) / "secret_key"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return path.read_text().strip()
    with os.fdopen(fd, "w") as out:
        out.write(key)
    return key


def link_serializer(key: str) -> URLSafeSerializer:
    return URLSafeSerializer(key, salt=LINK_SALT)


def link_token(key: str, link_id: str) -> str:
    return str(link_serializer(key).dumps(link_id))


def link_id_of(key: str, token: str) -> str | None:
    try:
        value = link_serializer(key).loads(token)
    except BadSignature:
        return None
    return value if isinstance(value, str) else None


def portal_url(public_url: str, key: str, link_id: str) -> str:
    """The address an applicant opens: the public URL setting, never a request's host."""
    return f"{public_url.rstrip('/')}/a/{link_token(key, link_id)}"
