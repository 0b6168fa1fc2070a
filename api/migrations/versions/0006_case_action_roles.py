"""case_actions.role: whom a proposal targets (offender, partner, victim)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 20:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the column; every proposal stored so far targeted the finding's main subject."""
    with op.batch_alter_table("case_actions") as batch:
        batch.add_column(sa.Column("role", sa.String(length=16), nullable=False, server_default="offender"))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("case_actions") as batch:
        batch.drop_column("role")
