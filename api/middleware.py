"""ASGI middleware: request body size limit (413) and security headers on every response."""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       b"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def security_headers(*, media_origin: str = "") -> list[tuple[bytes, bytes]]:
    """The headers every response carries; `media_origin` (the SnapCam clip server's scheme://host,
    from the operator's clip URL template) is the one other origin video may load from."""
    media = f"; media-src 'self' {media_origin}".encode() if media_origin else b""
    return [(b"content-security-policy", CSP + media), *_FIXED]


_FIXED: list[tuple[bytes, bytes]] = [
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class _TooLarge(HTTPException):
    """Raised mid-stream; an HTTPException so FastAPI's body parser passes it through as a 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body larger than {limit} bytes")


class BodyLimit:
    """Refuse bodies over `max_bytes` with 413, by Content-Length or while streaming."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _reject(send, self.max_bytes)
            return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge(self.max_bytes)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await _reject(send, self.max_bytes)


async def _reject(send: Send, limit: int) -> None:
    body = json.dumps({"detail": f"request body larger than {limit} bytes"}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """Adds CSP (no inline scripts), frame denial, nosniff and referrer policy to every response."""

    def __init__(self, app: ASGIApp, *, media_origin: str = "") -> None:
        self.app = app
        self.headers = security_headers(media_origin=media_origin)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + self.headers
            await send(message)

        await self.app(scope, receive, with_headers)
