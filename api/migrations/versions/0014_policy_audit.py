"""policy_revisions.audit_sampling: the audit sampling of unflagged chat in the policy

Revision ID: 0014_policy_audit
Revises: 0013
Create Date: 2026-12-06 04:00:00

Nullable JSON: revisions written before audit sampling existed read as "off".
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0014_policy_audit"
down_revision = "0013"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    """Add the column (existing rows: NULL, i.e. no audit sampling)."""
    with op.batch_alter_table("policy_revisions") as batch:
        batch.add_column(sa.Column("audit_sampling", _JSON, nullable=True))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("policy_revisions") as batch:
        batch.drop_column("audit_sampling")
