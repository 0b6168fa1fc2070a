"""Routes: shadow findings and the live/shadow comparison (every reviewing role and admins read them)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request
from sqlalchemy.orm import Session

from api.db import SessionDep
from api.errors import InvalidError
from api.pagination import Filter, Limit, Offset
from api.policy import service as policy_service
from api.policy.views import default_version
from api.shadow import service
from api.shadow.schemas import ComparisonPublic, DetectorComparisonPublic, ShadowFindingPublic

Time = Annotated[datetime | None, Query(description="event time, ISO 8601 (no zone: UTC)")]
Detectors = Annotated[list[str] | None, Query(max_length=64, description="detector (repeatable)")]


def utc(value: datetime | None) -> datetime | None:
    """A query time as an aware UTC datetime."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def period(start: datetime | None, end: datetime | None) -> tuple[datetime | None, datetime | None]:
    """The checked [start, end) of a request (422 when it is empty)."""
    start, end = utc(start), utc(end)
    if start is not None and end is not None and end <= start:
        raise InvalidError("end must be after start")
    return start, end


def comparison(session: Session, *, rules_version: str, detectors: list[str] | None,
               start: datetime | None, end: datetime | None) -> ComparisonPublic:
    """The comparison a request asks for. Defaults: the detectors the policy runs in shadow (else every
    detector that has shadow findings) since the shadow configuration in force began."""
    active = policy_service.active(session, default_version=rules_version)
    shadow = active.settings.shadow
    names = list(dict.fromkeys(detectors or shadow.detectors or service.detectors_seen(session)))
    if start is None:
        start = service.since(session, active)
    rows = service.compare(session, detectors=names, start=start, end=end, share=shadow.share)
    return ComparisonPublic(start=start, end=end, shadow_enabled=shadow.enabled, detectors=[
        DetectorComparisonPublic.model_validate(r, from_attributes=True) for r in rows])


def router() -> APIRouter:
    """Shadow routes."""
    r = APIRouter(prefix="/shadow", tags=["shadow"])

    @r.get("/findings", response_model=list[ShadowFindingPublic])
    def list_findings(session: SessionDep, detector: Filter = None, family: Filter = None,
                      category: Filter = None, player_id: Filter = None, start: Time = None, end: Time = None,
                      limit: Limit = 50, offset: Offset = 0) -> list[ShadowFindingPublic]:
        """Shadow findings, newest first, filtered (event time in [start, end))."""
        start, end = period(start, end)
        rows = service.search(session, detector=detector, family=family, category=category, player_id=player_id,
                              start=start, end=end, limit=limit, offset=offset)
        return [ShadowFindingPublic.model_validate(row) for row in rows]

    @r.get("/comparison", response_model=ComparisonPublic)
    def compare(request: Request, session: SessionDep, detector: Detectors = None, start: Time = None,
                end: Time = None) -> ComparisonPublic:
        """Per detector: agreeing (both), extra (shadow only) and missing (live only) findings."""
        start, end = period(start, end)
        return comparison(session, rules_version=default_version(request), detectors=detector,
                          start=start, end=end)

    return r
