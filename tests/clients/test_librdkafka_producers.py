"""librdkafka producers as game servers, into Railbird's consumers on the embedded broker.

Every codec with idempotence on and headers; the same events from kafka-python and from
librdkafka give the same findings; transactions as far as tansu has them (docs/game-servers.md)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from consumers.broker import EmbeddedBroker, free_port
from consumers.runtime import make_consumer
from consumers.topics import ensure_topics
from pipeline.contracts import CHAT, INPUT_TOPICS
from pipeline.findings import stable_id
from tests.clients import game_server
from tests.consumers.review_api_double import IngestStore, serve_review_api
from tests.consumers.streaming_harness import (
    PARTITIONS,
    chat_events,
    expected_ids,
    produce,
    runtime_config,
    start_in_process,
    start_process,
    wait_until,
)

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(150)]


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker(port=free_port(), log_path=tmp_path / f"broker-{uuid.uuid4().hex[:6]}.log") as b:
        ensure_topics(b.bootstrap, partitions=PARTITIONS, topics=list(INPUT_TOPICS))
        yield b


@pytest.fixture
def api() -> Iterator[tuple[IngestStore, str]]:
    store = IngestStore()
    with serve_review_api(store) as url:
        yield store, url


def test_every_codec_from_idempotent_librdkafka_producers_gives_its_findings(
    broker: EmbeddedBroker, api: tuple[IngestStore, str], tmp_path: Path
) -> None:
    """The issue's reproduction: a librdkafka producer per codec into the real `serve` entry."""
    store, url = api
    events = chat_events(150)
    size = len(events) // len(game_server.CODECS)
    per_codec = {c: events[n * size : (n + 1) * size] for n, c in enumerate(game_server.CODECS)}
    for codec, chunk in per_codec.items():
        game_server.produce(broker.bootstrap, CHAT, chunk, codec=codec)
    proc = start_process(broker.bootstrap, url, "rdk", [CHAT], tmp_path / "c.log")
    try:
        wanted = expected_ids(events)
        wait_until(lambda: set(store.findings) >= wanted, 60, "the findings of every codec")
        assert proc.poll() is None, "the consumer is still running"
    finally:
        proc.terminate()
        proc.wait(20)
    for codec, chunk in per_codec.items():
        flagged = {stable_id("fnd", "test.word", e["event_id"]) for e in chunk if e["text"] == "kys"}
        assert flagged and flagged <= set(store.findings), codec
    assert set(store.findings) == wanted


def findings_from(bootstrap: str, produce_them: Any, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The stored findings after the in-process runtime consumed what `produce_them` sent."""
    store = IngestStore()
    with serve_review_api(store) as url:
        produce_them(bootstrap, events)
        runtime = start_in_process(bootstrap, url, "same", [CHAT])
        try:
            wait_until(lambda: set(store.findings) >= expected_ids(events), 60, "every finding")
        finally:
            runtime.close()
    return store.findings


def test_kafka_python_and_librdkafka_producers_give_the_same_findings(tmp_path: Path) -> None:
    """One input partition: a table's chat then reaches its keyed detector in one order whoever
    produced it (with several, the interleaving of partitions may change a finding's evidence,
    not its id), so the findings must be equal field for field."""
    events = chat_events(120)
    results = []
    senders = [
        lambda b, ev: produce(b, CHAT, ev),
        lambda b, ev: game_server.produce(b, CHAT, ev, codec="zstd"),
    ]
    for n, sender in enumerate(senders):
        with EmbeddedBroker(port=free_port(), log_path=tmp_path / f"b{n}.log") as b:
            ensure_topics(b.bootstrap, partitions=1, topics=list(INPUT_TOPICS))
            results.append(findings_from(b.bootstrap, sender, events))
    kafka_python, librdkafka = results
    assert set(kafka_python) == expected_ids(events)
    assert librdkafka == kafka_python, "same ids and the same content, whichever client produced"


def test_railbird_consumers_read_committed(broker: EmbeddedBroker) -> None:
    consumer = make_consumer(CHAT, runtime_config(broker.bootstrap, "iso"))
    try:
        assert consumer.config["isolation_level"] == "read_committed"
    finally:
        consumer.close()


def transactional(bootstrap: str, events: list[dict[str, Any]], *, commit: bool) -> None:
    """One librdkafka transaction of `events`, committed or aborted."""
    p = game_server.producer(bootstrap, "lz4", **{"transactional.id": f"gs-{uuid.uuid4().hex[:8]}"})
    p.init_transactions(15)
    p.begin_transaction()
    game_server.send(p, CHAT, events)
    if commit:
        p.commit_transaction(15)
    else:
        p.abort_transaction(15)


def test_a_committed_transaction_is_consumed(broker: EmbeddedBroker, api: tuple[IngestStore, str]) -> None:
    store, url = api
    events = chat_events(40)
    transactional(broker.bootstrap, events, commit=True)
    runtime = start_in_process(broker.bootstrap, url, "txc", [CHAT])
    try:
        wait_until(lambda: set(store.findings) >= expected_ids(events), 40, "the transaction's findings")
    finally:
        runtime.close()
    assert set(store.findings) == expected_ids(events)


@pytest.mark.xfail(strict=True, reason="tansu writes transaction markers but does not filter aborted "
                   "records for read_committed fetches (no aborted-transaction list); Apache Kafka does. "
                   "Strict: passes, and so fails here, the day the embedded broker filters them.")
def test_an_aborted_transaction_is_never_acted_on(broker: EmbeddedBroker, api: tuple[IngestStore, str]) -> None:
    store, url = api
    aborted = [dict(e, event_id=f"ab-{e['event_id']}", text="kys") for e in chat_events(10)]
    later = chat_events(40, start=100)
    transactional(broker.bootstrap, aborted, commit=False)
    transactional(broker.bootstrap, later, commit=True)
    runtime = start_in_process(broker.bootstrap, url, "txa", [CHAT])
    try:
        wait_until(lambda: set(store.findings) >= expected_ids(later), 40, "the committed transaction")
    finally:
        runtime.close()
    acted = {stable_id("fnd", "test.word", e["event_id"]) for e in aborted} & set(store.findings)
    assert not acted, f"{len(acted)} findings from an aborted transaction"
