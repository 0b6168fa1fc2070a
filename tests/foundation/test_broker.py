"""The embedded broker speaks Kafka: topics are created with partitions and records round-trip."""

from __future__ import annotations

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient

from consumers.broker import BrokerError, EmbeddedBroker
from consumers.topics import ensure_topics, railbird_topics

pytestmark = pytest.mark.kafka


def test_ensure_topics_creates_every_topic_once(kafka_broker: EmbeddedBroker) -> None:
    topics = [f"found.{t}" for t in railbird_topics()]
    created = ensure_topics(kafka_broker.bootstrap, partitions=3, topics=topics)
    assert sorted(created) == sorted(topics)
    assert ensure_topics(kafka_broker.bootstrap, partitions=3, topics=topics) == []
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap)
    try:
        described = admin.describe_topics(topics[:1])
    finally:
        admin.close()
    assert len(described[0]["partitions"]) == 3


def test_records_round_trip_with_keys(kafka_broker: EmbeddedBroker) -> None:
    topic = "found.roundtrip"
    ensure_topics(kafka_broker.bootstrap, partitions=2, topics=[topic])
    producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap, acks="all")
    for i in range(20):
        producer.send(topic, key=f"p{i % 4}".encode(), value=f"v{i}".encode()).get(timeout=10)
    producer.close()
    consumer = KafkaConsumer(bootstrap_servers=kafka_broker.bootstrap, enable_auto_commit=False)
    parts = [TopicPartition(topic, p) for p in (0, 1)]
    consumer.assign(parts)
    consumer.seek_to_beginning(*parts)
    seen: dict[bytes, set[int]] = {}
    values = []
    for _ in range(20):
        for tp, records in consumer.poll(timeout_ms=500).items():
            for r in records:
                seen.setdefault(r.key, set()).add(tp.partition)
                values.append(r.value)
        if len(values) >= 20:
            break
    consumer.close()
    assert sorted(values) == sorted(f"v{i}".encode() for i in range(20))
    assert all(len(p) == 1 for p in seen.values()), "one key must always land in one partition"


def test_second_broker_on_a_busy_port_is_a_clear_error(kafka_broker: EmbeddedBroker) -> None:
    with pytest.raises(BrokerError, match="already in use"):
        EmbeddedBroker(port=kafka_broker.port).start()
