"""Routes for reading and verifying the audit chain (admin)."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter

from api.audit import service
from api.db import SessionDep
from api.pagination import Filter, Limit, Offset
from api.schemas import Public


class AuditEntryPublic(Public):
    """One audit entry."""

    seq: int
    ts: datetime
    actor: str
    action: str
    entity_type: str
    entity_id: str
    payload: str
    prev_hash: str
    hash: str


class ChainStatus(Public):
    """Result of verifying the chain."""

    ok: bool
    checked: int
    bad_seq: int | None
    problem: str
    head: str


def router() -> APIRouter:
    """Audit routes."""
    r = APIRouter(prefix="/audit", tags=["audit"])

    @r.get("", response_model=list[AuditEntryPublic])
    def entries(session: SessionDep, limit: Limit = 50, offset: Offset = 0, actor: Filter = None,
                action: Filter = None, entity_type: Filter = None, entity_id: Filter = None) -> list[AuditEntryPublic]:
        """Audit entries, newest first; `action` ending in '.' matches the family (`decision.`)."""
        where = service.AuditFilter(actor=actor, action=action, entity_type=entity_type, entity_id=entity_id)
        rows = service.list_entries(session, limit=limit, offset=offset, where=where)
        return [AuditEntryPublic.model_validate(e) for e in rows]

    @r.get("/verify", response_model=ChainStatus)
    def verify(session: SessionDep) -> ChainStatus:
        """Walk the hash chain and report the first bad entry."""
        rep = service.verify(session)
        return ChainStatus(ok=rep.ok, checked=rep.checked, bad_seq=rep.bad_seq, problem=rep.problem, head=rep.head)

    return r
