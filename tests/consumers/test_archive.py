"""The event archive: segment files (framing, torn tails, duplicates, retention) and the round
trip through a real embedded broker (archiver group -> files -> range read), with the Kafka
range reader giving the same records from the topics' retention."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from kafka import KafkaProducer

from consumers.archive import (
    ArchivedRecord,
    SegmentWriter,
    bucket_of,
    buckets,
    coverage,
    holds,
    purge,
    read_range,
)
from consumers.archiver import Archiver, ArchiverConfig, KafkaRangeReader
from consumers.broker import EmbeddedBroker, free_port
from consumers.topics import ensure_topics
from pipeline.contracts import CHAT, SEAT
from tests.consumers.streaming_harness import wait_until
from tests.samples import T0, chat_value

MS = 1000
T0_MS = int(T0.timestamp() * MS)


def rec(offset: int, ts_ms: int, *, topic: str = CHAT, partition: int = 0) -> ArchivedRecord:
    return ArchivedRecord(topic, partition, offset, ts_ms, f"value-{topic}-{partition}-{offset}".encode())


def test_records_come_back_once_each_in_partition_order_merged_by_time(tmp_path: Path) -> None:
    first = SegmentWriter(tmp_path, name="a")
    first.append([rec(0, T0_MS + 10), rec(1, T0_MS + 30), rec(0, T0_MS + 20, topic=SEAT)])
    first.sync()
    # A second process got the same records again (crash between fsync and commit) and went on.
    again = SegmentWriter(tmp_path, name="b")
    again.append([rec(1, T0_MS + 30), rec(2, T0_MS + 40), rec(1, T0_MS + 25, topic=SEAT)])
    again.close()
    first.close()
    got = list(read_range(tmp_path, T0_MS, T0_MS + 3_600_000))
    assert [(r.topic, r.offset) for r in got] == [(CHAT, 0), (SEAT, 0), (SEAT, 1), (CHAT, 1), (CHAT, 2)]
    assert got[3].value == b"value-chat.messages-0-1"
    assert [r.offset for r in read_range(tmp_path, T0_MS + 25, T0_MS + 40)] == [1, 1]  # seat 1, chat 1


def test_a_torn_or_damaged_tail_is_read_up_to_and_other_files_are_not_affected(tmp_path: Path) -> None:
    writer = SegmentWriter(tmp_path, name="torn")
    writer.append([rec(n, T0_MS + n) for n in range(5)])
    writer.close()
    path = next((tmp_path / bucket_of(T0_MS)).glob("*.seg"))
    data = path.read_bytes()
    path.write_bytes(data[:-7])  # the last record cut short
    assert [r.offset for r in read_range(tmp_path, T0_MS, T0_MS + 100)] == [0, 1, 2, 3]
    damaged = bytearray(data)
    damaged[len(data) // 2] ^= 0xFF  # a flipped byte inside the third record
    path.write_bytes(bytes(damaged))
    assert [r.offset for r in read_range(tmp_path, T0_MS, T0_MS + 100)] == [0, 1]


def test_hours_coverage_and_retention(tmp_path: Path) -> None:
    writer = SegmentWriter(tmp_path, name="w")
    hours = [T0 - timedelta(days=40), T0 - timedelta(days=2), T0]
    writer.append([rec(n, int(h.timestamp() * MS)) for n, h in enumerate(hours)])
    writer.close()
    (tmp_path / "not-an-hour").mkdir()
    assert len(buckets(tmp_path)) == 3
    assert coverage(tmp_path) == (hours[0], T0 + timedelta(hours=1))
    assert holds(tmp_path, T0 - timedelta(minutes=30), T0 + timedelta(minutes=1))
    assert not holds(tmp_path, T0 - timedelta(days=1), T0)
    gone = purge(tmp_path, retention_days=30, now=T0)
    assert gone == [bucket_of(int(hours[0].timestamp() * MS))]
    assert [r.offset for r in read_range(tmp_path, 0, T0_MS + 3_600_000)] == [1, 2]
    assert purge(tmp_path, retention_days=0, now=T0 + timedelta(days=999)) == []


@pytest.mark.kafka
@pytest.mark.timeout(120)
def test_archiver_round_trip_through_the_broker_and_kafka_range_read(tmp_path: Path) -> None:
    with EmbeddedBroker(port=free_port()) as broker:
        ensure_topics(broker.bootstrap, partitions=3)
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", linger_ms=5)
        sent = []
        for n in range(120):
            ts = T0 + timedelta(minutes=n)  # two hours of event (and record) time
            value = chat_value(event_id=f"chat-{n}", player_id=f"p{n % 7}", ts=ts.isoformat(), text=f"line {n}")
            raw = json.dumps(value).encode()
            producer.send(CHAT, key=value["player_id"].encode(), value=raw, timestamp_ms=int(ts.timestamp() * MS))
            sent.append(raw)
        producer.flush()
        root = tmp_path / "archive"
        config = ArchiverConfig(bootstrap=broker.bootstrap, root=root, group_prefix="t-archive", retention_days=0)
        stop = threading.Event()
        archiver = Archiver(config)
        thread = threading.Thread(target=archiver.run, args=(stop,), daemon=True)
        thread.start()
        wait_until(lambda: archiver.archived >= len(sent), 60, "the archiver to write every record")
        stop.set()
        thread.join(30)
        assert not thread.is_alive()

        # Offsets were committed after the fsync: a restarted archiver has nothing to copy again.
        restarted = Archiver(config)
        restarted.consumer.subscribe([CHAT])
        try:
            for _ in range(15):
                restarted.step()
        finally:
            restarted.writer.close()
            restarted.consumer.close(autocommit=False)
        assert restarted.archived == 0

        everything = list(read_range(root, 0, T0_MS + 10 * 3_600_000))
        assert sorted(r.value for r in everything) == sorted(sent)
        assert len(buckets(root)) == 2
        for partition in {r.partition for r in everything}:
            offsets = [r.offset for r in everything if r.partition == partition]
            assert offsets == sorted(offsets)
        window = (T0_MS + 30 * 60 * MS, T0_MS + 90 * 60 * MS)
        from_archive = [(r.partition, r.offset, r.value) for r in read_range(root, *window)]
        assert len(from_archive) == 60
        from_kafka = [(r.partition, r.offset, r.value)
                      for r in KafkaRangeReader(broker.bootstrap, max_idle_polls=5).read(*window)]
        assert sorted(from_kafka) == sorted(from_archive)
        assert [r.timestamp_ms for r in read_range(root, *window)] == sorted(
            r.timestamp_ms for r in read_range(root, *window))


def test_a_commit_lost_to_a_rebalance_keeps_the_records_and_the_archiver_running(tmp_path: Path) -> None:
    from kafka.errors import CommitFailedError

    class Record:
        def __init__(self, offset: int) -> None:
            self.topic, self.partition, self.offset = CHAT, 0, offset
            self.timestamp, self.value = T0_MS + offset, b"v%d" % offset

    class Rebalanced:
        def poll(self, timeout_ms: int, max_records: int) -> dict[object, list[Record]]:
            return {"tp": [Record(0), Record(1)]}

        def commit(self, offsets: object) -> None:
            raise CommitFailedError("partitions were reassigned")

    config = ArchiverConfig(bootstrap="unused:0", root=tmp_path, retention_days=0)
    archiver = Archiver(config, consumer=Rebalanced())
    assert archiver.step() == 2 and archiver.step() == 2
    archiver.writer.close()
    assert [r.value for r in read_range(tmp_path, 0, T0_MS + 10)] == [b"v0", b"v1"]  # written twice, read once
