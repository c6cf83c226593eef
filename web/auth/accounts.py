"""Users, sessions, API tokens, calendar tokens and applicant links in the database.

Used by the web app and by `clearance users ...`; every secret is kept only as its hash.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete, select
from sqlalchemy.orm import Session, sessionmaker

from models.addresses import BadAddress, normalise_address
from models.database import session_factory
from models.schema import (
    ApiToken,
    ApplicantLink,
    Application,
    CalendarToken,
    Project,
    User,
    WebSession,
)
from models.scope import role_here
from rules.access import STAFF_ROLES, Principal
from rules.conditions.lifecycle import DEPARTMENTS
from web.auth.passwords import WeakPassword, check_password
from web.auth.security import hash_password, new_token, token_hash, verify_password

SESSION_DAYS = 7
DEFAULT_IDLE_MINUTES = 30
# last_seen_at is written at most this often: not a database write per page view.
TOUCH_EVERY = timedelta(minutes=1)


def now() -> datetime:
    return datetime.now(UTC)


def aware(value: datetime) -> datetime:
    """SQLite hands back naive datetimes: they were stored as UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class AccountError(ValueError):
    """Bad input for a user or a link; the message names what is wrong."""


@dataclass(frozen=True)
class CurrentUser:
    id: int
    email: str
    role: str
    department: str
    display_name: str

    @property
    def principal(self) -> Principal:
        """Who is asking; about an object of a city where the user holds another role,
        with that role (models/scope.py, set by web.deps.jurisdiction_scope)."""
        here = role_here(self.id)
        if here is not None:
            return Principal(self.email, *here)
        return Principal(self.email, self.role, self.department)


@dataclass(frozen=True)
class SessionInfo:
    user: CurrentUser
    csrf_token: str


def _hashed(password: str, *user_inputs: str) -> str:
    """The hash of a new password, if the policy (web/auth/passwords.py) accepts it."""
    try:
        check_password(password, user_inputs)
        return hash_password(password)
    except (WeakPassword, ValueError) as err:
        raise AccountError(str(err)) from None


def _end_sessions(session: Session, user_id: int, token_reason: str) -> None:
    """Every session of the user ends, and every API token of theirs still live is revoked
    with the reason given (one of TOKEN_REVOKED_WHY)."""
    session.execute(delete(WebSession).where(WebSession.user_id == user_id))
    moment = now()
    for row in session.scalars(
        select(ApiToken).where(ApiToken.user_id == user_id, ApiToken.revoked_at.is_(None))
    ):
        row.revoked_at = moment
        row.revoked_reason = token_reason


# A token is named in pages by the first characters of its hash (never by the secret).
TOKEN_ID_CHARS = 16
# Scopes: a read token may only read (GET); an act token may also act.
TOKEN_SCOPES = ("read", "act")
# Expiry is chosen when a token is made; there is no "never".
TOKEN_DAYS = (7, 30, 90, 365)
DEFAULT_TOKEN_DAYS = 90
# Why a token was revoked, in words for the tokens page and the API's 401.
TOKEN_REVOKED_WHY = {
    "": "revoked",
    "revoked": "revoked by you",
    "logout": "revoked by clearance logout",
    "password_changed": "revoked when your password was changed",
    "password_reset": "revoked when your password was reset",
    "account_disabled": "revoked when your account was disabled",
}


@dataclass(frozen=True)
class ApiTokenInfo:
    token_id: str
    label: str
    created_at: datetime
    revoked_at: datetime | None
    scope: str = "act"
    expires_at: datetime | None = None
    last_used_at: datetime | None = None
    revoked_reason: str = ""

    @property
    def state(self) -> str:
        """active, expired or revoked."""
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= now():
            return "expired"
        return "active"

    @property
    def why(self) -> str:
        """Why the token no longer works, in words ("" while it works)."""
        if self.revoked_at is not None:
            why = TOKEN_REVOKED_WHY.get(self.revoked_reason, "revoked")
            return f"{why} on {self.revoked_at:%Y-%m-%d}"
        if self.state == "expired" and self.expires_at is not None:
            return f"expired on {self.expires_at:%Y-%m-%d}"
        return ""


@dataclass(frozen=True)
class TokenUse:
    """What a presented API token allows: its user and scope, or why it is refused."""

    user: CurrentUser | None
    scope: str = ""
    refused: str = ""


def _current(user: User) -> CurrentUser:
    return CurrentUser(user.id, user.email, user.role, user.department, user.display_name)


USER_COLUMNS = ("email", "role", "department", "display_name", "password")
MAX_USERS_FILE_BYTES = 5 * 1024 * 1024


def read_users_csv(data: bytes) -> list[tuple[int, dict[str, str]]]:
    """The rows of a users CSV file (row number, {column: value}), or AccountError in one
    sentence (the file as a whole: its size, encoding or header)."""
    import csv

    if len(data) > MAX_USERS_FILE_BYTES:
        raise AccountError("the users file is larger than 5 MB (it is a few KB)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AccountError("the users file is not UTF-8 text: save it as CSV UTF-8") from None
    reader = csv.DictReader(text.splitlines())
    header = [h.strip().lower() for h in reader.fieldnames or []]
    if "email" not in header or "role" not in header or set(header) - set(USER_COLUMNS):
        raise AccountError(
            "row 1: the columns are email, role and optionally department, display_name, password"
        )
    return [
        (n, {k.strip().lower(): (v or "").strip() for k, v in row.items() if k})
        for n, row in enumerate(reader, start=2)
    ]


class Accounts:
    def __init__(self, engine: Engine, idle_minutes: int = DEFAULT_IDLE_MINUTES) -> None:
        self._sessions: sessionmaker[Session] = session_factory(engine)
        self.idle = timedelta(minutes=idle_minutes)

    # -- users --------------------------------------------------------------------------

    def add_user(
        self,
        email: str,
        role: str,
        password: str,
        department: str = "",
        display_name: str = "",
        replace: bool = False,
    ) -> CurrentUser:
        try:  # a user's address is kept all in lower case: it is the login
            email = normalise_address(email, "email", required=True).lower()
        except BadAddress as err:
            raise AccountError(str(err)) from None
        if role not in STAFF_ROLES:
            raise AccountError(f"unknown role {role!r}; roles: {', '.join(STAFF_ROLES)}")
        if role == "department_reviewer" and not department:
            raise AccountError("a department_reviewer needs a department (--department)")
        if department and department not in DEPARTMENTS:
            raise AccountError(
                f"unknown department {department!r}; departments: {', '.join(DEPARTMENTS)}"
            )
        hashed = _hashed(password, email, display_name)
        with self._sessions.begin() as session:
            user = session.scalar(select(User).where(User.email == email))
            if user is not None and not replace:
                raise AccountError(f"a user {email} already exists")
            if user is None:
                user = User(email=email, created_at=now())
                session.add(user)
            if user.id is not None:
                # A reset: whoever held a session or a token with the old password is
                # logged out.
                _end_sessions(session, user.id, "password_reset")
            user.password_hash = hashed
            user.role = role
            user.department = department
            user.display_name = display_name
            user.active = True
            session.flush()
            return _current(user)

    def list_users(self) -> list[User]:
        with self._sessions() as session:
            return list(session.scalars(select(User).order_by(User.email)))

    def get_user(self, email: str) -> User | None:
        with self._sessions() as session:
            return session.scalar(select(User).where(User.email == email.strip().lower()))

    def set_active(self, email: str, active: bool) -> None:
        with self._sessions.begin() as session:
            user = session.scalar(select(User).where(User.email == email.strip().lower()))
            if user is None:
                raise AccountError(f"no user {email}")
            user.active = active
            if not active:
                _end_sessions(session, user.id, "account_disabled")

    def change_password(self, user_id: int, current: str, new: str) -> None:
        """The user's own change: the current password must be right. Every session of
        theirs ends (the caller starts a fresh one for the browser that asked)."""
        with self._sessions.begin() as session:
            user = session.get(User, user_id)
            if user is None or not user.active:
                raise AccountError("no such user")
            if not verify_password(user.password_hash, current):
                raise AccountError("the current password is not right")
            if new == current:
                raise AccountError("the new password is the same as the current one")
            user.password_hash = _hashed(new, user.email, user.display_name)
            _end_sessions(session, user.id, "password_changed")

    def reset_password(self, email: str, new: str) -> None:
        """An administrator's reset: every session of the user ends."""
        with self._sessions.begin() as session:
            user = session.scalar(select(User).where(User.email == email.strip().lower()))
            if user is None:
                raise AccountError(f"no user {email}")
            user.password_hash = _hashed(new, user.email, user.display_name)
            _end_sessions(session, user.id, "password_reset")

    def authenticate(self, email: str, password: str) -> CurrentUser | None:
        with self._sessions() as session:
            user = session.scalar(select(User).where(User.email == email.strip().lower()))
        stored = user.password_hash if user is not None and user.active else None
        if not verify_password(stored, password) or user is None:
            return None
        return _current(user)

    def import_users(
        self, rows: list[tuple[int, dict[str, str]]], replace: bool = False
    ) -> tuple[list[str], list[str], list[str]]:
        """Users from a CSV file's rows (row number, {email, role, department,
        display_name, password}): (added, already there, errors by row and column). The
        whole file is checked first; with any error nothing is added. An empty password
        makes an account that signs in through the city's identity provider (or gets a
        password from an administrator). An existing user is left as is, unless
        `replace` (then their role, department and name follow the file)."""
        errors: list[str] = []
        seen: dict[str, int] = {}
        users: list[tuple[str, dict[str, str]]] = []
        for number, row in rows:
            for column, value in row.items():
                if (value or "").startswith(("=", "+", "-", "@", "\t", "\r")):
                    errors.append(f"row {number}, column {column}: a formula cell is refused")
            try:
                email = normalise_address(row.get("email"), "email", required=True).lower()
            except BadAddress as err:
                errors.append(f"row {number}, column email: {str(err).removeprefix('email: ')}")
                continue
            if email in seen:
                errors.append(f"row {number}, column email: {email} is also on row {seen[email]}")
                continue
            seen[email] = number
            role, department = row.get("role", "").strip(), row.get("department", "").strip()
            if role not in STAFF_ROLES:
                errors.append(
                    f"row {number}, column role: {role!r} is not one of {', '.join(STAFF_ROLES)}"
                )
            if department and department not in DEPARTMENTS:
                errors.append(f"row {number}, column department: unknown {department!r}")
            if role == "department_reviewer" and not department:
                errors.append(f"row {number}, column department: a reviewer needs one")
            password = row.get("password", "")
            if password:
                try:
                    _hashed(password, email, row.get("display_name", ""))
                except AccountError as err:
                    errors.append(f"row {number}, column password: {err}")
            users.append((email, row))
        if errors:
            return [], [], errors
        added: list[str] = []
        existing: list[str] = []
        with self._sessions.begin() as session:
            for email, row in users:
                user = session.scalar(select(User).where(User.email == email))
                if user is not None and not replace:
                    existing.append(email)
                    continue
                if user is None:
                    user = User(
                        email=email, created_at=now(), active=True, password_hash="!external"
                    )
                    session.add(user)
                    added.append(email)
                else:
                    existing.append(email)
                user.role = row.get("role", "").strip()
                user.department = row.get("department", "").strip()
                user.display_name = row.get("display_name", "").strip() or user.display_name or ""
                if row.get("password"):
                    user.password_hash = _hashed(row["password"], email, user.display_name)
        return added, existing, errors

    def sign_in_external(
        self,
        issuer: str,
        subject: str,
        email: str,
        display_name: str,
        role: str,
        department: str = "",
    ) -> CurrentUser:
        """A staff member signed in by the city's identity provider (web/auth/oidc.py):
        found by the provider's subject, else by their verified address (an account made
        with a password, or imported); else added. The role and department follow the
        provider's groups at every sign-in. A disabled account stays out."""
        from models.schema import ExternalIdentity

        email = email.strip().lower()
        with self._sessions.begin() as session:
            link = session.scalar(
                select(ExternalIdentity).where(
                    ExternalIdentity.issuer == issuer, ExternalIdentity.subject == subject
                )
            )
            user = session.get(User, link.user_id) if link is not None else None
            if user is None:
                user = session.scalar(select(User).where(User.email == email))
            if user is None:
                user = User(
                    email=email,
                    # No password: this account signs in through the provider (an
                    # administrator's reset can give it one).
                    password_hash="!external",
                    display_name=display_name,
                    active=True,
                    created_at=now(),
                )
                session.add(user)
            if not user.active:
                raise AccountError(f"{user.email} is disabled: ask an administrator")
            user.role, user.department = role, department
            user.display_name = user.display_name or display_name
            session.flush()
            if link is None:
                link = ExternalIdentity(
                    issuer=issuer, subject=subject, user_id=user.id, created_at=now()
                )
                session.add(link)
            link.last_login_at = now()
            session.flush()
            return _current(user)

    # -- sessions -----------------------------------------------------------------------

    def start_session(self, user: CurrentUser) -> str:
        token = new_token()
        with self._sessions.begin() as session:
            # Expired sessions are removed as new ones start (no separate cleanup job).
            session.execute(delete(WebSession).where(WebSession.expires_at <= now()))
            session.add(
                WebSession(
                    token_hash=token_hash(token),
                    user_id=user.id,
                    csrf_token=secrets.token_urlsafe(32),
                    created_at=now(),
                    last_seen_at=now(),
                    expires_at=now() + timedelta(days=SESSION_DAYS),
                )
            )
        return token

    def session_for(self, token: str) -> SessionInfo | None:
        """The session if it is live: not expired, not idle past the timeout (then it is
        removed), its user active. Using it keeps it alive."""
        if not token:
            return None
        moment = now()
        with self._sessions.begin() as session:
            row = session.get(WebSession, token_hash(token))
            if row is None or aware(row.expires_at) <= moment:
                return None
            seen = aware(row.last_seen_at or row.created_at)
            if moment - seen > self.idle:
                session.delete(row)
                return None
            user = session.get(User, row.user_id)
            if user is None or not user.active:
                return None
            if moment - seen >= TOUCH_EVERY:
                row.last_seen_at = moment
            return SessionInfo(_current(user), row.csrf_token)

    def end_session(self, token: str) -> None:
        with self._sessions.begin() as session:
            row = session.get(WebSession, token_hash(token))
            if row is not None:
                session.delete(row)

    # -- API and calendar tokens --------------------------------------------------------

    def new_api_token(
        self, email: str, label: str = "", scope: str = "act", days: int = DEFAULT_TOKEN_DAYS
    ) -> str:
        """A new token for the user, with its scope and its days until it expires."""
        if scope not in TOKEN_SCOPES:
            raise AccountError(f"unknown scope {scope!r}; scopes: {', '.join(TOKEN_SCOPES)}")
        if days not in TOKEN_DAYS:
            choices = ", ".join(str(d) for d in TOKEN_DAYS)
            raise AccountError(f"a token expires after {choices} days, not {days}")
        user = self.get_user(email)
        if user is None:
            raise AccountError(f"no user {email}")
        token = new_token()
        moment = now()
        with self._sessions.begin() as session:
            session.add(
                ApiToken(
                    token_hash=token_hash(token),
                    user_id=user.id,
                    label=label,
                    created_at=moment,
                    scope=scope,
                    expires_at=moment + timedelta(days=days),
                    revoked_reason="",
                )
            )
        return token

    def api_tokens(self, user_id: int) -> list[ApiTokenInfo]:
        """A user's personal access tokens, newest first (never the secret itself)."""
        with self._sessions() as session:
            rows = session.scalars(
                select(ApiToken)
                .where(ApiToken.user_id == user_id)
                .order_by(ApiToken.created_at.desc())
                .limit(100)
            )
            return [
                ApiTokenInfo(
                    token_id=row.token_hash[:TOKEN_ID_CHARS],
                    label=row.label,
                    created_at=aware(row.created_at),
                    revoked_at=aware(row.revoked_at) if row.revoked_at else None,
                    scope=row.scope,
                    expires_at=aware(row.expires_at),
                    last_used_at=aware(row.last_used_at) if row.last_used_at else None,
                    revoked_reason=row.revoked_reason,
                )
                for row in rows
            ]

    def revoke_api_token(self, user_id: int, token_id: str) -> None:
        """Revoke one of the user's own tokens, named by its id (a prefix of its hash)."""
        if len(token_id) != TOKEN_ID_CHARS or not all(c in "0123456789abcdef" for c in token_id):
            raise AccountError(f"no token {token_id!r}")
        with self._sessions.begin() as session:
            row = session.scalar(
                select(ApiToken).where(
                    ApiToken.user_id == user_id, ApiToken.token_hash.startswith(token_id)
                )
            )
            if row is None:
                raise AccountError(f"no token {token_id!r}")
            if row.revoked_at is None:
                row.revoked_at = now()
                row.revoked_reason = "revoked"

    def revoke_api_token_value(self, token: str) -> None:
        """Revoke the token presented (`clearance logout`)."""
        with self._sessions.begin() as session:
            row = session.get(ApiToken, token_hash(token))
            if row is not None and row.revoked_at is None:
                row.revoked_at = now()
                row.revoked_reason = "logout"

    def use_api_token(self, token: str, touch: bool = True) -> TokenUse:
        """The user and scope of a live token (its last use is recorded, at most once a
        minute, unless ``touch`` is False: only looking), or why it is refused: unknown,
        revoked (and why), expired, or its account disabled."""
        moment = now()
        with self._sessions.begin() as session:
            row = session.get(ApiToken, token_hash(token))
            if row is None:
                return TokenUse(None, refused="that token is not valid")
            if row.revoked_at is not None:
                why = TOKEN_REVOKED_WHY.get(row.revoked_reason, "revoked")
                return TokenUse(
                    None,
                    refused=f"that token was {why} on {aware(row.revoked_at):%Y-%m-%d}: "
                    "log in again (clearance login) or make a new token",
                )
            expires = aware(row.expires_at)
            if expires <= moment:
                return TokenUse(
                    None,
                    refused=f"that token expired on {expires:%Y-%m-%d %H:%M} UTC: "
                    "log in again (clearance login) or make a new token",
                )
            user = session.get(User, row.user_id)
            if user is None or not user.active:
                return TokenUse(None, refused="that token's account is disabled")
            seen = aware(row.last_used_at) if row.last_used_at else None
            if touch and (seen is None or moment - seen >= TOUCH_EVERY):
                row.last_used_at = moment
            return TokenUse(_current(user), scope=row.scope)

    def user_for_api_token(self, token: str) -> CurrentUser | None:
        return self.use_api_token(token).user

    def new_calendar_token(self, user_id: int) -> str:
        """A fresh feed address; the previous one stops working."""
        token = new_token()
        with self._sessions.begin() as session:
            for row in session.scalars(
                select(CalendarToken).where(
                    CalendarToken.user_id == user_id, CalendarToken.revoked_at.is_(None)
                )
            ):
                row.revoked_at = now()
            session.add(
                CalendarToken(token_hash=token_hash(token), user_id=user_id, created_at=now())
            )
        return token

    def user_for_calendar_token(self, token: str) -> CurrentUser | None:
        with self._sessions() as session:
            row = session.get(CalendarToken, token_hash(token))
            if row is None or row.revoked_at is not None:
                return None
            user = session.get(User, row.user_id)
            return _current(user) if user is not None and user.active else None

    def has_calendar_token(self, user_id: int) -> bool:
        with self._sessions() as session:
            return (
                session.scalar(
                    select(CalendarToken.token_hash).where(
                        CalendarToken.user_id == user_id, CalendarToken.revoked_at.is_(None)
                    )
                )
                is not None
            )

    # -- applicant links ----------------------------------------------------------------

    def create_link(
        self, scope: str, scope_id: str, created_by: str, days: int, email: str = ""
    ) -> ApplicantLink:
        if scope not in ("project", "application"):
            raise AccountError("a link is for a project or an application")
        if days <= 0:
            raise AccountError("a link must be valid for at least one day")
        try:
            email = normalise_address(email, "email")
        except BadAddress as err:
            raise AccountError(str(err)) from None
        with self._sessions.begin() as session:
            model = Project if scope == "project" else Application
            if session.get(model, scope_id) is None:
                raise AccountError(f"no {scope} {scope_id!r}")
            link = ApplicantLink(
                link_id=secrets.token_urlsafe(12),
                scope=scope,
                scope_id=scope_id,
                email=email,
                created_by=created_by,
                created_at=now(),
                expires_at=now() + timedelta(days=days),
            )
            session.add(link)
        return link

    def links_for(self, scope: str, scope_id: str) -> list[ApplicantLink]:
        with self._sessions() as session:
            return list(
                session.scalars(
                    select(ApplicantLink)
                    .where(ApplicantLink.scope == scope, ApplicantLink.scope_id == scope_id)
                    .order_by(ApplicantLink.created_at.desc())
                    .limit(50)
                )
            )

    def get_link(self, link_id: str) -> ApplicantLink | None:
        with self._sessions() as session:
            return session.get(ApplicantLink, link_id)

    def revoke_link(self, link_id: str, by: str) -> ApplicantLink:
        with self._sessions.begin() as session:
            link = session.get(ApplicantLink, link_id)
            if link is None:
                raise AccountError(f"no applicant link {link_id!r}")
            if link.revoked_at is None:
                link.revoked_at = now()
                link.revoked_by = by
            return link

    def live_link(self, link_id: str) -> tuple[ApplicantLink | None, str]:
        """The link if it may be used now, else None and why not."""
        link = self.get_link(link_id)
        if link is None:
            return None, "This link is not valid."
        if link.revoked_at is not None:
            return (
                None,
                "This link was revoked by the city. Ask your project contact for a new one.",
            )
        if aware(link.expires_at) <= now():
            return None, (
                f"This link expired on {aware(link.expires_at):%Y-%m-%d}. "
                "Ask your project contact for a new one."
            )
        return link, ""


def link_state(link: ApplicantLink) -> str:
    if link.revoked_at is not None:
        return "revoked"
    if aware(link.expires_at) <= now():
        return "expired"
    return "active"
