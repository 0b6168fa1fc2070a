"""Writes a batch's findings to the review API, either on the lane's thread or on a writer thread.

Measured (docs/operations.md, "Figures"): on the 2-core bench the writer thread was no better for
the enforcement latency (three alternating runs each, p99 438/325/463 ms with it, 463/357/277 ms
without: the box is CPU-bound at 1,000 msg/s, so the overlap only moves the wait), hence off by
default (`RAILBIRD_CONSUMER_OVERLAP_WRITES`). The reasoning below holds where the API is a network
round trip away.

Why a writer thread (`LaneConfig.overlap_writes`): kafka-python keeps one fetch in flight per
broker and sends the next only from `poll()`. While the lane's thread waits for the API's answer
(~5-30 ms per batch on the 2-core bench), records that reach the broker wait for the next `poll()`
and then for that fetch: about one and a half batch times before they are even decoded. With the
write on its own thread the lane polls and processes batch N+1 while batch N is being written;
batch N's offsets are still committed only after its write (and its re-key and changelog acks)
were acknowledged, so nothing about delivery changes.

The writer keeps the API writes in batch order (one thread, first in first out): a player's
automatic mute is ingested before a later batch's escalation of the same player, so the outbox
(and `enforcement.events`) keeps one player's sanctions in order.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future

from consumers.api_client import ChunkResult, ReviewApiClient
from consumers.metrics import ConsumerMetrics
from consumers.ports import RecordLike
from consumers.processing import Handled
from consumers.retry import Backoff, TransientError, retry_forever
from pipeline.contracts.deadletter import ErrorKind
from pipeline.findings import Finding

log = logging.getLogger("railbird.consumer")

Dead = tuple[RecordLike, ErrorKind, str]
"""A record to dead-letter: the record, the kind of failure, the reason."""

Wait = Callable[[float], None]
"""Sleeps between retries; on the lane's thread it also keeps the group membership alive."""


def distinct_findings(handled: Sequence[Handled]) -> tuple[list[Finding], dict[str, RecordLike]]:
    """The batch's findings, each once (two records can complete the same finding), and the record
    each came from (where a rejected finding's dead letter points)."""
    source: dict[str, RecordLike] = {}
    seen: set[tuple[str, bool]] = set()
    findings: list[Finding] = []
    for h in handled:
        for f in h.findings:
            # A shadow copy's finding has the live one's id on purpose (pipeline/shadow.py): keep both.
            if (f.finding_id, f.shadow) not in seen:
                seen.add((f.finding_id, f.shadow))
                source.setdefault(f.finding_id, h.record)
                findings.append(f)
    return findings, source


class FindingsWriter:
    """The API side of a lane: chunked, idempotent writes retried until acknowledged."""

    def __init__(
        self,
        *,
        api: ReviewApiClient,
        metrics: ConsumerMetrics,
        backoff: Backoff,
        should_stop: Callable[[], bool],
        on_retry: Callable[[str], None],
    ) -> None:
        self._api = api
        self._metrics = metrics
        self._backoff = backoff
        self._should_stop = should_stop
        self._on_retry = on_retry
        self._jobs: queue.SimpleQueue[tuple[Future[list[Dead]], list[Handled], Wait] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def write(self, handled: Sequence[Handled], wait: Wait) -> list[Dead]:
        """Write every finding of the batch; the records whose findings the API rejected.
        Raises `StopRequestedError` when shutdown comes while the API is still failing."""
        findings, source = distinct_findings(handled)
        dead: list[Dead] = []
        for chunk in self._api.chunks(findings):
            result = self._retry(lambda c=chunk: self._api.write_chunk(c), wait)  # type: ignore[misc]
            self._metrics.api_requests.inc(result.requests)
            for rej in result.rejected:
                self._metrics.api_errors.labels("rejected").inc()
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

    def submit(self, handled: list[Handled], wait: Wait) -> Future[list[Dead]]:
        """Write on the writer thread, after every batch submitted before; the future holds the
        dead letters or the error (`StopRequestedError`, or a bug) the write ended with."""
        future: Future[list[Dead]] = Future()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="findings-writer", daemon=True)
            self._thread.start()
        self._jobs.put((future, handled, wait))
        return future

    def close(self) -> None:
        """Let the thread end once the jobs already submitted are done (it never blocks shutdown:
        a daemon, and a write still retrying ends at the stop flag)."""
        if self._thread is not None:
            self._jobs.put(None)
            self._thread = None

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, handled, wait = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(self.write(handled, wait))
            except BaseException as exc:  # noqa: BLE001 - handed to the lane's thread, which raises it
                future.set_exception(exc)

    def _retry(self, operation: Callable[[], ChunkResult], wait: Wait) -> ChunkResult:
        def on_error(exc: TransientError, attempt: int) -> None:
            self._on_retry("api")
            self._metrics.api_errors.labels(exc.kind).inc()
            log.warning("api failed, retrying: %s", exc, extra={"kind": exc.kind, "count": attempt})

        return retry_forever(
            operation, backoff=self._backoff, wait=wait, should_stop=self._should_stop, on_error=on_error
        )
