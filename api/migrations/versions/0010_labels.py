"""labels: reviewers' decisions on chat findings as labelled training examples

Revision ID: 0010_labels
Revises: 0007
Create Date: 2026-12-01 23:00:00

A table of its own, branched from 0007 (`upgrade heads` joins the branches): nothing existing is
altered, so it migrates beside the other work on 0007.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import api.db

revision = "0010_labels"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create `labels` and its indexes."""
    when = api.db.UtcDateTime(timezone=True)
    op.create_table(
        "labels",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("finding_id", sa.String(length=128), nullable=False),
        sa.Column("case_id", sa.String(length=40), nullable=False),
        sa.Column("decision_id", sa.String(length=40), nullable=False),
        sa.Column("reviewer_id", sa.String(length=40), nullable=False),
        sa.Column("reviewer", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("decided_at", when, nullable=False),
        sa.Column("detector", sa.String(length=128), nullable=False),
        sa.Column("finding_category", sa.String(length=64), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("event_id", sa.String(length=128), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=True),
        sa.Column("category", sa.String(length=64), nullable=False),
        sa.Column("span_start", sa.Integer(), nullable=True),
        sa.Column("span_end", sa.Integer(), nullable=True),
        sa.Column("corrected_by", sa.String(length=64), nullable=True),
        sa.Column("corrected_at", when, nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["finding_id"], ["findings.finding_id"]),
        sa.ForeignKeyConstraint(["case_id"], ["cases.id"]),
        sa.ForeignKeyConstraint(["decision_id"], ["decisions.id"]),
        sa.ForeignKeyConstraint(["reviewer_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_labels_finding", "labels", ["finding_id"])
    op.create_index("ix_labels_case", "labels", ["case_id"])
    op.create_index("ix_labels_decided", "labels", ["decided_at", "id"])


def downgrade() -> None:
    """Drop the table."""
    op.drop_index("ix_labels_decided", table_name="labels")
    op.drop_index("ix_labels_case", table_name="labels")
    op.drop_index("ix_labels_finding", table_name="labels")
    op.drop_table("labels")
