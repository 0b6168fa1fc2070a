"""Undecodable batches (issue 21, 3), against fakes: the partition pauses with a metric, a log line
and a /readyz entry, every other partition goes on, and a skip request dead-letters the range,
commits past it and resumes. Nothing raised by `poll()` stops the lane."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest
from kafka import TopicPartition
from kafka.errors import UnsupportedCodecError

from consumers.health import Readiness
from consumers.poison import SkipBook, SkipFeed, SkipRequest
from pipeline.contracts import CHAT, DeadLetter
from tests.consumers.kafka_fakes import FakeConsumer, FakeRecord, step
from tests.consumers.review_api_double import IngestStore
from tests.consumers.test_consumer_lane import chat_bytes, make_lane

TP0, TP1 = TopicPartition(CHAT, 0), TopicPartition(CHAT, 1)


@dataclass
class PoisonedConsumer(FakeConsumer):
    """kafka-python's behaviour on a batch it cannot decode: every poll raises while a partition
    whose position is inside the batch is fetchable (paused ones are not fetched)."""

    poison: dict[TopicPartition, range] = field(default_factory=dict)
    raised: int = 0

    def poll(self, timeout_ms: int = 0, max_records: int | None = None,
             update_offsets: bool = True) -> dict[TopicPartition, list[FakeRecord]]:
        self._apply_rebalance()
        for tp, bad in self.poison.items():
            if tp in self.assigned and tp not in self.paused_set and self.positions.get(tp, 0) in bad:
                self.raised += 1
                raise UnsupportedCodecError("Libraries for snappy compression codec not found")
        out = super().poll(timeout_ms, max_records, update_offsets)
        for tp, bad in self.poison.items():  # stop in front of the batch, as a fetch would
            if tp in out:
                start = out[tp][0].offset
                out[tp] = [r for r in out[tp] if r.offset < bad.start or start >= bad.stop]
                self.positions[tp] = out[tp][-1].offset + 1 if out[tp] else start
                if not out[tp]:
                    del out[tp]
        return out


@dataclass
class FakeProbe:
    """Answers like `KafkaBatchProbe` from the consumer's poison map."""

    consumer: PoisonedConsumer
    asked: list[dict[TopicPartition, int]] = field(default_factory=list)

    def failing(self, positions: Mapping[TopicPartition, int]) -> dict[TopicPartition, str]:
        self.asked.append(dict(positions))
        return {tp: "UnsupportedCodecError: snappy" for tp, o in positions.items()
                if o in self.consumer.poison.get(tp, range(0))}


def poisoned_lane(probe_finds: bool = True) -> tuple[PoisonedConsumer, IngestStore, object, object, FakeProbe]:
    consumer, store = PoisonedConsumer(), IngestStore()
    for i in range(6):  # partition 0: e0, e1, then a bad batch at offsets 2-4, then e5
        consumer.append(CHAT, 0, chat_bytes(f"e{i}", "kys"))
    for i in range(3):
        consumer.append(CHAT, 1, chat_bytes(f"f{i}", "kys"))
    consumer.poison = {TP0: range(2, 5)}
    lane, producer, registry = make_lane(consumer, store, overlap=False)
    probe = FakeProbe(consumer)
    if probe_finds:
        lane.probe = probe
        lane._guard.probe = probe
    consumer.rebalance([TP0, TP1])
    return consumer, store, lane, (producer, registry), probe


def finding_events(store: IngestStore) -> set[str]:
    return {e for f in store.findings.values() for e in f["source_event_ids"]}


def test_an_undecodable_batch_pauses_its_partition_and_the_others_go_on(caplog: pytest.LogCaptureFixture) -> None:
    consumer, store, lane, (_, registry), probe = poisoned_lane()
    with caplog.at_level(logging.ERROR, logger="railbird.consumer"):
        for _ in range(6):
            step(lane)  # type: ignore[arg-type]
    assert finding_events(store) == {"e0", "e1", "f0", "f1", "f2"}
    assert consumer.committed_offsets == {TP0: 2, TP1: 3}
    assert TP0 in consumer.paused() and TP1 not in consumer.paused()
    assert consumer.raised == 1, "paused at once: kafka-python is never polled with it fetchable again"
    assert probe.asked[-1] == {TP0: 2, TP1: 3}
    assert registry.get_sample_value("railbird_partition_blocked", {"topic": CHAT, "partition": "0"}) == 1  # type: ignore[attr-defined]
    assert registry.get_sample_value("railbird_undecodable_batches_total", {"topic": CHAT}) == 1  # type: ignore[attr-defined]
    line = next(r for r in caplog.records if r.getMessage().startswith("undecodable batch"))
    assert (line.topic, line.partition, line.offset) == (CHAT, 0, 2)  # type: ignore[attr-defined]
    assert "railbird skip --topic chat.messages --partition 0 --offset 2" in line.getMessage()
    ready, detail = Readiness({"chat": lane.status}, lambda: True).report()  # type: ignore[attr-defined]
    assert ready and detail["blocked"] == {"chat.messages/0": "offset 2: UnsupportedCodecError: snappy"}


def test_a_skip_request_dead_letters_the_range_commits_past_it_and_resumes() -> None:
    consumer, store, lane, (producer, registry), _ = poisoned_lane()
    for _ in range(3):
        step(lane)  # type: ignore[arg-type]
    assert "e5" not in finding_events(store)
    lane.skips.add(SkipRequest(topic=CHAT, partition=0, from_offset=2, to_offset=5, reason="snappy batch",  # type: ignore[attr-defined]
                               requested_at=datetime.now(UTC)))
    for _ in range(3):
        step(lane)  # type: ignore[arg-type]
    letters = [DeadLetter.model_validate_json(v or b"") for _, v, _ in producer.on("chat.messages.dlq")]  # type: ignore[attr-defined]
    assert [(d.offset, d.error_kind, d.value_b64, d.key_b64) for d in letters] == [
        (o, "undecodable", "", None) for o in (2, 3, 4)]
    assert all("snappy batch" in d.error and "UnsupportedCodecError" in d.error for d in letters)
    assert "e5" in finding_events(store), "the partition resumed after the range"
    assert consumer.committed_offsets[TP0] == 6
    assert {TP0: 5} in consumer.commits, "the skip itself was committed once the dead letters were acked"
    assert TP0 not in consumer.paused()
    assert registry.get_sample_value("railbird_partition_blocked", {"topic": CHAT, "partition": "0"}) == 0  # type: ignore[attr-defined]
    assert lane.status.blocked == {}  # type: ignore[attr-defined]


def test_a_request_for_another_range_does_not_unblock() -> None:
    consumer, _, lane, (producer, _), _ = poisoned_lane()
    lane.skips.add(SkipRequest(topic=CHAT, partition=0, from_offset=3, to_offset=5, reason="r",  # type: ignore[attr-defined]
                               requested_at=datetime.now(UTC)))
    for _ in range(4):
        step(lane)  # type: ignore[arg-type]
    assert TP0 in consumer.paused() and producer.on("chat.messages.dlq") == []  # type: ignore[attr-defined]
    assert consumer.committed_offsets[TP0] == 2


def test_an_error_no_partition_reproduces_is_retried_and_never_stops_the_lane(caplog: pytest.LogCaptureFixture) -> None:
    consumer, store, lane, _, _ = poisoned_lane(probe_finds=False)  # the default probe finds nothing
    with caplog.at_level(logging.ERROR, logger="railbird.consumer"):
        for _ in range(3):
            step(lane)  # type: ignore[arg-type]
        consumer.poison = {}  # the cause went away (it was not in the data)
        for _ in range(3):
            step(lane)  # type: ignore[arg-type]
    assert finding_events(store) == {f"e{i}" for i in range(6)} | {"f0", "f1", "f2"}
    assert consumer.paused() == set()
    assert any("no partition's data reproduces it" in r.getMessage() for r in caplog.records)


def test_skip_requests_round_trip_as_json() -> None:
    request = SkipRequest(topic=CHAT, partition=3, from_offset=10, to_offset=12, reason="crc",
                          requested_at=datetime(2026, 12, 1, tzinfo=UTC))
    again = SkipRequest.model_validate_json(json.dumps(json.loads(request.model_dump_json())))
    assert again == request and again.covers(TopicPartition(CHAT, 3), 11)
    assert not again.covers(TopicPartition(CHAT, 3), 12) and not again.covers(TopicPartition(CHAT, 2), 11)


def test_the_control_feed_ignores_an_unreadable_request_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    book = SkipBook()
    feed = SkipFeed(bootstrap="unused:9092", topic="railbird.control", book=book)
    good = SkipRequest(topic=CHAT, partition=0, from_offset=2, to_offset=5, reason="r", requested_at=datetime.now(UTC))
    with caplog.at_level(logging.WARNING, logger="railbird.consumer"):
        feed._read(b"{not json", 7)
        feed._read(json.dumps({"topic": CHAT, "partition": -1}).encode(), 8)
        feed._read(good.model_dump_json().encode(), 9)
    assert [r.offset for r in caplog.records if "unreadable skip request" in r.getMessage()] == [7, 8]  # type: ignore[attr-defined]
    assert book.covering(TP0, 3) == good and book.covering(TP0, 5) is None
