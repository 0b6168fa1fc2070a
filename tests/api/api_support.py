"""Shared test helpers for the API tests (kept out of conftest.py so imports are unambiguous)."""

from __future__ import annotations

import re
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




def login_console(client, users: Users, role: str = "moderator", name: str = "mod1") -> str:  # type: ignore[no-untyped-def]
    """Log `name` (created with `role`) into the console on `client`; returns the page's CSRF token."""
    users.token(role, name, password="correct horse battery")
    page = client.get("/console/login")
    nonce = csrf_of(page.text)
    r = client.post("/console/login", data={"csrf": nonce, "username": name, "password": "correct horse battery"},
                    follow_redirects=False)
    assert r.status_code == 303, r.text
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    return csrf_of(client.get("/console/").text)


def csrf_of(html: str) -> str:
    """The CSRF token of a console page's first form."""
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None, "no CSRF token on the page"
    return found.group(1)
