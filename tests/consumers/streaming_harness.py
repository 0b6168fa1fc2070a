"""Helpers of the streaming integration tests: a fresh broker, the served API double, consumer
processes, producing events and reading topics back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient
from prometheus_client import CollectorRegistry

from consumers.api_client import ReviewApiClient
from consumers.lane import Lane
from consumers.metrics import ConsumerMetrics
from consumers.runtime import RuntimeConfig, build_lanes, group_of, internal_topics, lane_topics, run_lanes
from consumers.topics import ensure_topics
from pipeline.findings import stable_id
from pipeline.rules import RULES_PRESETS
from railbird.commands.consume import runtime_config as consume_runtime_config
from railbird.settings import Settings
from tests.consumers.consume_proc import factory
from tests.consumers.review_api_double import TOKEN
from tests.samples import T0, chat_value

ROOT = Path(__file__).resolve().parents[2]
RULES = next(iter(RULES_PRESETS.values()))
PARTITIONS = 4


def wait_until(predicate: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Poll `predicate` until true or fail the test with `what`."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s}s waiting for {what}")
        time.sleep(0.05)


def chat_events(n: int, *, start: int = 0, tables: int = 7, players: int = 11) -> list[dict[str, Any]]:
    """n chat messages over a few tables and players; every 5th says the flagged word."""
    return [
        chat_value(
            event_id=f"c{i}",
            ts=(T0.replace(microsecond=0)).isoformat().replace("+00:00", f".{i % 1000:03d}+00:00"),
            player_id=f"p{i % players}",
            table_id=f"t{i % tables}",
            text="kys" if i % 5 == 0 else f"message {i}",
        )
        for i in range(start, start + n)
    ]


def expected_ids(events: Iterable[dict[str, Any]]) -> set[str]:
    """Finding ids the test detectors must produce over these events, however they are spread."""
    events = list(events)
    word = {stable_id("fnd", "test.word", e["event_id"]) for e in events if "kys" in e["text"].split()}
    counts = Counter(e["table_id"] for e in events)
    burst = {stable_id("fnd", "test.burst", t, k) for t, c in counts.items() for k in range(1, c // 3 + 1)}
    talk = Counter(e["player_id"] for e in events)
    talkative = {
        stable_id("fnd", "test.talkative", p, k) for p, c in talk.items() for k in range(1, c // 4 + 1)
    }
    return word | burst | talkative


def produce(
    bootstrap: str, topic: str, values: Iterable[bytes | dict[str, Any]], *, key_field: str = "player_id"
) -> None:
    """Produce and wait for every ack; dicts are keyed by `key_field` like a game server would."""
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    try:
        for value in values:
            if isinstance(value, dict):
                producer.send(
                    topic, key=str(value.get(key_field, "")).encode(), value=json.dumps(value).encode()
                )
            else:
                producer.send(topic, key=b"bad", value=value)
        producer.flush(10)
    finally:
        producer.close()


def read_topic(bootstrap: str, topic: str, *, expect: int, timeout_s: float = 15) -> list[Any]:
    """At least `expect` records of a topic, from the beginning, with a group-less consumer."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, group_id=None)
    try:
        parts = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or ()]
        consumer.assign(parts)
        consumer.seek_to_beginning(*parts)
        out: list[Any] = []
        deadline = time.monotonic() + timeout_s
        while len(out) < expect and time.monotonic() < deadline:
            for batch in consumer.poll(200).values():
                out.extend(batch)
        return out
    finally:
        consumer.close()


def committed(bootstrap: str, group: str) -> dict[TopicPartition, int]:
    """A group's committed offsets."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        return {
            tp: om.offset
            for tp, om in admin.list_group_offsets(group).get(group, {}).items()
            if om.offset >= 0
        }
    finally:
        admin.close()


def end_offsets(bootstrap: str, topic: str, *, expect: int) -> dict[TopicPartition, int]:
    """One past the last offset of every non-empty partition, found by reading the `expect` records
    (tansu's ListOffsets answers wrong end offsets for multi-record batches)."""
    ends: dict[TopicPartition, int] = {}
    for r in read_topic(bootstrap, topic, expect=expect):
        tp = TopicPartition(r.topic, r.partition)
        ends[tp] = max(ends.get(tp, 0), r.offset + 1)
    return ends


def caught_up(bootstrap: str, prefix: str, topic: str, ends: dict[TopicPartition, int]) -> bool:
    """True when the topic's group committed every record up to `ends`."""
    done = committed(bootstrap, group_of(prefix, topic))
    return all(done.get(tp) == o for tp, o in ends.items())


def runtime_config(bootstrap: str, prefix: str) -> RuntimeConfig:
    """Test tunables (fast group joins on tansu, small batches, quick retries), through the same
    Settings -> RuntimeConfig path as `railbird consume`."""
    return consume_runtime_config(Settings(
        env="test",
        kafka_bootstrap=bootstrap,
        consumer_group_prefix=prefix,
        consumer_session_timeout_ms=6000,
        consumer_heartbeat_ms=1000,
        consumer_max_poll_records=50,
        consumer_poll_timeout_ms=100,
        consumer_keepalive_s=0.2,
        consumer_state_lookback_s=3600,
        consumer_retry_base_ms=50,
        consumer_retry_cap_ms=300,
    ))


@dataclass
class InProcessRuntime:
    """The runtime's lanes in threads of the test process (no signal handlers)."""

    lanes: dict[str, Lane]
    stop: threading.Event
    thread: threading.Thread
    producer: KafkaProducer
    registry: CollectorRegistry

    def close(self) -> None:
        self.stop.set()
        self.thread.join(30)
        self.producer.close(5)


def start_in_process(bootstrap: str, api_url: str, prefix: str, inputs: list[str]) -> InProcessRuntime:
    """Build and start the lanes of some input topics (and of their re-key topics)."""
    topics = lane_topics(inputs, prefix)
    ensure_topics(bootstrap, partitions=PARTITIONS, topics=[*topics, *internal_topics(topics)])
    stop = threading.Event()
    registry = CollectorRegistry()
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=2)
    lanes = build_lanes(
        topics,
        config=runtime_config(bootstrap, prefix),
        factory=factory,
        rules=RULES,
        producer=producer,
        api=ReviewApiClient(base_url=api_url, token=TOKEN, timeout_s=5),
        metrics=ConsumerMetrics.create(registry),
        stop=stop,
    )
    thread = threading.Thread(target=run_lanes, args=(lanes,), kwargs={"stop": stop}, daemon=True)
    thread.start()
    return InProcessRuntime(lanes, stop, thread, producer, registry)


def start_process(
    bootstrap: str, api_url: str, prefix: str, topics: list[str], log: Path, **env: str
) -> subprocess.Popen[bytes]:
    """A consumer process running the real runtime entry with the test detectors."""
    environment = {
        **os.environ,
        "RAILBIRD_KAFKA_BOOTSTRAP": bootstrap,
        "RAILBIRD_API_URL": api_url,
        "RAILBIRD_SERVICE_TOKEN": TOKEN,
        "RAILBIRD_CONSUMER_GROUP_PREFIX": prefix,
        "RAILBIRD_TOPIC_PARTITIONS": str(PARTITIONS),
        "RAILBIRD_CONSUMER_SESSION_TIMEOUT_MS": "6000",
        "RAILBIRD_CONSUMER_HEARTBEAT_MS": "1000",
        "RAILBIRD_CONSUMER_MAX_POLL_RECORDS": "50",
        "RAILBIRD_CONSUMER_POLL_TIMEOUT_MS": "100",
        "RAILBIRD_CONSUMER_STATE_LOOKBACK_S": "3600",
        "RAILBIRD_CONSUMER_RETRY_BASE_MS": "50",
        "RAILBIRD_CONSUMER_RETRY_CAP_MS": "300",
        "RAILBIRD_METRICS_PORT": "0",
        **env,
    }
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.consumers.consume_proc", *topics],
            cwd=ROOT,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


__all__ = ["PARTITIONS", "group_of"]
