"""Shared test helpers for the API tests (kept out of conftest.py so imports are unambiguous)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from api.auth import service as auth
from api.db import make_sessions

SERVICE_TOKEN = "test-service-token"


@dataclass
class FakeClock:
    """A clock tests move by hand."""

    now: datetime = field(default_factory=lambda: datetime(2026, 3, 1, 12, 0, tzinfo=UTC))

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


@dataclass
class Users:
    """Creates users with tokens directly through the service layer."""

    engine: Engine
    clock: FakeClock

    def token(self, role: str, username: str | None = None, ttl: timedelta = timedelta(days=2),
              password: str | None = None) -> str:
        sessions = make_sessions(self.engine)
        with sessions() as s:
            name = username or f"{role}_{uuid.uuid4().hex[:6]}"
            user = auth.user_by_name(s, name) or auth.create_user(
                s, username=name, role=role, password=password, actor="test", now=self.clock())
            raw, _ = auth.issue_token(s, user=user, kind="api", label="test", ttl=ttl, now=self.clock())
            s.commit()
            return raw

    def headers(self, role: str, username: str | None = None) -> dict[str, str]:
        if role == "service":
            return {"Authorization": f"Bearer {SERVICE_TOKEN}"}
        return {"Authorization": f"Bearer {self.token(role, username)}"}


