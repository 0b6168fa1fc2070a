"""Stored shadow findings: never attached to a case, never a source of sanctions or events."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Index, Integer
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, JsonColumn
from api.findings.models import FindingColumns


class ShadowFindingRow(FindingColumns, Base):
    """One finding of a shadow copy. Its id is what the live copy gives the same finding, so the
    comparison with `findings` is a join on `finding_id`."""

    __tablename__ = "shadow_findings"
    __table_args__ = (
        Index("ix_shadow_findings_detector_ts", "detector", "ts"),
        Index("ix_shadow_findings_subject_ts", "subject_id", "ts"),
    )

    automatic: Mapped[int] = mapped_column(Integer)
    """How many of its actions policy would have applied at once (the rest it would have proposed)."""
    document: Mapped[dict[str, Any]] = mapped_column(JsonColumn)
    """The whole Finding JSON as received, with the actions it would have had."""
