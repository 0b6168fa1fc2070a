"""Console page where an admin starts a retroactive run and watches its progress and diff (same
service as `POST /v1/retro-runs`; `railbird retro work` executes the runs)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError

from api.console.flash import Flash, redirect_with
from api.console.guard import PREFIX, ConsoleDep
from api.db import SessionDep
from api.deps import NowDep
from api.errors import ServiceError
from api.retro import service
from api.retro.schemas import RetroRunCreate
from api.retro.views import limits_of, request_of

PageFn = Callable[..., HTMLResponse]


def install(r: APIRouter, page: PageFn) -> None:
    """Add GET/POST /console/admin/retro to the console router."""

    @r.get("/admin/retro")
    def retro_page(request: Request, ctx: ConsoleDep, session: SessionDep, now: NowDep, run: str = "") -> HTMLResponse:
        shown = None
        if run:
            try:
                shown = service.get(session, run[:64])
            except ServiceError:
                shown = None
        limits = limits_of(request)
        return page("retro.html", ctx, runs=service.recent(session), shown=shown, limits=limits,
                    revision=service.newest_revision(session),
                    default_start=(now - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
                    default_end=now.strftime("%Y-%m-%dT%H:%M"),
                    watching=shown is not None and shown.status in ("queued", "running"))

    @r.post("/admin/retro")
    def start_run(request: Request, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        target = f"{PREFIX}/admin/retro"
        try:
            body = RetroRunCreate.model_validate(form_to_body(ctx.form))
            run = service.create(session, request=request_of(body), limits=limits_of(request),
                                 actor=ctx.user.username, now=now)
            notice = Flash("ok", f"Run {run.id} queued; `railbird retro work` executes it.")
            target = f"{target}?run={run.id}"
        except ServiceError as exc:
            notice = Flash("error", exc.message)
        except ValidationError as exc:
            notice = Flash("error", "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                              for e in exc.errors(include_url=False)))
        return redirect_with(target, notice, key=ctx.flash_key, secure=ctx.secure_cookies, path=PREFIX)


def form_to_body(form: dict[str, str]) -> dict[str, Any]:
    """The HTML form as a RetroRunCreate body: `datetime-local` inputs are UTC, empty = the default."""
    detectors = [d.strip() for d in form.get("detectors", "").split(",") if d.strip()]
    body: dict[str, Any] = {
        "start": _utc(form.get("start", "")), "end": _utc(form.get("end", "")),
        "detectors": detectors or None, "source": form.get("source") or "auto", "reason": form.get("reason", ""),
    }
    if (revision := form.get("policy_revision", "").strip()):
        body["policy_revision"] = revision
    if (warmup := form.get("warmup_hours", "").strip()):
        body["warmup_hours"] = warmup
    return body


def _utc(value: str) -> str:
    """A `datetime-local` value (no zone) read as UTC; anything else is passed on for the 422."""
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return value
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).isoformat()
