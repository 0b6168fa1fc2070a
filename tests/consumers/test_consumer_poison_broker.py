"""Undecodable batches on the real broker, through the real `serve` entry in a subprocess and the
real `railbird skip` command (issue 21, 3).

Two poisons: a snappy batch read by a consumer whose install lacks snappy (the issue's crash;
`RAILBIRD_TEST_HIDE_CODECS`), and a batch whose CRC was flipped after it was built (tansu stores
it as sent; kafka-python then raises CorruptRecordError and, polled again with the partition
fetchable, spins forever)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer, TopicPartition
from kafka.record.default_records import DefaultRecordBatchBuilder

from consumers.broker import EmbeddedBroker, free_port
from consumers.topics import ensure_topics
from pipeline.contracts import CHAT, INPUT_TOPICS, DeadLetter, dlq_topic
from pipeline.findings import stable_id
from tests.consumers.review_api_double import IngestStore, serve_review_api
from tests.consumers.streaming_harness import (
    PARTITIONS,
    ROOT,
    caught_up,
    chat_events,
    read_topic,
    start_process,
    wait_until,
)

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(180)]
PREFIX = "poison"


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker(port=free_port(), log_path=tmp_path / "broker.log") as b:
        ensure_topics(b.bootstrap, partitions=PARTITIONS, topics=list(INPUT_TOPICS))
        yield b


def send(bootstrap: str, events: list[dict[str, Any]], *, partition: int | None = None,
         compression: str | None = None) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=100, compression_type=compression)
    for e in events:
        producer.send(CHAT, key=e["player_id"].encode(), value=json.dumps(e).encode(), partition=partition)
    producer.flush(10)
    producer.close()


def send_corrupt(bootstrap: str, events: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """One batch into partition 0 whose last byte is flipped after its CRC was written."""
    original = DefaultRecordBatchBuilder.write_header

    def corrupt(self: DefaultRecordBatchBuilder, use_compression_type: bool = True) -> None:
        original(self, use_compression_type)
        self._buffer[-1] ^= 0xFF

    with monkeypatch.context() as m:
        m.setattr(DefaultRecordBatchBuilder, "write_header", corrupt)
        send(bootstrap, events, partition=0)
    assert struct  # the header layout is kafka-python's; nothing else of it is used


def skip(bootstrap: str, hide: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`railbird skip` in its own process, lacking the same codecs as the consumer."""
    code = ("import sys; from tests.consumers.consume_proc import hide_codecs; hide_codecs(sys.argv[1]); "
            "from railbird.cli import main; raise SystemExit(main(sys.argv[2:]))")
    env = {**os.environ, "RAILBIRD_KAFKA_BOOTSTRAP": bootstrap, "RAILBIRD_CONSUMER_GROUP_PREFIX": PREFIX}
    return subprocess.run([sys.executable, "-c", code, hide, "skip", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def ids(events: list[dict[str, Any]]) -> set[str]:
    return {stable_id("fnd", "test.word", e["event_id"]) for e in events if e["text"] == "kys"}


@pytest.mark.parametrize("poison", ["snappy_missing", "corrupt_crc"])
def test_a_poison_batch_pauses_one_partition_until_skipped(
    broker: EmbeddedBroker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, poison: str
) -> None:
    before, bad, after = chat_events(40), chat_events(15, start=100), chat_events(40, start=200)
    others = chat_events(60, start=300)
    for e in bad + after:
        e["text"] = "kys"
    send(broker.bootstrap, before, partition=0)
    if poison == "snappy_missing":
        send(broker.bootstrap, bad, partition=0, compression="snappy")
    else:
        send_corrupt(broker.bootstrap, bad, monkeypatch)
    send(broker.bootstrap, after, partition=0)
    for n in range(1, PARTITIONS):  # every other partition
        send(broker.bootstrap, others[n - 1 :: PARTITIONS - 1], partition=n)
    hide = "snappy" if poison == "snappy_missing" else ""
    store = IngestStore()
    log = tmp_path / "consumer.log"
    with serve_review_api(store) as url:
        proc = start_process(broker.bootstrap, url, PREFIX, [CHAT], log, RAILBIRD_TEST_HIDE_CODECS=hide)
        try:
            wanted_now = ids(before) | ids(others)
            wait_until(lambda: set(store.findings) >= wanted_now, 60, "every other partition's findings")
            wait_until(lambda: "undecodable batch" in log.read_text(), 20, "the blocked partition's log line")
            line = next(json.loads(x) for x in log.read_text().splitlines() if "undecodable batch" in x)
            assert (line["topic"], line["partition"], line["offset"]) == (CHAT, 0, len(before))
            assert not set(store.findings) & (ids(bad) | ids(after)), "nothing past the bad batch yet"
            assert proc.poll() is None, "the consumer is still running"

            refused = skip(broker.bootstrap, "snappy" if hide else "", "--topic", CHAT, "--partition", "0",
                           "--offset", str(len(before) - 1))
            assert refused.returncode == 2 and "decodes here" in refused.stdout, refused.stdout + refused.stderr
            done = skip(broker.bootstrap, hide, "--topic", CHAT, "--partition", "0", "--offset", str(len(before)),
                        "--reason", "test poison")
            assert done.returncode == 0, done.stdout + done.stderr
            end = len(before) + len(bad)
            assert f"offsets {len(before)}..{end - 1} ({len(bad)} dead letters)" in done.stdout

            wait_until(lambda: set(store.findings) >= ids(after), 40, "the partition to resume after the skip")
            letters = [DeadLetter.model_validate_json(r.value) for r in read_topic(broker.bootstrap, dlq_topic(CHAT), expect=len(bad))]
            assert sorted(d.offset for d in letters) == list(range(len(before), end))
            assert {d.error_kind for d in letters} == {"undecodable"}
            assert all("test poison" in d.error for d in letters)
            assert not set(store.findings) & ids(bad), "the skipped batch was never acted on"
            ends = {TopicPartition(CHAT, 0): end + len(after)}
            wait_until(lambda: caught_up(broker.bootstrap, PREFIX, CHAT, ends), 20, "the commit past the range")
            assert proc.poll() is None
        finally:
            proc.terminate()
            proc.wait(20)
