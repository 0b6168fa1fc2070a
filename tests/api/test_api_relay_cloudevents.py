"""enforcement.events as a game server reads them: a librdkafka consumer (confluent-kafka, by
`assign`) and the official CloudEvents SDK's Kafka protocol binding (issue 21, 2 and 4).

Structured content mode: the `content-type: application/cloudevents+json` header and the whole
event as the JSON value; the key is the sanctioned player, so one player's events share a
partition in publishing order (a sanction before its revocation)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from api_factories import T0, batch, chat_finding
from api_support import SERVICE_TOKEN
from cloudevents.core.bindings.kafka import KafkaMessage, from_kafka, from_structured
from cloudevents.core.formats.json import JSONFormat
from cloudevents.core.v1.event import CloudEvent

from api.db import make_sessions
from api.outbox.relay import Relay, kafka_producer
from consumers.topics import ensure_topics
from tests.clients import game_server

SVC = {"Authorization": f"Bearer {SERVICE_TOKEN}"}


@pytest.mark.kafka
@pytest.mark.parametrize("codec", ["gzip", None])
def test_a_librdkafka_game_server_reads_sanctions_and_revocations_as_cloudevents(
    client, users, engine, clock, kafka_broker, codec
):
    clock.now = T0 + timedelta(minutes=1)
    sids = {}
    for n, player in enumerate(["p-alice", "p-bob", "p-carol"]):
        f = chat_finding(n, player=player, automatic=True, kind="chat_mute")
        sids[player] = client.post("/v1/findings/batch", json=batch(f), headers=SVC).json()["sanction_ids"][0]
    revoked = client.post(f"/v1/sanctions/{sids['p-bob']}/revoke", json={"reason": "false positive"},
                          headers=users.headers("moderator"))
    assert revoked.status_code == 200
    topic = f"enforcement.events.{uuid.uuid4().hex[:8]}"
    ensure_topics(kafka_broker.bootstrap, partitions=4, topics=[topic])
    relay = Relay(sessions=make_sessions(engine), producer_factory=lambda: kafka_producer(kafka_broker.bootstrap, codec),
                  topic=topic)
    try:
        assert relay.run_once() == 4
    finally:
        relay.stop()

    messages = game_server.read(kafka_broker.bootstrap, topic, 4, expect=4)
    assert len(messages) == 4
    events: list[tuple[int, int, CloudEvent]] = []
    for m in messages:
        headers = {k: v for k, v in (m.headers() or [])}
        assert headers["content-type"] == b"application/cloudevents+json"
        assert not any(k.startswith("ce_") for k in headers), "structured mode: no binary-mode headers"
        message = KafkaMessage(headers=headers, key=m.key(), value=m.value())
        event = from_kafka(message, JSONFormat())
        assert isinstance(event, CloudEvent)
        assert from_structured(message, JSONFormat(), CloudEvent).get_id() == event.get_id()
        assert event.get_specversion() == "1.0" and event.get_source() == "urn:railbird:enforcement"
        data = event.get_data()
        assert isinstance(data, dict)
        assert m.key() == data["player_id"].encode() == event.get_subject().encode(), "key = the player"
        assert event.get_extension("partitionkey") == data["player_id"]  # the SDK maps the key
        events.append((m.partition(), m.offset(), event))

    by_player = {}
    for partition, _offset, event in sorted(events, key=lambda t: (t[0], t[1])):
        by_player.setdefault(event.get_subject(), []).append((partition, event.get_type(), event.get_data()["action_id"]))
    assert {p: [t for _, t, _ in v] for p, v in by_player.items()} == {
        "p-alice": ["railbird.enforcement.chat_mute"],
        "p-bob": ["railbird.enforcement.chat_mute", "railbird.enforcement.chat_mute.revoked"],
        "p-carol": ["railbird.enforcement.chat_mute"],
    }
    bob = by_player["p-bob"]
    assert bob[0][0] == bob[1][0], "one player's events share a partition, in order"
    assert {a for _, _, a in bob} == {sids["p-bob"]}
    assert len({e.get_id() for _, _, e in events}) == 4
