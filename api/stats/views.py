"""Routes for detector statistics."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from fastapi import APIRouter

from api.db import SessionDep
from api.stats import service


def router() -> APIRouter:
    """Stats routes."""
    r = APIRouter(prefix="/stats", tags=["stats"])

    @r.get("/detectors")
    def detectors(session: SessionDep, since: datetime | None = None) -> list[dict[str, Any]]:
        """Per detector: findings, cases, confirmed/dismissed, confirm rate, median hours to decision."""
        return [asdict(s) for s in service.detector_stats(session, since=since)]

    @r.get("/summary")
    def summary(session: SessionDep) -> dict[str, int]:
        """Total findings, cases and open cases."""
        return service.summary(session)

    return r
