"""What the reports share: loading a project from the read model, turning condition rows
back into ConditionState for the lifecycle rules, labels, the Jinja environment and CSV."""

from __future__ import annotations

import contextlib
import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Self
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from sqlalchemy import Engine, select

from models.conditions import RESOLVED_STATUSES, ConditionSpec, ConditionState
from models.database import session_factory
from models.schema import AuditRow, ConditionRow, Project
from notices.filters import letterdate, localtime
from notices.render import TEMPLATE_DIR
from notices.vocabulary import (
    CONDITION_STATUS_LABELS,
    department_names,
    milestone_keys,
    milestone_label,
)
from rules.kernel.citations import citation_title
from rules.kernel.jurisdictions import JURISDICTIONS

UNSPECIFIED = "unspecified"


class ProjectNotFound(ValueError):
    """No project with that id in the read model."""


@dataclass
class ProjectReport:
    """The heading every project report carries (the report's own lines follow)."""

    project_id: str
    project_name: str
    jurisdiction: str
    jurisdiction_name: str
    resolution_title: str
    generated_at: str

    @classmethod
    def for_project(cls, project: Project, **lines: Any) -> Self:
        """The report on `project`, generated now, with its own lines."""
        return cls(
            project_id=project.project_id,
            project_name=project.name,
            jurisdiction=project.jurisdiction,
            jurisdiction_name=jurisdiction_name(project.jurisdiction),
            resolution_title=project.resolution_title or "",
            generated_at=now_iso(),
            **lines,
        )


@dataclass
class ProjectData:
    project: Project
    conditions: list[ConditionRow]  # in resolution order
    audit: list[AuditRow]  # in time order


def load_project(engine: Engine, project_id: str, *, audit: bool = False) -> ProjectData:
    with session_factory(engine)() as session:
        project = session.get(Project, project_id)
        if project is None:
            raise ProjectNotFound(f"no project {project_id!r}")
        rows = list(
            session.scalars(
                select(ConditionRow)
                .where(ConditionRow.project_id == project_id)
                .order_by(ConditionRow.position, ConditionRow.id)
            )
        )
        events: list[AuditRow] = []
        if audit:
            events = sort_audit(
                session.scalars(select(AuditRow).where(AuditRow.project_id == project_id))
            )
        session.expunge_all()
    return ProjectData(project, rows, events)


def _instant(value: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def sort_audit(rows: Iterable[AuditRow]) -> list[AuditRow]:
    """Oldest first by the instant recorded (offsets compared as instants, not as text);
    ties and unparseable times keep the order they were appended in."""
    far = datetime.max.replace(tzinfo=UTC)
    return sorted(rows, key=lambda r: (_instant(r.at) or far, r.id or 0))


def condition_state(row: ConditionRow) -> ConditionState:
    """A read-model row as the state the lifecycle rules judge (blocks, owed...)."""
    spec = ConditionSpec(
        number=row.number,
        code=row.code,
        department=row.department,
        section=row.section,
        text=row.text,
        gates=list(row.gates or [UNSPECIFIED]),
        gate_source=row.gate_source,
        kind=row.kind,
        related=list(row.related or []),
        time_limits=[dict(t) for t in row.time_limits or []],
    )
    return ConditionState(
        spec=spec,
        department_key=row.department_key,
        status=row.status,
        triggered=bool(row.triggered),
        submitted_at=row.submitted_at,
        resolution_reason=row.resolution_reason or "",
    )


def is_resolved(status: str) -> bool:
    return status in RESOLVED_STATUSES


def milestone_sequence(gates_in_use: Iterable[str], extra: Iterable[str] = ()) -> list[str]:
    """The milestones to report, in the milestone file's order; gates it does not know
    follow in first-seen order, and `unspecified` comes last."""
    wanted: list[str] = []
    for g in [*gates_in_use, *extra]:
        if g not in wanted:
            wanted.append(g)
    known = milestone_keys()
    ordered = [k for k in known if k in wanted]
    ordered += [g for g in wanted if g not in known and g != UNSPECIFIED]
    if UNSPECIFIED in wanted:
        ordered.append(UNSPECIFIED)
    return ordered


def department_name(key: str, project: Project) -> str:
    for d in project.departments or []:
        if isinstance(d, dict) and d.get("department_key") == key and d.get("name"):
            return str(d["name"])
    return department_names().get(key, key)


def jurisdiction_name(key: str) -> str:
    city = JURISDICTIONS.get(key)
    return city.name if city is not None else key


def jurisdiction_time_zone(key: str) -> str | None:
    city = JURISDICTIONS.get(key)
    return city.time_zone if city is not None else None


def local_date(value: str, time_zone: str | None) -> str:
    """The calendar day of an ISO instant where the city is ('' for nothing)."""
    moment = _instant(value) if value else None
    if moment is None:
        return (value or "")[:10]
    if time_zone:
        with contextlib.suppress(ZoneInfoNotFoundError):
            moment = moment.astimezone(ZoneInfo(time_zone))
    return moment.date().isoformat()


def city_time(value: Any, key: str) -> str:
    """An instant or a day as the city `key` reads it: "March 2, 2027, 10:00 AM PST"."""
    if "T" in str(value or ""):
        return localtime(value, jurisdiction_time_zone(key) or "UTC")
    return letterdate(value)


def _status_label(value: Any) -> str:
    return CONDITION_STATUS_LABELS.get(str(value), str(value or "").replace("_", " "))


_env: Environment | None = None


def environment() -> Environment:
    global _env
    if _env is None:
        env = Environment(
            loader=FileSystemLoader(str(TEMPLATE_DIR)),
            # Reports are HTML pages built from resolution text and user input: escape.
            autoescape=select_autoescape(
                enabled_extensions=("html", "html.j2"), default_for_string=True, default=True
            ),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        env.filters.update(
            milestone_label=milestone_label,
            status_label=_status_label,
            cite=citation_title,
            # An instant or a day as the city reads it: "March 2, 2027, 10:00 AM PST".
            city_time=city_time,
        )
        _env = env
    return _env


def render(template: str, **context: Any) -> str:
    return environment().get_template(f"reports/{template}").render(**context)


# Spreadsheet programs run a cell that starts with one of these as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return "" if value is None else value


def write_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """CSV text with a header row; text cells that a spreadsheet would run as a formula
    are prefixed with an apostrophe."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return out.getvalue()


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()
