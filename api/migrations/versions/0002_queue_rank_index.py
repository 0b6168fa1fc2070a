"""queue indexes on (-priority, created_at, id) for row-value keyset pagination

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 12:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Replace the mixed-direction queue indexes by ascending ones on -priority."""
    op.drop_index("ix_cases_queue", table_name="cases")
    op.drop_index("ix_cases_status_queue", table_name="cases")
    op.create_index("ix_cases_queue_rank", "cases", ["family", "status", sa.text("(-priority)"), "created_at", "id"])
    op.create_index("ix_cases_status_rank", "cases", ["status", sa.text("(-priority)"), "created_at", "id"])


def downgrade() -> None:
    """Back to the 0001 indexes."""
    op.drop_index("ix_cases_status_rank", table_name="cases")
    op.drop_index("ix_cases_queue_rank", table_name="cases")
    op.create_index("ix_cases_queue", "cases", ["family", "status", sa.literal_column("priority DESC"), "created_at", "id"])
    op.create_index("ix_cases_status_queue", "cases", ["status", sa.literal_column("priority DESC"), "created_at", "id"])
