"""Shadow findings and the live/shadow comparison as the API serves them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from api.schemas import Public


class ShadowFindingPublic(Public):
    """A stored shadow finding; `document.actions` is what policy would have done with it."""

    finding_id: str
    detector: str
    rule: str
    family: str
    category: str
    score: float
    subject_id: str
    players: list[str]
    ts: datetime
    table_id: str | None
    tournament_id: str | None
    summary: str
    automatic: int
    """Actions it would have applied at once (the others it would have proposed for review)."""
    ingested_at: datetime
    document: dict[str, Any]


class ExamplePublic(Public):
    """One finding a comparison names."""

    finding_id: str
    ts: datetime
    category: str
    score: float
    subject_id: str
    summary: str


class DetectorComparisonPublic(Public):
    """Live against shadow for one detector: same finding id = agreeing."""

    detector: str
    agreeing: int
    extra: int
    """Shadow only: the candidate would have added them."""
    missing: int
    """Live only: the candidate would have missed them."""
    examples: dict[str, list[ExamplePublic]]
    """`agreeing`, `extra`, `missing`: the newest few of each."""


class ComparisonPublic(Public):
    """The comparison over a period of event time (default: since the shadow configuration in force began)."""

    start: datetime | None
    end: datetime | None
    shadow_enabled: bool
    detectors: list[DetectorComparisonPublic]
