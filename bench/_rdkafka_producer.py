"""The end-to-end benches' game-server producers: the one home of the librdkafka (confluent-kafka)
producer's construction, for the throughput runs (`produce_librdkafka`) and the paced latency
phases (`paced_producer`), and the kafka-python paced producer beside it.

confluent-kafka is a dev extra: it is imported only when `--client librdkafka` asks for it.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from kafka import KafkaProducer

from pipeline.contracts import CHAT

Ends = dict[int, int]
"""Next offset per partition of chat.messages (as `bench._e2e_rig.Ends`)."""

GAME_SERVER_LINGER_MS = 5
"""The paced producer batches like a game server would (one request per 5 ms rather than one per
message). With `linger_ms=0` the bench sent 1,000 produce requests a second at 1,000 msg/s; on the
2-core box the broker then used ~2/3 of a core and the bench ~45 %, next to the consumers and the API
being measured (`top` during the enforcement runs). Latency is still stamped before `send()`, so the
up to 5 ms a message waits for its batch is counted."""

LIBRDKAFKA_LINGER_MS = 40
"""The paced librdkafka producer's linger: docs/game-servers.md's setting for librdkafka game
servers. librdkafka puts one partition in each produce request (its issue #1700), so at 1,000
msg/s over 8 partitions a 5 ms linger sent ~790 requests a second of 1.3 records each, where
kafka-python, packing every partition of a broker into one request, sent ~140 of 7
(`bench/produce_ack.py`). 40 ms brings librdkafka to ~180 requests a second of 5.6 records; in
the enforcement phase, back to back on 8 Dec, its p99 went from 716-1,341 ms to 416-536 ms,
against kafka-python's 625-662 ms at 5 ms (docs/operations.md)."""


def librdkafka_producer(bootstrap: str, codec: str, **config: Any) -> Any:
    """A confluent_kafka.Producer for the bench's broker; `config` overrides or adds settings."""
    from confluent_kafka import Producer  # dev extra: only `--client librdkafka` needs it

    return Producer({"bootstrap.servers": bootstrap, "compression.type": codec, "log_level": 3, **config})


class _Delivery:
    """librdkafka delivery reports folded into `ends`; failures kept to raise on; `acked`: when
    each key was first acknowledged (epoch s), for the latency phases' produce -> ack leg."""

    def __init__(self, ends: Ends) -> None:
        self.ends = ends
        self.failed: list[str] = []
        self.acked: dict[bytes, float] = {}

    def __call__(self, err: Any, msg: Any) -> None:
        if err is not None:
            self.failed.append(str(err))
            return
        self.acked.setdefault(msg.key(), time.time())
        self.ends[msg.partition()] = max(self.ends.get(msg.partition(), 0), msg.offset() + 1)


def _produce(producer: Any, key: bytes, value: bytes, delivered: _Delivery) -> None:
    """One record; a full local queue is served (delivery reports) and retried."""
    while True:
        try:
            producer.produce(CHAT, key=key, value=value, on_delivery=delivered)
            break
        except BufferError:
            producer.poll(0.01)
    producer.poll(0)


def _drain(producer: Any, delivered: _Delivery, timeout_s: float) -> None:
    """Flush; raise unless every record was acknowledged."""
    if producer.flush(timeout_s) != 0 or delivered.failed:
        raise RuntimeError(f"librdkafka did not deliver every message: {delivered.failed[:3]}")


def produce_librdkafka(bootstrap: str, values: list[tuple[bytes, bytes]], ends: Ends, codec: str) -> float:
    """The throughput runs' producer: `values` as fast as an idempotent librdkafka producer goes;
    the delivery reports fill `ends`; the producer's msgs/s."""
    producer = librdkafka_producer(bootstrap, codec, **{"enable.idempotence": True, "linger.ms": 20,
                                                        "batch.size": 256 * 1024})
    delivered = _Delivery(ends)
    began = time.perf_counter()
    for key, value in values:
        _produce(producer, key, value, delivered)
    _drain(producer, delivered, 120)
    return len(values) / (time.perf_counter() - began)


class PacedProducer(Protocol):
    """A game server's producer in the paced latency phases: `send` each record as it is due,
    `finish` waits for every acknowledgement (raising unless all were) and folds them into `ends`;
    `acked` maps each key to when the broker first acknowledged it (epoch s)."""

    acked: dict[bytes, float]

    def send(self, key: bytes, value: bytes) -> None: ...

    def finish(self, ends: Ends) -> None: ...

    def close(self) -> None: ...


def game_server_linger_ms(client: str) -> int:
    """The linger a game server of this client is told to use (docs/game-servers.md)."""
    return LIBRDKAFKA_LINGER_MS if client == "librdkafka" else GAME_SERVER_LINGER_MS


class KafkaPythonPaced:
    """kafka-python, acks=1, `linger_ms` (the default client of the latency phases)."""

    def __init__(self, bootstrap: str, linger_ms: int) -> None:
        self.producer = KafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=linger_ms)
        self.futures: list[Any] = []
        self.acked: dict[bytes, float] = {}

    def send(self, key: bytes, value: bytes) -> None:
        future = self.producer.send(CHAT, key=key, value=value)
        future.add_callback(lambda _meta: self.acked.setdefault(key, time.time()))
        self.futures.append(future)

    def finish(self, ends: Ends) -> None:
        self.producer.flush(30)
        futures, self.futures = self.futures, []
        for future in futures:
            meta = future.get(timeout=30)
            ends[meta.partition] = max(ends.get(meta.partition, 0), meta.offset + 1)

    def close(self) -> None:
        self.producer.close()


class LibrdkafkaPaced:
    """librdkafka, acks=1 (so not idempotent: that needs acks=all), `linger.ms`, the run's codec;
    delivery reports served by `poll(0)` after every record and by the flush in `finish`;
    `config` adds or overrides settings (`bench/produce_ack.py`: its statistics)."""

    def __init__(self, bootstrap: str, linger_ms: int, codec: str, **config: Any) -> None:
        self.producer = librdkafka_producer(bootstrap, codec, **{"acks": 1, "linger.ms": linger_ms, **config})
        self.delivered = _Delivery({})
        self.acked = self.delivered.acked

    def send(self, key: bytes, value: bytes) -> None:
        _produce(self.producer, key, value, self.delivered)

    def finish(self, ends: Ends) -> None:
        _drain(self.producer, self.delivered, 30)
        for partition, end in self.delivered.ends.items():
            ends[partition] = max(ends.get(partition, 0), end)
        self.delivered.ends.clear()

    def close(self) -> None:
        self.producer.flush(5)


def paced_producer(bootstrap: str, client: str, codec: str, linger_ms: int) -> PacedProducer:
    """The latency phases' producer for `--client` (`codec` applies to librdkafka only: the
    kafka-python latency producer stays uncompressed, as before); `linger_ms` as the game server
    would set it (`game_server_linger_ms`)."""
    if client == "librdkafka":
        return LibrdkafkaPaced(bootstrap, linger_ms, codec)
    return KafkaPythonPaced(bootstrap, linger_ms)
