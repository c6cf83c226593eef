"""The notice activities: render, deliver and record each notice exactly once by its key.

Shot-clock notices (send_notice) and project notices (send_project_notice) share one
delivery path and one notices table."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import Engine, bindparam, insert, select, update
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.cities import CityDocuments
from activities.mail import Transport, build_message, message_id_for
from activities.operator_alerts import OperatorAlerts
from activities.portal_links import PortalLinks, PortalScope
from models.addresses import BadAddress
from models.conditions import ProjectNoticeRequest
from models.permit_clock import PermitNoticeRequest
from models.schema import Notice
from models.shot_clock import NoticeReceipt, NoticeRequest
from notices.letter import InvalidNoticeDetails, RenderedNotice, UnknownNoticeKind
from notices.permit_clock import PermitNoticeRenderer
from notices.render import NoticeRenderer
from rules.kernel.jurisdictions import Jurisdiction
from settings import load_settings

DELIVERED = "delivered"
PENDING = "pending"
FAILED = "failed"

AnyNoticeRequest = NoticeRequest | ProjectNoticeRequest | PermitNoticeRequest
_R = TypeVar("_R", NoticeRequest, ProjectNoticeRequest, PermitNoticeRequest)

logger = logging.getLogger(__name__)

# The notice path's statements, built once: building an UPDATE's SET clause anew for every
# letter cost more than running it (docs/storm.md, "The sixth round"). Bound names are
# prefixed because SQLAlchemy reserves a column's own name for its SET value.
_BY_KEY = Notice.notice_key == bindparam("p_key")
_FIND = select(Notice.delivery_state, Notice.transport, Notice.location, Notice.attempts).where(
    _BY_KEY
)
_PENDING_COLUMNS = (
    "application_id",
    "kind",
    "subject",
    "to_addrs",
    "cc_addrs",
    "message_id",
    "body_text",
    "body_html",
    "delivery_state",
    "transport",
    "attempts",
)
_INSERT = insert(Notice)
_MARK_PENDING = (
    update(Notice).where(_BY_KEY).values({c: bindparam(f"p_{c}") for c in _PENDING_COLUMNS})
)
_MARK_FAILED = (
    update(Notice)
    .where(_BY_KEY)
    .values(delivery_state=FAILED, last_error=bindparam("p_last_error"))
)
_MARK_DELIVERED = (
    update(Notice)
    .where(_BY_KEY)
    .values(
        delivery_state=DELIVERED,
        delivered_at=bindparam("p_delivered_at"),
        location=bindparam("p_location"),
        last_error="",
    )
)


def _addresses(values: list[str]) -> list[str]:
    """Drop blanks and duplicates, keeping order (an empty contact is common)."""
    out: list[str] = []
    for value in values:
        addr = (value or "").strip()
        if addr and addr not in out:
            out.append(addr)
    return out


class NoticeActivities:
    def __init__(
        self,
        engine: Engine,
        renderer: NoticeRenderer,
        transport: Transport,
        after_delivery: Callable[[AnyNoticeRequest], None] | None = None,
        *,
        mail_from: str | None = None,
        operator_alerts: OperatorAlerts | None = None,
        portal_links: PortalLinks | None = None,
    ) -> None:
        self._engine = engine
        self._renderer = renderer
        self._transport = transport
        # Test hook: runs after the delivery is recorded, e.g. to simulate a crash.
        self._after_delivery = after_delivery
        self._mail_from = mail_from or load_settings().mail_from
        # Raises an operator alert once a notice's delivery has kept failing (None: off).
        self._operator_alerts = operator_alerts
        self._permit_renderer: PermitNoticeRenderer | None = None
        # Every letter to an applicant carries a signed link to the portal (None: off).
        self._portal_links = portal_links
        # Each city's current document (an administrator's saved version, else its file):
        # its sender, Reply-To, letterhead and time zone.
        self._cities = CityDocuments()

    def _with_portal(self, req: _R, where: PortalScope | None) -> _R:
        """The request with `details["portal_url"]` when the letter goes to the applicant."""
        if self._portal_links is None or where is None or not where.email:
            return req
        if where.email not in (*req.to, *req.cc):
            return req
        url = self._portal_links.url_for(where, req.notice_key)
        return dataclasses.replace(req, details={**req.details, "portal_url": url})

    @activity.defn
    def send_notice(self, req: NoticeRequest) -> NoticeReceipt:
        app = req.application
        req = self._with_portal(
            req, PortalScope("application", app.application_id, app.contacts.applicant_email)
        )
        return self._send_once(
            req,
            key=req.notice_key,
            subject_id=req.application.application_id,
            kind=req.kind,
            city_key=app.calendar.jurisdiction,
            render=lambda city: self._renderer.render(req, city),
            to=req.to,
            cc=req.cc,
        )

    @activity.defn
    def send_project_notice(self, req: ProjectNoticeRequest) -> NoticeReceipt:
        # The notices table keys a notice by its subject in `application_id`: for a
        # project notice that is the project id (the kind tells the two apart).
        project = req.project
        req = self._with_portal(
            req, PortalScope("project", project.project_id, project.applicant_email)
        )
        return self._send_once(
            req,
            key=req.notice_key,
            subject_id=req.project.project_id,
            kind=req.kind,
            city_key=project.jurisdiction,
            render=lambda city: self._renderer.render_project(req, city),
            to=req.to,
            cc=req.cc,
        )

    @activity.defn
    def send_permit_notice(self, req: PermitNoticeRequest) -> NoticeReceipt:
        # Keyed by the permit clock's id in `application_id`, as project notices are.
        if self._permit_renderer is None:
            self._permit_renderer = PermitNoticeRenderer()
        renderer = self._permit_renderer
        info = req.info
        # A permit clock of a project opens the project's portal; a clock on its own
        # opens the permit's page (its dates and how to ask for more time).
        scope, scope_id = ("project", info.project_id) if info.project_id else ("permit", "")
        req = self._with_portal(
            req, PortalScope(scope, scope_id or info.clock_id, info.contacts.applicant_email)
        )
        return self._send_once(
            req,
            key=req.notice_key,
            subject_id=req.info.clock_id,
            kind=req.kind,
            city_key=info.calendar.jurisdiction,
            render=lambda city: renderer.render_permit(req, city),
            to=req.to,
            cc=req.cc,
        )

    def _send_once(
        self,
        req: AnyNoticeRequest,
        *,
        key: str,
        subject_id: str,
        kind: str,
        city_key: str,
        render: Callable[[Jurisdiction | None], RenderedNotice],
        to: list[str],
        cc: list[str],
    ) -> NoticeReceipt:
        """The one exactly-once delivery path: skip if delivered, else render, record
        pending, deliver, record delivered. `render` runs only when something is sent,
        given the city's current document.
        Two transactions on the common path: the check and the pending row are one. Plain
        SQL statements built once, not ORM objects: in an 08:00 storm the ORM's unit of
        work was a sixth of the worker's time (docs/storm.md, "The sixth round")."""
        with self._engine.begin() as conn:
            row = conn.execute(_FIND, {"p_key": key}).first()
            if row is not None and row.delivery_state == DELIVERED:
                # A retry after a crash past delivery, or a replayed workflow: never resend.
                return NoticeReceipt(key, True, True, row.transport, row.location)

            to = _addresses(to)
            cc = [a for a in _addresses(cc) if a not in to]
            if not to and not cc:
                raise ApplicationError(
                    f"notice {key} ({kind}) for {subject_id} "
                    "has no recipient: set the contact e-mail addresses",
                    type="NoRecipient",
                    non_retryable=True,
                )
            try:
                # Read on this connection, only when a letter is to be written.
                rendered = render(self._cities.current(conn, city_key))
            except UnknownNoticeKind as err:
                raise ApplicationError(
                    str(err), type="UnknownNoticeKind", non_retryable=True
                ) from err
            except InvalidNoticeDetails as err:
                raise ApplicationError(
                    str(err), type="InvalidNoticeDetails", non_retryable=True
                ) from err
            refused = ""
            try:
                msg = build_message(
                    key,
                    rendered,
                    mail_from=rendered.sender or self._mail_from,
                    to=to,
                    cc=cc,
                    reply_to=rendered.reply_to,
                )
            except BadAddress as err:
                # A row stored before addresses were validated: never send it (a line break
                # would add a header or a recipient). The notice is recorded as failed with
                # the reason, keeping the addresses as stored, and an operator is alerted.
                refused = f"BadAddress: {err}"

            pending: dict[str, Any] = {
                "application_id": subject_id,
                "kind": kind,
                "subject": rendered.subject,
                "to_addrs": to,
                "cc_addrs": cc,
                "message_id": message_id_for(key),
                "body_text": rendered.text,
                "body_html": rendered.html,
                "delivery_state": FAILED if refused else PENDING,
                "transport": self._transport.name,
            }
            attempts = 1 if row is None else (row.attempts or 0) + 1
            pending["attempts"] = attempts
            if row is None:
                created = {"notice_key": key, "created_at": datetime.now(UTC), "last_error": ""}
                conn.execute(_INSERT, {**created, "location": "", **pending})
            else:
                conn.execute(
                    _MARK_PENDING, {"p_key": key, **{f"p_{c}": pending[c] for c in pending}}
                )
            if refused:
                conn.execute(_MARK_FAILED, {"p_key": key, "p_last_error": refused})
            # An operator alert is raised only after a failed attempt: the first has none.
            may_have_alert = attempts > 1

        if refused:
            return self._refuse(key, kind, subject_id, refused)
        try:
            location = self._transport.deliver(msg)
        except Exception as err:
            error = f"{type(err).__name__}: {err}"
            with self._engine.begin() as conn:
                conn.execute(_MARK_FAILED, {"p_key": key, "p_last_error": error})
            if self._operator_alerts is not None:
                try:
                    self._operator_alerts.delivery_failed(
                        notice_key=key,
                        kind=kind,
                        subject_id=subject_id,
                        attempts=attempts,
                        error=error,
                    )
                except Exception:  # the next failed attempt raises it again
                    logger.exception("could not raise the operator alert for %s", key)
            raise  # Temporal retries with backoff, without limit

        # If the process dies between deliver() and this commit, the SMTP transport's
        # accepted-journal stops the retry from sending again; without a shared journal
        # the retry resends, which the stable Message-ID lets mail clients fold.
        with self._engine.begin() as conn:
            conn.execute(
                _MARK_DELIVERED,
                {"p_key": key, "p_delivered_at": datetime.now(UTC), "p_location": location[:500]},
            )
        if self._operator_alerts is not None and may_have_alert:
            try:
                self._operator_alerts.delivered(key)
            except Exception:  # the notice is out; a stale alert is only cosmetic
                logger.exception("could not resolve the operator alert for %s", key)

        if self._after_delivery is not None:
            self._after_delivery(req)
        return NoticeReceipt(key, True, False, self._transport.name, location[:500])

    def _refuse(self, key: str, kind: str, subject_id: str, reason: str) -> NoticeReceipt:
        """A notice that must not be sent as stored (a recipient that is not one valid
        address): logged, alerted to the operator at once, and answered as not delivered,
        so the clock goes on and the notices row shows why (delivery_state `failed`)."""
        logger.error("notice %s (%s) for %s not sent: %s", key, kind, subject_id, reason)
        if self._operator_alerts is not None:
            try:
                self._operator_alerts.notice_refused(
                    notice_key=key, kind=kind, subject_id=subject_id, error=reason
                )
            except Exception:
                logger.exception("could not raise the operator alert for %s", key)
        return NoticeReceipt(key, False, False, self._transport.name, "")
