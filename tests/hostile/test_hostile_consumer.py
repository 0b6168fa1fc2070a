"""10,000 hostile records through a real `railbird consume --all` process on the real broker:
every record the contract refuses is dead-lettered with a reason, every valid one is processed,
and the process never crashes."""

from __future__ import annotations

import base64
import json
from collections import Counter

import pytest
from kafka import KafkaProducer

from consumers.deadletters import DLQ_VALUE_LIMIT
from pipeline.contracts import INPUT_TOPICS, DecodeError, decode, dlq_topic
from tests.faults.rig import Rig, wait_until
from tests.hostile.hostile_records import hostile_records, mutations

pytestmark = [pytest.mark.kafka, pytest.mark.slow]

TOTAL = 10_000


def corpus() -> list[tuple[str, bytes]]:
    """The fixed corpus plus random mutations, TOTAL records over the four input topics."""
    records = [(t, raw) for t in sorted(INPUT_TOPICS) for raw in hostile_records(t)]
    per_topic = (TOTAL - len(records)) // len(INPUT_TOPICS)
    for k, topic in enumerate(sorted(INPUT_TOPICS)):
        extra = per_topic if k else TOTAL - len(records) - per_topic * (len(INPUT_TOPICS) - 1)
        records.extend((topic, raw) for raw in mutations(topic, extra, seed=k))
    return records


def refused(topic: str, raw: bytes) -> bool:
    """True when the contract refuses the record (the offline verdict)."""
    try:
        decode(topic, raw)
    except DecodeError:
        return True
    return False


def test_ten_thousand_hostile_records_are_dead_lettered_or_processed(rig: Rig) -> None:
    records = corpus()
    assert len(records) == TOTAL
    verdicts = Counter((t, refused(t, raw)) for t, raw in records)
    slot = rig.start_consumer(topics=("--all",))
    producer = KafkaProducer(bootstrap_servers=rig.broker.bootstrap, acks="all", linger_ms=5,
                             max_request_size=4 * 1024 * 1024)
    try:
        for topic, raw in records:
            producer.send(topic, key=b"hostile", value=raw)
        producer.flush(60)
    finally:
        producer.close(10)

    for topic in INPUT_TOPICS:
        n = sum(1 for t, _ in records if t == topic)
        wait_until(lambda t=topic, n=n: rig.crashed() or rig.committed_total(t) >= n, timeout_s=240,
                   what=f"{n} records of {topic} committed", every_s=1.0)
    assert not rig.crashed(), "the consumer never crashed"
    assert rig.consumers[slot] is not None and rig.consumers[slot].poll() is None

    for topic in INPUT_TOPICS:
        letters = [json.loads(r.value) for r in rig.read_topic(dlq_topic(topic))]
        by_kind = Counter(d["error_kind"] for d in letters)
        assert all(d["error"] and d["topic"] == topic for d in letters), "every dead letter has a reason"
        contract = [d for d in letters if d["error_kind"] != "processing"]
        assert len({(d["partition"], d["offset"]) for d in contract}) == verdicts[(topic, True)], by_kind
        dead_values = Counter(base64.b64decode(d["value_b64"]) for d in contract)
        refused_values = Counter(raw[:DLQ_VALUE_LIMIT] for t, raw in records if t == topic and refused(t, raw))
        assert dead_values == refused_values, "exactly the refused records, byte for byte (oversized: a prefix)"
        assert all("sha256" in d["error"] for d in contract if len(base64.b64decode(d["value_b64"])) == DLQ_VALUE_LIMIT)
        print(topic, {"refused": verdicts[(topic, True)], "valid": verdicts[(topic, False)], **by_kind})
