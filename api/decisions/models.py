"""Reviewer decisions on cases: confirm, dismiss, escalate, hold (and second reviews)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, UtcDateTime


class Decision(Base):
    """One reviewer's decision with the reason they gave."""

    __tablename__ = "decisions"
    __table_args__ = (Index("ix_decisions_case", "case_id", "created_at"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"))
    kind: Mapped[str] = mapped_column(String(24))
    reason: Mapped[str] = mapped_column(Text)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
