"""The rebuilding producer: a producer in a fatal state is replaced, and the lane's batch still goes
out (to the replacement) before its offsets are committed."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

import pytest
from kafka import TopicPartition
from kafka.errors import KafkaConnectionError, KafkaError
from prometheus_client import CollectorRegistry

from consumers.api_client import ReviewApiClient
from consumers.input_stage import InputProcessor
from consumers.lane import Lane, LaneConfig
from consumers.metrics import ConsumerMetrics
from consumers.producer import RebuildingProducer
from consumers.retry import Backoff
from consumers.topics import rekey_topic
from pipeline.contracts import CHAT
from pipeline.rules import RULES_PRESETS
from tests.consumers.detector_doubles import BurstDetector
from tests.consumers.kafka_fakes import FakeConsumer, FakeFuture, FakeProducer, step
from tests.consumers.review_api_double import TOKEN, IngestStore
from tests.samples import chat_value

RULES = next(iter(RULES_PRESETS.values()))


@dataclass
class FatalProducer(FakeProducer):
    """Once `fatal`, every send fails forever, as kafka-python's idempotent producer does after the
    broker lost its producer id."""

    fatal: bool = False
    closed: bool = False

    def send(self, topic: str, value: bytes | None = None, key: bytes | None = None,
             headers: list[tuple[str, bytes]] | None = None, partition: int | None = None,
             timestamp_ms: int | None = None) -> FakeFuture:
        if self.fatal:
            self.attempts += 1
            return FakeFuture(KafkaError("Unexpected error in InitProducerIdResponse"))
        return super().send(topic, value, key, headers, partition, timestamp_ms)

    def close(self, timeout: float | None = None) -> None:
        self.closed = True


@dataclass
class Factory:
    """Hands out producers in order; the first `unreachable` calls raise as with the broker away."""

    made: list[FatalProducer] = field(default_factory=list)
    unreachable: int = 0
    first_fatal: bool = False

    def __call__(self) -> FatalProducer:
        if self.unreachable > 0:
            self.unreachable -= 1
            raise KafkaConnectionError()
        producer = FatalProducer(fatal=self.first_fatal and not self.made)
        self.made.append(producer)
        return producer


def test_a_failed_ack_retires_the_producer_and_the_next_send_gets_a_new_one() -> None:
    factory = Factory(first_fatal=True)
    producer = RebuildingProducer(factory)
    with pytest.raises(KafkaError):
        producer.send("t", value=b"a").get()
    assert len(factory.made) == 1 and factory.made[0].closed
    producer.send("t", value=b"b").get()
    assert len(factory.made) == 2
    assert factory.made[1].on("t") == [(None, b"b", None)]
    assert producer.rebuilds == 1


def test_a_healthy_producer_is_kept() -> None:
    factory = Factory()
    producer = RebuildingProducer(factory)
    for i in range(5):
        producer.send("t", value=str(i).encode()).get()
    producer.flush()
    assert len(factory.made) == 1 and not factory.made[0].closed and producer.rebuilds == 0


def test_a_stale_failure_report_does_not_retire_the_replacement() -> None:
    factory = Factory(first_fatal=True)
    producer = RebuildingProducer(factory)
    first, second = producer.send("t", value=b"a"), producer.send("t", value=b"b")
    with pytest.raises(KafkaError):
        first.get()
    replacement = producer.send("t", value=b"c")
    with pytest.raises(KafkaError):
        second.get()  # another lane's future of the old producer fails after the replacement exists
    replacement.get()
    assert len(factory.made) == 2 and not factory.made[1].closed and producer.rebuilds == 1


def test_an_unreachable_broker_raises_until_a_producer_can_be_built() -> None:
    factory = Factory(unreachable=2)
    producer = RebuildingProducer(factory)
    producer.flush()  # nothing built yet: nothing to flush, no connection attempt
    for _ in range(2):
        with pytest.raises(KafkaConnectionError):
            producer.send("t", value=b"a")
    producer.send("t", value=b"a").get()
    assert len(factory.made) == 1


def test_lane_recovers_from_a_fatal_producer_and_commits_only_after_the_new_one_acked() -> None:
    factory = Factory(first_fatal=True)
    consumer, store = FakeConsumer(), IngestStore()
    for i in range(4):
        value = chat_value(event_id=f"e{i}", player_id=f"p{i}", table_id="t1")
        consumer.append(CHAT, 0, json.dumps(value).encode(), key=f"p{i}".encode())
    lane = Lane(
        consumer=consumer,
        producer=RebuildingProducer(factory),
        api=ReviewApiClient(base_url="http://api", token=TOKEN, timeout_s=1, transport=store.transport()),
        processor=InputProcessor(detectors={"test.burst": BurstDetector()}, rules=RULES),
        metrics=ConsumerMetrics.create(CollectorRegistry()),
        config=LaneConfig(group="g", keepalive_s=0.001, max_records=10),
        stop=threading.Event(),
        backoff=Backoff(base_s=0.001, cap_s=0.002),
    )
    consumer.listener = lane
    consumer.rebalance([TopicPartition(CHAT, 0)])
    assert step(lane) == 4
    dead, healthy = factory.made
    assert dead.fatal and dead.attempts > 0 and not dead.acked
    routed = b"".join(v or b"" for _, v, _ in healthy.on(rekey_topic(CHAT)))
    assert all(f"e{i}".encode() in routed for i in range(4)), "every route reached the new producer"
    assert consumer.committed_offsets == {TopicPartition(CHAT, 0): 4}
