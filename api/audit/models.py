"""The append-only audit log: each entry carries the hash of the one before it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, UtcDateTime


class AuditEntry(Base):
    """One audited change; `prev_hash` is unique so concurrent appenders cannot fork the chain."""

    __tablename__ = "audit_log"

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    ts: Mapped[datetime] = mapped_column(UtcDateTime)
    actor: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(48))
    entity_type: Mapped[str] = mapped_column(String(24))
    entity_id: Mapped[str] = mapped_column(String(128))
    payload: Mapped[str] = mapped_column(Text)
    """Canonical JSON (sorted keys), exactly the bytes that were hashed."""
    prev_hash: Mapped[str] = mapped_column(String(64), unique=True)
    hash: Mapped[str] = mapped_column(String(64))
