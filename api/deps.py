"""Per-app configuration and the dependencies every router shares (config, clock, principal)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Annotated

from fastapi import Depends, Request
from starlette.routing import compile_path

from api.auth import service as auth
from api.auth.roles import ENDPOINT_PERMISSIONS, Permission, allowed
from api.db import SessionDep
from api.errors import ForbiddenError, UnauthorizedError
from api.ids import Clock, utc_now


@dataclass(frozen=True, slots=True)
class ApiConfig:
    """What the API needs from the settings, plus the clock (injected so tests control time)."""

    service_token: str | None
    env: str = "dev"
    clock: Clock = field(default=utc_now)
    claim_ttl: timedelta = timedelta(minutes=30)
    session_ttl: timedelta = timedelta(hours=12)
    max_body_bytes: int = 24 * 1024 * 1024
    clip_url_template: str = ""
    """`Settings.clip_url_template`: the console's SnapCam clip player source."""

    @property
    def secure_cookies(self) -> bool:
        """Cookies marked Secure outside dev/test (production sits behind TLS)."""
        return self.env == "production"


async def get_config(request: Request) -> ApiConfig:
    """The app's configuration."""
    config: ApiConfig = request.app.state.config
    return config


ConfigDep = Annotated[ApiConfig, Depends(get_config)]


async def get_now(config: ConfigDep) -> datetime:
    """The time of this request, from the injected clock."""
    return config.clock()


NowDep = Annotated[datetime, Depends(get_now)]


def bearer_principal(request: Request, session: SessionDep, config: ConfigDep,
                     now: NowDep) -> auth.Principal | UnauthorizedError:
    """The caller named by `Authorization: Bearer`, or the reason there is none."""
    header = request.headers.get("authorization", "")
    scheme, _, raw = header.partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        return UnauthorizedError("missing bearer token")
    try:
        return auth.resolve(session, raw=raw.strip(), service_token=config.service_token, now=now)
    except UnauthorizedError as exc:
        return exc


Compiled = list[tuple[str, re.Pattern[str], str, Permission]]


def compile_table(table: dict[tuple[str, str], Permission]) -> Compiled:
    """Route templates as regexes, for matching concrete paths."""
    return [(method, compile_path(path)[0], path, perm) for (method, path), perm in table.items()]


_COMPILED = compile_table(ENDPOINT_PERMISSIONS)


def permission_for(method: str, path: str, table: Compiled = _COMPILED) -> tuple[str, Permission | None]:
    """The route template a concrete path matches and the permission it needs (None: unlisted)."""
    for m, regex, template, perm in table:
        if m == method and regex.match(path):
            return template, perm
    return path, None


async def authorize(request: Request,
              principal: Annotated[auth.Principal | UnauthorizedError, Depends(bearer_principal)]) -> auth.Principal | None:
    """Router-level guard: look the endpoint up in the permission table; deny anything not listed."""
    path, permission = permission_for(request.method, request.url.path)
    if permission is None:
        raise ForbiddenError("endpoint has no permission entry (deny by default)")
    if permission == "public":
        return principal if isinstance(principal, auth.Principal) else None
    if isinstance(principal, UnauthorizedError):
        raise principal
    if not allowed(permission, principal.role):
        raise ForbiddenError(f"role {principal.role!r} may not {request.method} {path}")
    request.state.role = principal.role  # read by api.privacy.shaping to redact the response
    return principal


async def require_principal(principal: Annotated[auth.Principal | None, Depends(authorize)]) -> auth.Principal:
    """The authenticated caller (401 when the endpoint is public but this view needs one)."""
    if principal is None:
        raise UnauthorizedError("missing bearer token")
    return principal


PrincipalDep = Annotated[auth.Principal, Depends(require_principal)]
