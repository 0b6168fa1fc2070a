"""Login, user and token shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field, StringConstraints

from api.auth.roles import Role
from api.schemas import Body, Name, Public

Password = Annotated[str, StringConstraints(min_length=1, max_length=256)]


class LoginRequest(Body):
    """Username and password."""

    username: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    password: Password


class LoginResponse(Public):
    """A bearer token for the API (the raw value is shown only here)."""

    token: str
    expires_at: datetime
    role: str
    username: str


class UserCreate(Body):
    """A new user; service accounts have no password (they get tokens)."""

    username: Name
    role: Role
    password: Annotated[str, StringConstraints(min_length=8, max_length=256)] | None = None


class UserUpdate(Body):
    """Change role or deactivate."""

    role: Role | None = None
    active: bool | None = None


class UserPublic(Public):
    """A user (never the password hash)."""

    id: str
    username: str
    role: str
    active: bool
    created_at: datetime


class TokenCreate(Body):
    """A long-lived API token for a user (typically a service or game-server account)."""

    username: Name
    label: Annotated[str, StringConstraints(max_length=128)] = ""
    ttl_days: int = Field(default=365, ge=1, le=3650)


class TokenIssued(Public):
    """The raw token (shown once), its id (to revoke it) and expiry."""

    id: str
    token: str
    expires_at: datetime


class TokenPublic(Public):
    """A token's metadata."""

    id: str
    user_id: str
    kind: str
    label: str
    expires_at: datetime
    revoked_at: datetime | None


class Me(Public):
    """The caller."""

    user_id: str
    username: str
    role: str
