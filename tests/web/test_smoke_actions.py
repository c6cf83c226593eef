"""A first vertical slice: record a notice through the page and see the new date."""

from __future__ import annotations

from tests.web.helpers import Browser, Stackish, csrf_of


def test_notice_builder_preview_then_send(browser: Browser, stack: Stackish) -> None:
    app_id = stack.new_clock(days_ago=10)
    client = browser.as_("pm@cotati.example")
    page = client.get(f"/applications/{app_id}/notice")
    assert page.status_code == 200
    form = {
        "csrf_token": csrf_of(page.text),
        "use_0": "1",
        "id_0": "A",
        "text_0": "RF emissions report",
        "rule_0": "CMC 17.44.070(A)",
        "step": "preview",
    }
    preview = client.post(f"/applications/{app_id}/notice", data=form)
    assert preview.status_code == 200, preview.text
    assert 'data-testid="notice-letter"' in preview.text
    assert "RF emissions report" in preview.text
    sent = client.post(f"/applications/{app_id}/notice", data={**form, "step": "send"})
    assert sent.status_code == 200, sent.text
    assert 'class="flash ok"' in sent.text
    assert "tolled" in sent.text
