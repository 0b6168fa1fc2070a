"""Users, logins and opaque bearer tokens (stored as sha256 hashes, with expiry and revocation)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.audit import service as audit
from api.auth.models import ApiToken, User
from api.auth.passwords import hash_password, verify_password
from api.auth.roles import ROLES
from api.errors import ConflictError, InvalidError, NotFoundError, UnauthorizedError
from api.ids import new_id

SERVICE_PRINCIPAL_ID = "service"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: resolved from a bearer token, a console session or the service token."""

    user_id: str
    username: str
    role: str
    token_id: str | None


def token_hash(raw: str) -> str:
    """What is stored for a token: its sha256, so the table alone cannot be replayed."""
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def create_user(session: Session, *, username: str, role: str, password: str | None, actor: str,
                now: datetime) -> User:
    """A new user; audited as a role change."""
    if role not in ROLES:
        raise InvalidError(f"unknown role {role!r}; one of {', '.join(ROLES)}")
    if session.scalar(select(User.id).where(User.username == username)) is not None:
        raise ConflictError(f"user {username!r} already exists")
    user = User(id=new_id("usr"), username=username, role=role, active=True, created_at=now,
                password_hash=hash_password(password) if password else None)
    session.add(user)
    session.flush()
    audit.append(session, actor=actor, action="user.create", entity_type="user", entity_id=user.id,
                 payload={"username": username, "role": role}, now=now)
    session.commit()
    return user


def update_user(session: Session, *, user_id: str, role: str | None, active: bool | None, actor: str,
                now: datetime) -> User:
    """Change a user's role or deactivate them; audited."""
    user = session.get(User, user_id)
    if user is None:
        raise NotFoundError(f"no user {user_id!r}")
    if role is not None and role not in ROLES:
        raise InvalidError(f"unknown role {role!r}; one of {', '.join(ROLES)}")
    before = {"role": user.role, "active": user.active}
    user.role = role or user.role
    user.active = user.active if active is None else active
    audit.append(session, actor=actor, action="user.role_change", entity_type="user", entity_id=user.id,
                 payload={"before": before, "after": {"role": user.role, "active": user.active}}, now=now)
    session.commit()
    return user


def list_users(session: Session) -> list[User]:
    """Every user, by name."""
    return list(session.scalars(select(User).order_by(User.username)))


def user_by_name(session: Session, username: str) -> User | None:
    """The user called `username`, if any."""
    return session.scalar(select(User).where(User.username == username))


def issue_token(session: Session, *, user: User, kind: str, label: str, ttl: timedelta,
                now: datetime) -> tuple[str, ApiToken]:
    """A fresh random token for `user`; the raw value is returned once and never stored."""
    raw = secrets.token_urlsafe(32)
    token = ApiToken(id=new_id("tok"), token_hash=token_hash(raw), user_id=user.id, kind=kind,
                     label=label, created_at=now, expires_at=now + ttl, revoked_at=None)
    session.add(token)
    session.flush()
    return raw, token


def login(session: Session, *, username: str, password: str, ttl: timedelta, now: datetime) -> tuple[str, User]:
    """Check the password and issue a session token; one message for every failure (no user probing)."""
    user = user_by_name(session, username)
    if user is None or not user.active or user.role == "service" or not verify_password(password, user.password_hash):
        # Failed attempts are audited too (who tried which name, and when): a burst against one
        # account is what a security analyst looks for. The entry commits on its own.
        audit.append(session, actor=username[:64] or "-", action="auth.login_failed", entity_type="user",
                     entity_id=user.id if user is not None else "-", payload={}, now=now)
        session.commit()
        raise UnauthorizedError("wrong username or password")
    raw, token = issue_token(session, user=user, kind="session", label="login", ttl=ttl, now=now)
    audit.append(session, actor=user.username, action="auth.login", entity_type="user", entity_id=user.id,
                 payload={"token_id": token.id, "expires_at": (now + ttl).isoformat()}, now=now)
    session.commit()
    return raw, user


def revoke_token(session: Session, *, token_id: str, actor: str, now: datetime) -> ApiToken:
    """Revoke a token (idempotent); audited."""
    token = session.get(ApiToken, token_id)
    if token is None:
        raise NotFoundError(f"no token {token_id!r}")
    if token.revoked_at is None:
        token.revoked_at = now
        audit.append(session, actor=actor, action="token.revoke", entity_type="token", entity_id=token.id,
                     payload={"user_id": token.user_id, "kind": token.kind}, now=now)
    session.commit()
    return token


def revoke_raw(session: Session, *, raw: str, now: datetime) -> None:
    """Log out: revoke the token presented (no audit entry: not a privilege change)."""
    token = session.scalar(select(ApiToken).where(ApiToken.token_hash == token_hash(raw)))
    if token is not None and token.revoked_at is None:
        token.revoked_at = now
        session.commit()


def resolve(session: Session, *, raw: str, service_token: str | None, now: datetime) -> Principal:
    """The principal for a raw bearer token, or UnauthorizedError saying why not."""
    if service_token and hmac.compare_digest(raw.encode("utf-8", "surrogatepass"), service_token.encode("utf-8")):
        return Principal(SERVICE_PRINCIPAL_ID, "service", "service", None)
    row = session.execute(
        select(ApiToken, User).join(User, User.id == ApiToken.user_id)
        .where(ApiToken.token_hash == token_hash(raw))
    ).first()
    if row is None:
        raise UnauthorizedError("unknown token")
    token, user = row
    if token.revoked_at is not None:
        raise UnauthorizedError("token revoked")
    if token.expires_at <= now:
        raise UnauthorizedError("token expired")
    if not user.active:
        raise UnauthorizedError("user deactivated")
    return Principal(user.id, user.username, user.role, token.id)


def audit_token(session: Session, *, token: ApiToken, actor: str, now: datetime) -> None:
    """Record an issued API token (a grant of access) and commit."""
    audit.append(session, actor=actor, action="token.issue", entity_type="token", entity_id=token.id,
                 payload={"user_id": token.user_id, "label": token.label,
                          "expires_at": token.expires_at.isoformat()}, now=now)
    session.commit()


def usernames(session: Session, *, user_ids: set[str]) -> dict[str, str]:
    """user id -> username for display (unknown ids are left out)."""
    if not user_ids:
        return {}
    rows = session.execute(select(User.id, User.username).where(User.id.in_(user_ids))).tuples()
    return {uid: name for uid, name in rows}
