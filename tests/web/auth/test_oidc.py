"""Signing in with the city's identity provider, against a real OpenID Connect provider
(the npm `oidc-provider`, tests/oidc/provider.py) the tests start: a planner in the
`planners` group signs in and lands on their page as a project manager, someone in no
mapped group is refused, local passwords still work; and an ID token with a wrong
audience, a wrong issuer, a bad signature, another sign-in's nonce or an expiry in the
past is refused."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urljoin, urlparse

import httpx
import pytest
from fastapi.testclient import TestClient

from settings import Settings
from tests.oidc.provider import Provider, running_provider, unavailable
from tests.web.helpers import Browser
from web.app import create_app
from web.auth.oidc import (
    OidcConfig,
    OidcLogin,
    OidcRefused,
    OidcSettingError,
    PendingLogin,
    group_roles,
    role_for,
)

CALLBACK = "http://testserver/login/oidc/callback"


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Provider]:
    why = unavailable()
    if why:
        pytest.skip(why)
    with running_provider(CALLBACK, tmp_path_factory.mktemp("oidc") / "provider.log") as p:
        yield p


@pytest.fixture(scope="module")
def city_app(web_settings: Settings, provider: Provider) -> Iterator[TestClient]:
    env = provider.env()
    settings = dataclasses.replace(
        web_settings,
        oidc_issuer=env["CLEARANCE_OIDC_ISSUER"],
        oidc_client_id=env["CLEARANCE_OIDC_CLIENT_ID"],
        oidc_client_secret=env["CLEARANCE_OIDC_CLIENT_SECRET"],
        oidc_group_roles=env["CLEARANCE_OIDC_GROUP_ROLES"],
        oidc_provider_name=env["CLEARANCE_OIDC_PROVIDER_NAME"],
    )
    with TestClient(create_app(settings), base_url="http://testserver") as client:
        yield client


def provider_sign_in(authorization_url: str, login: str) -> dict[str, str]:
    """Drive the provider's own log-in form as a browser would; the query it sends back."""
    with httpx.Client(follow_redirects=False, timeout=20) as browser:
        url = authorization_url
        for _ in range(10):
            response = browser.get(url)
            if response.status_code in (302, 303):
                url = urljoin(url, response.headers["location"])
                if url.startswith(CALLBACK):
                    return {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}
                continue
            form = re.search(r'<form[^>]*action="([^"]+)"', response.text)
            assert form, response.text[:500]
            posted = browser.post(
                urljoin(url, form.group(1)),
                data={"prompt": "login", "login": login, "password": "any"},
            )
            assert posted.status_code in (302, 303), posted.text[:500]
            url = urljoin(url, posted.headers["location"])
    raise AssertionError("the provider never sent the browser back")


def sign_in(client: TestClient, login: str) -> Any:
    client.cookies.clear()
    start = client.get("/login/oidc?next=/inbox", follow_redirects=False)
    assert start.status_code == 303, start.text
    back = provider_sign_in(start.headers["location"], login)
    return client.get("/login/oidc/callback", params=back, follow_redirects=False)


def test_a_planner_signs_in_with_the_city_account_and_lands_in_their_inbox(
    city_app: TestClient,
) -> None:
    login_page = city_app.get("/login")
    assert 'data-testid="login-oidc"' in login_page.text and "Cotati accounts" in login_page.text
    done = sign_in(city_app, "pat")
    assert done.status_code == 303 and done.headers["location"] == "/inbox", done.text
    me = city_app.get("/me")
    assert "pat.planner@cotati.example" in me.text
    assert "project manager" in me.text.lower()
    # Signing in again finds the same account (by the provider's subject).
    assert sign_in(city_app, "pat").status_code == 303
    # The manager's first matching group gives the role, in the mapping's order.
    assert sign_in(city_app, "morgan").status_code == 303
    assert "planning manager" in city_app.get("/me").text.lower()


def test_no_known_group_signs_no_one_in(city_app: TestClient) -> None:
    refused = sign_in(city_app, "casey")
    assert refused.status_code == 401
    assert "no group that has a role" in refused.text
    assert city_app.get("/me", follow_redirects=False).status_code in (302, 303, 401)


def test_local_passwords_still_work_beside_it(city_app: TestClient) -> None:
    browser = Browser(city_app)
    assert browser.login("admin@cotati.example")


def test_a_callback_without_this_browsers_sign_in_is_refused(city_app: TestClient) -> None:
    city_app.cookies.clear()
    refused = city_app.get("/login/oidc/callback?code=x&state=y", follow_redirects=False)
    assert refused.status_code == 401 and "expired or came from elsewhere" in refused.text


def _real_id_token(provider: Provider) -> tuple[str, str]:
    """A real ID token the provider issued to this app, and its nonce."""
    from authlib.integrations.httpx_client import AsyncOAuth2Client  # type: ignore[import-untyped]

    login = OidcLogin(
        OidcConfig(provider.issuer, provider.client_id, provider.client_secret, {}), CALLBACK
    )
    pending = PendingLogin.new("/")

    async def go() -> str:
        url = await login.authorization_url(pending)
        back = await asyncio.to_thread(provider_sign_in, url, "pat")
        metadata = await login.metadata()
        async with AsyncOAuth2Client(
            provider.client_id,
            provider.client_secret,
            redirect_uri=CALLBACK,
            token_endpoint_auth_method="client_secret_post",
        ) as client:
            token = await client.fetch_token(
                metadata["token_endpoint"], code=back["code"], code_verifier=pending.verifier
            )
        return str(token["id_token"])

    return asyncio.run(go()), pending.nonce


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("nothing", ""),
        ("audience", "'aud'"),
        ("issuer", "'iss'"),
        ("signature", "bad_signature"),
        ("nonce", "'nonce'"),
    ],
)
def test_id_tokens_are_checked(provider: Provider, change: str, why: str) -> None:
    token, nonce = _real_id_token(provider)
    issuer, audience = provider.issuer, provider.client_id
    if change == "audience":
        audience = "another-app"
    elif change == "issuer":
        issuer = provider.issuer.replace("127.0.0.1", "localhost")
    elif change == "signature":
        head, body, signature = token.split(".")
        token = ".".join([head, body, ("A" if signature[0] != "A" else "B") + signature[1:]])
    elif change == "nonce":
        nonce = "another-sign-in"
    login = OidcLogin(OidcConfig(issuer, audience, "secret", {}), CALLBACK)
    # The provider's real keys and metadata, whatever the issuer this app expects.
    real = OidcLogin(OidcConfig(provider.issuer, audience, "secret", {}), CALLBACK)
    login._metadata = asyncio.run(real.metadata())
    if change == "nothing":
        identity = asyncio.run(login.identity(token, nonce))
        assert (identity.email, identity.groups) == ("pat.planner@cotati.example", ["planners"])
        return
    with pytest.raises(OidcRefused, match=why):
        asyncio.run(login.identity(token, nonce))


def test_an_expired_id_token_is_refused() -> None:
    import time

    from joserfc import jwt
    from joserfc.jwk import KeySet, RSAKey

    key = RSAKey.generate_key(2048, parameters={"kid": "k1"})
    login = OidcLogin(OidcConfig("https://id.city.example", "clearance", "s", {}), CALLBACK)
    login._metadata = {"jwks_uri": "unused"}
    login._keys = KeySet([key])
    now = int(time.time())
    claims = {"iss": "https://id.city.example", "aud": "clearance", "sub": "1", "nonce": "n",
              "email": "a@city.example", "iat": now - 7200, "exp": now - 3600}  # fmt: skip
    token = jwt.encode({"alg": "RS256", "kid": "k1"}, claims, key)
    with pytest.raises(OidcRefused, match="expired"):
        asyncio.run(login.identity(token, "n"))


def test_the_group_mapping_is_checked_when_the_app_starts() -> None:
    assert group_roles("a=admin, b=department_reviewer:fire")["b"].department == "fire"
    for bad, words in (
        ("planners", "not group=role"),
        ("planners=mayor", "unknown role 'mayor'"),
        ("reviewers=department_reviewer", "needs role:department"),
        ("fire=department_reviewer:arson", "unknown department"),
    ):
        with pytest.raises(OidcSettingError, match=words):
            group_roles(bad)
    mapping = group_roles("managers=planning_manager,planners=project_manager")
    assert role_for(["planners", "managers"], mapping).role == "planning_manager"
    with pytest.raises(OidcRefused):
        role_for(["clerks"], mapping)
