"""Every Kafka codec decodes in `railbird consume`, and our own producers' codecs come from Settings.

Before issue 21 the first snappy batch raised `UnsupportedCodecError` out of `poll()` and stopped
the process ("lane crashed; stopping the process"); this produces a batch in every codec with
kafka-python and runs the real `serve` entry in a subprocess."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka import KafkaProducer
from pydantic import ValidationError

from consumers.broker import EmbeddedBroker, free_port
from consumers.codecs import CODECS, compression_type, missing_codecs
from consumers.topics import ensure_topics
from pipeline.contracts import CHAT, INPUT_TOPICS
from railbird.settings import Settings
from tests.consumers.review_api_double import IngestStore, serve_review_api
from tests.consumers.streaming_harness import PARTITIONS, chat_events, expected_ids, start_process, wait_until


def test_every_kafka_codec_is_installed_for_kafka_python() -> None:
    assert sorted(CODECS) == ["gzip", "lz4", "snappy", "zstd"]
    assert missing_codecs() == [], "pyproject.toml must install every codec's library"


def test_producer_codecs_come_from_the_settings() -> None:
    assert Settings().kafka_compression == "zstd"
    assert Settings().events_compression == "gzip"
    assert Settings(kafka_compression="lz4").kafka_compression == "lz4"
    assert compression_type("none") is None
    assert compression_type("snappy") == "snappy"
    with pytest.raises(ValidationError):
        Settings(events_compression="brotli")  # type: ignore[arg-type]


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker(port=free_port(), log_path=tmp_path / "broker.log") as b:
        ensure_topics(b.bootstrap, partitions=PARTITIONS, topics=list(INPUT_TOPICS))
        yield b


@pytest.mark.kafka
@pytest.mark.timeout(120)
@pytest.mark.parametrize("own", ["none", "snappy"])
def test_batches_in_every_codec_are_consumed_by_the_real_entry(
    broker: EmbeddedBroker, tmp_path: Path, own: str
) -> None:
    """One batch run per codec into `serve`; its own producers (re-key, changelog) use `own`."""
    events = chat_events(100)
    codecs = [None, *CODECS]
    for n, codec in enumerate(codecs):
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", linger_ms=50,
                                 compression_type=codec)
        for e in events[n::len(codecs)]:
            producer.send(CHAT, key=e["player_id"].encode(), value=json.dumps(e).encode())
        producer.flush(10)
        producer.close()
    store = IngestStore()
    with serve_review_api(store) as url:
        proc = start_process(broker.bootstrap, url, f"codec-{own}", [CHAT], tmp_path / "c.log",
                             RAILBIRD_KAFKA_COMPRESSION=own)
        try:
            wanted = expected_ids(events)
            wait_until(lambda: set(store.findings) >= wanted, 60, "the findings of every codec's batches")
            assert proc.poll() is None, "the consumer is still running"
        finally:
            proc.terminate()
            proc.wait(20)
    assert set(store.findings) == wanted
