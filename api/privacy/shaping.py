"""ASGI middleware applying `api.privacy.policy` to JSON responses, after the view ran.

The caller's role is what `api.deps.authorize` resolved for this request (`request.state.role`):
the shaping never authenticates on its own, so it cannot disagree with the permission table.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.privacy.policy import may_read_chat, redact, shapes


class PrivacyShaping:
    """Redacts free text in /v1 JSON responses for roles that may not read chat."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not shapes(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        chunks: list[bytes] = []

        async def shaping_send(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                role = (scope.get("state") or {}).get("role")
                if role is None or may_read_chat(str(role)) or not _is_json(message):
                    await send(message)  # nothing to shape: pass through untouched
                    return
                start = message
                return
            if start is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                await _send_redacted(send, start, b"".join(chunks))

        await self.app(scope, receive, shaping_send)


def _is_json(start: Message) -> bool:
    headers = dict(start.get("headers") or [])
    return bool(headers.get(b"content-type", b"").startswith(b"application/json"))


async def _send_redacted(send: Send, start: Message, body: bytes) -> None:
    try:
        shaped = json.dumps(redact(json.loads(body)), ensure_ascii=False, separators=(",", ":")).encode()
    except ValueError:
        shaped = body  # not JSON after all (an error page): nothing player-written to shape
    headers = [(k, v) for k, v in start.get("headers") or [] if k != b"content-length"]
    headers.append((b"content-length", str(len(shaped)).encode()))
    await send({**start, "headers": headers})
    await send({"type": "http.response.body", "body": shaped})
