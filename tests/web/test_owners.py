"""Every clock has an owner who can log in, and staff hand it on: the new planner is on
the application's page and in the read model; someone who cannot log in is refused."""

from __future__ import annotations

from tests.web.helpers import Browser, Stackish, csrf_of

PM = "pm@cotati.example"


def test_a_wireless_application_is_handed_to_another_planner(
    browser: Browser, stack: Stackish
) -> None:
    app_id = stack.new_clock(prefix="OWN")
    client = browser.as_(PM)
    page = client.get(f"/applications/{app_id}")
    token = csrf_of(page.text)
    refused = client.post(
        f"/applications/{app_id}/owner", data={"csrf_token": token, "email": "nobody@x.example"}
    )
    assert refused.status_code == 400
    assert "nobody@x.example is not a user who can log in" in refused.text
    done = client.post(
        f"/applications/{app_id}/owner",
        data={"csrf_token": token, "email": "manager@cotati.example"},
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text
    page = client.get(f"/applications/{app_id}").text
    assert 'data-testid="application-planner">manager@cotati.example<' in page
