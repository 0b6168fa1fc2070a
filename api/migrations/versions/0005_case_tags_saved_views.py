"""case_tags (queue filters and search, backfilled from findings), saved_views, queue age/assignee indexes

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 10:00:00
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import api.db
from api.cases.tags import tags_of

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_BATCH = 2_000


def upgrade() -> None:
    """Create the tables and indexes; tag the cases of the findings already stored."""
    tags = op.create_table(
        "case_tags",
        sa.Column("tag", sa.String(length=200), nullable=False),
        sa.Column("case_id", sa.String(length=40), nullable=False),
        sa.ForeignKeyConstraint(["case_id"], ["cases.id"]),
        sa.PrimaryKeyConstraint("tag", "case_id"),
    )
    op.create_index("ix_case_tags_case", "case_tags", ["case_id"])
    op.create_table(
        "saved_views",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("user_id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("params", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False),
        sa.Column("created_at", api.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", api.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "name", name="uq_saved_views_user_name"),
    )
    op.create_index("ix_cases_family_status_age", "cases", ["family", "status", "created_at", "id"])
    op.create_index("ix_cases_assignee", "cases", ["assignee_id", "status"])
    _backfill(tags)


def _backfill(tags: sa.Table) -> None:
    # Keyset over finding_id in batches: a large table is never held in memory at once.
    findings = sa.table("findings", sa.column("finding_id", sa.String), sa.column("case_id", sa.String),
                        sa.column("document", sa.JSON))
    conn = op.get_bind()
    last = ""
    while True:
        rows = conn.execute(
            sa.select(findings.c.finding_id, findings.c.case_id, findings.c.document)
            .where(findings.c.finding_id > last).order_by(findings.c.finding_id).limit(_BATCH)
        ).all()
        if not rows:
            return
        out: set[tuple[str, str]] = set()
        for _, case_id, document in rows:
            doc: Any = json.loads(document) if isinstance(document, str) else (document or {})
            out.update((t, case_id) for t in tags_of(doc if isinstance(doc, dict) else {}))
        fresh = _missing(conn, tags, out)
        if fresh:
            conn.execute(sa.insert(tags), [{"tag": t, "case_id": c} for t, c in sorted(fresh)])
        last = rows[-1][0]


def _missing(conn: sa.Connection, tags: sa.Table, pairs: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The pairs not stored by an earlier batch (a case's findings can span batches)."""
    if not pairs:
        return set()
    case_ids = sorted({c for _, c in pairs})
    stored = {(t, c) for t, c in conn.execute(sa.select(tags.c.tag, tags.c.case_id)
                                              .where(tags.c.case_id.in_(case_ids)))}
    return pairs - stored


def downgrade() -> None:
    """Drop what 0005 added."""
    op.drop_index("ix_cases_assignee", table_name="cases")
    op.drop_index("ix_cases_family_status_age", table_name="cases")
    op.drop_table("saved_views")
    op.drop_table("case_tags")
