"""PermitClockWorkflow: one durable workflow per permit or application, holding its
clock and the clocks it chains (completeness → HAA consistency, completeness →
decision).

The workflow only orchestrates, like the shot clock: it keeps the timeline, asks the pure
rules core (`rules.permit_clocks`) for every date after every event, sleeps until the next
alert, and hands database rows and notices to activities. Staff events are updates whose
validator refuses what the rule does not take before anything is recorded. A sign permit
follows its companion building permit: the companion signals each new expiry. Clocks that
live for years continue-as-new with their state.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from datetime import datetime
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities import names as activity
    from models.permit_clock import (
        CompanionExpiryInput,
        FollowInput,
        PermitClockInput,
        PermitClockSummary,
        PermitEvent,
        PermitEventInput,
        PermitNoticeRequest,
        PermitRebaseInput,
        PermitUpdateResult,
        ReassignInput,
    )
    from models.shot_clock import LocalClosureInput
    from models.workflow_ids import permit_clock_workflow_id
    from workflows import clock_common as common
    from workflows import permit_clock_support as support
    from workflows.permit_clock_support import PermitAlert


@workflow.defn
class PermitClockWorkflow:
    @workflow.init
    def __init__(self, input: PermitClockInput) -> None:
        self._state = support.PermitClockState(input)
        self._dirty = True
        self._lock = asyncio.Lock()
        self._pending_companion: list[str] = []

    @workflow.run
    async def run(self, input: PermitClockInput) -> dict[str, Any]:
        state = self._state
        if state.first_run and state.info.companion_id:
            await self._follow_companion()
        # Alerts already due when the clock is first planned were due before it was opened
        # (a clock entered late): skip the reminders, but never a lapse escalation. A
        # continued run goes on from where the previous one planned.
        planned_at = (
            datetime.fromisoformat(state.planned_at) if state.planned_at else workflow.now()
        )
        while True:
            await self._take_companion_expiries()
            now = workflow.now()
            clock = state.clock(now)
            if self._dirty:
                self._dirty = False
                await self._sync(clock, record_events=state.first_run)
                state.first_run = False
                await self._announce_expiry(clock)
            alerts = state.pending(state.alerts(clock, now))
            for alert in alerts:
                if alert.fire_at > now:
                    break
                if alert.fire_at <= planned_at and alert.kind != "permit_lapse_escalation":
                    state.skipped.add(alert.key)
                    continue
                await self._fire(alert, clock)
            planned_at = now
            state.planned_at = now.isoformat()
            upcoming = state.pending(alerts)
            if not upcoming and support.is_finished(clock):
                break
            await common.continue_as_new_if_suggested(state.carry_over)
            timeout = common.next_wake(upcoming, now)
            del clock, alerts, upcoming  # sleep holding only the state
            # Wake for the next alert, an update, or the companion's new expiry.
            await common.sleep_until(timeout, lambda: self._dirty or bool(self._pending_companion))
        await workflow.wait_condition(workflow.all_handlers_finished)
        return state.clock(workflow.now())

    # -- activities --------------------------------------------------------------------

    async def _sync(self, clock: dict[str, Any], record_events: bool = False) -> None:
        """Keep the read model and the search attributes current."""
        async with self._lock:
            await common.record_clock(
                activity.RECORD_PERMIT_CLOCK,
                self._state.record(clock, workflow.info().workflow_id),
                self._state.events,
                self._record_event,
                opening=record_events,
            )
        workflow.upsert_search_attributes(self._state.search_attributes(clock))

    async def _record_event(self, event: PermitEvent) -> None:
        await common.record(activity.RECORD_PERMIT_EVENT, self._state.event_record(event))

    async def _send(self, request: PermitNoticeRequest) -> None:
        await common.send(activity.SEND_PERMIT_NOTICE, request)

    async def _fire(self, alert: PermitAlert, clock: dict[str, Any]) -> None:
        await self._send(self._state.alert_notice(alert, clock))
        self._state.sent.add(alert.key)
        if alert.kind == "permit_lapse_escalation":
            await self._sync(clock)

    # -- the companion link ------------------------------------------------------------

    async def _follow_companion(self) -> None:
        """Ask the companion permit's clock to tell this one its expiry."""
        companion = workflow.get_external_workflow_handle(
            permit_clock_workflow_id(self._state.info.companion_id)
        )
        # A companion that is gone simply never answers; the clock still runs on its own.
        with contextlib.suppress(Exception):
            await companion.signal(
                PermitClockWorkflow.follow, FollowInput(self._state.info.clock_id)
            )

    async def _announce_expiry(self, clock: dict[str, Any]) -> None:
        """Tell every follower (sign permits) when this permit's expiry has moved."""
        due = clock.get("due_date") or ""
        if not self._state.followers or not due or due == self._state.announced_expiry:
            return
        self._state.announced_expiry = due
        for follower in list(self._state.followers):
            handle = workflow.get_external_workflow_handle(permit_clock_workflow_id(follower))
            with contextlib.suppress(Exception):
                await handle.signal(
                    PermitClockWorkflow.companion_expiry,
                    CompanionExpiryInput(self._state.info.clock_id, due),
                )

    async def _take_companion_expiries(self) -> None:
        while self._pending_companion:
            until = self._pending_companion.pop(0)
            event = self._state.companion_event(until, workflow.now())
            if event is None:
                continue
            async with self._lock:
                self._state.append(event)
                if not self._state.first_run:
                    await self._record_event(event)
            self._dirty = True

    @workflow.signal
    def follow(self, input: FollowInput) -> None:
        if input.follower_id not in self._state.followers:
            self._state.followers.append(input.follower_id)
            self._state.announced_expiry = ""  # the new follower needs the current expiry
            self._dirty = True

    @workflow.signal
    def companion_expiry(self, input: CompanionExpiryInput) -> None:
        if input.companion_id == self._state.info.companion_id:
            self._pending_companion.append(input.until)

    # -- updates: every staff action ----------------------------------------------------

    @workflow.update
    async def record_event(self, input: PermitEventInput) -> PermitUpdateResult:
        event = support.event_from_input(input)
        async with self._lock:
            self._state.append(event)
            # An update delivered with the start runs before the first sync has written
            # the clock row its event refers to; the first sync records it with the rest.
            if not self._state.first_run:
                await self._record_event(event)
        self._dirty = True
        return PermitUpdateResult(event.event_id, self._state.clock(workflow.now()))

    @record_event.validator
    def _validate_event(self, input: PermitEventInput) -> None:
        self._state.check(support.event_from_input(input), workflow.now())

    @workflow.update
    async def add_local_closure(self, input: LocalClosureInput) -> PermitUpdateResult:
        """A closure day the city added after opening (one clock, or the jurisdiction's
        fan-out): dates that count business days or roll move; the ledger says what."""
        async with self._lock:
            self._state.add_local_closure(
                input.date, input.recorded_by, workflow.now(), input.reason
            )
        self._dirty = True
        return PermitUpdateResult("", self._state.clock(workflow.now()))

    @add_local_closure.validator
    def _validate_local_closure(self, input: LocalClosureInput) -> None:
        self._state.check_local_closure(input.date)

    @workflow.update
    async def rebase(self, input: PermitRebaseInput) -> PermitUpdateResult:
        """An administrator applies the current rule version to this running clock."""
        async with self._lock:
            self._state.rebase(input, workflow.now())
        self._dirty = True
        return PermitUpdateResult(
            f"rebase-{len(self._state.rebases)}", self._state.clock(workflow.now())
        )

    @rebase.validator
    def _validate_rebase(self, input: PermitRebaseInput) -> None:
        self._state.check_rebase(input)

    @workflow.update
    async def reassign(self, input: ReassignInput) -> PermitUpdateResult:
        """A new owner: the person who acts on the clock and hears its reminders."""
        async with self._lock:
            info = self._state.info
            info.contacts = dataclasses.replace(info.contacts, staff_email=input.email)
        self._dirty = True
        return PermitUpdateResult("", self._state.clock(workflow.now()))

    @reassign.validator
    def _validate_reassign(self, input: ReassignInput) -> None:
        if "@" not in input.email or any(c.isspace() for c in input.email):
            raise ValueError(f"email: {input.email!r} is not an e-mail address")
        if input.email == self._state.info.contacts.staff_email:
            raise ValueError(f"the clock is already with {input.email}")

    # -- queries ------------------------------------------------------------------------

    @workflow.query
    def clock(self, as_of: str | None = None) -> dict[str, Any]:
        """The compute contract's output for this permit, as of today by default."""
        return self._state.clock(workflow.now(), as_of)

    @workflow.query
    def summary(self) -> PermitClockSummary:
        return self._state.summary(workflow.now())
