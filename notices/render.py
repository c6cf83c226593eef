"""Render notices (subject, plain text, HTML) from the Jinja templates in templates/notices/.

Templates only choose how to display what the workflow computed; every date, effect
and rule arrives in the request's clock and details. Shot-clock notices go through
`render`, project (conditions of approval) notices through `render_project`, permit-clock
notices through notices.permit_clock.PermitNoticeRenderer.render_permit.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template, select_autoescape

from models.conditions import ProjectNoticeRequest
from models.shot_clock import NoticeRequest
from notices import project, shot_clock
from notices.filters import template_filters
from notices.letter import RenderedNotice, UnknownNoticeKind
from rules.kernel.jurisdictions import Jurisdiction
from settings import PROJECT_ROOT

TEMPLATE_DIR = PROJECT_ROOT / "templates"


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
        self._env.filters.update(template_filters())

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
        for kind in (*shot_clock.NOTICE_KINDS, *project.PROJECT_NOTICE_KINDS):
            for part in ("txt", "html"):
                self._template(f"notices/{kind}.{part}.j2")

    def _letter(self, kind: str, context: dict[str, Any], subject: str) -> RenderedNotice:
        """Both parts of the letter from notices/<kind>.{txt,html}.j2, the subject on one
        line."""
        subject = " ".join(subject.split())
        context["subject"] = subject
        text = self._template(f"notices/{kind}.txt.j2").render(context)
        head = context.get("letterhead_lines") or []
        if head:
            # The plain part opens with the city's letterhead as the HTML part does
            # (templates/notices/_base.html.j2), so a text-only reader sees who wrote.
            text = "\n".join(head) + "\n\n" + text
        html = self._template(f"notices/{kind}.html.j2").render(context)
        return RenderedNotice(
            subject=subject,
            text=text,
            html=html,
            sender=context.get("mail_from", ""),
            reply_to=context.get("reply_to", ""),
        )

    def render(self, req: NoticeRequest, city: Jurisdiction | None = None) -> RenderedNotice:
        if req.kind not in shot_clock.NOTICE_KINDS:
            raise UnknownNoticeKind(f"unknown notice kind {req.kind!r}")
        context = shot_clock.context(req, city)
        return self._letter(req.kind, context, shot_clock.subject(req, context))

    def render_project(
        self, req: ProjectNoticeRequest, city: Jurisdiction | None = None
    ) -> RenderedNotice:
        if req.kind not in project.PROJECT_NOTICE_KINDS:
            raise UnknownNoticeKind(f"unknown project notice kind {req.kind!r}")
        context = project.context(req, city)
        return self._letter(req.kind, context, project.subject(req, context))
