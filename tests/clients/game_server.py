"""Game servers as most are written: librdkafka clients (here through confluent-kafka).

Used by the tests of issue 21: producers with every codec, idempotence, headers and transactions
into Railbird's consumers, and a consumer reading `enforcement.events` with `assign` (a group join
hangs on tansu, the embedded broker; production game servers may subscribe as usual)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterable
from typing import Any

from confluent_kafka import Consumer, KafkaException, Message, Producer, TopicPartition

CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
HEADERS: list[tuple[str, str | bytes | None]] = [("game-server", b"gs-eu-1"), ("traceparent", b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")]


def producer(bootstrap: str, codec: str = "none", **extra: Any) -> Producer:
    """An idempotent librdkafka producer (acks=all follows from idempotence)."""
    return Producer({
        "bootstrap.servers": bootstrap,
        "compression.type": codec,
        "enable.idempotence": True,
        "linger.ms": 20,
        "log_level": 3,
        **extra,
    })


def send(p: Producer, topic: str, events: Iterable[dict[str, Any]], *, key_field: str = "player_id") -> None:
    """Produce JSON events keyed like the contract says, with game-server headers; no flush."""
    errors: list[str] = []

    def delivered(err: object, _msg: Message) -> None:
        if err is not None:
            errors.append(str(err))

    for e in events:
        p.produce(topic, key=str(e[key_field]).encode(), value=json.dumps(e).encode(), headers=HEADERS,
                  on_delivery=delivered)
        p.poll(0)
    if p.flush(15) != 0 or errors:
        raise AssertionError(f"librdkafka did not deliver everything: {errors[:3]}")


def produce(bootstrap: str, topic: str, events: Iterable[dict[str, Any]], *, codec: str = "none") -> None:
    """One idempotent producer per call, flushed."""
    send(producer(bootstrap, codec), topic, events)


def produce_mixed_codecs(bootstrap: str, topic: str, records: list[tuple[bytes, bytes]], *, rate_per_s: float = 0.0,
                         chunk: int = 100, seed: int = 21) -> dict[str, int]:
    """Records in chunks, each through an idempotent producer of a random codec; a chunk is
    acknowledged before the next starts, so a key's records stay in order across producers.
    `rate_per_s` paces it (0 = flat out). Returns records per codec."""
    rng = random.Random(seed)
    producers = {c: producer(bootstrap, c, **{"linger.ms": 5}) for c in CODECS}
    used = dict.fromkeys(CODECS, 0)
    started = time.monotonic()
    for start in range(0, len(records), chunk):
        codec = rng.choice(CODECS)
        p = producers[codec]
        for key, value in records[start : start + chunk]:
            p.produce(topic, key=key, value=value, headers=HEADERS)
        if p.flush(60) != 0:
            raise AssertionError(f"librdkafka did not deliver a {codec} chunk")
        used[codec] += len(records[start : start + chunk])
        ahead = (start + chunk) / rate_per_s - (time.monotonic() - started) if rate_per_s else 0.0
        if ahead > 0:
            time.sleep(ahead)
    return used


def read(bootstrap: str, topic: str, partitions: int, *, expect: int, timeout_s: float = 20,
         isolation: str = "read_committed") -> list[Message]:
    """At least `expect` records of every partition from the start, read by `assign` (no group)."""
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": "game-server-reader",  # required by librdkafka; no group is joined with assign()
        "enable.auto.commit": False,
        "isolation.level": isolation,
        "log_level": 3,
    })
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        out: list[Message] = []
        deadline = time.monotonic() + timeout_s
        while len(out) < expect and time.monotonic() < deadline:
            msg = consumer.poll(0.2)
            if msg is None:
                continue
            if msg.error() is not None:
                raise KafkaException(msg.error())
            out.append(msg)
        return out
    finally:
        consumer.close()
