"""Demo permit clocks for the embedded stack, dated relative to today so each family
shows something on the first page: a PSA completeness clock chained to its HAA
consistency clock, an AB 2234 review paused for an outside agency, a sign permit near its
expiry, a building permit reset by an inspection, and one lapsed clock whose escalation
is in the outbox."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from actions.permit_clock_requests import OpenPermitClock
from actions.permit_clocks import plan_open
from models.permit_clock import PermitEventInput
from models.workflow_ids import permit_clock_workflow_id
from rules.access import Principal
from rules.kernel.jurisdictions import jurisdiction as city
from rules.permit_clocks import PERMIT_PACKS, PERMIT_RULES
from rules.permit_clocks.jurisdictions import permit_jurisdiction
from stack.demo import DEMO_JURISDICTION
from workflows.permit_clock import PermitClockWorkflow

log = logging.getLogger("clearance.demo")
LOADER = Principal("demo-loader@clearance.local", "admin")


@dataclass
class DemoPermit:
    clock_id: str
    rule: str
    title: str
    site: str
    start: tuple[str, int, dict[str, Any]]  # (event, days ago, fields)
    facts: dict[str, Any] = field(default_factory=dict)
    # Events recorded after the start, as (event, days ago, fields).
    later: list[tuple[str, int, dict[str, Any]]] = field(default_factory=list)


def _months_ago(today: date, months: int, plus_days: int = 0) -> int:
    """Days between today and the same day `months` months ago, plus `plus_days`."""
    month = today.month - 1 - months
    year, month = today.year + month // 12, month % 12 + 1
    day = min(today.day, 28)
    return (today - date(year, month, day)).days - plus_days


def demo_permits(today: date) -> list[DemoPermit]:
    return [
        DemoPermit(
            "DEMO-PSA-24",
            "ca_psa_completeness",
            "24-unit apartments: completeness, then HAA consistency",
            "8650 Old Redwood Hwy",
            ("received", 26, {}),
            facts={"housing": True, "units": 24, "states_development_permit": True},
            later=[("complete", 6, {})],
        ),
        DemoPermit(
            "DEMO-AB2234",
            "ca_post_entitlement_review",
            "ADU building permit review, paused for the fire district",
            "311 E School St",
            ("complete", 16, {}),
            facts={"units": 2},
            later=[("paused", 4, {"reason": "outside_agency_review"})],
        ),
        DemoPermit(
            "DEMO-SIGN",
            "cotati_sign_permit_expiry",
            "Wall sign, not yet installed",
            "7600 Commerce Blvd",
            ("approved", _months_ago(today, 12, plus_days=12), {}),
        ),
        DemoPermit(
            "DEMO-BP",
            "building_permit_expiry",
            "New garage: framing inspection reset the expiry",
            "125 W Sierra Ave",
            ("approved", 150, {}),
            later=[("inspection", 10, {"result": "approved", "qualifying": True})],
        ),
        DemoPermit(
            "DEMO-APPEAL",
            "cotati_sign_appeal_decision",
            "Sign appeal: no decision within 60 days",
            "8000 Old Redwood Hwy",
            ("appeal_filed", 75, {}),
        ),
    ]


def usable_rules(jurisdiction_key: str) -> set[str]:
    """Rules a clock in this jurisdiction may use: every non-local pack's, and its own."""
    local = permit_jurisdiction(jurisdiction_key).permit_pack
    return {
        rule_id
        for rule_id, rule in PERMIT_RULES.items()
        if PERMIT_PACKS[rule.pack].kind != "local" or rule.pack == local
    }


async def _exists(client: Client, clock_id: str) -> bool:
    try:
        await client.get_workflow_handle(permit_clock_workflow_id(clock_id)).describe()
        return True
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            return False
        raise


async def load_permit_demo(
    client: Client, task_queue: str, today: date, jurisdiction: str = DEMO_JURISDICTION
) -> list[str]:
    """Open each demo permit clock that does not exist yet; returns the ids it opened.
    Goes through the same validation as the action layer (plan_open); a local rule the
    demo jurisdiction's pack does not have is left out."""
    opened: list[str] = []
    for demo in demo_permits(today):
        if await _exists(client, demo.clock_id):
            continue
        kind, ago, fields = demo.start
        if demo.rule not in usable_rules(jurisdiction):
            log.info(
                "demo: %s left out (%s has no rule %s)", demo.clock_id, jurisdiction, demo.rule
            )
            continue
        start = plan_open(
            LOADER,
            OpenPermitClock(
                clock_id=demo.clock_id,
                rule=demo.rule,
                jurisdiction=jurisdiction,
                events=[
                    {"type": kind, "date": (today - timedelta(days=ago)).isoformat(), **fields}
                ],
                facts=demo.facts,
                title=demo.title,
                site_address=demo.site,
                applicant_name="Demo Applicant LLC",
                applicant_email="applicant@demo.example",
            ),
            city(jurisdiction),
            today,
        )
        handle: Any = await client.start_workflow(
            PermitClockWorkflow.run,
            start,
            id=permit_clock_workflow_id(demo.clock_id),
            task_queue=task_queue,
        )
        for kind, ago, fields in demo.later:
            await handle.execute_update(
                PermitClockWorkflow.record_event,
                PermitEventInput(
                    kind,
                    (today - timedelta(days=ago)).isoformat(),
                    fields,
                    recorded_by="demo loader",
                ),
            )
        opened.append(demo.clock_id)
    return opened
