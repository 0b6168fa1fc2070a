"""Routes for reading enforcement events (for services that poll rather than consume Kafka)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.db import SessionDep
from api.outbox import service
from api.pagination import Filter, Limit
from api.schemas import Public


class EventPublic(Public):
    """An outbox row: its order, whether the broker has it, and the CloudEvent."""

    seq: int
    event_id: str
    player_id: str
    published_at: datetime | None
    event: dict[str, Any]


def router() -> APIRouter:
    """Event routes."""
    r = APIRouter(prefix="/events", tags=["events"])

    @r.get("", response_model=list[EventPublic])
    def events(session: SessionDep, player_id: Filter = None,
               after_seq: Annotated[int, Query(ge=0, le=2**62)] = 0, limit: Limit = 100) -> list[EventPublic]:
        """Enforcement events in order; page with `after_seq` = last seq seen."""
        rows = service.list_events(session, player_id=player_id, after_seq=after_seq, limit=limit)
        return [EventPublic(seq=e.seq, event_id=e.event_id, player_id=e.player_id, published_at=e.published_at,
                            event=json.loads(e.body)) for e in rows]

    return r
