"""Batches a consumer cannot decode: find the partition, pause it, go on with the rest.

kafka-python raises out of `poll()` when a fetched batch cannot be read (a codec whose library is
missing, `UnsupportedCodecError`; a failed checksum, `CorruptRecordError`; a batch cut short by
the fetch size). The exception names no partition reliably, the same batch is fetched again by
every later poll, and (kafka-python 3.0.12) a poll after such an error with the partition still
fetchable spins forever in `Fetcher.fetched_records` (measured: 100 % of a core, never returns).
Before issue 21 the lane crashed and stopped the process, a crash loop under a supervisor.

So a lane that sees `poll()` raise pauses every partition first (the spin cannot happen on a
paused one), then asks a `BatchProbe` which partitions' next batch fails, reading each alone from
the lane's position with a group-less consumer. Those stay paused ("blocked": a metric, an error
log naming topic/partition/offset, `/readyz`); the others resume. An error the probe cannot
reproduce is retried after a backoff. Nothing is committed past a blocked batch until an operator
runs `railbird skip` (railbird/commands/skip.py): the request goes to the control topic, every
process reads it (`SkipFeed`), and the lane owning the partition dead-letters the range, commits
past it, seeks there, drops kafka-python's parked broken batch (`consumers.kafka_compat`: another
kafka-python bug would otherwise never fetch the partition again) and resumes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from kafka import KafkaConsumer, TopicPartition
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from consumers.ports import ISOLATION_LEVEL

log = logging.getLogger("railbird.consumer")

CONTROL_SUFFIX = ".control"


def control_topic(prefix: str) -> str:
    """The deployment's control topic (one partition): operators' skip requests."""
    return f"{prefix}{CONTROL_SUFFIX}"


class SkipRequest(BaseModel):
    """An operator's instruction: offsets `[from_offset, to_offset)` of a partition are
    dead-lettered unread by whichever lane is blocked inside that range (now or later)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    topic: str
    partition: int = Field(ge=0)
    from_offset: int = Field(ge=0)
    to_offset: int = Field(ge=1)
    reason: str = Field(max_length=2_000)
    requested_at: datetime

    def covers(self, tp: TopicPartition, offset: int) -> bool:
        """True when this request skips `offset` of `tp`."""
        return (tp.topic, tp.partition) == (self.topic, self.partition) and self.from_offset <= offset < self.to_offset


@dataclass(frozen=True, slots=True)
class Blocked:
    """A paused partition whose batch at `offset` could not be decoded."""

    offset: int
    error: str
    since: float


class BatchProbe(Protocol):
    """Finds which partitions' next batch cannot be decoded."""

    def failing(self, positions: Mapping[TopicPartition, int]) -> dict[TopicPartition, str]:
        """Partition -> error, for the partitions whose records at their position fail to decode."""
        ...


class NullProbe:
    """A probe that finds nothing (lanes built without a broker, e.g. in unit tests): every poll
    failure is then retried after a backoff."""

    def failing(self, positions: Mapping[TopicPartition, int]) -> dict[TopicPartition, str]:
        return {}


class KafkaBatchProbe:
    """Reads each partition alone from a position, with a group-less consumer of our settings."""

    def __init__(self, *, bootstrap: str, fetch_max_wait_ms: int = 20, polls: int = 5) -> None:
        self._bootstrap, self._fetch_max_wait_ms, self._polls = bootstrap, fetch_max_wait_ms, polls

    def consumer(self) -> KafkaConsumer:
        """A consumer configured like the lanes' (the same codecs, isolation and checksums)."""
        return KafkaConsumer(
            bootstrap_servers=self._bootstrap,
            group_id=None,
            enable_auto_commit=False,
            client_id="railbird-probe",
            isolation_level=ISOLATION_LEVEL,
            fetch_max_wait_ms=self._fetch_max_wait_ms,
            max_poll_records=1,
        )

    def failing(self, positions: Mapping[TopicPartition, int]) -> dict[TopicPartition, str]:
        consumer = self.consumer()
        try:
            found = {tp: error for tp, offset in positions.items() if (error := self.error_at(consumer, tp, offset))}
        finally:
            consumer.close()
        return found

    def error_at(self, consumer: KafkaConsumer, tp: TopicPartition, offset: int) -> str:
        """The decode error of `tp` at `offset` ("" when its records decode or there are none).
        Each call assigns `tp` anew, which also makes kafka-python drop a broken buffered batch."""
        consumer.assign([tp])
        consumer.seek(tp, offset)
        for _ in range(self._polls):
            try:
                if consumer.poll(timeout_ms=self._fetch_max_wait_ms * 5, max_records=1):
                    return ""
            except Exception as exc:  # noqa: BLE001 - any failure to read this data is the answer
                return f"{type(exc).__name__}: {exc}"
        return ""


def first_decodable(probe: KafkaBatchProbe, tp: TopicPartition, offset: int, *, limit: int) -> int:
    """The first offset after `offset` whose records decode (or past the partition's end): where a
    skip of the batch at `offset` ends. One offset at a time, never a jump: a fetch from inside a
    batch returns that whole batch, so the first position that reads is the next batch's, and no
    readable record is ever skipped. At most `limit` probes (ValueError beyond)."""
    consumer = probe.consumer()
    try:
        for candidate in range(offset + 1, offset + 1 + limit):
            if not probe.error_at(consumer, tp, candidate):
                return candidate
    finally:
        consumer.close()
    raise ValueError(f"{tp.topic}/{tp.partition}: no decodable offset within {limit} of {offset}; give --to")


class SkipBook:
    """The skip requests this process has read; thread-safe (the feed adds, lanes look up)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: list[SkipRequest] = []

    def add(self, request: SkipRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def covering(self, tp: TopicPartition, offset: int) -> SkipRequest | None:
        """The newest request that skips `offset` of `tp`, if any."""
        with self._lock:
            return next((r for r in reversed(self._requests) if r.covers(tp, offset)), None)


class SkipFeed:
    """Reads the control topic from its beginning into a `SkipBook`, in a daemon thread, until
    `stop`. A request is a standing instruction, so reading them all again after a restart is
    right; one that does not parse is logged and ignored (never a crash)."""

    def __init__(self, *, bootstrap: str, topic: str, book: SkipBook, consumer: Callable[[], KafkaConsumer] | None = None) -> None:
        self._bootstrap, self._topic, self.book = bootstrap, topic, book
        self._consumer = consumer or self._default_consumer

    def _default_consumer(self) -> KafkaConsumer:
        return KafkaConsumer(bootstrap_servers=self._bootstrap, group_id=None, enable_auto_commit=False,
                             client_id="railbird-control", isolation_level=ISOLATION_LEVEL, fetch_max_wait_ms=200)

    def start(self, stop: threading.Event) -> threading.Thread:
        thread = threading.Thread(target=self.run, args=(stop,), name="railbird-control", daemon=True)
        thread.start()
        return thread

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                self._follow(stop)
            except Exception as exc:  # noqa: BLE001 - the feed must outlive a broker outage
                log.warning("control topic read failed, retrying: %s", exc, extra={"topic": self._topic})
                stop.wait(1.0)

    def _follow(self, stop: threading.Event) -> None:
        consumer = self._consumer()
        try:
            tp = TopicPartition(self._topic, 0)
            consumer.assign([tp])
            consumer.seek_to_beginning(tp)
            while not stop.is_set():
                for record in consumer.poll(timeout_ms=500).get(tp, []):
                    self._read(record.value, record.offset)
        finally:
            consumer.close()

    def _read(self, value: bytes | None, offset: int) -> None:
        try:
            request = SkipRequest.model_validate_json(value or b"")
        except ValidationError as exc:
            log.warning("unreadable skip request ignored: %s", exc.errors()[:1], extra={"topic": self._topic, "offset": offset})
            return
        log.info("skip request read", extra={"topic": request.topic, "partition": request.partition,
                                             "offset": request.from_offset, "count": request.to_offset - request.from_offset})
        self.book.add(request)
