"""Outbox relay: publishes only acknowledged events, retries failures, and reaches a real broker."""

from __future__ import annotations

import json
import time
import uuid

import pytest
from api_factories import T0, batch, chat_finding
from api_support import SERVICE_TOKEN
from kafka.errors import KafkaError, KafkaTimeoutError
from sqlalchemy import select

from api.db import make_sessions
from api.outbox.models import OutboxEvent
from api.outbox.relay import Relay, kafka_producer

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


class FakeFuture:
    def __init__(self, error: Exception | None) -> None:
        self.error = error

    def get(self, timeout=None):
        if self.error:
            raise self.error
        return "ok"


class FlakyProducer:
    """Fails the first `failures` sends, then acknowledges; records what was acknowledged."""

    def __init__(self, failures: int) -> None:
        self.failures, self.acked = failures, []

    def send(self, topic, value=None, key=None, headers=None):
        if self.failures > 0:
            self.failures -= 1
            return FakeFuture(KafkaTimeoutError("no ack"))
        self.acked.append((topic, key, value))
        return FakeFuture(None)

    def flush(self, timeout=None):
        pass

    def close(self, timeout=None):
        pass


def _published(engine) -> list[OutboxEvent]:
    with make_sessions(engine)() as s:
        return list(s.scalars(select(OutboxEvent).order_by(OutboxEvent.seq)))


def test_relay_marks_only_acknowledged_events_and_retries(client, engine, clock):
    clock.now = T0
    client.post("/v1/findings/batch", json=batch(chat_finding(1, automatic=True, kind="chat_mute"),
                                                 chat_finding(2, player="p-b", automatic=True, kind="chat_mute")),
                headers=SVC)
    producer = FlakyProducer(failures=1)
    relay = Relay(sessions=make_sessions(engine), producer_factory=lambda: producer, topic="t", interval_s=0.01)
    with pytest.raises(KafkaError, match="1 events not acknowledged"):
        relay.run_once()
    rows = _published(engine)
    assert [r.published_at is None for r in rows] == [True, False]  # first failed, second acked
    assert rows[0].attempts == 1 and "no ack" in rows[0].last_error
    assert relay.run_once() == 1
    assert all(r.published_at is not None for r in _published(engine))
    keys = [k for _, k, _ in producer.acked]
    assert sorted(keys) == [b"p-alice", b"p-b"]
    assert relay.run_once() == 0


def test_relay_thread_backs_off_and_recovers(client, engine, clock):
    clock.now = T0
    client.post("/v1/findings/batch", json=batch(chat_finding(1, automatic=True, kind="chat_mute")), headers=SVC)
    calls = {"n": 0}
    producer = FlakyProducer(failures=0)

    def factory():
        calls["n"] += 1
        if calls["n"] < 3:
            raise KafkaTimeoutError("broker down")
        return producer

    relay = Relay(sessions=make_sessions(engine), producer_factory=factory, topic="t", interval_s=0.01)
    relay.start()
    deadline = time.monotonic() + 10
    while not producer.acked and time.monotonic() < deadline:
        time.sleep(0.02)
    relay.stop()
    assert calls["n"] == 3 and len(producer.acked) == 1


@pytest.mark.kafka
def test_confirmed_sanction_reaches_the_broker(client, users, engine, clock, kafka_broker):
    from kafka import KafkaConsumer

    from consumers.topics import ensure_topics

    topic = f"enforcement.events.{uuid.uuid4().hex[:8]}"
    broker = kafka_broker
    ensure_topics(broker.bootstrap, partitions=2, topics=[topic])
    relay = Relay(sessions=make_sessions(engine), producer_factory=lambda: kafka_producer(broker.bootstrap),
                  topic=topic, interval_s=0.05)
    relay.start()
    try:
        case_id = client.post("/v1/findings/batch", json=batch(chat_finding(1)), headers=SVC).json()["case_ids"][0]
        mod = users.headers("moderator")
        client.post(f"/v1/cases/{case_id}/claim", headers=mod)
        r = client.post(f"/v1/cases/{case_id}/decisions",
                        json={"kind": "confirm", "reason": "insult", "apply": True}, headers=mod)
        sanction_id = r.json()["sanctions"][0]["id"]
        consumer = KafkaConsumer(topic, bootstrap_servers=broker.bootstrap, auto_offset_reset="earliest",
                                 group_id=f"g-{uuid.uuid4().hex[:6]}", session_timeout_ms=6000,
                                 heartbeat_interval_ms=1000, consumer_timeout_ms=20000)
        record = next(iter(consumer))
        consumer.close()
    finally:
        relay.stop()
    event = json.loads(record.value)
    assert record.key == b"p-alice"
    assert event["type"] == "railbird.enforcement.chat_ban" and event["data"]["action_id"] == sanction_id
    assert event["data"]["case_id"] == case_id
    deadline = time.monotonic() + 5
    while _published(engine)[0].published_at is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _published(engine)[0].published_at is not None




@pytest.mark.kafka
def test_the_api_command_relay_creates_its_topic_and_publishes(client, engine, clock):
    from kafka import KafkaConsumer

    from consumers.broker import EmbeddedBroker, free_port
    from pipeline.contracts import ENFORCEMENT
    from railbird.commands.api import relay_factory
    from railbird.settings import Settings

    clock.now = T0
    client.post("/v1/findings/batch", json=batch(chat_finding(1, automatic=True, kind="chat_mute")), headers=SVC)
    # A broker of its own: this publishes to the real topic name, which other tests may be reading.
    with EmbeddedBroker(port=free_port()) as broker:
        settings = Settings(env="test", kafka_bootstrap=broker.bootstrap, topic_partitions=1)
        relay = relay_factory(settings)(make_sessions(engine))
        assert relay.run_once() == 1
        relay.stop()
        consumer = KafkaConsumer(ENFORCEMENT, bootstrap_servers=broker.bootstrap, auto_offset_reset="earliest",
                                 group_id="g-cmd", session_timeout_ms=6000, heartbeat_interval_ms=1000,
                                 consumer_timeout_ms=20_000)
        record = next(iter(consumer))
        consumer.close()
    assert json.loads(record.value)["type"] == "railbird.enforcement.chat_mute"
