"""Permit-clock actions: open a clock, record an event, read one, for the CLI, the web
pages and the JSON API alike.

Each action takes the acting user (a `Principal` whose role comes from the account), one
input dataclass, checks the role (rules/access.py), validates against the pure rules
core before anything reaches Temporal, then starts the workflow or runs its update (whose
validator checks again, against the clock's own frozen state). A refusal is a
`PermitActionRefused` naming the field and the reason; nothing is stored then.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from models.permit_clock import (
    DEFAULT_PERMIT_REMINDER_OFFSETS,
    EVENT_FIELDS,
    PermitCalendar,
    PermitClockInfo,
    PermitClockInput,
    PermitClockSummary,
    PermitContacts,
    PermitEvent,
    PermitEventInput,
    PermitUpdateResult,
)
from rules.access import Principal, require
from rules.packs import jurisdiction as load_jurisdiction
from rules.permit_clocks import compute_permit_clock
from workflows.permit_clock_support import EventRefused, permit_workflow_id, refuse_event

CLOCK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


class PermitActionRefused(ValueError):
    """The action would not hold up (or the clock does not exist); nothing was stored."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class OpenPermitClock:
    """Open the clock of one permit or application on a rule of the jurisdiction."""

    clock_id: str
    rule: str
    jurisdiction: str
    events: list[dict[str, Any]]
    facts: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    site_address: str = ""
    applicant_name: str = ""
    applicant_email: str = ""
    staff_email: str = ""
    companion_id: str = ""
    project_id: str = ""
    condition_number: str = ""
    project_manager_email: str = ""
    reminder_offsets: list[int] | None = None


@dataclass
class RecordPermitEvent:
    clock_id: str
    type: str
    date: str
    fields: dict[str, Any] = field(default_factory=dict)
    note: str = ""


def _event(raw: dict[str, Any], where: str, recorded_by: str) -> PermitEvent:
    if not isinstance(raw, dict):
        raise PermitActionRefused(f"{where}: must be an object with a type and a date")
    kind = raw.get("type")
    day = raw.get("date")
    if not isinstance(kind, str) or not kind:
        raise PermitActionRefused(f"{where}.type: missing")
    if not isinstance(day, str) or not day:
        raise PermitActionRefused(f"{where}.date: missing")
    unknown = sorted(set(raw) - {"type", "date", "note", *EVENT_FIELDS})
    if unknown:
        raise PermitActionRefused(f"{where}.{unknown[0]}: not a field of a permit-clock event")
    fields = {k: raw[k] for k in EVENT_FIELDS if raw.get(k) is not None}
    return PermitEvent(kind, day, fields, note=str(raw.get("note") or ""), recorded_by=recorded_by)


def plan_open(actor: Principal, input: OpenPermitClock, today: date) -> PermitClockInput:
    """The workflow input for a new clock, or PermitActionRefused. Pure (the jurisdiction
    file and the packs are loaded at import): freezes the calendar and the rule version."""
    if not CLOCK_ID.match(input.clock_id or ""):
        raise PermitActionRefused(
            "clock_id: use 1-80 letters, digits, '.', '_' or '-' (e.g. BP-2026-0142)"
        )
    try:
        city = load_jurisdiction(input.jurisdiction)
    except ValueError as err:
        raise PermitActionRefused(f"jurisdiction: {err}") from None
    if not input.events:
        raise PermitActionRefused("events: give at least the event that starts the clock")
    offsets = (
        input.reminder_offsets
        if input.reminder_offsets is not None
        else list(DEFAULT_PERMIT_REMINDER_OFFSETS)
    )
    if any((not isinstance(n, int)) or n < 0 for n in offsets):
        raise PermitActionRefused("reminder_offsets: whole numbers of days, 0 or more")
    events = [_event(raw, f"events[{i}]", actor.email) for i, raw in enumerate(input.events)]
    calendar = PermitCalendar(
        jurisdiction=city.key,
        time_zone=city.time_zone,
        closures=list(city.local_closures),
    )
    info = PermitClockInfo(
        clock_id=input.clock_id,
        rule=input.rule,
        calendar=calendar,
        contacts=PermitContacts(
            staff_email=input.staff_email or actor.email,
            supervisor_email=city.supervisor_email,
            attorney_email=city.attorney_email,
            applicant_email=input.applicant_email,
            applicant_name=input.applicant_name,
            project_manager_email=input.project_manager_email,
        ),
        facts=dict(input.facts),
        title=input.title or input.clock_id,
        site_address=input.site_address,
        companion_id=input.companion_id,
        project_id=input.project_id,
        condition_number=input.condition_number,
        reminder_offsets=sorted(set(offsets), reverse=True),
    )
    # Each event is checked as if recorded one after the other, so the first event the
    # rule refuses is named, and nothing is opened.
    request: dict[str, Any] = {
        "rule": info.rule,
        "jurisdiction": city.key,
        "calendar": {"adopted": [], "closures": list(calendar.closures)},
        "facts": dict(info.facts),
        "events": [],
        "as_of": today.isoformat(),
    }
    try:
        compute_permit_clock(request)
    except Exception as err:  # noqa: BLE001 - the core's contract error names the field
        raise PermitActionRefused(str(err)) from None
    for i, event in enumerate(events):
        try:
            refuse_event(request, event, today)
        except EventRefused as err:
            raise PermitActionRefused(f"events[{i}] ({event.type}): {err}") from None
        request["events"].append(event.to_contract())
    clock = compute_permit_clock(request)
    calendar.rule_version = str(clock.get("rule_version") or "")
    return PermitClockInput(info=info, events=events)


def local_today(time_zone: str) -> date:
    import pendulum

    return pendulum.now(time_zone).date()


class PermitClockActions:
    """The permit-clock actions over one Temporal client (made lazily by `client`)."""

    def __init__(self, client: Callable[[], Awaitable[Client]], task_queue: str) -> None:
        self._client = client
        self._task_queue = task_queue

    async def open(self, actor: Principal, input: OpenPermitClock) -> PermitClockSummary:
        require(actor, "permit.open")
        city_tz = _time_zone(input.jurisdiction)
        start = plan_open(actor, input, local_today(city_tz))
        client = await self._client()
        if input.companion_id:
            await self._must_exist(client, input.companion_id, "companion_id")
        try:
            handle = await client.start_workflow(
                "PermitClockWorkflow",
                start,
                id=permit_workflow_id(input.clock_id),
                task_queue=self._task_queue,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )
        except WorkflowAlreadyStartedError:
            raise PermitActionRefused(
                f"clock_id: {input.clock_id} already has a clock; record events on it instead"
            ) from None
        return await _summary(handle)

    async def record(self, actor: Principal, input: RecordPermitEvent) -> PermitUpdateResult:
        require(actor, "permit.record")
        client = await self._client()
        handle = client.get_workflow_handle(permit_workflow_id(input.clock_id))
        event = _event(
            {"type": input.type, "date": input.date, **input.fields}, "event", actor.email
        )
        payload = PermitEventInput(
            event.type, event.date, event.fields, recorded_by=actor.email, note=input.note
        )
        try:
            return await handle.execute_update(
                "record_event", payload, result_type=PermitUpdateResult
            )
        except WorkflowUpdateFailedError as err:
            cause = err.cause
            message = getattr(cause, "message", None) or str(cause or err)
            raise PermitActionRefused(message) from None
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND:
                raise PermitActionRefused(
                    f"{input.clock_id}: no open clock (it does not exist or is finished); "
                    "nothing was recorded",
                    404,
                ) from None
            raise

    async def show(self, actor: Principal, clock_id: str) -> PermitClockSummary:
        require(actor, "read")
        client = await self._client()
        return await _summary(client.get_workflow_handle(permit_workflow_id(clock_id)))

    async def _must_exist(self, client: Client, clock_id: str, field_name: str) -> None:
        try:
            await client.get_workflow_handle(permit_workflow_id(clock_id)).describe()
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND:
                raise PermitActionRefused(f"{field_name}: there is no clock {clock_id}") from None
            raise


def _time_zone(key: str) -> str:
    try:
        return load_jurisdiction(key).time_zone
    except ValueError as err:
        raise PermitActionRefused(f"jurisdiction: {err}") from None


async def _summary(handle: Any) -> PermitClockSummary:
    import asyncio

    for attempt in range(50):
        try:
            return await handle.query("summary", result_type=PermitClockSummary)
        except RPCError as err:
            if err.status == RPCStatusCode.NOT_FOUND:
                raise PermitActionRefused(f"no such permit clock ({handle.id})", 404) from None
            # A clock that has just started has no workflow task yet: retry briefly.
            if err.status != RPCStatusCode.FAILED_PRECONDITION or attempt == 49:
                raise
            await asyncio.sleep(0.1)
    raise AssertionError("unreachable")
