"""Progress marks through the re-key topic: an input partition read late (its consumer failed over)
holds a place-keyed detector's other lines back instead of arriving late, so the stream finds what
the in-order file finds; without the marks the same delivery loses the finding."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from kafka import TopicPartition

from consumers.bundle import expand
from consumers.input_stage import InputProcessor
from consumers.processing import KeyedProcessor
from consumers.topics import rekey_topic
from pipeline.contracts import CHAT, decode
from pipeline.detector import Detector
from pipeline.detectors.chat.harassment import HarassmentDetector
from tests.chat.chat_events import FakeClassifier
from tests.consumers.kafka_fakes import FakeConsumer, FakeProducer, FakeRecord, step
from tests.consumers.review_api_double import IngestStore
from tests.consumers.test_consumer_rekey import RULES, lane_for
from tests.samples import chat_value

REKEY = rekey_topic(CHAT)
T0 = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
LATENESS = timedelta(seconds=5)


def _detectors() -> dict[str, Detector]:
    return {"chat.harassment": HarassmentDetector(classifier=FakeClassifier(), lateness=LATENESS)}


def _line(event_id: str, player: str, nickname: str, table: str, text: str, at: float) -> bytes:
    value = chat_value(event_id=event_id, player_id=player, nickname=nickname, table_id=table, text=text,
                       ts=(T0 + timedelta(seconds=at)).isoformat())
    return json.dumps(value).encode()


def _stage_one() -> FakeProducer:
    """Both input partitions deliver a line, then partition 1's consumer goes down: Bob insults
    Alice from partition 0, followed by other tables' chat 20-30 s later, while Alice's greeting
    waits in partition 1, read only once its consumer is back."""
    consumer, producer = FakeConsumer(), FakeProducer()
    consumer.append(CHAT, 0, _line("early0", "pC", "Carl", "t9", "gl all", -2), key=b"pC")
    consumer.append(CHAT, 1, _line("early1", "pA", "Alice", "t8", "gl", -1), key=b"pA")
    lane = lane_for(consumer, InputProcessor(detectors=_detectors(), rules=RULES), IngestStore(), producer)
    consumer.rebalance([TopicPartition(CHAT, 0), TopicPartition(CHAT, 1)])
    while step(lane):
        pass
    consumer.append(CHAT, 1, _line("hello", "pA", "Alice", "t1", "hi all", 0), key=b"pA")
    consumer.append(CHAT, 1, _line("a-late", "pA", "Alice", "t2", "gg", 40), key=b"pA")
    for i in range(3):
        consumer.append(CHAT, 0, _line(f"i{i}", "pB", "Bob", "t1", "Alice idiot", 1 + i), key=b"pB")
    for i in range(6):
        consumer.append(CHAT, 0, _line(f"g{i}", "pC", "Carl", f"t{3 + i}", "gg", 20 + 2 * i), key=b"pC")
    consumer.rebalance([TopicPartition(CHAT, 0)])  # partition 1's consumer is down
    while step(lane):
        pass
    consumer.rebalance([TopicPartition(CHAT, 0), TopicPartition(CHAT, 1)])
    while step(lane):
        pass
    return producer


def _stage_two(producer: FakeProducer, *, marks: bool) -> IngestStore:
    log = FakeConsumer()
    for partition, key, value, headers in producer.sent_to(REKEY):
        kept = tuple((k, v) for k, v in headers or () if marks or k != "rb-wm")
        log.append(REKEY, partition or 0, value, key=key, headers=kept)
    store = IngestStore()
    processor = KeyedProcessor(make_detectors=_detectors, rules=RULES, history=None, lookback_s=60)
    lane = lane_for(log, processor, store, FakeProducer())
    log.rebalance([TopicPartition(REKEY, p) for p in range(len(producer.partitions))])
    while step(lane):
        pass
    return store


def test_a_partition_read_late_holds_the_others_back_and_the_finding_is_the_in_order_one() -> None:
    producer = _stage_one()
    offline = HarassmentDetector(classifier=FakeClassifier(), lateness=LATENESS)
    in_order = sorted(
        (json.loads(r) for r in (_line("hello", "pA", "Alice", "t1", "hi all", 0),
                                 *(_line(f"i{i}", "pB", "Bob", "t1", "Alice idiot", 1 + i) for i in range(3)))),
        key=lambda v: v["ts"],
    )
    expected = [f for v in in_order for f in offline.process(decode(CHAT, json.dumps(v).encode()))]
    expected += offline.flush()
    assert [f.detector for f in expected] == ["chat.harassment"]
    streamed = _stage_two(producer, marks=True)
    assert {f["finding_id"] for f in streamed.findings.values()} == {f.finding_id for f in expected}


def test_without_the_marks_the_greeting_arrives_late_and_the_finding_is_lost() -> None:
    streamed = _stage_two(_stage_one(), marks=False)
    assert [f for f in streamed.findings.values() if f["detector"] == "chat.harassment"] == []


def test_a_malformed_progress_mark_is_dead_lettered_with_its_reason_and_the_events_still_run() -> None:
    producer = _stage_one()
    partition, key, value, headers = next(b for b in producer.sent_to(REKEY) if dict(b[3] or ())["rb-wm"])
    bad = tuple((k, b"chat.messages/0=soon" if k == "rb-wm" else v) for k, v in headers or ())
    entries = expand([FakeRecord(REKEY, partition or 0, 0, key, value, bad)])
    processor = KeyedProcessor(make_detectors=_detectors, rules=RULES, history=None, lookback_s=60)
    handled = processor.handle_batch(entries)
    *events, mark = handled
    assert mark.dead is not None and mark.dead[0] == "invalid" and "progress mark" in mark.dead[1]
    assert all(h.dead is None for h in events), "the bundle's events are processed as usual"
