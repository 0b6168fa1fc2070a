"""Late inputs of the place-keyed chat detectors are visible to operators as a gauge: the reorder
lateness bounds exactness (docs/operations.md), so exceeding it must not go unseen."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest
from kafka import TopicPartition
from prometheus_client import CollectorRegistry

from consumers.input_stage import InputProcessor
from consumers.metrics import ConsumerMetrics, count_batch
from consumers.processing import KeyedProcessor
from pipeline.contracts import CHAT
from pipeline.detector import Detector
from pipeline.detectors.chat.shouting import ShoutingMatchDetector
from tests.consumers.kafka_fakes import FakeConsumer, FakeProducer
from tests.consumers.review_api_double import IngestStore
from tests.consumers.test_consumer_rekey import REKEY, RULES, lane_for, rekey_log
from tests.samples import T0, chat_value

LATENESS = timedelta(seconds=5)


def _detectors() -> dict[str, Detector]:
    return {"chat.shouting_match": ShoutingMatchDetector(lateness=LATENESS)}


def _line(i: int, seconds: float) -> bytes:
    value = chat_value(event_id=f"e{i}", player_id=f"p{i % 2}", table_id="t1", text="WHY DO YOU CALL",
                       ts=(T0 + timedelta(seconds=seconds)).isoformat())
    return json.dumps(value).encode()


def _gauge(samples: list[tuple[str, dict[str, str], float]], kind: str) -> float | None:
    return next((v for name, labels, v in samples
                 if name == "railbird_detector_anomalies" and labels == {"detector": "chat.shouting_match", "kind": kind}),
                None)


def _run(lines: list[bytes]) -> tuple[KeyedProcessor, list[tuple[str, dict[str, str], float]]]:
    """Stage 1 routes the table's lines (keyed by player) to the re-key topic; stage 2 runs them."""
    consumer, producer = FakeConsumer(), FakeProducer()
    for raw in lines:
        consumer.append(CHAT, 0, raw, key=json.loads(raw)["player_id"].encode())
    stage1 = lane_for(consumer, InputProcessor(detectors=_detectors(), rules=RULES), IngestStore(), producer)
    consumer.rebalance([TopicPartition(CHAT, 0)])
    while stage1.step():
        pass
    keyed = KeyedProcessor(make_detectors=_detectors, rules=RULES, history=None, lookback_s=3600)
    log = rekey_log(producer)
    stage2 = lane_for(log, keyed, IngestStore(), FakeProducer())
    log.rebalance([TopicPartition(REKEY, p) for p in range(4)])
    while stage2.step():
        pass
    return keyed, [(s.name, s.labels, s.value) for m in stage2.metrics.registry.collect() for s in m.samples]


def test_a_line_later_than_the_reorder_lateness_shows_in_the_anomaly_gauge(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="railbird.consumer"):
        keyed, samples = _run([_line(0, 0), _line(1, 10), _line(2, 60), _line(3, 3)])  # e3: 57 s behind
    assert _gauge(samples, "late") == 1
    assert keyed.anomalies() == {("chat.shouting_match", "late"): 1}
    # ...and in the log, which outlives a killed process's gauge.
    assert [r.getMessage() for r in caplog.records if r.getMessage().startswith("detector anomalies")] == [
        "detector anomalies: chat.shouting_match late +1"]


def test_only_an_increase_of_an_anomaly_count_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """A rebalance rebuilds the detectors (their counts restart lower): no line for that, one for
    each later increase."""
    metrics = ConsumerMetrics.create(CollectorRegistry())
    key = ("chat.harassment", "late")
    with caplog.at_level(logging.WARNING, logger="railbird.consumer"):
        for n in (2, 2, 5, 1, 2):
            count_batch(metrics, [], {key: n})
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("detector anomalies")]
    assert logged == ["detector anomalies: chat.harassment late +2", "detector anomalies: chat.harassment late +3",
                      "detector anomalies: chat.harassment late +1"]


def test_lines_within_the_lateness_leave_the_gauge_unset() -> None:
    keyed, samples = _run([_line(0, 0), _line(1, 10), _line(2, 8), _line(3, 12)])  # e2: 2 s behind
    assert _gauge(samples, "late") is None
    assert keyed.anomalies() == {}
