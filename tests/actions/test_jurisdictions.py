"""An administrator's jurisdiction edits through the action layer, on the database alone
(no clock is running, so no Temporal server is needed): a new city, new versions in
effect from a date, each audited; bad edits refused naming the field with nothing
stored; a closure day in the past only as an audited rebase; and one JSON file out and
in again, byte for byte."""

from __future__ import annotations

import asyncio
import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pendulum
import pytest

from actions.errors import ActionFailed
from actions.jurisdictions import read_document
from actions.layer import Actions
from actions.permit_clock_requests import OpenPermitClock
from actions.permit_clocks import plan_open
from actions.temporal import Gateway
from models.database import make_engine
from rules.access import NotPermitted, Principal
from rules.permit_clocks.request import parse_request
from tests.rules.kernel.test_jurisdiction_documents import sample
from tests.web.standalone import standalone_settings

ADMIN = Principal("admin@city.example", "admin")
PLANNER = Principal("planner@city.example", "project_manager")
TODAY = pendulum.now("America/Los_Angeles").date()


@pytest.fixture
def actions(tmp_path: Path) -> Actions:
    settings = standalone_settings(tmp_path)
    return Actions(settings, make_engine(settings.database_url), Gateway(settings))


def save(actions: Actions, doc: dict[str, Any], **kwargs: Any) -> Any:
    return asyncio.run(actions.jurisdictions.save(ADMIN, doc, **kwargs))


def test_an_administrator_sets_up_a_city_and_it_is_there_for_every_action(actions: Actions) -> None:
    saved = save(actions, sample(), reason="new contract city", new=True)
    assert (saved.key, saved.version, saved.effective_from) == ("sebastopol", 1, TODAY.isoformat())
    city = actions.city("sebastopol")
    assert city.name == "City of Sebastopol (test city)"
    assert "sebastopol" in actions.cities.all() and "cotati" in actions.cities.all()
    [audit] = actions.jurisdictions.history(ADMIN, "sebastopol")
    assert (audit.actor, audit.reason, audit.version) == (ADMIN.email, "new contract city", 1)
    assert "departments" in audit.changed and "contacts" in audit.changed


def test_only_an_administrator_may_and_a_key_is_set_up_once(actions: Actions) -> None:
    with pytest.raises(NotPermitted):
        save_as = actions.jurisdictions.save(PLANNER, sample())
        asyncio.run(save_as)
    save(actions, sample(), new=True)
    with pytest.raises(ActionFailed, match="^key: there is already a jurisdiction 'sebastopol'"):
        save(actions, sample(), new=True)
    with pytest.raises(ActionFailed, match="^key: there is already a jurisdiction 'cotati'"):
        save(actions, {**sample(), "key": "cotati"}, new=True)


def test_a_change_in_effect_later_leaves_today_alone_and_every_version_is_kept(
    actions: Actions,
) -> None:
    save(actions, sample(), new=True)
    later = TODAY + timedelta(days=30)
    changed = {**sample(), "review_sla_business_days": 7}
    saved = save(actions, changed, effective_from=later.isoformat(), reason="council vote")
    assert saved.version == 2 and saved.changed == ["review_sla_business_days"]
    assert actions.city("sebastopol").review_sla_business_days == 10
    assert actions.cities.get("sebastopol", on=later).review_sla_business_days == 7
    assert [v.version for v in actions.jurisdictions.history(ADMIN, "sebastopol")] == [2, 1]
    with pytest.raises(ActionFailed, match="nothing changed") as info:
        save(actions, sample())
    assert info.value.status == 409


def test_a_shipped_city_edited_here_gets_version_2_over_its_file(actions: Actions) -> None:
    cotati = json.loads(actions.jurisdictions.export(ADMIN, "cotati"))
    cotati["contacts"]["reply_to_email"] = "planning.desk@cotati.example"
    assert save(actions, cotati, reason="replies to the desk").version == 2
    assert actions.city("cotati").reply_to_email == "planning.desk@cotati.example"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"time_zone": "Pacific/Sebastopol"}, "time_zone: 'Pacific/Sebastopol' is not a time zone"),
        (
            {"fact_defaults": {"ca_tentative_map_expiry": {"ordinance_months": 18}}},
            "fact_defaults.ca_tentative_map_expiry.ordinance_months: give a whole number "
            "from 0 to 12",
        ),
        (
            {"fact_defaults": {"cotati_ltp_term": {"months": 3}}},
            "fact_defaults.cotati_ltp_term: a rule of the 'cotati' pack, not this city's",
        ),
        ({"permit_pack": "california"}, "permit_pack: 'california' is not a local permit pack"),
    ],
)
def test_a_bad_edit_is_refused_naming_the_field_and_nothing_is_stored(
    actions: Actions, change: dict[str, Any], message: str
) -> None:
    with pytest.raises(ActionFailed) as info:
        save(actions, {**sample(), **change}, new=True)
    assert str(info.value.message).startswith(message) and info.value.status == 400
    assert "sebastopol" not in actions.cities.all()


def test_a_closure_in_the_past_needs_an_audited_rebase(actions: Actions) -> None:
    save(actions, sample(), new=True)
    running_clock(actions, "sebastopol")
    past = (TODAY - timedelta(days=3)).isoformat()
    future = (TODAY + timedelta(days=20)).isoformat()
    with pytest.raises(
        ActionFailed, match=rf"^local_closures\[0\]: {past} is in the past; running"
    ):
        save(actions, {**sample(), "local_closures": [past, future]})
    with pytest.raises(ActionFailed, match="^reason: an audited rebase says why"):
        save(actions, {**sample(), "local_closures": [past]}, rebase=True)
    assert actions.city("sebastopol").local_closures == ()
    saved = save(actions, {**sample(), "local_closures": [future]})
    assert saved.changed == ["local_closures"]
    saved = save(
        actions, {**sample(), "local_closures": [past, future]}, rebase=True, reason="storm day"
    )
    # The running clock is sent the rebase (no Temporal server here, so it is refused and
    # said so; the version stands, and the clock is rebased again from its page).
    assert saved.rebased == []
    assert saved.rebase_refused[0].startswith("RUN-1: cannot reach the Temporal server")
    assert actions.jurisdictions.history(ADMIN, "sebastopol")[0].rebase is True
    with pytest.raises(ActionFailed, match="^effective_from: .* is in the past"):
        save(actions, sample(), effective_from=(TODAY - timedelta(days=1)).isoformat())


def running_clock(actions: Actions, key: str) -> None:
    from datetime import UTC, datetime

    from models.schema import Application

    now = datetime.now(UTC)
    with actions.sessions.begin() as session:
        session.add(
            Application(
                application_id="RUN-1", workflow_id="w", jurisdiction=key, state="CA",
                category="macro_collocation", status="running", clock={},
                created_at=now, updated_at=now,
            )
        )  # fmt: skip


def test_with_no_clock_running_a_past_closure_moves_nothing_and_is_taken(
    actions: Actions,
) -> None:
    save(actions, sample(), new=True)
    past = (TODAY - timedelta(days=3)).isoformat()
    assert save(actions, {**sample(), "local_closures": [past]}).changed == ["local_closures"]


def test_a_city_exports_and_imports_as_one_file_byte_for_byte(
    actions: Actions, tmp_path: Path
) -> None:
    save(actions, sample(), new=True)
    text = actions.jurisdictions.export(ADMIN, "sebastopol")
    assert text.endswith("}\n") and json.loads(text) == sample()
    settings = standalone_settings(tmp_path / "elsewhere")
    other = Actions(settings, make_engine(settings.database_url), Gateway(settings))
    asyncio.run(other.jurisdictions.save(ADMIN, read_document(text.encode()), reason="import"))
    assert other.jurisdictions.export(ADMIN, "sebastopol") == text
    with pytest.raises(ActionFailed, match="^file: not JSON"):
        read_document(b"{'key': 'x'}")
    with pytest.raises(ActionFailed, match="^file: expected one JSON object"):
        read_document(b"[1, 2]")


def test_a_permit_clock_opened_there_freezes_the_citys_calendar_and_local_facts(
    actions: Actions,
) -> None:
    save(actions, sample(), new=True)
    city = actions.city("sebastopol")
    approved = date(2026, 3, 2)
    start = plan_open(
        PLANNER,
        OpenPermitClock(
            clock_id="TM-1",
            rule="ca_tentative_map_expiry",
            jurisdiction="sebastopol",
            events=[{"type": "approved", "date": approved.isoformat()}],
        ),
        city,
        TODAY,
    )
    assert start.info.calendar.place["fact_defaults"] == {
        "ca_tentative_map_expiry": {"ordinance_months": 12}
    }
    request = parse_request(
        {
            "rule": "ca_tentative_map_expiry",
            "jurisdiction": "sebastopol",
            "jurisdiction_facts": start.info.calendar.place,
            "calendar_snapshot": start.info.calendar.layers,
            "events": [],
        }
    )
    assert request.facts["ordinance_months"] == 12
    # The city's own holiday is in the frozen layers: Founders Day (March 17).
    layers = [layer["key"] for layer in start.info.calendar.layers["layers"]]
    assert "sebastopol_adopted" in layers
