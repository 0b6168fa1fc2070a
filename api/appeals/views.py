"""Routes for appeals (opening one is on the case: POST /v1/cases/{id}/appeals)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter

from api.appeals import service
from api.appeals.schemas import AppealPublic, AppealResolve
from api.db import SessionDep
from api.deps import NowDep, PrincipalDep
from api.pagination import Limit, Offset


def router() -> APIRouter:
    """Appeal routes."""
    r = APIRouter(prefix="/appeals", tags=["appeals"])

    @r.get("", response_model=list[AppealPublic])
    def list_appeals(session: SessionDep, status: Literal["open", "upheld", "overturned"] | None = None,
                     limit: Limit = 50, offset: Offset = 0) -> list[AppealPublic]:
        """Appeals, newest first."""
        return [AppealPublic.model_validate(a) for a in service.search(session, status=status, limit=limit,
                                                                          offset=offset)]

    @r.post("/{appeal_id}/resolve", response_model=AppealPublic)
    def resolve(appeal_id: str, body: AppealResolve, session: SessionDep, now: NowDep,
                who: PrincipalDep) -> AppealPublic:
        """Senior: uphold or overturn (overturning revokes the case's sanctions)."""
        return AppealPublic.model_validate(service.resolve(
            session, appeal_id=appeal_id, outcome=body.outcome, reason=body.reason, principal=who, now=now))

    return r
