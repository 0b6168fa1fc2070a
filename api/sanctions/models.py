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

    def state_at(self, now: datetime) -> str:
        """What game servers do about the sanction at `now`, in the word the console and API show.

        `in_force` is exactly the predicate of `service.active_for_player` (what
        `/v1/players/{id}/sanctions/active` returns), so the console never calls a sanction active
        that no game server enforces; `scheduled` and `expired` are active rows outside their window.
        """
        if self.status != "active":
            return self.status
        if self.starts_at > now:
            return "scheduled"
        if self.expires_at is not None and self.expires_at <= now:
            return "expired"
        return "in_force"
