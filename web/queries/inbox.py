""" "What needs you": each role's inbox, from the read model, ranked by date.

Every item says what to do next (a link to the form that does it) and why it is urgent,
in words that carry the date. Dates and urgency are decided here (and by the rules core
behind the read model), never in templates. Every query is bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, null, or_, select
from sqlalchemy.orm import Session

from models.schema import (
    Application,
    ClockEventRow,
    ConditionRow,
    EvidenceFile,
    PermitClockRow,
    Project,
)
from rules.access import CLOCK_STAFF
from rules.conditions.lifecycle import DEPARTMENTS
from rules.kernel.alerts import local_today
from rules.kernel.calendars import calendar_for
from rules.kernel.citations import citation_title
from rules.kernel.jurisdictions import JURISDICTIONS, Jurisdiction
from rules.permit_clocks.packs import PERMIT_RULES
from rules.shot_clock.outcomes import TERMINAL_STATUSES
from web.queries.deadlines import PERMIT_DONE
from web.queries.readmodel import queued
from web.views.present import (
    human_date,
    human_datetime,
    milestone_label,
    urgency,
    window_label,
)

# How far ahead an inbox looks, and how much it lists (the lists behind it are paged).
HORIZON_DAYS = 30
LIMIT = 50
# The most items an inbox holds (the nearest by date); the full lists hold the rest.
INBOX_CAP = LIMIT * 2
DEEMED_STATUSES = ("deemed_granted", "deemed_approved")


@dataclass(frozen=True)
class InboxItem:
    kind: str  # notice_window, upload, clock, review, signoff, milestone, risk, judicial_review
    title: str  # the record: "WTF-2026-014, 201 W Sierra Ave"
    href: str  # the record's page
    action: str  # what to do next: "Send the notice of incompleteness"
    action_href: str  # the form that does it
    why: str  # why now, with the date in words
    due: str | None  # ISO date the item is about (ranking)
    days_left: int | None
    urgency: str  # expired | urgent | soon | ok (the colour)
    badge: str = ""  # a short label, e.g. a review's service level
    # A condition's whole text and its sub-items (a review), shown expandable, never cut off.
    condition_text: str = ""
    sub_items: list[Any] = field(default_factory=list)
    owner: str = ""  # a condition's owner the project manager chose ('' for the department)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _left(today: date, iso: str | None) -> int | None:
    return (date.fromisoformat(iso) - today).days if iso else None


def _in_words(left: int | None) -> str:
    if left is None:
        return "no date"
    if left < 0:
        return f"{-left} day{'s' if left != -1 else ''} ago"
    if left == 0:
        return "today"
    return f"in {left} day{'s' if left != 1 else ''}"


def _item(kind: str, today: date, due: str | None, **fields: Any) -> InboxItem:
    left = _left(today, due)
    return InboxItem(kind=kind, due=due, days_left=left, urgency=urgency(left), **fields)


def rank(items: list[InboxItem]) -> list[InboxItem]:
    """Earliest date first; undated items last; the kind breaks ties (stable)."""
    return sorted(items, key=lambda i: (i.due is None, i.due or "", i.kind, i.title))


# -- planners: notice windows, applicant uploads, clocks near their conservative date ---------


def notice_windows(db: Session, today: date) -> list[InboxItem]:
    """Open notice windows closing within the horizon, nearest first.

    Each application row carries the earliest and the latest closing day among its
    clock's windows that were open when it was recorded. The clocks whose earliest window
    closes from today to the horizon are read nearest first, as many as an inbox shows
    (any later window of theirs closes later still); so are the clocks whose earliest
    window has closed since they were recorded but whose latest has not."""
    today_iso = today.isoformat()
    horizon = (today + timedelta(days=HORIZON_DAYS)).isoformat()
    # Only the windows, not the whole computed clock (its timeline, readings, ...).
    columns = (
        Application.application_id,
        Application.site_address,
        Application.clock["notice_windows"],
    )
    # A window is open only while the clock runs (a notice outstanding used it).
    running = Application.status == "running"
    nearest = db.execute(
        select(*columns)
        .where(
            running,
            Application.notice_window_closes >= today_iso,
            Application.notice_window_closes <= horizon,
        )
        .order_by(Application.notice_window_closes, Application.application_id)
        .limit(INBOX_CAP)
    ).all()
    earlier_one_closed = db.execute(
        select(*columns).where(
            running,
            Application.notice_window_last_closes >= today_iso,
            Application.notice_window_closes < today_iso,
        )
    ).all()
    rows = [*nearest, *earlier_one_closed]
    out = []
    for application_id, site, windows in rows:
        for w in windows or []:
            closes = w.get("closes")
            left = _left(today, closes)
            if w.get("state") != "open" or left is None or left < 0 or left > HORIZON_DAYS:
                continue
            out.append(
                _item(
                    "notice_window",
                    today,
                    closes,
                    title=f"{application_id}, {site}",
                    href=f"/applications/{application_id}",
                    action="Check completeness; send a notice of incompleteness if needed",
                    action_href=f"/applications/{application_id}/notice",
                    why=(
                        f"The window for the {window_label(w.get('kind'))} closes "
                        f"{human_date(closes)} ({_in_words(left)}); after that a notice no "
                        f"longer affects the clock ({citation_title(w.get('rule', ''))})."
                    ),
                    badge="notice window",
                )
            )
    return out


def applicant_uploads(db: Session, today: date, time_zone: str) -> list[InboxItem]:
    """Documents an applicant uploaded answering an outstanding notice: the planner
    checks them and records the resubmission (the clock stays tolled until then)."""
    # The latest notice, looked up per candidate (an index on the application id): the
    # candidates are the few tolled applications with uploads, where grouping every
    # application's events first read the whole event table on every dashboard.
    last_notice = (
        select(func.max(ClockEventRow.recorded_at))
        .where(
            ClockEventRow.application_id == Application.application_id,
            ClockEventRow.type == "incomplete_notice",
        )
        .correlate(Application)
        .scalar_subquery()
    )
    rows = db.execute(
        select(
            Application.application_id,
            Application.site_address,
            func.count(EvidenceFile.id),
            func.max(EvidenceFile.uploaded_at),
        )
        .join(EvidenceFile, EvidenceFile.scope_id == Application.application_id)
        .where(
            EvidenceFile.scope == "application",
            Application.status.in_(("tolled", "reset_pending")),
            EvidenceFile.uploaded_at >= last_notice,
        )
        .group_by(Application.application_id, Application.site_address)
        .limit(LIMIT)
    ).all()
    out = []
    for application_id, site, count, latest in rows:
        day = local_today(_aware(latest), time_zone).isoformat()
        out.append(
            _item(
                "upload",
                today,
                day,
                title=f"{application_id}, {site}",
                href=f"/applications/{application_id}#documents",
                action="Check the documents and record the resubmission",
                action_href=f"/applications/{application_id}#record-resubmission",
                why=(
                    f"The applicant uploaded {count} document{'s' if count != 1 else ''} "
                    f"answering the notice (latest {human_date(day)}); the clock stays "
                    "tolled until the resubmission is recorded."
                ),
                badge="applicant upload",
            )
        )
    return out


def _aware(moment: datetime) -> datetime:
    from datetime import UTC

    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def clocks_near(db: Session, today: date) -> list[InboxItem]:
    """Running clocks whose conservative date is within the horizon (or past)."""
    horizon = (today + timedelta(days=HORIZON_DAYS)).isoformat()
    rows = db.execute(
        select(
            Application.application_id,
            Application.site_address,
            Application.conservative_date,
            Application.status,
        )
        .where(
            Application.status.not_in(TERMINAL_STATUSES),
            Application.conservative_date.is_not(None),
            Application.conservative_date <= horizon,
        )
        .order_by(Application.conservative_date)
        .limit(LIMIT)
    ).all()
    out = []
    for application_id, site, conservative, _status in rows:
        left = _left(today, conservative)
        if left is not None and left < 0:
            why = (
                f"The conservative date {human_date(conservative)} has passed "
                f"({_in_words(left)}) without a decision: the applicant may claim the "
                "application is deemed approved."
            )
        else:
            why = (
                f"The earliest reading of the law requires a decision by "
                f"{human_date(conservative)} ({_in_words(left)})."
            )
        out.append(
            _item(
                "clock",
                today,
                conservative,
                title=f"{application_id}, {site}",
                href=f"/applications/{application_id}",
                action="Record the decision",
                action_href=f"/applications/{application_id}#record-decision",
                why=why,
                badge="shot clock",
            )
        )
    return out


# -- reviewers: their department's queue with service levels ---------------------------------


# A city by key as in effect today (the web passes Cities.find: an administrator's saved
# version, else the shipped file); None for a city nobody knows.
CityLookup = Callable[[str], Jurisdiction | None]


def _service_level(city: Jurisdiction | None, dept: str) -> int:
    """The department's own review service level in its city, else the city's, else 10."""
    if city is None:
        return 10
    for found in city.department_details:
        if found.key == dept and found.review_sla_business_days is not None:
            return found.review_sla_business_days
    return city.review_sla_business_days


def review_items(
    db: Session,
    department: str | None,
    today: date,
    cities: CityLookup | None = None,
    me: str = "",
) -> list[InboxItem]:
    """The department's queue; a condition handed to `me` is named as theirs, one handed
    to a colleague stays in the queue with its owner named."""
    lookup = cities or JURISDICTIONS.get
    columns = [
        ConditionRow.project_id,
        ConditionRow.number,
        ConditionRow.department_key,
        ConditionRow.submitted_at,
        ConditionRow.text,
        ConditionRow.sub_items,
        ConditionRow.owner_email,
    ]
    found = queued(db, columns, department, LIMIT)
    # The city of each project (one query for the page, not one per row).
    city_keys = dict(
        db.execute(
            select(Project.project_id, Project.jurisdiction).where(
                Project.project_id.in_({r.project_id for r in found})
            )
        ).all()
    )
    rows = [(*r, city_keys.get(r.project_id, "")) for r in found]
    calendars: dict[str, Any] = {}  # one business-day calendar per city, not per row
    out = []
    for project_id, number, dept, submitted_at, text, items, owner, key in rows:
        city = lookup(key)
        tz = city.time_zone if city else "UTC"
        sla = _service_level(city, dept)
        if key not in calendars:
            calendars[key] = calendar_for(
                city.state if city else None,
                [date.fromisoformat(d) for d in (city.local_closures if city else ())],
            )
        cal = calendars[key]
        submitted = (
            local_today(_aware(datetime.fromisoformat(submitted_at)), tz) if submitted_at else today
        )
        due = cal.add_business_days(submitted, sla).isoformat()
        left = _left(today, due)
        badge = (
            f"{-left} days over service level"
            if left is not None and left < 0
            else f"service level: {_in_words(left)}"
        )
        short = " ".join(text.split())
        mine = bool(me) and owner == me
        out.append(
            _item(
                "review",
                today,
                due,
                title=f"{project_id} condition #{number}",
                href=f"/projects/{project_id}/conditions/{number}",
                action="Review the evidence you own: clear it or return it"
                if mine
                else "Review the evidence: clear it or return it",
                action_href=f"/projects/{project_id}/conditions/{number}#review",
                why=(
                    f"Submitted {human_date(submitted)}; {DEPARTMENTS.get(dept, dept)} "
                    f"reviews within {sla} business days, by {human_date(due)}."
                    + (f" Owner: {owner}." if owner and not mine else "")
                ),
                badge=f"yours; {badge}" if mine else badge,
                owner=owner or "",
                condition_text=short,
                sub_items=list(items or []),
            )
        )
    return out


# -- milestones: engineering's sign-offs, the project manager's most urgent milestone -------


def _milestone_rows(db: Session, today: date, manager: str | None, ready_only: bool) -> list[Any]:
    horizon = (today + timedelta(days=HORIZON_DAYS)).isoformat()
    query = select(
        Project.project_id,
        Project.name,
        # Every milestone's progress (JSON) only for sign-offs; the rest is in columns.
        Project.milestones if ready_only else null(),
        Project.next_milestone,
        Project.next_milestone_blockers,
        Project.urgent_target,
    )
    if manager is not None:
        query = query.where(Project.project_manager_email == manager)
    if ready_only:
        query = query.where(
            or_(
                Project.signoff_ready > 0,
                and_(Project.urgent_target.is_not(None), Project.urgent_target <= horizon),
            )
        )
    else:
        query = query.where(Project.next_milestone.is_not(None))
    return list(
        db.execute(
            query.order_by(Project.urgent_target.asc().nulls_last(), Project.project_id).limit(
                LIMIT
            )
        ).all()
    )


def signoff_items(db: Session, today: date) -> list[InboxItem]:
    """Milestones nothing blocks (awaiting sign-off), and milestones due within the
    horizon with their blocker count."""
    out = []
    for project_id, name, milestones, *_ in _milestone_rows(db, today, None, ready_only=True):
        for p in milestones or []:
            if p["signed_off"]:
                continue
            m, target = p["milestone"], p.get("target")
            left = _left(today, target)
            ready = not p["monitored"] and p["gated"] and not p["blockers"]
            if not ready and not (target and left is not None and left <= HORIZON_DAYS):
                continue  # most milestones: neither ready nor near (no labels built)
            page = f"/projects/{project_id}/milestones/{m}/sign-off"
            title = f"{name}: {milestone_label(m)}"
            if ready:
                out.append(
                    _item(
                        "signoff",
                        today,
                        target or today.isoformat(),
                        title=title,
                        href=f"/projects/{project_id}",
                        action="Sign off the milestone",
                        action_href=page,
                        why=(
                            f"All {p['gated']} conditions gating it are resolved"
                            + (f"; target {human_date(target)}." if target else ".")
                        ),
                        badge="awaiting sign-off",
                    )
                )
            else:
                out.append(
                    _item(
                        "milestone",
                        today,
                        target,
                        title=title,
                        href=f"/projects/{project_id}",
                        action="See what blocks it",
                        action_href=f"{page}#blockers",
                        why=(
                            f"Target {human_date(target)} ({_in_words(left)}); "
                            f"{p['blockers']} condition{'s' if p['blockers'] != 1 else ''} "
                            "still block it."
                        ),
                        badge=f"{p['blockers']} blockers",
                    )
                )
    return out


def returned_items(db: Session, today: date, manager: str, time_zone: str) -> list[InboxItem]:
    """Conditions of the manager's projects returned to the applicant with comments: the
    project manager follows up until the applicant answers."""
    rows = db.execute(
        select(
            ConditionRow.project_id,
            ConditionRow.number,
            ConditionRow.code,
            ConditionRow.comments,
            Project.name,
        )
        .join(Project, Project.project_id == ConditionRow.project_id)
        .where(ConditionRow.status == "returned", Project.project_manager_email == manager)
        .order_by(ConditionRow.project_id, ConditionRow.position)
        .limit(LIMIT)
    ).all()
    out = []
    for project_id, number, code, comments, name in rows:
        last = (comments or [{}])[-1] if isinstance(comments, list) else {}
        when = str(last.get("at") or "") if isinstance(last, dict) else ""
        said = str(last.get("text") or "").strip() if isinstance(last, dict) else ""
        page = f"/projects/{project_id}/conditions/{number}"
        label = f"#{number}" + (f" ({code})" if code else "")
        out.append(
            _item(
                "returned",
                today,
                None,
                title=f"{name}: condition {label}",
                href=page,
                action="Follow up with the applicant",
                action_href=page,
                why=(
                    "Returned to the applicant"
                    + (f" on {human_datetime(when, time_zone)}" if when else "")
                    + (f": “{said[:160]}”" if said else "")
                    + ". Nothing new has come back yet."
                ),
                badge="returned",
            )
        )
    return out


def project_items(db: Session, today: date, manager: str | None) -> list[InboxItem]:
    """Each project's most urgent milestone (earliest target; undated ones after)."""
    out = []
    for project_id, name, _ms, milestone, blockers, target in _milestone_rows(
        db, today, manager, ready_only=False
    ):
        left = _left(today, target)
        when = f"target {human_date(target)} ({_in_words(left)})" if target else "no target date"
        page = f"/projects/{project_id}/milestones/{milestone}/sign-off"
        if blockers:
            action, href = "Work the blockers with their departments", f"{page}#blockers"
            why = f"{when}; {blockers} condition{'s' if blockers != 1 else ''} still block it."
        else:
            action, href = "Ask engineering to sign it off", page
            why = f"{when}; nothing blocks it."
        out.append(
            _item(
                "milestone",
                today,
                target,
                title=f"{name}: {milestone_label(milestone)}",
                href=f"/projects/{project_id}",
                action=action,
                action_href=href,
                why=why[0].upper() + why[1:],
                badge=f"{blockers} blockers" if blockers else "ready",
            )
        )
    return out


# -- the city attorney: deemed-approval risks and judicial-review countdowns ----------------


def attorney_items(db: Session, today: date) -> list[InboxItem]:
    rows = db.execute(
        select(
            Application.application_id,
            Application.site_address,
            Application.status,
            Application.conservative_date,
            Application.judicial_review_deadline,
        )
        .where(
            or_(
                Application.risk_flagged.is_(True),
                Application.status.in_(("expired", *DEEMED_STATUSES)),
                Application.judicial_review_deadline.is_not(None),
            )
        )
        .order_by(Application.conservative_date)
        .limit(LIMIT)
    ).all()
    out = []
    for application_id, site, status, conservative, review_deadline in rows:
        title = f"{application_id}, {site}"
        href = f"/applications/{application_id}"
        if review_deadline:
            left = _left(today, review_deadline)
            if left is not None and left < -HORIZON_DAYS:
                continue
            out.append(
                _item(
                    "judicial_review",
                    today,
                    review_deadline,
                    title=title,
                    href=href,
                    action="Decide whether the city seeks judicial review",
                    action_href=f"{href}#section-timeline",
                    why=(
                        "The applicant gave notice that the application is deemed approved; "
                        f"the 30-day period to seek judicial review ends "
                        f"{human_date(review_deadline)} ({_in_words(left)})."
                    ),
                    badge="judicial review",
                )
            )
        if status in TERMINAL_STATUSES and status not in DEEMED_STATUSES:
            continue
        out.append(
            _item(
                "risk",
                today,
                conservative,
                title=title,
                href=href,
                action="Review the record and advise the planner",
                action_href=f"{href}#ledger",
                why=(
                    f"The conservative date {human_date(conservative)} has passed without a "
                    "decision: deemed-approval risk."
                    if status not in DEEMED_STATUSES
                    else f"The applicant claims the application is {status.replace('_', ' ')}."
                ),
                badge="deemed-approval risk",
            )
        )
    return out


# -- permit clocks: the person who acts, and on a lapse the manager and the attorney -------

ACTOR_LABELS = {
    "planner": "planner",
    "building_official": "building official",
    "city_attorney": "city attorney",
}
# What meets a clock when its rule names nothing (`met_label`), by family.
_MET = {
    "agency_deadline": "the city's decision",
    "expiry": "the permit exercised",
    "applicant_deadline": "what the applicant filed",
}


_PERMIT_COLUMNS = (
    PermitClockRow.clock_id,
    PermitClockRow.title,
    PermitClockRow.rule,
    PermitClockRow.citation,
    PermitClockRow.consequence,
    PermitClockRow.next_deadline,
    PermitClockRow.staff_email,
)


def _permit_rows(db: Session, today: date, owner: str | None, lapsed: bool) -> list[Any]:
    """Open permit clocks by their next deadline (the date /deadlines and the calendar
    show): the owner's within the horizon, or every one already past. Columns only: the
    computed clock's JSON is most of a row, and an inbox needs none of it."""
    query = select(*_PERMIT_COLUMNS).where(
        PermitClockRow.next_deadline.is_not(None), PermitClockRow.status.not_in(PERMIT_DONE)
    )
    if lapsed:
        query = query.where(PermitClockRow.next_deadline < today.isoformat())
    else:
        horizon = (today + timedelta(days=HORIZON_DAYS)).isoformat()
        query = query.where(PermitClockRow.next_deadline <= horizon)
    if owner is not None:
        query = query.where(PermitClockRow.staff_email == owner)
    return list(db.execute(query.order_by(PermitClockRow.next_deadline).limit(LIMIT)).all())


def _permit_action(rule: Any) -> str:
    family = rule.family if rule is not None else ""
    met = (rule.met_label if rule is not None else "") or _MET.get(family, "what happened")
    # An expiring permit is kept alive by an extension too.
    return f"Record {met}, or an extension" if family == "expiry" else f"Record {met}"


def permit_items(db: Session, today: date, owner: str) -> list[InboxItem]:
    """The permit clocks this person acts on (the clock's owner), each with its next
    action on its next deadline: the date /deadlines and the calendar feed give it."""
    out = []
    for row in _permit_rows(db, today, owner, lapsed=False):
        rule = PERMIT_RULES.get(row.rule)
        left = _left(today, row.next_deadline)
        when = human_date(row.next_deadline)
        what = citation_title(row.citation) or row.rule
        why = (
            f"{what} ran out on {when} ({_in_words(left)}): "
            f"{(row.consequence or 'missed').replace('_', ' ')}."
            if left is not None and left < 0
            else f"{what} sets {when} ({_in_words(left)})."
        )
        out.append(
            _item(
                "permit",
                today,
                row.next_deadline,
                title=row.title or row.clock_id,
                href=f"/permits/{row.clock_id}",
                action=_permit_action(rule),
                action_href=f"/permits/{row.clock_id}#record-offers",
                why=why,
                badge=ACTOR_LABELS.get(rule.acts if rule else "planner", "planner"),
            )
        )
    return out


def permit_lapses(db: Session, today: date) -> list[InboxItem]:
    """Permit clocks past their date with nothing recorded that meets them: the planning
    manager's and the city attorney's to decide what the lapse means."""
    out = []
    for row in _permit_rows(db, today, None, lapsed=True):
        left = _left(today, row.next_deadline)
        consequence = (row.consequence or "missed").replace("_", " ")
        what = citation_title(row.citation) or row.rule
        out.append(
            _item(
                "permit_lapse",
                today,
                row.next_deadline,
                title=row.title or row.clock_id,
                href=f"/permits/{row.clock_id}",
                action="Decide what the lapse means and who tells the applicant",
                action_href=f"/permits/{row.clock_id}#ledger",
                why=(
                    f"{what} ran out on {human_date(row.next_deadline)} "
                    f"({_in_words(left)}) with nothing recorded that meets it: {consequence}. "
                    f"It is with {row.staff_email or 'no one'}."
                ),
                badge="permit lapsed",
            )
        )
    return out


# -- one inbox per role ------------------------------------------------------------------------


@dataclass
class Inbox:
    items: list[InboxItem]
    sections: list[str]  # what this inbox covers, in words
    # Some list behind it held more than an inbox reads (the nearest LIMIT of each): the
    # count is then "the nearest N", and the full lists hold the rest.
    capped: bool = False

    def to_json(self) -> dict[str, Any]:
        # `capped` tells an API client what the page says with "the nearest N": the full
        # lists (/api/v1/applications, review queues, projects) hold the rest.
        return {
            "items": [i.to_json() for i in self.items],
            "covers": self.sections,
            "capped": self.capped,
        }


def inbox_for(
    db: Session,
    role: str,
    email: str,
    department: str,
    today: date,
    time_zone: str,
    cities: CityLookup | None = None,
) -> Inbox:
    parts: list[list[InboxItem]] = []
    covers: list[str] = []
    if role in CLOCK_STAFF:
        parts += [notice_windows(db, today), applicant_uploads(db, today, time_zone)]
        parts.append(clocks_near(db, today))
        covers.append("wireless clocks: notice windows, applicant uploads, deadlines")
    if role == "department_reviewer":
        parts.append(review_items(db, department or None, today, cities, email))
        covers.append(f"review queue: {DEPARTMENTS.get(department, department)}")
    if role == "admin":
        parts.append(review_items(db, None, today, cities, email))
        covers.append("review queues: all departments")
    if role in ("engineering", "admin"):
        parts.append(signoff_items(db, today))
        covers.append("milestones awaiting sign-off or due soon")
    if role == "project_manager":
        parts.append(project_items(db, today, email))
        covers.append("your projects' most urgent milestones")
        parts.append(returned_items(db, today, email, time_zone))
        covers.append("conditions returned to the applicant")
    if role == "planning_manager":
        parts.append(project_items(db, today, None))
        covers.append("every project's most urgent milestone")
    if role in ("city_attorney", "admin"):
        parts.append(attorney_items(db, today))
        covers.append("deemed-approval risks and judicial-review countdowns")
    if role != "applicant":
        parts.append(permit_items(db, today, email))
        covers.append("permit clocks you act on")
    if role in ("planning_manager", "city_attorney", "admin"):
        parts.append(permit_lapses(db, today))
        covers.append("lapsed permit clocks")
    items = rank([i for part in parts for i in part])
    capped = len(items) > INBOX_CAP or any(len(part) >= LIMIT for part in parts)
    return Inbox(items[:INBOX_CAP], covers, capped)
