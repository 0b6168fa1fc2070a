"""Routes for saved queue views (each user sees only their own)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from api.db import SessionDep
from api.deps import NowDep, PrincipalDep
from api.saved_views import service
from api.saved_views.schemas import SavedViewCreate, SavedViewPublic


def router() -> APIRouter:
    """Saved view routes."""
    r = APIRouter(prefix="/saved-views", tags=["saved views"])

    @r.get("", response_model=list[SavedViewPublic])
    def mine(session: SessionDep, who: PrincipalDep) -> list[SavedViewPublic]:
        """Your saved views, by name."""
        return [SavedViewPublic.model_validate(v) for v in service.mine(session, user_id=who.user_id)]

    @r.post("", response_model=SavedViewPublic)
    def save(body: SavedViewCreate, session: SessionDep, now: NowDep, who: PrincipalDep) -> SavedViewPublic:
        """Save queue parameters under a name (replaces your view of that name)."""
        view = service.save(session, user_id=who.user_id, name=body.name, params=body.params, now=now)
        return SavedViewPublic.model_validate(view)

    @r.delete("/{view_id}", status_code=204)
    def delete(view_id: str, session: SessionDep, who: PrincipalDep) -> Response:
        """Delete one of your views."""
        service.delete(session, user_id=who.user_id, view_id=view_id)
        return Response(status_code=204)

    return r
