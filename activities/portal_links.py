"""The signed portal link every letter to an applicant carries.

The notice activity asks for it just before it renders a letter whose recipients
include the applicant. A live link the city already gave that applicant for the record
is reused; otherwise one is made, with an id derived from the notice key, so a retried
activity finds the link its first attempt stored instead of making a second. The
address is built from CLEARANCE_PUBLIC_URL, never from a request's host.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, insert, select

from models.schema import ApplicantLink
from operations.signing import portal_url

# A link reused for a letter must stay usable for a while after the letter arrives.
REUSE_IF_VALID_FOR = timedelta(days=7)
CREATED_BY = "clearance (letter to the applicant)"


@dataclass(frozen=True)
class PortalScope:
    """What the applicant's link opens: a project's or an application's portal page."""

    scope: str  # project | application | permit
    scope_id: str
    email: str


class PortalLinks:
    def __init__(self, engine: Engine, public_url: str, key: str, days: int) -> None:
        self._engine = engine
        self._public_url = public_url
        self._key = key
        self._days = max(int(days), 8)

    def url_for(self, where: PortalScope, notice_key: str) -> str:
        """The portal address for `where`, made once per notice key."""
        return portal_url(self._public_url, self._key, self._link_id(where, notice_key))

    def _link_id(self, where: PortalScope, notice_key: str) -> str:
        now = datetime.now(UTC)
        email = where.email.strip()
        with self._engine.begin() as conn:
            live = conn.execute(
                select(ApplicantLink.link_id)
                .where(
                    ApplicantLink.scope == where.scope,
                    ApplicantLink.scope_id == where.scope_id,
                    ApplicantLink.email == email,
                    ApplicantLink.revoked_at.is_(None),
                    ApplicantLink.expires_at > now + REUSE_IF_VALID_FOR,
                )
                .order_by(ApplicantLink.expires_at.desc())
                .limit(1)
            ).scalar()
            if live is not None:
                return str(live)
            digest = hashlib.sha256(f"{self._key}\n{notice_key}".encode()).digest()
            link_id = "l-" + base64.urlsafe_b64encode(digest[:12]).decode().rstrip("=")
            found = conn.execute(
                select(ApplicantLink.link_id).where(ApplicantLink.link_id == link_id)
            ).scalar()
            if found is None:
                conn.execute(
                    insert(ApplicantLink).values(
                        link_id=link_id,
                        scope=where.scope,
                        scope_id=where.scope_id,
                        email=email,
                        created_by=CREATED_BY,
                        created_at=now,
                        expires_at=now + timedelta(days=self._days),
                        revoked_at=None,
                        revoked_by="",
                    )
                )
            return link_id
