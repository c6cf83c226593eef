"""The shot clock's actions (`actions.shot_clocks`): open a wireless application's shot
clock, record events on it, preview a notice, add a closure day to one clock or to every
open clock of a jurisdiction, read a clock. Each event's request (actions/
shot_clock_requests.py) names the ShotClockWorkflow update that records it; `record` sends it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pendulum
from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session, sessionmaker
from temporalio.exceptions import WorkflowAlreadyStartedError

from actions.cities import Cities
from actions.errors import ActionFailed, bad
from actions.fields import check_date
from actions.owners import owner_in_city
from actions.shot_clock_requests import (
    SHOT_CLOCK_EVENTS,
    AddLocalClosure,
    OpenShotClock,
    RebaseShotClock,
    RecordNotice,
    ShotClockEvent,
    parse_items,
)
from actions.temporal import Gateway
from actions.waiting import wait_for
from models.closures import record_fan_out, store_closure, stored_closures
from models.permit_clock import ReassignInput
from models.schema import Application, PermitClockRow
from models.shot_clock import (
    ApplicantUploadInput,
    ApplicationInfo,
    ClockEvent,
    ClockSummary,
    ClockUpdateResult,
    Contacts,
    JurisdictionClosureInput,
    JurisdictionClosureResult,
    RebaseInput,
    ShotClockInput,
)
from models.workflow_ids import closure_workflow_id, shot_clock_workflow_id
from rules.access import Principal, require
from rules.kernel.input import TimelineError
from rules.shot_clock.timeline import parse_timeline
from workflows.shot_clock_support import frozen_calendar, rebase_input

# How long adding a jurisdiction's closure day waits for every clock before answering
# (the workflow carries on either way).
CLOSURE_WAIT_SECONDS = 20.0


@dataclass
class ClosureOutcome:
    targeted: list[str]
    changed: list[str] | None  # None: still being applied when the request answered
    refused: list[str]
    # The permit clocks of the jurisdiction, likewise.
    permit_targeted: list[str] = field(default_factory=list)
    permit_changed: list[str] | None = None
    permit_refused: list[str] = field(default_factory=list)


class ShotClockActions:
    """`actions.shot_clocks`: every action on a wireless application's shot clock."""

    def __init__(self, gateway: Gateway, sessions: sessionmaker[Session], cities: Cities) -> None:
        self.gateway = gateway
        self.sessions = sessions
        self.cities = cities

    # -- reading --------------------------------------------------------------------------

    async def summary(self, who: Principal, application_id: str) -> ClockSummary:
        require(who, "read")
        return await self.gateway.query(
            shot_clock_workflow_id(application_id),
            "summary",
            result_type=ClockSummary,
            missing=f"no such application {application_id} (no shot clock workflow)",
        )

    # -- opening --------------------------------------------------------------------------

    async def open_from_fields(self, who: Principal, fields: dict[str, Any]) -> ClockSummary:
        require(who, OpenShotClock.permission)
        return await self.open(who, OpenShotClock.from_fields(fields))

    async def open(self, who: Principal, request: OpenShotClock) -> ClockSummary:
        """Start the application's durable shot clock; refused before anything is stored
        when the timeline would not hold up (unknown category, a date in the future)."""
        from workflows.shot_clock import ShotClockWorkflow

        require(who, request.permission)
        city = self.cities.get(request.jurisdiction)
        today = pendulum.now(city.time_zone).date()
        events = [{"type": "submitted", "date": request.submitted or today.isoformat()}]
        if request.pre_application:
            events.insert(0, {"type": "pre_application", "date": request.pre_application})
        raw: dict[str, Any] = {"state": city.state, "rule_pack": city.rule_pack, "events": events}
        if request.batch:
            raw["batch"] = list(request.batch)
        if request.category:
            raw["category"] = request.category
        try:
            parsed = parse_timeline(raw)
        except TimelineError as err:
            field = "pre_application" if request.pre_application else "submitted"
            raise bad(str(err).replace("events[0]", field)) from None
        if any(e.date > today for e in parsed.events):
            raise bad(f"submitted: the date is in the future (today in {city.name} is {today})")
        info = ApplicationInfo(
            application_id=request.application_id,
            category=request.category,
            batch=list(request.batch),
            site_address=request.site_address,
            description=request.description,
            # Frozen now (shot-clocks.md 8.9), with the closure days stored so far (8.10).
            calendar=frozen_calendar(city, stored_closures(self.sessions, city.key)),
            contacts=Contacts(
                planner_email=request.planner_email,
                supervisor_email=request.supervisor_email or city.supervisor_email,
                attorney_email=request.attorney_email or city.attorney_email,
                applicant_email=request.applicant_email,
                applicant_name=request.applicant_name,
            ),
            reminder_offsets=list(request.reminder_offsets or city.reminder_offsets),
        )
        clock_events = [ClockEvent(e["type"], e["date"], recorded_by=who.email) for e in events]
        # A decided or withdrawn application keeps its id: never a fresh clock over it.
        await self.gateway.start(
            ShotClockWorkflow.run,
            ShotClockInput(application=info, events=clock_events),
            id=shot_clock_workflow_id(info.application_id),
            exists=f"application_id: {info.application_id} already exists (open or closed)",
        )
        summary = await self.summary(who, info.application_id)
        await wait_for(lambda: self._clock_row_exists(info.application_id))
        return summary

    def _clock_row_exists(self, application_id: str) -> bool:
        with self.sessions() as session:
            return session.get(Application, application_id) is not None

    # -- recording ------------------------------------------------------------------------

    async def record_event(
        self, who: Principal, application_id: str, action: str, fields: dict[str, Any]
    ) -> ClockUpdateResult:
        """The event `action` (a clock.* permission: SHOT_CLOCK_EVENTS) from a form."""
        if action not in SHOT_CLOCK_EVENTS:
            raise bad(f"unknown action {action!r}")
        require(who, action)
        return await self.record_from_fields(who, SHOT_CLOCK_EVENTS[action], application_id, fields)

    async def record_from_fields(
        self,
        who: Principal,
        kind: type[ShotClockEvent],
        application_id: str,
        fields: dict[str, Any],
    ) -> ClockUpdateResult:
        """The event `kind` (a request class of actions/shot_clock_requests.py, naming its
        permission and its workflow update) from a form's or a JSON body's fields."""
        require(who, kind.permission)
        return await self.record(who, kind.from_fields(application_id, fields))

    async def record(self, who: Principal, request: ShotClockEvent) -> ClockUpdateResult:
        """Record an event: the role check, then the ShotClockWorkflow update the request
        names (`request.update`); the workflow's validator decides."""
        require(who, request.permission)
        summary = await self.summary(who, request.application_id)
        when = request.date or _today(summary)
        if isinstance(request, RebaseShotClock):
            payload = self.rebase_payload(summary, request, who.email, when)
        else:
            payload = request.payload(who.email, when)
        result: ClockUpdateResult = await self.gateway.update(
            shot_clock_workflow_id(request.application_id),
            request.update,
            payload,
            result_type=ClockUpdateResult,
            closed=f"the application is already closed ({summary.clock['status']}); "
            "nothing was recorded",
        )
        wanted = result.clock.get("conservative_date"), result.clock.get("status")
        await wait_for(lambda: self._clock_row_is(request.application_id, wanted))
        return result

    async def announce_applicant_upload(
        self, application_id: str, upload: ApplicantUploadInput
    ) -> None:
        """Tell the planner an applicant uploaded a document (the clock's workflow e-mails
        them, once per file): the update `notify_applicant_upload`, which records nothing
        on the clock. No role check: the applicant's link is the credential, checked by
        the portal before the file was stored."""
        await self.gateway.update(
            shot_clock_workflow_id(application_id),
            "notify_applicant_upload",
            upload,
            result_type=type(None),
            closed=f"application {application_id} is closed",
        )

    def rebase_payload(
        self, summary: ClockSummary, request: RebaseShotClock, by: str, when: str
    ) -> RebaseInput:
        """The current pack and layers of the clock's city, with the stored closure days:
        read here, so the workflow never reads files or the database."""
        city = self.cities.get(summary.application.calendar.jurisdiction)
        closures = stored_closures(self.sessions, city.key)
        return rebase_input(city, request.reason, by, closures, when)

    async def reassign(
        self, who: Principal, application_id: str, email: str, reason: str = ""
    ) -> ClockUpdateResult:
        """Hand the application to another planner who can log in; answer once the read
        model (inboxes, lists, calendars) has them."""
        require(who, "clock.reassign")
        email = email.strip()
        with self.sessions() as session:
            row = session.get(Application, application_id)
        city = row.jurisdiction if row is not None else self.cities.home_key()
        owner_in_city(self.sessions, email, city, self.cities.home_key())
        result: ClockUpdateResult = await self.gateway.update(
            shot_clock_workflow_id(application_id),
            "reassign",  # ShotClockWorkflow's update
            ReassignInput(email, who.email, reason.strip()),
            result_type=ClockUpdateResult,
            closed="the application is already closed",
        )
        await wait_for(lambda: self._planner_is(application_id, email))
        return result

    def _planner_is(self, application_id: str, email: str) -> bool:
        with self.sessions() as session:
            row = session.get(Application, application_id)
            return row is not None and row.planner_email == email

    def _clock_row_is(self, application_id: str, wanted: tuple[Any, Any]) -> bool:
        with self.sessions() as session:
            row = session.get(Application, application_id)
            return row is not None and (row.conservative_date, row.status) == wanted

    async def preview_notice(
        self, who: Principal, application_id: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        require(who, RecordNotice.permission)
        if not parse_items(fields.get("items")):
            raise bad("pick at least one missing item, each with the rule that requires it")
        return await self.preview(who, RecordNotice.from_fields(application_id, fields))

    async def preview(self, who: Principal, request: RecordNotice) -> dict[str, Any]:
        """The letter a notice would send and the clock after it, judged by the same rules
        the workflow's validator applies; a defective notice is refused here."""
        from notices.render import NoticeRenderer
        from workflows.shot_clock_support import ClockState, incomplete_notice_event

        require(who, request.permission)
        summary = await self.summary(who, request.application_id)
        notice = request.payload(who.email, request.date or _today(summary))
        state = ClockState(
            ShotClockInput(
                application=summary.application,
                events=list(summary.events),
                event_sequence=len(summary.events),
            )
        )
        event = incomplete_notice_event(notice)
        now = datetime.now(UTC)
        try:
            state.check(event, now)
        except ValueError as refused:
            raise ActionFailed(str(refused), 409) from None
        before = summary.clock
        state.append(event)
        clock = state.clock(now)
        letter_request = state.event_notice(event, clock)
        letter = NoticeRenderer().render(letter_request) if letter_request is not None else None
        return {
            "date": notice.date,
            "items": [i.__dict__ for i in request.items],
            "to": letter_request.to if letter_request else [],
            "cc": letter_request.cc if letter_request else [],
            "subject": letter.subject if letter else "",
            "text": letter.text if letter else "",
            "before": {
                k: before.get(k) for k in ("status", "shot_clock_date", "conservative_date")
            },
            "after": {k: clock.get(k) for k in ("status", "shot_clock_date", "conservative_date")},
            "effect": next(
                (
                    e
                    for e in clock["ledger"]
                    if e["event"] == "incomplete_notice" and e["date"] == notice.date
                ),
                None,
            ),
            "warnings": [w for w in clock["warnings"] if w not in before.get("warnings", [])],
        }

    async def closure_everywhere(
        self, who: Principal, jurisdiction_key: str, day: str, reason: str = ""
    ) -> ClosureOutcome:
        """Add a closure day to every open clock of a jurisdiction (the clocks froze their
        calendars when opened, so each needs the update). The day is stored first
        (shot-clocks.md 8.10): clocks opened from then on start with it, and a fan-out
        that dies part way loses nothing. A JurisdictionClosureWorkflow carries it to the
        clocks, so it finishes even if this request or process does not; the request
        waits for it a little while."""
        from rules.shot_clock.outcomes import TERMINAL_STATUSES
        from workflows.jurisdiction_closure import JurisdictionClosureWorkflow

        require(who, AddLocalClosure.permission)
        day = check_date(day, "date", required=True) or ""
        self.cities.get(jurisdiction_key)
        if not store_closure(self.sessions, jurisdiction_key, day, reason, who.email):
            raise ActionFailed(f"{day} is already a closure day for {jurisdiction_key}", 409)
        with self.sessions() as session:
            ids = sorted(
                session.scalars(
                    select(Application.application_id).where(
                        Application.jurisdiction == jurisdiction_key,
                        Application.status.not_in(TERMINAL_STATUSES),
                    )
                )
            )
            permit_ids = open_permit_clocks(session, jurisdiction_key)
        record_fan_out(self.sessions, jurisdiction_key, day, [*ids, *permit_ids])
        client = await self.gateway.client()
        workflow_id = closure_workflow_id(jurisdiction_key, day)
        try:
            handle = await client.start_workflow(
                JurisdictionClosureWorkflow.run,
                JurisdictionClosureInput(
                    jurisdiction_key, day, who.email, ids, permit_ids, reason=reason
                ),
                id=workflow_id,
                task_queue=self.gateway.task_queue,
            )
        except WorkflowAlreadyStartedError:
            handle = client.get_workflow_handle(workflow_id, result_type=JurisdictionClosureResult)
        try:
            result: JurisdictionClosureResult = await asyncio.wait_for(
                handle.result(), CLOSURE_WAIT_SECONDS
            )
        except TimeoutError:
            return ClosureOutcome(
                targeted=ids, changed=None, refused=[], permit_targeted=permit_ids
            )
        refused = [*result.refused, *result.permit_refused]
        if refused and not (result.changed or result.permit_changed):
            raise ActionFailed("; ".join(refused), 409)
        return ClosureOutcome(
            targeted=ids,
            changed=result.changed,
            refused=result.refused,
            permit_targeted=permit_ids,
            permit_changed=result.permit_changed,
            permit_refused=result.permit_refused,
        )


def open_permit_clocks(session: Session, jurisdiction_key: str) -> list[str]:
    """The permit clocks of a jurisdiction whose workflow still runs: not met, withdrawn
    or expired, or with a chained clock still to be met (`next_deadline`)."""
    from workflows.permit_clock_support import DONE_STATUSES

    row = PermitClockRow
    finished = or_(
        row.status.in_(DONE_STATUSES),
        and_(row.status == "lapsed", row.consequence == "expired"),
    )
    return sorted(
        session.scalars(
            select(row.clock_id).where(
                row.jurisdiction == jurisdiction_key,
                or_(~finished, and_(row.next_deadline.is_not(None), row.status != "lapsed")),
            )
        )
    )


def _today(summary: ClockSummary) -> str:
    """'Today' where the clock's city is: the date an event without one gets."""
    return pendulum.now(summary.application.calendar.time_zone).date().isoformat()
