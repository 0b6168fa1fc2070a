"""Registered chat model versions and the promotion history (the newest promotion row is in force)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, JsonColumn, UtcDateTime


class ModelVersion(Base):
    """One chat model artifact that passed its checks; the bytes live in the artifact store by sha256."""

    __tablename__ = "model_versions"

    version: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    """1, 2, 3, ... (assigned by the writer; 0 is the shipped artifact, never a row)."""
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    size: Mapped[int] = mapped_column(BigInteger)
    format: Mapped[str] = mapped_column(String(32))
    """`skops-chat-5`: archive kind and model format version."""
    status: Mapped[str] = mapped_column(String(16))
    """candidate | promoted | retired."""
    uploaded_by: Mapped[str] = mapped_column(String(64))
    uploaded_at: Mapped[datetime] = mapped_column(UtcDateTime)
    note: Mapped[str] = mapped_column(Text)
    checks: Mapped[dict[str, Any]] = mapped_column(JsonColumn)
    """models.chat.checks.describe(): heads, operating points, sanity-line scores."""
    comparison: Mapped[dict[str, Any] | None] = mapped_column(JsonColumn, nullable=True)
    """models.chat.compare.compare(): per evaluation set, candidate vs the baseline it was run against."""
    compared_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class ModelPromotion(Base):
    """One change of the model in force: a promotion or a rollback (never updated in place)."""

    __tablename__ = "model_promotions"

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    version: Mapped[int] = mapped_column(Integer)
    """The version in force from now on (0: the shipped artifact)."""
    previous_seq: Mapped[int] = mapped_column(Integer)
    """The promotion row that a rollback of this one returns to (0: the shipped artifact, no row)."""
    action: Mapped[str] = mapped_column(String(16))
    """promote | rollback."""
    actor: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(UtcDateTime)
    reason: Mapped[str] = mapped_column(Text)
    confirmed_regressions: Mapped[list[str]] = mapped_column(JsonColumn)
    """Evaluation sets the promoting admin was warned about and confirmed anyway."""
