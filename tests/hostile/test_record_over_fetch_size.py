"""A record larger than the consumer's fetch size (kafka-python's `max_partition_fetch_bytes`,
1 MiB) through a real `railbird consume` process: it is dead-lettered as `oversized` with a
prefix and its digest, and the record after it in the same partition is processed. Brokers since
KIP-74 return the first batch of a partition even when it exceeds the fetch size, so the consumer
must meet it rather than stall on it."""

from __future__ import annotations

import base64
import json

import pytest
from kafka import KafkaProducer

from consumers.deadletters import DLQ_VALUE_LIMIT
from pipeline.contracts import CHAT, dlq_topic
from tests.faults.rig import Rig, wait_until
from tests.samples import chat_value

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

FETCH_SIZE = 1024 * 1024
"""kafka-python's default `max_partition_fetch_bytes`, which the consumers keep."""


def test_a_record_larger_than_the_fetch_size_is_dead_lettered_and_the_next_one_processed(rig: Rig) -> None:
    huge = json.dumps(chat_value(event_id="evt-huge", text="y" * (3 * FETCH_SIZE))).encode()
    after = json.dumps(chat_value(event_id="evt-after", player_id="p-after", text="you are a stupid idiot")).encode()
    assert len(huge) > 3 * FETCH_SIZE
    slot = rig.start_consumer()
    producer = KafkaProducer(bootstrap_servers=rig.broker.bootstrap, acks="all",
                             max_request_size=8 * FETCH_SIZE)
    try:
        # One key: both records land in one partition, the huge one first.
        producer.send(CHAT, key=b"p-huge", value=huge).get(timeout=30)
        producer.send(CHAT, key=b"p-huge", value=after).get(timeout=30)
    finally:
        producer.close(10)

    wait_until(lambda: bool(rig.crashed()) or rig.committed_total(CHAT) >= 2, timeout_s=120,
               what="both records committed", every_s=0.5)
    assert not rig.crashed(), "the consumer did not crash"
    assert rig.consumers[slot] is not None and rig.consumers[slot].poll() is None

    letters = [json.loads(r.value) for r in rig.read_topic(dlq_topic(CHAT))]
    assert [d["error_kind"] for d in letters] == ["oversized"]
    (letter,) = letters
    assert "limit" in letter["error"] and "sha256" in letter["error"]
    assert base64.b64decode(letter["value_b64"]) == huge[:DLQ_VALUE_LIMIT]
    assert letter["offset"] == 0
    # The record behind it was decoded and run through the detectors: its insult is on record.
    wait_until(lambda: bool(rig.db_rows("SELECT 1 FROM findings WHERE subject_id = 'p-after'")), timeout_s=30,
               what="the next record's finding")
    assert {r[0] for r in rig.db_rows("SELECT category FROM findings WHERE subject_id = 'p-after'")} == {"insult"}
