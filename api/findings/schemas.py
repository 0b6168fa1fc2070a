"""Request and response shapes for findings and ingestion."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from api.schemas import Body, Public
from pipeline.findings import Finding

MAX_BATCH = 1_000


class FindingBatch(Body):
    """`POST /v1/findings/batch` body: up to 1,000 findings."""

    findings: list[Finding] = Field(max_length=MAX_BATCH)


class IngestResponse(Public):
    """What the batch did; `duplicates` were already stored and created nothing."""

    accepted: int
    duplicates: int
    case_ids: list[str]
    sanction_ids: list[str]
    shadow: int = 0
    """Of `accepted`, shadow findings (stored apart: no case, sanction or event)."""


class FindingPublic(Public):
    """A stored finding with the case it belongs to."""

    finding_id: str
    case_id: str
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
    ingested_at: datetime
    document: dict[str, Any]
