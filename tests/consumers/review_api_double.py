"""A test double of the review API's ingestion endpoint: in-memory, idempotent by finding id,
with a switchable 503 mode and per-finding rejections. Served in-process by uvicorn on a free port
(integration tests) or through `httpx.MockTransport` (unit tests)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from consumers.broker import free_port
from pipeline.findings import Finding

TOKEN = "test-service-token"


class IngestStore:
    """The contract's semantics: 401 without the token, 503 while unavailable, 422 on an invalid
    or rejected finding, else 200 with accepted/duplicates; a finding is stored once."""

    def __init__(self, token: str = TOKEN) -> None:
        self.token = token
        self.findings: dict[str, dict[str, Any]] = {}
        self.deliveries: Counter[str] = Counter()
        self.unavailable = 0
        """Answer 503 to this many requests (negative: until set back to 0)."""
        self.reject_ids: set[str] = set()
        self.requests = 0
        self.delay_s = 0.0
        """Served double only: answer each request this much later (a slow database)."""
        self.statuses: Counter[int] = Counter()
        self.latencies: list[tuple[str, float]] = []
        self._lock = threading.Lock()

    def ingest(self, body: Any, authorization: str | None) -> tuple[int, dict[str, Any]]:
        """Apply one batch request; (status, JSON body)."""
        with self._lock:
            status, out = self._ingest(body, authorization)
            self.requests += 1
            self.statuses[status] += 1
            return status, out

    def _ingest(self, body: Any, authorization: str | None) -> tuple[int, dict[str, Any]]:
        if authorization != f"Bearer {self.token}":
            return 401, {"detail": "missing or wrong service token"}
        if self.unavailable:
            self.unavailable -= 1 if self.unavailable > 0 else 0
            return 503, {"detail": "database unavailable"}
        raw = body.get("findings") if isinstance(body, dict) else None
        if not isinstance(raw, list) or len(raw) > 1000:
            return 422, {"detail": "findings must be a list of at most 1000"}
        try:
            parsed = [Finding.model_validate(f) for f in raw]
        except ValidationError as exc:
            return 422, {"detail": exc.errors(include_url=False, include_input=False)[:3]}
        bad = [f.finding_id for f in parsed if f.finding_id in self.reject_ids]
        if bad:
            return 422, {"detail": f"finding {bad[0]} violates a database constraint"}
        accepted = duplicates = 0
        now = time.time()
        for f, data in zip(parsed, raw, strict=True):
            self.deliveries[f.finding_id] += 1
            if f.finding_id in self.findings:
                duplicates += 1
            else:
                self.findings[f.finding_id] = data
                self.latencies.append((f.finding_id, now))
                accepted += 1
        return 200, {"accepted": accepted, "duplicates": duplicates, "case_ids": [], "sanction_ids": []}

    def transport(self) -> httpx.MockTransport:
        """An httpx transport answering from this store (unit tests)."""

        def handle(request: httpx.Request) -> httpx.Response:
            if request.url.path == "/healthz":
                return httpx.Response(200, json={"status": "ok"})
            status, out = self.ingest(json.loads(request.content), request.headers.get("authorization"))
            return httpx.Response(status, json=out)

        return httpx.MockTransport(handle)


def make_app(store: IngestStore) -> FastAPI:
    """The FastAPI app of the double."""
    app = FastAPI()

    @app.post("/v1/findings/batch")
    async def ingest(request: Request) -> JSONResponse:
        try:
            body = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"detail": "not JSON"}, status_code=422)
        if store.delay_s:
            await asyncio.sleep(store.delay_s)
        status, out = store.ingest(body, request.headers.get("authorization"))
        return JSONResponse(out, status_code=status)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app


@contextmanager
def serve_review_api(store: IngestStore) -> Iterator[str]:
    """Serve the double on a free loopback port; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(make_app(store), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("review API double did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(5)
