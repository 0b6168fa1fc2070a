"""Labelled chat examples made from reviewers' decisions (one row per decision and chat finding)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, UtcDateTime


class LabelRow(Base):
    """A finding's message text with the verdict one reviewer gave it, and where it came from.

    Every decision keeps its own row: two reviewers who disagree on a finding leave two rows, both
    marked `conflicting` (with the reason) rather than one overwriting the other, so the export
    shows the disagreement and training leaves the text out."""

    __tablename__ = "labels"
    __table_args__ = (
        Index("ix_labels_finding", "finding_id"),
        Index("ix_labels_case", "case_id"),
        Index("ix_labels_decided", "decided_at", "id"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    """Content id of (decision, finding): a replayed hook writes the same row again, never a second."""
    finding_id: Mapped[str] = mapped_column(ForeignKey("findings.finding_id"))
    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"))
    decision_id: Mapped[str] = mapped_column(ForeignKey("decisions.id"))
    reviewer_id: Mapped[str] = mapped_column(ForeignKey("users.id"))
    reviewer: Mapped[str] = mapped_column(String(64))
    role: Mapped[str] = mapped_column(String(16))
    verdict: Mapped[str] = mapped_column(String(16))
    """`confirm` or `dismiss`, the reviewer's own vote (before any four-eyes escalation)."""
    decided_at: Mapped[datetime] = mapped_column(UtcDateTime)
    detector: Mapped[str] = mapped_column(String(128))
    finding_category: Mapped[str] = mapped_column(String(64))
    score: Mapped[float] = mapped_column(Float)
    event_id: Mapped[str | None] = mapped_column(String(128))
    """The chat message the text is from."""
    text: Mapped[str] = mapped_column(Text)
    language: Mapped[str | None] = mapped_column(String(16))
    """The classifier's language of the text, when the finding gives one."""
    category: Mapped[str] = mapped_column(String(64))
    """The label: the finding's category when confirmed, `clean` when dismissed, or the
    reviewer's correction."""
    span_start: Mapped[int | None] = mapped_column(Integer)
    span_end: Mapped[int | None] = mapped_column(Integer)
    corrected_by: Mapped[str | None] = mapped_column(String(64))
    corrected_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    status: Mapped[str] = mapped_column(String(16))
    """`ok` or `conflicting` (another reviewer labelled the same finding otherwise)."""
    status_reason: Mapped[str] = mapped_column(Text, default="")
