"""Sanctions: what a player may not do, from when, until when, and why."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, UtcDateTime

SECOND_REVIEW_KINDS = frozenset({"account_ban", "tournament_disqualification"})
"""Sanctions a senior must approve before they take effect."""


class Sanction(Base):
    """A sanction; `status` is pending_review, active, rejected or revoked (expiry is by time)."""

    __tablename__ = "sanctions"
    __table_args__ = (Index("ix_sanctions_player_status", "player_id", "status"),)

    id: Mapped[str] = mapped_column(String(128), primary_key=True)
    case_id: Mapped[str | None] = mapped_column(ForeignKey("cases.id"), index=True)
    player_id: Mapped[str] = mapped_column(String(128))
    kind: Mapped[str] = mapped_column(String(32))
    scope: Mapped[str] = mapped_column(String(16))
    scope_value: Mapped[str | None] = mapped_column(String(128))
    starts_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    reason: Mapped[str] = mapped_column(Text)
    rule: Mapped[str] = mapped_column(String(128))
    automatic: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16))
    created_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    reviewed_by: Mapped[str | None] = mapped_column(String(64))
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    revoked_by: Mapped[str | None] = mapped_column(String(64))
    revoke_reason: Mapped[str | None] = mapped_column(Text)
