"""Revisions of the enforcement policy: never updated in place, the newest row is in force."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Float, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, JsonColumn, UtcDateTime


class PolicyRevision(Base):
    """One version of the changeable policy (see api.policy.rules.PolicySettings)."""

    __tablename__ = "policy_revisions"

    revision: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    """1, 2, 3, ... (assigned by the writer; the primary key makes concurrent writers conflict)."""
    rules_version: Mapped[str] = mapped_column(String(64))
    auto_mute_enabled: Mapped[bool] = mapped_column(Boolean)
    auto_mute_min_score: Mapped[float | None] = mapped_column(Float)
    auto_mute_minutes: Mapped[int | None] = mapped_column(Integer)
    category_thresholds: Mapped[dict[str, float]] = mapped_column(JsonColumn)
    shadow_detectors: Mapped[list[str] | None] = mapped_column(JsonColumn, nullable=True)
    """Detectors with a shadow copy (api.policy.shadow); NULL in rows older than shadow mode: none."""
    shadow_category_thresholds: Mapped[dict[str, float] | None] = mapped_column(JsonColumn, nullable=True)
    shadow_rules_version: Mapped[str | None] = mapped_column(String(64))
    shadow_model_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Registered chat model the shadow copies run with (NULL: the live model)."""
    shadow_model_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    shadow_share: Mapped[float | None] = mapped_column(Float, nullable=True)
    """Part of the room the shadow copies see (NULL in rows older than the share: all of it)."""
    audit_sampling: Mapped[dict[str, float] | None] = mapped_column(JsonColumn, nullable=True)
    """Audit sampling of unflagged chat (api.policy.rules.AuditSampling); NULL in older rows: off."""
    changed_by: Mapped[str] = mapped_column(String(64))
    changed_at: Mapped[datetime] = mapped_column(UtcDateTime)
    reason: Mapped[str] = mapped_column(Text)
