"""policy_revisions.shadow_model_version/sha256: a registered chat model run in shadow

Revision ID: 0015_policy_shadow_model
Revises: 0014_policy_audit
Create Date: 2026-12-06 12:00:00

Nullable: revisions written before this read as "the shadow copies use the live model".
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_policy_shadow_model"
down_revision = "0014_policy_audit"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the columns (existing rows: NULL, no candidate model)."""
    with op.batch_alter_table("policy_revisions") as batch:
        batch.add_column(sa.Column("shadow_model_version", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("shadow_model_sha256", sa.String(64), nullable=True))


def downgrade() -> None:
    """Drop the columns."""
    with op.batch_alter_table("policy_revisions") as batch:
        batch.drop_column("shadow_model_sha256")
        batch.drop_column("shadow_model_version")
