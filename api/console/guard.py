"""Console authentication: HttpOnly SameSite=Strict session cookie, CSRF token, deny-by-default table."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Annotated
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse

from api.auth import service as auth
from api.auth.roles import Permission, allowed
from api.console.flash import FLASH_COOKIE, Flash, decode, flash_key
from api.db import SessionDep
from api.deps import ConfigDep, NowDep, compile_table, permission_for
from api.errors import ForbiddenError, UnauthorizedError
from api.privacy.policy import REDACTED, may_read_chat

SESSION_COOKIE = "rb_session"
LOGIN_CSRF_COOKIE = "rb_login_csrf"
PREFIX = "/console"

CONSOLE_PERMISSIONS: dict[tuple[str, str], Permission] = {
    ("GET", "/console/login"): "public",
    ("POST", "/console/login"): "public",
    ("POST", "/console/logout"): "self",
    ("GET", "/console/"): "view",
    ("GET", "/console/queue-counts"): "view",
    ("GET", "/console/cases/{case_id}"): "view",
    ("POST", "/console/cases/bulk-close"): "sanction",
    ("POST", "/console/saved-views"): "view",
    ("POST", "/console/saved-views/{view_id}/delete"): "view",
    ("GET", "/console/players/{player_id}"): "view",
    ("POST", "/console/cases/{case_id}/claim"): "decide",
    ("POST", "/console/cases/{case_id}/release"): "decide",
    ("POST", "/console/cases/{case_id}/take-over"): "decide",
    ("POST", "/console/cases/{case_id}/decide"): "decide",
    ("POST", "/console/cases/{case_id}/note"): "decide",
    ("POST", "/console/cases/{case_id}/labels/{finding_id}"): "decide",
    ("POST", "/console/cases/{case_id}/sanction"): "sanction",
    ("POST", "/console/cases/{case_id}/appeal"): "senior",
    ("POST", "/console/sanctions/{sanction_id}/revoke"): "sanction",
    ("POST", "/console/sanctions/{sanction_id}/second-review"): "senior",
    ("POST", "/console/appeals/{appeal_id}/resolve"): "senior",
    ("GET", "/console/appeals"): "view",
    ("GET", "/console/dashboard"): "view",
    ("GET", "/console/shadow"): "view",
    ("GET", "/console/quality"): "quality",
    ("POST", "/console/quality/golden"): "quality",
    ("POST", "/console/quality/rates"): "admin",
    ("GET", "/console/admin/policy"): "admin",
    ("GET", "/console/audit"): "admin",
    ("POST", "/console/admin/policy"): "admin",
    ("GET", "/console/admin/retro"): "admin",
    ("POST", "/console/admin/retro"): "admin",
    ("GET", "/console/admin/models"): "admin",
    ("POST", "/console/admin/models/rollback"): "admin",
    ("POST", "/console/admin/models/{version}/promote"): "admin",
    ("POST", "/console/admin/models/{version}/retire"): "admin",
}
"""Console pages and forms -> permission (same roles as the API); anything unlisted is refused."""

_TABLE = compile_table(CONSOLE_PERMISSIONS)


class LoginRequiredError(Exception):
    """No valid console session: the browser is sent to the login page."""


def csrf_for(raw_session: str) -> str:
    """CSRF token bound to the session: derivable only by someone who holds the HttpOnly cookie."""
    return hashlib.sha256(f"railbird-csrf|{raw_session}".encode()).hexdigest()[:40]


@dataclass(frozen=True, slots=True)
class ConsoleContext:
    """The signed-in user (None on public pages), the submitted form and the CSRF token for new forms."""

    principal: auth.Principal | None
    form: dict[str, str] = field(default_factory=dict)
    csrf: str = ""
    flash: Flash | None = None
    """The notice the previous form left for this page (signed for this session), shown once."""
    flash_key: bytes = b""
    secure_cookies: bool = False

    @property
    def user(self) -> auth.Principal:
        """The principal on a protected page (the guard guarantees one)."""
        assert self.principal is not None
        return self.principal

    def can(self, permission: Permission) -> bool:
        """Whether the user holds a permission (templates hide what they cannot use)."""
        return self.principal is not None and allowed(permission, self.principal.role)

    @property
    def reads_chat(self) -> bool:
        """Whether the user may see what players wrote (the same matrix as the API's redaction)."""
        return self.principal is not None and may_read_chat(self.principal.role)

    def text(self, value: object) -> str:
        """Player-written free text (summaries, reasons, statements) for this user: as stored, or
        `[redacted]` for roles that do not review cases."""
        return str(value) if self.reads_chat else REDACTED


async def console_guard(request: Request, session: SessionDep, now: NowDep, config: ConfigDep) -> ConsoleContext:
    """Resolve the session cookie, check CSRF on every POST and the permission table."""
    _, permission = permission_for(request.method, request.url.path, _TABLE)
    if permission is None:
        raise ForbiddenError("console page has no permission entry (deny by default)")
    form: dict[str, str] = {}
    if request.method == "POST":
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    raw = request.cookies.get(SESSION_COOKIE, "")
    principal: auth.Principal | None = None
    if raw:
        try:
            principal = auth.resolve(session, raw=raw, service_token=None, now=now)
        except UnauthorizedError:
            principal = None
    if principal is not None and principal.role == "service":
        principal = None
    key = flash_key(raw) if principal is not None else b""
    notice = decode(request.cookies.get(FLASH_COOKIE, ""), key=key) if key else None
    if permission == "public":
        return ConsoleContext(principal, form, csrf_for(raw) if principal else "", notice, key, config.secure_cookies)
    if principal is None:
        raise LoginRequiredError
    expected = csrf_for(raw)
    if request.method == "POST" and not hmac.compare_digest(form.get("csrf", ""), expected):
        raise ForbiddenError("CSRF token missing or wrong; reload the page and try again")
    if not allowed(permission, principal.role):
        raise ForbiddenError(f"role {principal.role!r} may not use this page")
    return ConsoleContext(principal, form, expected, notice, key, config.secure_cookies)


ConsoleDep = Annotated[ConsoleContext, Depends(console_guard)]


def install_login_redirect(app: FastAPI) -> None:
    """Unauthenticated console requests go to the login page, which brings a GET back where it was."""

    async def to_login(request: Request, _exc: Exception) -> RedirectResponse:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        wanted = request.method == "GET" and target != f"{PREFIX}/" and safe_next(target)
        back = f"?next={quote(target, safe='')}" if wanted else ""
        return RedirectResponse(f"{PREFIX}/login{back}", status_code=303)

    app.add_exception_handler(LoginRequiredError, to_login)


def safe_next(target: str) -> str | None:
    """`target` if it is a console page of this server (never another host, scheme or the login page)."""
    if len(target) > 1000 or not target.startswith(f"{PREFIX}/") or target.startswith("//"):
        return None
    if "\\" in target or any(ord(c) < 0x21 for c in target) or target.startswith(f"{PREFIX}/login"):
        return None
    return target
