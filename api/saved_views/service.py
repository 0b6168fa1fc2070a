"""Saved views: per user, by name; the parameters are checked like the queue's own."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api.cases import params as queue_params
from api.errors import InvalidError, NotFoundError
from api.ids import new_id
from api.saved_views.models import SavedView

MAX_VIEWS = 50
"""Views one user keeps at most."""


def mine(session: Session, *, user_id: str) -> list[SavedView]:
    """The user's views by name."""
    return list(session.scalars(select(SavedView).where(SavedView.user_id == user_id).order_by(SavedView.name)))


def save(session: Session, *, user_id: str, name: str, params: dict[str, str], now: datetime) -> SavedView:
    """Create or replace the user's view `name`; parameters a queue would refuse are a 422 here too."""
    clean = queue_params.clean(params, strict=True)
    queue_params.to_filter(clean, me=user_id)  # validates every value
    view = session.scalar(select(SavedView).where(SavedView.user_id == user_id, SavedView.name == name))
    if view is None:
        held = session.scalar(select(func.count()).select_from(SavedView).where(SavedView.user_id == user_id)) or 0
        if held >= MAX_VIEWS:
            raise InvalidError(f"at most {MAX_VIEWS} saved views per user; delete one first")
        view = SavedView(id=new_id("view"), user_id=user_id, name=name, params=clean, created_at=now,
                         updated_at=now)
        session.add(view)
    else:
        view.params, view.updated_at = clean, now
    session.commit()
    return view


def get(session: Session, *, user_id: str, view_id: str) -> SavedView:
    """The user's view (another user's is a 404, as if it did not exist)."""
    view = session.get(SavedView, view_id)
    if view is None or view.user_id != user_id:
        raise NotFoundError(f"no saved view {view_id!r}")
    return view


def delete(session: Session, *, user_id: str, view_id: str) -> None:
    """Delete the user's view."""
    session.delete(get(session, user_id=user_id, view_id=view_id))
    session.commit()
