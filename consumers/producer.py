"""A producer that replaces its kafka-python `KafkaProducer` after a failure, as the outbox relay does.

Why: kafka-python's idempotent producer can enter a *fatal* state it never leaves. A broker that
lost its producer ids (tansu after a restart; on Apache Kafka an expired or fenced producer id)
answers InitProducerId with an error, the producer aborts every batch from then on, and a lane
that only retries re-sends into the same dead producer forever. Rebuilding gives a fresh producer
id, so idempotence (no duplicates from the client's own retries, order within a partition with
5 requests in flight) is kept; the lane's no-loss rule is unchanged because offsets are committed
only after the re-sent records are acknowledged by the new producer.

Any failed send or acknowledgement marks the producer it came from as broken (kafka-python already
retries transient broker errors internally until its delivery timeout, so what surfaces here is a
real failure). Lanes share one producer from several threads: a generation number makes sure that
the first lane seeing a failure replaces the producer once, and a second lane reporting the same
broken generation does not throw away the replacement. The replacement is built lazily at the next
send, so while the broker is down no producer is built per retry.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kafka.errors import KafkaError

from consumers.ports import ProducerPort, SendFuture

log = logging.getLogger("railbird.consumer")


class _Tracked:
    """A send future that reports a failed acknowledgement to the producer that made it."""

    __slots__ = ("_future", "_generation", "_owner")

    def __init__(self, future: SendFuture, generation: int, owner: RebuildingProducer) -> None:
        self._future, self._generation, self._owner = future, generation, owner

    def get(self, timeout: float | None = None) -> Any:
        try:
            return self._future.get(timeout=timeout)
        except KafkaError:
            self._owner.mark_broken(self._generation)
            raise


class RebuildingProducer:
    """`ProducerPort` over a factory of producers; a failure retires the current one."""

    def __init__(self, factory: Callable[[], ProducerPort], *, close_timeout_s: float = 1.0) -> None:
        self._factory = factory
        self._close_timeout_s = close_timeout_s
        self._lock = threading.Lock()
        self._producer: ProducerPort | None = None
        self._generation = 0
        self.rebuilds = 0
        """How many producers were retired after a failure (tests and logs read it)."""

    def _current(self) -> tuple[int, ProducerPort]:
        with self._lock:
            if self._producer is None:
                # A failing factory (broker still away) raises a KafkaError: the lane retries.
                self._producer = self._factory()
            return self._generation, self._producer

    def mark_broken(self, generation: int) -> None:
        """Retire the producer of `generation` unless it was already replaced."""
        with self._lock:
            if generation != self._generation or self._producer is None:
                return
            broken, self._producer = self._producer, None
            self._generation += 1
            self.rebuilds += 1
        log.warning("producer failed; replacing it (a new producer id)", extra={"count": self.rebuilds})
        _close_quietly(broken, self._close_timeout_s)

    def send(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        headers: list[tuple[str, bytes]] | None = None,
        partition: int | None = None,
        timestamp_ms: int | None = None,
    ) -> SendFuture:
        """Send with the current producer; a send refused at once retires it too."""
        generation, producer = self._current()
        try:
            future = producer.send(
                topic, value=value, key=key, headers=headers, partition=partition, timestamp_ms=timestamp_ms
            )
        except KafkaError:
            self.mark_broken(generation)
            raise
        return _Tracked(future, generation, self)

    def flush(self, timeout: float | None = None) -> None:
        """Flush the current producer (nothing to do before the first send)."""
        with self._lock:
            generation, producer = self._generation, self._producer
        if producer is None:
            return
        try:
            producer.flush(timeout=timeout)
        except KafkaError:
            self.mark_broken(generation)
            raise

    def partitions_for(self, topic: str) -> Any:
        """Partitions of `topic` as the current producer's metadata knows them."""
        generation, producer = self._current()
        try:
            return producer.partitions_for(topic)
        except KafkaError:
            self.mark_broken(generation)
            raise

    def close(self, timeout: float | None = None) -> None:
        """Close the current producer (waits for its in-flight sends up to `timeout`)."""
        with self._lock:
            producer, self._producer = self._producer, None
        if producer is not None:
            _close_quietly(producer, timeout)


def _close_quietly(producer: ProducerPort, timeout: float | None) -> None:
    close = getattr(producer, "close", None)
    if close is None:
        return
    try:
        close(timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - a broken producer may fail to close; it is dropped anyway
        log.debug("closing a retired producer raised %s", type(exc).__name__)
