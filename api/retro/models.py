"""Retroactive runs: what an admin asked for, how far the worker is, and the diff it reported."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, JsonColumn, UtcDateTime


class RetroRun(Base):
    """One run of a detector set or a policy revision over a past range (api/retro/service.py)."""

    __tablename__ = "retro_runs"
    __table_args__ = (Index("ix_retro_runs_status_requested", "status", "requested_at"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    """queued -> running -> done | failed."""
    range_start: Mapped[datetime] = mapped_column(UtcDateTime)
    range_end: Mapped[datetime] = mapped_column(UtcDateTime)
    detectors: Mapped[list[str] | None] = mapped_column(JsonColumn, nullable=True)
    """Detectors whose findings are compared; None: every detector."""
    policy_revision: Mapped[int] = mapped_column(Integer)
    """The policy revision the run applies (0: the process settings' rules version)."""
    source: Mapped[str] = mapped_column(String(16))
    """auto (archive where it holds the hour, else Kafka) | archive | kafka."""
    warmup_s: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(Text)
    requested_by: Mapped[str] = mapped_column(String(64))
    requested_at: Mapped[datetime] = mapped_column(UtcDateTime)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    """Last progress write of the worker that holds the run (a stale one is taken over)."""
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    worker: Mapped[str | None] = mapped_column(String(128), nullable=True)
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    """Share of the fed event time covered, 0..1."""
    events_read: Mapped[int] = mapped_column(Integer, default=0)
    findings: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JsonColumn, nullable=True)
    """The diff (pipeline.retro.RetroDiff.to_json) and the run's counts and timings."""
