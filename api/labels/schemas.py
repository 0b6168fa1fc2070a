"""Label request and response shapes."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from api.schemas import Body, Public


class LabelCorrection(Body):
    """A reviewer's correction of their own label of a finding: the category, the offending span
    (character offsets [start, end) into the message), or both."""

    category: str | None = Field(default=None, max_length=64)
    span_start: int | None = Field(default=None, ge=0, le=100_000)
    span_end: int | None = Field(default=None, ge=0, le=100_000)


class LabelPublic(Public):
    """One labelled example (its text is redacted for roles that do not read chat)."""

    id: str
    finding_id: str
    case_id: str
    decision_id: str
    reviewer: str
    role: str
    verdict: str
    decided_at: datetime
    detector: str
    finding_category: str
    score: float
    text: str
    language: str | None
    category: str
    span_start: int | None
    span_end: int | None
    corrected_by: str | None
    corrected_at: datetime | None
    status: str
    status_reason: str
