"""Console page where an admin reads the audit chain, narrowed by actor, action and entity."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse

from api.audit import service
from api.console.guard import ConsoleDep
from api.db import SessionDep

PageFn = Callable[..., HTMLResponse]
PAGE_SIZE = 100
Field = Annotated[str, Query(max_length=128)]


def install(r: APIRouter, page: PageFn) -> None:
    """Add GET /console/audit to the console router."""

    @r.get("/audit")
    def audit_page(ctx: ConsoleDep, session: SessionDep, actor: Field = "", action: Field = "",
                   entity_type: Field = "", entity_id: Field = "",
                   page_no: Annotated[int, Query(alias="page", ge=1, le=10_000)] = 1) -> HTMLResponse:
        where = service.AuditFilter(actor=actor.strip() or None, action=action.strip() or None,
                                    entity_type=entity_type.strip() or None, entity_id=entity_id.strip() or None)
        rows = service.list_entries(session, limit=PAGE_SIZE + 1, offset=(page_no - 1) * PAGE_SIZE, where=where)
        chain = service.verify(session)
        return page("audit.html", ctx, rows=rows[:PAGE_SIZE], more=len(rows) > PAGE_SIZE, page_no=page_no,
                    f={"actor": actor, "action": action, "entity_type": entity_type, "entity_id": entity_id},
                    chain=chain)
