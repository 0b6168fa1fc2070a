"""Join the five branches written side by side from 0007 (shadow findings, retroactive runs,
decision labels, the model registry, reviewer quality): no schema change, one head again.

Revision ID: 0013
Revises: 0008_shadow, 0009_retro, 0010_labels, 0011_registry, 0012_quality
Create Date: 2026-12-02 00:30:00

Why branches at all: the five touch separate tables and were written at the same time; alembic
applies branches in dependency order, and none of them reads another's tables.
"""

from __future__ import annotations

revision = "0013"
down_revision = ("0008_shadow", "0009_retro", "0010_labels", "0011_registry", "0012_quality")
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
