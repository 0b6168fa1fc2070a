"""The offence ledger's changelog against the real embedded broker: a process restart with a lookback
too short to replay a player's first offence still counts it (both with local state and with the
ledger in the keyed stage)."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer, TopicPartition
from prometheus_client import CollectorRegistry

from consumers.api_client import ReviewApiClient
from consumers.broker import EmbeddedBroker, free_port
from consumers.history import KafkaHistoryReader
from consumers.metrics import ConsumerMetrics
from consumers.runtime import RuntimeConfig, build_lanes, internal_topics, lane_topics, run_lanes
from consumers.topics import changelog_topic, ensure_topics, rekey_topic
from pipeline.contracts import CHAT
from pipeline.detector import Detector
from pipeline.detectors.chat import build_chat_detectors
from pipeline.rules import RulesConfig
from tests.consumers.review_api_double import TOKEN, IngestStore, serve_review_api
from tests.consumers.streaming_harness import PARTITIONS, produce, read_topic, runtime_config, wait_until
from tests.samples import T0, chat_value

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(180)]

RULES = RulesConfig()
LOOKBACK_S = 1.0
"""A rebuild replays only the last second: the first offence is long out of it."""


def chat_detectors() -> Mapping[str, Detector]:
    return {d.name: d for d in build_chat_detectors(rules=RULES)}


def run(config: RuntimeConfig, url: str) -> tuple[threading.Event, threading.Thread, KafkaProducer]:
    """A consumer process's lanes in a thread: the chat lane and the keyed lane."""
    stop = threading.Event()
    producer = KafkaProducer(bootstrap_servers=config.bootstrap, acks="all", linger_ms=2)
    lanes = build_lanes(
        lane_topics([CHAT], config.group_prefix), config=config, factory=chat_detectors, rules=RULES,
        producer=producer, api=ReviewApiClient(base_url=url, token=TOKEN, timeout_s=5),
        metrics=ConsumerMetrics.create(CollectorRegistry()), stop=stop,
    )
    thread = threading.Thread(target=run_lanes, args=(lanes,), kwargs={"stop": stop}, daemon=True)
    thread.start()
    return stop, thread, producer


def stop_run(handle: tuple[threading.Event, threading.Thread, KafkaProducer]) -> None:
    """Stop like SIGTERM: the batch in hand is finished (its changelog acked, committed)."""
    stop, thread, producer = handle
    stop.set()
    thread.join(30)
    producer.close(5)


def insult(event_id: str, day: int) -> dict[str, Any]:
    ts = (T0 + timedelta(days=day)).isoformat()
    return chat_value(event_id=event_id, player_id="p1", ts=ts, text="you idiot")


def banned_words(store: IngestStore, event_id: str) -> dict[str, Any] | None:
    found = [f for f in store.findings.values()
             if f["detector"] == "chat.banned_words" and f["source_event_ids"] == [event_id]]
    return found[0] if found else None


@pytest.mark.parametrize("local_state", [True, False], ids=["local-state", "keyed-stage"])
def test_a_repeat_offence_after_a_restart_counts_an_offence_older_than_the_lookback(
    tmp_path: Path, local_state: bool
) -> None:
    store = IngestStore()
    with EmbeddedBroker(port=free_port(), log_path=tmp_path / "broker.log") as broker, \
            serve_review_api(store) as url:
        prefix = "durable"
        topics = lane_topics([CHAT], prefix)
        ensure_topics(broker.bootstrap, partitions=PARTITIONS, topics=[*topics, *internal_topics(topics)])
        # tansu makes a group wait up to max.poll.interval.ms after a clean leave: keep it short.
        config = replace(runtime_config(broker.bootstrap, prefix), state_lookback_s=LOOKBACK_S,
                         local_state=local_state, max_poll_interval_ms=8_000)
        produce(broker.bootstrap, CHAT, [insult("m1", 0)])
        first = run(config, url)
        try:
            wait_until(lambda: banned_words(store, "m1") is not None, 60, "the first offence's finding")
        finally:
            stop_run(first)
        found = banned_words(store, "m1")
        assert found is not None and found["evidence"]["prior_offences"] == 0
        assert [a["disposition"] for a in found["actions"]] == ["automatic"]
        stage = CHAT if local_state else rekey_topic(CHAT, prefix)
        (entry,) = read_topic(broker.bootstrap, changelog_topic(stage, prefix), expect=1)
        assert entry.key == b"chat.offence_ledger/p1"

        time.sleep(2 * LOOKBACK_S)  # m1 is now older than the lookback: no replay brings it back
        produce(broker.bootstrap, CHAT, [insult("m2", 1)])
        second = run(config, url)  # a new process takes the partitions over
        try:
            wait_until(lambda: banned_words(store, "m2") is not None, 90, "the second offence's finding")
        finally:
            stop_run(second)
        repeat = banned_words(store, "m2")
        assert repeat is not None and repeat["evidence"]["prior_offences"] == 1, "counted as a repeat"
        assert [a["disposition"] for a in repeat["actions"]] == ["proposed"], "a case, not a mute"


def test_a_changelog_partition_is_read_to_its_end_past_tansus_short_end_offset(kafka_broker: EmbeddedBroker) -> None:
    # A stage topic no other test creates on the shared broker: a changelog takes its stage topic's
    # partition count when that topic exists (chat.messages may have 1 partition here).
    topic = changelog_topic("read-all.input", "read-all")
    ensure_topics(kafka_broker.bootstrap, partitions=2, topics=[topic])
    producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap, acks="all", linger_ms=20)
    try:
        for batch in (50, 7):  # two multi-record batches: tansu's end offset is 51, the end is 57
            for i in range(batch):
                producer.send(topic, key=f"k{i % 5}".encode(), value=f"v{i}".encode(), partition=1)
            producer.flush(10)
    finally:
        producer.close(5)
    reader = KafkaHistoryReader(bootstrap=kafka_broker.bootstrap)
    records = list(reader.read_all(TopicPartition(topic, 1)))
    assert [r.offset for r in records] == list(range(57))
    started = time.monotonic()
    assert list(reader.read_all(TopicPartition(topic, 0))) == []
    assert time.monotonic() - started < 5, "an empty partition is known empty at once"
