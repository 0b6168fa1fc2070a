"""retro_runs: retroactive runs of a detector set or policy revision over past events

Revision ID: 0009_retro
Revises: 0007
Create Date: 2026-12-01 23:30:00

A table of its own, on its own branch from 0007 (nothing else reads or writes it): the API queues
runs, `railbird retro work` claims, progresses and finishes them.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import api.db

revision = "0009_retro"
down_revision = "0007"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    """Create the table."""
    op.create_table(
        "retro_runs",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("range_start", api.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("range_end", api.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("detectors", _JSON, nullable=True),
        sa.Column("policy_revision", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("warmup_s", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("requested_by", sa.String(length=64), nullable=False),
        sa.Column("requested_at", api.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("started_at", api.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("heartbeat_at", api.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("finished_at", api.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("worker", sa.String(length=128), nullable=True),
        sa.Column("progress", sa.Float(), nullable=False),
        sa.Column("events_read", sa.Integer(), nullable=False),
        sa.Column("findings", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("result", _JSON, nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_retro_runs_status_requested", "retro_runs", ["status", "requested_at"])


def downgrade() -> None:
    """Drop the table."""
    op.drop_index("ix_retro_runs_status_requested", table_name="retro_runs")
    op.drop_table("retro_runs")
