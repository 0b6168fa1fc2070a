"""Reviewer quality: rates, golden sources, the copies seeded into the queues, second reviews.

None of these tables is referenced by `cases`: a copy in the queue is an ordinary `cases` row (so
the queue, its counters and every response treat it like any other case), and only these tables
know it is one.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, JsonColumn, UtcDateTime


class QualitySettings(Base):
    """One row per revision of the admin-set rates; the highest revision is in force."""

    __tablename__ = "quality_settings"

    revision: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    golden_rate: Mapped[float] = mapped_column(Float)
    """At most this share of a family's open queue is golden copies (0 turns seeding off)."""
    second_review_rate: Mapped[float] = mapped_column(Float)
    """This share of decided cases gets a blind second review."""
    changed_by: Mapped[str] = mapped_column(String(64))
    changed_at: Mapped[datetime] = mapped_column(UtcDateTime)
    reason: Mapped[str] = mapped_column(Text)


class GoldenSource(Base):
    """A closed case a senior or admin chose as a known-answer item, with the answer."""

    __tablename__ = "quality_golden"

    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"), primary_key=True)
    family: Mapped[str] = mapped_column(String(16))
    category: Mapped[str] = mapped_column(String(64))
    expected: Mapped[str] = mapped_column(String(16))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    uses: Mapped[int] = mapped_column(Integer, default=0)
    created_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    reason: Mapped[str] = mapped_column(Text)


class QualityItem(Base):
    """A copy of a past case put in the queue: a golden item or a blind second/third review.

    `live_source` is the source case while the copy is in the queue and NULL once answered: its
    unique constraint keeps two copies of one case out of the queue at once (two identical cases
    side by side would give both away), also when two queue fetches seed concurrently.
    """

    __tablename__ = "quality_items"
    __table_args__ = (Index("ix_quality_items_answered", "purpose", "answered_at"),
                      Index("ix_quality_items_copy", "copy_case_id"))

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    purpose: Mapped[str] = mapped_column(String(16))
    """golden | second | third"""
    source_case_id: Mapped[str] = mapped_column(String(40))
    copy_case_id: Mapped[str] = mapped_column(String(40))
    """No foreign key: the copy is deleted once answered, this row is the record."""
    live_source: Mapped[str | None] = mapped_column(String(40), unique=True)
    family: Mapped[str] = mapped_column(String(16))
    category: Mapped[str] = mapped_column(String(64))
    expected: Mapped[str] = mapped_column(String(16))
    """golden: the senior's answer; second/third: the outcome the case was closed with."""
    review_id: Mapped[str | None] = mapped_column(String(40))
    excluded_users: Mapped[list[str]] = mapped_column(JsonColumn)
    """Reviewers who may not answer it (they decided the case already)."""
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    answer: Mapped[str | None] = mapped_column(String(16))
    answered_by: Mapped[str | None] = mapped_column(String(40))
    answered_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    correct: Mapped[bool | None] = mapped_column(Boolean)


class SecondReview(Base):
    """A sampled second look at a closed case, and a third reviewer's when the two disagree."""

    __tablename__ = "quality_reviews"
    __table_args__ = (Index("ix_quality_reviews_status", "status", "created_at"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    case_id: Mapped[str] = mapped_column(ForeignKey("cases.id"), index=True)
    family: Mapped[str] = mapped_column(String(16))
    category: Mapped[str] = mapped_column(String(64))
    first_user_id: Mapped[str] = mapped_column(String(40))
    first_kind: Mapped[str] = mapped_column(String(16))
    second_user_id: Mapped[str | None] = mapped_column(String(40))
    second_kind: Mapped[str | None] = mapped_column(String(16))
    third_user_id: Mapped[str | None] = mapped_column(String(40))
    third_kind: Mapped[str | None] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    """second (waiting) | third (the two disagree) | agreed | upheld | overturned"""
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
