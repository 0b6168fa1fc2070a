"""`railbird consume` itself: the real command, registry and all, against the real broker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from consumers.broker import EmbeddedBroker, free_port
from pipeline.contracts import CHAT
from tests.consumers.review_api_double import TOKEN, IngestStore, serve_review_api
from tests.consumers.streaming_harness import ROOT, produce, wait_until
from tests.samples import chat_value

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(180)]


def ready(port: int) -> bool:
    try:
        return urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2).status == 200
    except OSError:
        return False


def test_railbird_consume_becomes_ready_flags_abuse_exposes_metrics_and_stops_on_sigterm(
    tmp_path: Path,
) -> None:
    store = IngestStore()
    port = free_port()
    with EmbeddedBroker(port=free_port()) as broker, serve_review_api(store) as url:
        env = {
            **os.environ,
            "RAILBIRD_KAFKA_BOOTSTRAP": broker.bootstrap,
            "RAILBIRD_API_URL": url,
            "RAILBIRD_SERVICE_TOKEN": TOKEN,
            "RAILBIRD_CONSUMER_GROUP_PREFIX": "cmd",
            "RAILBIRD_TOPIC_PARTITIONS": "2",
            "RAILBIRD_CONSUMER_SESSION_TIMEOUT_MS": "6000",
            "RAILBIRD_CONSUMER_HEARTBEAT_MS": "1000",
            "RAILBIRD_METRICS_PORT": str(port),
        }
        log = tmp_path / "consume.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "railbird.cli", "consume", "--topic", CHAT],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_until(lambda: ready(port), 120, f"/readyz; log: {log.read_text()[-2000:]}")
            produce(
                broker.bootstrap,
                CHAT,
                [
                    chat_value(event_id="cmd-1", text="kys loser"),
                    chat_value(event_id="cmd-2", text="nice hand sir"),
                ],
            )
            wait_until(
                lambda: any("cmd-1" in f["source_event_ids"] for f in store.findings.values()),
                60,
                "a finding for the abusive message",
            )
            assert not any("cmd-2" in f["source_event_ids"] for f in store.findings.values())
            metrics = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read().decode()
            assert 'railbird_events_in_total{topic="chat.messages"} 2.0' in metrics
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
        lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
        assert lines and {"ts", "level", "logger", "msg"} <= set(lines[0])
        assert TOKEN not in log.read_text()
