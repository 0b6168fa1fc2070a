"""Re-keying: stateful detectors are routed by their state key and rebuilt on partition moves."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable

from kafka import TopicPartition
from prometheus_client import CollectorRegistry

from consumers.api_client import ReviewApiClient
from consumers.bundle import expand, is_mark, partition_of
from consumers.input_stage import InputProcessor
from consumers.lane import Lane, LaneConfig
from consumers.metrics import ConsumerMetrics
from consumers.processing import KeyedProcessor, Processor
from consumers.retry import Backoff
from consumers.topics import rekey_topic
from pipeline.contracts import CHAT
from pipeline.detector import Detector
from pipeline.rules import RULES_PRESETS
from tests.consumers.detector_doubles import BurstDetector, TalkativeDetector, WordDetector
from tests.consumers.kafka_fakes import FakeConsumer, FakeProducer, FakeRecord, step
from tests.consumers.review_api_double import TOKEN, IngestStore
from tests.samples import chat_value

RULES = next(iter(RULES_PRESETS.values()))
REKEY = rekey_topic(CHAT)


def chat_bytes(event_id: str, player: str, table: str, text: str = "hi") -> bytes:
    return json.dumps(chat_value(event_id=event_id, player_id=player, table_id=table, text=text)).encode()


def lane_for(
    consumer: FakeConsumer, processor: Processor, store: IngestStore, producer: FakeProducer
) -> Lane:
    lane = Lane(
        consumer=consumer,
        producer=producer,
        api=ReviewApiClient(base_url="http://api", token=TOKEN, timeout_s=1, transport=store.transport()),
        processor=processor,
        metrics=ConsumerMetrics.create(CollectorRegistry()),
        config=LaneConfig(group="g", keepalive_s=0.001, max_records=4),
        stop=threading.Event(),
        backoff=Backoff(base_s=0.001, cap_s=0.002),
    )
    consumer.listener = lane
    return lane


class LogHistory:
    """Replays a fake consumer's log, as `KafkaHistoryReader` replays a partition."""

    def __init__(self, consumer: FakeConsumer) -> None:
        self.consumer = consumer

    def read(self, tp: TopicPartition, *, lookback_s: float, until_offset: int) -> Iterable[FakeRecord]:
        return self.consumer.log.get(tp, [])[:until_offset]


def keyed(history: LogHistory | None) -> KeyedProcessor:
    return KeyedProcessor(
        make_detectors=lambda: {"test.burst": BurstDetector()}, rules=RULES, history=history, lookback_s=3600
    )


def route_all(records: list[bytes]) -> FakeProducer:
    """Stage 1 over chat records keyed by player; returns the producer holding the routed records."""
    consumer, store, producer = FakeConsumer(), IngestStore(), FakeProducer()
    for i, raw in enumerate(records):
        consumer.append(CHAT, i % 2, raw, key=json.loads(raw)["player_id"].encode())
    dets: dict[str, Detector] = {"test.word": WordDetector(), "test.burst": BurstDetector()}
    lane = lane_for(consumer, InputProcessor(detectors=dets, rules=RULES), store, producer)
    consumer.rebalance([TopicPartition(CHAT, 0), TopicPartition(CHAT, 1)])
    while step(lane):
        pass
    return producer


def rekey_log(producer: FakeProducer) -> FakeConsumer:
    """The re-key topic as the broker holds it: the bundles in the partitions they were sent to."""
    consumer = FakeConsumer()
    for partition, key, value, headers in producer.sent_to(REKEY):
        assert partition is not None, "bundles are sent to an explicit partition"
        consumer.append(REKEY, partition, value, key=key, headers=tuple(headers or ()))
    return consumer


def routed(producer: FakeProducer) -> list[tuple[int, bytes, dict[str, bytes]]]:
    """Every routed entry: (partition, key, headers)."""
    out = []
    for record in expand(
        rekey_log(producer).log.get(TopicPartition(REKEY, 0), [])
        + rekey_log(producer).log.get(TopicPartition(REKEY, 1), [])
    ):
        if is_mark(record):
            continue
        assert record.key is not None
        out.append((record.partition, record.key, {k: v or b"" for k, v in record.headers or ()}))
    return out


def entries_below(log: FakeConsumer, offsets: dict[TopicPartition, int]) -> int:
    """How many entries (routed events and progress marks) the bundles below these offsets hold."""
    return sum(len(expand(log.log.get(tp, [])[:off])) for tp, off in offsets.items())


def messages(n: int) -> list[bytes]:
    return [chat_bytes(f"e{i}", f"p{i % 5}", f"t{i % 3}", "kys" if i % 4 == 0 else "hi") for i in range(n)]


def test_stateless_detectors_run_inline_and_stateful_ones_are_routed_by_their_key() -> None:
    producer = route_all([chat_bytes("e1", "p1", "t9", "kys"), chat_bytes("e2", "p2", "t9")])
    entries = routed(producer)
    assert [k for _, k, _ in entries] == [b"t9", b"t9"], "re-keyed by table, not by the producer's player key"
    assert {p for p, _, _ in entries} == {partition_of(b"t9", 2)}, "in the partition a keyed record would go"
    headers = entries[0][2]
    assert headers["rb-topic"] == b"chat.messages" and headers["rb-src"].startswith(b"chat.messages/")
    assert headers["rb-detectors"] == b"test.burst", "the stateless detector is never routed"
    bundles = producer.sent_to(REKEY)
    assert sorted(p for p, _, _, _ in bundles) == [0, 1], "every re-key partition gets the batch's bundle"
    sizes = sorted(sum(not is_mark(e) for e in expand([FakeRecord(REKEY, p or 0, 0, k, v, tuple(h or ()))]))
                   for p, k, v, h in bundles)
    assert sizes == [0, 2], "both routes travel in one bundle, the other partition's is empty"
    marks = {dict(h or ())["rb-wm"] for _, _, _, h in bundles}
    assert len(marks) == 1 and b"chat.messages/" in marks.pop(), "each carries the batch's progress marks"


def test_one_route_per_distinct_state_key_listing_the_detectors_that_share_it() -> None:
    consumer, producer = FakeConsumer(), FakeProducer()
    consumer.append(CHAT, 0, chat_bytes("e1", "p1", "t1"), key=b"p1")
    dets: dict[str, Detector] = {
        "test.burst": BurstDetector(),
        "test.talkative": TalkativeDetector(),
        "test.talkative2": TalkativeDetector(name="test.talkative2"),
    }
    lane = lane_for(consumer, InputProcessor(detectors=dets, rules=RULES), IngestStore(), producer)
    consumer.rebalance([TopicPartition(CHAT, 0)])
    step(lane)
    routes = {k: h["rb-detectors"] for _, k, h in routed(producer)}
    assert routes == {b"t1": b"test.burst", b"p1": b"test.talkative,test.talkative2"}


def test_two_routes_of_one_event_landing_in_one_partition_are_both_applied() -> None:
    consumer, producer = FakeConsumer(), FakeProducer()
    consumer.append(CHAT, 0, chat_bytes("e1", "p1", "t1"), key=b"p1")
    dets: dict[str, Detector] = {
        "test.burst": BurstDetector(every=1),
        "test.talkative": TalkativeDetector(every=1),
    }
    lane_for(consumer, InputProcessor(detectors=dets, rules=RULES), IngestStore(), producer)
    consumer.rebalance([TopicPartition(CHAT, 0)])
    step(consumer.listener)
    log = FakeConsumer()
    for _, key, value, headers in producer.sent_to(REKEY):
        log.append(REKEY, 0, value, key=key, headers=tuple(headers or ()))  # all in one partition
    store = IngestStore()
    processor = KeyedProcessor(
        make_detectors=lambda: {
            "test.burst": BurstDetector(every=1),
            "test.talkative": TalkativeDetector(every=1),
        },
        rules=RULES,
        history=None,
        lookback_s=60,
    )
    lane = lane_for(log, processor, store, FakeProducer())
    log.rebalance([TopicPartition(REKEY, 0)])
    step(lane)
    assert sorted(f["detector"] for f in store.findings.values()) == ["test.burst", "test.talkative"]


def run_keyed(consumer: FakeConsumer, processor: KeyedProcessor, store: IngestStore) -> None:
    lane = lane_for(consumer, processor, store, FakeProducer())
    consumer.rebalance([TopicPartition(REKEY, 0), TopicPartition(REKEY, 1)])
    while step(lane):
        pass


def test_keyed_stage_counts_per_table_and_ignores_duplicated_routes() -> None:
    producer = route_all(messages(30))
    retried = [(a, p) for a, p in zip(producer.acked, producer.partitions, strict=True) if a[0] == REKEY][:1]
    for a, p in retried:  # a stage-1 retry re-sends a whole bundle
        producer.acked.append(a)
        producer.partitions.append(p)
    store = IngestStore()
    run_keyed(rekey_log(producer), keyed(None), store)
    assert sorted(f["table_id"] for f in store.findings.values()) == ["t0"] * 3 + ["t1"] * 3 + ["t2"] * 3


def test_state_rebuilt_after_a_partition_move_gives_the_findings_of_one_process() -> None:
    producer = route_all(messages(30))
    single = IngestStore()
    run_keyed(rekey_log(producer), keyed(None), single)

    moved_log = rekey_log(producer)
    first, second = IngestStore(), IngestStore()
    lane_a = lane_for(moved_log, keyed(LogHistory(moved_log)), first, FakeProducer())
    moved_log.rebalance([TopicPartition(REKEY, 0), TopicPartition(REKEY, 1)])
    step(lane_a)  # 4 bundles, committed
    committed_by_a = dict(moved_log.committed_offsets)
    processor_b = keyed(LogHistory(moved_log))
    lane_for(moved_log, processor_b, second, FakeProducer())  # a new process takes the partitions over
    moved_log.rebalance([TopicPartition(REKEY, 0), TopicPartition(REKEY, 1)])
    while moved_log.listener.step():
        pass
    assert processor_b.replayed == entries_below(moved_log, committed_by_a) > 0, (
        "the new owner replays what the old one had committed"
    )
    assert set(first.findings) | set(second.findings) == set(single.findings)
    assert not set(first.findings) & set(second.findings)


def test_a_partition_that_comes_back_untouched_keeps_its_state_a_moved_one_is_replayed() -> None:
    producer = route_all(messages(80))
    log = rekey_log(producer)
    processor = keyed(LogHistory(log))
    lane = lane_for(log, processor, IngestStore(), FakeProducer())
    log.rebalance([TopicPartition(REKEY, 0), TopicPartition(REKEY, 1)])
    step(lane)
    assert processor.replayed == 0 and sum(log.committed_offsets.values()) == 4
    log.rebalance([TopicPartition(REKEY, 0), TopicPartition(REKEY, 1)])
    step(lane)
    assert processor.replayed == 0, "its committed offset is where its state stops: no replay"
    moved = next(tp for tp, off in log.committed_offsets.items() if off < log.highwater(tp))
    log.committed_offsets[moved] += 1  # meanwhile another owner processed one more record
    expected = entries_below(log, {moved: log.committed_offsets[moved]})
    log.rebalance([TopicPartition(REKEY, 0), TopicPartition(REKEY, 1)])
    step(lane)
    assert processor.replayed == expected, "that partition is rebuilt from its history"


def test_a_routed_record_the_broker_does_not_ack_is_resent_before_the_commit() -> None:
    consumer, producer = FakeConsumer(), FakeProducer(fail_next=1)
    for i in range(3):
        consumer.append(CHAT, 0, chat_bytes(f"e{i}", f"p{i}", "t1"), key=f"p{i}".encode())
    lane = lane_for(
        consumer,
        InputProcessor(detectors={"test.burst": BurstDetector()}, rules=RULES),
        IngestStore(),
        producer,
    )
    consumer.rebalance([TopicPartition(CHAT, 0)])
    step(lane)
    entries = [e for e in expand(
        [FakeRecord(REKEY, p or 0, 0, k, v, tuple(h or ())) for p, k, v, h in producer.sent_to(REKEY)]
    ) if not is_mark(e)]
    assert {json.loads(e.value or b"")["event_id"] for e in entries} == {"e0", "e1", "e2"}
    assert consumer.commits == [{TopicPartition(CHAT, 0): 3}]


def test_a_route_for_a_detector_this_process_does_not_run_is_skipped_not_dead_lettered() -> None:
    producer = route_all(messages(12))
    store, registry = IngestStore(), CollectorRegistry()
    processor = KeyedProcessor(make_detectors=dict, rules=RULES, history=None, lookback_s=60)  # runs nothing
    log = rekey_log(producer)
    lane = lane_for(log, processor, store, FakeProducer())
    lane.metrics = ConsumerMetrics.create(registry)
    log.rebalance([TopicPartition(REKEY, 0), TopicPartition(REKEY, 1)])
    while step(lane):
        pass
    assert lane.producer.on(rekey_topic(CHAT) + ".dlq") == []  # type: ignore[attr-defined]
    assert registry.get_sample_value("railbird_detector_skipped_total", {"detector": "test.burst"}) == 12
    assert sum(log.committed_offsets.values()) == sum(len(v) for v in log.log.values())
