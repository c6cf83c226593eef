"""A permit clock's actions (`actions.permit_clocks`): open a clock, record an event, read
one (PermitClockWorkflow, its `record_event` update and `summary` query).

The same shape as every action (actions/__init__.py): a request dataclass per action
(actions/permit_clock_requests.py) with its permission, `require` first, validation
against the pure rules core before anything reaches Temporal (the workflow's update
validator checks again against the clock's own frozen state), then a wait for the read
model so the next page shows it.
Refusals are ActionFailed: 400 bad input (names the field), 404 unknown clock, 409
refused on the facts (the rules core's words). Nothing is stored on a refusal.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pendulum
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from actions.cities import Cities
from actions.errors import ActionFailed, bad
from actions.owners import owner_in_city
from actions.permit_clock_requests import OpenPermitClock, RebasePermitClock, RecordPermitEvent
from actions.temporal import Gateway
from actions.waiting import wait_for
from models.closures import stored_closures
from models.permit_clock import (
    EVENT_FIELDS,
    PermitCalendar,
    PermitClockInfo,
    PermitClockInput,
    PermitClockSummary,
    PermitContacts,
    PermitEvent,
    PermitEventInput,
    PermitRebaseInput,
    PermitUpdateResult,
    ReassignInput,
)
from models.schema import PermitClockRow, PermitEventRow
from models.workflow_ids import permit_clock_workflow_id
from rules.access import Principal, require
from rules.kernel.jurisdictions import Jurisdiction
from rules.permit_clocks import PermitClockError, compute_permit_clock
from rules.permit_clocks.jurisdictions import place_of
from rules.permit_clocks.packs import PERMIT_RULES
from workflows.permit_clock_support import EventRefused, PermitClockState, refuse_event

CLOCK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


def _event(raw: dict[str, Any], where: str, recorded_by: str) -> PermitEvent:
    if not isinstance(raw, dict):
        raise bad(f"{where}: must be an object with a type and a date")
    kind = raw.get("type")
    day = raw.get("date")
    if not isinstance(kind, str) or not kind:
        raise bad(f"{where}.type: missing")
    if not isinstance(day, str) or not day:
        raise bad(f"{where}.date: missing")
    unknown = sorted(set(raw) - {"type", "date", "note", *EVENT_FIELDS})
    if unknown:
        raise bad(f"{where}.{unknown[0]}: not a field of a permit-clock event")
    fields = {k: raw[k] for k in EVENT_FIELDS if raw.get(k) is not None}
    return PermitEvent(kind, day, fields, note=str(raw.get("note") or ""), recorded_by=recorded_by)


def _acting(city: Jurisdiction, rule: Any) -> str:
    """Who acts on a new clock when staff name no one: the rule's `acts` (pack data),
    found in the jurisdiction's contacts."""
    acts = getattr(rule, "acts", "planner")
    if acts == "building_official":
        reviewer_and_head = city.departments.get("building")
        return reviewer_and_head[1] if reviewer_and_head else city.planner_email
    if acts == "city_attorney":
        return city.attorney_email
    return city.planner_email


def plan_open(
    actor: Principal,
    input: OpenPermitClock,
    city: Jurisdiction,
    today: date,
    closures: list[tuple[str, str]] | None = None,
) -> PermitClockInput:
    """The workflow input for a new clock, or ActionFailed. Pure (the jurisdiction files
    and the packs are loaded at import): freezes the calendar layers and the rule version."""
    if not CLOCK_ID.match(input.clock_id or ""):
        raise bad("clock_id: use 1-80 letters, digits, '.', '_' or '-' (e.g. BP-2026-0142)")
    if not input.events:
        raise bad("events: give at least the event that starts the clock")
    # A permit's expiry reminders follow the city's reminder ladder (jurisdiction data);
    # every other clock, and a ladder that sets none, the city's reminder offsets.
    rule = PERMIT_RULES.get(input.rule)
    ladder = city.reminder_ladder.permit_expiry_days_before
    offsets = (
        list(input.reminder_offsets)
        if input.reminder_offsets is not None
        else list(ladder)
        if ladder is not None and rule is not None and rule.family == "expiry"
        else list(city.reminder_offsets)
    )
    if any(isinstance(n, bool) or not isinstance(n, int) or n <= 0 for n in offsets):
        raise bad("reminder_offsets: whole numbers of days, 1 or more")
    events = [_event(raw, f"events[{i}]", actor.email) for i, raw in enumerate(input.events)]
    # Freeze every calendar layer as the data files say today (shot-clocks.md §8.9): a
    # holiday added to or taken out of the jurisdiction file later does not move this
    # clock; the rule version is pinned too (a later version shows as a warning).
    # With the closure days an administrator stored for the city (shot-clocks.md 8.10).
    layers = city.calendar_layers()
    try:
        place = place_of(city)
    except ValueError as err:
        raise bad(f"jurisdiction {city.key}: {err}") from None
    if closures:
        layers = layers.with_closures((date.fromisoformat(d), note) for d, note in closures)
    calendar = PermitCalendar(
        jurisdiction=city.key,
        time_zone=city.time_zone,
        layers=layers.to_dict(),
        fingerprint=layers.fingerprint,
        place=place.to_dict(),
    )
    info = PermitClockInfo(
        clock_id=input.clock_id,
        rule=input.rule,
        calendar=calendar,
        contacts=PermitContacts(
            staff_email=input.staff_email or _acting(city, rule) or actor.email,
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
        "jurisdiction_facts": calendar.place,
        "calendar_snapshot": calendar.layers,
        "facts": dict(info.facts),
        "events": [],
        "as_of": today.isoformat(),
    }
    try:
        compute_permit_clock(request)
    except PermitClockError as err:  # the core's contract error names the field
        raise bad(str(err)) from None
    for i, event in enumerate(events):
        try:
            refuse_event(request, event, today)
        except EventRefused as err:
            raise ActionFailed(f"events[{i}] ({event.type}): {err}", 409) from None
        request["events"].append(event.to_contract())
    clock = compute_permit_clock(request)
    calendar.rule_version = str(clock.get("rule_version") or "")
    return PermitClockInput(info=info, events=events)


class PermitClockActions:
    """`actions.permit_clocks`: every action on a permit clock."""

    def __init__(self, gateway: Gateway, sessions: sessionmaker[Session], cities: Cities) -> None:
        self.gateway = gateway
        self.sessions = sessions
        self.cities = cities

    def row(self, clock_id: str) -> PermitClockRow | None:
        with self.sessions() as session:
            row = session.get(PermitClockRow, clock_id)
            if row is not None:
                session.expunge(row)
            return row

    def _permit_events(self, clock_id: str) -> int:
        from sqlalchemy import func

        with self.sessions() as session:
            return (
                session.scalar(
                    select(func.count())
                    .select_from(PermitEventRow)
                    .where(PermitEventRow.clock_id == clock_id)
                )
                or 0
            )

    async def open(self, who: Principal, request: OpenPermitClock) -> PermitClockSummary:
        require(who, request.permission)
        city = self.cities.get(request.jurisdiction)
        start = plan_open(
            who,
            request,
            city,
            pendulum.now(city.time_zone).date(),
            stored_closures(self.sessions, city.key),
        )
        if request.companion_id and self.row(request.companion_id) is None:
            raise bad(f"companion_id: there is no permit clock {request.companion_id}")
        await self.gateway.start(
            "PermitClockWorkflow",
            start,
            id=permit_clock_workflow_id(request.clock_id),
            exists=f"clock_id: {request.clock_id} already has a clock; record events on it instead",
        )
        await wait_for(
            lambda: self._permit_events(request.clock_id) == len(start.events), timeout=10
        )
        return await self.summary(who, request.clock_id)

    async def record_event(self, who: Principal, request: RecordPermitEvent) -> PermitUpdateResult:
        require(who, request.permission)
        event = _event(
            {"type": request.type, "date": request.date, **request.fields}, "event", who.email
        )
        before = self._permit_events(request.clock_id)
        try:
            result: PermitUpdateResult = await self.gateway.update(
                permit_clock_workflow_id(request.clock_id),
                "record_event",  # PermitClockWorkflow's update
                PermitEventInput(
                    event.type, event.date, event.fields, recorded_by=who.email, note=request.note
                ),
                result_type=PermitUpdateResult,
                closed=None,
            )
        except ActionFailed as failed:  # the validator's words, or why not
            if failed.status == 404:
                raise await self._closed_refusal(who, request.clock_id, event) from None
            raise
        due = result.clock.get("due_date")
        await wait_for(
            lambda: (
                self._permit_events(request.clock_id) > before
                and getattr(self.row(request.clock_id), "due_date", None) == due
            ),
            timeout=10,
        )
        return result

    async def rebase(self, who: Principal, request: RebasePermitClock) -> PermitUpdateResult:
        """Switch a running clock to the current version of its rule: the validator refuses
        one already current; the ledger records who, why and what moved."""
        require(who, request.permission)
        if not request.reason.strip():
            raise bad("reason: say why the clock is rebased (it goes into the ledger)")
        summary = await self.summary(who, request.clock_id)
        version = PERMIT_RULES[summary.info.rule].rule_version
        # The validator's words, or why not; no answer: outcome unknown (504).
        result: PermitUpdateResult = await self.gateway.update(
            permit_clock_workflow_id(request.clock_id),
            "rebase",  # PermitClockWorkflow's update
            PermitRebaseInput(version, who.email, request.reason.strip()),
            result_type=PermitUpdateResult,
            closed=None,
        )
        await wait_for(
            lambda: getattr(self.row(request.clock_id), "rule_version", None) == version,
            timeout=10,
        )
        return result

    async def reassign(
        self, who: Principal, clock_id: str, email: str, reason: str = ""
    ) -> PermitUpdateResult:
        """Hand the clock to another person who can log in; answer once the read model
        (inboxes, /deadlines, calendars) has the new owner."""
        require(who, "permit.reassign")
        email = email.strip()
        row = self.row(clock_id)
        city = row.jurisdiction if row is not None else self.cities.home_key()
        owner_in_city(self.sessions, email, city, self.cities.home_key())
        result: PermitUpdateResult = await self.gateway.update(
            permit_clock_workflow_id(clock_id),
            "reassign",  # PermitClockWorkflow's update
            ReassignInput(email, who.email, reason.strip()),
            result_type=PermitUpdateResult,
            closed=f"{clock_id} is closed: nothing more can be recorded on it",
        )
        await wait_for(
            lambda: getattr(self.row(clock_id), "staff_email", None) == email, timeout=10
        )
        return result

    async def _closed_refusal(
        self, who: Principal, clock_id: str, event: PermitEvent
    ) -> ActionFailed:
        """Why an event cannot go on a clock whose workflow has finished (an expired
        permit, a met deadline): the rules' own refusal when they give one."""
        try:
            summary = await self.summary(who, clock_id)
        except ActionFailed:
            return ActionFailed(f"{clock_id}: there is no permit clock with this number", 404)
        state = PermitClockState(
            PermitClockInput(summary.info, summary.events, event_sequence=len(summary.events))
        )
        today = pendulum.now(summary.info.calendar.time_zone).date()
        status = summary.clock.get("status", "closed")
        try:
            refuse_event(state.request(state.events, today), event, today)
        except EventRefused as err:
            return ActionFailed(str(err))
        return ActionFailed(
            f"{clock_id} is closed ({status.replace('_', ' ')}, "
            f"{summary.clock.get('conservative_date') or 'no date'}): nothing more can be "
            "recorded on it; nothing was recorded"
        )

    async def summary(self, who: Principal, clock_id: str) -> PermitClockSummary:
        require(who, "read")
        summary: PermitClockSummary = await self.gateway.query(
            permit_clock_workflow_id(clock_id),
            "summary",
            result_type=PermitClockSummary,
            missing=f"no such permit clock {clock_id}",
        )
        return summary
