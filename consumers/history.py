"""Reads the retained recent past of one partition, for rebuilding a detector's state."""

from __future__ import annotations

import time
from collections.abc import Iterator

from kafka import KafkaConsumer, TopicPartition

from consumers.ports import RecordLike


class KafkaHistoryReader:
    """A group-less consumer that replays `[now - lookback, until_offset)` of a partition."""

    def __init__(self, *, bootstrap: str, poll_timeout_ms: int = 500, max_idle_polls: int = 20) -> None:
        self._bootstrap = bootstrap
        self._poll_timeout_ms = poll_timeout_ms
        self._max_idle_polls = max_idle_polls

    def read(self, tp: TopicPartition, *, lookback_s: float, until_offset: int) -> Iterator[RecordLike]:
        """Records of `tp` newer than the lookback and below `until_offset`, in order."""
        consumer = KafkaConsumer(
            bootstrap_servers=self._bootstrap,
            enable_auto_commit=False,
            group_id=None,
            client_id="railbird-history",
        )
        try:
            consumer.assign([tp])
            start = self._start_offset(consumer, tp, lookback_s, until_offset)
            if start >= until_offset:
                return
            consumer.seek(tp, start)
            idle = 0
            while idle < self._max_idle_polls:
                batch = consumer.poll(timeout_ms=self._poll_timeout_ms).get(tp, [])
                idle = 0 if batch else idle + 1
                for record in batch:
                    if record.offset >= until_offset:
                        return
                    yield record
                if consumer.position(tp) >= until_offset:
                    return
        finally:
            consumer.close()

    @staticmethod
    def _start_offset(consumer: KafkaConsumer, tp: TopicPartition, lookback_s: float, until_offset: int) -> int:
        beginning = int(consumer.beginning_offsets([tp])[tp])
        since_ms = int((time.time() - lookback_s) * 1000)
        found = consumer.offsets_for_times({tp: since_ms}).get(tp)
        # Kafka answers None when every record is older; tansu answers offset 0 with timestamp -1.
        # Either way nothing in the lookback: nothing to replay.
        if found is None or found.timestamp < 0:
            return until_offset
        return max(beginning, int(found.offset))
