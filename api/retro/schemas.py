"""Retroactive run request and response shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field

from api.schemas import Body, Public, Reason

DetectorName = Annotated[str, Field(min_length=1, max_length=128)]


class RetroRunCreate(Body):
    """`POST /v1/retro-runs`: a past range and what to run over it."""

    start: AwareDatetime
    end: AwareDatetime
    detectors: list[DetectorName] | None = Field(default=None, max_length=64)
    """Detectors whose findings to compare (every detector still runs: they share state); None: all."""
    policy_revision: int | None = Field(default=None, ge=0)
    """The policy revision to apply (0: the process settings' rules version); None: the one in force."""
    source: Literal["auto", "archive", "kafka"] = "auto"
    """auto: the event archive, and Kafka's retention for the time before the archive's first hour."""
    warmup_hours: float = Field(default=13.0, ge=0, le=31 * 24)
    """Event time fed before the range so stateful detectors start as the stream had them."""
    reason: Reason


class RetroRunPublic(Public):
    """A run: what was asked, how far it is, and (when done) the diff against what was flagged."""

    id: str
    status: str
    range_start: datetime
    range_end: datetime
    detectors: list[str] | None
    policy_revision: int
    source: str
    warmup_s: int
    reason: str
    requested_by: str
    requested_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    worker: str | None
    progress: float
    events_read: int
    findings: int
    error: str | None
    result: dict[str, Any] | None
    """`diff` (same/new/gone/changed_actions, per detector with examples) and the run's counts."""


class RetroRunList(Public):
    """The newest runs."""

    runs: list[RetroRunPublic]
