"""Fixtures of the security tests: an app on SQLite with rate limiting ON, users with tokens."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from api.app import create_app
from api.auth import service as auth
from api.db import make_engine, make_sessions, migrate
from api.deps import ApiConfig
from api.ids import utc_now
from railbird.settings import Settings

SERVICE_TOKEN = "security-service-token-0123456789"
PASSWORD = "correct-horse-battery-staple-1"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    """A migrated SQLite database."""
    engine = make_engine(f"sqlite:///{tmp_path / 'security.db'}")
    migrate(engine)
    yield engine
    engine.dispose()


def make_client(engine: Engine, tmp_path: Path, **limits: object) -> TestClient:
    """An app with rate limiting switched on (env=test would switch it off by default)."""
    settings = Settings(env="test", data_dir=tmp_path, service_token=SERVICE_TOKEN, relay_enabled=False,
                        rate_limit_enabled=True, **limits)  # type: ignore[arg-type]
    app = create_app(settings=settings, config=ApiConfig(service_token=SERVICE_TOKEN, env="test"),
                     engine=engine, run_migrations=False)
    return TestClient(app)


@pytest.fixture
def client(engine: Engine, tmp_path: Path) -> Iterator[TestClient]:
    """Client of a rate-limited app."""
    with make_client(engine, tmp_path) as c:
        yield c


@pytest.fixture
def login_as(engine: Engine) -> Callable[[str, str], dict[str, str]]:
    """Create a user with a role and return its bearer headers (token issued directly)."""
    from datetime import timedelta

    def make(username: str, role: str) -> dict[str, str]:
        with make_sessions(engine)() as s:
            user = auth.create_user(s, username=username, role=role, password=PASSWORD, actor="test", now=utc_now())
            raw, _ = auth.issue_token(s, user=user, kind="api", label="t", ttl=timedelta(hours=1), now=utc_now())
            s.commit()
        return {"Authorization": f"Bearer {raw}"}

    return make
