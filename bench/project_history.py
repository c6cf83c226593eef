"""Conditions of approval: how much workflow history one project makes in a year.

One ProjectWorkflow (the 133-condition Cotati Village resolution) on a dev server with
per-workflow time skipping, the real worker (`worker.build_worker`) in this process. A
year of typical activity, moved forward week by week with `fast_forward`:

- week 0: the PM sets planned dates (groundbreaking in month 4, construction through
  month 20) and milestone targets; they move once in week 20;
- evidence for every condition in force, spread over weeks 1-44 in milestone order
  (about three a week, on Tuesdays); each is reviewed by its department on a Thursday:
  most the following week, some the same week, some two weeks later (past the 10
  business-day service level, so reminders and escalations fire); about 15% are
  returned with a comment, resubmitted the next week and then cleared;
- a conditional condition is triggered (week 10) and satisfied; a few corrections
  (gates for conditions the parser left unspecified); a digest requested by the PM each
  month; engineering signs off each milestone up to the building permit and
  pre-construction as soon as nothing blocks it (final inspection, occupancy and
  acceptance come in year two);
- between the actions the workflow's own timers fire: weekly applicant digests, target
  digests, review reminders and escalations, seasonal windows, construction check-ins.

Then the history is fetched run by run (following continue-as-new) and the events and
their payload bytes per year are reported, with a recommended continue-as-new threshold.

    .venv/bin/python -m bench.project_history [--weeks 52] [--seed 7] [--json [PATH]]
"""

from __future__ import annotations

import asyncio
import dataclasses
import email
import random
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from datetime import time as clock_time
from email import policy
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment

from actions.resolution_files import extract_text
from bench.common import add_json_option, command_line, exit_now, write_json
from bench.harness import bench_settings
from models.conditions import (
    RESOLVED_STATUSES,
    Actor,
    CorrectionInput,
    DigestRequestInput,
    PlannedDatesInput,
    ProjectInput,
    ReviewInput,
    SignOffInput,
    SubmitEvidenceInput,
    TriggerInput,
)
from models.workflow_ids import project_workflow_id
from rules.conditions.gates import load_milestones
from rules.conditions.lifecycle import DORMANT_KINDS
from rules.conditions.onboarding import new_project
from rules.conditions.parser import parse_resolution
from rules.kernel.jurisdictions import jurisdiction
from stack.demo import COTATI_VILLAGE_RESOLUTION
from stack.temporal_server import TIME_SKIPPING_ARGS, temporal_binary
from worker import build_worker
from workflows.project import ProjectWorkflow

# Temporal server defaults (dynamic config) the figures are compared with.
SUGGEST_EVENTS = 4 * 1024  # limit.historyCount.suggestContinueAsNew
SUGGEST_BYTES = 4 * 1024 * 1024  # limit.historySize.suggestContinueAsNew
WARN_EVENTS = 10 * 1024  # limit.historyCount.warn
LIMIT_EVENTS = 50 * 1024  # limit.historyCount.error: the run is terminated
LIMIT_BYTES = 50 * 1024 * 1024  # limit.historySize.error
MAX_UPDATES_PER_RUN = 2000  # history.maxTotalUpdates
# Events only the time-skipping test server writes (fast-forwards): not in production.
TIME_SKIPPING_EVENTS = frozenset(
    {"WORKFLOW_EXECUTION_TIME_SKIPPING_TRANSITIONED", "WORKFLOW_EXECUTION_OPTIONS_UPDATED"}
)

PM = Actor("pm@cotati.example", "project_manager")
APPLICANT = Actor("applicant@cotati-village.example", "applicant")
ENGINEER = Actor("city.engineer@cotati.example", "engineering")
PLANNING_MANAGER = Actor("planning.manager@cotati.example", "planning_manager")
# Milestones engineering signs off in the first year (the milestone file's, up to and
# including pre-construction); the rest come with occupancy.
_MILESTONES = load_milestones().keys
YEAR_ONE_SIGNOFFS = tuple(_MILESTONES[: _MILESTONES.index("pre_construction") + 1])
EVIDENCE_WEEKS = 44
RETURN_RATE = 0.15
TRIGGER_WEEK = 10
CORRECTION_WEEKS = (2, 5, 9, 14, 20)
REPLAN_WEEK = 20
DIGEST_EVERY_WEEKS = 4


def reviewer(department: str) -> Actor:
    return Actor(f"{department}@cotati.example", "department_reviewer", department)


@dataclasses.dataclass
class Plan:
    """What happens in which week: (week, slot) -> actions."""

    submit: dict[int, list[str]] = dataclasses.field(default_factory=lambda: defaultdict(list))
    review: dict[int, list[str]] = dataclasses.field(default_factory=lambda: defaultdict(list))


@dataclasses.dataclass
class Tally:
    updates: Counter[str] = dataclasses.field(default_factory=Counter)
    refused: list[str] = dataclasses.field(default_factory=list)
    returned: int = 0
    signed_off: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    clock_checks: list[tuple[int, str]] = dataclasses.field(default_factory=list)


class Year:
    def __init__(
        self,
        env: WorkflowEnvironment,
        handle: WorkflowHandle[Any, Any],
        start: ProjectInput,
        seed: int,
    ) -> None:
        self.env = env
        self.handle = handle
        self.start = start
        self.rng = random.Random(seed)
        self.tz = ZoneInfo(start.info.time_zone)
        self.tally = Tally()
        self.department = {c.spec.number: c.department_key for c in start.conditions}
        self.plan = Plan()
        self.related = {c.spec.number: list(c.spec.related) for c in start.conditions}
        self.will_return: set[str] = set()
        self.returned_once: set[str] = set()
        self.cleared: set[str] = set()  # cleared here, or with a linked duplicate

    # -- time ---------------------------------------------------------------------------

    async def now(self) -> datetime:
        return await self.env.get_current_time(self.handle)

    async def forward_to(self, instant: datetime) -> None:
        now = await self.now()
        if instant > now:
            await self.env.fast_forward(self.handle, instant - now)

    def slot(self, week: int, weekday: int, at: clock_time) -> datetime:
        """Local wall-clock time on `weekday` (0 = Monday) of project week `week`."""
        day = self.monday + timedelta(weeks=week, days=weekday)
        return datetime.combine(day, at, tzinfo=self.tz)

    # -- actions --------------------------------------------------------------------------

    async def update(self, name: str, payload: Any) -> Any:
        try:
            result = await self.handle.execute_update(name, payload)
        except WorkflowUpdateFailedError as err:
            self.tally.refused.append(f"{name}: {err.cause}")
            return None
        self.tally.updates[name] += 1
        return result

    async def query(self, query: Any, *args: Any) -> Any:
        """Query, waiting out a run that continued as new and has no workflow task yet."""
        for attempt in range(100):
            try:
                return await self.handle.query(query, *args)
            except RPCError as err:
                if err.status != RPCStatusCode.FAILED_PRECONDITION or attempt == 99:
                    raise
                await asyncio.sleep(0.05)
        raise AssertionError("unreachable")

    async def status(self) -> dict[str, Any]:
        return await self.query(ProjectWorkflow.status_by_milestone)

    async def statuses(self) -> dict[str, str]:
        conditions = await self.query(ProjectWorkflow.conditions)
        return {c["number"]: c["status"] for c in conditions}

    def make_plan(self) -> None:
        """Evidence in milestone order over the evidence weeks; reviews 0-2 weeks later."""
        order = {m: i for i, m in enumerate(self.start.info.milestones)}
        in_force = [
            c
            for c in self.start.conditions
            if c.spec.kind != "advisory" and c.spec.kind not in DORMANT_KINDS
        ]
        in_force.sort(
            key=lambda c: (min(order.get(g, 99) for g in c.spec.gates), int(c.spec.number))
        )
        for i, c in enumerate(in_force):
            week = 1 + i * EVIDENCE_WEEKS // len(in_force)
            self.plan.submit[week].append(c.spec.number)
        self.will_return = {c.spec.number for c in in_force if self.rng.random() < RETURN_RATE}

    def review_week(self, submitted_week: int) -> int:
        r = self.rng.random()
        return submitted_week + (0 if r < 0.15 else 1 if r < 0.85 else 2)

    async def set_dates(self, shift_days: int = 0) -> None:
        today = self.monday
        d = lambda days: (today + timedelta(days=days + shift_days)).isoformat()  # noqa: E731
        await self.update(
            "set_planned_dates",
            PlannedDatesInput(
                PM,
                groundbreaking=d(120),
                grading_start=d(120),
                grading_end=d(240),
                construction_end=d(600),
                milestone_targets={
                    "improvement_plan_approval": d(60),
                    "grading_permit": d(110),
                    "building_permit": d(200),
                    "occupancy": d(600),
                },
            ),
        )

    async def submit(self, week: int, number: str, again: bool = False) -> None:
        what = "revised documents" if again else "documents showing compliance"
        result = await self.update(
            "submit_evidence",
            SubmitEvidenceInput(number, APPLICANT, f"{what} for #{number}", f"c{number}.pdf"),
        )
        if result is not None:
            self.plan.review[self.review_week(week)].append(number)

    async def review(self, week: int, number: str) -> None:
        actor = reviewer(self.department[number])
        if number in self.will_return and number not in self.returned_once:
            self.returned_once.add(number)
            self.tally.returned += 1
            result = await self.update(
                "review_condition",
                ReviewInput(number, actor, "returned", "incomplete: see the redlines attached"),
            )
            if result is not None:
                self.plan.submit[week + 1].append(f"again:{number}")
            return
        if await self.update("review_condition", ReviewInput(number, actor, "cleared")):
            self.cleared.update([number, *self.related[number]])

    async def sign_offs(self, week: int) -> None:
        status = await self.status()
        for m in status["milestones"]:
            name = m["milestone"]
            if name not in YEAR_ONE_SIGNOFFS or m["blocking"] or m["signed_off"]:
                continue
            if await self.update("sign_off_milestone", SignOffInput(name, ENGINEER)):
                self.tally.signed_off.append((week, name))

    async def correct(self, week: int) -> None:
        conditions = await self.query(ProjectWorkflow.conditions)
        unspecified = [c for c in conditions if c["gates"] == ["unspecified"]]
        if unspecified:
            c = unspecified[0]
            await self.update(
                "correct_condition",
                CorrectionInput(
                    c["number"],
                    PM,
                    f"staff review (week {week}): the condition applies before occupancy",
                    gates=["occupancy"],
                ),
            )

    async def trigger_one(self, week: int) -> None:
        dormant = [c for c in self.start.conditions if c.spec.kind == "conditional"]
        if dormant:
            number = dormant[0].spec.number
            await self.update(
                "trigger_condition", TriggerInput(number, PM, "requested by the tribe in writing")
            )
            self.plan.submit[week + 1].append(number)

    # -- the year ---------------------------------------------------------------------------

    async def run(self, weeks: int) -> None:
        start = (await self.now()).astimezone(self.tz).date()
        self.monday = start - timedelta(days=start.weekday()) + timedelta(weeks=1)
        self.make_plan()
        await self.forward_to(self.slot(0, 0, clock_time(10, 0)))
        await self.set_dates()
        t0 = time.monotonic()
        for week in range(weeks):
            await self.forward_to(self.slot(week, 1, clock_time(10, 0)))  # Tuesday
            # A duplicate cleared with its twin (linked conditions) needs nothing more.
            status = await self.statuses()
            for item in self.plan.submit.get(week, []):
                number = item.removeprefix("again:")
                if status[number] not in RESOLVED_STATUSES and number not in self.cleared:
                    await self.submit(week, number, item.startswith("again:"))
            if week in CORRECTION_WEEKS:
                await self.correct(week)
            if week == TRIGGER_WEEK:
                await self.trigger_one(week)
            if week == REPLAN_WEEK:
                await self.set_dates(shift_days=21)
            if week % DIGEST_EVERY_WEEKS == 2:
                await self.update("send_digest", DigestRequestInput(PM))
            await self.forward_to(self.slot(week, 3, clock_time(14, 0)))  # Thursday
            status = await self.statuses()
            for number in self.plan.review.get(week, []):
                if status[number] not in RESOLVED_STATUSES and number not in self.cleared:
                    await self.review(week, number)
            await self.sign_offs(week)
            now = await self.now()
            self.tally.clock_checks.append((week, now.isoformat()))
            if week % 4 == 3:
                print(
                    f"  week {week + 1:>2}: {sum(self.tally.updates.values())} updates, "
                    f"{len(self.tally.signed_off)} sign-offs, virtual {now:%Y-%m-%d} "
                    f"({time.monotonic() - t0:.0f} s)",
                    flush=True,
                )
        await self.forward_to(self.slot(weeks, 0, clock_time(10, 0)))


# -- history ------------------------------------------------------------------------------


async def run_ids(client: Client, workflow_id: str, first_run: str) -> list[str]:
    """The chain of runs from `first_run`, following continue-as-new."""
    runs = [first_run]
    while True:
        history = await client.get_workflow_handle(workflow_id, run_id=runs[-1]).fetch_history()
        last = history.events[-1]
        if last.event_type != EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
            return runs
        runs.append(last.workflow_execution_continued_as_new_event_attributes.new_execution_run_id)


async def history_figures(client: Client, workflow_id: str, first_run: str) -> dict[str, Any]:
    per_run = []
    kinds: Counter[str] = Counter()
    kind_bytes: Counter[str] = Counter()
    largest = (0, "")
    for run_id in await run_ids(client, workflow_id, first_run):
        handle = client.get_workflow_handle(workflow_id, run_id=run_id)
        history = await handle.fetch_history()
        info = (await handle.describe()).raw_description.workflow_execution_info
        counted = 0
        counted_bytes = 0
        for e in history.events:
            kind = EventType.Name(e.event_type).removeprefix("EVENT_TYPE_")
            size = e.ByteSize()
            kinds[kind] += 1
            kind_bytes[kind] += size
            if kind not in TIME_SKIPPING_EVENTS:
                counted += 1
                counted_bytes += size
            if size > largest[0]:
                largest = (size, kind)
        first = history.events[0].workflow_execution_started_event_attributes
        per_run.append(
            {
                "run_id": run_id,
                "events": counted,
                "bytes": counted_bytes,
                "server_history_length": info.history_length,
                "server_history_size_bytes": info.history_size_bytes,
                "input_bytes": sum(p.ByteSize() for p in first.input.payloads),
                "updates": sum(
                    1
                    for e in history.events
                    if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
                ),
                "ended": EventType.Name(history.events[-1].event_type).removeprefix("EVENT_TYPE_"),
            }
        )
    artifacts = sum(kinds[k] for k in TIME_SKIPPING_EVENTS)
    events = sum(r["events"] for r in per_run)
    size = sum(r["bytes"] for r in per_run)
    return {
        "runs": len(per_run),
        "events": events,
        "time_skipping_events_excluded": artifacts,
        "bytes": size,
        "mib": size / 2**20,
        "bytes_per_event": size / events,
        "largest_event_bytes": largest[0],
        "largest_event_type": largest[1],
        "per_run": per_run,
        "event_types": dict(kinds.most_common()),
        "event_type_bytes": dict(kind_bytes.most_common()),
    }


def notices_sent(outbox: Path) -> dict[str, int]:
    """Messages in the outbox by kind (the notice key after the project id)."""
    kinds: Counter[str] = Counter()
    for path in outbox.glob("*.eml"):
        with path.open("rb") as f:
            message = email.message_from_binary_file(f, policy=policy.default)
        key = str(message["X-Clearance-Notice-Key"]).split(":")
        kinds[":".join(key[1:3]) if key[1] == "digest" else key[1]] += 1
    return dict(kinds.most_common())


def recommend(figures: dict[str, Any], weeks: int) -> dict[str, Any]:
    """A continue-as-new threshold from the measured year."""
    per_year = 52 / weeks
    events_year = figures["events"] * per_year
    bytes_year = figures["bytes"] * per_year
    events_per_mib = figures["events"] / max(figures["mib"], 1e-9)
    events_at_suggested_size = events_per_mib * SUGGEST_BYTES / 2**20
    return {
        "events_per_year": round(events_year),
        "mib_per_year": bytes_year / 2**20,
        "events_per_mib": events_per_mib,
        # Bytes bind first when a run reaches the size suggestion before the event one.
        "binding_limit": "history size"
        if events_at_suggested_size < SUGGEST_EVENTS
        else "event count",
        "events_per_run_at_suggested_size": round(events_at_suggested_size),
        "events_per_run_at_hard_size_limit": round(events_per_mib * LIMIT_BYTES / 2**20),
        "weeks_per_run": 52 / max(bytes_year / SUGGEST_BYTES, events_year / SUGGEST_EVENTS, 1e-9),
        "years_to_suggested_events": SUGGEST_EVENTS / events_year,
        "years_to_suggested_bytes": SUGGEST_BYTES / bytes_year,
        "years_to_hard_event_limit": LIMIT_EVENTS / events_year,
        "years_to_hard_size_limit": LIMIT_BYTES / bytes_year,
        "threshold": (
            f"continue-as-new at {SUGGEST_BYTES // 2**20} MiB or {SUGGEST_EVENTS:,} events, "
            "whichever comes first"
        ),
    }


async def measure(weeks: int = 52, seed: int = 7) -> dict[str, Any]:
    env = await WorkflowEnvironment.start_time_skipping_v2(
        dev_server_existing_path=str(temporal_binary()),
        dev_server_extra_args=list(TIME_SKIPPING_ARGS),
    )
    try:
        with tempfile.TemporaryDirectory(prefix="clearance-history-") as tmp:
            settings = dataclasses.replace(
                bench_settings(Path(tmp)), task_queue=f"bench-history-{uuid.uuid4()}"
            )
            with ThreadPoolExecutor(max_workers=8) as pool:
                async with build_worker(env.client, settings, executor=pool):
                    result = await simulate(env, settings.task_queue, weeks, seed)
            result["notices"] = notices_sent(settings.outbox_dir)
            return result
    finally:
        await env.shutdown()


async def simulate(
    env: WorkflowEnvironment, task_queue: str, weeks: int, seed: int
) -> dict[str, Any]:
    parsed = parse_resolution(extract_text(COTATI_VILLAGE_RESOLUTION))
    start = new_project(
        parsed,
        project_id=f"HISTORY-{uuid.uuid4().hex[:6].upper()}",
        name="Cotati Village (a year of activity)",
        city=jurisdiction("cotati"),
        applicant_name="Cotati Village Partners",
        applicant_email=APPLICANT.email,
        project_manager_email=PM.email,
    )
    workflow_id = project_workflow_id(start.info.project_id)
    with env.with_time_skipping_disabled():
        first = await env.client.start_workflow(
            ProjectWorkflow.run, start, id=workflow_id, task_queue=task_queue
        )
    first_run = first.result_run_id or ""
    # A handle without a run id follows the workflow across continue-as-new.
    handle = env.client.get_workflow_handle(workflow_id)
    year = Year(env, handle, start, seed)
    t0 = time.monotonic()
    await year.run(weeks)
    elapsed = time.monotonic() - t0
    figures = await history_figures(env.client, workflow_id, first_run)
    result = {
        "weeks": weeks,
        "conditions": len(start.conditions),
        "simulated_in_s": elapsed,
        "updates": dict(year.tally.updates),
        "updates_total": sum(year.tally.updates.values()),
        "returned": year.tally.returned,
        "refused": year.tally.refused,
        "signed_off": year.tally.signed_off,
        "virtual_end": year.tally.clock_checks[-1][1] if year.tally.clock_checks else None,
        "history": figures,
    }
    result["recommendation"] = recommend(result["history"], weeks)
    return result


def report(result: dict[str, Any]) -> list[str]:
    h, r = result["history"], result["recommendation"]
    largest_run = max(h["per_run"], key=lambda x: x["events"])
    lines = [
        f"simulated {result['weeks']} weeks of Cotati Village ({result['conditions']} "
        f"conditions) in {result['simulated_in_s']:.0f} s: {result['updates_total']} updates "
        f"({result['returned']} returned), {len(result['signed_off'])} sign-offs, "
        f"{len(result['refused'])} refused",
        f"notices the workflow sent: {sum(result['notices'].values())} ("
        + ", ".join(f"{kind} {n}" for kind, n in result["notices"].items())
        + ")",
        f"history: {h['events']:,} events in {h['runs']} run(s), {h['mib']:.1f} MiB of events "
        f"({h['bytes_per_event']:,.0f} B/event; largest {h['largest_event_bytes']:,} B, "
        f"{h['largest_event_type']})",
        f"(not counted: {h['time_skipping_events_excluded']} events only the time-skipping "
        f"server writes); by size: "
        + ", ".join(
            f"{kind} {size / h['bytes']:.0%}"
            for kind, size in list(h["event_type_bytes"].items())[:3]
        ),
        f"largest run: {largest_run['events']:,} events, "
        f"{largest_run['bytes'] / 2**20:.1f} MiB (ended "
        f"{largest_run['ended']})",
        f"per project per year: {r['events_per_year']:,} events, {r['mib_per_year']:.1f} MiB; "
        f"{r['events_per_mib']:.0f} events per MiB: the {r['binding_limit']} limit binds first",
        f"a run holds ~{r['events_per_run_at_suggested_size']:,} events at "
        f"{SUGGEST_BYTES // 2**20} MiB and ~{r['events_per_run_at_hard_size_limit']:,} at the "
        f"{LIMIT_BYTES // 2**20} MiB hard limit (an event threshold of {WARN_EVENTS:,} alone "
        f"would be {WARN_EVENTS / r['events_per_mib']:.0f} MiB)",
        f"years to the server's suggestion ({SUGGEST_EVENTS:,} events / "
        f"{SUGGEST_BYTES // 2**20} MiB): {r['years_to_suggested_events']:.2f} / "
        f"{r['years_to_suggested_bytes']:.2f}; to the hard limits ({LIMIT_EVENTS:,} events / "
        f"{LIMIT_BYTES // 2**20} MiB): {r['years_to_hard_event_limit']:.2f} / "
        f"{r['years_to_hard_size_limit']:.2f}",
        f"recommended: {r['threshold']} (the server's defaults, which the workflow follows): "
        f"a new run every ~{r['weeks_per_run']:.0f} weeks",
    ]
    return lines


def main() -> None:
    parser = command_line(__doc__)
    parser.add_argument("--weeks", type=int, default=52, help="weeks of activity simulated")
    parser.add_argument("--seed", type=int, default=7, help="random seed (returns, delays)")
    add_json_option(parser, stdout=True)
    args = parser.parse_args()
    result = asyncio.run(measure(args.weeks, args.seed))
    result["summary"] = report(result)
    for line in result["summary"]:
        print(line)
    write_json(args.json, result)
    exit_now()


if __name__ == "__main__":
    main()
