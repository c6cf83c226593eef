"""A running clock keeps the version of its city it was opened under: a closure day the
administrator adds later does not move its dates, until an audited rebase, which moves
them with a ledger line naming the version and the reason (a real Temporal server and
worker; the city is one an administrator set up)."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta
from typing import Any

import pendulum

from actions.layer import Actions
from actions.temporal import Gateway
from models.database import make_engine
from rules.access import Principal
from rules.kernel.calendars import ALL
from rules.kernel.jurisdictions import parse_jurisdiction
from settings import Settings
from tests.rules.kernel.test_jurisdiction_documents import sample
from tests.web.helpers import Browser

ADMIN = "admin@cotati.example"


def save(settings: Settings, doc: dict[str, Any], **kwargs: Any) -> Any:
    actions = Actions(settings, make_engine(settings.database_url), Gateway(settings))
    return asyncio.run(actions.jurisdictions.save(Principal(ADMIN, "admin"), doc, **kwargs))


def test_a_running_clock_keeps_its_version_until_an_audited_rebase(
    browser: Browser, web_settings: Settings
) -> None:
    doc = {**sample(), "key": "sebastopolv", "name": "Sebastopol (versions test)"}
    doc["adopted_holidays"] = {**doc["adopted_holidays"], "key": "sebastopolv_adopted"}
    save(web_settings, doc, reason="set up", new=True)
    today = pendulum.now("America/Los_Angeles").date()
    calendar = parse_jurisdiction(doc).calendar_layers().calendar(ALL)
    due = date(today.year, today.month, today.day) + timedelta(days=30)
    while not (calendar.is_business_day(due) and calendar.is_business_day(due + timedelta(1))):
        due += timedelta(days=1)
    app_id = f"VER-{due:%m%d}"
    opened = browser.api(
        ADMIN,
        "POST",
        "/api/v1/applications",
        {
            "application_id": app_id,
            "planner_email": "planner@sebastopol.example",
            "category": "macro_collocation",
            "jurisdiction": "sebastopolv",
            "submitted": (due - timedelta(days=90)).isoformat(),
        },
    )
    assert opened.status_code == 201, opened.text

    def dates() -> tuple[str, str]:
        clock = browser.api(ADMIN, "GET", f"/api/v1/applications/{app_id}/summary").json()
        return clock["clock"]["shot_clock_date"], clock["clock"]["conservative_date"]

    assert dates() == (due.isoformat(), due.isoformat())
    # A closure on its due day, saved without a rebase: the running clock keeps its dates.
    saved = save(web_settings, {**doc, "local_closures": [due.isoformat()]}, reason="storm")
    assert saved.version == 2 and saved.rebased == []
    assert dates() == (due.isoformat(), due.isoformat())
    # An audited rebase: the clock takes the city's version 3, with a ledger line.
    saved = save(
        web_settings,
        {**doc, "local_closures": [due.isoformat()], "review_sla_business_days": 9},
        reason="council ratified the closure",
        rebase=True,
    )
    assert (saved.version, saved.rebased, saved.rebase_refused) == (3, [app_id], [])
    after = (due + timedelta(days=1)).isoformat()
    assert dates()[0] == after  # the literal reading rolls over the closure
    summary = browser.api(ADMIN, "GET", f"/api/v1/applications/{app_id}/summary").json()
    assert "council ratified the closure" in str(summary["clock"]["ledger"])
