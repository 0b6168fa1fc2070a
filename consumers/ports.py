"""The few Kafka client methods the runtime uses, as protocols: real kafka-python objects satisfy
them, and the unit tests pass hand-written fakes instead."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from kafka import TopicPartition
from kafka.structs import OffsetAndMetadata

ISOLATION_LEVEL = "read_committed"
"""Every Railbird consumer reads committed records only: a game server's aborted transaction is
never acted on (Apache Kafka filters it for such consumers; tansu does not, docs/game-servers.md)."""

Message = tuple[str, bytes | None, bytes | None, list[tuple[str, bytes]], int | None]
"""A record to produce: topic, key, value (None: a tombstone), headers, partition (None: by key)."""


class RecordLike(Protocol):
    """What the runtime reads from a consumed record (kafka-python's `ConsumerRecord` fits)."""

    @property
    def topic(self) -> str: ...
    @property
    def partition(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def timestamp(self) -> int: ...
    @property
    def key(self) -> bytes | None: ...
    @property
    def value(self) -> bytes | None: ...
    @property
    def headers(self) -> Sequence[tuple[str, bytes | None]] | None: ...


class ConsumerPort(Protocol):
    """The consumer calls the runtime makes."""

    def poll(
        self, timeout_ms: int = 0, max_records: int | None = None, update_offsets: bool = True
    ) -> Mapping[TopicPartition, Sequence[Any]]: ...

    def commit(self, offsets: Any = None, timeout_ms: Any = None) -> Any: ...

    def commit_async(self, offsets: Any = None, callback: Any = None) -> Any: ...

    def pause(self, *partitions: TopicPartition) -> Any: ...

    def resume(self, *partitions: TopicPartition) -> Any: ...

    def paused(self) -> Any: ...

    def assignment(self) -> Any: ...

    def close(self, autocommit: bool = True, timeout_ms: Any = None) -> Any: ...

    def committed(self, partition: TopicPartition) -> Any: ...

    def highwater(self, partition: TopicPartition) -> Any: ...

    def position(self, partition: TopicPartition) -> Any: ...

    def seek(self, partition: TopicPartition, offset: int) -> Any: ...


class SendFuture(Protocol):
    """An in-flight produce; `get` blocks until the broker acknowledged it or raises."""

    def get(self, timeout: float | None = None) -> Any: ...


class ProducerPort(Protocol):
    """The producer calls the runtime makes (dead letters and re-keyed records)."""

    def send(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        headers: list[tuple[str, bytes]] | None = None,
        partition: int | None = None,
        timestamp_ms: int | None = None,
    ) -> SendFuture: ...

    def flush(self, timeout: float | None = None) -> None: ...

    def partitions_for(self, topic: str) -> Any: ...


def commit_offsets(records: Sequence[RecordLike]) -> dict[TopicPartition, OffsetAndMetadata]:
    """The offsets to commit after a batch: per partition, one past the last record handled."""
    last: dict[TopicPartition, int] = {}
    for r in records:
        tp = TopicPartition(r.topic, r.partition)
        last[tp] = max(last.get(tp, -1), r.offset)
    return {tp: OffsetAndMetadata(off + 1, "", -1) for tp, off in last.items()}
