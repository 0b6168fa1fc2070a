"""policy_revisions.shadow_share: the part of the room the shadow copies see

Revision ID: 0016_policy_shadow_share
Revises: 0015_policy_shadow_model
Create Date: 2026-12-06 15:00:00

Nullable: revisions written before this read as share 1 (the copies see every event).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_policy_shadow_share"
down_revision = "0015_policy_shadow_model"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the column (existing rows: NULL, every event)."""
    with op.batch_alter_table("policy_revisions") as batch:
        batch.add_column(sa.Column("shadow_share", sa.Float(), nullable=True))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("policy_revisions") as batch:
        batch.drop_column("shadow_share")
