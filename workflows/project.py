"""ProjectWorkflow: one long-lived workflow per development project and its conditions
of approval.

It keeps each condition's status, evidence, comments and the audit log; refuses, in
validators, every action the rules forbid (a sign-off with open blockers, a review by
the wrong department, a waiver without a reason); and sleeps until the next review
service level, applicant digest, seasonal window or construction check-in. Side effects
(the read model, notices) are activities. It lives for years: continue-as-new carries
the state.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime, timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities import names as activity
    from models.conditions import (
        CLEARED,
        IN_REVIEW,
        KINDS,
        OPEN,
        RESOLVED_STATUSES,
        RETURNED,
        SUBMITTED,
        ActionResult,
        Actor,
        AuditEvent,
        Comment,
        ConditionState,
        CorrectionInput,
        DigestPauseInput,
        DigestRequestInput,
        Evidence,
        ImportConditionsInput,
        MilestoneSignoff,
        PlannedDatesInput,
        ProjectInput,
        ProjectNoticeRequest,
        ProjectRecord,
        ReassignConditionInput,
        ResolveInput,
        ReviewInput,
        SignOffInput,
        SubmitEvidenceInput,
        TriggerInput,
    )
    from rules.conditions import lifecycle
    from rules.conditions.alerts import (
        condition_summary,
        digest_details,
        evidence_dates,
        plan_project_alerts,
    )
    from rules.conditions.planned_dates import PlannedDates
    from rules.conditions.progress import next_milestone_of
    from rules.conditions.window_schedule import schedule
    from rules.kernel.alerts import Alert
    from rules.kernel.input import TimelineError, parse_date

RECORD_TIMEOUT = timedelta(seconds=60)
NOTICE_TIMEOUT = timedelta(seconds=60)
RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=5))
# Audit events kept in workflow state across continue-as-new; older ones live in the DB.
AUDIT_KEPT_IN_STATE = 500
# Patch id: a condition returned with comments e-mails the applicant at once.
RETURNED_LETTER = "returned-with-comments-letter"


@workflow.defn
class ProjectWorkflow:
    @workflow.init
    def __init__(self, input: ProjectInput) -> None:
        self._info = input.info
        self._conditions: list[ConditionState] = list(input.conditions)
        self._by_number = {c.spec.number: c for c in self._conditions}
        self._position = {c.spec.number: i for i, c in enumerate(self._conditions)}
        # Each run records every condition once, then only what changed.
        self._unsynced_numbers: set[str] = set(self._by_number)
        self._planned: dict[str, Any] = dict(input.planned)
        self._signoffs: list[MilestoneSignoff] = list(input.signoffs)
        self._audit: list[AuditEvent] = list(input.audit)
        self._unsynced_audit: list[AuditEvent] = []
        self._sent: set[str] = set(input.sent_alert_keys)
        self._skipped: set[str] = set(input.skipped_alert_keys)
        self._seq = input.sequence
        self._digests_paused = input.digests_paused
        self._dirty = True
        self._lock = asyncio.Lock()
        if self._seq == 0:
            importer = Actor(
                input.imported_by or self._info.project_manager_email, "project_manager"
            )
            self._log(
                importer,
                "imported",
                None,
                details={
                    "conditions": len(self._conditions),
                    "warnings": list(input.imported_warnings),
                },
            )
            for correction in input.import_corrections:
                number = correction.split(" ", 1)[0].lstrip("#")
                self._log(importer, "corrected_at_import", number, reason=correction)
            for line in input.history:  # a caseload file's statuses and sign-offs
                actor = Actor(line.actor, line.role)
                self._log(actor, line.action, line.condition_number, line.reason, line.details)

    # -- bookkeeping ----------------------------------------------------------------------

    def _now(self) -> datetime:
        return workflow.now()

    def _log(
        self,
        actor: Actor,
        action: str,
        number: str | None,
        reason: str = "",
        details: dict[str, Any] | None = None,
    ) -> AuditEvent:
        self._seq += 1
        event = AuditEvent(
            audit_id=f"{self._seq:06d}",
            at=self._now().isoformat(),
            actor=actor.email,
            role=actor.role,
            action=action,
            condition_number=number,
            reason=reason,
            details=details or {},
        )
        self._audit.append(event)
        self._unsynced_audit.append(event)
        return event

    def _signed(self) -> list[str]:
        return [s.milestone for s in self._signoffs]

    def _next_milestone(self) -> str | None:
        """The one "next milestone" every page, report and digest uses."""
        targets = dict(self._planned.get("milestone_targets") or {})
        urgent = next_milestone_of(self._info.milestones, self._conditions, targets, self._signed())
        return urgent.milestone if urgent else None

    def _contact(self, department: str) -> tuple[str, str]:
        for d in self._info.departments:
            if d.department_key == department:
                return d.reviewer_email, d.head_email
        return self._info.project_manager_email, self._info.project_manager_email

    # -- the main loop --------------------------------------------------------------------

    @workflow.run
    async def run(self, input: ProjectInput) -> dict[str, Any]:
        planned_at = self._now()
        while True:
            now = self._now()
            if self._dirty:
                self._dirty = False
                await self._sync()
            alerts = [a for a in self._alerts() if a.key not in self._sent | self._skipped]
            for alert in alerts:
                if alert.fire_at > now:
                    break
                if alert.fire_at <= planned_at:
                    # Already past when it was planned (a date set in the past): skip.
                    self._skipped.add(alert.key)
                    continue
                await self._fire(alert)
            planned_at = now
            upcoming = [a for a in alerts if a.key not in self._sent | self._skipped]
            if self._finished() and not upcoming:
                break
            if workflow.info().is_continue_as_new_suggested():
                await self._settle()
                workflow.continue_as_new(self._carry_over())
            timeout = (upcoming[0].fire_at - now) if upcoming else None
            with contextlib.suppress(TimeoutError):
                await workflow.wait_condition(lambda: self._dirty, timeout=timeout)
        await self._settle()
        return self.status_by_milestone()

    async def _settle(self) -> None:
        """Before continue-as-new or completion: no update handler still running (it would
        be cut off and its caller told the update failed) and nothing left unrecorded (audit
        events not yet synced are not carried over). An update can arrive while the last
        record is written, so wait and sync until both hold at once; the caller then ends
        the run without awaiting anything else."""
        while True:
            await workflow.wait_condition(workflow.all_handlers_finished)
            if not (self._dirty or self._unsynced_audit):
                return
            self._dirty = False
            await self._sync()

    def _finished(self) -> bool:
        """Every milestone that conditions gate has been signed off."""
        gated = {
            g for c in self._conditions for g in c.spec.gates if g not in lifecycle.MONITORED_GATES
        }
        gated &= set(self._info.milestones)
        return bool(gated) and gated <= set(self._signed())

    def _alerts(self) -> list[Alert]:
        return plan_project_alerts(
            self._info,
            self._conditions,
            self._planned,
            self._signoffs,
            self._now(),
            digests_paused=self._digests_paused,
        )

    def _carry_over(self) -> ProjectInput:
        return ProjectInput(
            info=self._info,
            conditions=self._conditions,
            planned=self._planned,
            signoffs=self._signoffs,
            audit=self._audit[-AUDIT_KEPT_IN_STATE:],
            sent_alert_keys=sorted(self._sent),
            skipped_alert_keys=sorted(self._skipped),
            sequence=self._seq,
            digests_paused=self._digests_paused,
        )

    async def _sync(self) -> None:
        async with self._lock:
            pending, self._unsynced_audit = self._unsynced_audit, []
            numbers, self._unsynced_numbers = self._unsynced_numbers, set()
            changed = [c for c in self._conditions if c.spec.number in numbers]
            upcoming = self._next_milestone()
            try:
                await workflow.execute_activity(
                    activity.RECORD_PROJECT,
                    ProjectRecord(
                        info=self._info,
                        conditions=changed,
                        positions=[self._position[c.spec.number] for c in changed],
                        audit=pending,
                        signoffs=self._signoffs,
                        planned=self._planned,
                        workflow_id=workflow.info().workflow_id,
                        next_milestone=upcoming,
                        next_milestone_blockers=len(lifecycle.blockers(self._conditions, upcoming))
                        if upcoming
                        else 0,
                        digests_paused=self._digests_paused,
                        open_conditions=sum(
                            1
                            for c in self._conditions
                            if c.status not in RESOLVED_STATUSES and c.spec.kind != "advisory"
                        ),
                    ),
                    start_to_close_timeout=RECORD_TIMEOUT,
                    retry_policy=RETRY,
                )
            except BaseException:
                self._unsynced_audit = pending + self._unsynced_audit
                self._unsynced_numbers |= numbers
                raise

    async def _notify(
        self, key: str, kind: str, to: list[str], cc: list[str], details: dict[str, Any]
    ) -> None:
        await workflow.execute_activity(
            activity.SEND_PROJECT_NOTICE,
            ProjectNoticeRequest(
                notice_key=f"{self._info.project_id}:{key}",
                kind=kind,
                project=self._info,
                to=[a for a in to if a],
                cc=[a for a in cc if a and a not in to],
                details=details,
            ),
            start_to_close_timeout=NOTICE_TIMEOUT,
            retry_policy=RETRY,
        )

    async def _fire(self, alert: Alert) -> None:
        pm = self._info.project_manager_email
        applicant = self._info.applicant_email
        details = dict(alert.details)
        if alert.kind in ("review_reminder", "review_escalation"):
            reviewer, head = self._contact(details["department"])
            if alert.kind == "review_reminder":
                to, cc = [reviewer], [pm]
            else:
                to, cc = [head], [reviewer, pm]
        elif alert.kind in ("applicant_digest", "window_reminder"):
            to, cc = [applicant], [pm]
        elif alert.kind == "construction_checkin":
            reviewer, _ = self._contact("environmental")
            to, cc = [pm], [reviewer]
        else:
            to, cc = [pm], []
        await self._notify(alert.key, alert.kind, to, cc, details)
        self._sent.add(alert.key)

    # -- updates ----------------------------------------------------------------------------

    def _refuse(self, check: Any, *args: Any) -> None:
        try:
            check(*args)
        except lifecycle.ActionRefused as refused:
            raise ValueError(str(refused)) from None

    def _changed(self, condition: ConditionState) -> ActionResult:
        self._unsynced_numbers.add(condition.spec.number)
        self._dirty = True
        return ActionResult(True, "recorded", condition_summary(condition))

    @workflow.update
    async def submit_evidence(self, input: SubmitEvidenceInput) -> ActionResult:
        c = self._by_number[input.number]
        self._seq += 1
        c.evidence.append(
            Evidence(
                evidence_id=f"E{self._seq:06d}",
                description=input.description,
                filename=input.filename,
                submitted_by=input.actor.email,
                submitted_at=self._now().isoformat(),
                document_date=input.document_date,
            )
        )
        previous = c.status
        c.status = SUBMITTED
        c.submitted_at = self._now().isoformat()
        self._log(
            input.actor,
            "evidence_submitted",
            c.spec.number,
            details={
                "description": input.description,
                "filename": input.filename,
                "from": previous,
                "to": SUBMITTED,
            },
        )
        return self._changed(c)

    @submit_evidence.validator
    def _validate_submit_evidence(self, input: SubmitEvidenceInput) -> None:
        self._refuse(
            lifecycle.check_submit_evidence,
            self._by_number.get(input.number),
            input.number,
            input.actor,
        )
        if not input.description.strip():
            raise ValueError(
                "describe the evidence (what it is and how it satisfies the condition)"
            )
        if input.document_date is not None:
            self._check_date(input.document_date, "document_date")

    @workflow.update
    async def review_condition(self, input: ReviewInput) -> ActionResult:
        c = self._by_number[input.number]
        previous = c.status
        c.status = input.decision
        if input.comment.strip():
            c.comments.append(Comment(input.actor.email, self._now().isoformat(), input.comment))
        event = self._log(
            input.actor,
            f"review_{input.decision}",
            c.spec.number,
            reason=input.comment,
            details={"from": previous, "to": input.decision},
        )
        if (
            input.decision == RETURNED
            and self._info.applicant_email
            and workflow.patched(RETURNED_LETTER)
        ):
            # The applicant hears at once, not at the next digest; the key names the
            # review, so a second return of the same condition is a second letter.
            await self._notify(
                f"returned:{c.spec.number}:{event.audit_id}",
                "condition_returned",
                [self._info.applicant_email],
                [self._info.project_manager_email],
                {"conditions": [condition_summary(c)]},
            )
        if input.decision == CLEARED:
            self._resolve_related(c, CLEARED, input.actor, f"cleared with #{c.spec.number}")
        return self._changed(c)

    @review_condition.validator
    def _validate_review(self, input: ReviewInput) -> None:
        self._refuse(
            lifecycle.check_review,
            self._by_number.get(input.number),
            input.number,
            input.actor,
            input.decision,
            input.comment,
        )

    def _resolve_related(self, c: ConditionState, status: str, actor: Actor, reason: str) -> None:
        """Duplicates (e.g. the same mitigation measure listed twice) clear together."""
        for number in c.spec.related:
            other = self._by_number.get(number)
            if other is None or other.status in RESOLVED_STATUSES:
                continue
            before = other.status
            other.status = status
            self._unsynced_numbers.add(number)
            other.resolution_reason = reason
            self._log(
                actor,
                f"linked_{status}",
                number,
                reason=reason,
                details={"from": before, "to": status, "via": c.spec.number},
            )

    @workflow.update
    async def resolve_condition(self, input: ResolveInput) -> ActionResult:
        c = self._by_number[input.number]
        previous = c.status
        c.status = input.resolution
        c.resolution_reason = input.reason
        self._log(
            input.actor,
            input.resolution,
            c.spec.number,
            reason=input.reason,
            details={"from": previous, "to": input.resolution},
        )
        self._resolve_related(
            c,
            input.resolution,
            input.actor,
            f"{input.resolution} with #{c.spec.number}: {input.reason}",
        )
        return self._changed(c)

    @resolve_condition.validator
    def _validate_resolve(self, input: ResolveInput) -> None:
        self._refuse(
            lifecycle.check_resolve,
            self._by_number.get(input.number),
            input.number,
            input.actor,
            input.resolution,
            input.reason,
        )

    @workflow.update
    async def trigger_condition(self, input: TriggerInput) -> ActionResult:
        c = self._by_number[input.number]
        c.triggered = True
        c.status = OPEN
        self._log(input.actor, "triggered", c.spec.number, reason=input.reason)
        return self._changed(c)

    @trigger_condition.validator
    def _validate_trigger(self, input: TriggerInput) -> None:
        self._refuse(
            lifecycle.check_trigger,
            self._by_number.get(input.number),
            input.number,
            input.actor,
            input.reason,
        )

    @workflow.update
    async def reassign_condition(self, input: ReassignConditionInput) -> ActionResult:
        """A new owner: the condition is in their inbox, named as theirs."""
        c = self._by_number[input.number]
        before, c.owner_email = c.owner_email, input.owner.email
        details = {"from": before, "to": input.owner.email}
        self._log(input.actor, "reassigned", c.spec.number, input.reason, details)
        return self._changed(c)

    @reassign_condition.validator
    def _validate_reassign_condition(self, input: ReassignConditionInput) -> None:
        c = self._by_number.get(input.number)
        self._refuse(
            lifecycle.check_reassign,
            c,
            input.number,
            input.actor,
            input.owner,
            input.owner_active,
            c.owner_email if c else "",
        )

    def _check_date(self, value: str, field: str) -> None:
        try:
            parse_date(value, field)
        except TimelineError as err:
            raise ValueError(str(err)) from None

    @workflow.update
    async def set_planned_dates(self, input: PlannedDatesInput) -> ActionResult:
        before = dict(self._planned)
        for field in ("groundbreaking", "grading_start", "grading_end", "construction_end"):
            value = getattr(input, field)
            if value is not None:
                self._planned[field] = value
        if input.milestone_targets:
            targets = dict(self._planned.get("milestone_targets") or {})
            targets.update(input.milestone_targets)
            self._planned["milestone_targets"] = targets
        self._log(
            input.actor, "planned_dates_set", None, details={"from": before, "to": self._planned}
        )
        self._dirty = True
        return ActionResult(True, "planned dates recorded", None)

    @set_planned_dates.validator
    def _validate_planned_dates(self, input: PlannedDatesInput) -> None:
        if input.actor.role not in ("project_manager", "engineering", "admin"):
            raise ValueError(f"a {input.actor.role} cannot set the project's planned dates")
        for field in ("groundbreaking", "grading_start", "grading_end", "construction_end"):
            value = getattr(input, field)
            if value is not None:
                self._check_date(value, field)
        for milestone, value in input.milestone_targets.items():
            if milestone not in self._info.milestones:
                raise ValueError(f"{milestone!r} is not a milestone of this project")
            self._check_date(value, f"target for {milestone}")
        start, end = input.grading_start, input.grading_end
        if start and end and end < start:
            raise ValueError("grading_end is before grading_start")

    @workflow.update
    async def sign_off_milestone(self, input: SignOffInput) -> ActionResult:
        signoff = MilestoneSignoff(input.milestone, input.actor.email, self._now().isoformat())
        self._signoffs.append(signoff)
        cleared = sum(1 for c in self._conditions if input.milestone in c.spec.gates)
        self._log(input.actor, "milestone_signed_off", None, details={"milestone": input.milestone})
        self._dirty = True
        engineering, _ = self._contact("engineering")
        await self._notify(
            f"signoff:{input.milestone}",
            "signoff_confirmation",
            [self._info.project_manager_email, engineering],
            [self._info.applicant_email],
            {
                "milestone": input.milestone,
                "signed_by": input.actor.email,
                "at": signoff.at,
                "conditions_cleared": cleared,
            },
        )
        return ActionResult(True, f"{input.milestone} signed off", None)

    @sign_off_milestone.validator
    def _validate_sign_off(self, input: SignOffInput) -> None:
        self._refuse(
            lifecycle.check_sign_off,
            self._conditions,
            input.milestone,
            input.actor,
            self._info.milestones,
            self._signed(),
        )

    @workflow.update
    async def correct_condition(self, input: CorrectionInput) -> ActionResult:
        c = self._by_number[input.number]
        before = {"gates": list(c.spec.gates), "kind": c.spec.kind, "department": c.department_key}
        if input.gates is not None:
            c.spec.gates = list(input.gates)
            c.spec.gate_source = "corrected"
        if input.kind is not None:
            c.spec.kind = input.kind
        if input.department_key is not None:
            c.department_key = input.department_key
        after = {"gates": list(c.spec.gates), "kind": c.spec.kind, "department": c.department_key}
        self._log(
            input.actor,
            "corrected",
            c.spec.number,
            reason=input.reason,
            details={"from": before, "to": after},
        )
        return self._changed(c)

    @correct_condition.validator
    def _validate_correction(self, input: CorrectionInput) -> None:
        self._refuse(
            lifecycle.check_correction,
            self._by_number.get(input.number),
            input.number,
            input.actor,
            input.reason,
            input.gates,
            input.kind,
            input.department_key,
            self._info.milestones,
            KINDS,
        )

    @workflow.update
    async def import_conditions(self, input: ImportConditionsInput) -> ActionResult:
        """A further resolution's conditions join the project, after the ones it has."""
        for c in input.conditions:
            self._position[c.spec.number] = len(self._conditions)
            self._conditions.append(c)
            self._by_number[c.spec.number] = c
            self._unsynced_numbers.add(c.spec.number)
        self._log(
            input.actor,
            "imported",
            None,
            reason=input.resolution_title,
            details={
                "conditions": len(input.conditions),
                "numbers": [c.spec.number for c in input.conditions],
                "warnings": list(input.warnings),
                "approved_on": input.approved_on,
            },
        )
        for correction in input.corrections:
            number = correction.split(" ", 1)[0].lstrip("#")
            self._log(input.actor, "corrected_at_import", number, reason=correction)
        self._dirty = True
        return ActionResult(True, f"imported {len(input.conditions)} conditions")

    @import_conditions.validator
    def _validate_import(self, input: ImportConditionsInput) -> None:
        self._refuse(
            lifecycle.check_import,
            list(self._by_number),
            [c.spec.number for c in input.conditions],
            input.actor,
            self._info.milestones,
        )

    @workflow.update
    async def send_digest(self, input: DigestRequestInput) -> ActionResult:
        milestone = input.milestone or self._next_milestone()
        owed = [
            c
            for c in lifecycle.owed_by_applicant(self._conditions)
            if milestone is None or milestone in c.spec.gates
        ]
        targets = dict(self._planned.get("milestone_targets") or {})
        event = self._log(input.actor, "digest_requested", None, details={"milestone": milestone})
        await self._notify(
            f"digest:requested:{event.audit_id}",
            "applicant_digest",
            [self._info.applicant_email],
            [self._info.project_manager_email],
            digest_details(owed, milestone, targets.get(milestone or ""), "requested"),
        )
        self._dirty = True
        return ActionResult(
            True, f"digest sent: {len(owed)} condition(s) owed before {milestone}", None
        )

    @send_digest.validator
    def _validate_send_digest(self, input: DigestRequestInput) -> None:
        if input.actor.role not in ("project_manager", "planning_manager", "admin"):
            raise ValueError(f"a {input.actor.role} cannot send the applicant's digest")
        if input.milestone is not None and input.milestone not in self._info.milestones:
            raise ValueError(f"{input.milestone!r} is not a milestone of this project")
        if not self._info.applicant_email:
            raise ValueError("the project has no applicant e-mail address")

    @workflow.update
    async def pause_digests(self, input: DigestPauseInput) -> ActionResult:
        self._digests_paused = input.paused
        self._log(
            input.actor,
            "digests_paused" if input.paused else "digests_resumed",
            None,
            reason=input.reason,
        )
        self._dirty = True
        state = "paused" if input.paused else "resumed"
        return ActionResult(True, f"the applicant's digests are {state}", None)

    @pause_digests.validator
    def _validate_pause_digests(self, input: DigestPauseInput) -> None:
        if input.actor.role not in ("project_manager", "planning_manager", "admin"):
            raise ValueError(f"a {input.actor.role} cannot pause the applicant's digests")
        if input.paused == self._digests_paused:
            raise ValueError("the digests are already " + ("paused" if input.paused else "running"))
        if input.paused and not input.reason.strip():
            raise ValueError("say why the digests are paused (the applicant's PM reads it)")

    # -- queries ----------------------------------------------------------------------------

    @workflow.query
    def status_by_milestone(self) -> dict[str, Any]:
        signed = {s.milestone: s for s in self._signoffs}
        milestones = []
        for m in self._info.milestones:
            gated = [c for c in self._conditions if m in c.spec.gates]
            if not gated:
                continue
            blocking = lifecycle.blockers(self._conditions, m)
            milestones.append(
                {
                    "milestone": m,
                    "conditions": len(gated),
                    "resolved": sum(1 for c in gated if c.status in RESOLVED_STATUSES),
                    "blocking": [c.spec.number for c in blocking],
                    "signed_off": None
                    if m not in signed
                    else {"by": signed[m].signed_by, "at": signed[m].at},
                }
            )
        unspecified = [c.spec.number for c in self._conditions if "unspecified" in c.spec.gates]
        due, conflicts = schedule(
            [c.spec for c in self._conditions],
            PlannedDates.from_iso(self._planned),
            evidence_dates(self._conditions),
            jurisdiction=self._info.jurisdiction,
        )
        return {
            "project_id": self._info.project_id,
            "name": self._info.name,
            "next_milestone": self._next_milestone(),
            "milestones": milestones,
            "unspecified_gate": unspecified,
            "planned": self._planned,
            # Seasonal and freshness windows from the planned dates, and what they rule out.
            "windows": [item.to_iso() for item in due],
            "window_conflicts": [conflict.to_iso() for conflict in conflicts],
        }

    @workflow.query
    def blockers(self, milestone: str) -> list[dict[str, Any]]:
        return [condition_summary(c) for c in lifecycle.blockers(self._conditions, milestone)]

    @workflow.query
    def applicant_owes(self) -> dict[str, Any]:
        owed = lifecycle.owed_by_applicant(self._conditions)
        return {
            "next_milestone": self._next_milestone(),
            "owed": [condition_summary(c) for c in owed],
        }

    @workflow.query
    def conditions(self) -> list[dict[str, Any]]:
        return [
            {
                **condition_summary(c),
                "section": c.spec.section,
                "kind": c.spec.kind,
                "gate_source": c.spec.gate_source,
                "printed_department": c.spec.department,
                "triggered": c.triggered,
                "related": list(c.spec.related),
                "owner_email": c.owner_email,
            }
            for c in self._conditions
        ]

    @workflow.query
    def audit(self) -> list[AuditEvent]:
        return list(self._audit)


# Statuses a reviewer moves a condition through; exported for the CLI's help text.
REVIEW_DECISIONS = (IN_REVIEW, CLEARED, RETURNED)
