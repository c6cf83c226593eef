"""Staff sign-in with the city's identity provider: OpenID Connect's authorization code
flow with PKCE (Entra ID, Okta, Google Workspace, Keycloak... all speak it), the role
mapped from the provider's groups (docs/security.md, "Signing in with the city's
accounts").

Authlib's httpx client runs the flow (the authorization URL with state, nonce and the
PKCE challenge; the code exchanged at the token endpoint); joserfc (Authlib's JOSE
library) checks the ID token: its signature against the provider's published keys, its
issuer, its audience (this app's client id), its expiry and the nonce of this browser's
sign-in. A token that fails any check, or whose groups map to no role, signs no one in.
The provider's metadata and keys are fetched once and kept; the keys again when a token
names one not seen (the provider rotated them).
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from typing import Any

from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet

from rules.access import STAFF_ROLES
from rules.conditions.lifecycle import DEPARTMENTS
from settings import Settings

SCOPES = "openid email profile groups"
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "ES256", "ES384"]
LEEWAY_S = 60
TIMEOUT_S = 10.0


class OidcRefused(Exception):
    """A sign-in refused: one sentence for the log-in page."""


class OidcSettingError(ValueError):
    """A CLEARANCE_OIDC_* setting that cannot be used, naming it."""


@dataclass(frozen=True)
class GroupRole:
    role: str
    department: str = ""


def group_roles(text: str) -> dict[str, GroupRole]:
    """CLEARANCE_OIDC_GROUP_ROLES: `group=role` or `group=role:department`, comma- or
    semicolon-separated; a group named twice keeps its first role."""
    out: dict[str, GroupRole] = {}
    for part in (p.strip() for p in text.replace(";", ",").split(",")):
        if not part:
            continue
        group, eq, value = part.rpartition("=")
        role, _, department = value.strip().partition(":")
        role, department, group = role.strip(), department.strip(), group.strip()
        if not eq or not group:
            raise OidcSettingError(f"CLEARANCE_OIDC_GROUP_ROLES: {part!r} is not group=role")
        if role not in STAFF_ROLES:
            raise OidcSettingError(
                f"CLEARANCE_OIDC_GROUP_ROLES: {group}: unknown role {role!r} "
                f"(roles: {', '.join(STAFF_ROLES)})"
            )
        if department and department not in DEPARTMENTS:
            raise OidcSettingError(
                f"CLEARANCE_OIDC_GROUP_ROLES: {group}: unknown department {department!r}"
            )
        if role == "department_reviewer" and not department:
            raise OidcSettingError(
                f"CLEARANCE_OIDC_GROUP_ROLES: {group}: a department_reviewer needs role:department"
            )
        out.setdefault(group, GroupRole(role, department))
    return out


def role_for(groups: list[str], mapping: dict[str, GroupRole]) -> GroupRole:
    """The role of the first mapped group, in the mapping's order (list the groups with
    the most rights first); none mapped: refused."""
    for group, role in mapping.items():
        if group in groups:
            return role
    raise OidcRefused(
        "your account is in no group that has a role in Clearance; ask an administrator "
        "to add you to one"
    )


@dataclass(frozen=True)
class Identity:
    issuer: str
    subject: str
    email: str
    name: str
    groups: list[str]


@dataclass(frozen=True)
class OidcConfig:
    issuer: str
    client_id: str
    client_secret: str
    roles: dict[str, GroupRole]
    groups_claim: str = "groups"
    name: str = "the city's sign-in"

    @classmethod
    def from_settings(cls, settings: Settings) -> OidcConfig | None:
        """None unless CLEARANCE_OIDC_ISSUER is set; then every other setting it needs."""
        if not settings.oidc_issuer:
            return None
        for name, value in (
            ("CLEARANCE_OIDC_CLIENT_ID", settings.oidc_client_id),
            ("CLEARANCE_OIDC_CLIENT_SECRET", settings.oidc_client_secret),
            ("CLEARANCE_OIDC_GROUP_ROLES", settings.oidc_group_roles),
        ):
            if not value:
                raise OidcSettingError(f"{name}: needed with CLEARANCE_OIDC_ISSUER")
        return cls(
            issuer=settings.oidc_issuer.rstrip("/"),
            client_id=settings.oidc_client_id,
            client_secret=settings.oidc_client_secret,
            roles=group_roles(settings.oidc_group_roles),
            groups_claim=settings.oidc_groups_claim or "groups",
            name=settings.oidc_provider_name or "the city's sign-in",
        )


@dataclass
class PendingLogin:
    """What this browser's sign-in must come back with (kept in a signed cookie)."""

    state: str
    nonce: str
    verifier: str
    next: str = "/"

    @classmethod
    def new(cls, next_path: str) -> PendingLogin:
        return cls(
            secrets.token_urlsafe(24),
            secrets.token_urlsafe(24),
            secrets.token_urlsafe(48),
            next_path,
        )


class OidcLogin:
    """The provider as this app sees it: its metadata and keys, the flow's two steps,
    and the ID token's checks."""

    def __init__(self, config: OidcConfig, redirect_uri: str) -> None:
        self.config = config
        self.redirect_uri = redirect_uri
        self._metadata: dict[str, Any] | None = None
        self._keys: KeySet | None = None
        self._lock = asyncio.Lock()

    def _client(self) -> Any:
        # Imported here: a deployment without a provider never loads Authlib and httpx.
        from authlib.integrations.httpx_client import (  # type: ignore[import-untyped]
            AsyncOAuth2Client,
        )

        return AsyncOAuth2Client(
            client_id=self.config.client_id,
            client_secret=self.config.client_secret,
            redirect_uri=self.redirect_uri,
            scope=SCOPES,
            code_challenge_method="S256",
            token_endpoint_auth_method="client_secret_post",
            timeout=TIMEOUT_S,
        )

    async def metadata(self) -> dict[str, Any]:
        async with self._lock:
            if self._metadata is None:
                url = f"{self.config.issuer}/.well-known/openid-configuration"
                data = await _get_json(url)
                if data.get("issuer", "").rstrip("/") != self.config.issuer:
                    raise OidcRefused(
                        f"the provider at {self.config.issuer} calls itself "
                        f"{data.get('issuer')!r}: check CLEARANCE_OIDC_ISSUER"
                    )
                self._metadata = data
            return self._metadata

    async def keys(self, refresh: bool = False) -> KeySet:
        metadata = await self.metadata()
        async with self._lock:
            if self._keys is None or refresh:
                self._keys = KeySet.import_key_set(await _get_json(metadata["jwks_uri"]))  # type: ignore[arg-type]
            return self._keys

    async def authorization_url(self, pending: PendingLogin) -> str:
        metadata = await self.metadata()
        async with self._client() as client:
            url, _ = client.create_authorization_url(
                metadata["authorization_endpoint"],
                state=pending.state,
                nonce=pending.nonce,
                code_verifier=pending.verifier,
            )
        return str(url)

    async def finish(self, pending: PendingLogin, state: str, code: str) -> Identity:
        """Exchange the code and check the ID token it brings."""
        if not secrets.compare_digest(state or "", pending.state):
            raise OidcRefused("the sign-in came back for another attempt: sign in again")
        metadata = await self.metadata()
        async with self._client() as client:
            try:
                token = await client.fetch_token(
                    metadata["token_endpoint"], code=code, code_verifier=pending.verifier
                )
            except Exception as err:  # noqa: BLE001 - the provider's refusal, one sentence
                raise OidcRefused(f"the provider refused the sign-in ({err})") from None
        id_token = token.get("id_token")
        if not isinstance(id_token, str):
            raise OidcRefused("the provider sent no ID token")
        return await self.identity(id_token, pending.nonce)

    async def identity(self, id_token: str, nonce: str) -> Identity:
        """The ID token's claims once every check holds; OidcRefused naming the one
        that fails."""
        try:
            decoded = jwt.decode(id_token, await self.keys(), algorithms=ALGORITHMS)
        except InvalidKeyIdError:
            # A key not seen yet: the provider may have rotated its keys.
            try:
                decoded = jwt.decode(id_token, await self.keys(refresh=True), algorithms=ALGORITHMS)
            except JoseError as again:
                raise OidcRefused(f"the ID token is refused: {_why(again)}") from None
        except JoseError as err:
            raise OidcRefused(f"the ID token is refused: {_why(err)}") from None
        claims = decoded.claims
        registry = jwt.JWTClaimsRegistry(
            leeway=LEEWAY_S,
            iss={"essential": True, "value": self.config.issuer},
            aud={"essential": True, "value": self.config.client_id},
            sub={"essential": True},
            exp={"essential": True},
            nonce={"essential": True, "value": nonce},
        )
        try:
            registry.validate(claims)
        except JoseError as err:
            raise OidcRefused(f"the ID token is refused: {_why(err)}") from None
        audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
        if len(audiences) > 1 and claims.get("azp") != self.config.client_id:
            raise OidcRefused("the ID token is refused: it was issued to another party (azp)")
        groups = claims.get(self.config.groups_claim) or []
        if not isinstance(groups, list):
            groups = [groups]
        email = str(claims.get("email") or "")
        if not email or claims.get("email_verified") is False:
            raise OidcRefused("the provider gave no verified e-mail address for your account")
        return Identity(
            issuer=self.config.issuer,
            subject=str(claims["sub"]),
            email=email,
            name=str(claims.get("name") or ""),
            groups=[str(g) for g in groups],
        )


def _why(err: JoseError) -> str:
    description = getattr(err, "description", "") or str(err)
    return f"{err.error}: {description}" if getattr(err, "error", "") else description


async def _get_json(url: str) -> dict[str, Any]:
    import httpx

    try:
        async with httpx.AsyncClient(timeout=TIMEOUT_S) as client:
            response = await client.get(url)
            response.raise_for_status()
            data = response.json()
    except (httpx.HTTPError, ValueError) as err:
        raise OidcRefused(f"cannot reach the identity provider ({type(err).__name__})") from None
    if not isinstance(data, dict):
        raise OidcRefused("the identity provider answered with something unexpected")
    return data
