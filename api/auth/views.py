"""Routes for login/logout, the caller, users and API tokens."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter, Request

from api.auth import service
from api.auth.schemas import (
    LoginRequest,
    LoginResponse,
    Me,
    TokenCreate,
    TokenIssued,
    TokenPublic,
    UserCreate,
    UserPublic,
    UserUpdate,
)
from api.db import SessionDep
from api.deps import ConfigDep, NowDep, PrincipalDep
from api.errors import NotFoundError


def router() -> APIRouter:
    """Auth and user-management routes."""
    r = APIRouter(tags=["auth"])

    @r.post("/auth/login", response_model=LoginResponse)
    def login(body: LoginRequest, session: SessionDep, config: ConfigDep, now: NowDep) -> LoginResponse:
        """Exchange a password for a bearer token (expires after the session TTL)."""
        raw, user = service.login(session, username=body.username, password=body.password,
                                  ttl=config.session_ttl, now=now)
        return LoginResponse(token=raw, expires_at=now + config.session_ttl, role=user.role, username=user.username)

    @r.post("/auth/logout", status_code=204)
    def logout(request: Request, session: SessionDep, now: NowDep, who: PrincipalDep) -> None:
        """Revoke the token used for this call."""
        raw = request.headers.get("authorization", "").partition(" ")[2].strip()
        if who.token_id is not None:
            service.revoke_raw(session, raw=raw, now=now)

    @r.get("/auth/me", response_model=Me)
    def me(who: PrincipalDep) -> Me:
        """Who the token belongs to."""
        return Me(user_id=who.user_id, username=who.username, role=who.role)

    @r.get("/users", response_model=list[UserPublic])
    def users(session: SessionDep) -> list[UserPublic]:
        """Every user."""
        return [UserPublic.model_validate(u) for u in service.list_users(session)]

    @r.post("/users", response_model=UserPublic, status_code=201)
    def create_user(body: UserCreate, session: SessionDep, now: NowDep, who: PrincipalDep) -> UserPublic:
        """Admin: create a user (audited)."""
        return UserPublic.model_validate(service.create_user(
            session, username=body.username, role=body.role, password=body.password, actor=who.username, now=now))

    @r.patch("/users/{user_id}", response_model=UserPublic)
    def update_user(user_id: str, body: UserUpdate, session: SessionDep, now: NowDep,
                    who: PrincipalDep) -> UserPublic:
        """Admin: change a role or deactivate (audited)."""
        return UserPublic.model_validate(service.update_user(
            session, user_id=user_id, role=body.role, active=body.active, actor=who.username, now=now))

    @r.post("/tokens", response_model=TokenIssued, status_code=201)
    def create_token(body: TokenCreate, session: SessionDep, now: NowDep, who: PrincipalDep) -> TokenIssued:
        """Admin: issue a long-lived token for a user (e.g. a game server's service account)."""
        user = service.user_by_name(session, body.username)
        if user is None:
            raise NotFoundError(f"no user {body.username!r}")
        raw, token = service.issue_token(session, user=user, kind="api", label=body.label,
                                         ttl=timedelta(days=body.ttl_days), now=now)
        service.audit_token(session, token=token, actor=who.username, now=now)
        return TokenIssued(id=token.id, token=raw, expires_at=token.expires_at)

    @r.post("/tokens/{token_id}/revoke", response_model=TokenPublic)
    def revoke_token(token_id: str, session: SessionDep, now: NowDep, who: PrincipalDep) -> TokenPublic:
        """Admin: revoke a token at once."""
        return TokenPublic.model_validate(service.revoke_token(session, token_id=token_id, actor=who.username,
                                                               now=now))

    return r
