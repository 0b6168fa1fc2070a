"""One consumer group's loop: poll a batch, process it, write its effects, then commit.

Offsets follow side effects. A batch is committed only after (1) every re-keyed record and
(2) every dead letter was acknowledged by the broker and (3) every finding was acknowledged by the
review API. Transient failures are retried with backoff, forever, without committing; meanwhile the
partitions are paused and `poll()` keeps being called, so the group membership (and
`max_poll_interval_ms`) stays alive while nothing new is fetched: that is the back-pressure.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from kafka import ConsumerRebalanceListener, TopicPartition
from kafka.errors import CommitFailedError, KafkaError
from kafka.structs import OffsetAndMetadata

from consumers.api_client import ReviewApiClient
from consumers.blocking import PartitionGuard
from consumers.bundle import expand
from consumers.commits import PendingCommits
from consumers.deadletters import letter_message
from consumers.metrics import ConsumerMetrics, count_batch
from consumers.outgoing import await_sends, bundle_routes, send_all, start_sends
from consumers.poison import BatchProbe, NullProbe, SkipBook
from consumers.ports import ConsumerPort, Message, ProducerPort, RecordLike, SendFuture, commit_offsets
from consumers.processing import Handled, Processor, Route
from consumers.retry import Backoff, StopRequestedError, TransientError, retry_forever
from consumers.writer import Dead, FindingsWriter

log = logging.getLogger("railbird.consumer")
T = TypeVar("T")
__all__ = ["Lane", "LaneConfig", "LaneStatus", "Message"]


@dataclass
class InFlight:
    """A processed batch whose effects are on their way: committed once all are acknowledged."""

    records: Sequence[RecordLike]
    handled: list[Handled]
    routes: list[Route]
    outgoing: list[Message]
    sends: list[SendFuture] | KafkaError
    written: Future[list[Dead]] | list[Dead]
    started: float


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
    overlap_writes: bool = False
    """Poll and process the next batch while this one's findings are written and its re-keyed
    records acknowledged (see `consumers.writer`); its offsets are still committed only after.
    Off (the default: on the 2-core bench it measured no better, docs/operations.md "Figures"):
    one batch at a time, each committed before the next poll."""


@dataclass
class LaneStatus:
    """What /readyz needs to know about a lane."""

    joined: bool = False
    partitions: int = 0
    last_commit_at: float = 0.0
    retrying: str = ""
    blocked: dict[str, str] = field(default_factory=dict)
    """Partitions paused on an undecodable batch: "topic/partition" -> "offset N: error"."""


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
    probe: BatchProbe = field(default_factory=NullProbe)
    """Finds the partition of a batch `poll()` could not decode (`consumers.poison`)."""
    skips: SkipBook = field(default_factory=SkipBook)
    _guard: PartitionGuard = field(init=False, repr=False)
    _pending_assignment: set[TopicPartition] | None = field(default=None, init=False, repr=False)
    _commits: PendingCommits = field(default_factory=PendingCommits, init=False, repr=False)
    _in_flight: InFlight | None = field(default=None, init=False, repr=False)
    _writer: FindingsWriter = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._guard = PartitionGuard(
            probe=self.probe, skips=self.skips, metrics=self.metrics, group=self.config.group,
            report=self.status.blocked, clock=self.clock,
        )
        self._writer = FindingsWriter(
            api=self.api,
            metrics=self.metrics,
            backoff=self.backoff,
            should_stop=self.stop.is_set,
            on_retry=self._retrying,
        )

    def run(self) -> None:
        """Loop until `stop` is set; the batch in hand is finished and committed, then close."""
        try:
            while not self.stop.is_set():
                self.step()
            self.drain()
            self._settle_commits()
        except StopRequestedError:
            log.warning(
                "stopping with a batch in hand; it will be redelivered", extra={"group": self.config.group}
            )
        finally:
            self._writer.close()
            self.consumer.close(autocommit=False)

    def step(self) -> int:
        """Poll once and handle what came; the number of records handled."""
        if self._commits.failed:
            self._settle_commits()
        try:
            polled = self.consumer.poll(
                timeout_ms=self.config.poll_timeout_ms, max_records=self.config.max_records
            )
        except Exception as exc:  # noqa: BLE001 - no input may stop the lane (consumers/poison.py)
            self.stop.wait(self._guard.poll_failed(self.consumer, exc))
            return 0
        if self._guard.blocked:
            self._guard.skip_due(self.consumer, self._send_dead_letters, self._commit_skip)
        if self._pending_assignment is not None:
            # Commit the batch in hand first: the rebuild compares each partition's committed
            # offset with the state's, and a state that is exact needs no replay.
            self.drain()
        self._apply_assignment()
        records = expand([r for batch in polled.values() for r in batch])
        if not records:
            self.drain()
        elif self.config.overlap_writes:
            started = time.monotonic()
            handled = self._process(records)  # while the previous batch is being written
            self.drain()
            self._in_flight = self._start(records, handled, started, background=True)
        else:
            self.handle_batch(records)
        return len(records)

    def handle_batch(self, records: Sequence[RecordLike]) -> None:
        """Process, route, write, dead-letter, then commit one polled batch."""
        started = time.monotonic()
        self._finish(self._start(records, self._process(records), started, background=False))

    def _process(self, records: Sequence[RecordLike]) -> list[Handled]:
        for topic, n in Counter(r.topic for r in records).items():
            self.metrics.events_in.labels(topic).inc(n)
        return self.processor.handle_batch(records)

    def _start(self, records: Sequence[RecordLike], handled: list[Handled], started: float, *, background: bool) -> InFlight:
        """Hand the batch's findings to the writer (its own thread when `background`) and its
        re-keyed and changelog records to the producer; nothing is awaited here."""
        written: Future[list[Dead]] | list[Dead]
        if background:
            # The API write first: it is what an automatic mute waits for.
            written = self._writer.submit(handled, self._sleep)
        routes = [route for h in handled for route in h.routes]
        outgoing = bundle_routes(self.producer, routes) + self.processor.drain_changelog()
        sends = start_sends(self.producer, outgoing)
        if not background:  # the sends are in flight during the write
            written = self._writer.write(handled, self._wait)
        return InFlight(records, handled, routes, outgoing, sends, written, started)

    def drain(self) -> None:
        """Finish the batch in hand, if any: wait for its writes and acks, then commit it."""
        batch, self._in_flight = self._in_flight, None
        if batch is not None:
            self._finish(batch)

    def _finish(self, batch: InFlight) -> None:
        """Wait for every effect of the batch, dead-letter what failed, then commit."""
        dead: list[Dead] = [(h.record, *h.dead) for h in batch.handled if h.dead is not None]
        dead.extend(self._written(batch.written))
        self._finish_routes(batch.routes, batch.outgoing, batch.sends)
        self._produce_dead_letters(dead)
        count_batch(self.metrics, batch.handled, self.processor.anomalies())
        self._commit(batch.records)
        elapsed = time.monotonic() - batch.started
        now_ms = self.clock() * 1000
        topic = batch.records[0].topic
        self.metrics.batch_seconds.labels(topic).observe(elapsed)
        latency = self.metrics.record_latency.labels(topic)
        for r in batch.records:
            latency.observe(max(0.0, (now_ms - r.timestamp) / 1000))

    def _retry(self, what: str, operation: Callable[[], T]) -> T:
        def on_error(exc: TransientError, attempt: int) -> None:
            self.status.retrying = what
            log.warning("%s failed, retrying: %s", what, exc, extra={"kind": exc.kind, "count": attempt})

        result = retry_forever(
            operation, backoff=self.backoff, wait=self._wait, should_stop=self.stop.is_set, on_error=on_error
        )
        if self.status.retrying:
            self.status.retrying = ""
            self._resume()
        return result

    def _retrying(self, what: str) -> None:
        self.status.retrying = what

    def _sleep(self, delay_s: float) -> None:
        """The writer thread's wait between retries (the lane's thread keeps the group alive)."""
        self.stop.wait(delay_s)

    def _written(self, written: Future[list[Dead]] | list[Dead]) -> list[Dead]:
        """The batch's rejected findings once its write is acknowledged. While the writer thread
        still works on it (a slow or failing API), every partition is paused and `poll()` keeps
        being called, as during the lane's own retries: the back-pressure."""
        done = self._result(written) if isinstance(written, Future) else written
        if self.status.retrying == "api":
            self.status.retrying = ""
            self._resume()
        return done

    def _result(self, future: Future[list[Dead]]) -> list[Dead]:
        try:
            return future.result(timeout=self.config.keepalive_s)
        except FutureTimeout:
            pass
        while not future.done():
            self._wait(0)  # pauses every partition and polls
            with contextlib.suppress(FutureTimeout):
                future.result(timeout=self.config.keepalive_s)
        self._resume()
        return future.result()

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
        """Resume what the lane paused itself; blocked partitions wait for their skip."""
        paused = set(self.consumer.paused()) - set(self._guard.blocked)
        if paused:
            self.consumer.resume(*paused)

    def _send_dead_letters(self, messages: list[Message]) -> None:
        self._retry("dlq", lambda: send_all(self.producer, messages, self.config.produce_timeout_s))

    def _commit_skip(self, offsets: dict[TopicPartition, OffsetAndMetadata]) -> None:
        try:
            self._retry("commit", lambda: self._commit_once(dict(offsets)))
        except CommitFailedError as exc:  # the new owner meets the batch and the request again
            log.warning("commit lost to a rebalance: %s", exc, extra={"group": self.config.group})

    def _finish_routes(
        self, routes: list[Route], outgoing: list[Message], in_flight: list[SendFuture] | KafkaError
    ) -> None:
        """Wait for the re-keyed bundles and changelog records; on a failure send them all again."""
        if not outgoing:
            return
        timeout = self.config.produce_timeout_s
        try:
            if isinstance(in_flight, KafkaError):
                raise in_flight
            await_sends(self.producer, in_flight, timeout)
        except KafkaError as exc:
            log.warning("producing the batch's re-keyed and changelog records failed, re-sending them: %s", exc, extra={"kind": "produce"})
            self._retry("rekey", lambda: send_all(self.producer, outgoing, timeout))
        for topic, n in Counter(r.topic for r in routes).items():
            self.metrics.events_out.labels(topic, "rekey").inc(n)

    def _produce_dead_letters(self, dead: list[Dead]) -> None:
        if not dead:
            return
        now = datetime.fromtimestamp(self.clock(), UTC)
        messages: list[Message] = []
        first: dict[int, Dead] = {}
        for d in dead:  # one record, several rejected findings: one dead letter (the first reason)
            first.setdefault(id(d[0]), d)
        for record, kind, reason in first.values():
            messages.append(letter_message(record, kind, reason, now))
            self.metrics.dead_letters.labels(record.topic, kind).inc()
            log.warning("dead-lettered: %s", reason, extra={"topic": record.topic, "partition": record.partition,
                                                            "offset": record.offset, "kind": kind})
        self._send_dead_letters(messages)

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

        # A new assignment un-pauses everything: a partition still holding its broken batch is
        # probed again when the lane meets it, by whichever process owns it now.
        self._guard.forget(set(self._guard.blocked))
        self.processor.on_assigned(assigned, offset_of)
        self.status.joined = True
        self.status.partitions = len(assigned)
        log.info("partitions assigned", extra={"group": self.config.group, "count": len(assigned)})
