"""The transactional outbox: enforcement events written with the change that caused them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, UtcDateTime


class OutboxEvent(Base):
    """One CloudEvent for `enforcement.events`; `published_at` is set only after the broker acks."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_unpublished", "published_at", "seq"),)

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    event_id: Mapped[str] = mapped_column(String(128), unique=True)
    player_id: Mapped[str] = mapped_column(String(128), index=True)
    sanction_id: Mapped[str] = mapped_column(String(128))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    published_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
