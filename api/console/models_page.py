"""Console page where an admin compares registered chat models with the one in force and promotes,
rolls back or retires them (same service as `/v1/models`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError

from api.console.flash import Flash, redirect_with
from api.console.guard import PREFIX, ConsoleContext, ConsoleDep
from api.db import SessionDep
from api.deps import NowDep
from api.errors import ServiceError
from api.models_registry import service
from api.models_registry.schemas import PromoteBody, ReasonBody, VersionPublic
from api.models_registry.views import VersionNo, config_of, registry_view

PageFn = Callable[..., HTMLResponse]
PAGE = f"{PREFIX}/admin/models"


def install(r: APIRouter, page: PageFn) -> None:
    """Add GET /console/admin/models and its three forms to the console router."""

    @r.get("/admin/models")
    def models_page(request: Request, ctx: ConsoleDep, session: SessionDep) -> HTMLResponse:
        view = registry_view(session, config_of(request).shipped)
        return page("models.html", ctx, reg=view, rows={v.version: comparison_rows(v) for v in view.versions},
                    tolerance=service.REGRESSION_TOLERANCE)

    @r.post("/admin/models/rollback")
    def rollback(request: Request, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        def run() -> str:
            body = ReasonBody(reason=ctx.form.get("reason", ""))
            done = service.rollback(session, actor=ctx.user.username, reason=body.reason,
                                    shipped=config_of(request).shipped, now=now)
            return f"Rolled back: version {done.version} is in force; consumers switch within their refresh interval."
        return _outcome(ctx, run)

    @r.post("/admin/models/{version}/promote")
    def promote(request: Request, version: VersionNo, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        def run() -> str:
            body = PromoteBody(reason=ctx.form.get("reason", ""),
                               confirm_regressions=ctx.form.get("confirm_regressions") == "on")
            config = config_of(request)
            done = service.promote(session, config.store, version=version, actor=ctx.user.username,
                                   reason=body.reason, confirm=body.confirm_regressions, shipped=config.shipped,
                                   now=now)
            return f"Version {done.version} is in force; consumers switch within their refresh interval."
        return _outcome(ctx, run)

    @r.post("/admin/models/{version}/retire")
    def retire(version: VersionNo, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        def run() -> str:
            body = ReasonBody(reason=ctx.form.get("reason", ""))
            service.retire(session, version=version, actor=ctx.user.username, reason=body.reason, now=now)
            return f"Version {version} retired."
        return _outcome(ctx, run)


def _outcome(ctx: ConsoleContext, run: Callable[[], str]) -> Response:
    """Run a form's action; its message (or the refusal's reason) is shown once on the page."""
    try:
        notice = Flash("ok", run())
    except ServiceError as exc:
        notice = Flash("error", exc.message)
    except ValidationError:
        notice = Flash("error", "a reason is required (at most 2,000 characters)")
    return redirect_with(PAGE, notice, key=ctx.flash_key, secure=ctx.secure_cookies, path=PREFIX)


def comparison_rows(version: VersionPublic) -> list[dict[str, Any]]:
    """The comparison as table rows, regressions first, then by set name."""
    if version.comparison is None:
        return []
    regressed = {r["set"] for r in version.regressions}
    rows = []
    for name, f in version.comparison.get("sets", {}).items():
        cand, base = f.get("candidate") or {}, f.get("baseline") or {}
        rows.append({"set": name, "n": f.get("n"), "positives": f.get("positives"), "regressed": name in regressed,
                     "baseline": base, "candidate": cand, "delta": f.get("delta_roc_auc")})
    return sorted(rows, key=lambda r: (not r["regressed"], r["set"]))
