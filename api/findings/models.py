"""Stored findings: the detector's claim and its evidence, attached to exactly one case."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, JsonColumn, UtcDateTime


class FindingColumns:
    """The columns a stored finding has wherever it is kept: live (`findings`, attached to a case)
    or shadow (`shadow_findings`, attached to nothing). One list, so the two tables cannot drift
    apart; each table adds its own keys, indexes and extras."""

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
    ingested_at: Mapped[datetime] = mapped_column(UtcDateTime)


class FindingRow(FindingColumns, Base):
    """One finding; `finding_id` is its content-derived id, which makes ingestion idempotent."""

    __tablename__ = "findings"
    __table_args__ = (
        Index("ix_findings_subject_ts", "subject_id", "ts"),
        Index("ix_findings_detector_ingested", "detector", "ingested_at"),
    )

    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"), index=True)
    document: Mapped[dict[str, Any]] = mapped_column(JsonColumn)
    """The whole Finding JSON as received (evidence, spans, actions), for the case page."""


class FindingPlayer(Base):
    """The players a finding names besides its subject (partners, group members, victims, bounty
    targets): what makes a finding and its case show up in each named player's history. The
    subject is `findings.subject_id` (indexed there), so one-player findings, most of them, cost
    no extra row at ingestion."""

    __tablename__ = "finding_players"
    __table_args__ = (
        Index("ix_finding_players_player_ts", "player_id", "ts"),
        Index("ix_finding_players_player_case", "player_id", "case_id"),
    )

    finding_id: Mapped[str] = mapped_column(ForeignKey("findings.finding_id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"))
    position: Mapped[int] = mapped_column(Integer)
    """Index in the finding's `players` (1 and up: 0 is the subject, not stored here)."""
    ts: Mapped[datetime] = mapped_column(UtcDateTime)
    """The finding's time, copied so a player's history is one index range."""
