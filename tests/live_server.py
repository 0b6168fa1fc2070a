"""Serve an ASGI app with uvicorn on a free loopback port for tests that need real HTTP (browsers)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn

from consumers.broker import free_port


@contextmanager
def serve_app(app: Any, *, health_path: str = "/healthz", timeout_s: float = 10.0) -> Iterator[str]:
    """Run `app` in a thread until `health_path` answers 200; yields the base URL, stops on exit."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}{health_path}", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    try:
        yield base
    finally:
        server.should_exit = True
        thread.join(10)
