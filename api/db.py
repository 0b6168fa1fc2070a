"""Engine, sessions, column types and migrations: everything the API knows about its database."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from alembic import command
from alembic.config import Config
from fastapi import Depends, Request
from sqlalchemy import JSON, DateTime, Engine, create_engine, event, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.types import TypeDecorator

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


class UtcDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes on every backend (SQLite drops the zone, so it is restored on read)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the database layer")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


JsonColumn = JSON().with_variant(JSONB(), "postgresql")
"""JSON on SQLite, JSONB on PostgreSQL."""


class Base(DeclarativeBase):
    """Declarative base of every table."""


def make_engine(url: str, **kwargs: Any) -> Engine:
    """Engine for `url`; SQLite gets WAL, foreign keys and a busy timeout on every connection."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 5}, **kwargs)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    # No pre-ping: it costs a round trip per request; a dead connection surfaces as OperationalError,
    # which the API answers with 503 + Retry-After, and the pool replaces it.
    kwargs.setdefault("pool_recycle", 1800)
    # psycopg prepares a statement after 5 runs and PostgreSQL may then reuse a generic plan, one
    # for every value: the queue's filters are skewed (a detector tag on 200,000 cases of one family
    # and none of another), and a generic plan took 1.2 s where the value's own plan takes 2 ms.
    # Planning each run costs well under a millisecond.
    if url.startswith("postgresql"):
        connect_args = dict(kwargs.pop("connect_args", {}))
        connect_args.setdefault("options", "-c plan_cache_mode=force_custom_plan")
        kwargs["connect_args"] = connect_args
    return create_engine(url, **kwargs)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets the console read while ingestion writes; FKs are off by default in SQLite.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def lock_for_write(session: Session) -> None:
    """On SQLite, take the database's write lock now, before the transaction's first read.

    Python's sqlite3 opens a transaction only at the first INSERT/UPDATE/DELETE, so the reads
    before it run outside any transaction and a read-modify-write (a case's `finding_count += 1`)
    can apply a stale value over a concurrent writer's commit. `BEGIN IMMEDIATE` makes the whole
    unit serial, as SQLite's single writer is anyway. PostgreSQL locks the rows it updates
    instead (`SELECT ... FOR UPDATE` where the value read is written back).
    """
    if session.get_bind().dialect.name != "sqlite":
        return
    raw = session.connection().connection.dbapi_connection
    if raw is not None and not raw.in_transaction:  # type: ignore[attr-defined]
        session.execute(text("BEGIN IMMEDIATE"))


def make_sessions(engine: Engine) -> sessionmaker[Session]:
    """Session factory; objects stay readable after commit so views can serialise them."""
    return sessionmaker(bind=engine, expire_on_commit=False, autoflush=False)


def alembic_config(engine: Engine) -> Config:
    """Alembic configuration bound to `engine`, built in code (no alembic.ini to find)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["engine"] = engine
    return cfg


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision of every branch (a no-op when it is already there):
    work on separate tables may branch from one revision until a merge revision joins them."""
    if engine.url.get_backend_name() == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        Path(str(engine.url.database)).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(engine), "heads")


def make_read_sessions(sessions: sessionmaker[Session]) -> sessionmaker[Session]:
    """Sessions on autocommit connections for GET requests: no BEGIN/ROLLBACK round trips per page."""
    engine: Engine = sessions.kw["bind"]
    return make_sessions(engine.execution_options(isolation_level="AUTOCOMMIT"))  # type: ignore[arg-type]


def get_session(request: Request) -> Iterator[Session]:
    """One session per request; services commit explicitly, anything uncommitted is rolled back.

    Reads (GET/HEAD) use autocommit connections: each statement sees committed data, which is all a
    page needs, and the request saves two database round trips.
    """
    read = request.method in ("GET", "HEAD")
    sessions: sessionmaker[Session] = request.app.state.read_sessions if read else request.app.state.sessions
    with sessions() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
