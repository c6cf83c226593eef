"""Render notices (subject, plain text, HTML) from Jinja templates in templates/notices/.

Templates only choose how to display what the workflow computed; every date, effect
and rule arrives in the request's clock and details. Shot-clock notices go through
`render`, project (conditions of approval) notices through `render_project`.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template, select_autoescape

from models.conditions import ProjectInfo, ProjectNoticeRequest
from models.shot_clock import NoticeRequest
from rules.kernel.jurisdictions import JURISDICTIONS
from settings import PROJECT_ROOT

TEMPLATE_DIR = PROJECT_ROOT / "templates"

NOTICE_KINDS = (
    "reminder",
    "window_closing",
    "expiry_escalation",
    "incompleteness_notice",
    "decision_confirmation",
    "judicial_review_reminder",
    "deemed_status",
    "resubmission_confirmation",
    "applicant_upload",
)

CATEGORY_LABELS = {
    "swf_collocation": "small wireless facility on an existing structure",
    "macro_collocation": "collocation on an existing structure (not a small wireless facility)",
    "swf_new_structure": "small wireless facility on a new structure",
    "macro_new_structure": "new structure (not a small wireless facility)",
    "eligible_facilities_request": "eligible facilities request (Section 6409(a))",
}

STATUS_LABELS = {
    "awaiting_submission": "awaiting submission",
    "running": "running",
    "tolled": "tolled (an incompleteness notice is outstanding)",
    "reset_pending": "reset pending (waiting for the applicant's complete resubmission)",
    "decided_on_time": "decided on time",
    "decided_late": "decided after the shot clock date",
    "expired": "expired (no decision by the shot clock date)",
    "withdrawn": "withdrawn",
    "deemed_granted": "deemed granted",
    "deemed_approved": "deemed approved",
}

EVENT_LABELS = {
    "pre_application": "pre-application",
    "submitted": "application submitted",
    "incomplete_notice": "incompleteness notice",
    "resubmitted": "resubmission",
    "tolling_agreement": "tolling agreement",
    "decision": "decision",
    "withdrawn": "withdrawn",
    "deemed_granted_notice": "applicant's deemed-granted notice",
    "applicant_public_notice": "applicant's public notice",
    "deemed_approved_notice": "applicant's deemed-approved notice",
    "deemed_granted": "deemed granted",
    "deemed_approved": "deemed approved",
    "roll_forward": "roll-forward",
    "moratorium": "moratorium",
    "hearing_notice": "hearing notice",
    "appeal": "appeal",
}

OUTCOME_LABELS = {
    "approved": "approved",
    "approved_with_conditions": "approved with conditions",
    "denied": "denied",
}

WINDOW_STATE_LABELS = {"open": "open", "used": "used", "lapsed": "closed"}

WINDOW_LABELS = {
    "reset_notice": "small wireless reset window (day 10)",
    "first_notice": "first incompleteness notice window",
    "later_notice": "later incompleteness notice window",
}


PROJECT_NOTICE_KINDS = (
    "review_reminder",
    "review_escalation",
    "applicant_digest",
    "window_reminder",
    "construction_checkin",
    "signoff_confirmation",
)

# The canonical gate keys in a project's usual order (reference conditions.md §1); a
# jurisdiction's milestone file may rename or reorder them.
DEFAULT_MILESTONES = (
    "final_design_review",
    "improvement_plan_submittal",
    "improvement_plan_approval",
    "final_map",
    "encroachment_permit",
    "demolition_permit",
    "grading_permit",
    "building_permit_application",
    "building_permit",
    "pre_construction",
    "during_construction",
    "final_inspection",
    "occupancy",
    "acceptance_of_improvements",
    "ongoing",
)
MILESTONES_FILE = PROJECT_ROOT / "rules" / "data" / "milestones" / "default.json"
DEPARTMENTS_FILE = PROJECT_ROOT / "rules" / "data" / "departments.json"

CONDITION_STATUS_LABELS = {
    "open": "open",
    "submitted": "submitted, awaiting review",
    "in_review": "in review",
    "cleared": "cleared",
    "returned": "returned for changes",
    "waived": "waived",
    "not_applicable": "not applicable",
    "satisfied_by_alternative": "satisfied by an alternative",
}


class UnknownNoticeKind(ValueError):
    pass


class InvalidNoticeDetails(ValueError):
    """A project notice's details lack what its letter must state (never send it blank)."""


def _milestone_entries(raw: Any) -> list[tuple[str, str | None]]:
    """(key, label) pairs from the milestone file, in file order. Accepts a list of
    {"key", "label"} objects (bare or under "milestones") or a {key: {"label"}} mapping."""
    if isinstance(raw, dict) and "milestones" in raw:
        raw = raw["milestones"]
    out: list[tuple[str, str | None]] = []
    if isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict) and item.get("key"):
                out.append((str(item["key"]), item.get("label")))
            elif isinstance(item, str):
                out.append((item, None))
    elif isinstance(raw, dict):
        for key, value in raw.items():
            if isinstance(value, dict):
                out.append((str(key), value.get("label")))
            elif isinstance(value, str):
                out.append((str(key), value))
    return out


def load_milestones(path: Path | str | None = None) -> list[tuple[str, str]]:
    """Milestones in order with their labels: the data file (rules/data/milestones/
    default.json) if present and readable, else the canonical keys. A key without a
    label reads as words."""
    file = Path(path or MILESTONES_FILE)
    try:
        stamp = file.stat().st_mtime_ns
    except OSError:
        stamp = None
    cached = _milestones_cache.get(str(file))
    if cached is not None and cached[0] == stamp:
        return list(cached[1])
    entries: list[tuple[str, str | None]] = []
    if stamp is not None:
        try:
            entries = _milestone_entries(json.loads(file.read_text("utf-8")))
        except (OSError, ValueError):
            entries = []
    if not entries:
        entries = [(k, None) for k in DEFAULT_MILESTONES]
    result = [(k, label or _words(k)) for k, label in entries]
    _milestones_cache[str(file)] = (stamp, result)
    return list(result)


_milestones_cache: dict[str, tuple[int | None, list[tuple[str, str]]]] = {}


def _words(key: str) -> str:
    text = str(key).replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def milestone_label(key: Any) -> str:
    if key is None or key == "":
        return ""
    if key == "unspecified":
        return "Unspecified (no gate assigned)"
    return _milestone_labels().get(str(key)) or _words(str(key))


def _milestone_labels() -> dict[str, str]:
    # Pages label hundreds of milestones each: one dict per version of the data file, and
    # the file's date looked at once a second at most (a stat per label cost 0.1 ms).
    # Keyed by the file too: a deployment (or a test) that points elsewhere is read at once.
    global _labels_cache
    now = time.monotonic()
    file = Path(MILESTONES_FILE)
    if _labels_cache is not None and _labels_cache[0] == file and now - _labels_cache[1] < 1.0:
        return _labels_cache[3]
    entries = load_milestones(file)
    same = _labels_cache is not None and _labels_cache[0] == file and _labels_cache[2] == entries
    labels = _labels_cache[3] if same and _labels_cache else dict(entries)
    _labels_cache = (file, now, entries, labels)
    return labels


_labels_cache: tuple[Path, float, list[tuple[str, str]], dict[str, str]] | None = None


def milestone_order(project_milestones: list[str] | None = None) -> list[str]:
    """The project's own milestone order if it has one, else the data file's."""
    if project_milestones:
        return list(project_milestones)
    return [k for k, _ in load_milestones()]


def department_names() -> dict[str, str]:
    try:
        data = json.loads(DEPARTMENTS_FILE.read_text("utf-8"))
        return {d["key"]: d["name"] for d in data.get("departments", [])}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def department_label(key: Any, project: ProjectInfo | None = None) -> str:
    """A department key as its name: the project's contact list first, then the
    department file; a heading as printed passes through unchanged."""
    if key is None or key == "":
        return ""
    if project is not None:
        for d in project.departments:
            if d.department_key == key and d.name:
                return d.name
    return department_names().get(str(key), str(key))


@dataclass
class RenderedNotice:
    subject: str
    text: str
    html: str


def _label(table: dict[str, str]) -> Any:
    def label(value: Any) -> str:
        if value is None or value == "":
            return ""
        # Unknown keys still read as words rather than snake_case.
        return table.get(str(value), str(value).replace("_", " "))

    return label


def _longdate(value: Any) -> str:
    """'2026-04-20' -> 'Monday, April 20, 2026'; letters read better with the weekday."""
    if not value:
        return "not yet determined"
    try:
        d = date.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return f"{d:%A}, {d:%B} {d.day}, {d.year}"


def _letterdate(value: Any) -> str:
    """'2026-04-20' -> 'April 20, 2026', the form a formal letter is dated with."""
    if not value:
        return "not yet determined"
    try:
        d = date.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return f"{d:%B} {d.day}, {d.year}"


def _sentence(value: Any) -> str:
    """'tolls the clock' -> 'Tolls the clock.': ledger effects are phrases; letters want
    sentences."""
    text = str(value or "").strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _days(value: Any) -> str:
    if value is None or value == "":
        return ""
    n = int(value)
    return f"{n} day" if abs(n) == 1 else f"{n} days"


def _oneline(value: Any, limit: int = 0) -> str:
    """Collapse whitespace (resolution text keeps the PDF's line breaks); optionally
    shorten to `limit` characters."""
    text = re.sub(r"\s+", " ", str(value or "")).strip()
    if limit and len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    return text


def _localtime(value: Any, tz: str = "") -> str:
    """'2027-01-04T17:30:00+00:00' -> 'January 4, 2027, 9:30 AM PST' in the project's time
    zone; a plain date or anything unparseable passes through."""
    text = str(value or "").strip()
    if "T" not in text:
        return text
    try:
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is not None and tz:
            moment = moment.astimezone(ZoneInfo(tz))
    except (ValueError, ZoneInfoNotFoundError):
        return text
    hour = moment.hour % 12 or 12
    zone = f" {moment.tzname()}" if moment.tzinfo is not None else ""
    return (
        f"{moment:%B} {moment.day}, {moment.year}, "
        f"{hour}:{moment:%M} {'AM' if moment.hour < 12 else 'PM'}{zone}"
    )


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {plural or word + 's'}"


def _jurisdiction_name(key: str) -> str:
    city = JURISDICTIONS.get(key)
    return city.name if city is not None else key


class NoticeRenderer:
    def __init__(self, template_dir: Path | str = TEMPLATE_DIR) -> None:
        # Compiled templates, each compiled once (see _template).
        self._templates: dict[str, Template] = {}
        self._compile_lock = threading.Lock()
        self._env = Environment(
            loader=FileSystemLoader(str(template_dir)),
            # Escape HTML templates only; the text part must show "<" as typed.
            autoescape=select_autoescape(
                enabled_extensions=("html", "html.j2"),
                disabled_extensions=("txt", "txt.j2", "j2"),
                default_for_string=False,
                default=False,
            ),
            # A legal notice with a silently blank date is worse than a failed send.
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        self._env.filters.update(
            category_label=_label(CATEGORY_LABELS),
            status_label=_label(STATUS_LABELS),
            event_label=_label(EVENT_LABELS),
            outcome_label=_label(OUTCOME_LABELS),
            window_label=_label(WINDOW_LABELS),
            window_state_label=_label(WINDOW_STATE_LABELS),
            longdate=_longdate,
            letterdate=_letterdate,
            days=_days,
            sentence=_sentence,
            milestone_label=milestone_label,
            condition_status_label=_label(CONDITION_STATUS_LABELS),
            oneline=_oneline,
            localtime=_localtime,
        )

    def _template(self, name: str) -> Template:
        """The compiled template, compiled once per process. Jinja's own cache lets every
        activity thread that misses it compile the same template at once (at 08:00, 16
        threads compiling the reminder templates while the storm waits) and stats the
        file on every render; templates change with a deployment, which restarts the
        worker."""
        found = self._templates.get(name)
        if found is None:
            with self._compile_lock:
                found = self._templates.get(name)
                if found is None:
                    found = self._templates[name] = self._env.get_template(name)
        return found

    def warm(self) -> None:
        """Compile every notice template now (the worker does at start-up), so the first
        notices after a restart, often a whole 08:00 at once, don't wait for it."""
        for kind in (*NOTICE_KINDS, *PROJECT_NOTICE_KINDS):
            for part in ("txt", "html"):
                self._template(f"notices/{kind}.{part}.j2")

    def render(self, req: NoticeRequest) -> RenderedNotice:
        if req.kind not in NOTICE_KINDS:
            raise UnknownNoticeKind(f"unknown notice kind {req.kind!r}")
        context = self._context(req)
        subject = " ".join(self._subject(req, context).split())
        context["subject"] = subject
        text = self._template(f"notices/{req.kind}.txt.j2").render(context)
        html = self._template(f"notices/{req.kind}.html.j2").render(context)
        return RenderedNotice(subject=subject, text=text, html=html)

    def _context(self, req: NoticeRequest) -> dict[str, Any]:
        app = req.application
        clock = req.clock
        details = req.details
        return {
            "kind": req.kind,
            "notice_key": req.notice_key,
            "app": app,
            "contacts": app.contacts,
            "clock": clock,
            "details": details,
            "category": app.category or clock.get("category") or "",
            # The calendar holds the jurisdiction's key; letters use the city's name.
            "jurisdiction_name": details.get("jurisdiction_name")
            or _jurisdiction_name(app.calendar.jurisdiction),
            "to": req.to,
            "cc": req.cc,
        }

    def _subject(self, req: NoticeRequest, ctx: dict[str, Any]) -> str:
        app_id = req.application.application_id
        clock = req.clock
        details = req.details
        offset = _days(details.get("offset_days"))
        event = details.get("event") or {}
        if req.kind == "reminder":
            return (
                f"Shot clock reminder: {app_id} — {offset} to "
                f"{clock.get('conservative_date')} (conservative date)"
            )
        if req.kind == "window_closing":
            window = details.get("window") or {}
            label = WINDOW_LABELS.get(window.get("kind", ""), "notice window")
            return (
                f"Notice window closing: {app_id} — {label} closes "
                f"{window.get('closes')} ({offset} left)"
            )
        if req.kind == "expiry_escalation":
            return (
                f"Shot clock expired: {app_id} — ran out on {details.get('expired_on')}; "
                "deemed-approval risk"
            )
        if req.kind == "incompleteness_notice":
            return (
                f"{ctx['jurisdiction_name']}: Notice of incomplete application "
                f"{app_id} — {req.application.site_address}"
            )
        if req.kind == "applicant_upload":
            upload = details.get("upload") or {}
            return (
                f"Applicant upload for {app_id}: {upload.get('filename')} — check it and "
                "record the resubmission"
            )
        if req.kind == "resubmission_confirmation":
            return (
                f"{ctx['jurisdiction_name']}: Resubmission received, new dates for "
                f"{app_id} — act by {_letterdate(clock.get('conservative_date'))}"
            )
        if req.kind == "decision_confirmation":
            outcome = _label(OUTCOME_LABELS)(event.get("outcome"))
            return f"Decision on wireless application {app_id}: {outcome} ({event.get('date')})"
        if req.kind == "judicial_review_reminder":
            deemed = (
                "deemed approved"
                if clock.get("status") == "deemed_approved"
                else ("may be deemed approved")
            )
            return (
                f"Judicial review deadline: {app_id} {deemed} — {offset} to "
                f"{clock.get('judicial_review_deadline')}"
            )
        # deemed_status
        if details.get("conservative"):
            status = _label(STATUS_LABELS)(details.get("status"))
            return (
                f"Act now: application {app_id} may be {status} under the earliest reading; "
                f"judicial review by {clock.get('judicial_review_deadline') or '-'}"
            )
        status = _label(STATUS_LABELS)(clock.get("status"))
        when = f" (applicant's notice of {event['date']})" if event.get("date") else ""
        return f"Application {app_id} is {status}{when}"

    # -- project notices (conditions of approval) --------------------------------------

    def render_project(self, req: ProjectNoticeRequest) -> RenderedNotice:
        if req.kind not in PROJECT_NOTICE_KINDS:
            raise UnknownNoticeKind(f"unknown project notice kind {req.kind!r}")
        context = self._project_context(req)
        subject = " ".join(self._project_subject(req, context).split())
        context["subject"] = subject
        text = self._template(f"notices/{req.kind}.txt.j2").render(context)
        html = self._template(f"notices/{req.kind}.html.j2").render(context)
        return RenderedNotice(subject=subject, text=text, html=html)

    def _project_context(self, req: ProjectNoticeRequest) -> dict[str, Any]:
        project = req.project
        details = dict(req.details or {})
        ctx: dict[str, Any] = {
            "kind": req.kind,
            "notice_key": req.notice_key,
            "project": project,
            "tz": project.time_zone,
            "details": details,
            "jurisdiction_name": details.get("jurisdiction_name")
            or _jurisdiction_name(project.jurisdiction),
            "to": req.to,
            "cc": req.cc,
        }
        kind = req.kind

        def need(*keys: str) -> None:
            missing = [k for k in keys if details.get(k) in (None, "", [])]
            if missing:
                raise InvalidNoticeDetails(
                    f"{kind} notice {req.notice_key} for {project.project_id} is missing "
                    f"{', '.join(missing)}"
                )

        if kind in ("review_reminder", "review_escalation"):
            need("conditions", "due")
            if kind == "review_escalation":
                need("overdue_business_days")
            conditions = [_condition(c, project, kind) for c in details["conditions"]]
            dept = details.get("department") or conditions[0]["department"]
            ctx.update(
                conditions=conditions,
                department=dept,
                department_name=department_label(dept, project),
                due=str(details["due"]),
                sla_business_days=details.get("sla_business_days")
                or project.review_sla_business_days,
                overdue_business_days=details.get("overdue_business_days"),
            )
        elif kind == "applicant_digest":
            if not isinstance(details.get("owed"), list):
                need("owed")
            owed = [_condition(c, project, kind) for c in details["owed"]]
            milestone = details.get("milestone")
            label = details.get("milestone_label") or (
                milestone_label(milestone) if milestone else "the next milestone"
            )
            ctx.update(
                milestone=milestone,
                milestone_label=label,
                target_date=details.get("target_date"),
                reason=details.get("reason") or "weekly",
                owed=owed,
                returned=[c for c in owed if c["status"] == "returned"],
                groups=_digest_groups(owed, milestone, label, project),
            )
        elif kind == "window_reminder":
            need("number", "due")
            ctx.update(
                number=str(details["number"]),
                code=details.get("code") or "",
                rule_key=details.get("rule_key") or "",
                due=str(details["due"]),
                window_start=details.get("window_start"),
                description=_oneline(details.get("description")),
                citation=_oneline(details.get("citation")),
            )
        elif kind == "construction_checkin":
            need("conditions", "period_start", "period_end")
            conditions = [_condition(c, project, kind) for c in details["conditions"]]
            ctx.update(
                conditions=conditions,
                period_start=str(details["period_start"]),
                period_end=str(details["period_end"]),
                by_department=_by_department(conditions),
            )
        else:  # signoff_confirmation
            need("milestone", "signed_by", "at")
            milestone = details["milestone"]
            ctx.update(
                milestone=milestone,
                milestone_label=details.get("milestone_label") or milestone_label(milestone),
                signed_by=details["signed_by"],
                at=str(details["at"]),
                conditions_cleared=int(details.get("conditions_cleared") or 0),
            )
        return ctx

    def _project_subject(self, req: ProjectNoticeRequest, ctx: dict[str, Any]) -> str:
        name = req.project.name or req.project.project_id
        kind = req.kind
        if kind in ("review_reminder", "review_escalation"):
            conds = _conditions_phrase(ctx["conditions"])
            if kind == "review_reminder":
                return (
                    f"Review reminder — {name}: {conds} awaiting {ctx['department_name']} "
                    f"review, due {ctx['due']}"
                )
            days = _plural(int(ctx["overdue_business_days"]), "business day")
            return (
                f"Overdue review — {name}: {conds} {days} past the {ctx['due']} review date "
                f"({ctx['department_name']})"
            )
        if kind == "applicant_digest":
            n = len(ctx["owed"])
            what = f"{_plural(n, 'condition')} still owed" if n else "nothing owed"
            target = f" (target {ctx['target_date']})" if ctx["target_date"] else ""
            return f"{name}: {what} before {ctx['milestone_label']}{target}"
        if kind == "window_reminder":
            code = f" ({ctx['code']})" if ctx["code"] else ""
            what = f" — {_oneline(ctx['description'], 80)}" if ctx["description"] else ""
            return f"{name}: condition #{ctx['number']}{code} due {ctx['due']}{what}"
        if kind == "construction_checkin":
            n = len(ctx["conditions"])
            return (
                f"{name}: construction check-in, {_plural(n, 'condition')} to verify "
                f"({ctx['period_start']} to {ctx['period_end']})"
            )
        n = ctx["conditions_cleared"]
        return (
            f"{name}: milestone signed off — {ctx['milestone_label']} "
            f"({_plural(n, 'condition')} cleared)"
        )


def _conditions_phrase(conditions: list[dict[str, Any]]) -> str:
    if len(conditions) == 1:
        c = conditions[0]
        code = f" ({c['code']})" if c["code"] else ""
        return f"condition #{c['number']}{code}"
    if len(conditions) <= 4:
        return "conditions " + ", ".join(f"#{c['number']}" for c in conditions)
    return f"{len(conditions)} conditions"


def _evidence(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {"description": str(raw), "filename": "", "submitted_at": "", "submitted_by": ""}
    return {
        "description": _oneline(raw.get("description")),
        "filename": raw.get("filename") or "",
        "submitted_at": raw.get("submitted_at") or "",
        "submitted_by": raw.get("submitted_by") or "",
        "document_date": raw.get("document_date") or "",
    }


def _comment(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {"author": "", "at": "", "text": str(raw)}
    return {
        "author": raw.get("author") or "",
        "at": raw.get("at") or "",
        "text": str(raw.get("text") or "").strip(),
    }


def _condition(raw: Any, project: ProjectInfo, kind: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or raw.get("number") in (None, ""):
        raise InvalidNoticeDetails(f"{kind}: each condition needs at least a number, got {raw!r}")
    gates = [str(g) for g in raw.get("gates") or []]
    dept = raw.get("department") or ""
    return {
        "number": str(raw["number"]),
        "code": raw.get("code") or "",
        "text": _oneline(raw.get("text")),
        "department": dept,
        "department_name": department_label(dept, project),
        "status": raw.get("status") or "",
        "gates": gates,
        "gate_labels": [milestone_label(g) for g in gates],
        "submitted_at": raw.get("submitted_at") or "",
        "evidence": [_evidence(e) for e in raw.get("evidence") or []],
        "comments": [_comment(c) for c in raw.get("comments") or []],
    }


def _by_department(conditions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for c in conditions:
        group = groups.setdefault(
            c["department"],
            {"department": c["department"], "name": c["department_name"], "conditions": []},
        )
        group["conditions"].append(c)
    return sorted(groups.values(), key=lambda g: g["name"].lower())


def _digest_groups(
    owed: list[dict[str, Any]], milestone: str | None, label: str, project: ProjectInfo
) -> list[dict[str, Any]]:
    """Owed conditions by milestone (the digest's own first, then in milestone order)
    and, within each, by department."""
    order = milestone_order(project.milestones)
    rank = {m: i for i, m in enumerate(order)}

    def home(c: dict[str, Any]) -> str:
        if milestone and milestone in c["gates"]:
            return milestone
        gates = sorted(c["gates"], key=lambda g: rank.get(g, len(rank)))
        return gates[0] if gates else "unspecified"

    by_milestone: dict[str, list[dict[str, Any]]] = {}
    for c in owed:
        by_milestone.setdefault(home(c), []).append(c)
    keys = sorted(by_milestone, key=lambda m: (m != milestone, rank.get(m, len(rank)), m))
    return [
        {
            "milestone": m,
            "label": label if m == milestone else milestone_label(m),
            "count": len(by_milestone[m]),
            "departments": _by_department(by_milestone[m]),
        }
        for m in keys
    ]
