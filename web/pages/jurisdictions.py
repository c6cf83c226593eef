"""The administrator's jurisdictions: the list, a new city, a city's form (calendar,
departments, contacts and letterhead, local facts) with its versions, and each city's
document exported and imported as one JSON file. Every save goes through
`actions.jurisdictions` (checked, versioned, effective-dated, audited)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from starlette.datastructures import UploadFile

from actions.errors import ActionFailed
from actions.jurisdictions import PERMISSION, Saved, read_document
from rules.access import require
from rules.kernel.jurisdictions import RULE_PACK_KEYS
from rules.permit_clocks.packs import PERMIT_PACKS
from web.context import ctx_of, redirect_with_flash, render
from web.deps import checked_form, form_dict, staff_session
from web.views.jurisdiction_form import document_from_form, form_values

router = APIRouter()

NEW_CITY = {"rule_pack": "federal", "time_zone": "America/Los_Angeles", "state": "CA"}
LOCAL_PACKS = sorted(k for k, p in PERMIT_PACKS.items() if p.kind == "local")


def _list(request: Request, session: Any, status: int = 200, flash: Any = None) -> HTMLResponse:
    actions = ctx_of(request).actions
    versions = actions.cities.versions()
    return render(
        request,
        "admin_jurisdictions.html.j2",
        status=status,
        session=session,
        flash=flash,
        cities=actions.cities.all(),
        versions={k: len(v) for k, v in versions.items()},
    )


def _form(
    request: Request,
    session: Any,
    values: dict[str, str],
    *,
    key: str = "",
    status: int = 200,
    flash: Any = None,
) -> HTMLResponse:
    ctx = ctx_of(request)
    history = ctx.actions.jurisdictions.history(session.user.principal, key) if key else []
    return render(
        request,
        "admin_jurisdiction.html.j2",
        status=status,
        session=session,
        flash=flash,
        jurisdiction_key=key if key else "",
        key=key,
        values=values,
        history=history,
        rule_packs=sorted(RULE_PACK_KEYS),
        permit_packs=LOCAL_PACKS,
    )


@router.get("/admin/jurisdictions", response_class=HTMLResponse)
def list_page(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, PERMISSION)
    return _list(request, session)


@router.get("/admin/jurisdictions/new", response_class=HTMLResponse)
def new_page(request: Request) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, PERMISSION)
    return _form(request, session, form_values(NEW_CITY))


def _city_or_404(request: Request, key: str) -> Any:
    try:
        return ctx_of(request).actions.cities.get(key)
    except ActionFailed:
        raise HTTPException(404, f"There is no jurisdiction {key!r}.") from None


@router.get("/admin/jurisdictions/{key}", response_class=HTMLResponse)
def edit_page(request: Request, key: str) -> HTMLResponse:
    session = staff_session(request)
    require(session.user.principal, PERMISSION)
    city = _city_or_404(request, key)
    return _form(request, session, form_values(city.document), key=key)


async def _save(request: Request, key: str) -> Response:
    session = staff_session(request)
    form = form_dict(await checked_form(request, session))
    ctx = ctx_of(request)
    who = session.user.principal
    require(who, PERMISSION)
    base = _city_or_404(request, key).document if key else {}
    try:
        doc = document_from_form(form, base, ctx.today(key))
        if key and doc.get("key") != key:
            raise ActionFailed("key: a jurisdiction's key cannot change", 400)
        saved = await ctx.actions.jurisdictions.save(
            who,
            doc,
            effective_from=form.get("effective_from", ""),
            reason=form.get("reason", ""),
            rebase=form.get("rebase") == "yes",
            new=not key,
        )
    except ActionFailed as err:
        values = {**form_values(base or NEW_CITY), **form}
        return _form(
            request,
            session,
            values,
            key=key,
            status=err.status,
            flash=("error", f"Refused: {err.message}"),
        )
    return redirect_with_flash(request, f"/admin/jurisdictions/{saved.key}", "ok", _saved(saved))


def _saved(saved: Saved) -> str:
    message = f"Saved {saved.key} version {saved.version}, in effect from {saved.effective_from}"
    if saved.changed:
        message += f" (changed: {', '.join(saved.changed)})"
    if saved.rebased or saved.rebase_refused:
        message += f"; {len(saved.rebased)} running clock(s) rebased"
    if saved.rebase_refused:
        message += (
            f"; refused by {len(saved.rebase_refused)}: {'; '.join(saved.rebase_refused[:5])}"
        )
    return message + ". Running clocks keep the version they were opened under."


@router.post("/admin/jurisdictions/new")
async def create(request: Request) -> Response:
    return await _save(request, "")


@router.post("/admin/jurisdictions/import")
async def import_file(request: Request) -> Response:
    session = staff_session(request)
    form = await checked_form(request, session)
    ctx = ctx_of(request)
    who = session.user.principal
    require(who, PERMISSION)
    upload = form.get("file")
    try:
        if not isinstance(upload, UploadFile):
            raise ActionFailed("file: choose a jurisdiction document (.json) to import", 400)
        raw = read_document(await upload.read())
        saved = await ctx.actions.jurisdictions.save(
            who,
            raw,
            effective_from=str(form.get("effective_from") or ""),
            reason=str(form.get("reason") or "") or f"imported from {upload.filename}",
        )
    except ActionFailed as err:
        return _list(request, session, err.status, ("error", f"Not imported: {err.message}"))
    return redirect_with_flash(request, f"/admin/jurisdictions/{saved.key}", "ok", _saved(saved))


@router.post("/admin/jurisdictions/{key}")
async def update(request: Request, key: str) -> Response:
    return await _save(request, key)


@router.get("/admin/jurisdictions/{key}/export")
def export(request: Request, key: str) -> Response:
    session = staff_session(request)
    require(session.user.principal, PERMISSION)
    _city_or_404(request, key)
    text = ctx_of(request).actions.jurisdictions.export(session.user.principal, key)
    return Response(
        text,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{key}.json"'},
    )
