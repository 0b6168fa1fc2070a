"""Backoff, JSON logs and the ops endpoints."""

from __future__ import annotations

import io
import json
import logging
import random
import urllib.error
import urllib.request

import pytest
from prometheus_client import CollectorRegistry

from consumers.broker import free_port
from consumers.health import Readiness, serve_ops
from consumers.lane import LaneStatus
from consumers.logs import JsonFormatter, redact
from consumers.metrics import ConsumerMetrics
from consumers.retry import Backoff, StopRequestedError, TransientError, retry_forever


def test_full_jitter_stays_under_the_exponential_ceiling_and_the_cap() -> None:
    backoff = Backoff(base_s=0.1, cap_s=2.0, rng=random.Random(7))
    delays = [[backoff.delay(n) for _ in range(200)] for n in range(8)]
    for n, ds in enumerate(delays):
        assert all(0 <= d <= min(2.0, 0.1 * 2**n) for d in ds)
    assert max(delays[7]) > 1.5, "late attempts use the whole capped range"
    assert len({round(d, 6) for d in delays[3]}) > 100, "jittered, not fixed"


def test_retry_forever_retries_transient_errors_and_gives_up_only_on_stop() -> None:
    calls: list[int] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 4:
            raise TransientError("503")
        return "ok"

    waits: list[float] = []
    result = retry_forever(
        flaky,
        backoff=Backoff(base_s=1, cap_s=1),
        wait=waits.append,
        should_stop=lambda: False,
        on_error=lambda e, n: None,
    )
    assert result == "ok" and len(waits) == 3

    def down() -> str:
        raise TransientError("503")

    with pytest.raises(StopRequestedError):
        retry_forever(
            down, backoff=Backoff(), wait=lambda s: None, should_stop=lambda: True, on_error=lambda e, n: None
        )


def test_retry_forever_does_not_swallow_other_errors() -> None:
    def bug() -> None:
        raise KeyError("x")

    with pytest.raises(KeyError):
        retry_forever(
            bug, backoff=Backoff(), wait=lambda s: None, should_stop=lambda: False, on_error=lambda e, n: None
        )


def test_json_logs_carry_context_and_never_the_token() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("test.consumers.json")
    logger.addHandler(handler)
    logger.propagate = False
    logger.warning(
        "auth failed with Authorization: Bearer s3cr3t-T0ken", extra={"event_id": "e1", "topic": "t"}
    )
    line = json.loads(stream.getvalue())
    assert line["event_id"] == "e1" and line["topic"] == "t" and line["level"] == "WARNING"
    assert "s3cr3t" not in stream.getvalue()
    assert redact("token=abc123 other") == "token=*** other"
    assert redact("nice hand") == "nice hand"


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_ops_server_serves_metrics_liveness_and_readiness() -> None:
    registry = CollectorRegistry()
    metrics = ConsumerMetrics.create(registry)
    metrics.events_in.labels("chat.messages").inc(3)
    lanes = {"chat.messages": LaneStatus()}
    api_up = [True]
    port = free_port()
    server = serve_ops(
        host="127.0.0.1", port=port, registry=registry, readiness=Readiness(lanes, lambda: api_up[0])
    )
    try:
        base = f"http://127.0.0.1:{port}"
        status, body = fetch(f"{base}/metrics")
        assert status == 200 and 'railbird_events_in_total{topic="chat.messages"} 3.0' in body
        assert fetch(f"{base}/healthz")[0] == 200
        status, body = fetch(f"{base}/readyz")
        assert status == 503 and json.loads(body)["lanes_waiting"] == ["chat.messages"]
        lanes["chat.messages"].joined = True
        assert fetch(f"{base}/readyz")[0] == 200
        api_up[0] = False
        assert fetch(f"{base}/readyz")[0] == 503
    finally:
        server.shutdown()
