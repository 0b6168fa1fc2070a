"""Reads the retained recent past of one partition, for rebuilding a detector's state, and a
changelog partition from its beginning to its end."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

from kafka import KafkaConsumer, TopicPartition

from consumers.ports import ISOLATION_LEVEL, RecordLike

log = logging.getLogger("railbird.consumer")


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
            isolation_level=ISOLATION_LEVEL,
        )
        try:
            consumer.assign([tp])
            start = self._start_offset(consumer, tp, lookback_s, until_offset)
            if start >= until_offset:
                return
            consumer.seek(tp, start)
            idle = 0
            while idle < self._max_idle_polls:
                batch = self._poll(consumer, tp)
                if batch is None:
                    continue
                idle = 0 if batch else idle + 1
                for record in batch:
                    if record.offset >= until_offset:
                        return
                    yield record
                if consumer.position(tp) >= until_offset:
                    return
        finally:
            consumer.close()

    def _poll(self, consumer: KafkaConsumer, tp: TopicPartition) -> list[RecordLike] | None:
        """One poll's records of `tp`, None when it stepped over an undecodable offset. A batch that
        cannot be decoded (consumers/poison.py) is stepped over one offset at a time, with a warning: its records were dead-lettered by
        `railbird skip` before the committed offset passed them, so the state never had them."""
        try:
            return list(consumer.poll(timeout_ms=self._poll_timeout_ms).get(tp, []))
        except Exception as exc:  # noqa: BLE001 - a rebuild must not stop on data
            position = int(consumer.position(tp))
            log.warning("undecodable record skipped in a replay: %s: %s", type(exc).__name__, exc,
                        extra={"topic": tp.topic, "partition": tp.partition, "offset": position})
            consumer.seek(tp, position + 1)  # a new position also drops kafka-python's broken batch
            return None

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

    def read_all(self, tp: TopicPartition) -> Iterator[RecordLike]:
        """Every record of `tp` from its beginning to its end (a changelog: compacted, so the last
        value of each key is there), in order.

        The end is the broker's end offset when the reader lands on it exactly (Apache Kafka);
        tansu answers the base offset of the last batch + 1, so when the reader overshoots it, it
        reads on until a poll brings nothing. Gives up, with a warning, after `max_idle_polls`
        empty polls short of the end."""
        consumer = KafkaConsumer(
            bootstrap_servers=self._bootstrap,
            enable_auto_commit=False,
            group_id=None,
            client_id="railbird-changelog",
            isolation_level=ISOLATION_LEVEL,
            fetch_max_wait_ms=20,  # tansu holds an empty fetch this long: the last poll's cost
            max_poll_records=10_000,
        )
        try:
            consumer.assign([tp])
            begin = int(consumer.beginning_offsets([tp])[tp])
            end = int(consumer.end_offsets([tp])[tp])
            if end <= begin:
                return
            consumer.seek(tp, begin)
            idle = 0
            while True:
                batch = self._poll(consumer, tp)
                if batch is None:
                    continue
                yield from batch
                position = int(consumer.position(tp))
                if batch:
                    idle = 0
                    if position == end:
                        return
                    continue
                if position > end:
                    return  # past tansu's short end, and nothing more came
                idle += 1
                if idle >= self._max_idle_polls:
                    log.warning("changelog read stopped short of its end", extra={"topic": tp.topic,
                                "partition": tp.partition, "offset": position})
                    return
        finally:
            consumer.close()
