"""Per-client token buckets for logins and writes: 429 with Retry-After when a bucket is empty.

In process and in memory on purpose: one API process per host is the deployment, and a limiter
that needs a shared store would fail open or closed when that store is down. Behind several API
processes each keeps its own buckets, so the effective limit is N times the configured one.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from railbird.settings import Settings

LOGIN_PATHS = frozenset({"/v1/auth/login", "/console/login"})
EXEMPT_WRITES = frozenset({"/v1/findings/batch"})
"""Ingestion is the service's stream: its back-pressure is 503 from the database, not a quota."""
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@dataclass(frozen=True, slots=True)
class RateLimits:
    """Requests per minute (and burst) per client; 0 per minute switches that bucket off."""

    login_per_min: int = 10
    login_burst: int = 5
    write_per_min: int = 300
    write_burst: int = 60
    max_clients: int = 10_000


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class TokenBuckets:
    """Buckets keyed by (route class, client); the least recently used are forgotten beyond a cap."""

    def __init__(self, *, per_min: int, burst: int, max_keys: int, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self.max_keys, self.clock = per_min / 60.0, float(burst), max_keys, clock
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when a token was taken; otherwise the seconds until one will be there."""
        now = self.clock()
        with self._lock:
            bucket = self._buckets.pop(key, None) or _Bucket(self.burst, now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
            bucket.updated = now
            self._buckets[key] = bucket
            if len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                return 0.0
            return (1.0 - bucket.tokens) / self.rate


def client_of(scope: Scope, *, by_credentials: bool) -> str:
    """The caller: its credentials' digest for writes (one user behind a shared NAT is not
    everyone), else its address. Digest only: no token is kept in memory by the limiter."""
    headers = dict(scope.get("headers") or [])
    if by_credentials:
        credential = headers.get(b"authorization") or headers.get(b"cookie")
        if credential:
            return "cred:" + hashlib.sha256(credential).hexdigest()[:32]
    client = scope.get("client")
    return f"ip:{client[0] if client else 'unknown'}"


class RateLimit:
    """ASGI middleware: login attempts and writes pass through their token buckets."""

    def __init__(self, app: ASGIApp, *, limits: RateLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.login = TokenBuckets(per_min=limits.login_per_min, burst=limits.login_burst,
                                  max_keys=limits.max_clients, clock=clock) if limits.login_per_min else None
        self.write = TokenBuckets(per_min=limits.write_per_min, burst=limits.write_burst,
                                  max_keys=limits.max_clients, clock=clock) if limits.write_per_min else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        wait = self._wait_for(scope) if scope["type"] == "http" else 0.0
        if wait > 0:
            await _too_many(send, wait)
            return
        await self.app(scope, receive, send)

    def _wait_for(self, scope: Scope) -> float:
        method, path = scope.get("method", "GET"), scope.get("path", "")
        if method == "POST" and path in LOGIN_PATHS:
            # Keyed by address: a password-guessing client has no credentials to be keyed by.
            return self.login.take("login|" + client_of(scope, by_credentials=False)) if self.login else 0.0
        if method in WRITE_METHODS and path not in EXEMPT_WRITES and self.write is not None:
            return self.write.take("write|" + client_of(scope, by_credentials=True))
        return 0.0


async def _too_many(send: Send, wait_s: float) -> None:
    retry_after = str(max(1, math.ceil(wait_s)))
    body = json.dumps({"detail": f"too many requests; retry after {retry_after} s"}).encode()
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"application/json"), (b"retry-after", retry_after.encode()),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def rate_limits_from(settings: Settings) -> RateLimits | None:
    """The limits from the settings, or None when limiting is off (by default under env=test, so
    unit tests that log in many times are not throttled; the security tests switch it on)."""
    enabled = settings.rate_limit_enabled if settings.rate_limit_enabled is not None else settings.env != "test"
    if not enabled:
        return None
    return RateLimits(login_per_min=settings.rate_limit_login_per_min,
                      write_per_min=settings.rate_limit_write_per_min)
