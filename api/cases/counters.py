"""Exact case counts per (family, status) from `case_counts`, the delta rows the triggers on `cases`
write in every writer's transaction (migration 0007).

A count is a sum over the group's rows. The rows only grow (1-2 per status change; one per family
and status per insert statement on PostgreSQL), so a reader that finds more than `FOLD_AT` of them
folds them: one row per group, in one statement (PostgreSQL: a DELETE ... RETURNING whose rows are
summed and inserted back, so a delta committed meanwhile is either folded or left, never lost or
counted twice; SQLite: under the write lock).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Final

from sqlalchemy import Engine, func, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from api.cases.models import CaseCount

log = logging.getLogger(__name__)
FOLD_AT: Final = 2_000
"""Fold the delta rows once there are more than this many (a sum over them costs well under a ms)."""

_FOLD_PG = text(
    "WITH gone AS (DELETE FROM case_counts RETURNING family, status, n) "
    "INSERT INTO case_counts (family, status, n) SELECT family, status, sum(n) FROM gone "
    "GROUP BY family, status HAVING sum(n) <> 0")


def all_counts(session: Session) -> dict[tuple[str, str], int]:
    """(family, status) -> number of cases, exact as of this statement; groups with none are absent."""
    rows = session.execute(select(CaseCount.family, CaseCount.status, func.sum(CaseCount.n), func.count())
                           .group_by(CaseCount.family, CaseCount.status)).all()
    if sum(int(r[3]) for r in rows) > FOLD_AT:
        fold(session.get_bind())  # type: ignore[arg-type]
    return {(f, s): int(n) for f, s, n, _ in rows if int(n)}


def total(counts: dict[tuple[str, str], int], *, families: Iterable[str] | None,
          statuses: Iterable[str] | None) -> int:
    """Cases in any of `families` (None: every family) and any of `statuses` (None: every status)."""
    fams = None if families is None else set(families)
    sts = None if statuses is None else set(statuses)
    return sum(n for (f, s), n in counts.items() if (fams is None or f in fams) and (sts is None or s in sts))


def fold(engine: Engine) -> None:
    """Replace the delta rows by one row per (family, status); best effort (a busy database skips it)."""
    try:
        with engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn.execution_options(isolation_level="READ COMMITTED")  # the read pool autocommits
                with conn.begin():
                    conn.execute(text("SET LOCAL lock_timeout = '200ms'"))
                    conn.execute(_FOLD_PG)
                return
            conn.execute(text("PRAGMA busy_timeout = 200"))
            try:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
                last = conn.execute(text("SELECT max(id) FROM case_counts")).scalar()
                if last is not None:
                    conn.execute(text("INSERT INTO case_counts (family, status, n) SELECT family, status, sum(n) "
                                      "FROM case_counts WHERE id <= :last GROUP BY family, status "
                                      "HAVING sum(n) <> 0"), {"last": last})
                    conn.execute(text("DELETE FROM case_counts WHERE id <= :last"), {"last": last})
                conn.exec_driver_sql("COMMIT")
            except BaseException:
                conn.exec_driver_sql("ROLLBACK")
                raise
            finally:
                conn.execute(text("PRAGMA busy_timeout = 5000"))
    except DBAPIError as exc:  # a lock held elsewhere: the next reader folds
        log.info("case_counts: fold skipped (%s)", type(exc.orig).__name__)


def recount(session: Session) -> None:
    """Rebuild the counters from `cases` (repair; e.g. after rows were changed with triggers off).
    Blocks writers of `cases` until the caller commits."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("LOCK TABLE cases IN SHARE MODE"))
    session.execute(text("DELETE FROM case_counts"))
    session.execute(text("INSERT INTO case_counts (family, status, n) SELECT family, status, count(*) FROM cases "
                         "GROUP BY family, status"))
