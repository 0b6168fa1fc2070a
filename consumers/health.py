"""The ops HTTP endpoint: `/metrics` (Prometheus, our own registry), `/healthz`, `/readyz`.

Built like `prometheus_client.start_http_server` (a WSGI server in a daemon thread) with two more
routes: alive = the process serves HTTP; ready = every lane joined its group and the review API
answers.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from wsgiref.simple_server import WSGIServer, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer, _SilentHandler

from consumers.lane import LaneStatus

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


@dataclass(frozen=True)
class Readiness:
    """Inputs of /readyz: the lanes' status and a cheap API reachability probe."""

    lanes: dict[str, LaneStatus]
    api_reachable: Callable[[], bool]

    def report(self) -> tuple[bool, dict[str, object]]:
        """Ready or not, and why, as JSON-able detail."""
        waiting = sorted(name for name, s in self.lanes.items() if not s.joined)
        api_ok = self.api_reachable()
        detail: dict[str, object] = {
            "lanes_waiting": waiting,
            "api_reachable": api_ok,
            "retrying": {name: s.retrying for name, s in self.lanes.items() if s.retrying},
            # Still ready (every other partition is served), but visible: `railbird skip` ends it.
            "blocked": {p: why for s in self.lanes.values() for p, why in s.blocked.items()},
        }
        return (not waiting and api_ok), detail


def ops_app(
    registry: CollectorRegistry, readiness: Readiness
) -> Callable[[dict[str, Any], StartResponse], Iterable[bytes]]:
    """WSGI app serving metrics, liveness and readiness."""
    metrics_app = make_wsgi_app(registry)

    def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "/")
        if path == "/healthz":
            return _json(start_response, 200, {"status": "ok"})
        if path == "/readyz":
            ready, detail = readiness.report()
            return _json(start_response, 200 if ready else 503, {"ready": ready, **detail})
        return list(metrics_app(environ, start_response))

    return app


def _json(start_response: StartResponse, status: int, body: dict[str, object]) -> list[bytes]:
    text = {200: "200 OK", 503: "503 Service Unavailable"}[status]
    start_response(text, [("Content-Type", "application/json")])
    return [json.dumps(body).encode()]


def serve_ops(*, host: str, port: int, registry: CollectorRegistry, readiness: Readiness) -> WSGIServer:
    """Start the ops server in a daemon thread; call `shutdown()` on the result to stop it."""
    server = make_server(
        host, port, ops_app(registry, readiness), ThreadingWSGIServer, handler_class=_SilentHandler
    )
    threading.Thread(target=server.serve_forever, name="railbird-ops-http", daemon=True).start()
    return server
