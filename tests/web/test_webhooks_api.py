"""Webhook subscriptions through the API: administrators only; the secret shown once;
https, or http to this machine only; never a private address."""

from __future__ import annotations

from tests.web.helpers import Browser

ADMIN = "admin@cotati.example"


def test_subscribe_list_and_disable(browser: Browser) -> None:
    made = browser.api(
        ADMIN, "POST", "/api/v1/webhooks",
        {"url": "http://127.0.0.1:9/hooks", "events": ["clock.lapsed", "clock.lapsed"]},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["events"] == ["clock.lapsed"] and len(body["secret"]) >= 32
    listed = browser.api(ADMIN, "GET", "/api/v1/webhooks").json()["items"]
    mine = next(s for s in listed if s["id"] == body["id"])
    assert "secret" not in mine and mine["active"] is True
    off = browser.api(ADMIN, "POST", f"/api/v1/webhooks/{body['id']}/disable")
    assert off.status_code == 200 and off.json()["active"] is False


def test_refused_subscriptions(browser: Browser) -> None:
    for url, why in (
        ("http://integrator.example/hooks", "use https"),
        ("https://10.1.2.3/hooks", "not a public address"),
        ("https://169.254.169.254/latest", "not a public address"),
        ("ftp://integrator.example", "an https address"),
    ):
        answer = browser.api(ADMIN, "POST", "/api/v1/webhooks", {"url": url})
        assert answer.status_code == 400 and why in answer.json()["error"], (url, answer.text)
    pm = browser.api("pm@cotati.example", "POST", "/api/v1/webhooks", {"url": "https://a.example"})
    assert pm.status_code == 403
