"""Console page of shadow mode: what the shadow copies found and would have done, and the
live/shadow comparison (every reviewing role and admins; same services as /v1/shadow)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from api.console.guard import ConsoleDep
from api.db import SessionDep
from api.policy import service as policy_service
from api.policy.views import default_version
from api.shadow import service
from api.shadow.schemas import ComparisonPublic
from api.shadow.views import comparison

PageFn = Callable[..., HTMLResponse]
SHOWN = 100
"""Shadow findings listed on the page (newest first)."""


def dashboard_comparison(request: Request, session: SessionDep) -> ComparisonPublic:
    """The comparison the dashboard shows (the shadow configuration in force, since it began)."""
    return comparison(session, rules_version=default_version(request), detectors=None, start=None, end=None)


def install(r: APIRouter, page: PageFn) -> None:
    """Add GET /console/shadow to the console router."""

    @r.get("/shadow")
    def shadow_page(request: Request, ctx: ConsoleDep, session: SessionDep, detector: str = "") -> HTMLResponse:
        active = policy_service.active(session, default_version=default_version(request))
        rows = service.search(session, detector=detector[:128] or None, family=None, category=None,
                              player_id=None, start=None, end=None, limit=SHOWN, offset=0)
        return page("shadow.html", ctx, shadow=active.settings.shadow, revision=active.revision,
                    since=service.since(session, active), rows=rows, detector=detector[:128],
                    comparison=dashboard_comparison(request, session))
