"""The lane's per-batch contract against a hand-written fake consumer, producer and API."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping

import pytest
from kafka import TopicPartition
from prometheus_client import CollectorRegistry

from consumers.api_client import ReviewApiClient
from consumers.input_stage import InputProcessor
from consumers.lane import Lane, LaneConfig
from consumers.metrics import ConsumerMetrics
from consumers.retry import Backoff
from pipeline.contracts import CHAT, DeadLetter, Event, decode
from pipeline.detector import Detector
from pipeline.rules import RULES_PRESETS
from tests.consumers.detector_doubles import ExplodingDetector, WordDetector
from tests.consumers.kafka_fakes import FakeConsumer, FakeProducer, step
from tests.consumers.review_api_double import TOKEN, IngestStore
from tests.samples import chat_value

RULES = next(iter(RULES_PRESETS.values()))
TP0 = TopicPartition(CHAT, 0)


def chat_bytes(event_id: str, text: str, **kw: object) -> bytes:
    return json.dumps(chat_value(event_id=event_id, text=text, **kw)).encode()


def make_lane(
    consumer: FakeConsumer,
    store: IngestStore,
    *,
    detectors: Mapping[str, Detector] | None = None,
    producer: FakeProducer | None = None,
    batch_size: int = 1000,
    overlap: bool = True,
) -> tuple[Lane, FakeProducer, CollectorRegistry]:
    registry = CollectorRegistry()
    dets = detectors if detectors is not None else {"test.word": WordDetector()}
    lane = Lane(
        consumer=consumer,
        producer=producer or FakeProducer(),
        api=ReviewApiClient(
            base_url="http://api",
            token=TOKEN,
            timeout_s=1,
            batch_size=batch_size,
            transport=store.transport(),
        ),
        processor=InputProcessor(detectors=dets, rules=RULES),
        metrics=ConsumerMetrics.create(registry),
        config=LaneConfig(group="g", keepalive_s=0.001, overlap_writes=overlap),
        stop=threading.Event(),
        backoff=Backoff(base_s=0.001, cap_s=0.004),
    )
    consumer.listener = lane
    consumer.rebalance([TP0])
    return lane, lane.producer, registry  # type: ignore[return-value]


@pytest.mark.parametrize("overlap", [True, False])
def test_findings_are_written_before_the_offsets_are_committed(overlap: bool) -> None:
    consumer, store = FakeConsumer(), IngestStore()
    consumer.append(CHAT, 0, chat_bytes("e1", "gg"))
    consumer.append(CHAT, 0, chat_bytes("e2", "kys noob"))
    consumer.append(CHAT, 0, chat_bytes("e3", "nice hand"))
    lane, _, registry = make_lane(consumer, store, overlap=overlap)
    assert step(lane) == 3
    assert [f["source_event_ids"] for f in store.findings.values()] == [["e2"]]
    assert consumer.commits == [{TP0: 3}]
    assert registry.get_sample_value("railbird_findings_total", {"detector": "test.word"}) == 1
    assert registry.get_sample_value("railbird_events_in_total", {"topic": CHAT}) == 3
    assert registry.get_sample_value("railbird_consumer_lag", {"topic": CHAT, "partition": "0"}) == 0


def test_malformed_records_go_to_the_dlq_with_the_reason_and_the_lane_keeps_going() -> None:
    consumer, store = FakeConsumer(), IngestStore()
    consumer.append(CHAT, 0, b"{not json", key=b"p1")
    consumer.append(CHAT, 0, chat_bytes("e2", "kys", channel="private"))  # private needs recipient_id
    consumer.append(CHAT, 0, chat_bytes("e3", "kys"))
    lane, producer, registry = make_lane(consumer, store)
    step(lane)
    letters = [DeadLetter.model_validate_json(v or b"") for _, v, _ in producer.on("chat.messages.dlq")]
    assert [(d.offset, d.error_kind) for d in letters] == [(0, "not_json"), (1, "invalid")]
    assert letters[0].original_value() == b"{not json" and letters[0].key_b64 == "cDE="
    assert "recipient_id" in letters[1].error
    assert list(store.findings) and consumer.commits == [{TP0: 3}]
    assert (
        registry.get_sample_value("railbird_dead_letters_total", {"topic": CHAT, "reason": "not_json"}) == 1
    )


@pytest.mark.parametrize("overlap", [True, False])
def test_no_commit_until_the_dead_letter_is_acknowledged(overlap: bool) -> None:
    consumer, store = FakeConsumer(), IngestStore()
    consumer.append(CHAT, 0, b"\xff\xfe")
    producer = FakeProducer(fail_next=2)
    lane, _, _ = make_lane(consumer, store, producer=producer, overlap=overlap)
    step(lane)
    assert producer.attempts == 3 and len(producer.on("chat.messages.dlq")) == 1
    assert consumer.commits == [{TP0: 1}]


@pytest.mark.parametrize("overlap", [True, False])
def test_api_outage_is_retried_with_partitions_paused_and_nothing_committed_meanwhile(overlap: bool) -> None:
    consumer, store = FakeConsumer(), IngestStore()
    for i in range(5):
        consumer.append(CHAT, 0, chat_bytes(f"e{i}", "kys"))
    store.unavailable = 3
    lane, _, registry = make_lane(consumer, store, overlap=overlap)
    commits_seen_during_outage: list[int] = []
    original = store.ingest

    def spy(body: object, auth: str | None) -> tuple[int, dict[str, object]]:
        commits_seen_during_outage.append(len(consumer.commits))
        time.sleep(0.01)  # a slow API: the lane's thread must keep polling (paused) meanwhile
        return original(body, auth)

    store.ingest = spy  # type: ignore[method-assign]
    step(lane)
    assert commits_seen_during_outage == [0, 0, 0, 0]
    assert store.statuses[503] == 3 and store.statuses[200] == 1
    assert consumer.paused_polls >= 3, "the lane must keep polling (paused) while it waits"
    assert consumer.paused() == set(), "partitions are resumed after the outage"
    assert len(store.findings) == 5 and max(store.deliveries.values()) == 1
    assert consumer.commits == [{TP0: 5}]
    assert registry.get_sample_value("railbird_api_write_errors_total", {"kind": "unavailable"}) == 3


@pytest.mark.parametrize("overlap", [True, False])
def test_a_rejected_finding_is_bisected_out_and_only_its_record_dead_lettered(overlap: bool) -> None:
    consumer, store = FakeConsumer(), IngestStore()
    for i in range(8):
        consumer.append(CHAT, 0, chat_bytes(f"e{i}", "kys"))
    lane, producer, _ = make_lane(consumer, store, overlap=overlap)
    bad = WordDetector().process(json_event("e5"))[0].finding_id
    store.reject_ids = {bad}
    step(lane)
    assert len(store.findings) == 7 and bad not in store.findings
    letters = [DeadLetter.model_validate_json(v or b"") for _, v, _ in producer.on("chat.messages.dlq")]
    assert [(d.offset, d.error_kind) for d in letters] == [(5, "processing")]
    assert "violates a database constraint" in letters[0].error
    assert store.requests <= 1 + 2 * 3, "bisection costs O(log n) requests"
    assert consumer.commits == [{TP0: 8}]


def test_batches_above_the_api_limit_are_split() -> None:
    consumer, store = FakeConsumer(), IngestStore()
    for i in range(7):
        consumer.append(CHAT, 0, chat_bytes(f"e{i}", "kys"))
    lane, _, _ = make_lane(consumer, store, batch_size=3)
    step(lane)
    assert store.requests == 3 and len(store.findings) == 7


def test_a_record_every_detector_raises_on_is_dead_lettered_others_are_not() -> None:
    consumer, store = FakeConsumer(), IngestStore()
    consumer.append(CHAT, 0, chat_bytes("e1", "boom"))
    consumer.append(CHAT, 0, chat_bytes("e2", "fine"))
    lane, producer, registry = make_lane(consumer, store, detectors={"test.exploding": ExplodingDetector()})
    step(lane)
    letters = [DeadLetter.model_validate_json(v or b"") for _, v, _ in producer.on("chat.messages.dlq")]
    assert [(d.offset, d.error_kind) for d in letters] == [(0, "processing")]
    assert "detector bug" in letters[0].error
    assert registry.get_sample_value("railbird_detector_errors_total", {"detector": "test.exploding"}) == 1


def test_one_failing_detector_does_not_dead_letter_the_record() -> None:
    consumer, store = FakeConsumer(), IngestStore()
    consumer.append(CHAT, 0, chat_bytes("e1", "kys boom"))
    dets: dict[str, Detector] = {"test.exploding": ExplodingDetector(), "test.word": WordDetector()}
    lane, producer, _ = make_lane(consumer, store, detectors=dets)
    step(lane)
    assert producer.on("chat.messages.dlq") == [] and len(store.findings) == 1


def test_stop_finishes_the_batch_in_hand_commits_and_closes() -> None:
    consumer, store = FakeConsumer(), IngestStore()
    for i in range(4):
        consumer.append(CHAT, 0, chat_bytes(f"e{i}", "kys"))
    lane, _, _ = make_lane(consumer, store)
    original = store.ingest

    def stop_on_write(body: object, auth: str | None) -> tuple[int, dict[str, object]]:
        lane.stop.set()  # SIGTERM arrives while the batch is being written
        return original(body, auth)

    store.ingest = stop_on_write  # type: ignore[method-assign]
    lane.run()
    assert len(store.findings) == 4 and consumer.commits == [{TP0: 4}] and consumer.closed


def test_stop_during_an_outage_exits_without_committing() -> None:
    consumer, store = FakeConsumer(), IngestStore()
    consumer.append(CHAT, 0, chat_bytes("e1", "kys"))
    store.unavailable = -1
    lane, _, _ = make_lane(consumer, store)
    threading.Timer(0.05, lane.stop.set).start()
    lane.run()
    assert consumer.commits == [] and consumer.closed and store.statuses[503] >= 1


def test_wrong_token_is_retried_not_dead_lettered() -> None:
    consumer, store = FakeConsumer(), IngestStore(token="other")
    consumer.append(CHAT, 0, chat_bytes("e1", "kys"))
    lane, producer, registry = make_lane(consumer, store)
    threading.Timer(0.05, lane.stop.set).start()
    lane.run()
    assert producer.on("chat.messages.dlq") == [] and consumer.commits == []
    assert (registry.get_sample_value("railbird_api_write_errors_total", {"kind": "auth"}) or 0) >= 1


def json_event(event_id: str) -> Event:
    return decode(CHAT, chat_bytes(event_id, "kys"))
