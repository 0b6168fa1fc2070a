"""Routes for sanctions: list, get, revoke, second review."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter

from api.db import SessionDep
from api.deps import NowDep, PrincipalDep
from api.pagination import Filter, Limit, Offset
from api.sanctions import service
from api.sanctions.schemas import RevokeRequest, SanctionPublic, SecondReviewRequest

SanctionStatus = Literal["active", "pending_review", "rejected", "revoked"]


def router() -> APIRouter:
    """Sanction routes."""
    r = APIRouter(prefix="/sanctions", tags=["sanctions"])

    @r.get("", response_model=list[SanctionPublic])
    def list_sanctions(session: SessionDep, now: NowDep, player_id: Filter = None, case_id: Filter = None,
                       status: SanctionStatus | None = None, limit: Limit = 50,
                       offset: Offset = 0) -> list[SanctionPublic]:
        """Sanctions, newest first; `status=pending_review` is the second-review queue."""
        rows = service.search(session, player_id=player_id, case_id=case_id, status=status,
                              limit=limit, offset=offset)
        return [SanctionPublic.at(s, now) for s in rows]

    @r.get("/{sanction_id}", response_model=SanctionPublic)
    def get_sanction(sanction_id: str, session: SessionDep, now: NowDep) -> SanctionPublic:
        """One sanction."""
        return SanctionPublic.at(service.get(session, sanction_id=sanction_id), now)

    @r.post("/{sanction_id}/revoke", response_model=SanctionPublic)
    def revoke(sanction_id: str, body: RevokeRequest, session: SessionDep, now: NowDep,
               who: PrincipalDep) -> SanctionPublic:
        """End a sanction now; a revocation event goes to the game servers."""
        return SanctionPublic.at(
            service.revoke(session, sanction_id=sanction_id, reason=body.reason, actor=who.username, now=now), now)

    @r.post("/{sanction_id}/second-review", response_model=SanctionPublic)
    def second_review(sanction_id: str, body: SecondReviewRequest, session: SessionDep, now: NowDep,
                      who: PrincipalDep) -> SanctionPublic:
        """Senior: approve or reject a held account ban / tournament disqualification."""
        return SanctionPublic.at(service.second_review(
            session, sanction_id=sanction_id, approve=body.approve, reason=body.reason,
            actor=who.username, now=now), now)

    return r
