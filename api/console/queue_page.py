"""Console queue: filters, search, sortable columns, tab counts, SLA colours, saved views, bulk close.

The query string uses the JSON API's names (`api/cases/params.py`), so a console URL, a saved view
and a GET /v1/cases call mean the same thing. Unknown values are a 422 page saying which, never a
silently different queue.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import ValidationError

from api.auth import service as auth
from api.cases import bulk, params, queue, sla
from api.cases.queue_schemas import BULK_MAX, BulkCloseRequest, BulkFilter
from api.console.guard import PREFIX, ConsoleContext, ConsoleDep
from api.db import SessionDep
from api.deps import NowDep
from api.errors import InvalidError, ServiceError
from api.quality import seeding as quality_seeding
from api.saved_views import service as saved_views
from pipeline.categories import CATEGORIES

PageFn = Callable[..., HTMLResponse]
PAGE_SIZE = 50
ALL = params.ALL_FAMILIES


def query_of(raw: Mapping[str, str]) -> dict[str, str]:
    """The queue parameters of a console URL: family defaults to chat, `all` means every family."""
    out = params.clean(raw, strict=False)
    out.setdefault("family", "chat")
    return out


def filter_of(query: Mapping[str, str], *, me: str) -> tuple[queue.QueueFilter, str]:
    """(filter, sort) of console parameters (family `all` = no family filter)."""
    return params.to_filter(query, me=me)


def link(query: Mapping[str, str], **changes: str | None) -> str:
    """The queue URL of `query` with some parameters changed (None drops one)."""
    merged = {**query, **changes}
    return f"{PREFIX}/?" + urlencode({k: v for k, v in merged.items() if v})


def install(r: APIRouter, page: PageFn) -> None:
    """Add the queue, saved-view forms and bulk close to the console router."""

    @r.get("/")
    def queue_page(request: Request, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> HTMLResponse:
        cursor = request.query_params.get("cursor") or None
        try:
            query = query_of(request.query_params)
            if cursor is not None and len(cursor) > 512:
                raise InvalidError("cursor: too long; use the page links")
            f, sort = filter_of(query, me=ctx.user.user_id)
            quality_seeding.before_page(request.app.state.sessions, f=f, role=ctx.user.role, now=now)
            result = queue.page(session, f=f, sort=sort, limit=PAGE_SIZE, cursor=cursor, now=now)
        except ServiceError as exc:
            return page("error.html", ctx, exc.status_code, message=f"Queue: {exc.message}")
        return render_queue(page, ctx, session=session, query=query, f=f, sort=sort, result=result, now=now)

    @r.get("/queue-counts")
    def queue_counts(request: Request, ctx: ConsoleDep, session: SessionDep, now: NowDep) -> JSONResponse:
        """The tab counts of a filtered queue, fetched by the page after it is drawn: each is a
        bounded count of its own, too slow to hold the page for (a plain queue's are exact and inline)."""
        try:
            f, _ = filter_of(query_of(request.query_params), me=ctx.user.user_id)
            c = queue.tab_counts(session, f=f, now=now)
        except ServiceError as exc:
            return JSONResponse({"detail": exc.message}, status_code=exc.status_code)
        shown = {"families": {k: count_text(v, c) for k, v in c.families.items()},
                 "statuses": {k: count_text(v, c) for k, v in c.statuses.items()}}
        return JSONResponse(shown, headers={"Cache-Control": "private, max-age=10"})

    @r.post("/saved-views")
    def save_view(ctx: ConsoleDep, session: SessionDep, now: NowDep) -> Response:
        try:
            query = query_of({k: v for k, v in ctx.form.items() if k in params.KEYS})
            name = ctx.form.get("name", "").strip()
            if not name or len(name) > 64:
                raise InvalidError("name: 1..64 characters")
            saved_views.save(session, user_id=ctx.user.user_id, name=name, params=query, now=now)
        except ServiceError as exc:
            return page("error.html", ctx, exc.status_code, message=f"Saved view: {exc.message}")
        return RedirectResponse(link(query), status_code=303)

    @r.post("/saved-views/{view_id}/delete")
    def delete_view(view_id: str, ctx: ConsoleDep, session: SessionDep) -> Response:
        try:
            saved_views.delete(session, user_id=ctx.user.user_id, view_id=view_id)
        except ServiceError as exc:
            return page("error.html", ctx, exc.status_code, message=f"Saved view: {exc.message}")
        return RedirectResponse(f"{PREFIX}/", status_code=303)

    @r.post("/cases/bulk-close")
    def bulk_close(ctx: ConsoleDep, session: SessionDep, now: NowDep) -> HTMLResponse:
        query: dict[str, str] = {"family": "chat"}
        try:
            query = query_of({k: v for k, v in ctx.form.items() if k in params.KEYS})
            request = bulk_request(ctx.form, query=query, me=ctx.user.user_id)
            result = bulk.run(session, request=request, principal=ctx.user, now=now)
        except ServiceError as exc:
            return page("bulk_result.html", ctx, exc.status_code, error=exc.message, result=None, back=link(query))
        except ValidationError as exc:
            text = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False))
            return page("bulk_result.html", ctx, 422, error=text[:300], result=None, back=link(query))
        return page("bulk_result.html", ctx, error="", result=result, back=link(query))


def bulk_request(form: Mapping[str, str], *, query: Mapping[str, str], me: str) -> BulkCloseRequest:
    """The bulk-close request a queue form posts: the ticked cases, or every case the filter matched
    when the page was drawn (`created_before`, `expected`)."""
    outcome, reason = form.get("outcome", ""), form.get("reason", "")
    if form.get("scope") == "selected":
        ids = [v for k, v in form.items() if k.startswith("case_")]
        if not ids:
            raise InvalidError("tick at least one case, or close all matching")
        return BulkCloseRequest.model_validate({"case_ids": ids, "outcome": outcome, "reason": reason})
    f, _ = filter_of(query, me=me)
    expected = form.get("expected", "")
    snapshot = form.get("created_before", "")
    try:
        created_before = datetime.fromisoformat(snapshot)
    except ValueError as exc:
        raise InvalidError("created_before: reload the queue and try again") from exc
    filt = BulkFilter(family=f.family, status=f.status, category=f.category, detector=f.detector,  # type: ignore[arg-type]
                      language=f.language, age=f.age, assignee_id=f.assignee, automatic=f.automatic, q=f.q,  # type: ignore[arg-type]
                      subject_id=f.subject_id, created_before=created_before)
    return BulkCloseRequest.model_validate({"filter": filt.model_dump(), "expected": expected or None,
                                            "outcome": outcome, "reason": reason})


def render_queue(page: PageFn, ctx: ConsoleContext, *, session: Any, query: dict[str, str], f: queue.QueueFilter,
                 sort: str, result: queue.Page, now: datetime) -> HTMLResponse:
    """The queue page for a resolved filter and page."""
    # Exact tab counts come from the counters when only family and status are chosen; under other
    # filters the page asks for them after it is drawn (`/console/queue-counts`).
    counts = queue.tab_counts(session, f=f, now=now) if queue.is_plain(f) else None
    matching = queue.count(session, f=f, now=now, cap=BULK_MAX)
    names = auth.usernames(session, user_ids={c.assignee_id for c in result.items if c.assignee_id})
    family = query["family"]
    categories = sorted(c for c, (fam, _) in CATEGORIES.items() if family in (ALL, fam))
    return page(
        "queue.html", ctx, items=result.items, next_cursor=result.next_cursor, query=query, family=family,
        status=f.status, sort=sort, families=queue.FAMILIES, statuses=(*queue.STATUSES, *queue.STATUS_GROUPS),
        counts=counts, matching=matching, bulk_max=BULK_MAX, categories=categories, ages=tuple(queue.AGES),
        now=now, snapshot=now.isoformat(), names=names, views=saved_views.mine(session, user_id=ctx.user.user_id),
        counts_url=f"{PREFIX}/queue-counts?" + urlencode(query),
        link=lambda **kw: link(query, **kw), sla_state=lambda c: sla.state(c, now=now), age=age_text,
        player_url=player_url, view_link=lambda v: link(v.params), me=ctx.user.user_id,
    )


def count_text(value: int, counts: queue.TabCounts) -> str:
    """A tab count as shown: "10000+" past the cap of a bounded count."""
    return f"{counts.cap}+" if not counts.exact and value > counts.cap else str(value)


def player_url(player_id: str) -> str:
    """The console page of a player."""
    return f"{PREFIX}/players/{quote(player_id, safe='')}"


def age_text(seconds: float) -> str:
    """Compact age: 45s, 12m, 5h, 3d."""
    s = int(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= size:
            return f"{s // size}{unit}"
    return f"{s}s"
