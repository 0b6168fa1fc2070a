"""Stored shadow findings: never attached to a case, never a source of sanctions or events."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, JsonColumn, UtcDateTime


class ShadowFindingRow(Base):
    """One finding of a shadow copy. Its id is what the live copy gives the same finding, so the
    comparison with `findings` is a join on `finding_id`."""

    __tablename__ = "shadow_findings"
    __table_args__ = (
        Index("ix_shadow_findings_detector_ts", "detector", "ts"),
        Index("ix_shadow_findings_subject_ts", "subject_id", "ts"),
    )

    finding_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    detector: Mapped[str] = mapped_column(String(128))
    rule: Mapped[str] = mapped_column(String(128))
    family: Mapped[str] = mapped_column(String(16))
    category: Mapped[str] = mapped_column(String(64))
    score: Mapped[float] = mapped_column(Float)
    subject_id: Mapped[str] = mapped_column(String(128))
    players: Mapped[list[str]] = mapped_column(JsonColumn)
    ts: Mapped[datetime] = mapped_column(UtcDateTime)
    table_id: Mapped[str | None] = mapped_column(String(128))
    tournament_id: Mapped[str | None] = mapped_column(String(128))
    summary: Mapped[str] = mapped_column(Text)
    automatic: Mapped[int] = mapped_column(Integer)
    """How many of its actions policy would have applied at once (the rest it would have proposed)."""
    document: Mapped[dict[str, Any]] = mapped_column(JsonColumn)
    """The whole Finding JSON as received, with the actions it would have had."""
    ingested_at: Mapped[datetime] = mapped_column(UtcDateTime)
