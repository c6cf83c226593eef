"""What the shot clock and the permit clock workflows share: the activity options, the
search attributes both set, the closure-day check, and the steps of their main loop
(sleeping until the next alert or an update, continuing as new when Temporal suggests
it).

Passed through the workflow sandbox by the worker (`worker.WORKFLOW_RUNNER`): imported
once per process. No I/O and no wall clock; the loop helpers only call the `workflow`
API, so a workflow using them emits exactly the commands it would inline.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, Generic, Protocol, TypeVar

from temporalio import workflow
from temporalio.common import RetryPolicy, SearchAttributeKey, SearchAttributeUpdate

from rules.kernel.input import TimelineError, parse_date

# Shared by both kinds of clock (same names in the Temporal UI).
CONSERVATIVE_DATE = SearchAttributeKey.for_datetime("ConservativeDate")
CLOCK_STATUS = SearchAttributeKey.for_keyword("ClockStatus")
JURISDICTION = SearchAttributeKey.for_keyword("Jurisdiction")

RECORD_TIMEOUT = timedelta(seconds=30)
NOTICE_TIMEOUT = timedelta(seconds=60)
# Retry for as long as it takes: a deadline notice must not be dropped because the mail
# server or the database was down for a while.
RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=5))

# Notices and read-model writes run as local activities, in the workflow task that
# decides them. A scheduled activity costs a workflow task of its own to take its result:
# in an 08:00 storm that task found the clock evicted again and replayed it a second time
# (every storm clock twice), and a clock's opening took three tasks where one does
# (docs/storm.md, "The fifth round"). The activities are the same code with the same
# guarantees: a notice checks and records its row before it mails, so a retry after a
# crash resends the same letter (same Message-ID) or nothing; a record is an upsert.
# Patched: a run that began before this keeps scheduling them on the task queue when it is
# replayed.
LOCAL_ACTIVITIES = "notices-and-records-as-local-activities"
# A clock's opening records the clock and its events in one local activity, not one each:
# every local activity costs each later replay of the clock an activation (an evicted
# clock is replayed at every reminder). Patched: a run that began before this replays the
# records it made one by one.
ONE_RECORD_AT_OPENING = "one-record-at-opening"


class Timed(Protocol):
    @property
    def fire_at(self) -> datetime: ...


class Planned(Timed, Protocol):
    """An alert of either clock (rules.alerts.Alert, permit_clock_support.PermitAlert)."""

    @property
    def key(self) -> str: ...

    @property
    def kind(self) -> str: ...


class Numbered(Protocol):
    """An event of either clock (ClockEvent, PermitEvent)."""

    type: str
    event_id: str


EventT = TypeVar("EventT", bound=Numbered)
EventT_co = TypeVar("EventT_co", bound=Numbered, covariant=True)
AlertT = TypeVar("AlertT", bound=Planned)


class CarriedTimeline(Protocol[EventT_co]):
    """What either clock's workflow input carries of its timeline (ShotClockInput,
    PermitClockInput)."""

    @property
    def events(self) -> Sequence[EventT_co]: ...

    @property
    def sent_alert_keys(self) -> Sequence[str]: ...

    @property
    def skipped_alert_keys(self) -> Sequence[str]: ...

    @property
    def event_sequence(self) -> int: ...


class Timeline(Generic[EventT]):
    """What both clocks' states keep alike: the timeline, numbered so that each event's
    id (its read-model key, "0001-submitted") is the same on every replay, and the keys
    of the alerts sent or skipped. Carried across continue-as-new by the clock's input."""

    def __init__(self, input: CarriedTimeline[EventT]) -> None:
        self.events: list[EventT] = list(input.events)
        self.sent: set[str] = set(input.sent_alert_keys)
        self.skipped: set[str] = set(input.skipped_alert_keys)
        self.seq = input.event_sequence
        # A continued run already recorded its events; a first run numbers and records them.
        self.first_run = input.event_sequence == 0
        if self.first_run:
            for event in self.events:
                self.seq += 1
                event.event_id = event.event_id or f"{self.seq:04d}-{event.type}"

    def append(self, event: EventT) -> None:
        self.seq += 1
        event.event_id = f"{self.seq:04d}-{event.type}"
        self.events.append(event)

    def pending(self, alerts: Sequence[AlertT]) -> list[AlertT]:
        """The alerts neither sent nor skipped yet, in firing order."""
        done = self.sent | self.skipped
        return [a for a in alerts if a.key not in done]

    def upcoming(self, alerts: Sequence[AlertT], now: datetime) -> list[dict[str, str]]:
        """The pending alerts still to fire after `now`, as a summary lists them."""
        return [
            {"key": a.key, "kind": a.kind, "fire_at": a.fire_at.isoformat()}
            for a in self.pending(alerts)
            if a.fire_at > now
        ]


def sa_date(value: str | None) -> datetime | None:
    """A clock's ISO date as a search attribute's instant (midnight UTC)."""
    return None if not value else datetime.fromisoformat(value).replace(tzinfo=UTC)


def date_attributes(
    clock: dict[str, Any], keys: Sequence[tuple[SearchAttributeKey[datetime], str]]
) -> list[SearchAttributeUpdate[Any]]:
    """Set each date attribute from the clock's field, or unset it when there is none."""
    updates: list[SearchAttributeUpdate[Any]] = []
    for key, field in keys:
        value = sa_date(clock.get(field))
        updates.append(key.value_unset() if value is None else key.value_set(value))
    return updates


def check_closure_day(day: str, closed: Callable[[str], bool]) -> None:
    """Refuse (ValueError, an update's rejection) a closure day that is not a date or
    that the clock's calendar already closes: the same day twice changes nothing. The
    fan-out's activity recognises the words "already a local closure day"."""
    try:
        parse_date(day, "date")
    except TimelineError as err:
        raise ValueError(str(err)) from None
    if closed(day):
        raise ValueError(f"{day} is already a local closure day")


async def continue_as_new_if_suggested(carry_over: Callable[[], Any]) -> None:
    """Continue as new with the state once the history is long, after the handlers
    running now have finished (an update is never cut off)."""
    if workflow.info().is_continue_as_new_suggested():
        await workflow.wait_condition(workflow.all_handlers_finished)
        workflow.continue_as_new(carry_over())


def next_wake(upcoming: Sequence[Timed], now: datetime) -> timedelta | None:
    """How long to sleep: until the first pending alert, or until woken (None)."""
    return (upcoming[0].fire_at - now) if upcoming else None


async def sleep_until(timeout: timedelta | None, woken: Callable[[], bool]) -> None:
    """Sleep for `timeout` (one timer), or less when `woken` turns true (an update or a
    signal changed the timeline)."""
    with contextlib.suppress(TimeoutError):
        await workflow.wait_condition(woken, timeout=timeout)


async def _run(activity_name: str, arg: Any, timeout: timedelta) -> None:
    """Run an activity until it succeeds: local unless the run began before that patch."""
    if workflow.patched(LOCAL_ACTIVITIES):
        await workflow.execute_local_activity(
            activity_name, arg, start_to_close_timeout=timeout, retry_policy=RETRY
        )
    else:
        await workflow.execute_activity(
            activity_name, arg, start_to_close_timeout=timeout, retry_policy=RETRY
        )


async def record(activity_name: str, arg: Any) -> None:
    """Write to the read model through a local activity (retried until it lands)."""
    await _run(activity_name, arg, RECORD_TIMEOUT)


async def record_clock(
    activity_name: str,
    row: Any,
    events: Sequence[Any],
    record_event: Callable[[Any], Awaitable[None]],
    *,
    opening: bool,
) -> None:
    """Write the clock's read-model row (`row`, with an `events` field). At the clock's
    opening its events go with it in the same local activity (ONE_RECORD_AT_OPENING); a run
    that began before that patch records them one by one with `record_event`."""
    if opening and workflow.patched(ONE_RECORD_AT_OPENING):
        row.events = list(events)
        await record(activity_name, row)
        return
    await record(activity_name, row)
    if opening:
        for event in events:
            await record_event(event)


async def send(activity_name: str, arg: Any) -> None:
    """Send a notice through a local activity (retried until it is delivered)."""
    await _run(activity_name, arg, NOTICE_TIMEOUT)


def days_moved(before: dict[str, Any], after: dict[str, Any]) -> int | None:
    """How many days the conservative date moved (a ledger line's `days`), if both exist."""
    old, new = before.get("conservative_date"), after.get("conservative_date")
    if not old or not new:
        return None
    return (date.fromisoformat(new) - date.fromisoformat(old)).days
