"""The test PostgreSQL server (127.0.0.1:5432, trust auth): one probe and one scratch-database helper,
so every test area skips with the same reason and cleans up the same way."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import text

from api.db import make_engine

SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"
ADMIN_URL = f"{SERVER}/test"


def unavailable() -> str | None:
    """None when the server answers, else the reason to skip (tests call pytest.skip with it)."""
    try:
        engine = make_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        finally:
            engine.dispose()
        return None
    except Exception as exc:  # noqa: BLE001 - any failure means "no server": skip with the reason
        return f"PostgreSQL at 127.0.0.1:5432 not answering ({type(exc).__name__})"


@contextmanager
def scratch_database(prefix: str) -> Iterator[str]:
    """A new, empty database named `<prefix>_<random>`; yields its URL, drops it (FORCE) on exit."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = make_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield f"{SERVER}/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
