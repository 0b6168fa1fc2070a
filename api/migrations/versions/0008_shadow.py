"""shadow mode: the policy's shadow part on policy_revisions, and the shadow_findings table

Revision ID: 0008_shadow
Revises: 0007
Create Date: 2026-12-01 23:00:00

Shadow findings live in their own table, not in `findings` with a flag: nothing that reads
`findings` (cases, queue counters, the player page, retention, stats) can then take one for a live
finding by forgetting a filter. The new policy columns are nullable: older revisions had no
shadow part, read as "shadow mode off".
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import api.db

revision = "0008_shadow"
down_revision = "0007"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    """Add the columns and the table."""
    with op.batch_alter_table("policy_revisions") as batch:
        batch.add_column(sa.Column("shadow_detectors", _JSON, nullable=True))
        batch.add_column(sa.Column("shadow_category_thresholds", _JSON, nullable=True))
        batch.add_column(sa.Column("shadow_rules_version", sa.String(length=64), nullable=True))
    op.create_table(
        "shadow_findings",
        sa.Column("finding_id", sa.String(length=128), nullable=False),
        sa.Column("detector", sa.String(length=128), nullable=False),
        sa.Column("rule", sa.String(length=128), nullable=False),
        sa.Column("family", sa.String(length=16), nullable=False),
        sa.Column("category", sa.String(length=64), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("subject_id", sa.String(length=128), nullable=False),
        sa.Column("players", _JSON, nullable=False),
        sa.Column("ts", api.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("table_id", sa.String(length=128), nullable=True),
        sa.Column("tournament_id", sa.String(length=128), nullable=True),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("automatic", sa.Integer(), nullable=False),
        sa.Column("document", _JSON, nullable=False),
        sa.Column("ingested_at", api.db.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("finding_id"),
    )
    op.create_index("ix_shadow_findings_detector_ts", "shadow_findings", ["detector", "ts"])
    op.create_index("ix_shadow_findings_subject_ts", "shadow_findings", ["subject_id", "ts"])


def downgrade() -> None:
    """Drop the table and the columns (the policy's shadow part is lost: shadow mode off)."""
    op.drop_index("ix_shadow_findings_subject_ts", table_name="shadow_findings")
    op.drop_index("ix_shadow_findings_detector_ts", table_name="shadow_findings")
    op.drop_table("shadow_findings")
    with op.batch_alter_table("policy_revisions") as batch:
        batch.drop_column("shadow_rules_version")
        batch.drop_column("shadow_category_thresholds")
        batch.drop_column("shadow_detectors")
