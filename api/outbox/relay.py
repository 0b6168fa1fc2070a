"""The outbox relay: publish unpublished rows to `enforcement.events`, mark them only after the ack.

At-least-once: a crash between the broker's ack and our update republishes the event, with the same
CloudEvent id, so game servers de-duplicate on it. Failures back off exponentially and retry forever.

Latency: the relay is woken when a transaction that enqueued events commits (a SQLAlchemy
`after_commit` hook on the app's session factory), so an event leaves within one produce round trip
of its sanction's commit instead of up to a polling interval later; `interval_s` remains as the
fallback poll (events written by another process, e.g. a second API worker or a CLI command).
The relay thread does not wait for its own "published" update either: acknowledged events are
handed to a marker thread (`_Marker`), and until it has written them they are kept out of the next
batches by their seq. On SQLite that update waits for the write lock the API's ingestion holds; a
relay that waited for it would delay every event enqueued meanwhile by that much.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, Protocol

from kafka.errors import KafkaError
from sqlalchemy import event
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from api.ids import Clock, utc_now
from api.outbox import service
from pipeline.contracts.enforcement import STRUCTURED_CONTENT_TYPE

log = logging.getLogger(__name__)


class SendFuture(Protocol):
    """What `send` returns: resolves when the broker acknowledged (or failed)."""

    def get(self, timeout: float | None = None) -> Any: ...


CLOUDEVENTS_HEADERS = [("content-type", STRUCTURED_CONTENT_TYPE.encode())]
"""CloudEvents Kafka protocol binding, structured mode: the value is the whole event as JSON (what
it always was, so game servers parsing the value are unaffected) and this header says so, which
is how an SDK's Kafka binding tells structured from binary mode. Binary mode (`ce_*` headers, the
value only `data`) was not chosen: it would change every record's value under existing readers."""


class Producer(Protocol):
    """The slice of kafka-python's KafkaProducer the relay uses (tests pass fakes)."""

    def send(self, topic: str, value: bytes | None = None, key: bytes | None = None,
             headers: list[tuple[str, bytes]] | None = None) -> SendFuture: ...

    def flush(self, timeout: float | None = None) -> None: ...

    def close(self, timeout: float | None = None) -> None: ...


def kafka_producer(bootstrap: str, compression: str | None = "gzip") -> Producer:
    """A KafkaProducer that waits for all in-sync replicas before acknowledging; `compression` is
    kafka-python's `compression_type` of `Settings.events_compression` (gzip by default: every
    game server's client reads it)."""
    from kafka import KafkaProducer

    producer: Producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=5, linger_ms=5,
                                       request_timeout_ms=10_000, max_block_ms=10_000,
                                       compression_type=compression)
    return producer


class _Marker:
    """Writes `published_at` for acknowledged events off the relay's thread; retries until it can."""

    def __init__(self, relay: Relay) -> None:
        self.relay = relay
        self.pending: queue.SimpleQueue[list[int]] = queue.SimpleQueue()
        self.unmarked: set[int] = set()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.run, name="outbox-marker", daemon=True)
        self.done = threading.Event()

    def submit(self, seqs: list[int]) -> None:
        with self.lock:
            self.unmarked.update(seqs)
        self.pending.put(seqs)

    def excluded(self) -> set[int]:
        with self.lock:
            return set(self.unmarked)

    def run(self) -> None:
        backoff = self.relay.interval_s
        seqs: list[int] = []
        while True:
            if not seqs:
                try:
                    seqs = self.pending.get(timeout=0.2)
                except queue.Empty:
                    if self.done.is_set():
                        return
                    continue
            while not self.pending.empty():  # one update for everything acknowledged meanwhile
                seqs.extend(self.pending.get_nowait())
            try:
                with self.relay.sessions() as session:
                    service.mark_published(session, seqs=seqs, now=self.relay.clock())
            except SQLAlchemyError as exc:
                # Still unmarked and excluded: not republished by this process; a restart before the
                # update succeeds republishes them with their ids (at-least-once).
                log.warning("outbox relay: marking %d events failed: %s; retrying", len(seqs), exc)
                if self.done.is_set():
                    return  # stopping: leave them to the next start's relay
                self.done.wait(backoff)
                backoff = min(backoff * 2, self.relay.max_backoff_s)
                continue
            backoff = self.relay.interval_s
            with self.lock:
                self.unmarked.difference_update(seqs)
            seqs = []


class Leadership(Protocol):
    """Who may publish when several API workers each run a relay (`api.outbox.leader`)."""

    def leading(self) -> bool: ...

    def start(self) -> None: ...

    def stop(self, timeout_s: float = 5.0) -> None: ...


class Relay:
    """Background thread draining the outbox; `stop()` finishes the current batch and closes.

    `leadership`: None when this is the only relay (one API process); otherwise the relay publishes
    only while `leadership.leading()`, and the leadership wakes it (PostgreSQL NOTIFY)."""

    def __init__(self, *, sessions: sessionmaker[Session], producer_factory: Callable[[], Producer], topic: str,
                 interval_s: float = 0.1, batch: int = 500, max_backoff_s: float = 30.0,
                 clock: Clock = utc_now, leadership: Callable[[Callable[[], None]], Leadership] | None = None) -> None:
        self.sessions, self.producer_factory, self.topic = sessions, producer_factory, topic
        self._leadership = leadership(self.wake) if leadership is not None else None
        self.interval_s, self.batch, self.max_backoff_s, self.clock = interval_s, batch, max_backoff_s, clock
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._producer: Producer | None = None
        self._marker: _Marker | None = None
        self.published = 0

    def start(self) -> None:
        """Run in a daemon thread, woken by every commit that enqueued events."""
        event.listen(self.sessions, "after_commit", self._after_commit)
        event.listen(self.sessions, "after_soft_rollback", self._after_rollback)
        self._marker = _Marker(self)
        self._marker.thread.start()
        self._thread = threading.Thread(target=self.run, name="outbox-relay", daemon=True)
        self._thread.start()
        if self._leadership is not None:
            self._leadership.start()

    def wake(self) -> None:
        """Publish now rather than at the next poll."""
        self._wake.set()

    def _after_commit(self, session: Session) -> None:
        if session.info.pop(service.ENQUEUED, False):
            self.wake()

    def _after_rollback(self, session: Session, previous_transaction: object) -> None:
        session.info.pop(service.ENQUEUED, None)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Ask the loop to end, wait for it, close the producer."""
        if event.contains(self.sessions, "after_commit", self._after_commit):
            event.remove(self.sessions, "after_commit", self._after_commit)
            event.remove(self.sessions, "after_soft_rollback", self._after_rollback)
        self._stop.set()
        self._wake.set()
        if self._leadership is not None:
            self._leadership.stop(timeout_s)
        if self._thread is not None:
            self._thread.join(timeout_s)
        if self._marker is not None:  # writes what was acknowledged before it stops
            self._marker.done.set()
            self._marker.thread.join(timeout_s)
            self._marker = None
        if self._producer is not None:
            self._producer.close(timeout=5)
            self._producer = None

    def run(self) -> None:
        """Loop until stopped: publish a batch, sleep when idle, back off on failure."""
        backoff = self.interval_s
        while not self._stop.is_set():
            try:
                # Cleared before reading: a commit during this batch wakes the next one at once.
                self._wake.clear()
                if self._leadership is not None and not self._leadership.leading():
                    self._wake.wait(self.interval_s)  # another worker's relay publishes
                    continue
                sent = self.run_once()
                backoff = self.interval_s
                if sent == 0:
                    self._wake.wait(self.interval_s)
            except (KafkaError, SQLAlchemyError, OSError) as exc:
                log.warning("outbox relay: %s: %s; retrying in %.1fs", type(exc).__name__, exc, backoff)
                self._drop_producer()
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self.max_backoff_s)

    def run_once(self) -> int:
        """Publish one batch of pending events; returns how many the broker acknowledged. Marked
        published before returning, unless the relay's thread runs it (then the marker does)."""
        marker = self._marker if threading.current_thread() is self._thread else None
        with self.sessions() as session:
            excluded = marker.excluded() if marker is not None else set()
            rows = [r for r in service.pending(session, limit=self.batch + len(excluded)) if r.seq not in excluded]
            rows = rows[: self.batch]
            if not rows:
                return 0
            producer = self._producer or self._connect()
            futures = [(r.seq, producer.send(self.topic, value=r.body.encode(), key=r.player_id.encode(),
                                             headers=CLOUDEVENTS_HEADERS)) for r in rows]
            producer.flush(timeout=30)
            acked: list[int] = []
            failed: list[int] = []
            error = ""
            for seq, future in futures:
                try:
                    future.get(timeout=30)
                    acked.append(seq)
                except KafkaError as exc:
                    failed.append(seq)
                    error = f"{type(exc).__name__}: {exc}"
            if marker is not None and acked:
                marker.submit(acked)
            else:
                service.mark_published(session, seqs=acked, now=self.clock())
            self.published += len(acked)
            if failed:
                service.mark_failed(session, seqs=failed, error=error)
                raise KafkaError(f"{len(failed)} events not acknowledged: {error}")
            return len(acked)

    def _connect(self) -> Producer:
        self._producer = self.producer_factory()
        return self._producer

    def _drop_producer(self) -> None:
        if self._producer is not None:
            try:
                self._producer.close(timeout=1)
            except KafkaError:
                log.debug("closing a failed producer raised; dropping it anyway")
            self._producer = None
