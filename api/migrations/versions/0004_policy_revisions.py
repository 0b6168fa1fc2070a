"""policy_revisions: the admin-changeable enforcement policy, one row per revision

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 15:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import api.db

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table (empty: the process settings are the policy until an admin changes it)."""
    op.create_table(
        "policy_revisions",
        sa.Column("revision", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("rules_version", sa.String(length=64), nullable=False),
        sa.Column("auto_mute_enabled", sa.Boolean(), nullable=False),
        sa.Column("auto_mute_min_score", sa.Float(), nullable=True),
        sa.Column("auto_mute_minutes", sa.Integer(), nullable=True),
        sa.Column("category_thresholds", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False),
        sa.Column("changed_by", sa.String(length=64), nullable=False),
        sa.Column("changed_at", api.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("revision"),
    )


def downgrade() -> None:
    """Drop the table (the consumers fall back to RAILBIRD_RULES_VERSION)."""
    op.drop_table("policy_revisions")
