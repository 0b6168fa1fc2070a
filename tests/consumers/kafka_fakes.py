"""Hand-written fakes of the kafka-python consumer and producer (osprey style): enough behaviour
to exercise the runtime's offsets, pauses and rebalances without a broker."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kafka import TopicPartition
from kafka.errors import KafkaTimeoutError
from kafka.structs import OffsetAndMetadata


@dataclass(frozen=True)
class FakeRecord:
    """What a consumed record looks like to the runtime."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()
    timestamp: int = 0


@dataclass
class FakeConsumer:
    """A consumer over an in-memory log: poll() hands out records from each position, commit()
    remembers offsets, paused partitions yield nothing, `rebalance()` plays the listener."""

    log: dict[TopicPartition, list[FakeRecord]] = field(default_factory=dict)
    assigned: set[TopicPartition] = field(default_factory=set)
    listener: Any = None
    positions: dict[TopicPartition, int] = field(default_factory=dict)
    committed_offsets: dict[TopicPartition, int] = field(default_factory=dict)
    commits: list[dict[TopicPartition, int]] = field(default_factory=list)
    paused_set: set[TopicPartition] = field(default_factory=set)
    polls: int = 0
    paused_polls: int = 0
    closed: bool = False
    next_assignment: set[TopicPartition] | None = None

    def append(
        self,
        topic: str,
        partition: int,
        value: bytes | None,
        *,
        key: bytes | None = None,
        headers: tuple[tuple[str, bytes | None], ...] = (),
    ) -> FakeRecord:
        """Add a record at the end of a partition."""
        tp = TopicPartition(topic, partition)
        records = self.log.setdefault(tp, [])
        record = FakeRecord(topic, partition, len(records), key, value, headers)
        records.append(record)
        return record

    def rebalance(self, partitions: Iterable[TopicPartition]) -> None:
        """At the next poll() (as in kafka-python): revoke everything, assign `partitions`, and
        restart them from the committed offsets."""
        self.next_assignment = set(partitions)

    def _apply_rebalance(self) -> None:
        if self.next_assignment is None:
            return
        if self.listener is not None and self.assigned:
            self.listener.on_partitions_revoked(set(self.assigned))
        self.assigned, self.next_assignment = self.next_assignment, None
        self.paused_set &= self.assigned
        self.positions = {tp: self.committed_offsets.get(tp, 0) for tp in self.assigned}
        if self.listener is not None:
            self.listener.on_partitions_assigned(set(self.assigned))

    def poll(
        self, timeout_ms: int = 0, max_records: int | None = None, update_offsets: bool = True
    ) -> dict[TopicPartition, list[FakeRecord]]:
        self.polls += 1
        self._apply_rebalance()
        budget = max_records or 500
        out: dict[TopicPartition, list[FakeRecord]] = {}
        for tp in sorted(self.assigned, key=lambda t: (t.topic, t.partition)):
            if tp in self.paused_set:
                self.paused_polls += 1
                continue
            position = self.positions.get(tp, 0)
            batch = self.log.get(tp, [])[position : position + budget]
            if batch:
                out[tp] = batch
                self.positions[tp] = position + len(batch)
                budget -= len(batch)
            if budget <= 0:
                break
        return out

    def commit(
        self, offsets: dict[TopicPartition, OffsetAndMetadata] | None = None, timeout_ms: Any = None
    ) -> None:
        plain = {tp: om.offset for tp, om in (offsets or {}).items()}
        self.commits.append(plain)
        self.committed_offsets.update(plain)

    def commit_async(
        self, offsets: dict[TopicPartition, OffsetAndMetadata] | None = None, callback: Any = None
    ) -> None:
        """Applied at once; the callback answers as the broker would (success)."""
        self.commit(offsets)
        if callback is not None:
            callback(offsets or {}, object())

    def committed(self, tp: TopicPartition) -> int | None:
        return self.committed_offsets.get(tp)

    def highwater(self, tp: TopicPartition) -> int:
        return len(self.log.get(tp, []))

    def position(self, tp: TopicPartition) -> int:
        return self.positions.get(tp, 0)

    def seek(self, tp: TopicPartition, offset: int) -> None:
        self.positions[tp] = offset

    def pause(self, *partitions: TopicPartition) -> None:
        self.paused_set |= set(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        self.paused_set -= set(partitions)

    def paused(self) -> set[TopicPartition]:
        return set(self.paused_set)

    def assignment(self) -> set[TopicPartition]:
        return set(self.assigned)

    def close(self, autocommit: bool = True, timeout_ms: Any = None) -> None:
        self.closed = True


@dataclass
class FakeFuture:
    """A produce future that either acknowledges or raises."""

    error: Exception | None = None

    def get(self, timeout: float | None = None) -> None:
        if self.error is not None:
            raise self.error


@dataclass
class FakeProducer:
    """Records what was acknowledged; `fail_next` sends time out (as an unreachable broker does)."""

    acked: list[tuple[str, bytes | None, bytes | None, list[tuple[str, bytes]] | None]] = field(
        default_factory=list
    )
    partitions: list[int | None] = field(default_factory=list)
    """The explicit partition of each acked send (None: left to the partitioner)."""
    fail_next: int = 0
    attempts: int = 0
    partition_count: int = 2

    def send(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        headers: list[tuple[str, bytes]] | None = None,
        partition: int | None = None,
        timestamp_ms: int | None = None,
    ) -> FakeFuture:
        self.attempts += 1
        if self.fail_next > 0:
            self.fail_next -= 1
            return FakeFuture(KafkaTimeoutError("no broker ack"))
        self.acked.append((topic, key, value, headers))
        self.partitions.append(partition)
        return FakeFuture()

    def partitions_for(self, topic: str) -> set[int]:
        return set(range(self.partition_count))

    def sent_to(
        self, topic: str
    ) -> list[tuple[int | None, bytes | None, bytes | None, list[tuple[str, bytes]] | None]]:
        """Acknowledged (partition, key, value, headers) sent to one topic."""
        return [
            (p, k, v, h) for (t, k, v, h), p in zip(self.acked, self.partitions, strict=True) if t == topic
        ]

    def flush(self, timeout: float | None = None) -> None:
        return None

    def on(self, topic: str) -> list[tuple[bytes | None, bytes | None, list[tuple[str, bytes]] | None]]:
        """Acknowledged (key, value, headers) sent to one topic."""
        return [(k, v, h) for t, k, v, h in self.acked if t == topic]


def step(lane: Any) -> int:
    """One `Lane.step()` and then `drain()`: with overlapping writes (the default) the batch polled
    is committed only at the next step; tests that check one batch's effects finish it here."""
    handled = int(lane.step())
    lane.drain()
    return handled
