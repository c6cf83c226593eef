"""Fill the read model with a city's worth of data for the web page benchmark, directly
through `models.schema` (bulk inserts, no Temporal): projects with the Cotati Village
conditions in a spread of statuses, wireless applications with computed clocks and their
events, notices and audit rows.

Conditions come from the real Cotati Village resolution (its departments, gates, kinds and
texts); statuses, evidence and comments are drawn from a seeded generator, and each
project's next milestone and blocker count come from the same pure rules the workflow uses,
so what the pages show is what a city's data would look like.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, insert

from activities.permit_clock_records import permit_clock_columns
from activities.project_records import condition_row, progress_columns
from activities.shot_clock_records import clock_columns
from bench.common import CATEGORIES
from models.conditions import (
    CLEARED,
    IN_REVIEW,
    NOT_APPLICABLE,
    OPEN,
    RESOLVED_STATUSES,
    RETURNED,
    SATISFIED_BY_ALTERNATIVE,
    SUBMITTED,
    WAIVED,
    Comment,
    ConditionState,
    Evidence,
    ProjectInput,
)
from models.schema import (
    Application,
    AuditRow,
    ClockEventRow,
    ConditionRow,
    Notice,
    PermitClockRow,
    Project,
)
from rules.audit_chain import GENESIS, link
from rules.conditions import lifecycle
from rules.conditions.onboarding import new_project
from rules.conditions.parser import parse_resolution
from rules.kernel.jurisdictions import jurisdiction
from rules.permit_clocks import compute_permit_clock
from rules.shot_clock.engine import compute_json
from stack.demo import COTATI_VILLAGE_RESOLUTION

# How a city's conditions stand at any moment (weights): most still open.
STATUS_WEIGHTS: list[tuple[str, int]] = [
    (OPEN, 50),
    (SUBMITTED, 10),
    (IN_REVIEW, 5),
    (RETURNED, 5),
    (CLEARED, 22),
    (WAIVED, 3),
    (NOT_APPLICABLE, 4),
    (SATISFIED_BY_ALTERNATIVE, 1),
]
NOTICE_KINDS = [
    "reminder",
    "window_closing",
    "incompleteness_notice",
    "decision_confirmation",
    "expiry_escalation",
]
AUDIT_ACTIONS = ["submit", "review", "resolve", "plan", "digest", "trigger", "correct"]
BATCH = 5000  # rows per INSERT executemany


@dataclass(frozen=True)
class SeedSize:
    projects: int = 1000
    conditions_per_project: int = 100
    clocks: int = 5000
    notices_per_clock: int = 2
    audit_per_project: int = 20
    permit_clocks: int = 2000


@dataclass
class SeedReport:
    counts: dict[str, int]
    seconds: float
    project_ids: list[str]
    condition_numbers: list[str]
    application_ids: list[str]


def _chunks(
    rows: Sequence[dict[str, Any]], size: int = BATCH
) -> Iterator[Sequence[dict[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _bulk(engine: Engine, table: Any, rows: Sequence[dict[str, Any]]) -> None:
    with engine.begin() as conn:
        for chunk in _chunks(rows):
            conn.execute(insert(table), list(chunk))


def template_project() -> ProjectInput:
    """Cotati Village as imported: the conditions every seeded project starts from."""
    parsed = parse_resolution(COTATI_VILLAGE_RESOLUTION.read_text(encoding="utf-8"))
    return new_project(
        parsed,
        project_id="TEMPLATE",
        name="template",
        city=jurisdiction("cotati"),
        applicant_name="Cotati Village Partners",
        applicant_email="applicant@cotati-village.example",
        project_manager_email="pm@cotati.example",
    )


def _conditions_for(
    rng: random.Random, template: Sequence[ConditionState], count: int, today: date
) -> list[ConditionState]:
    statuses = [s for s, _ in STATUS_WEIGHTS]
    weights = [w for _, w in STATUS_WEIGHTS]
    out: list[ConditionState] = []
    for i in range(count):
        base = template[i % len(template)]
        spec = base.spec if i < len(template) else replace(base.spec, number=str(i + 1))
        status = rng.choices(statuses, weights)[0]
        submitted = today - timedelta(days=rng.randint(1, 40))
        evidence: list[Evidence] = []
        comments: list[Comment] = []
        if status in (SUBMITTED, IN_REVIEW, RETURNED, CLEARED):
            evidence.append(
                Evidence(
                    evidence_id=f"ev-{i}",
                    description=f"Submittal for condition #{spec.number}",
                    filename=f"condition-{spec.number}.pdf",
                    submitted_by="applicant@dev.example",
                    submitted_at=f"{submitted.isoformat()}T10:00:00+00:00",
                )
            )
        if status == RETURNED:
            comments.append(
                Comment(
                    "eng@cotati.example", f"{today.isoformat()}T09:00:00+00:00", "Sheet missing"
                )
            )
        out.append(
            replace(
                base,
                spec=spec,
                status=status,
                triggered=base.spec.kind in lifecycle.DORMANT_KINDS and rng.random() < 0.3,
                submitted_at=evidence[0].submitted_at if evidence else None,
                resolution_reason="Alternative accepted" if status == WAIVED else "",
                evidence=evidence,
                comments=comments,
            )
        )
    return out


def seed_projects(
    engine: Engine, size: SeedSize, rng: random.Random, today: date, now: datetime
) -> tuple[list[str], list[str], int, int]:
    template = template_project()
    info = template.info
    departments = [asdict(d) for d in info.departments]
    projects: list[dict[str, Any]] = []
    conditions: list[dict[str, Any]] = []
    audit: list[dict[str, Any]] = []
    ids = [f"PRJ-{n:04d}" for n in range(1, size.projects + 1)]
    numbers: list[str] = []
    for pid in ids:
        states = _conditions_for(rng, template.conditions, size.conditions_per_project, today)
        if not numbers:
            numbers = [c.spec.number for c in states]
        upcoming = lifecycle.next_milestone(info.milestones, [], states)
        planned = {
            "groundbreaking": (today + timedelta(days=rng.randint(10, 300))).isoformat(),
            "milestone_targets": {
                upcoming or "building_permit": (
                    today + timedelta(days=rng.randint(5, 200))
                ).isoformat()
            },
        }
        projects.append(
            {
                "project_id": pid,
                "workflow_id": f"project-{pid}",
                "name": f"Project {pid} ({rng.choice(['Village', 'Commons', 'Place', 'Row'])})",
                "jurisdiction": info.jurisdiction,
                "resolution_title": f"Resolution approving {pid}",
                "applicant_name": "Developer LLC",
                "applicant_email": f"applicant+{pid.lower()}@dev.example",
                "project_manager_email": "pm@cotati.example"
                if rng.random() < 0.1
                else f"pm{rng.randint(1, 20)}@cotati.example",
                "open_conditions": sum(
                    1
                    for c in states
                    if c.status not in RESOLVED_STATUSES and c.spec.kind != "advisory"
                ),
                "planned": planned,
                **progress_columns(info.milestones, states, planned, []),
                "signoffs": [],
                "departments": departments,
                "created_at": now,
                "updated_at": now,
            }
        )
        conditions += [condition_row(pid, i, c) for i, c in enumerate(states)]
        entries = []
        for k in range(size.audit_per_project):
            c = states[rng.randrange(len(states))]
            entries.append(
                {
                    "project_id": pid,
                    "audit_id": f"a-{k}",
                    "at": (now - timedelta(hours=size.audit_per_project - k)).isoformat(),
                    "actor": "pm@cotati.example",
                    "role": "project_manager",
                    "action": rng.choice(AUDIT_ACTIONS),
                    "condition_number": c.spec.number,
                    "reason": "seeded",
                    "details": {"status": c.status},
                }
            )
        # Chained as the activity chains them, so `clearance audit verify` holds here too.
        for entry, (seq, prev_hash, digest) in zip(entries, link(GENESIS, 1, entries), strict=True):
            audit.append({**entry, "seq": seq, "prev_hash": prev_hash, "entry_hash": digest})
    _bulk(engine, Project.__table__, projects)
    _bulk(engine, ConditionRow.__table__, conditions)
    _bulk(engine, AuditRow.__table__, audit)
    return ids, numbers, len(conditions), len(audit)


def _clock_input(rng: random.Random, category: str, today: date) -> dict[str, Any]:
    submitted = today - timedelta(days=rng.randint(0, 140))
    events: list[dict[str, Any]] = [{"type": "submitted", "date": submitted.isoformat()}]
    roll = rng.random()
    if roll < 0.4 and submitted + timedelta(days=12) <= today:
        notice = submitted + timedelta(days=rng.randint(5, 25))
        events.append(
            {
                "type": "incomplete_notice",
                "date": notice.isoformat(),
                "items": [{"id": "A", "text": "RF emissions report", "rule": "CMC 17.44.070(A)"}],
            }
        )
        resubmit = notice + timedelta(days=rng.randint(5, 30))
        if roll < 0.25 and resubmit <= today:
            events.append({"type": "resubmitted", "date": resubmit.isoformat()})
    return {"category": category, "state": "CA", "events": events}


def seed_clocks(
    engine: Engine, size: SeedSize, rng: random.Random, today: date, now: datetime
) -> tuple[list[str], int, int]:
    applications: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    notices: list[dict[str, Any]] = []
    ids = [f"WTF-{n:05d}" for n in range(1, size.clocks + 1)]
    body_text = "Clearance notice.\n" + "Condition of the shot clock explained. " * 40
    body_html = "<html><body>" + "<p>Shot clock explained with its rule.</p>" * 80 + "</body>"
    for aid in ids:
        category = rng.choice(CATEGORIES)
        raw = _clock_input(rng, category, today)
        clock = compute_json(raw)
        applications.append(
            {
                "application_id": aid,
                "workflow_id": f"shot-clock-{aid}",
                "jurisdiction": "cotati",
                "state": "CA",
                "category": category,
                "batch": [],
                "site_address": f"{rng.randint(100, 9999)} Old Redwood Hwy",
                "description": "Wireless facility",
                "applicant_name": "Carrier Site Acquisition",
                "applicant_email": "site.acquisition@carrier.example",
                "planner_email": f"planner{rng.randint(1, 10)}@cotati.example",
                "supervisor_email": "supervisor@cotati.example",
                "attorney_email": "attorney@cotati.example",
                **clock_columns(clock),
                "risk_flagged": clock.get("status") == "expired",
                "created_at": now,
                "updated_at": now,
            }
        )
        for i, ev in enumerate(raw["events"]):
            events.append(
                {
                    "application_id": aid,
                    "event_id": f"e{i}",
                    "type": ev["type"],
                    "date": ev["date"],
                    "payload": ev,
                    "recorded_by": "planner@cotati.example",
                    "note": "",
                    "recorded_at": now,
                }
            )
        for k in range(size.notices_per_clock):
            kind = rng.choice(NOTICE_KINDS)
            delivered = rng.random() < 0.95
            notices.append(
                {
                    "notice_key": f"{aid}:{kind}:{k}",
                    "application_id": aid,
                    "kind": kind,
                    "subject": f"{kind.replace('_', ' ').capitalize()}: {aid}",
                    "to_addrs": ["planner@cotati.example"],
                    "cc_addrs": [],
                    "message_id": f"<{aid}.{k}@clearance>",
                    "body_text": body_text,
                    "body_html": body_html,
                    "delivery_state": "delivered" if delivered else "pending",
                    "transport": "outbox",
                    "location": f"var/outbox/{aid}-{k}.eml",
                    "attempts": 1 if delivered else 0,
                    "last_error": "",
                    "created_at": now - timedelta(minutes=rng.randint(0, 60 * 24 * 90)),
                    "delivered_at": now if delivered else None,
                }
            )
    _bulk(engine, Application.__table__, applications)
    _bulk(engine, ClockEventRow.__table__, events)
    _bulk(engine, Notice.__table__, notices)
    return ids, len(events), len(notices)


# Who permit clocks are with: the benchmark's users (so every inbox has some) and others.
PERMIT_STAFF = [
    "pm@cotati.example",
    "engineer@cotati.example",
    "attorney@cotati.example",
    "manager@cotati.example",
    "admin@cotati.example",
    "publicworks@cotati.example",
    *(f"planner{n}@cotati.example" for n in range(1, 5)),
]
# (rule, starting event, days ago it happened: the earliest and the latest)
PERMIT_MIX = [
    ("building_permit_expiry", "approved", 30, 200),
    ("cotati_sign_appeal_decision", "appeal_filed", 5, 90),
    ("cotati_sign_permit_expiry", "approved", 200, 400),
]


def seed_permits(
    engine: Engine, size: SeedSize, rng: random.Random, today: date, now: datetime
) -> int:
    """Permit clocks computed by the rules core: due soon, later, and lapsed (which
    reach the planning manager's and the attorney's inboxes)."""
    rows = []
    for n in range(1, size.permit_clocks + 1):
        rule, event, earliest, latest = rng.choice(PERMIT_MIX)
        started = today - timedelta(days=rng.randint(earliest, latest))
        clock = compute_permit_clock(
            {
                "rule": rule,
                "jurisdiction": "cotati",
                "events": [{"type": event, "date": started.isoformat()}],
                "facts": {},
                "as_of": today.isoformat(),
            }
        )
        clock_id = f"PC-{n:05d}"
        rows.append(
            {
                "clock_id": clock_id,
                "workflow_id": f"permit-clock-{clock_id}",
                "jurisdiction": "cotati",
                "title": f"{clock.get('title')} {clock_id}",
                "site_address": f"{rng.randint(100, 9999)} Gravenstein Hwy",
                "companion_id": "",
                "project_id": None,
                "condition_number": None,
                "applicant_name": "Owner",
                "applicant_email": "owner@example.test",
                "staff_email": rng.choice(PERMIT_STAFF),
                **permit_clock_columns(clock),
                "escalated": clock.get("conservative_status") == "lapsed",
                "created_at": now,
                "updated_at": now,
            }
        )
    _bulk(engine, PermitClockRow.__table__, rows)
    return len(rows)


def seed(engine: Engine, size: SeedSize, seed_value: int = 4) -> SeedReport:
    """Insert everything; the tables must be empty."""
    rng = random.Random(seed_value)
    now = datetime.now(UTC)
    today = now.date()
    started = time.perf_counter()
    project_ids, numbers, n_conditions, n_audit = seed_projects(engine, size, rng, today, now)
    app_ids, n_events, n_notices = seed_clocks(engine, size, rng, today, now)
    n_permits = seed_permits(engine, size, rng, today, now)
    return SeedReport(
        counts={
            "projects": len(project_ids),
            "conditions": n_conditions,
            "audit rows": n_audit,
            "applications": len(app_ids),
            "clock events": n_events,
            "notices": n_notices,
            "permit clocks": n_permits,
        },
        seconds=time.perf_counter() - started,
        project_ids=project_ids,
        condition_numbers=numbers,
        application_ids=app_ids,
    )
