"""The Kafka side of the event archive: a consumer group that copies the input topics into it, and
a reader of a past time range straight from the input topics (for what Kafka still retains and
the archive does not hold, e.g. from before the archiver first ran)."""

from __future__ import annotations

import heapq
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kafka import KafkaConsumer, TopicPartition
from kafka.errors import CommitFailedError
from kafka.structs import OffsetAndMetadata

from consumers.archive import HOUR_MS, ArchivedRecord, SegmentWriter, bucket_of, purge
from consumers.ports import ISOLATION_LEVEL
from pipeline.contracts import INPUT_TOPICS

log = logging.getLogger("railbird.archive")

PURGE_EVERY_S = 3600.0


def archive_group(prefix: str) -> str:
    """The archiver's consumer group: its own, so it reads every record whatever the lanes do."""
    return f"{prefix}.archive"


@dataclass(frozen=True, slots=True)
class ArchiverConfig:
    """What the archiver needs from the settings."""

    bootstrap: str
    root: Path
    group_prefix: str = "railbird"
    retention_days: int = 365
    poll_timeout_ms: int = 500
    max_poll_records: int = 5000
    session_timeout_ms: int = 10_000
    heartbeat_ms: int = 1_000


class Archiver:
    """Poll, append, fsync, then commit: a record's offset is committed only once it is on disk, so
    a crash loses nothing (it may write a record twice; the read drops the copy)."""

    def __init__(self, config: ArchiverConfig, *, consumer: Any | None = None,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.config = config
        self.consumer = consumer if consumer is not None else _group_consumer(config)
        self.writer = SegmentWriter(config.root)
        self.clock = clock
        self.archived = 0
        self._last_purge = 0.0

    def run(self, stop: threading.Event) -> int:
        """Archive until `stop` is set; returns how many records were written."""
        self.consumer.subscribe(list(INPUT_TOPICS))
        try:
            while not stop.is_set():
                self.step()
        finally:
            self.writer.close()
            self.consumer.close(autocommit=False)
        return self.archived

    def step(self) -> int:
        """One poll: append its records, make them durable, commit their offsets. Returns how many."""
        self._maybe_purge()
        polled = self.consumer.poll(timeout_ms=self.config.poll_timeout_ms,
                                    max_records=self.config.max_poll_records)
        records = [
            ArchivedRecord(r.topic, r.partition, r.offset, int(r.timestamp), bytes(r.value or b""))
            for batch in polled.values() for r in batch
        ]
        if not records:
            return 0
        self.writer.append(records)
        self.writer.sync()
        offsets: dict[TopicPartition, OffsetAndMetadata] = {}
        for r in records:
            tp = TopicPartition(r.topic, r.partition)
            if tp not in offsets or offsets[tp].offset <= r.offset:
                offsets[tp] = OffsetAndMetadata(r.offset + 1, "", -1)
        try:
            self.consumer.commit(offsets)
        except CommitFailedError as exc:
            # A rebalance took partitions away mid-batch: their new owner reads these records again
            # from the last commit and writes them again; the read drops the copies.
            log.warning("archive: offsets not committed (%s); the records will be archived again", exc)
        self.writer.close_before(bucket_of(min(r.timestamp_ms for r in records)))
        self.archived += len(records)
        return len(records)

    def _maybe_purge(self) -> None:
        if time.monotonic() - self._last_purge < PURGE_EVERY_S and self._last_purge:
            return
        self._last_purge = time.monotonic()
        gone = purge(self.config.root, retention_days=self.config.retention_days, now=self.clock())
        if gone:
            log.info("archive: deleted %d hour(s) past retention, the oldest %s", len(gone), gone[0])


def _group_consumer(config: ArchiverConfig) -> KafkaConsumer:
    return KafkaConsumer(
        bootstrap_servers=config.bootstrap,
        group_id=archive_group(config.group_prefix),
        client_id="railbird-archive",
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        session_timeout_ms=config.session_timeout_ms,
        heartbeat_interval_ms=config.heartbeat_ms,
        fetch_max_wait_ms=100,
        isolation_level=ISOLATION_LEVEL,
    )


class KafkaRangeReader:
    """Records of the input topics whose timestamp is in a range, read by time from Kafka's
    retention (`offsets_for_times`), an hour at a time in the archive's order: each partition in
    offset order, partitions merged by timestamp. Holds one hour of records in memory."""

    def __init__(self, bootstrap: str, *, poll_timeout_ms: int = 200, max_idle_polls: int = 10) -> None:
        self.bootstrap = bootstrap
        self.poll_timeout_ms = poll_timeout_ms
        self.max_idle_polls = max_idle_polls

    def read(self, start_ms: int, end_ms: int) -> Iterator[ArchivedRecord]:
        """Every retained input record of [start_ms, end_ms)."""
        consumer = KafkaConsumer(bootstrap_servers=self.bootstrap, group_id=None, enable_auto_commit=False,
                                 client_id="railbird-retro", isolation_level=ISOLATION_LEVEL,
                                 fetch_max_wait_ms=20, max_poll_records=10_000)
        try:
            tps = [TopicPartition(t, p) for t in INPUT_TOPICS for p in sorted(consumer.partitions_for_topic(t) or ())]
            if not tps:
                return
            consumer.assign(tps)
            ends = {tp: int(o) for tp, o in consumer.end_offsets(tps).items()}
            hour = start_ms - start_ms % HOUR_MS
            while hour < end_ms:
                lo, hi = max(hour, start_ms), min(hour + HOUR_MS, end_ms)
                yield from self._chunk(consumer, tps, ends, lo, hi)
                hour += HOUR_MS
        finally:
            consumer.close()

    def _chunk(self, consumer: KafkaConsumer, tps: list[TopicPartition], ends: dict[TopicPartition, int],
               lo: int, hi: int) -> Iterator[ArchivedRecord]:
        found = consumer.offsets_for_times({tp: lo for tp in tps})
        parts: dict[TopicPartition, list[ArchivedRecord]] = {}
        pending: set[TopicPartition] = set()
        for tp in tps:
            at = found.get(tp)
            # Kafka answers None past the last record; tansu offset 0 with timestamp -1: nothing there.
            if at is None or at.timestamp < 0:
                continue
            consumer.seek(tp, int(at.offset))
            pending.add(tp)
            parts[tp] = []
        consumer.pause(*[tp for tp in tps if tp not in pending])
        idle = 0
        while pending and idle < self.max_idle_polls:
            polled = consumer.poll(timeout_ms=self.poll_timeout_ms)
            idle = idle + 1 if not polled else 0
            for tp, batch in polled.items():
                if tp not in pending:
                    continue
                for r in batch:
                    if r.timestamp >= hi:
                        pending.discard(tp)
                        consumer.pause(tp)
                        break
                    if r.timestamp >= lo:
                        parts[tp].append(ArchivedRecord(r.topic, r.partition, r.offset, int(r.timestamp),
                                                        bytes(r.value or b"")))
                if tp in pending and int(consumer.position(tp)) >= ends[tp]:
                    pending.discard(tp)
                    consumer.pause(tp)
        consumer.resume(*tps)
        yield from heapq.merge(*(parts[tp] for tp in sorted(parts)), key=lambda r: r.timestamp_ms)
