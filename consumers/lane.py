"""One consumer group's loop: poll a batch, process it, write its effects, then commit.

Offsets follow side effects. A batch is committed only after (1) every re-keyed record and
(2) every dead letter was acknowledged by the broker and (3) every finding was acknowledged by the
review API. Transient failures are retried with backoff, forever, without committing; meanwhile the
partitions are paused and `poll()` keeps being called, so the group membership (and
`max_poll_interval_ms`) stays alive while nothing new is fetched: that is the back-pressure.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from kafka import ConsumerRebalanceListener, TopicPartition
from kafka.errors import CommitFailedError, KafkaError

from consumers.api_client import ChunkResult, ReviewApiClient
from consumers.bundle import BUNDLE_HEADER, SOURCE_TOPIC_HEADER, bundles, expand, pack
from consumers.commits import PendingCommits
from consumers.metrics import ConsumerMetrics
from consumers.ports import ConsumerPort, ProducerPort, RecordLike, SendFuture, commit_offsets
from consumers.processing import Handled, Processor, Route
from consumers.retry import Backoff, StopRequestedError, TransientError, retry_forever
from pipeline.contracts import DeadLetter, dlq_topic
from pipeline.contracts.deadletter import ErrorKind
from pipeline.findings import Finding

log = logging.getLogger("railbird.consumer")
T = TypeVar("T")
Message = tuple[str, bytes | None, bytes | None, list[tuple[str, bytes]], int | None]
"""A record to produce: topic, key, value, headers, partition (None: by key)."""

DLQ_VALUE_LIMIT = 600_000
"""Bytes of the original value a dead letter carries. Base64 grows it by 4/3 and the producer's
largest request is 1 MiB: a bigger record could never be dead-lettered and would block its
partition forever (found by tests/hostile). The rest is named by its size and sha256."""


def _truncation_note(value: bytes | None) -> str:
    raw = value or b""
    if len(raw) <= DLQ_VALUE_LIMIT:
        return ""
    digest = hashlib.sha256(raw).hexdigest()
    return f" (value truncated to its first {DLQ_VALUE_LIMIT} of {len(raw)} bytes, sha256 {digest})"


@dataclass(frozen=True, slots=True)
class LaneConfig:
    """Tunables of one lane."""

    group: str
    max_records: int = 500
    poll_timeout_ms: int = 200
    produce_timeout_s: float = 10.0
    keepalive_s: float = 1.0
    """While retrying, poll (paused) at least this often: far below `max_poll_interval_ms`."""
    async_commit: bool = True
    """Commit a batch's offsets without waiting for the broker's answer (see `Lane._commit`)."""


@dataclass
class LaneStatus:
    """What /readyz needs to know about a lane."""

    joined: bool = False
    partitions: int = 0
    last_commit_at: float = 0.0
    retrying: str = ""


@dataclass
class Lane(ConsumerRebalanceListener):  # type: ignore[misc]
    """Poll-process-write-commit loop of one consumer; also its rebalance listener."""

    consumer: ConsumerPort
    producer: ProducerPort
    api: ReviewApiClient
    processor: Processor
    metrics: ConsumerMetrics
    config: LaneConfig
    stop: threading.Event
    backoff: Backoff = field(default_factory=Backoff)
    clock: Callable[[], float] = time.time
    status: LaneStatus = field(default_factory=LaneStatus)
    _pending_assignment: set[TopicPartition] | None = field(default=None, init=False, repr=False)
    _commits: PendingCommits = field(default_factory=PendingCommits, init=False, repr=False)

    def run(self) -> None:
        """Loop until `stop` is set; the batch in hand is finished and committed, then close."""
        try:
            while not self.stop.is_set():
                self.step()
            self._settle_commits()
        except StopRequestedError:
            log.warning(
                "stopping with a batch in hand; it will be redelivered", extra={"group": self.config.group}
            )
        finally:
            self.consumer.close(autocommit=False)

    def step(self) -> int:
        """Poll once and handle what came; the number of records handled."""
        if self._commits.failed:
            self._settle_commits()
        polled = self.consumer.poll(
            timeout_ms=self.config.poll_timeout_ms, max_records=self.config.max_records
        )
        self._apply_assignment()
        records = expand([r for batch in polled.values() for r in batch])
        if records:
            self.handle_batch(records)
        return len(records)

    def handle_batch(self, records: Sequence[RecordLike]) -> None:
        """Process, route, write, dead-letter, then commit one polled batch."""
        started = time.monotonic()
        for topic, n in Counter(r.topic for r in records).items():
            self.metrics.events_in.labels(topic).inc(n)
        handled = self.processor.handle_batch(records)
        routes = [route for h in handled for route in h.routes]
        outgoing = self._bundle(routes) + self._changelog()
        # Routed records go out first and are awaited after the API write: both waits overlap.
        in_flight = self._start_sends(outgoing)
        dead = [(h.record, *h.dead) for h in handled if h.dead is not None]
        dead.extend(self._write_findings(handled))
        self._finish_routes(routes, outgoing, in_flight)
        self._produce_dead_letters(dead)
        self._count(handled)
        self._commit(records)
        elapsed = time.monotonic() - started
        now_ms = self.clock() * 1000
        topic = records[0].topic
        self.metrics.batch_seconds.labels(topic).observe(elapsed)
        latency = self.metrics.record_latency.labels(topic)
        for r in records:
            latency.observe(max(0.0, (now_ms - r.timestamp) / 1000))

    def _retry(self, what: str, operation: Callable[[], T]) -> T:
        def on_error(exc: TransientError, attempt: int) -> None:
            self.status.retrying = what
            if what == "api":
                self.metrics.api_errors.labels(exc.kind).inc()
            log.warning("%s failed, retrying: %s", what, exc, extra={"kind": exc.kind, "count": attempt})

        result = retry_forever(
            operation, backoff=self.backoff, wait=self._wait, should_stop=self.stop.is_set, on_error=on_error
        )
        if self.status.retrying:
            self.status.retrying = ""
            self._resume()
        return result

    def _wait(self, delay_s: float) -> None:
        """Sleep `delay_s` with every partition paused, polling so the group keeps us."""
        deadline = time.monotonic() + delay_s
        while True:
            assigned = list(self.consumer.assignment())
            if assigned:
                self.consumer.pause(*assigned)
            # Paused partitions return nothing; the call keeps max_poll_interval_ms satisfied.
            self.consumer.poll(timeout_ms=0, max_records=1)
            self._apply_assignment()
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.stop.wait(min(remaining, self.config.keepalive_s)):
                return

    def _resume(self) -> None:
        paused = list(self.consumer.paused())
        if paused:
            self.consumer.resume(*paused)

    def _bundle(self, routes: list[Route]) -> list[Message]:
        """One bundle record per re-key partition (see `consumers.bundle`)."""
        if not routes:
            return []
        sizes = {t: len(self.producer.partitions_for(t)) for t in {r.topic for r in routes}}
        grouped = bundles(((r.topic, r.key, r.detectors, r.source, r.value) for r in routes), sizes)
        source = {r.topic: r.input_topic.encode() for r in routes}
        return [
            (
                topic,
                None,
                pack(entries),
                [(BUNDLE_HEADER, b"1"), (SOURCE_TOPIC_HEADER, source[topic])],
                partition,
            )
            for (topic, partition), entries in grouped.items()
        ]

    def _start_sends(self, messages: list[Message]) -> list[SendFuture] | KafkaError:
        """Hand the messages to the producer without waiting; the error if one send already failed."""
        try:
            return [self._send(m) for m in messages]
        except KafkaError as exc:
            return exc

    def _send(self, message: Message) -> SendFuture:
        topic, key, value, headers, partition = message
        return self.producer.send(topic, value=value, key=key, headers=headers or None, partition=partition)

    def _changelog(self) -> list[Message]:
        """State changes the processor wants durable before the batch is committed (a processor
        without `drain_changelog` keeps no state beyond what its lookback replay rebuilds)."""
        drain: Callable[[], list[Message]] | None = getattr(self.processor, "drain_changelog", None)
        return drain() if drain is not None else []

    def _finish_routes(
        self, routes: list[Route], outgoing: list[Message], in_flight: list[SendFuture] | KafkaError
    ) -> None:
        """Wait for the re-keyed bundles and changelog records; on a failure send them all again
        (stage 2 drops duplicate routes; a changelog record is the key's whole state, so a repeat
        is harmless)."""
        if not outgoing:
            return
        try:
            if isinstance(in_flight, KafkaError):
                raise in_flight
            self._await(in_flight)
        except KafkaError as exc:
            log.warning("re-keying failed, re-sending the batch's routes: %s", exc, extra={"kind": "produce"})
            self._retry("rekey", lambda: self._send_all(outgoing))
        for topic, n in Counter(r.topic for r in routes).items():
            self.metrics.events_out.labels(topic, "rekey").inc(n)

    def _await(self, futures: list[SendFuture]) -> None:
        self.producer.flush(timeout=self.config.produce_timeout_s)
        for f in futures:
            f.get(timeout=self.config.produce_timeout_s)

    def _send_all(self, messages: list[Message]) -> None:
        """Send and wait for every ack; any failure re-sends all (stage 2 drops the duplicates)."""
        try:
            self._await([self._send(m) for m in messages])
        except KafkaError as exc:
            raise TransientError(f"produce failed: {type(exc).__name__}: {exc}", kind="produce") from exc

    def _write_findings(self, handled: list[Handled]) -> list[tuple[RecordLike, ErrorKind, str]]:
        source: dict[str, RecordLike] = {}
        findings: list[Finding] = []
        for h in handled:
            for f in h.findings:
                if f.finding_id not in source:
                    source[f.finding_id] = h.record
                    findings.append(f)
        dead: list[tuple[RecordLike, ErrorKind, str]] = []
        for chunk in self.api.chunks(findings):
            result: ChunkResult = self._retry("api", lambda c=chunk: self.api.write_chunk(c))  # type: ignore[misc]
            self.metrics.api_requests.inc(result.requests)
            for rej in result.rejected:
                self.metrics.api_errors.labels("rejected").inc()
                log.error(
                    "review API rejected a finding (%s): %s",
                    rej.status,
                    rej.message,
                    extra={"event_id": rej.finding.finding_id, "detector": rej.finding.detector},
                )
                dead.append(
                    (source[rej.finding.finding_id], "processing", f"review API {rej.status}: {rej.message}")
                )
        return dead

    def _produce_dead_letters(self, dead: list[tuple[RecordLike, ErrorKind, str]]) -> None:
        if not dead:
            return
        now = datetime.fromtimestamp(self.clock(), UTC)
        messages: list[Message] = []
        seen: set[int] = set()
        for record, kind, reason in dead:
            if id(record) in seen:  # one record, several rejected findings: one dead letter
                continue
            seen.add(id(record))
            letter = DeadLetter(
                topic=record.topic,
                partition=record.partition,
                offset=record.offset,
                error_kind=kind,
                error=reason + _truncation_note(record.value),
                failed_at=now,
                key_b64=DeadLetter.encode_bytes(record.key),
                value_b64=DeadLetter.encode_bytes((record.value or b"")[:DLQ_VALUE_LIMIT]) or "",
            )
            messages.append(
                (dlq_topic(record.topic), record.key, letter.model_dump_json().encode(), [], None)
            )
            self.metrics.dead_letters.labels(record.topic, kind).inc()
            log.warning(
                "dead-lettered: %s",
                reason,
                extra={
                    "topic": record.topic,
                    "partition": record.partition,
                    "offset": record.offset,
                    "kind": kind,
                },
            )
        self._retry("dlq", lambda: self._send_all(messages))

    def _count(self, handled: list[Handled]) -> None:
        for h in handled:
            for f in h.findings:
                self.metrics.findings.labels(f.detector).inc()
            for e in h.errors:
                self.metrics.detector_errors.labels(e.detector).inc()
                log.error(
                    "detector failed: %s", e.error, extra={"detector": e.detector, "event_id": e.event_id}
                )
            for name in h.skipped:
                self.metrics.skipped.labels(name).inc()
            if h.findings:
                self.metrics.events_out.labels(h.record.topic, "finding").inc(len(h.findings))
        anomalies = getattr(self.processor, "anomalies", None)
        if callable(anomalies):
            for (detector, kind), n in anomalies().items():
                self.metrics.anomalies.labels(detector, kind).set(n)

    def _commit(self, records: Sequence[RecordLike]) -> None:
        """Commit the batch's offsets: every effect of the batch is acknowledged by now. Without
        waiting for the broker's answer unless `async_commit` is off (see `consumers.commits`); a
        commit that never lands (crash, rebalance) means re-processing from the previous one, which
        the idempotent writes absorb."""
        assigned = set(self.consumer.assignment())
        offsets = {tp: om for tp, om in commit_offsets(records).items() if tp in assigned}
        if not offsets:
            return
        if self.config.async_commit:
            self._commits.sent(offsets)
            self.consumer.commit_async(offsets, callback=self._commits.answered)
        else:
            try:
                self._retry("commit", lambda: self._commit_once(offsets))
            except CommitFailedError as exc:
                # The group rebalanced under us: the new owner re-processes; writes are idempotent.
                log.warning("commit lost to a rebalance: %s", exc, extra={"group": self.config.group})
                return
        self.status.last_commit_at = self.clock()
        for tp, om in offsets.items():
            high = self._highwater(tp)
            if high is not None:
                self.metrics.lag.labels(tp.topic, str(tp.partition)).set(max(0, high - om.offset))

    def _settle_commits(self) -> None:
        """Commit, synchronously, the offsets whose asynchronous commit failed or is unanswered."""
        failed, offsets = self._commits.take(set(self.consumer.assignment()))
        if not offsets:
            return
        if failed:
            log.warning("asynchronous commit failed; committing again", extra={"group": self.config.group})
        try:
            self._retry("commit", lambda: self._commit_once(offsets))
        except CommitFailedError as exc:
            log.warning("commit lost to a rebalance: %s", exc, extra={"group": self.config.group})

    def _commit_once(self, offsets: dict[TopicPartition, object]) -> None:
        try:
            self.consumer.commit(offsets)
        except CommitFailedError:
            raise
        except KafkaError as exc:
            raise TransientError(f"commit failed: {type(exc).__name__}", kind="commit") from exc

    def _highwater(self, tp: TopicPartition) -> int | None:
        value = self.consumer.highwater(tp)
        return None if value is None else int(value)

    # ConsumerRebalanceListener. kafka-python 3 calls these on its IO thread, where no blocking
    # consumer call is allowed: they only record the change, and the lane's own thread applies it
    # right after `poll()` returns, before any record of the new assignment is processed.
    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        """Every completed batch is already committed; nothing to flush."""
        self._pending_assignment = None
        self.processor.on_revoked(revoked)

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        """Remember the assignment; `_apply_assignment` rebuilds state on the lane's thread."""
        self._pending_assignment = set(assigned)

    def _apply_assignment(self) -> None:
        assigned, self._pending_assignment = self._pending_assignment, None
        if assigned is None:
            return

        def offset_of(tp: TopicPartition) -> int | None:
            value = self.consumer.committed(tp)
            return None if value is None else int(value)

        self.processor.on_assigned(assigned, offset_of)
        self.status.joined = True
        self.status.partitions = len(assigned)
        log.info("partitions assigned", extra={"group": self.config.group, "count": len(assigned)})
