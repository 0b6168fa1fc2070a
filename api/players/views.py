"""Routes for player history and active sanctions (the game servers' lookup)."""

from __future__ import annotations

from fastapi import APIRouter

from api.cases.views import public
from api.db import SessionDep
from api.deps import NowDep
from api.findings.schemas import FindingPublic
from api.pagination import Limit
from api.players import service
from api.players.schemas import ActiveSanctions, PlayerHistoryPublic
from api.sanctions import service as sanctions
from api.sanctions.schemas import SanctionPublic


def router() -> APIRouter:
    """Player routes."""
    r = APIRouter(prefix="/players", tags=["players"])

    @r.get("/{player_id}", response_model=PlayerHistoryPublic)
    def history(player_id: str, session: SessionDep, now: NowDep, limit: Limit = 50) -> PlayerHistoryPublic:
        """A player's findings, cases and sanctions."""
        h = service.history(session, player_id=player_id, limit=limit)
        return PlayerHistoryPublic(
            player_id=player_id,
            findings=[FindingPublic.model_validate(f) for f in h.findings],
            cases=[public(c, now) for c in h.cases],
            sanctions=[SanctionPublic.at(s, now) for s in h.sanctions],
        )

    @r.get("/{player_id}/sanctions/active", response_model=ActiveSanctions)
    def active(player_id: str, session: SessionDep, now: NowDep) -> ActiveSanctions:
        """Sanctions in force now (started, not expired, not revoked, past second review)."""
        rows = sanctions.active_for_player(session, player_id=player_id, now=now)
        return ActiveSanctions(player_id=player_id, sanctions=[SanctionPublic.at(s, now) for s in rows])

    return r
