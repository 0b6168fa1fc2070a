"""A lane's blocked partitions: what it does when `poll()` raises, and how a skip request ends it.

See `consumers.poison` for why: the lane pauses everything, the probe names the partitions whose
batch cannot be decoded, those stay paused (metric, log line, `/readyz`) and the rest resume. A
skip request covering a blocked offset dead-letters the range (one dead letter per offset, kind
`undecodable`, no value: there is nothing readable to keep), commits past it once the dead
letters are acknowledged, seeks there and resumes the partition.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from kafka import TopicPartition
from kafka.structs import OffsetAndMetadata

from consumers.deadletters import skipped_message
from consumers.kafka_compat import drop_parked_batch
from consumers.metrics import ConsumerMetrics
from consumers.poison import BatchProbe, Blocked, SkipBook
from consumers.ports import ConsumerPort, Message

log = logging.getLogger("railbird.consumer")

RETRY_CAP_S = 30.0


@dataclass
class PartitionGuard:
    """The blocked partitions of one lane and the probe that finds them."""

    probe: BatchProbe
    skips: SkipBook
    metrics: ConsumerMetrics
    group: str
    report: dict[str, str]
    """The lane status's view ("topic/partition" -> "offset N: error"), shown by /readyz."""
    clock: Callable[[], float] = time.time
    blocked: dict[TopicPartition, Blocked] = field(default_factory=dict)
    unexplained: int = 0
    """Poll failures in a row that no partition's data reproduced."""

    def poll_failed(self, consumer: ConsumerPort, exc: Exception) -> float:
        """Pause every partition, block those whose batch fails, resume the rest; the seconds to
        wait before polling again (0 when the failure was explained)."""
        assigned = set(consumer.assignment())
        if assigned:
            consumer.pause(*assigned)  # first: kafka-python spins on a fetchable broken batch
        positions = {tp: int(consumer.position(tp)) for tp in assigned if tp not in self.blocked}
        failing = self.probe.failing(positions)
        for tp, error in failing.items():
            self._block(tp, positions[tp], error)
        if others := assigned - set(self.blocked):
            consumer.resume(*others)
        if failing:
            self.unexplained = 0
            return 0.0
        self.unexplained += 1
        delay = min(RETRY_CAP_S, 0.1 * float(2 ** min(self.unexplained, 9)))
        log.error("poll failed and no partition's data reproduces it; retrying in %.1fs: %s: %s", delay,
                  type(exc).__name__, exc, extra={"group": self.group, "count": self.unexplained})
        return delay

    def _block(self, tp: TopicPartition, offset: int, error: str) -> None:
        self.blocked[tp] = Blocked(offset=offset, error=error, since=self.clock())
        self.report[f"{tp.topic}/{tp.partition}"] = f"offset {offset}: {error}"
        self.metrics.blocked.labels(tp.topic, str(tp.partition)).set(1)
        self.metrics.undecodable.labels(tp.topic).inc()
        log.error(
            "undecodable batch: partition paused, every other one goes on; dead-letter it with "
            "`railbird skip --topic %s --partition %d --offset %d`: %s", tp.topic, tp.partition, offset, error,
            extra={"topic": tp.topic, "partition": tp.partition, "offset": offset, "group": self.group},
        )

    def forget(self, revoked: set[TopicPartition]) -> None:
        """Stop tracking partitions (on a new assignment, on the lane's thread): their owner probes
        again when it meets the same batch."""
        for tp in revoked & set(self.blocked):
            self._unblock(tp)

    def _unblock(self, tp: TopicPartition) -> None:
        del self.blocked[tp]
        self.report.pop(f"{tp.topic}/{tp.partition}", None)
        self.metrics.blocked.labels(tp.topic, str(tp.partition)).set(0)

    def skip_due(
        self,
        consumer: ConsumerPort,
        send: Callable[[list[Message]], None],
        commit: Callable[[dict[TopicPartition, OffsetAndMetadata]], None],
    ) -> int:
        """Apply the skip requests that cover a blocked partition's offset: `send` the dead letters
        (returns once acknowledged), `commit` past the range, seek there, resume. How many
        partitions were unblocked."""
        done = 0
        for tp, block in list(self.blocked.items()):
            request = self.skips.covering(tp, block.offset)
            if request is None:
                continue
            now = datetime.fromtimestamp(self.clock(), UTC)
            reason = f"skipped by operator request ({request.reason}); undecodable batch: {block.error}"
            send([skipped_message(tp.topic, tp.partition, o, reason, now) for o in range(block.offset, request.to_offset)])
            self.metrics.dead_letters.labels(tp.topic, "undecodable").inc(request.to_offset - block.offset)
            commit({tp: OffsetAndMetadata(request.to_offset, "", -1)})
            consumer.seek(tp, request.to_offset)
            drop_parked_batch(consumer, tp)  # else kafka-python never fetches it again (kafka_compat)
            consumer.resume(tp)
            self._unblock(tp)
            done += 1
            log.warning("skipped offsets %d..%d (dead-lettered) and resumed", block.offset, request.to_offset - 1,
                        extra={"topic": tp.topic, "partition": tp.partition, "offset": request.to_offset, "group": self.group})
        return done
