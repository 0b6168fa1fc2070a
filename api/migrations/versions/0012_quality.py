"""quality_settings, quality_golden, quality_items, quality_reviews: reviewer quality control

Revision ID: 0012_quality
Revises: 0007
Create Date: 2026-12-01 23:00:00

No change to `cases`: golden and second-review copies are ordinary case rows, inserted and
deleted through the ORM, so the 0007 triggers count them like every other case (an open copy is
in the open tab's count exactly as long as it is in the open queue).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import api.db

revision = "0012_quality"
down_revision = "0007"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _ts(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, api.db.UtcDateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    """Create the four tables (empty: both rates are 0 until an admin sets them)."""
    op.create_table(
        "quality_settings",
        sa.Column("revision", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("golden_rate", sa.Float(), nullable=False),
        sa.Column("second_review_rate", sa.Float(), nullable=False),
        sa.Column("changed_by", sa.String(length=64), nullable=False),
        _ts("changed_at"),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("revision"),
    )
    op.create_table(
        "quality_golden",
        sa.Column("case_id", sa.String(length=40), sa.ForeignKey("cases.id"), nullable=False),
        sa.Column("family", sa.String(length=16), nullable=False),
        sa.Column("category", sa.String(length=64), nullable=False),
        sa.Column("expected", sa.String(length=16), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.String(length=64), nullable=False),
        _ts("created_at"),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("case_id"),
    )
    op.create_table(
        "quality_items",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("purpose", sa.String(length=16), nullable=False),
        sa.Column("source_case_id", sa.String(length=40), nullable=False),
        sa.Column("copy_case_id", sa.String(length=40), nullable=False),
        sa.Column("live_source", sa.String(length=40), nullable=True),
        sa.Column("family", sa.String(length=16), nullable=False),
        sa.Column("category", sa.String(length=64), nullable=False),
        sa.Column("expected", sa.String(length=16), nullable=False),
        sa.Column("review_id", sa.String(length=40), nullable=True),
        sa.Column("excluded_users", _JSON, nullable=False),
        _ts("created_at"),
        sa.Column("answer", sa.String(length=16), nullable=True),
        sa.Column("answered_by", sa.String(length=40), nullable=True),
        _ts("answered_at", nullable=True),
        sa.Column("correct", sa.Boolean(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("live_source"),
    )
    op.create_index("ix_quality_items_answered", "quality_items", ["purpose", "answered_at"])
    op.create_index("ix_quality_items_copy", "quality_items", ["copy_case_id"])
    op.create_table(
        "quality_reviews",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("case_id", sa.String(length=40), sa.ForeignKey("cases.id"), nullable=False),
        sa.Column("family", sa.String(length=16), nullable=False),
        sa.Column("category", sa.String(length=64), nullable=False),
        sa.Column("first_user_id", sa.String(length=40), nullable=False),
        sa.Column("first_kind", sa.String(length=16), nullable=False),
        sa.Column("second_user_id", sa.String(length=40), nullable=True),
        sa.Column("second_kind", sa.String(length=16), nullable=True),
        sa.Column("third_user_id", sa.String(length=40), nullable=True),
        sa.Column("third_kind", sa.String(length=16), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        _ts("created_at"),
        _ts("closed_at", nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_quality_reviews_status", "quality_reviews", ["status", "created_at"])
    op.create_index("ix_quality_reviews_case_id", "quality_reviews", ["case_id"])


def downgrade() -> None:
    """Drop the tables; copies still in the queues stay as ordinary cases (delete them first)."""
    op.drop_index("ix_quality_reviews_case_id", table_name="quality_reviews")
    op.drop_index("ix_quality_reviews_status", table_name="quality_reviews")
    op.drop_table("quality_reviews")
    op.drop_index("ix_quality_items_copy", table_name="quality_items")
    op.drop_index("ix_quality_items_answered", table_name="quality_items")
    op.drop_table("quality_items")
    op.drop_table("quality_golden")
    op.drop_table("quality_settings")
