"""Local state: detectors keyed by the record's own Kafka key run in the input stage, per input
partition, rebuilt from the input partition on assignment; everything else is still re-keyed."""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka import TopicPartition

from consumers.input_stage import InputProcessor
from consumers.local_stage import local_names
from pipeline.contracts import CHAT, SEAT, Event
from pipeline.detector import Detector
from tests.consumers.detector_doubles import BurstDetector, TalkativeDetector, WordDetector
from tests.consumers.kafka_fakes import FakeConsumer, FakeProducer
from tests.consumers.review_api_double import IngestStore
from tests.consumers.test_consumer_rekey import RULES, LogHistory, chat_bytes, lane_for, routed

P0 = TopicPartition(CHAT, 0)


def detectors() -> dict[str, Detector]:
    return {"test.word": WordDetector(), "test.burst": BurstDetector(), "test.talkative": TalkativeDetector(every=3)}


@dataclass
class Stage1:
    """A stage-1 lane with local state over a fake consumer; `built` counts detector sets made."""

    consumer: FakeConsumer = field(default_factory=FakeConsumer)
    producer: FakeProducer = field(default_factory=FakeProducer)
    store: IngestStore = field(default_factory=IngestStore)
    history: bool = True
    built: int = 0

    def processor(self) -> InputProcessor:
        def make() -> dict[str, Detector]:
            self.built += 1
            return detectors()

        return InputProcessor(detectors=detectors(), rules=RULES, make_detectors=make,
                              history=LogHistory(self.consumer) if self.history else None, lookback_s=3600)

    def run(self, processor: InputProcessor) -> None:
        lane = lane_for(self.consumer, processor, self.store, self.producer)
        self.consumer.rebalance([P0])
        while lane.step():
            pass

    def talkative(self) -> list[str]:
        return sorted(f["source_event_ids"][0] for f in self.store.findings.values() if f["detector"] == "test.talkative")


def test_a_detector_keyed_by_the_producer_key_runs_here_and_others_are_still_routed() -> None:
    s = Stage1()
    for i in range(6):
        s.consumer.append(CHAT, 0, chat_bytes(f"e{i}", "p1", "t1"), key=b"p1")
    s.run(s.processor())
    assert s.talkative() == ["e2", "e5"], "every third message of p1, counted in the input partition"
    routes = {h["rb-detectors"] for _, _, h in routed(s.producer)}
    assert routes == {b"test.burst"}, "the table-keyed detector is re-keyed; the player-keyed one is not"


def test_a_record_keyed_otherwise_is_re_keyed_for_the_player_keyed_detector_too() -> None:
    s = Stage1()
    s.consumer.append(CHAT, 0, chat_bytes("e1", "p1", "t1"), key=b"some-table")
    s.consumer.append(CHAT, 0, chat_bytes("e2", "p1", "t1"), key=None)
    s.run(s.processor())
    by_key = {k: h["rb-detectors"] for _, k, h in routed(s.producer)}
    assert by_key == {b"p1": b"test.talkative", b"t1": b"test.burst"}
    assert s.talkative() == []


def test_each_input_partition_keeps_its_own_instances() -> None:
    s = Stage1()
    for i in range(2):
        s.consumer.append(CHAT, 0, chat_bytes(f"a{i}", "p1", "t1"), key=b"p1")
        s.consumer.append(CHAT, 1, chat_bytes(f"b{i}", "p1", "t1"), key=b"p1")
    lane = lane_for(s.consumer, s.processor(), s.store, s.producer)
    s.consumer.rebalance([P0, TopicPartition(CHAT, 1)])
    while lane.step():
        pass
    assert s.talkative() == [], "two messages in each partition: neither instance reached three"
    assert s.built == 2


def test_state_moves_with_the_partition_rebuilt_from_the_input_topic() -> None:
    s = Stage1()
    for i in range(2):
        s.consumer.append(CHAT, 0, chat_bytes(f"e{i}", "p1", "t1"), key=b"p1")
    s.run(s.processor())  # the first process: two messages, committed
    assert s.consumer.committed(P0) == 2
    s.consumer.append(CHAT, 0, chat_bytes("e2", "p1", "t1"), key=b"p1")
    s.run(s.processor())  # a second process takes the partition over: replays e0, e1, then e2
    assert s.talkative() == ["e2"]

    fresh = Stage1(consumer=s.consumer, history=False)
    fresh.consumer.committed_offsets[P0] = 2
    fresh.run(fresh.processor())  # without the replay the third message is only the first
    assert fresh.talkative() == []


def test_a_local_detector_that_raises_is_reported_and_the_record_dead_lettered_only_if_all_fail() -> None:
    @dataclass(frozen=True)
    class Broken:
        name: str = "test.broken"
        topics: frozenset[str] = frozenset({CHAT})

        def key(self, event: Event) -> str:
            return event.player_id  # type: ignore[union-attr]

        def process(self, event: Event) -> tuple[()]:
            raise RuntimeError("detector bug")

    consumer = FakeConsumer()
    consumer.append(CHAT, 0, chat_bytes("e1", "p1", "t1"), key=b"p1")
    only: dict[str, Detector] = {"test.broken": Broken()}
    processor = InputProcessor(detectors=only, rules=RULES, make_detectors=lambda: dict(only), history=None)
    handled = processor.handle_batch(consumer.log[P0])
    assert handled[0].dead is not None and "detector bug" in handled[0].dead[1]

    both: dict[str, Detector] = {"test.broken": Broken(), "test.word": WordDetector()}
    processor = InputProcessor(detectors=both, rules=RULES, make_detectors=lambda: dict(both), history=None)
    handled = processor.handle_batch(consumer.log[P0])
    assert handled[0].dead is None and [e.detector for e in handled[0].errors] == ["test.broken"]


def test_only_topics_keyed_by_a_state_key_keep_local_state() -> None:
    @dataclass(frozen=True)
    class PerTable:
        name: str = "test.per_table"
        topics: frozenset[str] = frozenset({SEAT})

        def key(self, event: Event) -> str:
            return event.event_id

        def process(self, event: Event) -> tuple[()]:
            return ()

    assert local_names({"test.per_table": PerTable()}, SEAT) == frozenset(), "seats are keyed by table"
    assert local_names(detectors(), CHAT) == {"test.word", "test.burst", "test.talkative"}
    assert local_names({"test.word": WordDetector(topics=frozenset({CHAT, SEAT}))}, CHAT) == frozenset(), (
        "a detector reading two topics needs the re-key topic, where both meet"
    )
