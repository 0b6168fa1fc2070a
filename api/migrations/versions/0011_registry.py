"""model_versions, model_promotions: the chat model registry

Revision ID: 0011_registry
Revises: 0007
Create Date: 2026-12-01 23:00:00

Artifacts themselves are files under the data dir, named by sha256 (api/models_registry/store.py);
these tables hold what was checked, measured and decided about them.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import api.db

revision = "0011_registry"
down_revision = "0007"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    """Create both tables empty: the shipped artifact serves until an admin promotes a version."""
    op.create_table(
        "model_versions",
        sa.Column("version", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("format", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("uploaded_by", sa.String(length=64), nullable=False),
        sa.Column("uploaded_at", api.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("checks", _JSON, nullable=False),
        sa.Column("comparison", _JSON, nullable=True),
        sa.Column("compared_at", api.db.UtcDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("version"),
        sa.UniqueConstraint("sha256", name="uq_model_versions_sha256"),
    )
    op.create_table(
        "model_promotions",
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("previous_seq", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("actor", sa.String(length=64), nullable=False),
        sa.Column("at", api.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("confirmed_regressions", _JSON, nullable=False),
        sa.PrimaryKeyConstraint("seq"),
    )


def downgrade() -> None:
    """Drop both tables (the consumers go back to their configured or shipped artifact)."""
    op.drop_table("model_promotions")
    op.drop_table("model_versions")
