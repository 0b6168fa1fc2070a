"""case_counts (cases per family and status, kept by triggers), case_tags.family, queue indexes

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 10:00:00

The counters are signed delta rows written by triggers on `cases` in the writer's transaction:
PostgreSQL uses statement-level triggers with transition tables for INSERT and DELETE (a
1,000-case batch or a COPY adds one row per family and status, not one per case) and a row-level
trigger for UPDATE OF family, status (fired only when one of them changes); SQLite uses row-level
triggers. Nothing is ever updated in place, so concurrent writers neither wait on a counter row nor
deadlock over two of them; `api.cases.counters` sums and folds the rows.

`case_tags.family` (the case's family, which never changes) with an index on (tag, family,
case_id): a detector or language filter within one family is a seek, even where the tag never
occurs in that family. Indexes for the `findings` and `score` sorts and for category filters.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_PG = [
    """CREATE FUNCTION case_counts_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO case_counts (family, status, n)
        SELECT family, status, count(*) FROM case_counts_new GROUP BY family, status;
        RETURN NULL;
    END $$""",
    """CREATE FUNCTION case_counts_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO case_counts (family, status, n)
        SELECT family, status, -count(*) FROM case_counts_old GROUP BY family, status;
        RETURN NULL;
    END $$""",
    """CREATE FUNCTION case_counts_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO case_counts (family, status, n) VALUES (OLD.family, OLD.status, -1), (NEW.family, NEW.status, 1);
        RETURN NULL;
    END $$""",
    """CREATE FUNCTION case_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM case_counts;
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER case_counts_insert AFTER INSERT ON cases REFERENCING NEW TABLE AS case_counts_new
       FOR EACH STATEMENT EXECUTE FUNCTION case_counts_on_insert()""",
    """CREATE TRIGGER case_counts_delete AFTER DELETE ON cases REFERENCING OLD TABLE AS case_counts_old
       FOR EACH STATEMENT EXECUTE FUNCTION case_counts_on_delete()""",
    """CREATE TRIGGER case_counts_update AFTER UPDATE OF family, status ON cases FOR EACH ROW
       WHEN (OLD.family IS DISTINCT FROM NEW.family OR OLD.status IS DISTINCT FROM NEW.status)
       EXECUTE FUNCTION case_counts_on_update()""",
    """CREATE TRIGGER case_counts_truncate AFTER TRUNCATE ON cases FOR EACH STATEMENT
       EXECUTE FUNCTION case_counts_on_truncate()""",
]
_PG_DOWN = [
    "DROP TRIGGER IF EXISTS case_counts_insert ON cases", "DROP TRIGGER IF EXISTS case_counts_delete ON cases",
    "DROP TRIGGER IF EXISTS case_counts_update ON cases", "DROP TRIGGER IF EXISTS case_counts_truncate ON cases",
    "DROP FUNCTION IF EXISTS case_counts_on_insert()", "DROP FUNCTION IF EXISTS case_counts_on_delete()",
    "DROP FUNCTION IF EXISTS case_counts_on_update()", "DROP FUNCTION IF EXISTS case_counts_on_truncate()",
]
_SQLITE = [
    """CREATE TRIGGER case_counts_insert AFTER INSERT ON cases BEGIN
       INSERT INTO case_counts (family, status, n) VALUES (NEW.family, NEW.status, 1); END""",
    """CREATE TRIGGER case_counts_delete AFTER DELETE ON cases BEGIN
       INSERT INTO case_counts (family, status, n) VALUES (OLD.family, OLD.status, -1); END""",
    """CREATE TRIGGER case_counts_update AFTER UPDATE OF family, status ON cases
       WHEN OLD.family IS NOT NEW.family OR OLD.status IS NOT NEW.status BEGIN
       INSERT INTO case_counts (family, status, n) VALUES (OLD.family, OLD.status, -1), (NEW.family, NEW.status, 1);
       END""",
]
_SQLITE_DOWN = ["DROP TRIGGER IF EXISTS case_counts_insert", "DROP TRIGGER IF EXISTS case_counts_delete",
                "DROP TRIGGER IF EXISTS case_counts_update"]


def upgrade() -> None:
    """Create the table and triggers, then count the cases already stored (triggers first: on
    PostgreSQL creating them waits for writers in flight and blocks new ones until this commits,
    so the backfill and the triggers see every case exactly once)."""
    big = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.create_table(
        "case_counts",
        sa.Column("id", big, autoincrement=True, nullable=False),
        sa.Column("family", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("n", big, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    for stmt in _PG if op.get_bind().dialect.name == "postgresql" else _SQLITE:
        op.execute(stmt)
    op.execute("INSERT INTO case_counts (family, status, n) SELECT family, status, count(*) FROM cases "
               "GROUP BY family, status")
    op.create_index("ix_cases_findings_rank", "cases", ["family", "status", "finding_count", "id"])
    op.create_index("ix_cases_score_rank", "cases", ["family", "status", "max_score", "id"])
    op.create_index("ix_cases_category", "cases", ["category", "family", "status", "id"])
    with op.batch_alter_table("case_tags") as batch:
        batch.add_column(sa.Column("family", sa.String(length=16), nullable=True))
    op.execute("UPDATE case_tags SET family = (SELECT cases.family FROM cases WHERE cases.id = case_tags.case_id)")
    op.create_index("ix_case_tags_family", "case_tags", ["tag", "family", "case_id"])


def downgrade() -> None:
    """Drop the indexes, column, triggers and table."""
    op.drop_index("ix_case_tags_family", table_name="case_tags")
    with op.batch_alter_table("case_tags") as batch:
        batch.drop_column("family")
    op.drop_index("ix_cases_category", table_name="cases")
    op.drop_index("ix_cases_score_rank", table_name="cases")
    op.drop_index("ix_cases_findings_rank", table_name="cases")
    for stmt in _PG_DOWN if op.get_bind().dialect.name == "postgresql" else _SQLITE_DOWN:
        op.execute(stmt)
    op.drop_table("case_counts")
