"""The lane with overlapping writes (`LaneConfig.overlap_writes`, the default): batch N+1 is polled
and processed while batch N is written, N is still committed only after its write, and the API
sees the batches in order."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from consumers.lane import Lane
from pipeline.contracts import CHAT
from tests.consumers.kafka_fakes import FakeConsumer
from tests.consumers.review_api_double import IngestStore
from tests.consumers.test_consumer_lane import TP0, chat_bytes, make_lane


def blocking_api(store: IngestStore) -> tuple[threading.Event, threading.Event, list[list[str]]]:
    """Make each ingestion wait for `release`; `entered` is set when one is waiting. The source
    event ids of each request, in arrival order."""
    release, entered = threading.Event(), threading.Event()
    order: list[list[str]] = []
    original = store.ingest

    def gated(body: Any, auth: str | None) -> tuple[int, dict[str, object]]:
        order.append([e for f in body["findings"] for e in f["source_event_ids"]])
        entered.set()
        assert release.wait(5), "the test never released the write"
        return original(body, auth)

    store.ingest = gated  # type: ignore[method-assign,assignment]
    return release, entered, order


def two_batches(consumer: FakeConsumer) -> None:
    for i in range(4):
        consumer.append(CHAT, 0, chat_bytes(f"e{i}", "kys"))


def test_the_next_batch_is_polled_and_processed_while_the_previous_one_is_written() -> None:
    consumer, store = FakeConsumer(), IngestStore()
    two_batches(consumer)
    lane, _, _ = make_lane(consumer, store)
    lane.config = replace(lane.config, max_records=2)
    release, entered, order = blocking_api(store)
    assert lane.step() == 2
    assert entered.wait(5), "the first batch's write started on the writer thread"
    polls_before = consumer.polls
    finished = threading.Event()

    def second_step() -> None:
        lane.step()  # polls and processes batch 2, then waits for batch 1's write
        finished.set()

    thread = threading.Thread(target=second_step)
    thread.start()
    assert not finished.wait(0.2), "batch 2 must not be started before batch 1 is acknowledged"
    assert consumer.polls > polls_before, "batch 2 was polled while batch 1 was being written"
    assert consumer.commits == [], "nothing is committed before its write is acknowledged"
    release.set()
    thread.join(5)
    assert consumer.commits == [{TP0: 2}], "batch 1 committed once written; batch 2 still in flight"
    lane.drain()
    assert consumer.commits == [{TP0: 2}, {TP0: 4}]
    assert order == [["e0", "e1"], ["e2", "e3"]], "the API sees the batches in order"


def test_stop_while_a_write_is_in_flight_waits_for_it_then_commits() -> None:
    consumer, store = FakeConsumer(), IngestStore()
    two_batches(consumer)
    lane, _, _ = make_lane(consumer, store)
    release, entered, _ = blocking_api(store)

    def stop_then_release() -> None:
        assert entered.wait(5)
        lane.stop.set()
        release.set()

    threading.Thread(target=stop_then_release).start()
    lane.run()
    assert len(store.findings) == 4 and consumer.commits == [{TP0: 4}] and consumer.closed


def test_a_write_failing_until_stop_commits_nothing_and_closes() -> None:
    consumer, store = FakeConsumer(), IngestStore()
    two_batches(consumer)
    store.unavailable = -1
    lane: Lane = make_lane(consumer, store)[0]
    threading.Timer(0.1, lane.stop.set).start()
    lane.run()
    assert consumer.commits == [] and consumer.closed
    assert consumer.paused_polls >= 1, "the lane kept its membership alive, partitions paused"
    assert lane.status.retrying == "api", "readiness shows what the lane was retrying"
