"""The runtime against the real embedded broker and a real HTTP ingestion server (the API double)."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka import TopicPartition

from consumers.broker import EmbeddedBroker, free_port
from consumers.topics import ensure_topics, rekey_topic
from pipeline.contracts import CHAT, HAND, INPUT_TOPICS, SEAT, SNAPCAM, DeadLetter, dlq_topic
from pipeline.findings import stable_id
from tests.consumers.review_api_double import IngestStore, serve_review_api
from tests.consumers.streaming_harness import (
    PARTITIONS,
    caught_up,
    chat_events,
    committed,
    end_offsets,
    expected_ids,
    group_of,
    produce,
    read_topic,
    start_in_process,
    start_process,
    wait_until,
)
from tests.samples import chat_value, hand_value, seat_value, snapcam_value

pytestmark = [pytest.mark.kafka, pytest.mark.timeout(120)]


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[EmbeddedBroker]:
    """A fresh broker per test: the input topic names are fixed, so tests must not share them."""
    with EmbeddedBroker(port=free_port(), log_path=tmp_path / "broker.log") as b:
        ensure_topics(b.bootstrap, partitions=PARTITIONS, topics=list(INPUT_TOPICS))
        yield b


@pytest.fixture
def api() -> Iterator[tuple[IngestStore, str]]:
    store = IngestStore()
    with serve_review_api(store) as url:
        yield store, url


def test_malformed_records_on_every_input_topic_are_dead_lettered_and_consumption_goes_on(
    broker: EmbeddedBroker, api: tuple[IngestStore, str]
) -> None:
    store, url = api
    bad = {
        CHAT: chat_value(channel="private"),  # no recipient_id
        SEAT: seat_value(seat=11),
        SNAPCAM: snapcam_value(reason="nope"),
        HAND: hand_value(players=["p1", "p1"]),
    }
    for topic, value in bad.items():
        produce(broker.bootstrap, topic, [b"\x00not json", json.dumps(value).encode()])
    produce(broker.bootstrap, CHAT, [chat_value(event_id="ok-1", text="kys")])
    runtime = start_in_process(broker.bootstrap, url, "dlq", list(INPUT_TOPICS))
    try:
        for topic in INPUT_TOPICS:
            letters = [
                DeadLetter.model_validate_json(r.value)
                for r in read_topic(broker.bootstrap, dlq_topic(topic), expect=2)
            ]
            assert sorted(d.error_kind for d in letters) == ["invalid", "not_json"], topic
            assert all(d.topic == topic for d in letters)
            assert b"\x00not json" in [d.original_value() for d in letters]
        wait_until(
            lambda: stable_id("fnd", "test.word", "ok-1") in store.findings, 20, "the good record's finding"
        )
        ends = end_offsets(broker.bootstrap, CHAT, expect=3)
        wait_until(
            lambda: caught_up(broker.bootstrap, "dlq", CHAT, ends),
            10,
            "the chat group to commit past the dead letters",
        )
    finally:
        runtime.close()


def test_api_outage_blocks_commits_and_loses_or_duplicates_nothing(
    broker: EmbeddedBroker, api: tuple[IngestStore, str]
) -> None:
    store, url = api
    store.unavailable = -1
    events = chat_events(120)
    produce(broker.bootstrap, CHAT, events)
    runtime = start_in_process(broker.bootstrap, url, "outage", [CHAT])
    try:
        wait_until(lambda: store.statuses[503] >= 5, 20, "the runtime to hit the outage")
        assert committed(broker.bootstrap, group_of("outage", CHAT)) == {}
        assert store.findings == {}
        store.unavailable = 0
        wanted = expected_ids(events)
        wait_until(lambda: set(store.findings) == wanted, 30, "every finding after the outage")
        assert max(store.deliveries.values()) == 1, "nothing written twice"
        ends = end_offsets(broker.bootstrap, CHAT, expect=len(events))
        wait_until(lambda: caught_up(broker.bootstrap, "outage", CHAT, ends), 10, "the commit after recovery")
        errors = runtime.registry.get_sample_value("railbird_api_write_errors_total", {"kind": "unavailable"})
        assert errors is not None and errors >= 5
    finally:
        runtime.close()


def test_kill_9_mid_batch_then_restart_gives_every_event_exactly_one_effect(
    broker: EmbeddedBroker, api: tuple[IngestStore, str], tmp_path: Path
) -> None:
    store, url = api
    store.delay_s = 0.05
    events = chat_events(600)
    produce(broker.bootstrap, CHAT, events)
    # Small polls: a keyed-stage poll takes a few bundles (each holds a stage-1 batch's routes), so
    # the first commits come long before the end and the kill lands mid-run, however fast the box.
    first = start_process(broker.bootstrap, url, "kill9", [CHAT], tmp_path / "a.log",
                          RAILBIRD_CONSUMER_MAX_POLL_RECORDS="5")
    try:
        group = group_of("kill9", rekey_topic(CHAT, "kill9"))
        wait_until(
            lambda: sum(committed(broker.bootstrap, group).values()) >= 8, 40, "keyed state to be committed"
        )
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        assert len(store.findings) < len(expected_ids(events)), "killed before it finished"
    finally:
        if first.poll() is None:
            first.kill()
    second = start_process(broker.bootstrap, url, "kill9", [CHAT], tmp_path / "b.log")
    try:
        wanted = expected_ids(events)
        wait_until(lambda: set(store.findings) >= wanted, 60, "the restarted process to catch up")
        assert set(store.findings) == wanted, "no finding missing, none extra (state was restored)"
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(20)


def assigned_counts(log: Path, group: str) -> list[int]:
    """Partition counts of every assignment a process logged for a group."""
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
    return [x["count"] for x in lines if x.get("msg") == "partitions assigned" and x.get("group") == group]


def test_a_second_process_joining_the_group_gives_the_findings_of_one(
    broker: EmbeddedBroker, api: tuple[IngestStore, str], tmp_path: Path
) -> None:
    store, url = api
    store.delay_s = 0.02
    first_half, second_half = chat_events(300), chat_events(300, start=300)
    produce(broker.bootstrap, CHAT, first_half)
    a = start_process(broker.bootstrap, url, "scale", [CHAT], tmp_path / "a.log")
    b = None
    try:
        wait_until(lambda: len(store.findings) >= 20, 40, "the first process to start")
        b = start_process(broker.bootstrap, url, "scale", [CHAT], tmp_path / "b.log")
        group = group_of("scale", CHAT)
        wait_until(lambda: any(assigned_counts(tmp_path / "b.log", group)), 40, "the second process's share")
        produce(broker.bootstrap, CHAT, second_half)
        wanted = expected_ids(first_half + second_half)
        wait_until(lambda: set(store.findings) >= wanted, 60, "both processes to finish")
        assert set(store.findings) == wanted
        shares = (
            assigned_counts(tmp_path / "a.log", group)[-1],
            assigned_counts(tmp_path / "b.log", group)[-1],
        )
        assert sorted(shares) == [PARTITIONS // 2, PARTITIONS // 2], "the partitions were split"
    finally:
        for proc in (a, b):
            if proc is not None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(20)


def test_sigterm_finishes_and_commits_the_batch_in_hand(
    broker: EmbeddedBroker, api: tuple[IngestStore, str], tmp_path: Path
) -> None:
    store, url = api
    store.delay_s = 0.4
    events = chat_events(400)
    produce(broker.bootstrap, CHAT, events)
    proc = start_process(broker.bootstrap, url, "term", [CHAT], tmp_path / "p.log")
    try:
        wait_until(lambda: store.requests >= 2, 40, "a write in flight")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    offsets = committed(broker.bootstrap, group_of("term", CHAT))
    assert sum(offsets.values()) > 0
    done = {
        json.loads(r.value)["event_id"]
        for r in read_topic(broker.bootstrap, CHAT, expect=len(events))
        if r.offset < offsets.get(TopicPartition(r.topic, r.partition), 0)
    }
    flagged = {e["event_id"] for e in events if e["text"] == "kys"}
    written = {f["source_event_ids"][0] for f in store.findings.values() if f["detector"] == "test.word"}
    assert flagged & done <= written, "every committed record had its effect"
    assert written <= flagged & done, "every written finding's record was committed: the batch was finished"
    assert '"msg": "stopped"' in (tmp_path / "p.log").read_text()
