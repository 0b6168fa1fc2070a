"""Durable state through a changelog topic, over fake Kafka: the offence ledger outlives the lookback
in both stages (local state in stage 1, and the keyed stage when local state is off)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta

from kafka import TopicPartition

from consumers.bundle import BUNDLE_HEADER, SOURCE_TOPIC_HEADER, pack
from consumers.changelog import Changelog
from consumers.input_stage import InputProcessor
from consumers.processing import KeyedProcessor, Processor
from consumers.topics import changelog_topic
from pipeline.contracts import CHAT
from pipeline.detector import Detector
from pipeline.detectors.chat import OffenceLedger, build_chat_detectors
from pipeline.rules import RulesConfig
from tests.consumers.kafka_fakes import FakeConsumer, FakeProducer, FakeRecord
from tests.consumers.review_api_double import IngestStore
from tests.consumers.test_consumer_rekey import REKEY, lane_for
from tests.samples import T0, chat_value

RULES = RulesConfig()
P0 = TopicPartition(CHAT, 0)
LEDGER = "chat.offence_ledger"


def chat_detectors() -> dict[str, Detector]:
    return {d.name: d for d in build_chat_detectors(rules=RULES)}


def offence(event_id: str, day: int, player: str = "p1") -> bytes:
    ts = (T0 + timedelta(days=day)).isoformat()
    return json.dumps(chat_value(event_id=event_id, player_id=player, ts=ts, text="you idiot")).encode()


@dataclass
class ProducedChangelog:
    """Reads what a fake producer wrote to a changelog partition, as the broker would serve it."""

    producer: FakeProducer

    def read_all(self, tp: TopicPartition) -> list[FakeRecord]:
        sent = [(k, v) for p, k, v, _ in self.producer.sent_to(tp.topic) if p == tp.partition]
        return [FakeRecord(tp.topic, tp.partition, i, k, v) for i, (k, v) in enumerate(sent)]


@dataclass
class Run:
    """Lanes of successive processes over one fake log; the producer is the broker's memory."""

    consumer: FakeConsumer
    partitions: list[TopicPartition]
    producer: FakeProducer = field(default_factory=FakeProducer)
    store: IngestStore = field(default_factory=IngestStore)

    def process(self, processor: Processor) -> None:
        lane = lane_for(self.consumer, processor, self.store, self.producer)
        self.consumer.rebalance(self.partitions)
        while lane.step():
            pass

    def finding(self, event_id: str) -> Mapping[str, object]:
        (found,) = (f for f in self.store.findings.values()
                    if f["source_event_ids"] == [event_id] and f["detector"] == "chat.banned_words")
        return found


def stage1(run: Run, *, durable: bool) -> InputProcessor:
    """A new stage-1 process with local state and no lookback to replay (history None)."""
    return InputProcessor(detectors=chat_detectors(), rules=RULES, make_detectors=chat_detectors,
                          history=None, changelog=ProducedChangelog(run.producer) if durable else None)


def evidence(finding: Mapping[str, object]) -> tuple[object, list[object]]:
    ev = finding["evidence"]
    actions = finding["actions"]
    assert isinstance(ev, dict) and isinstance(actions, list)
    return ev["prior_offences"], [a["disposition"] for a in actions]


def test_local_state_a_repeat_offence_after_a_partition_move_counts_the_restored_one() -> None:
    run = Run(FakeConsumer(), [P0])
    run.consumer.append(CHAT, 0, offence("m1", 0), key=b"p1")
    run.process(stage1(run, durable=True))
    assert evidence(run.finding("m1")) == (0, ["automatic"])
    (write,) = run.producer.sent_to(changelog_topic(CHAT))
    assert write[0] == 0 and write[1] == b"chat.offence_ledger/p1", "same partition, keyed by store and player"

    run.consumer.append(CHAT, 0, offence("m2", 1), key=b"p1")
    run.process(stage1(run, durable=True))  # another process: nothing in its lookback but m2
    assert evidence(run.finding("m2")) == (1, ["proposed"]), "a repeat: a case, not an automatic mute"


def test_local_state_without_the_changelog_the_repeat_looks_like_a_first_offence() -> None:
    run = Run(FakeConsumer(), [P0])
    run.consumer.append(CHAT, 0, offence("m1", 0), key=b"p1")
    run.process(stage1(run, durable=False))
    assert run.producer.sent_to(changelog_topic(CHAT)) == []
    run.consumer.append(CHAT, 0, offence("m2", 1), key=b"p1")
    run.process(stage1(run, durable=False))
    assert evidence(run.finding("m2")) == (0, ["automatic"]), "the gap the changelog closes"


def local_ledger(processor: InputProcessor, partition: int) -> OffenceLedger:
    """The restored ledger of a local partition state (white-box: nothing else shows it before the
    next record is processed)."""
    store = processor._local[CHAT]._parts[partition].stores[LEDGER]
    assert isinstance(store, OffenceLedger)
    return store


def test_offences_of_records_processed_but_never_committed_are_not_restored() -> None:
    run = Run(FakeConsumer(), [P0])
    for i in range(3):
        run.consumer.append(CHAT, 0, offence(f"m{i}", i), key=b"p1")
    run.process(stage1(run, durable=True))
    assert run.consumer.committed(P0) == 3
    run.consumer.committed_offsets[P0] = 2  # the crash came before m2's commit landed

    processor = stage1(run, durable=True)
    processor.on_assigned([P0], run.consumer.committed)
    restored = local_ledger(processor, 0).offences("p1", T0 + timedelta(days=3))
    assert [(o.event_id, o.source) for _, o in restored] == [("m0", 0), ("m1", 1)]
    lane = lane_for(run.consumer, processor, run.store, run.producer)
    run.consumer.rebalance([P0])
    while lane.step():
        pass  # m2 again: recorded once, from its own processing
    assert len(local_ledger(processor, 0).offences("p1", T0 + timedelta(days=3))) == 3


def routed_bundle(event: bytes) -> tuple[bytes, tuple[tuple[str, bytes | None], ...]]:
    """Stage 1 without local state routes the event; (bundle bytes, headers) of its route keyed
    by the player, as the lane would pack it."""
    stage = InputProcessor(detectors=chat_detectors(), rules=RULES)
    record = FakeRecord(CHAT, 0, 0, b"p1", event)
    (route,) = (r for r in stage.handle(record).routes if r.key == b"p1")
    headers = ((BUNDLE_HEADER, b"1"), (SOURCE_TOPIC_HEADER, CHAT.encode()))
    return pack([(route.key, route.detectors, route.source, route.value)]), headers


def keyed_stage(run: Run) -> KeyedProcessor:
    """A new keyed-stage process, with no lookback to replay."""
    changelog = Changelog(changelog_topic(REKEY), ProducedChangelog(run.producer))
    return KeyedProcessor(make_detectors=chat_detectors, rules=RULES, history=None, lookback_s=60,
                          changelog=changelog)


def test_keyed_stage_a_repeat_offence_after_a_partition_move_counts_the_restored_one() -> None:
    run = Run(FakeConsumer(), [TopicPartition(REKEY, 1)])
    value, headers = routed_bundle(offence("m1", 0))
    run.consumer.append(REKEY, 1, value, headers=headers)
    run.process(keyed_stage(run))
    assert evidence(run.finding("m1")) == (0, ["automatic"])
    assert [(p, k) for p, k, _, _ in run.producer.sent_to(changelog_topic(REKEY))] == [(1, b"chat.offence_ledger/p1")]

    value, headers = routed_bundle(offence("m2", 1))
    run.consumer.append(REKEY, 1, value, headers=headers)
    processor = keyed_stage(run)
    run.process(processor)
    assert processor.restored == 1
    assert evidence(run.finding("m2")) == (1, ["proposed"])
