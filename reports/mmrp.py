"""The CEQA mitigation monitoring and reporting program (Pub. Res. Code § 21081.6):
one line per condition that carries a mitigation code (AES-1, BIO-3 ...), with its
timing, who implements it, who monitors it, and when compliance was verified."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlalchemy import Engine

from models.conditions import RESOLVED_STATUSES
from models.schema import AuditRow, ConditionRow
from notices.vocabulary import milestone_label
from reports.common import (
    UNSPECIFIED,
    ProjectReport,
    department_name,
    is_resolved,
    jurisdiction_time_zone,
    load_project,
    local_date,
    milestone_sequence,
    render,
    write_csv,
)
from rules.conditions.full_text import full_text

CITATION = "Pub. Res. Code § 21081.6"

CSV_COLUMNS = (
    "project",
    "code",
    "number",
    "measure",
    "timing",
    "implementer",
    "monitoring_department",
    "verification_date",
    "status",
)

APPLICANT = "Applicant"
CONTRACTOR = "Applicant / contractor"
# Keys under which an audit event's details may name the status it moved to.
STATUS_DETAIL_KEYS = ("status", "to", "decision", "resolution", "new_status")
_CONSTRUCTION_GATES = frozenset({"during_construction", "pre_construction"})


@dataclass
class MitigationLine:
    code: str
    number: str
    measure: str  # the condition text
    timing: list[str]  # gate labels, in milestone order
    implementer: str
    monitoring_department: str
    verification_date: str  # the local date the condition was cleared; "" while open
    status: str


@dataclass
class MmrpReport(ProjectReport):
    citation: str = CITATION
    lines: list[MitigationLine] = field(default_factory=list)


def implementer(row: ConditionRow) -> str:
    """Who carries the measure out: the applicant, through its contractor for measures
    performed on site during construction."""
    gates = set(row.gates or [])
    on_site = bool(gates & _CONSTRUCTION_GATES) or row.kind == "recurring"
    if on_site or re.search(r"\bcontractors?\b", row.text or "", re.IGNORECASE):
        return CONTRACTOR
    return APPLICANT


def resolves(event: AuditRow) -> bool:
    """Did this audit event move its condition to a resolved status? Read from the
    action name or from the status its details record."""
    if event.action in RESOLVED_STATUSES:
        return True
    details = event.details or {}
    # Only a status is a string: other events keep records under the same keys (a
    # correction's "to" is the corrected fields).
    return any(
        isinstance(details.get(k), str) and details.get(k) in RESOLVED_STATUSES
        for k in STATUS_DETAIL_KEYS
    )


def verification_dates(
    audit: list[AuditRow], resolved: dict[str, bool], time_zone: str | None
) -> dict[str, str]:
    """For each resolved condition, the local date of the last event that resolved it
    (or, failing a recognisable one, its last audited event)."""
    last_resolving: dict[str, AuditRow] = {}
    last_any: dict[str, AuditRow] = {}
    for event in audit:  # in time order
        number = event.condition_number
        if not number or not resolved.get(number):
            continue
        last_any[number] = event
        if resolves(event):
            last_resolving[number] = event
    out: dict[str, str] = {}
    for number, event in {**last_any, **last_resolving}.items():
        out[number] = local_date(event.at, time_zone)
    return out


def mmrp(engine: Engine, project_id: str, *, time_zone: str | None = None) -> MmrpReport:
    """The program for one project; dates are the city's calendar days (its time zone,
    unless `time_zone` is given)."""
    data = load_project(engine, project_id, audit=True)
    project = data.project
    tz = time_zone or jurisdiction_time_zone(project.jurisdiction)
    measures = [row for row in data.conditions if (row.code or "").strip()]
    verified = verification_dates(
        data.audit, {row.number: is_resolved(row.status) for row in measures}, tz
    )
    lines = [
        MitigationLine(
            code=row.code.strip() if row.code else "",
            number=row.number,
            measure=full_text(row.text, row.sub_items),
            timing=[milestone_label(g) for g in milestone_sequence(row.gates or [UNSPECIFIED])],
            implementer=implementer(row),
            monitoring_department=department_name(row.department_key, project),
            verification_date=verified.get(row.number, "") if is_resolved(row.status) else "",
            status=row.status,
        )
        for row in measures
    ]
    return MmrpReport.for_project(project, lines=lines)


def render_html(report: MmrpReport) -> str:
    return render("mmrp.html.j2", report=report)


def to_csv(report: MmrpReport) -> str:
    return write_csv(
        CSV_COLUMNS,
        (
            (
                report.project_id,
                line.code,
                line.number,
                line.measure,
                "; ".join(line.timing),
                line.implementer,
                line.monitoring_department,
                line.verification_date,
                line.status,
            )
            for line in report.lines
        ),
    )
