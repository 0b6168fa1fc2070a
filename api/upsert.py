"""Insert-if-absent that is safe under concurrent writers on SQLite and PostgreSQL alike."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import DeclarativeBase, Session


def insert_ignore(session: Session, model: type[DeclarativeBase], values: dict[str, Any],
                  conflict: tuple[str, ...]) -> bool:
    """INSERT ... ON CONFLICT (conflict) DO NOTHING; True when this call inserted the row."""
    table = model.__table__  # type: ignore[attr-defined]
    dialect = session.get_bind().dialect.name
    module = postgresql if dialect == "postgresql" else sqlite
    # Values go in as parameters, not literals: the statement compiles once and is reused from
    # SQLAlchemy's cache. RETURNING yields a row only when this call inserted (rowcount is unreliable).
    stmt = module.insert(table).on_conflict_do_nothing(index_elements=list(conflict)).returning(table.c[conflict[0]])
    return session.execute(stmt, values).first() is not None


def insert_many_ignore(session: Session, model: type[DeclarativeBase], rows: list[dict[str, Any]],
                       conflict: tuple[str, ...]) -> set[Any]:
    """Multi-row insert-if-absent; returns the `conflict[0]` values of the rows this call inserted.

    Callers pass rows sorted by key so concurrent batches take row locks in the same order.
    """
    if not rows:
        return set()
    table = model.__table__  # type: ignore[attr-defined]
    module = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    stmt = module.insert(table).on_conflict_do_nothing(index_elements=list(conflict)).returning(table.c[conflict[0]])
    return set(session.execute(stmt, rows).scalars())
