"""One-shot notices after a console form: a signed, HttpOnly cookie instead of a `?msg=` parameter.

A banner text taken from the query string let anyone craft a link that showed "Ban confirmed by
security." on a real console page. The notice now travels in a cookie only this server sets,
signed with a key derived from the reader's own session (a forged or replayed cookie from another
session fails the check and is ignored), read once by the next page and deleted. Errors and
successes carry their kind, so the page can show them differently (and announce errors as alerts).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Literal

from fastapi.responses import RedirectResponse, Response

FLASH_COOKIE = "rb_flash"
FLASH_MAX_AGE_S = 60
MAX_TEXT = 300

Kind = Literal["ok", "error"]


@dataclass(frozen=True, slots=True)
class Flash:
    """A notice for the next page: its kind and text (shown escaped, like all text)."""

    kind: Kind
    text: str


def flash_key(raw_session: str) -> bytes:
    """The signing key of a session's notices (empty session: no notices)."""
    return hashlib.sha256(f"railbird-flash|{raw_session}".encode()).digest()


def _sign(key: bytes, body: bytes) -> str:
    return hmac.new(key, body, hashlib.sha256).hexdigest()[:32]


def encode(flash: Flash, *, key: bytes) -> str:
    """Cookie value: base64url(JSON) + '.' + signature."""
    body = json.dumps([flash.kind, flash.text[:MAX_TEXT]], ensure_ascii=False).encode()
    return f"{base64.urlsafe_b64encode(body).decode().rstrip('=')}.{_sign(key, body)}"


def decode(value: str, *, key: bytes) -> Flash | None:
    """The notice in a cookie value, or None when absent, malformed or not signed for this session."""
    head, _, signature = value.partition(".")
    try:
        body = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
    except ValueError:
        return None
    if not signature or not hmac.compare_digest(signature, _sign(key, body)):
        return None
    try:
        kind, text = json.loads(body)
    except (ValueError, TypeError):
        return None
    if kind not in ("ok", "error") or not isinstance(text, str):
        return None
    return Flash(kind, text[:MAX_TEXT])


def redirect_with(url: str, flash: Flash, *, key: bytes, secure: bool, path: str) -> RedirectResponse:
    """A 303 to `url` carrying `flash` for the page it lands on."""
    resp = RedirectResponse(url, status_code=303)
    resp.set_cookie(FLASH_COOKIE, encode(flash, key=key), httponly=True, samesite="strict", path=path,
                    secure=secure, max_age=FLASH_MAX_AGE_S)
    return resp


def consumed(resp: Response, *, path: str) -> Response:
    """`resp` with the notice cookie deleted (it has been shown)."""
    resp.delete_cookie(FLASH_COOKIE, path=path)
    return resp
