"""The Kafka sink against the embedded broker: every event arrives, keyed as designed, decodable."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from kafka import KafkaConsumer, TopicPartition

from consumers.broker import EmbeddedBroker
from consumers.topics import ensure_topics
from pipeline.contracts import INPUT_TOPICS, decode
from railbird.cli import main
from simulator.config import RoomConfig
from simulator.room import Room
from simulator.sinks import kafka_key, kafka_sink


@pytest.mark.kafka
def test_kafka_sink_delivers_every_event_with_its_key(kafka_broker: EmbeddedBroker) -> None:
    prefix = f"sim{uuid.uuid4().hex[:8]}."
    topics = [prefix + t for t in INPUT_TOPICS]
    ensure_topics(kafka_broker.bootstrap, partitions=2, topics=topics)
    room = Room(RoomConfig.for_profile("demo", seed=4, minutes=1.5, players=80))
    sent = list(room.events())
    sink = kafka_sink(kafka_broker.bootstrap, topic_prefix=prefix)
    for topic, event in sent:
        sink.write(topic, event)
    sink.close()
    consumer = KafkaConsumer(bootstrap_servers=kafka_broker.bootstrap, enable_auto_commit=False,
                             consumer_timeout_ms=5000)
    parts = [TopicPartition(t, p) for t in topics for p in range(2)]
    consumer.assign(parts)
    consumer.seek_to_beginning(*parts)
    received = {}
    for record in consumer:
        topic = record.topic.removeprefix(prefix)
        event = decode(topic, record.value)
        assert record.key == kafka_key(topic, event)
        received[event.event_id] = topic
        if len(received) == len(sent):
            break
    consumer.close()
    assert received == {event.event_id: topic for topic, event in sent}


@pytest.mark.kafka
def test_simulate_command_produces_to_the_broker(kafka_broker: EmbeddedBroker, tmp_path: Path) -> None:
    ensure_topics(kafka_broker.bootstrap, partitions=2, topics=list(INPUT_TOPICS))
    summary = tmp_path / "summary.json"
    code = main(["simulate", "--bootstrap", kafka_broker.bootstrap, "--profile", "demo", "--minutes", "1",
                 "--players", "60", "--rate", "0", "--summary", str(summary)])
    assert code == 0
    result = json.loads(summary.read_text())
    assert result["sent"] == sum(result["events"].values()) > 50
