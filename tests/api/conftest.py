"""Fixtures for the review API: the same tests run on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from api_support import SERVICE_TOKEN, FakeClock, Users
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from api.app import create_app
from api.db import make_engine, migrate
from api.deps import ApiConfig
from api.models import Base
from railbird.settings import Settings
from tests import postgres


@pytest.fixture(scope="session")
def pg_engine() -> Iterator[Engine]:
    """A fresh database for this test session, migrated once, dropped at the end."""
    if reason := postgres.unavailable():
        pytest.skip(reason)
    with postgres.scratch_database("railbird_api") as url:
        engine = make_engine(url, pool_size=10, max_overflow=20)
        migrate(engine)
        try:
            yield engine
        finally:
            engine.dispose()


def _truncate(engine: Engine) -> None:
    tables = ", ".join(t.name for t in Base.metadata.sorted_tables)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Engine]:
    """A migrated, empty database on each backend."""
    if request.param == "sqlite":
        eng = make_engine(f"sqlite:///{tmp_path / 'railbird.db'}")
        migrate(eng)
        yield eng
        eng.dispose()
    else:
        eng = request.getfixturevalue("pg_engine")
        _truncate(eng)
        yield eng


@pytest.fixture
def clock() -> FakeClock:
    """The app's clock."""
    return FakeClock()


@pytest.fixture
def settings(tmp_path: Any) -> Settings:
    """Test settings (no environment involved)."""
    return Settings(env="test", data_dir=tmp_path, service_token=SERVICE_TOKEN, relay_enabled=False)


@pytest.fixture
def app_config(clock: FakeClock) -> ApiConfig:
    """API config with the fake clock."""
    return ApiConfig(service_token=SERVICE_TOKEN, env="test", clock=clock, max_body_bytes=2 * 1024 * 1024)


@pytest.fixture
def client(engine: Engine, settings: Settings, app_config: ApiConfig) -> Iterator[TestClient]:
    """HTTP client over the app (lifespan run, migrations already applied)."""
    app = create_app(settings=settings, config=app_config, engine=engine, run_migrations=False)
    with TestClient(app) as c:
        yield c


@pytest.fixture
def users(engine: Engine, clock: FakeClock) -> Users:
    """User/token factory."""
    return Users(engine, clock)
